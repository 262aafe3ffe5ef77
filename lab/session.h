// SPDX-License-Identifier: Apache-2.0
// One lab run's processes and files: the app-server(s), the sandboxes
// beneath them, direct children started at a chosen pid, a private temporary
// directory. Every process ever seen beneath an app-server is held by pidfd
// from the moment it is seen, so the cleanup ends exactly what the lab
// started, deepest first, and nothing else.
//
// An interrupt (SIGINT, SIGTERM, SIGHUP) ends the same processes from the one
// signal handler (fs/interrupt.h: pidfd_send_signal and kill of unreaped
// children are async-signal-safe), which then removes the directory with
// everything in it, and the recording's temporary, and re-raises.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "core/proc_parse.h"
#include "lab/app_server.h"
#include "lab/lab.h"
#include "lab/procs.h"

namespace proctape::lab {

// What the sandboxed shell does after `export PROCTAPE_TOKEN="$1";
// echo $$ > "$2"` ($3 is a path the scenario prepared).
enum class Script {
  kExecSleep,     // exec /bin/sleep 120
  kExecAsSleep,   // (bash) exec -a /bin/sleep "$3" 120: argv says sleep, the file is $3
  kExecOther,     // exec "$3" -f /dev/null: another program, named by $3
  kForkThenExec,  // /bin/sleep 120 & exec /bin/sleep 1000: the sleep's parent never reaps
  kLateExec,      // /bin/sleep 0.3; exec /bin/sleep 120: the exec comes 300 ms late
  kNeverExec,     // while :; do /bin/sleep 1; done
};

class Session {
 public:
  Session() = default;
  ~Session();  // Cleanup()
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The private directory and the log; a kLabFailed failure when they
  // cannot be made.
  MaybeFailure Init(SandboxKind kind);
  const std::string& dir() const { return dir_; }
  std::string Log() const;
  // A path in the directory, removed at cleanup.
  std::string Path(const std::string& name);

  AppServer* app() { return app_.get(); }
  // Nothing, or AppServer::Start's failure (kLabFailed).
  MaybeFailure StartAppServer();
  // Ends the app-server and everything beneath it (a "restart" then takes
  // its pid with StartAt).
  void StopAppServer();

  // A sandbox beneath the app-server running `script`; returns the marker
  // path, or nullopt and *failure (kLabFailed).
  std::optional<std::string> StartSandbox(Script script, const std::string& token,
                                          const std::string& extra, Failure* failure);
  // The argv that starts such a sandbox (tool, flags, shell, script, args).
  std::vector<std::string> SandboxArgv(Script script, const std::string& token,
                                       const std::string& marker, const std::string& extra) const;

  // A direct child of the lab at exactly pid `tid` (clone3 set_tid); -1
  // and *failure (StartChild's) when it cannot be started.
  pid_t StartAt(pid_t tid, const std::vector<std::string>& argv,
                const std::vector<std::string>& env, const std::string& role, Failure* failure);

  // Holds every process now beneath `root` by pidfd (new ones only).
  void Track(pid_t root, const std::string& role);
  // The marker's value once written (a number and a newline), or nullopt
  // after `timeout_ms`.
  std::optional<long> WaitMarker(const std::string& path, int timeout_ms);
  // Waits until exactly `count` processes beneath `root` have cmdline
  // `cmdline` and the entry `env_entry` in their environ (and, when given,
  // the executable `exe`); returns them, shallowest first. None and
  // *failure (kLabFailed) when another count was found or the time ran out.
  std::vector<StatFields> WaitFor(pid_t root, const std::string& cmdline,
                                  const std::string& env_entry, std::optional<FileId> exe,
                                  std::size_t count, int timeout_ms, Failure* failure);
  // SIGKILLs one tracked process by its pidfd; waits until it is a zombie or
  // gone (`reaped`: until its pid is free). A kLabFailed failure when it did
  // not end, or is no process the lab holds.
  MaybeFailure Kill(pid_t pid, bool reaped);

  // Ends everything, removes the files; fills who was started and who is
  // (unexpectedly) still running.
  void Cleanup(std::vector<StartedProcess>* started, std::vector<pid_t>* left_running);

  // Every process started so far.
  std::vector<StartedProcess> Started() const;

 private:
  struct Held {
    PidFd fd;
    std::string role;
  };
  SandboxKind kind_ = SandboxKind::kUnshare;
  std::string tool_;
  std::string dir_;
  int parent_fd_ = -1;  // dir_'s directory (O_PATH), for fs/interrupt.h
  int dir_slot_ = -1;
  std::vector<std::string> files_;
  int log_fd_ = -1;
  std::unique_ptr<AppServer> app_;
  std::vector<StartedProcess> app_servers_;  // every app-server started
  std::vector<Held> held_;                   // descendants, in the order seen
  std::vector<StartedProcess> direct_;       // clone3 children, unreaped until cleanup
  bool cleaned_ = false;
};

// "unshare is not installed (Debian: util-linux)", or empty when the tool is
// there and can make a PID namespace here (probed once by running it).
std::string SandboxUnavailable(SandboxKind kind);

}  // namespace proctape::lab
