// SPDX-License-Identifier: Apache-2.0
// Real processes for the live tests: a PID-namespace sandbox beneath a
// stand-in app-server (here), plain children, zombies, and a command runner
// (child_process.h), held by pid or by pidfd (pidfd.h), checked against an
// independent reading of /proc (proc_reading.h). Including this header
// includes them all.
//
// Every helper ends exactly the processes it started, by pid, and reaps its
// direct children; nothing is ever signalled by name or by process group.
// Processes that are not our children (the sandbox launcher, its namespace
// init, the sleep) are held by pidfd, opened while their parent was alive and
// re-checked against their start time, so a signal can never reach a reused
// pid. Every child is also started with PR_SET_PDEATHSIG=SIGKILL (and the
// sandbox tools with --kill-child / --die-with-parent), so even a crashed test
// binary leaves nothing behind.
//
// The /proc reading (proc_reading.h) is deliberately independent of
// proctape's parsers: it is what the tests check proctape against.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "tests/live/child_process.h"
#include "tests/live/pidfd.h"
#include "tests/live/proc_reading.h"

namespace proctape::live {

// ---- The PID-namespace sandbox --------------------------------------------

enum class SandboxKind { kUnshare, kBwrap };
const char* SandboxName(SandboxKind kind);
// For test names and messages ("unshare", "bwrap").
inline std::ostream& operator<<(std::ostream& os, SandboxKind kind) {
  return os << SandboxName(kind);
}
// Empty if the tool is installed, else a message for GTEST_SKIP.
std::string SandboxUnavailable(SandboxKind kind);
// `tool` (the kind's, found on PATH) with what makes a PID namespace whose
// /proc is its own; the command to run in it follows.
std::vector<std::string> NamespaceArgv(SandboxKind kind, const std::string& tool);

// The resolver's scenario (`docs/resolver.md`, "The eight steps") on the real
// kernel:
//
//   test ── app-server (a fork of the test; a child subreaper that reaps
//            │          every child, adopted orphans too, then exits)
//            └─ unshare --pid --fork --kill-child          | bwrap --unshare-pid ...
//                └─ sh: export PROCTAPE_TOKEN=T;             |  └─ bwrap (ns pid 1)
//                       echo $$ > MARKER; exec /bin/sleep 120|      └─ sh -> sleep (ns pid 2)
//
// Start returns once the marker holds a pid and the unique descendant of the
// app-server with argv exactly /bin/sleep 120, the token in its environment
// and /bin/sleep's executable exists (bounded: 5 s). Not root: --user
// --map-root-user / --unshare-user are added so that the namespace can be made.
class Sandbox {
 public:
  static std::unique_ptr<Sandbox> Start(SandboxKind kind, const std::string& token,
                                        std::string* error);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  SandboxKind kind() const { return kind_; }
  const std::string& token() const { return token_; }
  pid_t app_server() const { return app_server_; }
  pid_t sleep_pid() const { return sleep_pid_; }  // host pid
  std::uint64_t sleep_start() const { return sleep_start_; }
  long marker() const { return marker_; }  // what `echo $$` wrote
  // Every pid this sandbox started (app-server first, the sleep last).
  std::vector<pid_t> started() const;

  // Ends the sleep: SIGKILL by pidfd, then waits (at most 3 s) until /proc
  // shows it gone or dead. False on timeout.
  bool KillSleep();

 private:
  Sandbox(SandboxKind kind, std::string token) : kind_(kind), token_(std::move(token)) {}
  bool Launch(std::string* error);
  bool WaitReady(std::string* error);
  std::string Log() const;
  void Stop();

  SandboxKind kind_;
  std::string token_;
  std::string dir_;  // mkdtemp directory: marker + log
  std::string marker_path_;
  std::string log_path_;
  pid_t app_server_ = -1;           // our direct child
  std::vector<PidFd> descendants_;  // the launcher chain and the sleep, deepest last
  pid_t sleep_pid_ = 0;
  std::uint64_t sleep_start_ = 0;
  long marker_ = 0;
};

}  // namespace proctape::live
