// SPDX-License-Identifier: Apache-2.0
// Running one proctape command for churn_bench: under a timeout, as a
// direct child, its peak RSS from wait4. Commands are started by a spawner
// forked while the bench is still small (see Spawner), so that each run's
// ru_maxrss is the command's own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace proctape::churn {

std::int64_t MonoNs();
std::string ReadAll(const std::string& path);

struct Run {
  std::string what;  // "capture-host", "resolve-planted", ...
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;
  int term_signal = 0;
  long maxrss_kb = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  std::string output;  // stdout and stderr together
  std::string error;
};

// Runs argv as our direct child (lab's StartChild: own process group,
// PR_SET_PDEATHSIG) and waits for it by pidfd with a timeout; a child still
// running then is SIGKILLed by pid (ours and unreaped: the pid cannot have
// been reused) and reaped. wait4 gives its peak RSS. Output goes to out_path.
Run RunHere(const std::string& what, const std::vector<std::string>& argv, int timeout_ms,
            const std::string& out_path);

// wait4's ru_maxrss of a child counts the memory of the fork it was exec'd
// from, i.e. of this process, which grows with the churner's log. So the
// commands are started by a spawner forked at startup, while this process is
// still small: its RSS, the floor under every figure, stays constant.
class Spawner {
 public:
  // Forks the spawner; false if it cannot.
  bool Start();
  // Ends the spawner (it exits at end of file) and reaps it.
  ~Spawner();
  // Runs argv through the spawner (RunHere there); the output file is read back.
  Run Run1(const std::string& what, const std::vector<std::string>& argv, int timeout_ms,
           const std::string& out_path);

 private:
  static void Serve(int fd);

  int fd_ = -1;
  pid_t pid_ = -1;
};

}  // namespace proctape::churn
