// Reading a proc-dir back (docs/export.md, `proctape capture --proc-root
// DIR`): ProcDirEvidence answers the Evidence interface from a directory laid
// out like /proc (an export, analyze/proc_dir_writer.h, or a fixture another
// tool made) and its side files (analyze/proc_dir_facts.h), so the capture
// records it with the same scanner as a live /proc.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "analyze/proc_dir_facts.h"
#include "core/evidence.h"

namespace proctape {

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
