// SPDX-License-Identifier: Apache-2.0
#include "ownership/scope.h"

#include <map>
#include <set>

#include "core/proc_parse.h"
#include "proto/summary.h"

namespace proctape::ownership {
namespace {

std::string UidText(const ProcessView& v) {
  std::optional<std::uint32_t> uid = v.real_uid();
  return uid ? "uid " + std::to_string(*uid) : "an unreadable uid";
}

// The process a frame shows at `pid`, described: "812@1200 \"bash\"".
std::string Described(const ProcessView& v) {
  return At(v.pid, v.start_ticks()) + " " + Quote(v.stat ? v.stat->comm : "");
}

}  // namespace

void CheckScope(const FrameView& cur, const OwnershipRequest& request, v1::OwnershipPlan* plan) {
  const std::int64_t self = request.self_pid;
  const ProcessView* v = cur.Find(self);
  if (v == nullptr) return;  // VERIFIER_MISSING says so
  const Classified& c = cur.scope[cur.index.at(self)];
  if (c.scope == Scope::kIn) return;
  std::size_t in = 0;
  for (const Classified& k : cur.scope) in += k.scope == Scope::kIn ? 1 : 0;
  v1::OwnershipProblem* p = plan->add_problems();
  p->set_kind(v1::OwnershipProblem::SCOPE_WITHOUT_VERIFIER);
  p->set_snapshot("current");
  p->set_frame(Count32(cur.frame->index()));
  p->set_pid(Int32(self));
  p->set_start_ticks(v->start_ticks());
  p->set_detail("the verifier, " + At(self, v->start_ticks()) + ", has " + UidText(*v) +
                " and cgroup " + (c.cgroup ? Quote(*c.cgroup) : std::string("unknown")) +
                ": --uid " + std::to_string(request.uid) + " --cgroup " + Quote(request.cgroup) +
                " is not its scope, and " + Plural(in, "process is", "processes are") +
                " in it (give the verifier's own uid and cgroup)");
}

void CheckSessions(const std::vector<FrameView>& base, const FrameView& cur,
                   const OwnershipRequest& request, v1::OwnershipPlan* plan,
                   std::vector<std::string>* warnings) {
  std::vector<std::int64_t> removed;
  for (const v1::OwnershipDecision& d : plan->decisions()) {
    if (d.action() == v1::OwnershipDecision::REMOVE) removed.push_back(d.pid());
  }
  const std::vector<OtherSession> others = OtherSessions(base, cur, request.self_pid, removed);
  std::size_t processes = 0;
  for (const OtherSession& o : others) {
    processes += o.removed.size();
    if (!request.force_scope) {
      v1::OwnershipProblem* p = plan->add_problems();
      p->set_kind(v1::OwnershipProblem::OTHER_SESSION);
      p->set_snapshot("current");
      p->set_frame(Count32(cur.frame->index()));
      p->set_pid(Int32(o.session));
      p->set_detail(o.Detail() + " (--force-scope plans them all the same)");
      continue;
    }
    for (v1::OwnershipDecision& d : *plan->mutable_decisions()) {
      for (const ProcessView* v : o.removed) {
        if (d.pid() != v->pid) continue;
        d.set_detail(d.detail() + "; of session " + std::to_string(o.session) +
                     ", older than the baseline and not the verifier's (--force-scope)");
      }
    }
  }
  if (!others.empty() && request.force_scope && warnings != nullptr) {
    warnings->push_back("--force-scope: " + Plural(processes, "process", "processes") + " of " +
                        Plural(others.size(), "session", "sessions") +
                        " older than the baseline and not the verifier's are planned for "
                        "removal: a repository command cannot have started them");
  }
}

void WarnOfTheRootCgroup(const OwnershipRequest& request, const v1::OwnershipPlan& plan,
                         std::vector<std::string>* warnings) {
  if (request.cgroup != "/" || warnings == nullptr) return;
  warnings->push_back(
      "--cgroup / is the root cgroup: outside a cgroup namespace it holds every process of uid " +
      std::to_string(request.uid) + " that no service manager placed elsewhere; the plan removes " +
      Plural(plan.removed(), "process", "processes") +
      ": check that the captures were taken inside the verifier's own cgroup namespace");
}

std::string OtherSession::Detail() const {
  std::string pids;
  for (std::size_t i = 0; i < removed.size() && i < 5; ++i) {
    pids += (i == 0 ? "" : ", ") + Described(*removed[i]);
  }
  if (removed.size() > 5) pids += ", ...";
  return "session " + std::to_string(session) + " (" + leader +
         ") is older than the baseline and held none of the verifier's processes then; " +
         Plural(removed.size(), "process", "processes") + " of it would be removed (" + pids +
         "): a repository command cannot join an older session, so these are another's (the "
         "runtime's, another login's)";
}

std::vector<OtherSession> OtherSessions(const std::vector<FrameView>& base, const FrameView& cur,
                                        std::int64_t self,
                                        const std::vector<std::int64_t>& removed) {
  // Every session the baseline shows, and those of the verifier and of its
  // descendants there (the capture and the processes between).
  std::set<std::int64_t> before, verifiers;
  for (const FrameView& f : base) {
    for (const ProcessView& v : f.table) {
      if (!v.stat) continue;
      before.insert(v.stat->session);
      if (ParentChain(f, v.pid, self).reached_stop) verifiers.insert(v.stat->session);
    }
  }
  if (const ProcessView* v = cur.Find(self); v != nullptr && v->stat) {
    verifiers.insert(v->stat->session);
  }
  // The leader in `cur` is a process the baseline never had: a new session.
  auto new_leader = [&](std::int64_t session) {
    const ProcessView* leader = cur.Find(session);
    if (leader == nullptr || !leader->stat) return false;
    for (const FrameView& f : base) {
      const ProcessView* b = f.Find(session);
      if (b != nullptr && b->stat && b->start_ticks() == leader->start_ticks()) return false;
    }
    return true;
  };
  std::map<std::int64_t, OtherSession> found;
  for (std::int64_t pid : removed) {
    const ProcessView* v = cur.Find(pid);
    if (v == nullptr || !v->stat) continue;
    const std::int64_t s = v->stat->session;
    if (before.count(s) == 0 || verifiers.count(s) > 0 || new_leader(s)) continue;
    OtherSession& o = found[s];
    o.session = s;
    o.removed.push_back(v);
  }
  std::vector<OtherSession> out;
  for (auto& [s, o] : found) {
    const ProcessView* leader = base.back().Find(s);
    o.leader = s == 0 ? "its leader is outside this pid namespace"
               : leader != nullptr && leader->stat
                   ? "its leader was " + Described(*leader) + " in the baseline"
                   : "its leader was gone already at the baseline";
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace proctape::ownership
