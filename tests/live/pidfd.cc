// SPDX-License-Identifier: Apache-2.0
#include "tests/live/pidfd.h"

#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <utility>

#include "tests/live/posix_helpers.h"
#include "tests/live/proc_reading.h"

namespace proctape::live {

using namespace detail;  // tests/live/posix_helpers.h

PidFd PidFd::Open(pid_t pid, std::uint64_t expected_start, std::string* error) {
  PidFd out;
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) {
    *error = Errno("pidfd_open(" + std::to_string(pid) + ")", errno);
    return out;
  }
  out.fd_ = static_cast<int>(fd);
  out.pid_ = pid;
  // The pidfd names whatever held `pid` when it was opened: prove that was
  // the process we saw, by its start time, read after the open.
  std::optional<ProcStat> st = ReadStat(pid);
  if (!st || st->start_ticks != expected_start) {
    *error = "pid " + std::to_string(pid) + " changed before its pidfd was checked";
    return PidFd();
  }
  return out;
}

PidFd::PidFd(PidFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)), pid_(other.pid_) {}

PidFd& PidFd::operator=(PidFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    pid_ = other.pid_;
  }
  return *this;
}

PidFd::~PidFd() {
  if (fd_ >= 0) ::close(fd_);
}

void PidFd::Kill() const {
  if (fd_ >= 0) ::syscall(SYS_pidfd_send_signal, fd_, SIGKILL, nullptr, 0);
}

bool PidFd::WaitExited(int timeout_ms) const {
  if (fd_ < 0) return true;
  std::int64_t until = MonoMs() + timeout_ms;
  for (;;) {
    struct pollfd p {
      fd_, POLLIN, 0
    };
    int left = static_cast<int>(std::max<std::int64_t>(0, until - MonoMs()));
    int n = ::poll(&p, 1, left);
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace proctape::live
