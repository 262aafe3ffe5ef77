// SPDX-License-Identifier: Apache-2.0
// Direct children of the live tests (tests/live/sandbox.h): a program
// started as our child, a zombie, and a command run to completion with its
// output captured.
//
// Each ends exactly the child it started, by pid (safe: the child is ours and
// unreaped until waitpid), and reaps it; every child is started with
// PR_SET_PDEATHSIG=SIGKILL, so even a crashed test binary leaves nothing
// behind.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace proctape::live {

// argv[0] must be an absolute path. stdin, stdout and stderr are the given
// descriptors (-1: /dev/null). Returns the pid or -1 (and *error). The child
// gets PR_SET_PDEATHSIG=SIGKILL, no other descriptors, and every signal at
// its default, none blocked (whatever the test runner inherited).
pid_t SpawnChild(const std::vector<std::string>& argv, int out_fd, int err_fd, std::string* error,
                 int in_fd = -1);

// RAII for one direct child: SIGKILL by pid (safe: it is ours and unreaped
// until waitpid) and waitpid in the destructor.
class Child {
 public:
  static std::unique_ptr<Child> Start(const std::vector<std::string>& argv, std::string* error);
  // A child that exits at once and is left unreaped: a zombie. Returns once
  // /proc shows it in state Z (at most 5 s).
  static std::unique_ptr<Child> StartZombie(std::string* error);
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  // Waits (at most timeout_ms) until /proc/PID/cmdline equals `cmdline`
  // exactly, i.e. the exec has completed.
  bool WaitForCmdline(const std::string& cmdline, int timeout_ms) const;

 private:
  explicit Child(pid_t pid) : pid_(pid) {}
  pid_t pid_;
};

// Reaps our child `pid` within `timeout_ms`; else SIGKILL (ours, unreaped: the
// pid is its own) and reap. The wait status, or nullopt when it was killed.
std::optional<int> ReapWithin(pid_t pid, int timeout_ms);

struct CommandResult {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;   // when it exited normally
  int term_signal = 0;  // when a signal ended it
  std::string out;
  std::string err;
  std::string error;  // why it could not be run
};

// Runs argv (argv[0] absolute) with stdout and stderr captured, stdin on
// `in_fd` (-1: /dev/null); a command still running after timeout_ms is
// killed by its pid and reaped.
CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_ms = 10000,
                         int in_fd = -1);

}  // namespace proctape::live
