// SPDX-License-Identifier: Apache-2.0
#include "tests/live/sandbox.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <utility>

#include "tests/live/posix_helpers.h"

namespace proctape::live {

using namespace detail;  // tests/live/posix_helpers.h

namespace {

constexpr char kSleepCmdline[] =
    "/bin/sleep\0"
    "120";  // + the final NUL below
const std::string& SleepCmdline() {
  static const std::string s(kSleepCmdline, sizeof kSleepCmdline);  // includes final NUL
  return s;
}

bool HasEnvEntry(const std::string& environ, const std::string& entry) {
  std::size_t pos = 0;
  while (pos < environ.size()) {
    std::size_t end = environ.find('\0', pos);
    if (end == std::string::npos) end = environ.size();
    if (environ.compare(pos, end - pos, entry) == 0) return true;
    pos = end + 1;
  }
  return false;
}

// ---- The app-server stand-in (runs in a forked copy of the test) ----------
//
// Starts the sandbox tool and reaps every child until none is left. It is a
// child subreaper, so a sandbox process orphaned while the tree is torn down
// is reaped here rather than left to the host's init. When the test process
// dies its PDEATHSIG (SIGTERM) makes it SIGKILL the launcher through a pidfd
// (exact, even after the launcher was reaped); the tools' own
// --kill-child / --die-with-parent end the rest, and the loop reaps them.

int g_launcher_pidfd = -1;
volatile sig_atomic_t g_parent_died = 0;

void OnParentDeath(int) {
  int saved = errno;
  g_parent_died = 1;
  if (g_launcher_pidfd >= 0)
    ::syscall(SYS_pidfd_send_signal, g_launcher_pidfd, SIGKILL, nullptr, 0);
  errno = saved;
}

// `files` (then `dir`) are removed if the test died: nobody else will.
[[noreturn]] void AppServerMain(pid_t test, int devnull, int log_fd, char* const* argv,
                                const char* const* files, const char* dir) {
  sigset_t term, old_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, &old_mask);
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnParentDeath;  // no SA_RESTART: waitpid sees EINTR
  ::sigaction(SIGTERM, &sa, nullptr);
  if (::prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || ::getppid() != test) ::_exit(127);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  ::prctl(PR_SET_NAME, "app-server");
  ::dup2(devnull, 0);
  ::dup2(log_fd, 1);
  ::dup2(log_fd, 2);
  ::close_range(3, ~0U, 0);
  pid_t self = ::getpid();
  pid_t launcher = ::fork();
  if (launcher == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != self) ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execv(argv[0], argv);
    static const char kMsg[] = "app-server: exec of the sandbox tool failed\n";
    (void)!::write(2, kMsg, sizeof kMsg - 1);
    ::_exit(127);
  }
  if (launcher < 0) ::_exit(126);
  // Our unreaped child: the pidfd names exactly it.
  g_launcher_pidfd = static_cast<int>(::syscall(SYS_pidfd_open, launcher, 0));
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigprocmask(SIG_UNBLOCK, &term, nullptr);  // a pending SIGTERM runs the handler now
  int launcher_status = 0;
  for (;;) {
    int status = 0;
    pid_t done = ::waitpid(-1, &status, 0);
    if (done < 0 && errno == EINTR) continue;
    if (done < 0) break;  // ECHILD: every child, adopted ones too, is reaped
    if (done == launcher) launcher_status = status;
  }
  if (g_parent_died) {
    for (const char* const* f = files; *f != nullptr; ++f) ::unlink(*f);
    ::rmdir(dir);
  }
  ::_exit(WIFEXITED(launcher_status) ? WEXITSTATUS(launcher_status)
                                     : 128 + WTERMSIG(launcher_status));
}

}  // namespace

// ---- Sandbox ----------------------------------------------------------------

const char* SandboxName(SandboxKind kind) {
  return kind == SandboxKind::kUnshare ? "unshare" : "bwrap";
}

std::vector<std::string> NamespaceArgv(SandboxKind kind, const std::string& tool) {
  const bool root = ::geteuid() == 0;
  std::vector<std::string> argv = {tool};
  if (kind == SandboxKind::kUnshare) {
    if (!root) argv.insert(argv.end(), {"--user", "--map-root-user"});
    argv.insert(argv.end(), {"--pid", "--fork", "--kill-child"});
  } else {
    if (!root) argv.push_back("--unshare-user");
    argv.insert(argv.end(), {"--unshare-pid", "--die-with-parent", "--dev-bind", "/", "/", "--proc",
                             "/proc", "--"});
  }
  return argv;
}

std::string SandboxUnavailable(SandboxKind kind) {
  std::string tool = SandboxName(kind);
  if (!FindOnPath(tool).empty()) return "";
  return tool + " is not installed (Debian: " +
         (kind == SandboxKind::kUnshare ? "util-linux" : "bubblewrap") +
         "); live sandbox tests with it are skipped";
}

std::unique_ptr<Sandbox> Sandbox::Start(SandboxKind kind, const std::string& token,
                                        std::string* error) {
  std::unique_ptr<Sandbox> sandbox(new Sandbox(kind, token));
  // On failure the destructor still ends whatever was started.
  if (!sandbox->Launch(error) || !sandbox->WaitReady(error)) return nullptr;
  return sandbox;
}

bool Sandbox::Launch(std::string* error) {
  char dir_template[] = "/tmp/proctape-live-XXXXXX";
  if (::mkdtemp(dir_template) == nullptr) {
    *error = Errno("mkdtemp", errno);
    return false;
  }
  dir_ = dir_template;
  marker_path_ = dir_ + "/marker";
  log_path_ = dir_ + "/log";

  std::string tool = FindOnPath(SandboxName(kind_));
  if (tool.empty()) {
    *error = SandboxUnavailable(kind_);
    return false;
  }
  // The sandboxed command of `docs/lab.md`, "What it starts": export the
  // token, write $$, become sleep.
  // Token and marker path are positional parameters: no quoting games.
  const std::string script = "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; exec /bin/sleep 120";
  std::vector<std::string> argv = NamespaceArgv(kind_, tool);
  argv.insert(argv.end(), {"/bin/sh", "-c", script, "sh", token_, marker_path_});
  std::vector<char*> cargv = CArgv(argv);

  int log_fd = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (log_fd < 0 || devnull < 0) {
    *error = Errno("open log or /dev/null", errno);
    if (log_fd >= 0) ::close(log_fd);
    if (devnull >= 0) ::close(devnull);
    return false;
  }
  const char* files[] = {marker_path_.c_str(), log_path_.c_str(), nullptr};
  pid_t test = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    *error = Errno("fork", errno);
    ::close(log_fd);
    ::close(devnull);
    return false;
  }
  if (pid == 0) AppServerMain(test, devnull, log_fd, cargv.data(), files, dir_.c_str());
  app_server_ = pid;
  ::close(log_fd);
  ::close(devnull);
  return true;
}

bool Sandbox::WaitReady(std::string* error) {
  struct stat sleep_exe;
  if (::stat("/bin/sleep", &sleep_exe) != 0) {
    *error = Errno("stat /bin/sleep", errno);
    return false;
  }
  const std::string token_entry = "PROCTAPE_TOKEN=" + token_;
  std::int64_t until = MonoMs() + 5000;
  std::string why;
  for (;;) {
    std::vector<pid_t> descendants = Descendants(app_server_);
    // Record (by pidfd) every descendant seen, ready or not, so that Stop()
    // can end them whatever happens next.
    std::map<pid_t, int> depth;
    std::map<pid_t, ProcStat> stats;
    for (pid_t pid : descendants) {
      if (auto st = ReadStat(pid)) stats[pid] = *st;
    }
    for (const auto& [pid, st] : stats) {
      int d = 1;
      for (pid_t p = st.ppid; p != app_server_ && stats.count(p) && d < 512; p = stats[p].ppid) ++d;
      depth[pid] = d;
    }
    std::vector<pid_t> matches;
    for (const auto& [pid, st] : stats) {
      if (ReadProc(pid, "cmdline") != SleepCmdline()) continue;
      struct stat exe;
      std::string exe_path = "/proc/" + std::to_string(pid) + "/exe";
      if (::stat(exe_path.c_str(), &exe) != 0 || exe.st_dev != sleep_exe.st_dev ||
          exe.st_ino != sleep_exe.st_ino) {
        continue;
      }
      std::optional<std::string> env = ReadProc(pid, "environ");
      if (env && HasEnvEntry(*env, token_entry)) matches.push_back(pid);
    }
    std::optional<std::string> marker = [&]() -> std::optional<std::string> {
      FILE* f = std::fopen(marker_path_.c_str(), "re");
      if (f == nullptr) return std::nullopt;
      char buf[64] = {0};
      std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
      std::fclose(f);
      return std::string(buf, n);
    }();
    bool marker_done = marker && marker->size() > 1 && marker->back() == '\n';
    bool app_exited = ChildExited(app_server_);
    bool ready = marker_done && matches.size() == 1;
    bool failed = app_exited || matches.size() > 1 || MonoMs() > until;
    if (ready || failed) {
      // Open pidfds deepest-last; a process that changed is an error.
      std::vector<pid_t> order;
      for (const auto& [pid, st] : stats) order.push_back(pid);
      std::stable_sort(order.begin(), order.end(),
                       [&](pid_t a, pid_t b) { return depth[a] < depth[b]; });
      std::string pidfd_error;
      for (pid_t pid : order) {
        std::string e;
        PidFd fd = PidFd::Open(pid, stats[pid].start_ticks, &e);
        if (fd.valid()) {
          descendants_.push_back(std::move(fd));
        } else if (pidfd_error.empty()) {
          pidfd_error = e;
        }
      }
      if (ready && pidfd_error.empty()) {
        sleep_pid_ = matches[0];
        sleep_start_ = stats[sleep_pid_].start_ticks;
        marker_ = std::atol(marker->c_str());
        return true;
      }
      *error = std::string(SandboxName(kind_)) +
               " sandbox did not become ready: " + (app_exited ? "the app-server exited; " : "") +
               (matches.size() > 1 ? "more than one matching sleep; " : "") +
               (!marker_done ? "the marker was not written; " : "") +
               (matches.empty() ? "no exec'd /bin/sleep 120 with the token; " : "") + pidfd_error +
               " log: " + Log();
      return false;
    }
    SleepMs(5);
  }
}

std::string Sandbox::Log() const {
  if (log_path_.empty()) return "";
  FILE* f = std::fopen(log_path_.c_str(), "re");
  if (f == nullptr) return "";
  char buf[2048];
  std::size_t n = std::fread(buf, 1, sizeof buf, f);
  std::fclose(f);
  return std::string(buf, n);
}

std::vector<pid_t> Sandbox::started() const {
  std::vector<pid_t> out;
  if (app_server_ > 0) out.push_back(app_server_);
  for (const PidFd& fd : descendants_) out.push_back(fd.pid());
  return out;
}

bool Sandbox::KillSleep() {
  for (const PidFd& fd : descendants_) {
    if (fd.pid() != sleep_pid_) continue;
    fd.Kill();
    return fd.WaitExited(3000) && WaitGoneOrDead(sleep_pid_, 3000);
  }
  return false;
}

void Sandbox::Stop() {
  // The sleep first (pid 1 of its namespace for unshare: SIGKILL ends the
  // namespace), then every recorded descendant, deepest first.
  for (auto it = descendants_.rbegin(); it != descendants_.rend(); ++it) it->Kill();
  for (auto it = descendants_.rbegin(); it != descendants_.rend(); ++it) it->WaitExited(3000);
  if (app_server_ > 0) {
    // The app-server exits by itself once it has reaped every process of the
    // sandbox (adopted orphans too); only if it does not is it killed.
    std::int64_t until = MonoMs() + 3000;
    while (!ChildExited(app_server_) && MonoMs() < until) SleepMs(2);
    ::kill(app_server_, SIGKILL);  // our unreaped child: the pid is still its own
    Reap(app_server_);
    app_server_ = -1;
  }
  descendants_.clear();
  if (!marker_path_.empty()) ::unlink(marker_path_.c_str());
  if (!log_path_.empty()) ::unlink(log_path_.c_str());
  if (!dir_.empty()) ::rmdir(dir_.c_str());
}

Sandbox::~Sandbox() { Stop(); }

}  // namespace proctape::live
