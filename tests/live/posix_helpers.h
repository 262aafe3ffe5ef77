// SPDX-License-Identifier: Apache-2.0
// What the implementations of tests/live/sandbox.h (proc_reading.cc,
// pidfd.cc, child_process.cc, sandbox.cc) share: the monotonic clock in
// milliseconds, a sleep that survives EINTR, an errno message, looking at or
// reaping our own child, and an argv for execv. Not for the tests themselves.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace proctape::live::detail {

inline std::int64_t MonoMs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

inline void SleepMs(int ms) {
  struct timespec ts {
    ms / 1000, static_cast<long>(ms % 1000) * 1'000'000
  };
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

inline std::string Errno(const std::string& what, int err) {
  return what + ": " + std::strerror(err);
}

// Has our own child exited? Looks without reaping it.
inline bool ChildExited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid;
}

// In a forked child: the signals a test sends (and SIGPIPE) at their
// defaults, none blocked, whatever the test runner inherited.
inline void DefaultSignals() {
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

inline void Reap(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

inline std::vector<char*> CArgv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace proctape::live::detail
