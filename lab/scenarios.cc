// SPDX-License-Identifier: Apache-2.0
// The lab's scenarios: each stages its processes (the app-server already
// runs), states facts, queues its checks and says what their verdicts must
// show (docs/lab.md).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "lab/stage.h"

namespace proctape::lab {
namespace {

using VStatus = v1::Verdict;
using LStatus = v1::LivenessVerdict;

bool CopyFile(const std::string& from, const std::string& to, std::string* error) {
  FILE* in = std::fopen(from.c_str(), "rbe");
  FILE* out = in ? std::fopen(to.c_str(), "wbe") : nullptr;
  bool ok = in && out;
  char buf[65536];
  std::size_t n;
  while (ok && (n = std::fread(buf, 1, sizeof buf, in)) > 0) ok = std::fwrite(buf, 1, n, out) == n;
  if (in) std::fclose(in);
  if (out && std::fclose(out) != 0) ok = false;
  if (ok && ::chmod(to.c_str(), 0755) != 0) ok = false;
  if (!ok) *error = "copy " + from + " to " + to + ": " + std::strerror(errno);
  return ok;
}

// A step of the session that failed, said as the scenario's error: false.
bool Said(const Failure& failure, std::string* error) {
  *error = failure.message;
  return false;
}

bool Plain(Stage& s, std::string* error) {
  Failure failure;
  auto marker = s.session.StartSandbox(Script::kExecSleep, s.token, "", &failure);
  if (!marker) return Said(failure, error);
  auto sleep = s.Sleep(s.token, &failure);
  auto value = s.session.WaitMarker(*marker, 5000);
  if (!sleep) return Said(failure, error);
  if (!value) return false;
  s.MarkerFact(*value);
  s.SleepFact(*sleep);
  s.Resolve();
  std::int64_t pid = sleep->pid;
  long m = *value;
  s.shown = [pid, m](const auto& rs) {
    if (m == pid) return std::string("the marker happens to equal the host pid");
    return ExpectResolve(rs, 0, VStatus::RESOLVED, pid);
  };
  return true;
}

bool StaleToken(Stage& s, std::string* error) {
  const std::string old_token = RandomHex(16);
  Failure failure;
  if (!s.session.StartSandbox(Script::kExecSleep, old_token, "", &failure)) {
    return Said(failure, error);
  }
  auto old_sleep = s.Sleep(old_token, &failure);
  if (!old_sleep) return Said(failure, error);
  SleepMs(30);  // an older start tick, from an earlier invocation
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", &failure)) {
    return Said(failure, error);
  }
  auto sleep = s.Sleep(s.token, &failure);
  if (!sleep) return Said(failure, error);
  s.SleepFact(*old_sleep, "the stale sleep (older invocation, another token)");
  s.SleepFact(*sleep, "this invocation's sleep");
  s.Resolve();
  std::int64_t pid = sleep->pid;
  s.shown = [pid](const auto& rs) { return ExpectResolve(rs, 0, VStatus::RESOLVED, pid); };
  return true;
}

bool ImpostorExe(Stage& s, std::string* error) {
  std::string copy = s.session.Path("sleep");
  if (!CopyFile("/bin/sleep", copy, error)) return false;
  Failure failure;
  if (!s.session.StartSandbox(Script::kExecAsSleep, s.token, copy, &failure)) {
    return Said(failure, error);
  }
  auto found = s.session.WaitFor(s.session.app()->pid(), kSleepCmdline, s.Token(s.token),
                                 IdentityOf(copy), 1, 5000, &failure);
  if (found.empty()) return Said(failure, error);
  auto id = IdentityOf(copy);
  s.SleepFact(found[0], "the impostor (argv /bin/sleep 120, the token)");
  s.Fact("its executable is a copy of sleep at device " + std::to_string(id->dev) + ", inode " +
         std::to_string(id->ino) + "; /bin/sleep is inode " + std::to_string(s.sleep_exe.ino));
  s.Resolve();
  s.shown = [](const auto& rs) { return ExpectResolve(rs, 0, VStatus::EXE_MISMATCH); };
  return true;
}

bool MisleadingName(Stage& s, std::string* error) {
  // A different program (tail) started through a link named "sleep": its
  // name (comm) says sleep, its argv and executable do not.
  std::string link = s.session.Path("sleep");
  if (::symlink("/usr/bin/tail", link.c_str()) != 0) {
    *error = "symlink " + link + ": " + std::strerror(errno);
    return false;
  }
  Failure failure;
  if (!s.session.StartSandbox(Script::kExecOther, s.token, link, &failure)) {
    return Said(failure, error);
  }
  std::string tail_cmdline = link;
  for (const char* arg : {"-f", "/dev/null"}) tail_cmdline.append(1, '\0').append(arg);
  tail_cmdline.append(1, '\0');
  auto impostor = s.session.WaitFor(s.session.app()->pid(), tail_cmdline, s.Token(s.token),
                                    std::nullopt, 1, 5000, &failure);
  if (impostor.empty()) return Said(failure, error);
  SleepMs(30);
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", &failure)) {
    return Said(failure, error);
  }
  auto sleep = s.Sleep(s.token, &failure);
  if (!sleep) return Said(failure, error);
  s.Fact("a process named '" + EscapeBytes(impostor[0].comm, 64) +
         "' (tail, via a link) is host pid " + std::to_string(impostor[0].pid) +
         ", started first, with the token");
  s.SleepFact(*sleep, "the real sleep");
  s.Resolve();
  std::int64_t pid = sleep->pid;
  s.shown = [pid](const auto& rs) { return ExpectResolve(rs, 0, VStatus::RESOLVED, pid); };
  return true;
}

bool Zombie(Stage& s, std::string* error) {
  Failure failure;
  if (!s.session.StartSandbox(Script::kForkThenExec, s.token, "", &failure)) {
    return Said(failure, error);
  }
  auto sleep = s.Sleep(s.token, &failure);
  if (!sleep) return Said(failure, error);
  s.SleepFact(*sleep, "the sleep (its parent execs /bin/sleep 1000 and never reaps)");
  s.Resolve();
  StatFields p = *sleep;
  Session* session = &s.session;
  s.Liveness(p, [session, p]() -> MaybeFailure {
    if (MaybeFailure failed = session->Kill(static_cast<pid_t>(p.pid), false)) return failed;
    auto st = ReadStatOf(static_cast<pid_t>(p.pid));
    if (!st || st->state != 'Z') {
      return Failure(FailureKind::kLabFailed,
                     "the sleep " + std::to_string(p.pid) + " is not a zombie after SIGKILL");
    }
    return std::nullopt;
  });
  s.Resolve();  // the zombie's argv reads empty: no candidate until the deadline
  s.Fact("after the first resolve the sleep is killed and stays a zombie (state Z)");
  s.shown = [p](const auto& rs) {
    return Both(
        Both(ExpectResolve(rs, 0, VStatus::RESOLVED, p.pid), ExpectLiveness(rs, 1, LStatus::DEAD)),
        ExpectDeadline(rs, 2));
  };
  return true;
}

bool PreExec(Stage& s, std::string* error) {
  Failure failure;
  auto marker = s.session.StartSandbox(Script::kLateExec, s.token, "", &failure);
  if (!marker) return Said(failure, error);
  auto value = s.session.WaitMarker(*marker, 5000);
  if (!value) {
    *error = "the marker was not written within 5 s; log: " + s.session.Log();
    return false;
  }
  s.Fact("the resolver starts as soon as the marker holds " + std::to_string(*value) +
         "; the shell execs /bin/sleep 120 only 300 ms later");
  s.Resolve();
  Verdict* v = &s.verdicts.back();
  s.shown = [v](const auto& rs) {
    std::string e = ExpectResolve(rs, 0, VStatus::RESOLVED, v->pid);
    if (e.empty() && v->attempts < 2) e = "resolved at the first attempt: no retry was recorded";
    return e;
  };
  return true;
}

bool Ambiguous(Stage& s, std::string* error) {
  Failure failure;
  for (int i = 0; i < 2; ++i) {
    if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", &failure)) {
      return Said(failure, error);
    }
  }
  std::vector<StatFields> both = s.session.WaitFor(
      s.session.app()->pid(), kSleepCmdline, s.Token(s.token), s.sleep_exe, 2, 5000, &failure);
  if (both.size() != 2) return Said(failure, error);
  s.SleepFact(both[0], "matching sleep 1");
  s.SleepFact(both[1], "matching sleep 2");
  s.Resolve();
  s.shown = [](const auto& rs) { return ExpectResolve(rs, 0, VStatus::MULTIPLE_MATCHES); };
  return true;
}

bool RootRestarted(Stage& s, std::string* error) {
  Failure failure;
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", &failure)) {
    return Said(failure, error);
  }
  if (!s.Sleep(s.token, &failure)) return Said(failure, error);
  const pid_t root = static_cast<pid_t>(s.request.root_pid);
  s.Fact("the app-server " + std::to_string(root) + " was fingerprinted at start tick " +
         std::to_string(s.request.root_start_ticks));
  // The restart: the old app-server and its tree end; a new one takes its pid.
  s.session.StopAppServer();
  SleepMs(30);  // 10 ms ticks: the new start tick differs
  std::string marker = s.session.Path("marker-restarted");
  std::vector<std::string> argv = {"/bin/sh", "-c", "\"$@\"; :", "app-server"};
  for (const std::string& a : s.session.SandboxArgv(Script::kExecSleep, s.token, marker, "")) {
    argv.push_back(a);
  }
  pid_t again =
      s.session.StartAt(root, argv, {"PATH=/usr/bin:/bin"}, "restarted app-server", &failure);
  if (again < 0) return Said(failure, error);
  auto found =
      s.session.WaitFor(root, kSleepCmdline, s.Token(s.token), s.sleep_exe, 1, 5000, &failure);
  if (found.empty()) return Said(failure, error);
  auto st = ReadStatOf(root);
  s.Fact("restarted: pid " + std::to_string(root) + " is a new app-server, start tick " +
         (st ? std::to_string(st->start_ticks) : std::string("?")) + ", with a new sandbox");
  s.SleepFact(found[0], "the new sandbox's sleep (same token)");
  s.Resolve();
  s.shown = [](const auto& rs) { return ExpectResolve(rs, 0, VStatus::ROOT_RESTARTED); };
  return true;
}

bool PidReuse(Stage& s, std::string* error) {
  Failure failure;
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", &failure)) {
    return Said(failure, error);
  }
  auto sleep = s.Sleep(s.token, &failure);
  if (!sleep) return Said(failure, error);
  s.SleepFact(*sleep);
  s.Resolve();
  StatFields p = *sleep;
  Session* session = &s.session;
  const std::string token = s.Token(s.token);
  auto reuse = [session, p, token]() -> MaybeFailure {
    if (MaybeFailure failed = session->Kill(static_cast<pid_t>(p.pid), true)) return failed;
    SleepMs(30);  // 10 ms ticks: the reuser's start tick differs
    // The reuser is a perfect impostor: same argv, same executable, same
    // token. Only the start time tells it apart.
    Failure unstarted;
    pid_t reuser = session->StartAt(static_cast<pid_t>(p.pid), {"/bin/sleep", "120"},
                                    {"PATH=/usr/bin:/bin", token}, "reuser", &unstarted);
    if (reuser < 0) return unstarted;
    auto st = ReadStatOf(reuser);
    if (!st || st->start_ticks == p.start_ticks) {
      return Failure(FailureKind::kLabFailed,
                     "the reuser of pid " + std::to_string(p.pid) + " has the same start tick");
    }
    return std::nullopt;
  };
  s.Liveness(p, reuse);
  s.Fact("after the resolve, the sleep is killed and pid " + std::to_string(p.pid) +
         " is taken by a new /bin/sleep 120 with the same token (clone3 set_tid)");
  s.shown = [p](const auto& rs) {
    return Both(ExpectResolve(rs, 0, VStatus::RESOLVED, p.pid),
                ExpectLiveness(rs, 1, LStatus::ERROR, VStatus::PID_REUSED));
  };
  return true;
}

bool Exited(Stage& s, std::string* error) {
  Failure failure;
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", &failure)) {
    return Said(failure, error);
  }
  auto sleep = s.Sleep(s.token, &failure);
  if (!sleep) return Said(failure, error);
  s.SleepFact(*sleep);
  StatFields p = *sleep;
  Session* session = &s.session;
  s.Resolve();
  s.Liveness(p);
  s.Liveness(p, [session, p] { return session->Kill(static_cast<pid_t>(p.pid), true); });
  s.Fact("after the first liveness check the sleep is killed and reaped");
  s.shown = [p](const auto& rs) {
    return Both(
        Both(ExpectResolve(rs, 0, VStatus::RESOLVED, p.pid), ExpectLiveness(rs, 1, LStatus::ALIVE)),
        ExpectLiveness(rs, 2, LStatus::DEAD));
  };
  return true;
}

bool HostileComm(Stage& s, std::string* error) {
  // exec through a link whose name is the command name: ") " and a newline.
  std::string link = s.session.Path(std::string("x) Z 1 1 1\nx"));
  if (::symlink("/usr/bin/sleep", link.c_str()) != 0) {
    *error = "symlink: " + std::string(std::strerror(errno));
    return false;
  }
  Failure failure;
  if (!s.session.StartSandbox(Script::kExecAsSleep, s.token, link, &failure)) {
    return Said(failure, error);
  }
  auto sleep = s.Sleep(s.token, &failure);
  if (!sleep) return Said(failure, error);
  s.SleepFact(*sleep, "the sleep, exec'd through a link");
  s.Fact("its command name is '" + EscapeBytes(sleep->comm, 64) + "'");
  s.Resolve();
  std::int64_t pid = sleep->pid;
  std::string comm = sleep->comm;
  s.shown = [pid, comm](const auto& rs) {
    if (comm.find(") ") == std::string::npos || comm.find('\n') == std::string::npos) {
      return "the command name lost its ') ' or newline: '" + EscapeBytes(comm) + "'";
    }
    return ExpectResolve(rs, 0, VStatus::RESOLVED, pid);
  };
  return true;
}

bool NeverExec(Stage& s, std::string* error) {
  Failure failure;
  auto marker = s.session.StartSandbox(Script::kNeverExec, s.token, "", &failure);
  if (!marker) return Said(failure, error);
  if (!s.session.WaitMarker(*marker, 5000)) {
    *error = "the marker was not written within 5 s; log: " + s.session.Log();
    return false;
  }
  s.Fact("the shell wrote the marker and never execs; the resolver retries until its deadline");
  s.Resolve();
  s.shown = [](const auto& rs) { return ExpectDeadline(rs, 0); };
  return true;
}

}  // namespace

const std::vector<Scenario>& ScenarioTable() {
  static const std::vector<Scenario> table = {
      {{"plain", "one sandbox; the marker names another host process", "RESOLVED", false,
        "the marker (the sandbox's $$) names another process; the resolver finds the true host "
        "pid beneath the app-server"},
       Plain},
      {{"stale-token", "an older exact sleep with another token under the same app-server",
        "RESOLVED (the new sleep)", false,
        "an older exact /bin/sleep 120 with another token under the same app-server is not "
        "taken: the new invocation's token decides"},
       StaleToken},
      {{"impostor-exe", "argv /bin/sleep 120 with the token, executable a copy of sleep",
        "EXE_MISMATCH", false,
        "argv /bin/sleep 120 and the token, but the executable is a copy of sleep at another "
        "inode: EXE_MISMATCH"},
       ImpostorExe},
      {{"misleading-name", "another program named sleep (tail, via a link), then the real sleep",
        "RESOLVED (the real sleep)", false,
        "a different program named sleep (tail via a link), started first with the token, is "
        "ignored: argv and exe decide, never the name"},
       MisleadingName},
      {{"zombie", "the sleep is resolved, killed, left a zombie: liveness, then resolve again",
        "RESOLVED, DEAD, NO_MATCH", false,
        "the resolved sleep becomes a zombie: liveness says DEAD, and a new resolve finds no "
        "candidate (a zombie's cmdline reads empty)"},
       Zombie},
      {{"pre-exec", "the resolver starts at the marker; the exec comes 300 ms later",
        "RESOLVED after retries", false,
        "the resolver starts when the marker is written, 300 ms before exec: it retries every "
        "100 ms, then resolves"},
       PreExec},
      {{"ambiguous", "two sandboxes, same token: two matching sleeps", "MULTIPLE_MATCHES", false,
        "two sleeps carry the token: MULTIPLE_MATCHES, fails closed"},
       Ambiguous},
      {{"root-restarted", "the app-server restarts at the same pid (new start tick)",
        "ROOT_RESTARTED", true,
        "the app-server restarted at the same pid (clone3 set_tid): its start tick differs from "
        "the fingerprint, ROOT_RESTARTED"},
       RootRestarted},
      {{"pid-reuse",
        "the resolved sleep dies and its pid is taken by a same-argv, same-token sleep",
        "RESOLVED, then liveness ERROR PID_REUSED", true,
        "after the resolve the sleep dies and a same-argv, same-token sleep takes its pid "
        "(clone3 set_tid): liveness says PID_REUSED"},
       PidReuse},
      {{"exited", "the resolved sleep ends", "RESOLVED, ALIVE, DEAD", false,
        "the resolved sleep is ALIVE, then ends: DEAD"},
       Exited},
      {{"hostile-comm", "the sleep's command name holds \") \" and a newline", "RESOLVED", false,
        "the sleep's command name holds \") \" and a newline: stat is split at the final \") \", "
        "the resolver is not fooled"},
       HostileComm},
      {{"never-exec", "the shell writes the marker and never execs", "NO_MATCH at the deadline",
        false,
        "the shell writes the marker and never execs: the resolver retries until the 5 s "
        "deadline"},
       NeverExec},
  };
  return table;
}

}  // namespace proctape::lab
