// SPDX-License-Identifier: Apache-2.0
// A shell session for the tests that run documented examples (readme_test.cc):
// one bash, a direct child of the test, that runs commands one at a time as a
// person types them, so that what one command leaves (a variable, $$, a
// background job that a later `kill %1` ends) is there for the next; each
// command's standard output, standard error and exit status come back apart.
// Every command reads /dev/null as its standard input.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

namespace proctape::live {

class ShellSession {
 public:
  // bash --norc --noprofile in `cwd`, with `path_first` put first on PATH.
  // Null (and *error) when it cannot be started.
  static std::unique_ptr<ShellSession> Start(const std::string& cwd, const std::string& path_first,
                                             std::string* error);
  // Ends the shell: its input closed, then (if it has not exited) SIGKILL by
  // its pid, which is ours until it is reaped here.
  ~ShellSession();
  ShellSession(const ShellSession&) = delete;
  ShellSession& operator=(const ShellSession&) = delete;

  struct Result {
    bool ran = false;  // false: the shell is gone or did not answer in time
    int status = -1;   // $? after the command
    std::string out, err;
    std::string error;  // why it did not run
  };
  // Runs `command` (a line as typed, continuation lines included) and waits
  // at most `timeout_ms` for it to finish.
  Result Run(const std::string& command, int timeout_ms);

  pid_t pid() const { return pid_; }

 private:
  ShellSession() = default;
  pid_t pid_ = -1;
  int to_shell_ = -1;    // the shell's standard input
  int from_shell_ = -1;  // the shell's fd 3: one status line per command
  std::string scratch_;  // where each command's output goes
};

}  // namespace proctape::live
