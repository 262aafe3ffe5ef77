// SPDX-License-Identifier: Apache-2.0
#include "lab/procs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/sched.h>
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
#include <cstring>
#include <map>
#include <utility>

#include "capture/clock.h"

namespace proctape::lab {

std::int64_t MonoMs() { return MonotonicNowNs() / 1'000'000; }

void SleepMs(int ms) {
  struct timespec ts {
    ms / 1000, static_cast<long>(ms % 1000) * 1'000'000
  };
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

std::optional<std::string> ReadProcFile(pid_t pid, const char* name, int* err) {
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

std::optional<StatFields> ReadStatOf(pid_t pid) {
  std::optional<std::string> stat = ReadProcFile(pid, "stat");
  if (!stat) return std::nullopt;
  StatParse parsed = ParseStat(*stat);
  if (!parsed.ok() || parsed.fields->pid != pid) return std::nullopt;
  return parsed.fields;
}

std::vector<StatFields> DescendantsOf(pid_t root) {
  std::map<std::int64_t, StatFields> all;
  if (DIR* dir = ::opendir("/proc")) {
    while (struct dirent* e = ::readdir(dir)) {
      std::optional<std::uint64_t> pid = ParseCanonicalDecimal(e->d_name);
      if (!pid || *pid > static_cast<std::uint64_t>(kMaxPid)) continue;
      if (auto st = ReadStatOf(static_cast<pid_t>(*pid))) all[st->pid] = *st;
    }
    ::closedir(dir);
  }
  std::vector<std::pair<int, StatFields>> found;  // (depth, stat)
  for (const auto& [pid, st] : all) {
    int depth = 1;
    for (std::int64_t p = st.ppid; depth < 1024; ++depth) {
      if (p == root) {
        found.emplace_back(depth, st);
        break;
      }
      auto it = all.find(p);
      if (it == all.end()) break;
      p = it->second.ppid;
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<StatFields> out;
  for (auto& [depth, st] : found) out.push_back(std::move(st));
  return out;
}

std::optional<FileId> IdentityOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

// ---- PidFd ------------------------------------------------------------------

PidFd PidFd::Open(pid_t pid, std::uint64_t start_ticks) {
  PidFd out;
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd < 0) return out;
  out.fd_ = static_cast<int>(fd);
  out.pid_ = pid;
  out.start_ = start_ticks;
  // The pidfd names whatever held `pid` when it was opened: prove that was
  // the process seen, by its start time read after the open.
  std::optional<StatFields> st = ReadStatOf(pid);
  if (!st || st->start_ticks != start_ticks) return PidFd();
  return out;
}

PidFd::PidFd(PidFd&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), pid_(other.pid_), start_(other.start_) {}

PidFd& PidFd::operator=(PidFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    pid_ = other.pid_;
    start_ = other.start_;
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
    struct pollfd p {
      fd_, POLLIN, 0
    };
    int left = static_cast<int>(std::max<std::int64_t>(0, until - MonoMs()));
    int n = ::poll(&p, 1, left);
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

// ---- Children ---------------------------------------------------------------

namespace {

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

}  // namespace

pid_t StartChild(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                 int log_fd, pid_t set_tid, Failure* failure) {
  if (argv.empty() || argv[0].empty() || argv[0][0] != '/') {
    *failure = Failure(FailureKind::kLabFailed, "a child's argv[0] must be an absolute path");
    return -1;
  }
  // Everything the child touches is prepared here: between clone3 and exec
  // the child makes system calls only.
  std::vector<char*> cargv = CStrings(argv);
  std::vector<char*> cenv = CStrings(env);
  int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  int report[2];
  if (devnull < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    const int e = errno;
    *failure = Failure(FailureKind::kLabFailed,
                       std::string("open /dev/null or pipe: ") + std::strerror(e), e);
    if (devnull >= 0) ::close(devnull);
    return -1;
  }
  const int out = log_fd >= 0 ? log_fd : devnull;
  const pid_t parent = ::getpid();
  pid_t pid;
  if (set_tid > 0) {
    pid_t tids[1] = {set_tid};
    struct clone_args args;
    std::memset(&args, 0, sizeof args);
    args.exit_signal = SIGCHLD;
    args.set_tid = reinterpret_cast<std::uintptr_t>(tids);
    args.set_tid_size = 1;
    pid = static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
  } else {
    pid = ::fork();
  }
  if (pid < 0) {
    int e = errno;
    *failure = Failure(
        FailureKind::kLabFailed,
        std::string(set_tid > 0 ? "clone3 with set_tid " + std::to_string(set_tid) : "fork") +
            ": " + std::strerror(e),
        e);
    ::close(devnull);
    ::close(report[0]);
    ::close(report[1]);
    return -1;
  }
  if (pid == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
    ::setpgid(0, 0);
    ::dup2(devnull, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);  // the report pipe closes at exec
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(cargv[0], cargv.data(), cenv.data());
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
    ReapChild(pid);
    *failure = Failure(FailureKind::kLabFailed,
                       "exec " + argv[0] + ": " + std::strerror(child_errno), child_errno);
    return -1;
  }
  return pid;
}

int ReapChild(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

bool ChildExited(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return errno == ECHILD;
  }
  return info.si_pid == pid;
}

}  // namespace proctape::lab
