// SPDX-License-Identifier: Apache-2.0
// The stand-in app-server (`docs/lab.md`, "What it starts"): a forked copy of
// the lab that starts what the lab asks for (over a pipe) beneath itself and
// reaps every child, adopted orphans too (it is a child subreaper). Its host
// pid and start time are the resolver's fingerprinted root.
//
// It stops when the pipe closes — the lab is done with it, or the lab died:
// it SIGKILLs its own unreaped children (by pid: a child cannot be reused
// until reaped), reaps everything and exits. It dies with the lab
// (PR_SET_PDEATHSIG), and everything it starts dies with it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/failure.h"

namespace proctape::lab {

class AppServer {
 public:
  // `log_fd` receives the children's stdout and stderr. Nullptr with
  // *failure (kLabFailed) when it cannot be started.
  static std::unique_ptr<AppServer> Start(int log_fd, Failure* failure);
  ~AppServer();
  AppServer(const AppServer&) = delete;
  AppServer& operator=(const AppServer&) = delete;

  pid_t pid() const { return pid_; }
  std::uint64_t start_ticks() const { return start_ticks_; }

  // Starts argv (argv[0] absolute) with environment `env` as a child of the
  // app-server. Returns its pid, or -1 and *failure (kLabFailed).
  pid_t Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
              Failure* failure);

  // Closes the pipe and waits (at most `timeout_ms`) for the app-server to
  // end its children and exit; SIGKILLs it after that. Reaps it. Idempotent.
  void Stop(int timeout_ms = 3000);

 private:
  AppServer() = default;
  pid_t pid_ = -1;
  std::uint64_t start_ticks_ = 0;
  int ctl_ = -1;    // lab -> app-server requests
  int reply_ = -1;  // app-server -> lab pids
};

}  // namespace proctape::lab
