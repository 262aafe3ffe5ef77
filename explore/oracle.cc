#include "explore/oracle.h"

#include "core/proc_parse.h"

namespace proctape::explore {
namespace {

bool Dead(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

Judgement Wrong(std::string why) { return Judgement{true, std::move(why)}; }

}  // namespace

HostModel TruthAt(const EventContext& ctx, const History& history, std::uint64_t point) {
  HostModel m = *ctx.initial;
  for (const Scheduled& s : history) {
    if (IsExec(s.event.kind)) ApplyExecBegin(s.event, ctx, &m);
  }
  std::int64_t clock = ctx.start_ns;
  for (const Scheduled& s : history) {
    if (s.point <= point) Apply(s.event, ctx, &m, &clock);
  }
  return m;
}

Judgement JudgeResolution(const HostModel& truth, const Request& request,
                          std::uint64_t initial_root_start, const Verdict& verdict,
                          bool final_read_seen) {
  if (!verdict.resolved()) return {};
  const std::string who = "pid " + std::to_string(verdict.pid) + " (start tick " +
                          std::to_string(verdict.start_ticks) + ")";
  if (!final_read_seen) return Wrong("RESOLVED " + who + " without ever reading its stat");
  std::optional<StatFields> s = truth.Stat(verdict.pid);
  if (!s) return Wrong("RESOLVED " + who + ", but no such process existed at its final re-read");
  if (s->start_ticks != verdict.start_ticks) {
    return Wrong("RESOLVED " + who + ", but that pid was a process started at tick " +
                 std::to_string(s->start_ticks) + " at its final re-read");
  }
  if (Dead(s->state)) {
    return Wrong("RESOLVED " + who + ", but it was dead (state " + std::string(1, s->state) +
                 ") at its final re-read");
  }
  const ModelProcess* p = truth.Find(verdict.pid);
  if (!p->cmdline || !p->cmdline->ok() || p->cmdline->truncated ||
      p->cmdline->data != JoinNul(request.argv)) {
    return Wrong("RESOLVED " + who + ", but its argv was not the expected one");
  }
  std::size_t named = 0;
  std::size_t carrying = 0;
  if (p->environ && p->environ->ok() && !p->environ->truncated) {
    for (std::string_view e : SplitNul(p->environ->data)) {
      const std::size_t eq = e.find('=');
      if (eq == std::string_view::npos || e.substr(0, eq) != request.token_var) continue;
      ++named;
      if (e.substr(eq + 1) == request.token) ++carrying;
    }
  }
  if (named != 1 || carrying != 1) {
    return Wrong("RESOLVED " + who + ", but its environ held " + std::to_string(named) +
                 " entries named " + request.token_var + ", " + std::to_string(carrying) +
                 " with the token");
  }
  if (!p->exe || !(*p->exe == request.exe)) {
    return Wrong("RESOLVED " + who + ", but its executable was not the attested one");
  }
  std::int64_t at = s->ppid;
  for (std::uint32_t depth = 0;; ++depth) {
    if (depth > request.bounds.max_depth) {
      return Wrong("RESOLVED " + who + ", but its ancestry is deeper than the bound");
    }
    std::optional<StatFields> a = truth.Stat(at);
    if (!a) {
      return Wrong("RESOLVED " + who + ", but its ancestry was cut at pid " + std::to_string(at) +
                   " before the root");
    }
    if (at == request.root_pid) {
      if (a->start_ticks != request.root_start_ticks || a->start_ticks != initial_root_start) {
        return Wrong("RESOLVED " + who + ", but the root " + std::to_string(at) +
                     " was a process started at tick " + std::to_string(a->start_ticks));
      }
      if (Dead(a->state)) return Wrong("RESOLVED " + who + ", but the root was dead");
      return {};
    }
    if (a->ppid == at || a->ppid <= 0) {
      return Wrong("RESOLVED " + who + ", but it did not descend from the root " +
                   std::to_string(request.root_pid));
    }
    at = a->ppid;
  }
}

Judgement JudgeLiveness(const HostModel& truth, std::int64_t pid, std::uint64_t start_ticks,
                        const LivenessVerdict& verdict) {
  if (verdict.status != LivenessStatus::kAlive) return {};
  std::optional<StatFields> s = truth.Stat(pid);
  const std::string who = "pid " + std::to_string(pid) + " (start tick " +
                          std::to_string(start_ticks) + ")";
  if (!s) return Wrong("ALIVE " + who + ", but no such process existed at its read");
  if (s->start_ticks != start_ticks) {
    return Wrong("ALIVE " + who + ", but that pid was a process started at tick " +
                 std::to_string(s->start_ticks));
  }
  if (Dead(s->state)) {
    return Wrong("ALIVE " + who + ", but it was dead (state " + std::string(1, s->state) + ")");
  }
  return {};
}

}  // namespace proctape::explore
