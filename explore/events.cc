// SPDX-License-Identifier: Apache-2.0
#include "explore/events.h"

#include <algorithm>
#include <cerrno>
#include <unordered_set>

#include "core/proc_parse.h"

namespace proctape::explore {
namespace {

constexpr std::int64_t kInit = 1;

bool Dead(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

bool Alive(const HostModel& m, std::int64_t pid) {
  std::optional<StatFields> s = m.Stat(pid);
  return s && !Dead(s->state);
}

std::string Cmdline(const std::vector<std::string>& argv) { return JoinNul(argv); }

bool MatchesArgv(const HostModel& m, std::int64_t pid, const EventContext& ctx) {
  if (ctx.argv.empty()) return false;
  const ModelProcess* p = m.Find(pid);
  return p != nullptr && p->cmdline && p->cmdline->ok() && p->cmdline->data == Cmdline(ctx.argv);
}

// Its environ without the token entry (another invocation's process).
std::string WithoutToken(const ModelProcess& p, const EventContext& ctx) {
  std::string out;
  if (!p.environ || !p.environ->ok()) return out;
  for (std::string_view entry : SplitNul(p.environ->data)) {
    if (entry == ctx.token_entry) continue;
    out.append(entry).push_back('\0');
  }
  return out;
}

// Another invocation's token entry: the expected one with "-2" after the
// token, as a harness that numbers its runs gives the next one (run-1,
// run-1-2): the same variable, a value that begins with the token.
std::string StaleTokenEntry(const EventContext& ctx) { return ctx.token_entry + "-2"; }

void Reparent(HostModel* m, std::int64_t pid) {
  for (std::int64_t child : m->Children(pid)) m->SetParent(child, kInit);
}

bool Exit(HostModel* m, std::int64_t pid) {
  if (!Alive(*m, pid)) return false;
  m->SetState(pid, 'Z');
  m->SetFile(pid, ProcFile::kCmdline, StoredRead(0, "", false));
  m->SetFile(pid, ProcFile::kEnviron, StoredRead(ESRCH, "", false));
  m->SetExe(pid, Identity{ENOENT, 0, 0});
  Reparent(m, pid);
  return true;
}

bool Gone(HostModel* m, std::int64_t pid) {
  if (!m->Stat(pid)) return false;
  Reparent(m, pid);
  return m->Remove(pid);
}

// A process like `like` (a copy of its record), numbered `pid`, started at
// `start` (past every start tick of the model), in state S under `ppid`.
bool AddLike(HostModel* m, ModelProcess like, std::int64_t pid, std::int64_t ppid,
             std::uint64_t start) {
  like.pid = pid;
  if (like.stat && like.stat->ok()) like.stat->data = WithStatPid(like.stat->data, pid);
  if (like.status && like.status->ok()) {
    ReplaceStatusLine(&like.status->data, "Pid", std::to_string(pid));
    ReplaceStatusLine(&like.status->data, "NSpid", std::to_string(pid));
  }
  if (!m->Add(std::move(like))) return false;
  m->SetStartTicks(pid, start);
  m->SetState(pid, 'S');
  m->SetParent(pid, ppid);
  return true;
}

Identity Other(const Identity& exe, std::uint64_t by) { return Identity{0, exe.dev, exe.ino + by}; }

bool Reuse(EventKind kind, const EventContext& ctx, HostModel* m, std::int64_t pid) {
  const ModelProcess* old = m->Find(pid);
  std::optional<StatFields> s = m->Stat(pid);
  if (old == nullptr || !s) return false;
  ModelProcess like = *old;
  const std::int64_t parent = s->ppid;
  const std::uint64_t start = m->MaxStartTicks() + 1;  // before the old one goes
  Gone(m, pid);
  const bool unrelated = kind == EventKind::kReuseUnrelated || ctx.argv.empty();
  AddLike(m, like, pid, unrelated ? kInit : parent, start);
  std::string env = WithoutToken(like, ctx);
  if (unrelated) {
    m->SetComm(pid, "cat");
    m->SetFile(pid, ProcFile::kCmdline, StoredRead(0, Cmdline({"/usr/bin/cat"}), false));
    m->SetExe(pid, Other(ctx.exe, 2));
  } else {
    m->SetComm(pid, ctx.argv.front().substr(ctx.argv.front().rfind('/') + 1).substr(0, 15));
    m->SetFile(pid, ProcFile::kCmdline, StoredRead(0, Cmdline(ctx.argv), false));
    if (kind == EventKind::kReuseToken) {
      env = ctx.token_entry + std::string(1, '\0') + env;
      m->SetExe(pid, Other(ctx.exe, 1));
    } else {
      env = StaleTokenEntry(ctx) + std::string(1, '\0') + env;
      m->SetExe(pid, ctx.exe);
    }
  }
  m->SetFile(pid, ProcFile::kEnviron, StoredRead(0, env, false));
  return true;
}

// The shell the exec starts from: the exe of a process named "sh" in the
// initial model, else an identity of its own.
Identity ShellExe(const EventContext& ctx) {
  for (std::int64_t pid : ctx.initial->listing()) {
    std::optional<StatFields> s = ctx.initial->Stat(pid);
    const ModelProcess* p = ctx.initial->Find(pid);
    if (s && s->comm == "sh" && p->exe && p->exe->ok()) return *p->exe;
  }
  return Other(ctx.exe, 3);
}

std::vector<std::string> ShellArgv(const EventContext& ctx) {
  std::string line = "exec";
  for (const std::string& a : ctx.argv) line += " " + a;
  return {"/bin/sh", "-c", line};
}

}  // namespace

std::string_view KindName(EventKind kind) {
  switch (kind) {
    case EventKind::kExit: return "exit";
    case EventKind::kGone: return "gone";
    case EventKind::kReuseUnrelated: return "reuse-unrelated";
    case EventKind::kReuseArgv: return "reuse-argv";
    case EventKind::kReuseToken: return "reuse-token";
    case EventKind::kExecShell: return "exec-shell";
    case EventKind::kExecEmpty: return "exec-empty";
    case EventKind::kExecOldArgv: return "exec-oldargv";
    case EventKind::kSecondMatch: return "second-match";
    case EventKind::kRootRestart: return "root-restart";
    case EventKind::kTimeRetry: return "time-retry";
    case EventKind::kTimeDeadline: return "time-deadline";
  }
  return "?";
}

bool IsExec(EventKind kind) {
  return kind == EventKind::kExecShell || kind == EventKind::kExecEmpty ||
         kind == EventKind::kExecOldArgv;
}

EventContext MakeContext(const HostModel* initial, const Request* request,
                         std::int64_t liveness_pid, std::int64_t start_ns) {
  EventContext ctx;
  ctx.initial = initial;
  ctx.start_ns = start_ns;
  if (request == nullptr) {
    ctx.targets = {liveness_pid};
    return ctx;
  }
  ctx.root_pid = request->root_pid;
  ctx.argv = request->argv;
  ctx.token_entry = request->token_var + "=" + request->token;
  ctx.exe = request->exe;
  ctx.bounds = request->bounds;
  // The root, then its descendants breadth first (listing order per level),
  // from one index of the tree: linear in the model (minimize makes a
  // context for every candidate host).
  if (!initial->Stat(ctx.root_pid)) return ctx;
  ctx.targets.push_back(ctx.root_pid);
  const auto children = initial->ChildrenByParent();
  std::unordered_set<std::int64_t> seen = {ctx.root_pid};
  for (std::size_t i = 0; i < ctx.targets.size() && ctx.targets.size() <= 4096; ++i) {
    auto it = children.find(ctx.targets[i]);
    if (it == children.end()) continue;
    for (std::int64_t c : it->second) {
      if (seen.insert(c).second) ctx.targets.push_back(c);
    }
  }
  return ctx;
}

std::vector<Event> Applicable(const HostModel& model, const EventContext& ctx, std::int64_t clock) {
  std::vector<Event> out;
  for (std::int64_t pid : ctx.targets) {
    std::optional<StatFields> s = model.Stat(pid);
    if (!s) continue;
    const bool root = pid == ctx.root_pid;
    if (!Dead(s->state)) out.push_back({EventKind::kExit, pid});
    out.push_back({EventKind::kGone, pid});
    if (root) {
      out.push_back({EventKind::kRootRestart, pid});
      continue;
    }
    out.push_back({EventKind::kReuseUnrelated, pid});
    if (ctx.argv.empty()) continue;
    out.push_back({EventKind::kReuseArgv, pid});
    out.push_back({EventKind::kReuseToken, pid});
    if (MatchesArgv(*ctx.initial, pid, ctx)) {
      for (EventKind k : {EventKind::kExecShell, EventKind::kExecEmpty, EventKind::kExecOldArgv}) {
        out.push_back({k, pid});
      }
      if (!Dead(s->state)) out.push_back({EventKind::kSecondMatch, pid});
    }
  }
  if (!ctx.argv.empty()) {
    out.push_back({EventKind::kTimeRetry, 0});
    if (clock <= ctx.start_ns + ctx.bounds.deadline_ns)
      out.push_back({EventKind::kTimeDeadline, 0});
  }
  return out;
}

bool ApplyExecBegin(const Event& e, const EventContext& ctx, HostModel* m) {
  if (!IsExec(e.kind) || !MatchesArgv(*m, e.pid, ctx)) return false;
  const bool shell_exe = e.kind == EventKind::kExecShell;
  if (e.kind != EventKind::kExecOldArgv) m->SetComm(e.pid, "sh");
  const std::string cmd = e.kind == EventKind::kExecEmpty ? "" : Cmdline(ShellArgv(ctx));
  m->SetFile(e.pid, ProcFile::kCmdline, StoredRead(0, cmd, false));
  if (shell_exe) m->SetExe(e.pid, ShellExe(ctx));
  return true;
}

bool Apply(const Event& e, const EventContext& ctx, HostModel* m, std::int64_t* clock) {
  switch (e.kind) {
    case EventKind::kExit: return Exit(m, e.pid);
    case EventKind::kGone: return Gone(m, e.pid);
    case EventKind::kReuseUnrelated:
    case EventKind::kReuseArgv:
    case EventKind::kReuseToken: return Reuse(e.kind, ctx, m, e.pid);
    case EventKind::kExecShell:
    case EventKind::kExecEmpty:
    case EventKind::kExecOldArgv: {
      // The exec completes: the bytes the frame recorded come back.
      const ModelProcess* was = ctx.initial->Find(e.pid);
      std::optional<StatFields> s = ctx.initial->Stat(e.pid);
      if (was == nullptr || !s || !Alive(*m, e.pid)) return false;
      m->SetComm(e.pid, s->comm);
      m->SetFile(e.pid, ProcFile::kCmdline, was->cmdline);
      m->SetExe(e.pid, was->exe);
      return true;
    }
    case EventKind::kSecondMatch: {
      const ModelProcess* p = m->Find(e.pid);
      std::optional<StatFields> s = m->Stat(e.pid);
      if (p == nullptr || !s || Dead(s->state)) return false;
      return AddLike(m, *p, m->MaxPid() + 1, s->ppid, m->MaxStartTicks() + 1);
    }
    case EventKind::kRootRestart: {
      const ModelProcess* p = m->Find(e.pid);
      std::optional<StatFields> s = m->Stat(e.pid);
      if (p == nullptr || !s) return false;
      ModelProcess like = *p;
      const std::uint64_t start = m->MaxStartTicks() + 1;
      Gone(m, e.pid);
      return AddLike(m, like, e.pid, s->ppid, start);
    }
    case EventKind::kTimeRetry: *clock += ctx.bounds.retry_ns; return true;
    case EventKind::kTimeDeadline: {
      const std::int64_t past = ctx.start_ns + ctx.bounds.deadline_ns + 1;
      if (*clock >= past) return false;
      *clock = past;
      return true;
    }
  }
  return false;
}

std::string Describe(const Scheduled& s) {
  const std::string at = "at call " + std::to_string(s.point) + ": ";
  const std::string pid = "pid " + std::to_string(s.event.pid);
  switch (s.event.kind) {
    case EventKind::kExit: return at + pid + " exits (zombie; children to init)";
    case EventKind::kGone: return at + pid + " is gone (reaped; children to init)";
    case EventKind::kReuseUnrelated: return at + pid + " is reused by an unrelated process";
    case EventKind::kReuseArgv:
      return at + pid + " is reused by an impostor with the argv and the token of another run";
    case EventKind::kReuseToken:
      return at + pid + " is reused by an impostor with the argv and token, another exe";
    case EventKind::kExecShell:
    case EventKind::kExecEmpty:
    case EventKind::kExecOldArgv:
      return at + pid + " completes its exec (before: " +
             (s.event.kind == EventKind::kExecShell   ? "the shell's argv and exe"
              : s.event.kind == EventKind::kExecEmpty ? "an empty cmdline, the new exe"
                                                      : "the shell's argv, the new exe") +
             ")";
    case EventKind::kSecondMatch: return at + "a second match of " + pid + " appears";
    case EventKind::kRootRestart: return at + "the root " + pid + " restarts (new start tick)";
    case EventKind::kTimeRetry: return at + "the clock jumps one retry interval";
    case EventKind::kTimeDeadline: return at + "the clock jumps past the deadline";
  }
  return at + "?";
}

std::optional<Scheduled> ParseDescribed(std::string_view line) {
  constexpr std::string_view kAt = "at call ";
  if (line.substr(0, kAt.size()) != kAt) return std::nullopt;
  std::size_t i = kAt.size();
  std::uint64_t point = 0;
  std::size_t digits = 0;
  for (; i < line.size() && line[i] >= '0' && line[i] <= '9' && digits < 19; ++i, ++digits) {
    point = point * 10 + static_cast<std::uint64_t>(line[i] - '0');
  }
  if (digits == 0) return std::nullopt;
  // The pid: the first number after the point (none for a clock event).
  std::int64_t pid = 0;
  std::size_t j = line.find_first_of("0123456789", i);
  for (digits = 0; j < line.size() && line[j] >= '0' && line[j] <= '9' && digits < 10;
       ++j, ++digits) {
    pid = pid * 10 + (line[j] - '0');
  }
  for (int k = 0; k < kEventKinds; ++k) {
    const auto kind = static_cast<EventKind>(k);
    const Scheduled s{
        point, {kind, kind == EventKind::kTimeRetry || kind == EventKind::kTimeDeadline ? 0 : pid}};
    if (Describe(s) == line) return s;
  }
  return std::nullopt;
}

std::string KindsOf(const History& h) {
  std::string out;
  for (const Scheduled& s : h) {
    if (!out.empty()) out += "+";
    out += KindName(s.event.kind);
  }
  return out.empty() ? "none" : out;
}

}  // namespace proctape::explore
