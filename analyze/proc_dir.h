// The proc-dir layout (docs/export.md): one frame of a snapshot as a
// directory laid out like /proc, and the way back.
//
//   DIR/proctape-frame           frame-level facts (FrameFacts, text)
//   DIR/PID/stat cmdline environ status cgroup
//                                exactly the recorded bytes; a read that
//                                failed (or was not recorded) has no file
//   DIR/PID/proctape-identity    what a directory cannot hold (IdentityFacts,
//                                text): exe and pid-namespace identity, the
//                                errno of each failed read, truncation
//
// WriteProcDir makes the directory; ProcDirEvidence reads it back through the
// Evidence interface, so `proctape capture --proc-root DIR` records it with
// the same scanner as a live /proc. For a frame without duplicate or invalid
// pids, export -> capture --proc-root -> export gives the same directory
// byte for byte.
//
// Both side files are text: a first line "proctape-frame 1" (resp.
// "proctape-identity 1"), then one "KEY VALUE" line per fact, keys in the
// fixed order below, a fact that is not known has no line. Bytes values are
// escaped as EscapeBytes does (printable ASCII but backslash as is, every
// other byte \xNN), so each file is ASCII and one fact is one line.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.h"
#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape {

// PID/proctape-identity:
//   exe DEV:INO | exe error ERRNO          ProcessRecord.exe
//   pid_ns DEV:INO | pid_ns error ERRNO    ProcessRecord.pid_ns
//   FILE error ERRNO                       FILE (stat, cmdline, environ, status,
//                                          cgroup) failed with ERRNO: no file
//   FILE truncated                         FILE held more than its bound; the
//                                          file holds the bytes kept
// Lines in that order, FILE in that order.
struct IdentityFacts {
  std::optional<Identity> exe;
  std::optional<Identity> pid_ns;
  std::map<ProcFile, int> errors;
  std::set<ProcFile> truncated;
  bool operator==(const IdentityFacts&) const = default;
};

IdentityFacts IdentityFactsOf(const v1::ProcessRecord& record);
std::string PrintIdentityFacts(const IdentityFacts& facts);
// Strict: the header line, known keys, each at most once, in order, valid
// values. False with *error naming the line.
bool ParseIdentityFacts(std::string_view text, IdentityFacts* out, std::string* error);

// proctape-frame:
//   scan_start_mono_ns N, scan_end_mono_ns N    Frame times (capturing host's
//                                               CLOCK_MONOTONIC)
//   scan_start_realtime_ns N                    the scan start as wall clock:
//                                               Header.capture_start_realtime_ns
//                                               + (scan start - capture start)
//   cut_reason TEXT                             Frame.cut_reason, when cut
//   hostname, kernel_release, boot_id BYTES     Header.host, as read
//   pid_max, clock_ticks_per_second, page_size N
//   environ redacted|kept                       Header.redaction.environ
//   kept_entry BYTES                            one per kept_entries entry
//   dropped_pid N                               a record not written: a pid
//                                               seen before in the frame, or
//                                               not in 1..2147483647
// Numbers are decimal (the times may be negative); N = 0 and empty bytes have
// no line. The frame's index is not a fact of the frame: it is not written.
struct FrameFacts {
  std::int64_t scan_start_mono_ns = 0;
  std::int64_t scan_end_mono_ns = 0;
  std::int64_t scan_start_realtime_ns = 0;
  std::string cut_reason;
  v1::HostFacts host;
  v1::RedactionPolicy::EnvironMode environ = v1::RedactionPolicy::ENVIRON_MODE_UNSPECIFIED;
  std::vector<std::string> kept_entries;
  std::vector<std::int64_t> dropped_pids;
};

FrameFacts FrameFactsOf(const Snapshot& snapshot, std::size_t frame);
std::string PrintFrameFacts(const FrameFacts& facts);
bool ParseFrameFacts(std::string_view text, FrameFacts* out, std::string* error);

struct ProcDirStats {
  std::uint64_t processes = 0;  // PID directories
  std::uint64_t files = 0;      // files written, side files included
  std::uint64_t bytes = 0;      // bytes written
};

// Materializes snapshot.frames[frame] at `path`, built as PATH.partial and
// renamed. Refused: a symbolic link at `path`, anything but a directory, a
// non-empty directory unless `force` and it holds a proctape-frame (an
// earlier export, then replaced whole: never a directory that is not an
// export), a PATH.partial left over unless `force` (then removed). Files are
// 0644, environ 0600 (it may hold kept entries), directories 0755. False with
// *error, one line; nothing is left behind then.
bool WriteProcDir(const Snapshot& snapshot, std::size_t frame, const std::string& path, bool force,
                  ProcDirStats* stats, std::string* error);

// An Evidence over a proc-dir (or any /proc-like directory, made by another
// tool): `inner` reads DIR itself (a ProcfsEvidence opened on DIR) and
// `inner_pid_ns` its PID/ns/pid; PID/proctape-identity, when present, says
// what a directory cannot:
//   - ListPids: inner's numeric entries (at most 4194304, the kernel's
//     PID_MAX_LIMIT), in ascending numeric order as /proc lists them, then at
//     most `bound`;
//   - ReadFile: "FILE error E" answers E without opening the file; else
//     inner's read, and "FILE truncated" sets `truncated`;
//   - ExeIdentity, PidNamespace: the side file's identity or errno; without
//     that line, inner's (a real PID/exe symlink is followed; none: ENOENT);
//   - PathIdentity, NowNs, SleepUntil: inner's.
// A side file that cannot be read (other than absent) or parsed leaves the
// answers to inner and sets error(): the caller must not trust the scan.
// Not thread-safe (an Evidence never is).
class ProcDirEvidence : public Evidence {
 public:
  using PidNamespaceFn = std::function<Identity(std::int64_t pid)>;
  // Opens DIR and parses DIR/proctape-frame when present. Null with *error
  // when DIR cannot be opened or proctape-frame is unreadable or malformed.
  // `inner` must outlive the result.
  static std::unique_ptr<ProcDirEvidence> Open(const std::string& dir, Evidence& inner,
                                               PidNamespaceFn inner_pid_ns, std::string* error);
  ~ProcDirEvidence() override;
  ProcDirEvidence(const ProcDirEvidence&) = delete;
  ProcDirEvidence& operator=(const ProcDirEvidence&) = delete;

  // DIR/proctape-frame, when DIR has one.
  const std::optional<FrameFacts>& frame() const { return frame_; }
  // The first side file that could not be read or parsed, one line; else empty.
  const std::string& error() const { return error_; }

  ListResult ListPids(std::uint64_t bound) override;
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  Identity PidNamespace(std::int64_t pid);
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  ProcDirEvidence(int dir_fd, std::string dir, Evidence& inner, PidNamespaceFn inner_pid_ns)
      : dir_fd_(dir_fd), dir_(std::move(dir)), inner_(inner),
        inner_pid_ns_(std::move(inner_pid_ns)) {}
  const IdentityFacts& Facts(std::int64_t pid);

  int dir_fd_;
  std::string dir_;
  Evidence& inner_;
  PidNamespaceFn inner_pid_ns_;
  std::optional<FrameFacts> frame_;
  std::string error_;
  std::int64_t cached_pid_ = 0;  // the side file of one pid is kept: the scanner
  IdentityFacts cached_;         // reads a process's files one after another
};

}  // namespace proctape
