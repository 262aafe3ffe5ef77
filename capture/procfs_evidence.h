// The live Linux Evidence: one directory descriptor of a /proc mount, and
// openat/read/fstatat relative to it. Nothing outside that directory is ever
// opened; the only path outside it that is touched is the one PathIdentity is
// asked for, and only by stat(2). Read-only: it never signals, ptraces or
// writes to a process.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/evidence.h"

namespace proctape {

class ProcfsEvidence : public Evidence {
 public:
  // Opens `proc_root` (normally "/proc"). On failure returns null and sets
  // *error to one line naming the path and the errno.
  static std::unique_ptr<ProcfsEvidence> Open(const std::string& proc_root, std::string* error);
  ~ProcfsEvidence() override;
  ProcfsEvidence(const ProcfsEvidence&) = delete;
  ProcfsEvidence& operator=(const ProcfsEvidence&) = delete;

  ListResult ListPids(std::uint64_t bound) override;
  // Reads at most bound + 1 bytes, so a file of exactly `bound` bytes is whole
  // and one byte more is `truncated`. EINTR is retried.
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override;
  Identity ExeIdentity(std::int64_t pid) override;
  Identity PathIdentity(const std::string& path) override;
  // st_dev + st_ino of the pid namespace /proc/PID/ns/pid links to (the
  // capturer's own addition; not part of the Evidence interface). Needs
  // ptrace-read access to PID: another user's process gives EACCES.
  Identity PidNamespace(std::int64_t pid);
  std::int64_t NowNs() override;
  void SleepUntil(std::int64_t mono_ns) override;

 private:
  explicit ProcfsEvidence(int proc_fd) : proc_fd_(proc_fd) {}
  int proc_fd_;
  std::vector<char> buffer_;  // reused across reads; holds bound + 1 bytes
};

}  // namespace proctape
