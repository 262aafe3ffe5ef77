// Real processes for the live tests: a PID-namespace sandbox beneath a
// stand-in app-server, plain children, zombies, and a command runner.
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
// The /proc reading here is deliberately independent of proctape's parsers:
// it is what the tests check proctape against.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace proctape::live {

// ---- Independent /proc reading --------------------------------------------

// The whole of /proc/PID/NAME; nullopt with *err set when it cannot be read.
std::optional<std::string> ReadProc(pid_t pid, const std::string& name, int* err = nullptr);

struct ProcStat {
  pid_t pid = 0;
  char state = 0;
  pid_t ppid = 0;
  std::uint64_t start_ticks = 0;  // field 22
};
// /proc/PID/stat split at the last ')': nullopt if gone or unparsable.
std::optional<ProcStat> ReadStat(pid_t pid);

// The NSpid line of /proc/PID/status, outermost first ({8155, 3}); empty if
// the process is gone.
std::vector<long> NsPids(pid_t pid);

// Every process whose parent chain reaches `root` (root excluded), in the
// order /proc lists them.
std::vector<pid_t> Descendants(pid_t root);

// A random hex string for tokens.
std::string RandomHex(std::size_t bytes);

// "/usr/bin/bwrap" for "bwrap", or empty when it is not on PATH.
std::string FindOnPath(const std::string& program);

// Waits (polling every 2 ms, at most `timeout_ms`) until /proc/PID is gone
// or the process is a zombie/dead (state Z, X or x). False on timeout.
bool WaitGoneOrDead(pid_t pid, int timeout_ms);

// ---- A pidfd: a handle that cannot be confused with a reused pid ----------

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

// ---- A direct child running a program -------------------------------------

// argv[0] must be an absolute path. stdin is /dev/null; stdout and stderr go
// to the given descriptors (-1: /dev/null). Returns the pid or -1 (and
// *error). The child gets PR_SET_PDEATHSIG=SIGKILL and no other descriptors.
pid_t SpawnChild(const std::vector<std::string>& argv, int out_fd, int err_fd, std::string* error);

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

// ---- Running a command to completion --------------------------------------

struct CommandResult {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;    // when it exited normally
  int term_signal = 0;   // when a signal ended it
  std::string out;
  std::string err;
  std::string error;     // why it could not be run
};

// Runs argv (argv[0] absolute) with stdout and stderr captured; a command
// still running after timeout_ms is killed by its pid and reaped.
CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_ms = 10000);

// ---- The PID-namespace sandbox --------------------------------------------

enum class SandboxKind { kUnshare, kBwrap };
const char* SandboxName(SandboxKind kind);
// For test names and messages ("unshare", "bwrap").
inline std::ostream& operator<<(std::ostream& os, SandboxKind kind) { return os << SandboxName(kind); }
// Empty if the tool is installed, else a message for GTEST_SKIP.
std::string SandboxUnavailable(SandboxKind kind);

// The seed's scenario on the real kernel:
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
  pid_t sleep_pid() const { return sleep_pid_; }           // host pid
  std::uint64_t sleep_start() const { return sleep_start_; }
  long marker() const { return marker_; }                  // what `echo $$` wrote
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
  std::string dir_;     // mkdtemp directory: marker + log
  std::string marker_path_;
  std::string log_path_;
  pid_t app_server_ = -1;  // our direct child
  std::vector<PidFd> descendants_;  // the launcher chain and the sleep, deepest last
  pid_t sleep_pid_ = 0;
  std::uint64_t sleep_start_ = 0;
  long marker_ = 0;
};

}  // namespace proctape::live
