// SPDX-License-Identifier: Apache-2.0
// record_overhead's clocks and its one child: /bin/sleep 120 with
// PROCTAPE_TOKEN=<random> in a CI-like environment (PR_SET_PDEATHSIG=SIGKILL),
// ended by its pid and reaped, also when the bench dies (Die). One program
// includes this (bench/record_overhead.cc), so the definitions are inline.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace proctape::bench {

inline std::int64_t MonoNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The sleep child, ended by Die too (it is our unreaped child: its pid
// cannot have been reused).
inline pid_t g_child = -1;

inline void EndChild() {
  if (g_child <= 0) return;
  ::kill(g_child, SIGKILL);
  while (::waitpid(g_child, nullptr, 0) < 0 && errno == EINTR) {
  }
  g_child = -1;
}

// CPU time of this thread (the resolver's) and of the whole process (the
// frame scans of RecordLive use worker threads).
inline std::int64_t CpuNs(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
inline std::int64_t ThreadCpuNs() { return CpuNs(CLOCK_THREAD_CPUTIME_ID); }
inline std::int64_t ProcessCpuNs() { return CpuNs(CLOCK_PROCESS_CPUTIME_ID); }

[[noreturn]] inline void Die(const std::string& why) {
  std::fprintf(stderr, "record_overhead: %s\n", why.c_str());
  EndChild();
  std::exit(1);
}

inline std::string RandomHex(std::size_t bytes) {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes; ++i) {
    unsigned v = rd() & 0xff;
    out.push_back(kHex[v >> 4]);
    out.push_back(kHex[v & 0xf]);
  }
  return out;
}

inline std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The one child: /bin/sleep 120 with the token, ended by its pid (it is our
// unreaped child, so the pid cannot have been reused) and reaped.
class SleepChild {
 public:
  explicit SleepChild(const std::string& token) {
    std::vector<std::string> env = {
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOME=/home/runner",
        "CI=true",
        "GITHUB_ACTIONS=true",
        "GITHUB_WORKSPACE=/home/runner/work/proctape/proctape",
        "RUNNER_TEMP=/home/runner/work/_temp",
        "LANG=C.UTF-8",
        "ACTIONS_RUNTIME_TOKEN=" + RandomHex(256),
        "PROCTAPE_TOKEN=" + token};
    std::vector<char*> cenv;
    for (std::string& e : env) cenv.push_back(e.data());
    cenv.push_back(nullptr);
    char arg0[] = "/bin/sleep";
    char arg1[] = "120";
    char* argv[] = {arg0, arg1, nullptr};
    pid_t parent = ::getpid();
    pid_t pid = ::fork();
    if (pid < 0) Die(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
      int devnull = ::open("/dev/null", O_RDWR);
      if (devnull >= 0) {
        ::dup2(devnull, 0);
        ::dup2(devnull, 1);
      }
      ::execve(argv[0], argv, cenv.data());
      ::_exit(127);
    }
    g_child = pid_ = pid;
    // Ready once the exec is done: /proc/PID/cmdline is the sleep's.
    const std::string cmdline(
        "/bin/sleep\0"
        "120\0",
        15);
    const std::string path = "/proc/" + std::to_string(pid_) + "/cmdline";
    for (std::int64_t until = MonoNs() + 5'000'000'000; ReadWhole(path) != cmdline;) {
      if (MonoNs() > until) Die("the sleep child did not exec within 5 s");
      ::usleep(1000);
    }
  }
  ~SleepChild() { EndChild(); }
  SleepChild(const SleepChild&) = delete;
  SleepChild& operator=(const SleepChild&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

}  // namespace proctape::bench
