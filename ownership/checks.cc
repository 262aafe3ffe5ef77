// SPDX-License-Identifier: Apache-2.0
// The checks that refuse an ownership plan before anything is decided
// (ownership/checks.h): the captures, the identities, the verifier
// and the bootstrap.
#include "ownership/checks.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "analyze/process_table.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "proto/summary.h"

namespace proctape::ownership {
namespace {

using Problem = v1::OwnershipProblem;

std::string Argv(const ProcessView& v) {
  std::string out;
  for (const std::string& a : v.argv) {
    if (!out.empty()) out.push_back(' ');
    out.append(Quote(a));
  }
  return out.empty() ? "empty" : out;
}

}  // namespace

void AddProblem(v1::OwnershipPlan* plan, v1::OwnershipProblem::Kind kind,
                const std::string& snapshot, std::uint64_t frame, std::int64_t pid,
                std::uint64_t start, const std::string& detail) {
  v1::OwnershipProblem* p = plan->add_problems();
  p->set_kind(kind);
  p->set_snapshot(snapshot);
  p->set_frame(Count32(frame));
  p->set_pid(Int32(pid));
  p->set_start_ticks(start);
  p->set_detail(detail);
}

// `docs/ownership.md` (introduction; "Refusals"): the baseline captures the
// processes that exist when the trusted verifier enters its fresh sandbox,
// before any repository command: the two files must be comparable (same boot,
// same pid namespace), whole (no frame cut by a bound), and in that order.
bool CheckCaptures(const Snapshot& baseline, const Snapshot& current, v1::OwnershipPlan* plan) {
  bool ok = true;
  for (const auto& [name, s] :
       {std::pair<const char*, const Snapshot*>{"baseline", &baseline}, {"current", &current}}) {
    if (s->frames.empty()) {
      // What the file is instead, in the words every view uses (FileHolds).
      AddProblem(plan, Problem::NO_FRAME, name, 0, 0, 0,
                 std::string("the ") + name + " holds no frame: it is " + FileHolds(*s));
      ok = false;
    }
  }
  if (!ok) return false;
  auto cut = [&](const char* name, const v1::Frame& f) {
    if (!f.cut_by_bounds()) return;
    AddProblem(plan, Problem::FRAME_CUT, name, f.index(), 0, 0,
               "the scan stopped at a bound (" + EscapeBytes(f.cut_reason()) +
                   "): the frame does not hold every process");
    ok = false;
  };
  for (const v1::Frame& f : baseline.frames) cut("baseline", f);
  cut("current", current.frames.back());
  const std::string& boot = baseline.header.host().boot_id();
  if (boot.empty() || boot != current.header.host().boot_id()) {
    AddProblem(plan, Problem::DIFFERENT_BOOT, "", 0, 0, 0,
               "boot ids differ or are unknown (baseline " + Quote(BootIdLine(boot)) +
                   ", current " + Quote(BootIdLine(current.header.host().boot_id())) +
                   "): pids and start ticks of two boots cannot be compared");
    ok = false;
  }
  const std::uint64_t ns = baseline.header.capturer_pid_ns_inode();
  if (ns == 0 || ns != current.header.capturer_pid_ns_inode()) {
    AddProblem(plan, Problem::DIFFERENT_PID_NAMESPACE, "", 0, 0, 0,
               "the captures saw pid namespaces " + std::to_string(ns) + " and " +
                   std::to_string(current.header.capturer_pid_ns_inode()) +
                   " (0: unknown): their pids cannot be compared");
    ok = false;
  }
  const v1::Frame& last = baseline.frames.back();
  const v1::Frame& now = current.frames.back();
  const bool same_capture =
      baseline.header.capture_start_mono_ns() == current.header.capture_start_mono_ns() &&
      baseline.header.capturer_pid() == current.header.capturer_pid();
  if (same_capture) {
    // One capture given twice (the same file, or a copy): say that, not its times.
    AddProblem(plan, Problem::BASELINE_NOT_BEFORE, "", 0, 0, 0,
               "the baseline and the current snapshot are the same capture (started at " +
                   std::to_string(current.header.capture_start_mono_ns()) + " ns by pid " +
                   std::to_string(current.header.capturer_pid()) +
                   "): give as --current a new capture, taken at cleanup time");
    ok = false;
  } else if (baseline.header.capture_start_mono_ns() >= current.header.capture_start_mono_ns() ||
             last.scan_end_mono_ns() >= now.scan_start_mono_ns()) {
    AddProblem(plan, Problem::BASELINE_NOT_BEFORE, "", 0, 0, 0,
               "the baseline (capture started at " +
                   std::to_string(baseline.header.capture_start_mono_ns()) +
                   " ns, last scan ended at " + std::to_string(last.scan_end_mono_ns()) +
                   " ns) was not captured strictly before the current snapshot (started at " +
                   std::to_string(current.header.capture_start_mono_ns()) + " ns, scanned from " +
                   std::to_string(now.scan_start_mono_ns()) + " ns; monotonic clock)");
    ok = false;
  }
  return ok;
}

// `docs/ownership.md`, "Refusals" (unreadable-identity): a process that may be
// in scope must have a readable identity in every frame the plan reads, and a
// pid the plan looks up in the baseline must have one there. A pid listed twice
// is as bad.
void CheckReadable(const std::vector<FrameView>& base, const FrameView& cur,
                   v1::OwnershipPlan* plan) {
  auto check = [&](const char* name, const FrameView& f) {
    std::map<std::int64_t, int> count;
    for (const v1::ProcessRecord& r : f.frame->processes()) ++count[r.pid()];
    for (const auto& [pid, n] : count) {
      if (n > 1) {
        AddProblem(plan, Problem::UNREADABLE_IDENTITY, name, f.frame->index(), pid, 0,
                   "pid " + std::to_string(pid) + " has " +
                       Plural(static_cast<std::uint64_t>(n), "record", "records") +
                       " in the frame");
      }
    }
    for (std::size_t i = 0; i < f.table.size(); ++i) {
      if (f.scope[i].scope != Scope::kUnknown) continue;
      AddProblem(plan, Problem::UNREADABLE_IDENTITY, name, f.frame->index(), f.table[i].pid,
                 f.table[i].start_ticks(), f.scope[i].why);
    }
  };
  for (const FrameView& f : base) check("baseline", f);
  check("current", cur);
  const FrameView& last = base.back();
  for (std::size_t i = 0; i < cur.table.size(); ++i) {
    if (cur.scope[i].scope != Scope::kIn) continue;
    const ProcessView* b = last.Find(cur.table[i].pid);
    if (b == nullptr || b->has_identity() || Vanished(b->record->stat().err())) continue;
    // Already reported above when the baseline's record may be in scope.
    if (last.scope[last.index.at(b->pid)].scope == Scope::kUnknown) continue;
    AddProblem(plan, Problem::UNREADABLE_IDENTITY, "baseline", last.frame->index(), b->pid, 0,
               "the baseline's record of pid " + std::to_string(b->pid) +
                   ", which is in scope now, has no start tick (" + b->stat_problem +
                   "): cannot tell whether it is the same process");
  }
}

// The verifier is the same process in both snapshots, and its whole parent
// chain is in each (a capture of one subtree, --root, has no such chain).
void CheckVerifier(const std::vector<FrameView>& base, const FrameView& cur,
                   const OwnershipRequest& request, v1::OwnershipPlan* plan) {
  const std::int64_t self = request.self_pid;
  const ProcessView* b = base.back().Find(self);
  const ProcessView* c = cur.Find(self);
  bool found = true;
  for (const auto& [name, v, f] :
       {std::tuple<const char*, const ProcessView*, const FrameView*>{"baseline", b, &base.back()},
        {"current", c, &cur}}) {
    if (v == nullptr || !v->has_identity()) {
      AddProblem(plan, Problem::VERIFIER_MISSING, name, f->frame->index(), self, 0,
                 "the verifier, pid " + std::to_string(self) + ", " +
                     (v == nullptr ? std::string("is not in the ") + name + " frame"
                                   : "has no identity in the " + std::string(name) + " frame (" +
                                         v->stat_problem + ")"));
      found = false;
    }
  }
  if (!found) return;
  if (b->start_ticks() != c->start_ticks()) {
    AddProblem(
        plan, Problem::VERIFIER_RESTARTED, "current", cur.frame->index(), self, c->start_ticks(),
        "the verifier was " + At(self, b->start_ticks()) + " in the baseline and is " +
            At(self, c->start_ticks()) + " now: another process holds its pid, or it restarted");
    return;
  }
  plan->set_self_start_ticks(c->start_ticks());
  for (const auto& [name, f] :
       {std::pair<const char*, const FrameView*>{"baseline", &base.back()}, {"current", &cur}}) {
    Chain chain = ParentChain(*f, self, std::nullopt);
    if (!chain.broken.empty()) {
      AddProblem(plan, Problem::ANCESTRY_BROKEN, name, f->frame->index(), self, c->start_ticks(),
                 "the verifier's parent chain is cut: " + chain.broken +
                     " (a capture of one subtree cannot show the runtime's processes)");
    }
  }
}

namespace {

// The bootstrap check of the baseline's frames (CheckBootstrap): each process
// the plan could exempt is judged in a frame; a process is named once, in the
// first frame that refuses it.
class Bootstrap {
 public:
  Bootstrap(const std::vector<FrameView>& base, std::int64_t self, std::int64_t capturer,
            std::uint64_t verifier_start, v1::OwnershipPlan* plan)
      : base_(base),
        self_(self),
        capturer_(capturer),
        verifier_start_(verifier_start),
        plan_(plan) {
    for (const FrameView& f : base) {
      capture_.push_back(ParentChain(f, capturer, self));
      ancestors_.push_back(ParentChain(f, self, std::nullopt));
    }
  }

  // `v`, a process of base[k]; `then` is said of it when it was out of scope
  // in that frame (its pair is in scope now). docs/ownership.md, "Started
  // before the verifier": the verifier's descendants other than the capture
  // are a command that had started; any other process the plan could exempt
  // must have started before the verifier, in an earlier clock tick, and be
  // in the frame before (it was not born between the baseline's frames).
  void Check(std::size_t k, const ProcessView& v, const std::string& then) {
    const FrameView& f = base_[k];
    if (v.pid == self_ || named_.count({v.pid, v.start_ticks()}) > 0) return;
    const Chain chain = ParentChain(f, v.pid, self_);
    if (!chain.broken.empty()) {
      Name(Problem::ANCESTRY_BROKEN, f, v,
           "cannot tell whether " + At(v.pid, v.start_ticks()) +
               " descends from the verifier: " + chain.broken);
      return;
    }
    if (chain.reached_stop) {
      const Chain& capture = capture_[k];
      const bool part_of_capture = capture.reached_stop && (Contains(capture.pids, v.pid) ||
                                                            Contains(chain.pids, capturer_));
      if (part_of_capture) return;
      Name(Problem::NOT_AT_BOOTSTRAP, f, v,
           "it descends from the verifier and is not part of the capture: a command had "
           "started before the baseline was taken (argv " +
               Argv(v) + ")");
      return;
    }
    if (Contains(ancestors_[k].pids, v.pid)) return;
    const bool born_between = k > 0 && !Holds(base_[k - 1], v);
    if (v.start_ticks() < verifier_start_ && !born_between) return;  // the runtime's, before
    const std::string verifier = At(self_, verifier_start_);
    std::string when = v.start_ticks() > verifier_start_ ? "started after the verifier " + verifier
                       : v.start_ticks() == verifier_start_
                           ? "started in the clock tick of the verifier " + verifier +
                                 " (which came first cannot be told)"
                           : "started before the verifier " + verifier;
    if (born_between) {
      when += std::string(v.start_ticks() < verifier_start_ ? " but" : " and") +
              " baseline frame " + std::to_string(base_[k - 1].frame->index()) +
              " does not hold it (born between the baseline's frames)";
    }
    Name(Problem::BASELINE_NOT_BEFORE, f, v,
         "it " + when + then +
             ", and is neither the verifier's ancestor nor part of the capture: it may be a "
             "process the verifier started before its baseline (setsid, a double fork: "
             "reparented, it no longer descends from it), so the baseline is not from before "
             "the verifier's first command (argv " +
             Argv(v) + ")");
  }

 private:
  static bool Holds(const FrameView& f, const ProcessView& v) {
    const ProcessView* p = f.Find(v.pid);
    return p != nullptr && p->has_identity() && p->start_ticks() == v.start_ticks();
  }
  void Name(Problem::Kind kind, const FrameView& f, const ProcessView& v,
            const std::string& detail) {
    named_.insert({v.pid, v.start_ticks()});
    AddProblem(plan_, kind, "baseline", f.frame->index(), v.pid, v.start_ticks(), detail);
  }

  const std::vector<FrameView>& base_;
  const std::int64_t self_, capturer_;
  const std::uint64_t verifier_start_;
  v1::OwnershipPlan* plan_;
  std::vector<Chain> capture_, ancestors_;  // per frame: capturer to verifier, verifier up
  std::set<std::pair<std::int64_t, std::uint64_t>> named_;
};

}  // namespace

// `docs/ownership.md`, "Refusals" (not-by-verifier, not-at-bootstrap): the
// snapshot must never be captured in the coding agent's sandbox or
// refreshed after bootstrap. The baseline's capturer must be the
// verifier or its descendant; in every baseline frame the verifier's only
// in-scope descendants are the capture itself (the processes between the
// verifier and the capturer, and the capturer's descendants), and every
// other in-scope process (the verifier's ancestors aside) started before the
// verifier; so did every process the baseline's last frame showed out of
// scope whose pair is in scope now.
void CheckBootstrap(const Snapshot& baseline, const std::vector<FrameView>& base,
                    const FrameView& cur, const OwnershipRequest& request,
                    v1::OwnershipPlan* plan) {
  const std::int64_t self = request.self_pid;
  const std::int64_t capturer = baseline.header.capturer_pid();
  const FrameView& last = base.back();
  Chain to_self = ParentChain(last, capturer, self);
  if (!to_self.reached_stop) {
    AddProblem(plan, Problem::NOT_BY_VERIFIER, "baseline", last.frame->index(), capturer, 0,
               "the baseline was captured by pid " + std::to_string(capturer) +
                   ", which is not the verifier or its descendant in the baseline" +
                   (to_self.broken.empty() ? std::string() : " (" + to_self.broken + ")"));
    return;
  }
  Bootstrap check(base, self, capturer, plan->self_start_ticks(), plan);
  for (std::size_t k = 0; k < base.size(); ++k) {
    const FrameView& f = base[k];
    for (std::size_t i = 0; i < f.table.size(); ++i) {
      if (f.scope[i].scope == Scope::kIn) check.Check(k, f.table[i], "");
    }
  }
  // A process out of scope in the baseline (another cgroup, another uid)
  // and in scope now would be kept by its pair all the same.
  const Chain now_ancestors = ParentChain(cur, self, std::nullopt);
  for (std::size_t i = 0; i < cur.table.size(); ++i) {
    const ProcessView& c = cur.table[i];
    if (cur.scope[i].scope != Scope::kIn || Contains(now_ancestors.pids, c.pid)) continue;
    auto b = last.index.find(c.pid);
    if (b == last.index.end() || last.scope[b->second].scope == Scope::kIn) continue;
    const ProcessView& then = last.table[b->second];
    if (!then.has_identity() || then.start_ticks() != c.start_ticks()) continue;
    check.Check(base.size() - 1, then,
                " (out of scope in the baseline: " + last.scope[b->second].why + "; in scope now)");
  }
}

}  // namespace proctape::ownership
