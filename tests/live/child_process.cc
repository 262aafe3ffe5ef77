// SPDX-License-Identifier: Apache-2.0
#include "tests/live/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <optional>

#include "tests/live/posix_helpers.h"
#include "tests/live/proc_reading.h"

namespace proctape::live {

using namespace detail;  // tests/live/posix_helpers.h

namespace {

// In a freshly forked child: die with the parent that forked us (checking it
// did not already die), then stdin /dev/null, stdout/stderr as given, and
// every signal at its default, none blocked: a test runner started in the
// background of a shell ignores SIGINT and SIGQUIT, which its children
// would inherit (and proctape, rightly, keeps ignoring), so a test that
// interrupts its child would wait for ever.
void ChildSetup(pid_t parent, int devnull, int out_fd, int err_fd, int in_fd) {
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  DefaultSignals();
  ::dup2(in_fd >= 0 ? in_fd : devnull, 0);
  ::dup2(out_fd >= 0 ? out_fd : devnull, 1);
  ::dup2(err_fd >= 0 ? err_fd : devnull, 2);
}

}  // namespace

std::optional<int> ReapWithin(pid_t pid, int timeout_ms) {
  int status = 0;
  for (int waited = 0; waited < timeout_ms; waited += 5) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return std::nullopt;
    ::usleep(5'000);
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return std::nullopt;
}

pid_t SpawnChild(const std::vector<std::string>& argv, int out_fd, int err_fd, std::string* error,
                 int in_fd) {
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
    ChildSetup(parent, devnull, out_fd, err_fd, in_fd);
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

CommandResult RunCommand(const std::vector<std::string>& argv, int timeout_ms, int in_fd) {
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
  pid_t pid = SpawnChild(argv, out[1], err[1], &result.error, in_fd);
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

}  // namespace proctape::live
