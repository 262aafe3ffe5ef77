#include "tests/live/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <utility>

namespace proctape::live {
namespace {

std::int64_t MonoMs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

void SleepMs(int ms) {
  struct timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1'000'000};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

std::string Errno(const std::string& what, int err) { return what + ": " + std::strerror(err); }

bool AllDigits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

std::vector<pid_t> ListProc() {
  std::vector<pid_t> pids;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return pids;
  while (struct dirent* e = ::readdir(dir)) {
    if (AllDigits(e->d_name)) pids.push_back(static_cast<pid_t>(std::atol(e->d_name)));
  }
  ::closedir(dir);
  return pids;
}

// Has our own child exited? Looks without reaping it.
bool ChildExited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid;
}

void Reap(pid_t pid) {
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

std::vector<char*> CArgv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

// In a freshly forked child: die with the parent that forked us (checking it
// did not already die), then stdin /dev/null, stdout/stderr as given.
void ChildSetup(pid_t parent, int devnull, int out_fd, int err_fd) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  ::dup2(devnull, 0);
  ::dup2(out_fd >= 0 ? out_fd : devnull, 1);
  ::dup2(err_fd >= 0 ? err_fd : devnull, 2);
}

constexpr char kSleepCmdline[] = "/bin/sleep\0" "120";  // + the final NUL below
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
  if (g_launcher_pidfd >= 0) ::syscall(SYS_pidfd_send_signal, g_launcher_pidfd, SIGKILL, nullptr, 0);
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

// ---- /proc ------------------------------------------------------------------

std::optional<std::string> ReadProc(pid_t pid, const std::string& name, int* err) {
  std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (err != nullptr) *err = errno;
    return std::nullopt;
  }
  std::string data;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (err != nullptr) *err = errno;
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (err != nullptr) *err = 0;
  return data;
}

std::optional<ProcStat> ReadStat(pid_t pid) {
  std::optional<std::string> stat = ReadProc(pid, "stat");
  if (!stat) return std::nullopt;
  std::size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 > stat->size()) return std::nullopt;
  std::vector<std::string> fields;  // fields[0] is field 3 (state)
  std::size_t pos = close + 2;
  while (pos < stat->size()) {
    std::size_t end = stat->find_first_of(" \n", pos);
    if (end == std::string::npos) end = stat->size();
    fields.push_back(stat->substr(pos, end - pos));
    pos = end + 1;
  }
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  ProcStat out;
  out.pid = static_cast<pid_t>(std::atol(stat->c_str()));
  out.state = fields[0][0];
  out.ppid = static_cast<pid_t>(std::atol(fields[1].c_str()));
  out.start_ticks = std::strtoull(fields[19].c_str(), nullptr, 10);
  if (out.pid != pid) return std::nullopt;
  return out;
}

std::vector<long> NsPids(pid_t pid) {
  std::vector<long> out;
  std::optional<std::string> status = ReadProc(pid, "status");
  if (!status) return out;
  std::size_t at = status->find("\nNSpid:");
  if (at == std::string::npos) return out;
  std::size_t end = status->find('\n', at + 1);
  std::string line = status->substr(at + 7, end - (at + 7));
  char* p = line.data();
  for (;;) {
    char* next = nullptr;
    long v = std::strtol(p, &next, 10);
    if (next == p) break;
    out.push_back(v);
    p = next;
  }
  return out;
}

std::vector<pid_t> Descendants(pid_t root) {
  std::vector<pid_t> pids = ListProc();
  std::map<pid_t, pid_t> parent;
  for (pid_t pid : pids) {
    if (auto st = ReadStat(pid)) parent[pid] = st->ppid;
  }
  std::vector<pid_t> out;
  for (pid_t pid : pids) {
    pid_t p = pid;
    for (int depth = 0; depth < 512; ++depth) {
      auto it = parent.find(p);
      if (it == parent.end()) break;
      p = it->second;
      if (p == root) {
        out.push_back(pid);
        break;
      }
    }
  }
  return out;
}

std::string RandomHex(std::size_t bytes) {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out += kHex[v >> 4];
    out += kHex[v & 0xf];
  }
  return out;
}

std::string FindOnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
  std::size_t pos = 0;
  while (pos <= dirs.size()) {
    std::size_t end = dirs.find(':', pos);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(pos, end - pos);
    if (!dir.empty() && dir[0] == '/') {
      std::string candidate = dir + "/" + program;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    pos = end + 1;
  }
  return "";
}

bool WaitGoneOrDead(pid_t pid, int timeout_ms) {
  std::int64_t until = MonoMs() + timeout_ms;
  for (;;) {
    std::optional<ProcStat> st = ReadStat(pid);
    if (!st || st->state == 'Z' || st->state == 'X' || st->state == 'x') return true;
    if (MonoMs() > until) return false;
    SleepMs(2);
  }
}

// ---- PidFd ------------------------------------------------------------------

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
    struct pollfd p{fd_, POLLIN, 0};
    int left = static_cast<int>(std::max<std::int64_t>(0, until - MonoMs()));
    int n = ::poll(&p, 1, left);
    if (n > 0) return true;
    if (n == 0) return false;
    if (errno != EINTR) return false;
  }
}

// ---- Children ---------------------------------------------------------------

pid_t SpawnChild(const std::vector<std::string>& argv, int out_fd, int err_fd, std::string* error) {
  if (argv.empty() || argv[0].empty() || argv[0][0] != '/') {
    *error = "SpawnChild needs an absolute argv[0]";
    return -1;
  }
  std::vector<char*> cargv = CArgv(argv);
  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  int report[2];
  if (devnull < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    *error = Errno("open /dev/null or pipe", errno);
    if (devnull >= 0) ::close(devnull);
    return -1;
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    *error = Errno("fork", errno);
    ::close(devnull);
    ::close(report[0]);
    ::close(report[1]);
    return -1;
  }
  if (pid == 0) {
    ChildSetup(parent, devnull, out_fd, err_fd);
    // Everything else closes at exec, the report pipe included.
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    ::execv(cargv[0], cargv.data());
    int e = errno;
    (void)!::write(report[1], &e, sizeof e);
    ::_exit(127);
  }
  ::close(devnull);
  ::close(report[1]);
  int child_errno = 0;
  ssize_t n;
  while ((n = ::read(report[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (n > 0) {
    Reap(pid);
    *error = Errno("exec " + argv[0], child_errno);
    return -1;
  }
  return pid;
}

std::unique_ptr<Child> Child::Start(const std::vector<std::string>& argv, std::string* error) {
  pid_t pid = SpawnChild(argv, -1, -1, error);
  if (pid < 0) return nullptr;
  return std::unique_ptr<Child>(new Child(pid));
}

std::unique_ptr<Child> Child::StartZombie(std::string* error) {
  pid_t pid = ::fork();
  if (pid < 0) {
    *error = Errno("fork", errno);
    return nullptr;
  }
  if (pid == 0) ::_exit(0);
  auto child = std::unique_ptr<Child>(new Child(pid));
  std::int64_t until = MonoMs() + 5000;
  for (;;) {
    std::optional<ProcStat> st = ReadStat(pid);
    if (st && st->state == 'Z') return child;
    if (MonoMs() > until) {
      *error = "child " + std::to_string(pid) + " did not become a zombie within 5 s";
      return nullptr;
    }
    SleepMs(1);
  }
}

Child::~Child() {
  // Our own unreaped child: its pid cannot have been reused.
  ::kill(pid_, SIGKILL);
  Reap(pid_);
}

bool Child::WaitForCmdline(const std::string& cmdline, int timeout_ms) const {
  std::int64_t until = MonoMs() + timeout_ms;
  for (;;) {
    if (ReadProc(pid_, "cmdline") == cmdline) return true;
    if (MonoMs() > until) return false;
    SleepMs(1);
  }
}

CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_ms) {
  CommandResult result;
  int out[2], err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.error = Errno("pipe", errno);
    return result;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    result.error = Errno("pipe", errno);
    ::close(out[0]);
    ::close(out[1]);
    return result;
  }
  pid_t pid = SpawnChild(argv, out[1], err[1], &result.error);
  ::close(out[1]);
  ::close(err[1]);
  if (pid < 0) {
    ::close(out[0]);
    ::close(err[0]);
    return result;
  }
  result.started = true;
  std::int64_t until = MonoMs() + timeout_ms;
  struct pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    int left = static_cast<int>(until - MonoMs());
    if (left <= 0) {
      result.timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;  // timeout is handled at the top
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        sinks[i]->append(buf, static_cast<std::size_t>(got));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  // Still ours and unreaped: killing by pid is exact.
  if (result.timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  return result;
}

// ---- Sandbox ----------------------------------------------------------------

const char* SandboxName(SandboxKind kind) {
  return kind == SandboxKind::kUnshare ? "unshare" : "bwrap";
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
  // The seed's synthetic command: export the token, write $$, become sleep.
  // Token and marker path are positional parameters: no quoting games.
  const std::string script = "export PROCTAPE_TOKEN=\"$1\"; echo $$ > \"$2\"; exec /bin/sleep 120";
  bool root = ::geteuid() == 0;
  std::vector<std::string> argv = {tool};
  if (kind_ == SandboxKind::kUnshare) {
    if (!root) argv.insert(argv.end(), {"--user", "--map-root-user"});
    argv.insert(argv.end(), {"--pid", "--fork", "--kill-child"});
  } else {
    if (!root) argv.push_back("--unshare-user");
    argv.insert(argv.end(), {"--unshare-pid", "--die-with-parent", "--dev-bind", "/", "/",
                             "--proc", "/proc", "--"});
  }
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
      *error = std::string(SandboxName(kind_)) + " sandbox did not become ready: " +
               (app_exited ? "the app-server exited; " : "") +
               (matches.size() > 1 ? "more than one matching sleep; " : "") +
               (!marker_done ? "the marker was not written; " : "") +
               (matches.empty() ? "no exec'd /bin/sleep 120 with the token; " : "") +
               pidfd_error + " log: " + Log();
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
