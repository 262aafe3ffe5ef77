// SPDX-License-Identifier: Apache-2.0
// The lab's view of and hold on real processes: direct /proc reads (parsed by
// core's parsers), pidfds that cannot be confused with a reused pid, and
// process starts — plain fork+exec, or clone3 with set_tid at a chosen pid.
//
// The lab signals only processes it started itself, and only through a
// pidfd or, for its own unreaped children, by pid (which cannot have been
// reused while the child is unreaped). It never signals by name or group.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "core/proc_parse.h"

namespace proctape::lab {

std::int64_t MonoMs();
void SleepMs(int ms);

// The whole of /proc/PID/NAME; nullopt (and *err) when it cannot be read.
std::optional<std::string> ReadProcFile(pid_t pid, const char* name, int* err = nullptr);
// /proc/PID/stat parsed by core's ParseStat; nullopt if gone or malformed.
std::optional<StatFields> ReadStatOf(pid_t pid);
// Every live process whose parent chain reaches `root` (root excluded),
// with its stat, shallowest first.
std::vector<StatFields> DescendantsOf(pid_t root);

// (st_dev, st_ino) of a path, following links; nullopt when it cannot be stat'ed.
struct FileId {
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  bool operator==(const FileId&) const = default;
};
std::optional<FileId> IdentityOf(const std::string& path);

// A pidfd opened for `pid` and proven (by the start tick, read after the
// open) to name the process seen with `start_ticks`.
class PidFd {
 public:
  PidFd() = default;
  static PidFd Open(pid_t pid, std::uint64_t start_ticks);
  PidFd(PidFd&& other) noexcept;
  PidFd& operator=(PidFd&& other) noexcept;
  PidFd(const PidFd&) = delete;
  PidFd& operator=(const PidFd&) = delete;
  ~PidFd();
  bool valid() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  pid_t pid() const { return pid_; }
  std::uint64_t start_ticks() const { return start_; }
  void Kill() const;                      // SIGKILL; an exited process is fine
  bool WaitExited(int timeout_ms) const;  // a zombie or gone

 private:
  int fd_ = -1;
  pid_t pid_ = 0;
  std::uint64_t start_ = 0;
};

// Starts argv (argv[0] absolute) as a direct child with environment `env`,
// stdin /dev/null, stdout/stderr to `log_fd` (-1: /dev/null), in a new
// process group, with PR_SET_PDEATHSIG=SIGKILL. With `set_tid` > 0 it is
// created by clone3 at exactly that pid (root only; fails with EEXIST when
// the pid is taken). Returns the pid, or -1 and *failure (kLabFailed, with
// the errno when a call failed).
pid_t StartChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 int log_fd, pid_t set_tid, Failure* failure);

// Reaps a direct child (blocking); returns its wait status.
int ReapChild(pid_t pid);
// Has our direct child exited? Looks without reaping.
bool ChildExited(pid_t pid);

}  // namespace proctape::lab
