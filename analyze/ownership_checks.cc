// The checks that refuse an ownership plan before anything is decided
// (analyze/ownership_checks.h): the captures, the identities, the verifier
// and the bootstrap.
#include "analyze/ownership_checks.h"

#include <map>
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

// Seed: "The repair captures runtime process lifetimes when the trusted
// verifier enters its freshly provisioned sandbox, before any repository
// command": the two files must be comparable (same boot, same pid
// namespace), whole (no frame cut by a bound), and in that order.
bool CheckCaptures(const Snapshot& baseline, const Snapshot& current, v1::OwnershipPlan* plan) {
  bool ok = true;
  for (const auto& [name, s] : {std::pair<const char*, const Snapshot*>{"baseline", &baseline},
                                {"current", &current}}) {
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
        "boot ids differ or are unknown (baseline " + Quote(boot) + ", current " +
            Quote(current.header.host().boot_id()) +
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

// Seed: "unreadable identities": a process that may be in scope must have a
// readable identity in every frame the plan reads, and a pid the plan looks
// up in the baseline must have one there. A pid listed twice is as bad.
void CheckReadable(const std::vector<FrameView>& base, const FrameView& cur,
                   v1::OwnershipPlan* plan) {
  auto check = [&](const char* name, const FrameView& f) {
    std::map<std::int64_t, int> count;
    for (const v1::ProcessRecord& r : f.frame->processes()) ++count[r.pid()];
    for (const auto& [pid, n] : count) {
      if (n > 1) {
        AddProblem(plan, Problem::UNREADABLE_IDENTITY, name, f.frame->index(), pid, 0,
            "pid " + std::to_string(pid) + " has " +
                Plural(static_cast<std::uint64_t>(n), "record", "records") + " in the frame");
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
    AddProblem(plan, Problem::VERIFIER_RESTARTED, "current", cur.frame->index(), self, c->start_ticks(),
        "the verifier was " + At(self, b->start_ticks()) + " in the baseline and is " +
            At(self, c->start_ticks()) +
            " now: another process holds its pid, or it restarted");
    return;
  }
  plan->set_self_start_ticks(c->start_ticks());
  for (const auto& [name, f] : {std::pair<const char*, const FrameView*>{"baseline", &base.back()},
                                {"current", &cur}}) {
    Chain chain = ParentChain(*f, self, std::nullopt);
    if (!chain.broken.empty()) {
      AddProblem(plan, Problem::ANCESTRY_BROKEN, name, f->frame->index(), self, c->start_ticks(),
          "the verifier's parent chain is cut: " + chain.broken +
              " (a capture of one subtree cannot show the runtime's processes)");
    }
  }
}

// Seed: "The snapshot must never be captured in the coding agent's sandbox
// or refreshed after bootstrap." The baseline's capturer must be the
// verifier or its descendant, and in every baseline frame the verifier's
// only in-scope descendants are the capture itself: the processes between
// the verifier and the capturer, and the capturer's descendants.
void CheckBootstrap(const Snapshot& baseline, const std::vector<FrameView>& base,
                    const OwnershipRequest& request, v1::OwnershipPlan* plan) {
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
  for (const FrameView& f : base) {
    const Chain capture = ParentChain(f, capturer, self);
    for (std::size_t i = 0; i < f.table.size(); ++i) {
      const ProcessView& v = f.table[i];
      if (f.scope[i].scope != Scope::kIn || v.pid == self) continue;
      Chain chain = ParentChain(f, v.pid, self);
      if (!chain.broken.empty()) {
        AddProblem(plan, Problem::ANCESTRY_BROKEN, "baseline", f.frame->index(), v.pid, v.start_ticks(),
            "cannot tell whether " + At(v.pid, v.start_ticks()) +
                " descends from the verifier: " + chain.broken);
        continue;
      }
      if (!chain.reached_stop) continue;  // not the verifier's
      const bool part_of_capture = capture.reached_stop && (Contains(capture.pids, v.pid) ||
                                                            Contains(chain.pids, capturer));
      if (part_of_capture) continue;
      AddProblem(plan, Problem::NOT_AT_BOOTSTRAP, "baseline", f.frame->index(), v.pid, v.start_ticks(),
          "it descends from the verifier and is not part of the capture: a command had "
          "started before the baseline was taken (argv " + Argv(v) + ")");
    }
  }
}

}  // namespace proctape::ownership
