// SPDX-License-Identifier: Apache-2.0
// A pidfd for the live tests (tests/live/sandbox.h): a handle on a process
// that is not our child (the sandbox launcher, its namespace init, the sleep),
// opened while its parent was alive and re-checked against its start time,
// so a signal sent through it can never reach a reused pid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace proctape::live {

class PidFd {
 public:
  PidFd() = default;
  // Opens a pidfd for `pid` and checks its start time is still
  // `expected_start`. Returns an invalid PidFd (and sets *error) otherwise.
  static PidFd Open(pid_t pid, std::uint64_t expected_start, std::string* error);
  PidFd(PidFd&& other) noexcept;
  PidFd& operator=(PidFd&& other) noexcept;
  PidFd(const PidFd&) = delete;
  PidFd& operator=(const PidFd&) = delete;
  ~PidFd();

  bool valid() const { return fd_ >= 0; }
  pid_t pid() const { return pid_; }
  // SIGKILL through the pidfd; a process that already exited is fine.
  void Kill() const;
  // Has the process exited (is it a zombie or gone)? Waits at most timeout_ms.
  bool WaitExited(int timeout_ms) const;

 private:
  int fd_ = -1;
  pid_t pid_ = 0;
};

}  // namespace proctape::live
