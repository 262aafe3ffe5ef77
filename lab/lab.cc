#include "lab/lab.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <random>

#include "capture/fingerprint.h"
#include "capture/live_checks.h"
#include "capture/live_record.h"
#include "capture/procfs_evidence.h"
#include "format/fingerprint_file.h"
#include "format/reader.h"
#include "lab/session.h"
#include "proto/convert.h"

namespace proctape::lab {
namespace {

using VStatus = v1::Verdict;
using LStatus = v1::LivenessVerdict;

const std::string kSleepCmdline("/bin/sleep\0" "120\0", 15);

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

// One scenario's run: the session, the request every resolve check uses,
// the checks to record, and what their verdicts must show.
struct Stage {
  Session session;
  std::string token;
  Request request;
  v1::RootFingerprint fingerprint;     // taken before the turn; every resolve uses it
  FileId sleep_exe;
  std::vector<std::string> facts;
  std::vector<LiveStep> steps;
  std::deque<Request> requests;        // stable addresses for the checks
  std::deque<Verdict> verdicts;
  std::deque<LivenessVerdict> liveness;
  // The recorded checks against the scenario's claim: "" when shown, else
  // what differs.
  std::function<std::string(const std::vector<v1::Resolution>&)> shown;

  void Resolve(std::function<bool(std::string*)> before = nullptr) {
    Request* r = &requests.emplace_back(request);
    steps.push_back({std::move(before), ResolveCheck(r, "/bin/sleep", false,
                                                     &verdicts.emplace_back(), &fingerprint)});
  }
  void Liveness(const StatFields& p, std::function<bool(std::string*)> before = nullptr) {
    steps.push_back({std::move(before), LivenessCheck(p.pid, p.start_ticks, &liveness.emplace_back())});
  }
  std::string Token(const std::string& token_value) const { return "PROCTAPE_TOKEN=" + token_value; }
  // The one exact sleep with this token beneath the app-server.
  std::optional<StatFields> Sleep(const std::string& token_value, std::string* error,
                                  std::size_t count = 1) {
    std::vector<StatFields> found = session.WaitFor(session.app()->pid(), kSleepCmdline,
                                                    Token(token_value), sleep_exe, count, 5000, error);
    if (found.size() != count) return std::nullopt;
    return found.back();
  }
  void Fact(const std::string& line) { facts.push_back(line); }
  void SleepFact(const StatFields& sleep, const char* what = "the sandboxed sleep") {
    std::string ns;
    if (auto status = ReadProcFile(static_cast<pid_t>(sleep.pid), "status")) {
      if (auto v = StatusValue(*status, "NSpid")) ns = std::string(*v);
    }
    for (char& c : ns) {
      if (c == '\t') c = ' ';
    }
    Fact(std::string(what) + ": host pid " + std::to_string(sleep.pid) + ", start tick " +
         std::to_string(sleep.start_ticks) + (ns.empty() ? "" : ", NSpid " + ns));
  }
  void MarkerFact(long marker) {
    std::string named = "no process";
    if (auto st = ReadStatOf(static_cast<pid_t>(marker))) {
      named = "'" + EscapeBytes(st->comm, 64) + "' (start tick " + std::to_string(st->start_ticks) + ")";
    }
    Fact("the marker says " + std::to_string(marker) + " (the sandbox's $$); as a host pid, " +
         std::to_string(marker) + " is " + named);
  }
};

// ---- What the recorded verdicts must show ----------------------------------

std::string StatusText(const v1::Resolution& r) {
  if (r.has_verdict()) {
    std::string s = VStatus::Status_Name(r.verdict().status());
    if (r.verdict().status() == VStatus::RESOLVED) s += " pid " + std::to_string(r.verdict().pid());
    return s;
  }
  const v1::LivenessVerdict& v = r.liveness_verdict();
  std::string s = LStatus::Status_Name(v.status());
  if (v.status() == LStatus::ERROR) s += " " + VStatus::Status_Name(v.reason());
  return s;
}

// Check k is a resolve with `status` (and, when RESOLVED, `pid`).
std::string ExpectResolve(const std::vector<v1::Resolution>& rs, std::size_t k,
                          VStatus::Status status, std::int64_t pid = 0) {
  if (k >= rs.size() || !rs[k].has_verdict()) return "check " + std::to_string(k) + " is missing";
  const v1::Verdict& v = rs[k].verdict();
  if (v.status() == status && (status != VStatus::RESOLVED || v.pid() == pid)) return "";
  std::string want = VStatus::Status_Name(status);
  if (status == VStatus::RESOLVED) want += " pid " + std::to_string(pid);
  return "check " + std::to_string(k) + " wanted " + want + ", got " + StatusText(rs[k]);
}

std::string ExpectLiveness(const std::vector<v1::Resolution>& rs, std::size_t k,
                           LStatus::Status status, VStatus::Status reason = VStatus::STATUS_UNSPECIFIED) {
  if (k >= rs.size() || !rs[k].has_liveness_verdict()) return "check " + std::to_string(k) + " is missing";
  const v1::LivenessVerdict& v = rs[k].liveness_verdict();
  if (v.status() == status && (status != LStatus::ERROR || v.reason() == reason)) return "";
  std::string want = LStatus::Status_Name(status);
  if (status == LStatus::ERROR) want += " " + VStatus::Status_Name(reason);
  return "check " + std::to_string(k) + " wanted " + want + ", got " + StatusText(rs[k]);
}

// Check k is a resolve that ended at the deadline: NO_MATCH when it passed
// between attempts, DEADLINE when it passed during a scan.
std::string ExpectDeadline(const std::vector<v1::Resolution>& rs, std::size_t k) {
  if (ExpectResolve(rs, k, VStatus::DEADLINE).empty()) return "";
  std::string e = ExpectResolve(rs, k, VStatus::NO_MATCH);
  return e.empty() ? e : e + " (or DEADLINE)";
}

std::string Both(const std::string& a, const std::string& b) { return a.empty() ? b : a; }

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

// ---- The scenarios ----------------------------------------------------------
// Each stages its processes (the app-server already runs), states facts,
// queues its checks and says what their verdicts must show.

bool Plain(Stage& s, std::string* error) {
  auto marker = s.session.StartSandbox(Script::kExecSleep, s.token, "", error);
  if (!marker) return false;
  auto sleep = s.Sleep(s.token, error);
  auto value = s.session.WaitMarker(*marker, 5000);
  if (!sleep || !value) return false;
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
  if (!s.session.StartSandbox(Script::kExecSleep, old_token, "", error)) return false;
  auto old_sleep = s.Sleep(old_token, error);
  if (!old_sleep) return false;
  SleepMs(30);  // an older start tick, from an earlier invocation
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", error)) return false;
  auto sleep = s.Sleep(s.token, error);
  if (!sleep) return false;
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
  if (!s.session.StartSandbox(Script::kExecAsSleep, s.token, copy, error)) return false;
  auto found = s.session.WaitFor(s.session.app()->pid(), kSleepCmdline, s.Token(s.token),
                                 IdentityOf(copy), 1, 5000, error);
  if (found.empty()) return false;
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
  if (!s.session.StartSandbox(Script::kExecOther, s.token, link, error)) return false;
  std::string tail_cmdline = link;
  for (const char* arg : {"-f", "/dev/null"}) tail_cmdline.append(1, '\0').append(arg);
  tail_cmdline.append(1, '\0');
  auto impostor = s.session.WaitFor(s.session.app()->pid(), tail_cmdline, s.Token(s.token),
                                    std::nullopt, 1, 5000, error);
  if (impostor.empty()) return false;
  SleepMs(30);
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", error)) return false;
  auto sleep = s.Sleep(s.token, error);
  if (!sleep) return false;
  s.Fact("a process named '" + EscapeBytes(impostor[0].comm, 64) + "' (tail, via a link) is host pid " +
         std::to_string(impostor[0].pid) + ", started first, with the token");
  s.SleepFact(*sleep, "the real sleep");
  s.Resolve();
  std::int64_t pid = sleep->pid;
  s.shown = [pid](const auto& rs) { return ExpectResolve(rs, 0, VStatus::RESOLVED, pid); };
  return true;
}

bool Zombie(Stage& s, std::string* error) {
  if (!s.session.StartSandbox(Script::kForkThenExec, s.token, "", error)) return false;
  auto sleep = s.Sleep(s.token, error);
  if (!sleep) return false;
  s.SleepFact(*sleep, "the sleep (its parent execs /bin/sleep 1000 and never reaps)");
  s.Resolve();
  StatFields p = *sleep;
  Session* session = &s.session;
  s.Liveness(p, [session, p](std::string* e) {
    if (!session->Kill(static_cast<pid_t>(p.pid), false, e)) return false;
    auto st = ReadStatOf(static_cast<pid_t>(p.pid));
    if (!st || st->state != 'Z') {
      *e = "the sleep " + std::to_string(p.pid) + " is not a zombie after SIGKILL";
      return false;
    }
    return true;
  });
  s.Resolve();  // the zombie's argv reads empty: no candidate until the deadline
  s.Fact("after the first resolve the sleep is killed and stays a zombie (state Z)");
  s.shown = [p](const auto& rs) {
    return Both(Both(ExpectResolve(rs, 0, VStatus::RESOLVED, p.pid),
                     ExpectLiveness(rs, 1, LStatus::DEAD)),
                ExpectDeadline(rs, 2));
  };
  return true;
}

bool PreExec(Stage& s, std::string* error) {
  auto marker = s.session.StartSandbox(Script::kLateExec, s.token, "", error);
  if (!marker) return false;
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
  for (int i = 0; i < 2; ++i) {
    if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", error)) return false;
  }
  std::vector<StatFields> both = s.session.WaitFor(s.session.app()->pid(), kSleepCmdline,
                                                   s.Token(s.token), s.sleep_exe, 2, 5000, error);
  if (both.size() != 2) return false;
  s.SleepFact(both[0], "matching sleep 1");
  s.SleepFact(both[1], "matching sleep 2");
  s.Resolve();
  s.shown = [](const auto& rs) { return ExpectResolve(rs, 0, VStatus::MULTIPLE_MATCHES); };
  return true;
}

bool RootRestarted(Stage& s, std::string* error) {
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", error)) return false;
  if (!s.Sleep(s.token, error)) return false;
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
  pid_t again = s.session.StartAt(root, argv, {"PATH=/usr/bin:/bin"}, "restarted app-server", error);
  if (again < 0) return false;
  auto found = s.session.WaitFor(root, kSleepCmdline, s.Token(s.token), s.sleep_exe, 1, 5000, error);
  if (found.empty()) return false;
  auto st = ReadStatOf(root);
  s.Fact("restarted: pid " + std::to_string(root) + " is a new app-server, start tick " +
         (st ? std::to_string(st->start_ticks) : std::string("?")) + ", with a new sandbox");
  s.SleepFact(found[0], "the new sandbox's sleep (same token)");
  s.Resolve();
  s.shown = [](const auto& rs) { return ExpectResolve(rs, 0, VStatus::ROOT_RESTARTED); };
  return true;
}

bool PidReuse(Stage& s, std::string* error) {
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", error)) return false;
  auto sleep = s.Sleep(s.token, error);
  if (!sleep) return false;
  s.SleepFact(*sleep);
  s.Resolve();
  StatFields p = *sleep;
  Session* session = &s.session;
  const std::string token = s.Token(s.token);
  auto reuse = [session, p, token](std::string* e) {
    if (!session->Kill(static_cast<pid_t>(p.pid), true, e)) return false;
    SleepMs(30);  // 10 ms ticks: the reuser's start tick differs
    // The reuser is a perfect impostor: same argv, same executable, same
    // token. Only the start time tells it apart.
    pid_t reuser = session->StartAt(static_cast<pid_t>(p.pid), {"/bin/sleep", "120"},
                                    {"PATH=/usr/bin:/bin", token}, "reuser", e);
    if (reuser < 0) return false;
    auto st = ReadStatOf(reuser);
    if (!st || st->start_ticks == p.start_ticks) {
      *e = "the reuser of pid " + std::to_string(p.pid) + " has the same start tick";
      return false;
    }
    return true;
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
  if (!s.session.StartSandbox(Script::kExecSleep, s.token, "", error)) return false;
  auto sleep = s.Sleep(s.token, error);
  if (!sleep) return false;
  s.SleepFact(*sleep);
  StatFields p = *sleep;
  Session* session = &s.session;
  s.Resolve();
  s.Liveness(p);
  s.Liveness(p, [session, p](std::string* e) { return session->Kill(static_cast<pid_t>(p.pid), true, e); });
  s.Fact("after the first liveness check the sleep is killed and reaped");
  s.shown = [p](const auto& rs) {
    return Both(Both(ExpectResolve(rs, 0, VStatus::RESOLVED, p.pid), ExpectLiveness(rs, 1, LStatus::ALIVE)),
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
  if (!s.session.StartSandbox(Script::kExecAsSleep, s.token, link, error)) return false;
  auto sleep = s.Sleep(s.token, error);
  if (!sleep) return false;
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
  auto marker = s.session.StartSandbox(Script::kNeverExec, s.token, "", error);
  if (!marker || !s.session.WaitMarker(*marker, 5000)) {
    if (error->empty()) *error = "the marker was not written within 5 s; log: " + s.session.Log();
    return false;
  }
  s.Fact("the shell wrote the marker and never execs; the resolver retries until its deadline");
  s.Resolve();
  s.shown = [](const auto& rs) { return ExpectDeadline(rs, 0); };
  return true;
}

struct Scenario {
  ScenarioInfo info;
  bool (*stage)(Stage&, std::string*);
};

const std::vector<Scenario>& Table() {
  static const std::vector<Scenario> table = {
      {{"plain", "one sandbox; the marker names another host process", "RESOLVED", false}, Plain},
      {{"stale-token", "an older exact sleep with another token under the same app-server",
        "RESOLVED (the new sleep)", false}, StaleToken},
      {{"impostor-exe", "argv /bin/sleep 120 with the token, executable a copy of sleep",
        "EXE_MISMATCH", false}, ImpostorExe},
      {{"misleading-name", "another program named sleep (tail, via a link), then the real sleep",
        "RESOLVED (the real sleep)", false}, MisleadingName},
      {{"zombie", "the sleep is resolved, killed, left a zombie: liveness, then resolve again",
        "RESOLVED, DEAD, NO_MATCH", false}, Zombie},
      {{"pre-exec", "the resolver starts at the marker; the exec comes 300 ms later",
        "RESOLVED after retries", false}, PreExec},
      {{"ambiguous", "two sandboxes, same token: two matching sleeps", "MULTIPLE_MATCHES", false},
       Ambiguous},
      {{"root-restarted", "the app-server restarts at the same pid (new start tick)",
        "ROOT_RESTARTED", true}, RootRestarted},
      {{"pid-reuse", "the resolved sleep dies and its pid is taken by a same-argv, same-token sleep",
        "RESOLVED, then liveness ERROR PID_REUSED", true}, PidReuse},
      {{"exited", "the resolved sleep ends", "RESOLVED, ALIVE, DEAD", false}, Exited},
      {{"hostile-comm", "the sleep's command name holds \") \" and a newline",
        "RESOLVED", false}, HostileComm},
      {{"never-exec", "the shell writes the marker and never execs",
        "NO_MATCH (or DEADLINE) at the deadline", false}, NeverExec},
  };
  return table;
}

// The app-server's fingerprint, written to the session's directory and read
// back; the request's root, start tick and executable become its own. The
// app-server read its start tick itself: the two must agree.
bool FingerprintBeforeTheTurn(ProcfsEvidence& live, const LabOptions& options, Stage& stage,
                              std::string* error) {
  const pid_t root = stage.session.app()->pid();
  const v1::Header header = FingerprintHeader("/proc", options.command_line);
  TakenFingerprint taken = TakeFingerprint(live, root, "/bin/sleep", header.host().boot_id());
  if (!taken.ok()) {
    *error = "cannot fingerprint the app-server " + std::to_string(root) + ": " +
             (taken.root.resolved() ? "/bin/sleep errno " + std::to_string(taken.exe.err)
                                    : taken.root.detail);
    return false;
  }
  const std::string path = stage.session.Path("root-fingerprint.ptape");
  if (!WriteFingerprintFile(path, false, header, taken.fingerprint, error)) return false;
  FingerprintFile file = ReadFingerprintFile(path);
  if (!file.ok()) {
    *error = path + " " + file.error;
    return false;
  }
  if (std::string other = OtherBoot(file.fingerprint, header.host().boot_id()); !other.empty()) {
    *error = "the app-server's fingerprint was " + other;
    return false;
  }
  if (file.fingerprint.root_start_ticks() != stage.session.app()->start_ticks()) {
    *error = "the app-server's fingerprint says start tick " +
             std::to_string(file.fingerprint.root_start_ticks()) + ", the app-server " +
             std::to_string(stage.session.app()->start_ticks());
    return false;
  }
  stage.fingerprint = file.fingerprint;
  ApplyFingerprint(stage.fingerprint, &stage.request);
  return true;
}

}  // namespace

const std::vector<ScenarioInfo>& Scenarios() {
  static const std::vector<ScenarioInfo> infos = [] {
    std::vector<ScenarioInfo> out;
    for (const Scenario& s : Table()) out.push_back(s.info);
    return out;
  }();
  return infos;
}

const ScenarioInfo* FindScenario(const std::string& name) {
  for (const ScenarioInfo& s : Scenarios()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

LabResult RunLab(const LabOptions& options) {
  LabResult result;
  const Scenario* scenario = nullptr;
  for (const Scenario& s : Table()) {
    if (options.scenario == s.info.name) scenario = &s;
  }
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  if (scenario == nullptr) {
    result.error = "unknown scenario '" + EscapeBytes(options.scenario, 64) + "' (see 'proctape lab --list')";
    return result;
  }
  result.outcome = LabOutcome::kUnavailable;
  if (scenario->info.needs_root && ::geteuid() != 0) {
    result.error = std::string(scenario->info.name) +
                   " reuses a pid on purpose (clone3 with set_tid), which needs root";
    return result;
  }
  if (std::string why = SandboxUnavailable(options.sandbox); !why.empty()) {
    result.error = why;
    return result;
  }
  result.outcome = LabOutcome::kFailed;
  std::string error;
  auto live = ProcfsEvidence::Open("/proc", &error);
  if (!live) {
    result.error = error;
    return result;
  }
  Stage stage;
  auto finish = [&](LabOutcome outcome, const std::string& message) {
    stage.session.Cleanup(&result.started, &result.left_running);
    result.outcome = outcome;
    result.error = message;
    result.facts = stage.facts;
    return result;
  };
  if (!stage.session.Init(options.sandbox, &error)) return finish(LabOutcome::kFailed, error);
  Identity exe = live->PathIdentity("/bin/sleep");
  if (!exe.ok()) return finish(LabOutcome::kFailed, "cannot attest /bin/sleep: errno " + std::to_string(exe.err));
  stage.sleep_exe = {exe.dev, exe.ino};
  stage.token = RandomHex(16);
  progress("starting the app-server");
  if (!stage.session.StartAppServer(&error)) return finish(LabOutcome::kFailed, error);
  // Seed step 1: the root is fingerprinted before the turn starts, as
  // `proctape fingerprint` does, into a file that the resolve checks read
  // back, as `resolve --fingerprint` does.
  if (!FingerprintBeforeTheTurn(*live, options, stage, &error)) {
    return finish(LabOutcome::kFailed, error);
  }
  stage.request.token = stage.token;
  stage.request.bounds.deadline_ns = options.deadline_ms * 1'000'000;
  stage.Fact("app-server: host pid " + std::to_string(stage.request.root_pid) + ", start tick " +
             std::to_string(stage.request.root_start_ticks) + "; sandbox: " +
             SandboxName(options.sandbox) + "; token " + stage.token);
  progress(std::string("staging ") + scenario->info.name + " in a " + SandboxName(options.sandbox) +
           " sandbox");
  if (!scenario->stage(stage, &error)) return finish(LabOutcome::kFailed, error);
  progress("recording " + std::to_string(stage.steps.size()) + " check(s) to " + options.record);
  LiveRecordOptions record;
  record.path = options.record;
  record.force = options.force;
  record.command_line = options.command_line;
  record.kept_entries = {TokenEntry(stage.request)};
  if (!RecordLiveSteps(*live, record, stage.steps, &error)) {
    return finish(LabOutcome::kFailed, "recording " + options.record + ": " + error);
  }
  // The file as written is what the report describes.
  Snapshot written;
  FormatError read = ReadSnapshot(options.record, &written);
  if (!read.ok()) return finish(LabOutcome::kFailed, options.record + " does not read back: " + read.message);
  result.checks = written.resolutions;
  std::string differs = stage.shown ? stage.shown(result.checks) : "";
  return finish(differs.empty() ? LabOutcome::kShown : LabOutcome::kNotShown, differs);
}

}  // namespace proctape::lab
