// The ownership planner of seed 002: the checks that may refuse a plan and
// the decision for every in-scope process. How a frame is read is in
// ownership_frames.cc, the text of a plan in ownership_render.cc.
#include "analyze/ownership.h"

#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "analyze/ownership_frames.h"
#include "analyze/ownership_scope.h"
#include "analyze/process_table.h"
#include "core/proc_parse.h"
#include "proto/summary.h"

namespace proctape {
namespace {

using Decision = v1::OwnershipDecision;
using Problem = v1::OwnershipProblem;
using ownership::At;
using ownership::Chain;
using ownership::Classified;
using ownership::Contains;
using ownership::FrameView;
using ownership::CheckScope;
using ownership::CheckSessions;
using ownership::ParentChain;
using ownership::Quote;
using ownership::Scope;
using ownership::WarnOfTheRootCgroup;
using ownership::Vanished;

class Planner {
 public:
  Planner(const Snapshot& baseline, const Snapshot& current, const OwnershipRequest& request,
          PathLookup& paths, std::vector<std::string>* warnings)
      : baseline_(baseline),
        current_(current),
        request_(request),
        paths_(paths),
        warnings_(warnings) {}

  v1::OwnershipPlan Run() {
    plan_.set_baseline_file(EscapeBytes(request_.baseline_name, 4096));
    plan_.set_current_file(EscapeBytes(request_.current_name, 4096));
    plan_.set_uid(request_.uid);
    plan_.set_cgroup(EscapedText(request_.cgroup));
    plan_.set_self_pid(Int32(request_.self_pid));
    plan_.set_baseline_capturer_pid(Int32(baseline_.header.capturer_pid()));
    plan_.set_current_capturer_pid(Int32(current_.header.capturer_pid()));
    const bool captures_ok = CheckCaptures();
    PlanOutputs();
    if (!captures_ok || !plan_.problems().empty()) return Refused();
    // The baseline's frames in order (the last is the one the plan uses),
    // then the current's last frame.
    for (const v1::Frame& f : baseline_.frames) base_.emplace_back(f, request_);
    cur_.emplace(current_.frames.back(), request_);
    plan_.set_baseline_frame(Count32(baseline_.frames.back().index()));
    plan_.set_current_frame(Count32(current_.frames.back().index()));
    CheckReadable();
    CheckVerifier();
    if (!plan_.problems().empty()) return Refused();
    CheckScope(*cur_, request_, &plan_);
    if (!plan_.problems().empty()) return Refused();
    CheckBootstrap();
    if (!plan_.problems().empty()) return Refused();
    Decide();
    CheckSessions(base_, *cur_, request_, &plan_, warnings_);
    if (!plan_.problems().empty()) return Refused();
    WarnOfTheRootCgroup(request_, plan_, warnings_);
    plan_.set_outcome(v1::OwnershipPlan::PLANNED);
    return plan_;
  }

 private:
  void Add(Problem::Kind kind, const std::string& snapshot, std::uint64_t frame, std::int64_t pid,
           std::uint64_t start, const std::string& detail) {
    Problem* p = plan_.add_problems();
    p->set_kind(kind);
    p->set_snapshot(snapshot);
    p->set_frame(Count32(frame));
    p->set_pid(Int32(pid));
    p->set_start_ticks(start);
    p->set_detail(detail);
  }

  v1::OwnershipPlan Refused() {
    plan_.set_outcome(v1::OwnershipPlan::REFUSED);
    plan_.clear_decisions();
    plan_.set_kept(0);
    plan_.set_removed(0);
    plan_.set_out_of_scope(0);
    plan_.set_exited(0);
    plan_.clear_outputs();
    plan_.set_outputs_present(0);
    plan_.set_outputs_absent(0);
    return plan_;
  }

  // Seed 002: "Missing parents now mean that the output is already absent;
  // existing symlink and non-directory parents still fail closed." Every
  // declared output, in the order given; one that fails closed is a problem
  // that refuses the plan.
  void PlanOutputs() {
    for (const std::string& path : request_.outputs) {
      v1::DeclaredOutput o = PlanDeclaredOutput(path, paths_);
      if (o.state() == v1::DeclaredOutput::FAIL_CLOSED) {
        Problem::Kind kind = o.err() != 0 || o.kind() == v1::DeclaredOutput::KIND_UNSPECIFIED
                                 ? Problem::OUTPUT_UNREADABLE
                             : o.kind() == v1::DeclaredOutput::SYMLINK
                                 ? Problem::OUTPUT_PARENT_SYMLINK
                                 : Problem::OUTPUT_PARENT_NOT_DIRECTORY;
        Add(kind, "", 0, 0, 0, "output " + Quote(path) + ": " + o.detail());
        plan_.mutable_problems(plan_.problems_size() - 1)->set_path(EscapedText(path));
      } else if (o.state() == v1::DeclaredOutput::PRESENT) {
        plan_.set_outputs_present(plan_.outputs_present() + 1);
      } else {
        plan_.set_outputs_absent(plan_.outputs_absent() + 1);
      }
      *plan_.add_outputs() = std::move(o);
    }
  }

  // Seed: "The repair captures runtime process lifetimes when the trusted
  // verifier enters its freshly provisioned sandbox, before any repository
  // command": the two files must be comparable (same boot, same pid
  // namespace), whole (no frame cut by a bound), and in that order.
  bool CheckCaptures() {
    bool ok = true;
    for (const auto& [name, s] : {std::pair<const char*, const Snapshot*>{"baseline", &baseline_},
                                  {"current", &current_}}) {
      if (s->frames.empty()) {
        Add(Problem::NO_FRAME, name, 0, 0, 0, std::string("the ") + name + " holds no frame");
        ok = false;
      }
    }
    if (!ok) return false;
    auto cut = [&](const char* name, const v1::Frame& f) {
      if (!f.cut_by_bounds()) return;
      Add(Problem::FRAME_CUT, name, f.index(), 0, 0,
          "the scan stopped at a bound (" + EscapeBytes(f.cut_reason()) +
              "): the frame does not hold every process");
      ok = false;
    };
    for (const v1::Frame& f : baseline_.frames) cut("baseline", f);
    cut("current", current_.frames.back());
    const std::string& boot = baseline_.header.host().boot_id();
    if (boot.empty() || boot != current_.header.host().boot_id()) {
      Add(Problem::DIFFERENT_BOOT, "", 0, 0, 0,
          "boot ids differ or are unknown (baseline " + Quote(boot) + ", current " +
              Quote(current_.header.host().boot_id()) +
              "): pids and start ticks of two boots cannot be compared");
      ok = false;
    }
    const std::uint64_t ns = baseline_.header.capturer_pid_ns_inode();
    if (ns == 0 || ns != current_.header.capturer_pid_ns_inode()) {
      Add(Problem::DIFFERENT_PID_NAMESPACE, "", 0, 0, 0,
          "the captures saw pid namespaces " + std::to_string(ns) + " and " +
              std::to_string(current_.header.capturer_pid_ns_inode()) +
              " (0: unknown): their pids cannot be compared");
      ok = false;
    }
    const v1::Frame& last = baseline_.frames.back();
    const v1::Frame& now = current_.frames.back();
    if (baseline_.header.capture_start_mono_ns() >= current_.header.capture_start_mono_ns() ||
        last.scan_end_mono_ns() >= now.scan_start_mono_ns()) {
      Add(Problem::BASELINE_NOT_BEFORE, "", 0, 0, 0,
          "the baseline (capture started at " +
              std::to_string(baseline_.header.capture_start_mono_ns()) +
              " ns, last scan ended at " + std::to_string(last.scan_end_mono_ns()) +
              " ns) was not captured strictly before the current snapshot (started at " +
              std::to_string(current_.header.capture_start_mono_ns()) + " ns, scanned from " +
              std::to_string(now.scan_start_mono_ns()) + " ns; monotonic clock)");
      ok = false;
    }
    return ok;
  }

  // Seed: "unreadable identities": a process that may be in scope must have a
  // readable identity in every frame the plan reads, and a pid the plan looks
  // up in the baseline must have one there. A pid listed twice is as bad.
  void CheckReadable() {
    auto check = [&](const char* name, const FrameView& f) {
      std::map<std::int64_t, int> count;
      for (const v1::ProcessRecord& r : f.frame->processes()) ++count[r.pid()];
      for (const auto& [pid, n] : count) {
        if (n > 1) {
          Add(Problem::UNREADABLE_IDENTITY, name, f.frame->index(), pid, 0,
              "pid " + std::to_string(pid) + " has " +
                  Plural(static_cast<std::uint64_t>(n), "record", "records") + " in the frame");
        }
      }
      for (std::size_t i = 0; i < f.table.size(); ++i) {
        if (f.scope[i].scope != Scope::kUnknown) continue;
        Add(Problem::UNREADABLE_IDENTITY, name, f.frame->index(), f.table[i].pid,
            f.table[i].start_ticks(), f.scope[i].why);
      }
    };
    for (const FrameView& f : base_) check("baseline", f);
    check("current", *cur_);
    const FrameView& last = base_.back();
    for (std::size_t i = 0; i < cur_->table.size(); ++i) {
      if (cur_->scope[i].scope != Scope::kIn) continue;
      const ProcessView* b = last.Find(cur_->table[i].pid);
      if (b == nullptr || b->has_identity() || Vanished(b->record->stat().err())) continue;
      // Already reported above when the baseline's record may be in scope.
      if (last.scope[last.index.at(b->pid)].scope == Scope::kUnknown) continue;
      Add(Problem::UNREADABLE_IDENTITY, "baseline", last.frame->index(), b->pid, 0,
          "the baseline's record of pid " + std::to_string(b->pid) +
              ", which is in scope now, has no start tick (" + b->stat_problem +
              "): cannot tell whether it is the same process");
    }
  }

  // The verifier is the same process in both snapshots, and its whole parent
  // chain is in each (a capture of one subtree, --root, has no such chain).
  void CheckVerifier() {
    const std::int64_t self = request_.self_pid;
    const ProcessView* b = base_.back().Find(self);
    const ProcessView* c = cur_->Find(self);
    bool found = true;
    for (const auto& [name, v, f] :
         {std::tuple<const char*, const ProcessView*, const FrameView*>{"baseline", b, &base_.back()},
          {"current", c, &*cur_}}) {
      if (v == nullptr || !v->has_identity()) {
        Add(Problem::VERIFIER_MISSING, name, f->frame->index(), self, 0,
            "the verifier, pid " + std::to_string(self) + ", " +
                (v == nullptr ? std::string("is not in the ") + name + " frame"
                              : "has no identity in the " + std::string(name) + " frame (" +
                                    v->stat_problem + ")"));
        found = false;
      }
    }
    if (!found) return;
    if (b->start_ticks() != c->start_ticks()) {
      Add(Problem::VERIFIER_RESTARTED, "current", cur_->frame->index(), self, c->start_ticks(),
          "the verifier was " + At(self, b->start_ticks()) + " in the baseline and is " +
              At(self, c->start_ticks()) +
              " now: another process holds its pid, or it restarted");
      return;
    }
    plan_.set_self_start_ticks(c->start_ticks());
    for (const auto& [name, f] : {std::pair<const char*, const FrameView*>{"baseline", &base_.back()},
                                  {"current", &*cur_}}) {
      Chain chain = ParentChain(*f, self, std::nullopt);
      if (!chain.broken.empty()) {
        Add(Problem::ANCESTRY_BROKEN, name, f->frame->index(), self, c->start_ticks(),
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
  void CheckBootstrap() {
    const std::int64_t self = request_.self_pid;
    const std::int64_t capturer = baseline_.header.capturer_pid();
    const FrameView& last = base_.back();
    Chain to_self = ParentChain(last, capturer, self);
    if (!to_self.reached_stop) {
      Add(Problem::NOT_BY_VERIFIER, "baseline", last.frame->index(), capturer, 0,
          "the baseline was captured by pid " + std::to_string(capturer) +
              ", which is not the verifier or its descendant in the baseline" +
              (to_self.broken.empty() ? std::string() : " (" + to_self.broken + ")"));
      return;
    }
    for (const FrameView& f : base_) {
      const Chain capture = ParentChain(f, capturer, self);
      for (std::size_t i = 0; i < f.table.size(); ++i) {
        const ProcessView& v = f.table[i];
        if (f.scope[i].scope != Scope::kIn || v.pid == self) continue;
        Chain chain = ParentChain(f, v.pid, self);
        if (!chain.broken.empty()) {
          Add(Problem::ANCESTRY_BROKEN, "baseline", f.frame->index(), v.pid, v.start_ticks(),
              "cannot tell whether " + At(v.pid, v.start_ticks()) +
                  " descends from the verifier: " + chain.broken);
          continue;
        }
        if (!chain.reached_stop) continue;  // not the verifier's
        const bool part_of_capture = capture.reached_stop && (Contains(capture.pids, v.pid) ||
                                                              Contains(chain.pids, capturer));
        if (part_of_capture) continue;
        Add(Problem::NOT_AT_BOOTSTRAP, "baseline", f.frame->index(), v.pid, v.start_ticks(),
            "it descends from the verifier and is not part of the capture: a command had "
            "started before the baseline was taken (argv " + Argv(v) + ")");
      }
    }
  }

  static std::string Argv(const ProcessView& v) {
    std::string out;
    for (const std::string& a : v.argv) {
      if (!out.empty()) out.push_back(' ');
      out.append(Quote(a));
    }
    return out.empty() ? "empty" : out;
  }

  // Seed: "Cleanup preserves those exact PID/start-time pairs and still
  // removes new same-UID cgroup processes, including detached and
  // double-forked children. A recycled PID does not inherit the exemption."
  void Decide() {
    const std::int64_t self = request_.self_pid;
    const FrameView& base = base_.back();
    const Chain ancestors = ParentChain(*cur_, self, std::nullopt);
    for (std::size_t i = 0; i < cur_->table.size(); ++i) {
      const ProcessView& v = cur_->table[i];
      const Classified& c = cur_->scope[i];
      if (c.scope == Scope::kOut) {
        plan_.set_out_of_scope(plan_.out_of_scope() + 1);
      } else if (c.scope == Scope::kVanished) {
        plan_.set_exited(plan_.exited() + 1);
      }
      if (c.scope != Scope::kIn && !request_.all) continue;
      Decision* d = plan_.add_decisions();
      d->set_pid(Int32(v.pid));
      d->set_start_ticks(v.start_ticks());
      if (v.stat) {
        d->set_ppid(Int32(v.stat->ppid));
        d->set_state(EscapedText(std::string(1, v.stat->state)));
        d->set_comm(EscapedText(v.stat->comm));
      }
      for (const std::string& a : v.argv) d->add_argv(EscapedText(a));
      if (std::optional<std::uint32_t> uid = v.real_uid()) {
        d->set_uid_known(true);
        d->set_uid(*uid);
      }
      if (c.cgroup) d->set_cgroup(EscapedText(*c.cgroup));
      d->set_current_capturer(v.pid == current_.header.capturer_pid());
      if (c.scope == Scope::kOut) {
        d->set_action(Decision::OUT_OF_SCOPE);
        d->set_reason(c.out_reason);
        d->set_detail("out of scope: " + c.why);
        continue;
      }
      if (c.scope == Scope::kVanished) {
        d->set_action(Decision::EXITED);
        d->set_reason(Decision::VANISHED);
        d->set_detail("vanished during the scan (" + c.why + ")");
        continue;
      }
      const ProcessView* b = base.Find(v.pid);
      if (v.pid == self) {
        Keep(d, Decision::VERIFIER, "the verifier, the same process in both snapshots");
      } else if (Contains(ancestors.pids, v.pid)) {
        Keep(d, Decision::VERIFIER_ANCESTOR, "an ancestor of the verifier");
      } else if (b != nullptr && b->has_identity() && b->start_ticks() == v.start_ticks()) {
        Keep(d, Decision::IN_BASELINE,
             "the same (pid, start) is in the baseline: it ran before any repository command");
      } else if (b != nullptr && b->has_identity()) {
        d->set_baseline_start_ticks(b->start_ticks());
        Remove(d, Decision::PID_REUSED,
               "pid reused: the baseline had " + At(v.pid, b->start_ticks()) + ", now " +
                   At(v.pid, v.start_ticks()) + "; the exemption does not pass to it");
      } else {
        Remove(d, Decision::NEW,
               b == nullptr ? "not in the baseline: started after it"
                            : "not in the baseline (pid " + std::to_string(v.pid) +
                                  " vanished during its scan): started after it");
      }
    }
  }

  void Keep(Decision* d, Decision::Reason reason, const std::string& detail) {
    d->set_action(Decision::KEEP);
    d->set_reason(reason);
    d->set_detail(detail);
    plan_.set_kept(plan_.kept() + 1);
  }
  void Remove(Decision* d, Decision::Reason reason, std::string detail) {
    if (d->current_capturer()) detail += " (it took the current snapshot)";
    d->set_action(Decision::REMOVE);
    d->set_reason(reason);
    d->set_detail(detail);
    plan_.set_removed(plan_.removed() + 1);
  }

  const Snapshot& baseline_;
  const Snapshot& current_;
  const OwnershipRequest& request_;
  PathLookup& paths_;
  std::vector<std::string>* warnings_;
  v1::OwnershipPlan plan_;
  std::vector<FrameView> base_;
  std::optional<FrameView> cur_;
};

}  // namespace

v1::OwnershipPlan PlanOwnership(const Snapshot& baseline, const Snapshot& current,
                                const OwnershipRequest& request, PathLookup& paths,
                                std::vector<std::string>* warnings) {
  return Planner(baseline, current, request, paths, warnings).Run();
}

v1::OwnershipPlan PlanOwnership(const Snapshot& baseline, const Snapshot& current,
                                const OwnershipRequest& request,
                                std::vector<std::string>* warnings) {
  LivePathLookup live;
  return PlanOwnership(baseline, current, request, live, warnings);
}

}  // namespace proctape
