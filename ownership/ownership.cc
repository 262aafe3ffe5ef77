// SPDX-License-Identifier: Apache-2.0
// The ownership planner (`docs/ownership.md`): the order of the checks that may
// refuse a plan, and the decision for every in-scope process. The checks of the
// captures, identities, verifier and bootstrap are in ownership_checks.cc,
// those of the scope in ownership_scope.cc; how a frame is read is in
// ownership_frames.cc, the text of a plan in ownership_render.cc.
#include "ownership/ownership.h"

#include <optional>
#include <utility>
#include <vector>

#include "ownership/checks.h"
#include "ownership/frames.h"
#include "ownership/scope.h"
#include "analyze/process_table.h"
#include "core/proc_parse.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

using Decision = v1::OwnershipDecision;
using Problem = v1::OwnershipProblem;
using ownership::AddProblem;
using ownership::At;
using ownership::Chain;
using ownership::CheckBootstrap;
using ownership::CheckCaptures;
using ownership::CheckReadable;
using ownership::CheckScope;
using ownership::CheckSessions;
using ownership::CheckVerifier;
using ownership::Classified;
using ownership::Contains;
using ownership::FrameView;
using ownership::ParentChain;
using ownership::Quote;
using ownership::Scope;
using ownership::WarnOfTheRootCgroup;

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
    // The files' names may hold a piece of their tokens (replay/token_mask.h).
    TokenMask mask = TokenMask::Of(baseline_);
    mask.Add(TokenMask::Of(current_));
    plan_.set_baseline_file(mask.Shown(request_.baseline_name));
    plan_.set_current_file(mask.Shown(request_.current_name));
    plan_.set_uid(request_.uid);
    plan_.set_cgroup(EscapedText(request_.cgroup));
    plan_.set_self_pid(Int32(request_.self_pid));
    // A file of no frame (a fingerprint file) captured nothing: its header's
    // pid is the writer's, not a capturer's, and is not shown (0).
    if (!baseline_.frames.empty()) {
      plan_.set_baseline_capturer_pid(Int32(baseline_.header.capturer_pid()));
    }
    if (!current_.frames.empty()) {
      plan_.set_current_capturer_pid(Int32(current_.header.capturer_pid()));
    }
    const bool captures_ok = CheckCaptures(baseline_, current_, &plan_);
    PlanOutputs();
    if (!captures_ok || !plan_.problems().empty()) return Refused();
    // The baseline's frames in order (the last is the one the plan uses),
    // then the current's last frame.
    for (const v1::Frame& f : baseline_.frames) base_.emplace_back(f, request_);
    cur_.emplace(current_.frames.back(), request_);
    plan_.set_baseline_frame(Count32(baseline_.frames.back().index()));
    plan_.set_current_frame(Count32(current_.frames.back().index()));
    CheckReadable(base_, *cur_, &plan_);
    CheckVerifier(base_, *cur_, request_, &plan_);
    if (!plan_.problems().empty()) return Refused();
    CheckScope(*cur_, request_, &plan_);
    if (!plan_.problems().empty()) return Refused();
    CheckBootstrap(baseline_, base_, *cur_, request_, &plan_);
    if (!plan_.problems().empty()) return Refused();
    Decide();
    CheckSessions(base_, *cur_, request_, &plan_, warnings_);
    if (!plan_.problems().empty()) return Refused();
    WarnOfTheRootCgroup(request_, plan_, warnings_);
    plan_.set_outcome(v1::OwnershipPlan::PLANNED);
    return plan_;
  }

 private:
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

  // `docs/ownership.md`, "Declared outputs": a missing parent means the output
  // is already absent; a parent that is a symbolic link or not a directory
  // fails closed. Every
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
        AddProblem(&plan_, kind, "", 0, 0, 0, "output " + Quote(path) + ": " + o.detail());
        plan_.mutable_problems(plan_.problems_size() - 1)->set_path(EscapedText(path));
      } else if (o.state() == v1::DeclaredOutput::PRESENT) {
        plan_.set_outputs_present(plan_.outputs_present() + 1);
      } else {
        plan_.set_outputs_absent(plan_.outputs_absent() + 1);
      }
      *plan_.add_outputs() = std::move(o);
    }
  }

  // `docs/ownership.md`, "Decisions": cleanup preserves the baseline's exact
  // (pid, start tick) pairs and still removes new same-uid cgroup processes,
  // detached and double-forked children included; a recycled pid does not
  // inherit the exemption.
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
