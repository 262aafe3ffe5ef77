// SPDX-License-Identifier: Apache-2.0
// churner: forks and reaps thousands of short-lived processes per second
// inside its own PID namespace, forces pid reuse, gives them hostile names,
// execs some with a planted token, and logs every process it created.
//
//   churner --log FILE --seconds S --dir DIR [--pid-max N --host-pid-max H]
//           [--token-prefix P]
//
// It must be the init (pid 1) of a PID namespace of its own
// (`unshare --pid --fork --kill-child churner ...`), so that writing the
// namespace's /proc/sys/kernel/pid_max (per PID namespace since Linux 6.14)
// touches nothing outside it, and so that every process it made dies with it.
// /proc must still be the host's procfs mount: each child reads its own
// /proc/self/stat, whose field 1 is then its host pid.
//
// Children, by kind (seq is the creation number):
//   x  exit: renamed (PR_SET_NAME) to a hostile comm, reports, exits;
//   s  sleeper: reports, then execs /bin/sleep through a hostile-named
//      symbolic link in DIR (so its comm is hostile too) with argv exactly
//      "/bin/sleep 1" and PROCTAPE_TOKEN=<prefix>-<seq> in its environment;
//      every 8th sleeper carries the entry twice (the resolver's TOKEN_MISMATCH);
//   e  exec: reports, then execs /bin/true through a hostile-named link;
//   reuse (any kind, reuse=1 in the log): made by clone3 with set_tid at the namespace pid *and* the host
//      pid of a child just reaped (both pids reused at once), then a sleeper
//      or an exit as above.
// Besides, the namespace's pid_max (default 400) makes its pids wrap every
// 100 processes (the kernel restarts at 300 after a wrap). It is written
// only when it is provably the namespace's own: the kernel is 6.14 or later
// AND the value read inside differs from the host's (H, read outside by the
// caller). On an older kernel pid_max is one global sysctl that root could
// write from here, and a host limited to 400 pids would break; there the
// step is left out (said on stderr) and pids are reused by set_tid alone.
//
// The log (one line per event; host bytes as hex, so nothing needs escaping):
//   I pid_max N host_pid H start T           the churner itself
//   P seq kind reuse ns_pid host_pid start comm_hex token argv_hex dup fork_ns
//                                            a child's report, from its own
//                                            /proc/self/stat (after renaming)
//   R seq status reap_ns                     reaped (CLOCK_MONOTONIC ns)
//   F seq kind errno                         a fork/clone3 that failed
//   E forks N reaped N reuse_ok N reuse_failed N
// It is flushed every loop (a reader may follow it while it grows).
//
// After S seconds it stops creating, SIGKILLs its own remaining children by
// pid (unreaped, so never a reused pid), reaps them and exits 0.
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "tests/churn/churner_child.h"

namespace {

using proctape::churn::kHostileComms;
using proctape::churn::kHostileCount;
using proctape::churn::ReadSelfStat;
using proctape::churn::Report;
using proctape::churn::RunChild;

constexpr int kMaxLiveShort = 48;  // exit/exec children alive at once
constexpr int kMaxLiveSleepers = 40;

std::int64_t MonoNs() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string Hex(const char* data, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  if (n == 0) return "=";  // empty
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(data[i]);
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

struct Child {
  std::uint32_t seq = 0;
  char kind = 'x';
  bool reuse = false;  // made by clone3 at a reaped child's pids
  bool logged = false;
  std::int64_t fork_ns = 0;
};

struct Options {
  std::string log;
  std::string dir;
  std::string token_prefix = "churn";
  double seconds = 10;
  int pid_max = 400;
  long host_pid_max = 0;  // the host's pid_max as read outside; 0: unknown
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--log")
      o->log = v;
    else if (k == "--dir")
      o->dir = v;
    else if (k == "--token-prefix")
      o->token_prefix = v;
    else if (k == "--seconds")
      o->seconds = std::atof(v);
    else if (k == "--pid-max")
      o->pid_max = std::atoi(v);
    else if (k == "--host-pid-max")
      o->host_pid_max = std::atol(v);
    else
      return false;
  }
  return argc % 2 == 1 && !o->log.empty() && !o->dir.empty() && o->seconds > 0;
}

long ReadPidMax() {
  char buf[32] = {};
  int fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  (void)!read(fd, buf, sizeof buf - 1);
  close(fd);
  return std::atol(buf);
}

// Whether /proc/sys/kernel/pid_max, read and written from here, is this PID
// namespace's own (see the header): kernel >= 6.14, and a value other than
// the host's. Anything unknown is "no".
bool PidMaxIsThisNamespaces(long host_pid_max) {
  struct utsname u;
  if (host_pid_max <= 0 || uname(&u) != 0) return false;
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return false;
  if (major < 6 || (major == 6 && minor < 14)) return false;
  const long here = ReadPidMax();
  return here > 0 && here != host_pid_max;
}

pid_t Clone3At(pid_t ns_pid, pid_t host_pid) {
  pid_t tids[2] = {ns_pid, host_pid};  // innermost namespace first
  struct clone_args args;
  std::memset(&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  args.set_tid = reinterpret_cast<std::uintptr_t>(tids);
  args.set_tid_size = 2;
  return static_cast<pid_t>(syscall(SYS_clone3, &args, sizeof args));
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!ParseOptions(argc, argv, &opt)) {
    std::fprintf(stderr,
                 "usage: churner --log FILE --dir DIR --seconds S [--pid-max N] "
                 "[--token-prefix P]\n");
    return 2;
  }
  if (getpid() != 1) {
    std::fprintf(stderr,
                 "churner: must be pid 1 of its own PID namespace (unshare --pid --fork)\n");
    return 2;
  }
  std::FILE* log = std::fopen(opt.log.c_str(), "we");
  if (log == nullptr) {
    std::perror("churner: log");
    return 1;
  }
  // The namespace's own pid_max (per PID namespace since 6.14: the host's
  // is untouched). Minimum 301; pids then wrap from pid_max back to 300.
  if (opt.pid_max > 0 && !PidMaxIsThisNamespaces(opt.host_pid_max)) {
    std::fprintf(stderr,
                 "churner: pid_max is not provably this namespace's own here (kernel older "
                 "than 6.14, or the same value as the host's): left alone\n");
  } else if (opt.pid_max > 0) {
    int fd = open("/proc/sys/kernel/pid_max", O_WRONLY | O_CLOEXEC);
    std::string v = std::to_string(opt.pid_max);
    if (fd < 0 || write(fd, v.data(), v.size()) != static_cast<ssize_t>(v.size())) {
      std::perror("churner: write pid_max");
      return 1;
    }
    close(fd);
  }
  char pm[32] = {};
  {
    int fd = open("/proc/sys/kernel/pid_max", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      (void)!read(fd, pm, sizeof pm - 1);
      close(fd);
    }
  }
  Report self;
  ReadSelfStat(&self);
  std::fprintf(log, "I pid_max %d host_pid %d start %llu\n", std::atoi(pm), self.host_pid,
               static_cast<unsigned long long>(self.start));

  // Hostile-named links to /bin/sleep and /bin/true: exec through one and the
  // process's comm is the link's name (its exe stays the real file).
  std::vector<std::string> sleep_links, true_links;
  for (int i = 0; i < kHostileCount; ++i) {
    std::string name = kHostileComms[i];
    for (char& c : name)
      if (c == '/') c = '_';
    if (name.empty()) name = "empty";
    std::string s = opt.dir + "/s" + std::to_string(i) + name;
    std::string t = opt.dir + "/t" + std::to_string(i) + name;
    if (symlink("/bin/sleep", s.c_str()) != 0 || symlink("/bin/true", t.c_str()) != 0) {
      std::perror("churner: symlink");
      return 1;
    }
    sleep_links.push_back(s);
    true_links.push_back(t);
  }

  int report_pipe[2];
  if (pipe2(report_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::perror("churner: pipe");
    return 1;
  }
  std::unordered_map<pid_t, Child> live;              // by namespace pid
  std::unordered_map<std::uint32_t, Report> reports;  // by seq, until reaped
  std::deque<std::pair<pid_t, pid_t>> reusable;       // (ns pid, host pid) of reaped children
  int live_short = 0, live_sleepers = 0;
  std::uint64_t forks = 0, reaped = 0, reuse_ok = 0, reuse_failed = 0;
  std::uint32_t seq = 0;
  std::uint64_t rng = 0x9e3779b97f4a7c15ULL;
  auto next_rand = [&rng] {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  std::unordered_map<std::uint32_t, std::pair<std::string, bool>> tokens;  // seq -> token, dup

  auto drain_reports = [&] {
    Report r;
    while (read(report_pipe[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r)) reports[r.seq] = r;
  };
  auto log_report = [&](const Child& c, const Report& r) {
    const std::uint32_t s = c.seq;
    const char kind = c.kind;
    auto t = tokens.find(s);
    std::string argv_hex = "-";
    if (kind == 's')
      argv_hex =
          Hex("/bin/sleep\0"
              "1\0",
              13);
    if (kind == 'e') argv_hex = Hex("/bin/true\0", 10);
    std::fprintf(log, "P %u %c %d %d %d %llu %s %s %s %d %lld\n", s, kind, c.reuse ? 1 : 0,
                 r.ns_pid, r.host_pid, static_cast<unsigned long long>(r.start),
                 Hex(r.comm, r.comm_len).c_str(), t == tokens.end() ? "-" : t->second.first.c_str(),
                 argv_hex.c_str(), t != tokens.end() && t->second.second ? 1 : 0,
                 static_cast<long long>(c.fork_ns));
    tokens.erase(s);
  };

  const std::int64_t end_ns = MonoNs() + static_cast<std::int64_t>(opt.seconds * 1e9);
  bool stopping = false;
  for (;;) {
    const std::int64_t now = MonoNs();
    if (!stopping && now >= end_ns) {
      stopping = true;
      for (const auto& [ns_pid, c] : live) kill(ns_pid, SIGKILL);  // ours, unreaped
    }
    // Create while there is room.
    while (!stopping && live_short < kMaxLiveShort) {
      const std::uint32_t s = ++seq;
      std::uint64_t roll = next_rand() % 100;
      char kind = roll < 8 ? 's' : roll < 14 ? 'e' : 'x';
      if (kind == 's' && live_sleepers >= kMaxLiveSleepers) kind = 'x';
      bool reuse = next_rand() % 100 < 6 && !reusable.empty();
      std::string token;
      bool dup = false;
      if (kind == 's') {
        token = opt.token_prefix + "-" + std::to_string(s);
        dup = s % 8 == 0;
        tokens[s] = {token, dup};
      }
      const char* comm = kHostileComms[s % kHostileCount];
      const std::string& link = (kind == 's' ? sleep_links : true_links)[s % kHostileCount];
      std::string env_token = "PROCTAPE_TOKEN=" + token;
      std::vector<const char*> env = {"PATH=/usr/bin:/bin", env_token.c_str()};
      if (dup) env.push_back(env_token.c_str());
      env.push_back(nullptr);
      const std::int64_t fork_ns = MonoNs();
      pid_t pid;
      if (reuse) {
        // The child reaped last: its pids are the likeliest still free, and a
        // reuse within the same clock tick repeats its (pid, start tick).
        auto [ns_pid, host_pid] = reusable.back();
        reusable.pop_back();
        pid = Clone3At(ns_pid, host_pid);
        if (pid < 0) {
          ++reuse_failed;  // the pid was taken meanwhile (EEXIST): an ordinary fork
          pid = fork();
        } else {
          ++reuse_ok;
        }
      } else {
        pid = fork();
      }
      if (pid < 0) {
        std::fprintf(log, "F %u %c %d\n", s, kind, errno);
        tokens.erase(s);
        usleep(1000);
        break;
      }
      if (pid == 0) RunChild(s, kind, comm, link, env.data(), report_pipe[1]);
      ++forks;
      live[pid] = Child{s, kind, reuse, false, fork_ns};
      if (kind == 's')
        ++live_sleepers;
      else
        ++live_short;
    }
    drain_reports();
    // Reap what has ended; block briefly when at capacity.
    int status;
    pid_t pid = waitpid(-1, &status, (live_short >= kMaxLiveShort || stopping) ? 0 : WNOHANG);
    while (pid > 0) {
      const std::int64_t reap_ns = MonoNs();
      auto it = live.find(pid);
      if (it != live.end()) {
        const Child c = it->second;
        live.erase(it);
        ++reaped;
        if (c.kind == 's')
          --live_sleepers;
        else
          --live_short;
        drain_reports();
        auto r = reports.find(c.seq);
        if (r != reports.end()) {
          if (!c.logged) log_report(c, r->second);
          if (r->second.host_pid > 0 && r->second.err == 0) {
            reusable.emplace_back(r->second.ns_pid, r->second.host_pid);
            if (reusable.size() > 64) reusable.pop_front();
          }
          reports.erase(r);
        }
        std::fprintf(log, "R %u %d %lld\n", c.seq, status, static_cast<long long>(reap_ns));
      }
      pid = waitpid(-1, &status, WNOHANG);
    }
    // Sleepers' reports are logged as soon as they arrive: a reader follows
    // the log to find live tokens.
    for (auto& [ns_pid, c] : live) {
      if (c.kind != 's' || c.logged) continue;
      auto r = reports.find(c.seq);
      if (r == reports.end()) continue;
      log_report(c, r->second);
      c.logged = true;
    }
    std::fflush(log);
    if (stopping && live.empty()) break;
    if (pid < 0 && errno == ECHILD && stopping) break;
  }
  std::fprintf(log, "E forks %llu reaped %llu reuse_ok %llu reuse_failed %llu\n",
               static_cast<unsigned long long>(forks), static_cast<unsigned long long>(reaped),
               static_cast<unsigned long long>(reuse_ok),
               static_cast<unsigned long long>(reuse_failed));
  std::fclose(log);
  return 0;
}
