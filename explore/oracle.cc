// SPDX-License-Identifier: Apache-2.0
#include "explore/oracle.h"

#include "core/proc_parse.h"

namespace proctape::explore {
namespace {

bool Dead(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

Judgement Wrong(std::string why) { return Judgement{true, std::move(why)}; }

// The truth as a run goes: the initial model (every exec event's earlier
// state applied), then the history's events up to each point asked.
class Truth {
 public:
  Truth(const EventContext& ctx, const History& history)
      : ctx_(ctx), history_(history), model_(*ctx.initial), clock_(ctx.start_ns) {
    for (const Scheduled& s : history) {
      if (IsExec(s.event.kind)) ApplyExecBegin(s.event, ctx, &model_);
    }
  }
  // The model at `point` (points asked in increasing order).
  const HostModel& At(std::uint64_t point) {
    while (next_ < history_.size() && history_[next_].point <= point) {
      Apply(history_[next_].event, ctx_, &model_, &clock_);
      ++next_;
    }
    return model_;
  }

 private:
  const EventContext& ctx_;
  const History& history_;
  HostModel model_;
  std::int64_t clock_;
  std::size_t next_ = 0;
};

// Why process (pid, start) is not the one the request asks for in `truth`
// ("" when it is): alive, its argv, exactly one token entry carrying the
// token, the attested executable, and a parent chain to the unchanged root.
std::string WhyNotTheMatch(const HostModel& truth, const Request& request,
                           std::uint64_t initial_root_start, std::int64_t pid,
                           std::uint64_t start_ticks) {
  std::optional<StatFields> s = truth.Stat(pid);
  if (!s) return "no such process existed";
  if (s->start_ticks != start_ticks) {
    return "that pid was a process started at tick " + std::to_string(s->start_ticks);
  }
  if (Dead(s->state)) return "it was dead (state " + std::string(1, s->state) + ")";
  const ModelProcess* p = truth.Find(pid);
  if (!p->cmdline || !p->cmdline->ok() || p->cmdline->truncated ||
      p->cmdline->data != JoinNul(request.argv)) {
    return "its argv was not the expected one";
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
    return "its environ held " + std::to_string(named) + " entries named " + request.token_var +
           ", " + std::to_string(carrying) + " with the token";
  }
  if (!p->exe || !(*p->exe == request.exe)) return "its executable was not the attested one";
  std::int64_t at = s->ppid;
  for (std::uint32_t depth = 0;; ++depth) {
    if (depth > request.bounds.max_depth) return "its ancestry is deeper than the bound";
    std::optional<StatFields> a = truth.Stat(at);
    if (!a) return "its ancestry was cut at pid " + std::to_string(at) + " before the root";
    if (at == request.root_pid) {
      if (a->start_ticks != request.root_start_ticks || a->start_ticks != initial_root_start) {
        return "the root " + std::to_string(at) + " was a process started at tick " +
               std::to_string(a->start_ticks);
      }
      if (Dead(a->state)) return "the root was dead";
      return "";
    }
    if (a->ppid == at || a->ppid <= 0) {
      return "it did not descend from the root " + std::to_string(request.root_pid);
    }
    at = a->ppid;
  }
}

std::string Who(std::int64_t pid, std::uint64_t start_ticks) {
  return "pid " + std::to_string(pid) + " (start tick " + std::to_string(start_ticks) + ")";
}

}  // namespace

HostModel TruthAt(const EventContext& ctx, const History& history, std::uint64_t point) {
  Truth truth(ctx, history);
  return truth.At(point);
}

Judgement JudgeResolution(const HostModel& truth, const Request& request,
                          std::uint64_t initial_root_start, const Verdict& verdict,
                          bool final_read_seen) {
  if (!verdict.resolved()) return {};
  const std::string who = Who(verdict.pid, verdict.start_ticks);
  if (!final_read_seen) return Wrong("RESOLVED " + who + " without ever reading its stat");
  const std::string why =
      WhyNotTheMatch(truth, request, initial_root_start, verdict.pid, verdict.start_ticks);
  if (!why.empty()) return Wrong("RESOLVED " + who + ", but " + why + " at its final re-read");
  return {};
}

Judgement JudgeResolutionRun(const EventContext& ctx, const History& history,
                             const Request& request, std::uint64_t initial_root_start,
                             const Verdict& verdict, const PidReads& reads) {
  if (!verdict.resolved()) return {};
  const std::string who = Who(verdict.pid, verdict.start_ticks);
  if (!reads.last_stat) return Wrong("RESOLVED " + who + " without ever reading its stat");
  Truth truth(ctx, history);
  // The processes that matched at the listing, other than the one named.
  std::vector<std::pair<std::int64_t, std::uint64_t>> others;
  if (reads.listing) {
    const HostModel& at = truth.At(*reads.listing);
    for (std::int64_t pid : at.listing()) {
      std::optional<StatFields> s = at.Stat(pid);
      if (pid == verdict.pid || !s) continue;
      if (WhyNotTheMatch(at, request, initial_root_start, pid, s->start_ticks).empty()) {
        others.emplace_back(pid, s->start_ticks);
      }
    }
  }
  // One walk of the history: the rules at the final re-read are judged on
  // the way, when the walk passes it; a read of the wrong process at any
  // point still comes first.
  Judgement at_final;
  bool judged = false;
  auto judge_final = [&] {
    judged = true;
    const HostModel& final_truth = truth.At(*reads.last_stat);
    at_final = JudgeResolution(final_truth, request, initial_root_start, verdict, true);
    if (at_final.violation) return;
    for (const auto& [pid, start] : others) {
      if (WhyNotTheMatch(final_truth, request, initial_root_start, pid, start).empty()) {
        at_final = Wrong("RESOLVED " + who + ", but " + Who(pid, start) +
                         " matched as well, from the listing to the final re-read");
        return;
      }
    }
  };
  for (std::uint64_t point : reads.points) {  // in call order
    if (!judged && point > *reads.last_stat) judge_final();
    std::optional<StatFields> s = truth.At(point).Stat(verdict.pid);
    if (!s || s->start_ticks != verdict.start_ticks) {
      return Wrong("RESOLVED " + who + ", but at call " + std::to_string(point) +
                   " it read that pid when " +
                   (s ? "it was a process started at tick " + std::to_string(s->start_ticks)
                      : std::string("no process held it")));
    }
  }
  if (!judged) judge_final();
  return at_final;
}

Judgement JudgeLiveness(const HostModel& truth, std::int64_t pid, std::uint64_t start_ticks,
                        const LivenessVerdict& verdict) {
  if (verdict.status != LivenessStatus::kAlive) return {};
  std::optional<StatFields> s = truth.Stat(pid);
  const std::string who =
      "pid " + std::to_string(pid) + " (start tick " + std::to_string(start_ticks) + ")";
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
