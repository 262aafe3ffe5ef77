// SPDX-License-Identifier: Apache-2.0
// Reading a proc-dir back (docs/export.md, `proctape capture --proc-root
// DIR`): ProcDirEvidence answers the Evidence interface from a directory laid
// out like /proc (an export, procdir/writer.h, or a fixture another
// tool made) and its side files (procdir/facts.h), so the capture
// records it with the same scanner as a live /proc.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "procdir/facts.h"
#include "core/evidence.h"
#include "proctape.pb.h"

namespace proctape {

// An Evidence over a proc-dir (or any /proc-like directory made by another
// tool), sealed inside it: nothing outside DIR is ever read, identified or
// followed, and nothing of the importing machine is taken for the host's.
//
// Every path under DIR (the per-pid files, the side files, the exe and
// ns/pid entries) is opened by one function, with openat2(2) and
//   RESOLVE_BENEATH       no component may leave DIR: an absolute link, `..`,
//                         a link to `..` all fail with EXDEV;
//   RESOLVE_NO_MAGICLINKS no /proc magic link (DIR may be a procfs) is
//                         followed: ELOOP;
//   RESOLVE_NO_XDEV       no mount point inside DIR is crossed (a bind mount
//                         brings another filesystem in without a link): EXDEV;
// and O_NOFOLLOW for the file itself: a file that is a link is ELOOP. The
// kernel resolves each path in one call, so a link swapped in while it walks
// cannot escape. (Chosen over O_NOFOLLOW per component, done here one openat
// at a time: that is one call per component, takes no care of mounts, and
// refuses the relative links inside DIR a fixture may hold.) A failure is an
// errno like any other: it is what the record keeps.
//
// Answers:
//   - ListPids: DIR's numeric entries (at most 4194304, the kernel's
//     PID_MAX_LIMIT), in ascending numeric order as /proc lists them, then at
//     most `bound`;
//   - ReadFile: "FILE error E" in PID/proctape-identity answers E without
//     opening the file; else PID/FILE read as ProcfsEvidence reads /proc
//     (bound + 1 bytes, EINTR retried), and "FILE truncated" sets `truncated`.
//     Every file of DIR (side files too) is opened O_NONBLOCK and read only
//     when fstat(2) says it is a regular file: a FIFO, a device, a socket or a
//     directory is EINVAL (a damaged entry, kept as the read's errno), so no
//     entry of DIR can block the capture;
//   - ExeIdentity, PidNamespace: the side file's "exe" ("pid_ns") line, the
//     only source of an identity. Without one, the entry PID/exe (PID/ns/pid)
//     is looked at, never followed: absent ENOENT; a link ELOOP (its text is
//     kept: LinkTexts); anything else EINVAL (as readlink(2) says);
//   - LinkTexts: the side file's "exe_link" ("pid_ns_link") line, else the
//     text of the PID/exe (PID/ns/pid) link;
//   - PathIdentity: EXDEV, always: a path names a file of the importing
//     machine, not of DIR;
//   - NowNs, SleepUntil: the importing machine's CLOCK_MONOTONIC (the import
//     is read now; its recorded times come from proctape-frame).
// A side file that cannot be read (other than absent from DIR: ENOENT,
// ENOTDIR, or EXDEV when its PID directory lies outside), that is a link, or
// that does not parse leaves the answers to the directory and sets error():
// the caller must not trust the scan. Not thread-safe (an Evidence never is).
class ProcDirEvidence : public Evidence {
 public:
  // Opens DIR and parses DIR/proctape-frame when present. Null with
  // *failure, its message naming DIR first ("DIR: ...",
  // "DIR/proctape-frame: ..."), of kind kIo when DIR cannot be opened
  // (missing, not a directory, unreadable), kCorrupt when DIR/proctape-frame
  // is unreadable, a link, or malformed, and kInternal when this host cannot
  // read DIR sealed (no openat2: Linux 5.6).
  static std::unique_ptr<ProcDirEvidence> Open(const std::string& dir, Failure* failure);
  ~ProcDirEvidence() override;
  ProcDirEvidence(const ProcDirEvidence&) = delete;
  ProcDirEvidence& operator=(const ProcDirEvidence&) = delete;

  // DIR/proctape-frame, when DIR has one.
  const std::optional<FrameFacts>& frame() const { return frame_; }
  // Whether DIR holds a process: a numeric entry with something at
  // PID/stat (or an export's PID/proctape-identity), whatever it is (a link
  // or an entry leading out of DIR is a process whose reads fail). An empty
  // or unrelated directory holds none: `capture --proc-root` refuses it
  // rather than write a frame of 0 processes.
  bool HoldsAProcess();
  // The first side file that could not be read or parsed, one line; else empty.
  const std::string& error() const { return error_; }

  // Results view buffers of this object, valid until its next call
  // (core/evidence.h).
  ListResult ListPids(std::uint64_t bound) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  Identity PidNamespace(std::int64_t pid);
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

  // Sets record->exe().link_text and record->pid_ns().link_text (when the
  // record has them) from the side file or DIR's links, as above. The
  // scanner's records hold identities only; `capture --proc-root` adds the
  // texts to each record before it is written.
  void AddLinkTexts(v1::ProcessRecord* record);

 private:
  // What DIR holds at PID/exe or PID/ns/pid, never followed.
  struct LinkEntry {
    Identity identity;  // ENOENT, ELOOP (a link), EINVAL, or the lookup's errno
    std::string text;   // a link's text
  };
  ProcDirEvidence(int dir_fd, std::string dir) : dir_fd_(dir_fd), dir_(std::move(dir)) {}
  const IdentityFacts& Facts(std::int64_t pid);
  LinkEntry Entry(std::int64_t pid, const char* leaf) const;

  int dir_fd_;
  std::string dir_;
  std::optional<FrameFacts> frame_;
  std::string error_;
  std::int64_t cached_pid_ = 0;     // the side file of one pid is kept: the scanner
  IdentityFacts cached_;            // reads a process's files one after another
  std::vector<char> buffer_;        // reused across reads; holds bound + 1 bytes; what a read views
  std::vector<std::string> names_;  // the last listing, which its names view
};

}  // namespace proctape
