// SPDX-License-Identifier: Apache-2.0
// churn_bench: proctape under process churn (docs/testing.md).
//
//   churn_bench --proctape BIN --churner BIN [--seconds 60] [--timeout-ms 15000]
//               [--keep]
//
// Starts tests/churn/churner as the init of its own PID namespace
// (`unshare --pid --fork --kill-child`, lab's StartChild), and while it forks,
// reaps, renames and reuses pids, runs the real proctape binary over and over,
// each command under a timeout, one at a time, in turn:
//   capture --root CHURNER (the sandbox subtree), capture (the whole host),
//   resolve --fingerprint --record for a token the churner planted on a live
//   sleeper, resolve --record for a token it never planted, and liveness
//   --record of a (pid, start tick) from its log (alive or reaped);
// then `verify` on every file written, `replay` on every recording, and
// `tree` on every capture (whose output must hold no raw control byte: the
// comms are hostile). Each verdict is judged against the churner's own log
// (tests/churn/churn_log.h). It prints the load held, the pid reuses, the
// verdict mix, peak RSS (wait4's ru_maxrss) of the first and last run of each
// command, and every failure.
//
// Exit status: 0 when every property held (no crash, no hang, no wrong pid,
// every file verifies and every recording replays REPRODUCED, no raw control
// byte in any output); 1 otherwise; 77 when it cannot run here (not root, no
// unshare). Speed is reported, never asserted.
//
// Its directory under $TMPDIR (the churner's log, every file and output) is
// removed after a clean run, kept after a failure or with --keep.
//
// It ends exactly the processes it started: each command is the unreaped
// child of its spawner (below) until wait4 (a timed-out one is SIGKILLed by
// pid, which cannot have been reused); the spawner, its direct child, exits
// when this process closes its socket (or dies: PR_SET_PDEATHSIG); the
// churner by pidfd proven by its start tick, and `unshare`, its direct child,
// by pid. The churner's death ends its namespace
// and so every process it made.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/churn/churn_judge.h"
#include "tests/churn/churn_log.h"
#include "tests/churn/spawner.h"
#include "lab/procs.h"
#include "lab/sandbox.h"

namespace {

using proctape::churn::CheckRun;
using proctape::churn::ChurnLog;
using proctape::churn::Fail;
using proctape::churn::Judgement;
using proctape::churn::MonoNs;
using proctape::churn::ParseIdentity;
using proctape::churn::PrintFigures;
using proctape::churn::ReadAll;
using proctape::churn::Run;
using proctape::churn::Spawner;
using proctape::churn::Stats;
using proctape::churn::VerdictOf;

constexpr double kChurnTail = 2.5;  // seconds the churner runs past the commands

Spawner* g_spawner = nullptr;

Run RunTimed(const std::string& what, const std::vector<std::string>& argv, int timeout_ms,
             const std::string& out_path) {
  return g_spawner->Run1(what, argv, timeout_ms, out_path);
}

struct Options {
  std::string proctape, churner;
  double seconds = 60;
  int timeout_ms = 15000;
  bool keep = false;
};

bool ParseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--keep") {
      o->keep = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (k == "--proctape")
      o->proctape = v;
    else if (k == "--churner")
      o->churner = v;
    else if (k == "--seconds")
      o->seconds = std::atof(v);
    else if (k == "--timeout-ms")
      o->timeout_ms = std::atoi(v);
    else
      return false;
  }
  for (std::string* path : {&o->proctape, &o->churner}) {  // children need absolute paths
    char* abs = ::realpath(path->c_str(), nullptr);
    if (abs == nullptr) return false;
    *path = abs;
    std::free(abs);
  }
  return o->seconds > 0 && o->timeout_ms > 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!ParseOptions(argc, argv, &opt)) {
    std::fprintf(stderr,
                 "usage: churn_bench --proctape BIN --churner BIN [--seconds S] "
                 "[--timeout-ms MS] [--keep]\n");
    return 2;
  }
  Spawner spawner;
  if (!spawner.Start()) {
    std::fprintf(stderr, "churn: cannot fork the spawner: %s\n", std::strerror(errno));
    return 1;
  }
  g_spawner = &spawner;
  const std::string unshare = proctape::lab::FindOnPath("unshare");
  if (::geteuid() != 0 || unshare.empty()) {
    std::printf("churn: skipped: needs root and unshare (a PID namespace with its own pid_max)\n");
    return 77;
  }
  std::string base = proctape::lab::StagingBase() + "/proctape-churn.XXXXXX";
  std::vector<char> tmpl(base.begin(), base.end());
  tmpl.push_back('\0');
  if (::mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "churn: mkdtemp %s: %s\n", base.c_str(), std::strerror(errno));
    return 1;
  }
  const std::string dir = tmpl.data();
  const std::string links = dir + "/links", files = dir + "/files", log_path = dir + "/churn.log";
  ::mkdir(links.c_str(), 0700);
  ::mkdir(files.c_str(), 0700);
  const std::string host_pid_max_before = ReadAll("/proc/sys/kernel/pid_max");

  // The churner: init of its own PID namespace, on the host's /proc.
  std::string err;
  proctape::Failure unstarted;
  const int churner_out =
      ::open((dir + "/churner.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  // The churner outlives the commands by kChurnTail, so that the last
  // resolve (deadline 2 s) still runs under churn, not after it.
  const double churn_seconds = opt.seconds + kChurnTail;
  char secs[32];
  std::snprintf(secs, sizeof secs, "%g", churn_seconds);
  const pid_t unshare_pid = proctape::lab::StartChild(
      {unshare, "--pid", "--fork", "--kill-child", opt.churner, "--log", log_path, "--dir", links,
       "--seconds", secs, "--token-prefix", "churn" + std::to_string(::getpid()), "--host-pid-max",
       std::to_string(std::atol(host_pid_max_before.c_str()))},
      proctape::lab::BaseEnv(), churner_out, 0, &unstarted);
  if (churner_out >= 0) ::close(churner_out);
  if (unshare_pid < 0) {
    std::fprintf(stderr, "churn: cannot start unshare: %s\n", unstarted.message.c_str());
    return 1;
  }
  // The log is followed as it grows: the bytes after `log_pos` are read,
  // and complete lines parsed (a partial last line waits in `log_tail`).
  ChurnLog log;
  std::int64_t log_pos = 0;
  std::string log_tail;
  auto follow = [&]() -> bool {
    int fd = ::open(log_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;  // not created yet
    char buf[65536];
    ssize_t got;
    while ((got = ::pread(fd, buf, sizeof buf, log_pos)) > 0) {
      log_tail.append(buf, static_cast<std::size_t>(got));
      log_pos += got;
    }
    ::close(fd);
    std::size_t offset = 0;
    bool ok = proctape::churn::ParseLog(log_tail, &offset, &log, &err);
    log_tail.erase(0, offset);
    if (!ok) std::fprintf(stderr, "churn: %s\n", err.c_str());
    return ok;
  };
  const std::int64_t ready_by = MonoNs() + 5'000'000'000;
  while (log.churner_host_pid == 0 && MonoNs() < ready_by && follow()) proctape::lab::SleepMs(5);
  proctape::lab::PidFd churner_fd;
  if (log.churner_host_pid > 0)
    churner_fd = proctape::lab::PidFd::Open(log.churner_host_pid, log.churner_start);
  auto cleanup = [&] {
    churner_fd.Kill();  // by pidfd, proven by its start tick: never a reused pid
    churner_fd.WaitExited(5000);
    if (!proctape::lab::ChildExited(unshare_pid)) ::kill(unshare_pid, SIGKILL);  // ours, unreaped
    proctape::lab::ReapChild(unshare_pid);
  };
  if (!churner_fd.valid()) {
    std::fprintf(stderr, "churn: the churner did not start (%s kept): %s\n", dir.c_str(),
                 ReadAll(dir + "/churner.out").c_str());
    cleanup();
    return 1;
  }
  const pid_t root = log.churner_host_pid;
  std::printf("churn: churner host pid %d (pid 1 of its namespace, pid_max %d), %g s, in %s\n",
              root, log.pid_max, opt.seconds, dir.c_str());

  Stats stats;
  std::vector<std::string> recordings, captures;
  int n = 0;
  auto out_file = [&](const std::string& what) {
    return dir + "/out-" + what + "-" + std::to_string(n);
  };
  const std::string& P = opt.proctape;
  const std::string fingerprint = files + "/root.ptape";
  Run fp =
      RunTimed("fingerprint", {P, "fingerprint", "--root", std::to_string(root), "-o", fingerprint},
               opt.timeout_ms, out_file("fingerprint"));
  if (!CheckRun(fp, {0}, &stats)) {
    std::fprintf(stderr, "churn: %s kept\n", dir.c_str());
    cleanup();
    return 1;
  }
  std::mt19937_64 rng(static_cast<std::uint64_t>(::getpid()));
  const std::int64_t commands_end = MonoNs() + static_cast<std::int64_t>(opt.seconds * 1e9);
  const std::vector<std::string> sleep_argv = {"--argv", "/bin/sleep", "--argv", "1"};
  while (MonoNs() < commands_end && follow()) {
    ++n;
    const std::string file = files + "/f" + std::to_string(n) + ".ptape";
    switch (n % 5) {
      case 0: {  // the sandbox subtree
        Run r =
            RunTimed("capture-subtree", {P, "capture", "--root", std::to_string(root), "-o", file},
                     opt.timeout_ms, out_file("cap"));
        if (CheckRun(r, {0}, &stats)) captures.push_back(file);
        break;
      }
      case 1: {  // the whole host
        Run r =
            RunTimed("capture-host", {P, "capture", "-o", file}, opt.timeout_ms, out_file("cap"));
        if (CheckRun(r, {0}, &stats)) captures.push_back(file);
        break;
      }
      case 2:
      case 3: {  // a planted token (a live sleeper's), or one never planted
        const bool planted = n % 5 == 2;
        std::string token = "churn-never-" + std::to_string(rng());
        std::int64_t logged_ns = 0;
        if (planted) {
          std::vector<const proctape::churn::Created*> live;
          for (const auto& [seq, c] : log.created)
            if (!c.token.empty() && c.reap_ns < 0) live.push_back(&c);
          if (live.empty()) break;
          // Mostly the newest (alive longest), sometimes any: also ones about to exit.
          const auto* pick = rng() % 3 ? live.back() : live[rng() % live.size()];
          token = pick->token;
          logged_ns = pick->fork_ns;
        }
        std::vector<std::string> cmd = {
            P,     "resolve",       "--fingerprint",          fingerprint, "--token",
            token, "--deadline-ms", planted ? "2000" : "300", "--record",  file};
        cmd.insert(cmd.end(), sleep_argv.begin(), sleep_argv.end());
        const std::string what = planted ? "resolve-planted" : "resolve-unplanted";
        Run r = RunTimed(what, cmd, opt.timeout_ms, out_file("res"));
        if (!CheckRun(r, {0, 4, 5, 6, 7, 8}, &stats)) break;
        recordings.push_back(file);
        std::string verdict = VerdictOf(r.output);
        stats.verdicts[what][verdict]++;
        follow();
        Judgement j = Judgement::kFailClosed;
        std::string why;
        if (verdict == "RESOLVED") {
          pid_t pid;
          std::uint64_t start;
          if (!ParseIdentity(r.output, "host pid ", "start tick ", &pid, &start)) {
            Fail(&stats, what + ": RESOLVED without a readable identity: " + r.output);
            break;
          }
          j = proctape::churn::JudgeResolved(log, planted ? token : "", pid, start, r.start_ns,
                                             &why);
        } else if (planted) {
          // Fail-closed; a miss if the sleeper lived through the whole command.
          for (const auto& [seq, c] : log.created)
            if (c.token == token && !c.dup_token && c.fork_ns == logged_ns &&
                (c.reap_ns < 0 || c.reap_ns > r.end_ns))
              stats.planted_missed_alive++;
        }
        stats.judged[proctape::churn::JudgementName(j)]++;
        if (j == Judgement::kWrong) Fail(&stats, what + ": " + why);
        break;
      }
      case 4: {  // liveness of a logged (pid, start): a live sleeper, or any recent one
        std::vector<const proctape::churn::Created*> all, live;
        for (const auto& [seq, c] : log.created) {
          if (c.host_pid <= 0) continue;
          all.push_back(&c);
          if (c.reap_ns < 0) live.push_back(&c);
        }
        if (all.empty()) break;
        const auto* pick =
            !live.empty() && rng() % 2
                ? live[rng() % live.size()]
                : all[all.size() - 1 - rng() % std::min<std::size_t>(all.size(), 500)];
        Run r = RunTimed("liveness",
                         {P, "liveness", "--pid", std::to_string(pick->host_pid), "--start",
                          std::to_string(pick->start), "--record", file},
                         opt.timeout_ms, out_file("live"));
        if (!CheckRun(r, {0, 3, 4, 7}, &stats)) break;
        recordings.push_back(file);
        std::string verdict = VerdictOf(r.output);
        stats.verdicts["liveness"][verdict]++;
        follow();
        Judgement j = Judgement::kFailClosed;
        std::string why;
        if (verdict == "ALIVE")
          j = proctape::churn::JudgeAlive(log, pick->host_pid, pick->start, r.start_ns, &why);
        stats.judged[proctape::churn::JudgementName(j)]++;
        if (j == Judgement::kWrong) Fail(&stats, "liveness: " + why);
        break;
      }
    }
  }

  // The churner stops by itself at its deadline; wait for it (bounded).
  const bool churner_ended =
      churner_fd.WaitExited(static_cast<int>(kChurnTail * 1000) + opt.timeout_ms);
  if (!churner_ended) Fail(&stats, "the churner did not end by itself");
  cleanup();
  follow();
  if (!log.ended) Fail(&stats, "the churner's log has no end line");
  if (ReadAll("/proc/sys/kernel/pid_max") != host_pid_max_before)
    Fail(&stats, "the host's pid_max changed (it must be the namespace's alone)");

  // Every file verifies; every recording replays to the same verdict; every
  // capture's tree prints no raw control byte.
  for (const std::string& f : recordings) {
    ++stats.files;
    Run v = RunTimed("verify", {P, "verify", f}, opt.timeout_ms, dir + "/out-verify");
    if (CheckRun(v, {0}, &stats)) ++stats.verified;
    Run r = RunTimed("replay", {P, "replay", f}, opt.timeout_ms, dir + "/out-replay");
    if (CheckRun(r, {0}, &stats) && r.output.find("REPRODUCED") != std::string::npos)
      ++stats.replayed;
    else if (r.exit_code == 0)
      Fail(&stats, "replay " + f + ": not REPRODUCED: " + r.output);
  }
  for (const std::string& f : captures) {
    ++stats.files;
    Run v = RunTimed("verify", {P, "verify", f}, opt.timeout_ms, dir + "/out-verify");
    if (CheckRun(v, {0}, &stats)) ++stats.verified;
    Run t = RunTimed("tree", {P, "tree", f, "--wide"}, opt.timeout_ms, dir + "/out-tree");
    CheckRun(t, {0}, &stats);
  }

  // The figures.
  PrintFigures(log, churn_seconds, stats, recordings.size());
  // Kept on failure (or --keep) for inspection: the log, every file, every output.
  if (opt.keep || !stats.failures.empty()) {
    std::printf("churn: files, outputs and the churner's log kept in %s\n", dir.c_str());
  } else {
    const std::string rm = proctape::lab::FindOnPath("rm");
    if (!rm.empty()) RunTimed("rm", {rm, "-rf", dir}, opt.timeout_ms, "/dev/null");
  }
  if (!stats.failures.empty()) {
    std::printf("churn: %zu FAILURES (first: %s)\n", stats.failures.size(),
                stats.failures.front().c_str());
    return 1;
  }
  std::printf("churn: every property held\n");
  return 0;
}
