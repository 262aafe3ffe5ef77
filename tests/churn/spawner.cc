// SPDX-License-Identifier: Apache-2.0
#include "tests/churn/spawner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "lab/procs.h"
#include "lab/sandbox.h"

namespace proctape::churn {

std::int64_t MonoNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream o;
  o << in.rdbuf();
  return o.str();
}

Run RunHere(const std::string& what, const std::vector<std::string>& argv, int timeout_ms,
            const std::string& out_path) {
  Run r;
  r.what = what;
  int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  r.start_ns = MonoNs();
  proctape::Failure failure;
  pid_t pid = proctape::lab::StartChild(argv, proctape::lab::BaseEnv(), out, 0, &failure);
  if (out >= 0) ::close(out);
  if (pid < 0) {
    r.error = failure.message;
    return r;
  }
  r.started = true;
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  const std::int64_t until = r.start_ns + static_cast<std::int64_t>(timeout_ms) * 1'000'000;
  for (;;) {
    std::int64_t left_ms = (until - MonoNs()) / 1'000'000;
    if (left_ms <= 0) break;
    struct pollfd p {
      pidfd, POLLIN, 0
    };
    int n = ::poll(&p, 1, static_cast<int>(left_ms));
    if (n > 0) break;
    if (n < 0 && errno != EINTR) break;
  }
  int status = 0;
  struct rusage ru {};
  if (::wait4(pid, &status, WNOHANG, &ru) == 0) {
    r.timed_out = true;
    ::kill(pid, SIGKILL);
    ::wait4(pid, &status, 0, &ru);
  }
  if (pidfd >= 0) ::close(pidfd);
  r.end_ns = MonoNs();
  r.maxrss_kb = ru.ru_maxrss;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
  return r;
}

namespace {

// The spawner's answer for one run (the output stays in its file).
struct Reply {
  bool started, timed_out;
  int exit_code, term_signal;
  long maxrss_kb;
  std::int64_t start_ns, end_ns;
};

}  // namespace

bool Spawner::Start() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return false;
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) return false;
  if (pid_ == 0) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(1);
    ::close(sv[0]);
    Serve(sv[1]);
    ::_exit(0);
  }
  ::close(sv[1]);
  fd_ = sv[0];
  return true;
}

Spawner::~Spawner() {
  if (fd_ >= 0) ::close(fd_);
  if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
}

Run Spawner::Run1(const std::string& what, const std::vector<std::string>& argv, int timeout_ms,
                  const std::string& out_path) {
  std::string req = std::to_string(timeout_ms) + '\0' + out_path + '\0';
  for (const std::string& a : argv) req += a + '\0';
  Reply reply{};
  if (::send(fd_, req.data(), req.size(), 0) != static_cast<ssize_t>(req.size()) ||
      ::recv(fd_, &reply, sizeof reply, 0) != static_cast<ssize_t>(sizeof reply)) {
    Run r;
    r.what = what;
    r.error = "the spawner is gone";
    return r;
  }
  Run r;
  r.what = what;
  r.started = reply.started;
  r.timed_out = reply.timed_out;
  r.exit_code = reply.exit_code;
  r.term_signal = reply.term_signal;
  r.maxrss_kb = reply.maxrss_kb;
  r.start_ns = reply.start_ns;
  r.end_ns = reply.end_ns;
  if (!r.started) r.error = "could not be started (see the spawner's stderr)";
  r.output = ReadAll(out_path);
  return r;
}

void Spawner::Serve(int fd) {
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n <= 0) return;
    std::vector<std::string> fields;
    for (ssize_t i = 0; i < n;) {
      std::string f(buf.data() + i);
      i += static_cast<ssize_t>(f.size()) + 1;
      fields.push_back(std::move(f));
    }
    if (fields.size() < 3) return;
    std::vector<std::string> argv(fields.begin() + 2, fields.end());
    Run r = RunHere("", argv, std::atoi(fields[0].c_str()), fields[1]);
    if (!r.started) std::fprintf(stderr, "churn: %s: %s\n", argv[0].c_str(), r.error.c_str());
    Reply reply{r.started,   r.timed_out, r.exit_code, r.term_signal,
                r.maxrss_kb, r.start_ns,  r.end_ns};
    if (::send(fd, &reply, sizeof reply, 0) != static_cast<ssize_t>(sizeof reply)) return;
  }
}

}  // namespace proctape::churn
