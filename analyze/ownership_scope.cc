#include "analyze/ownership_scope.h"

#include <map>
#include <set>

#include "core/proc_parse.h"

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

std::optional<std::string> ScopeWithoutVerifier(const FrameView& cur, std::int64_t self,
                                                const OwnershipRequest& request) {
  const ProcessView* v = cur.Find(self);
  if (v == nullptr) return std::nullopt;  // VERIFIER_MISSING says so
  const Classified& c = cur.scope[cur.index.at(self)];
  if (c.scope == Scope::kIn) return std::nullopt;
  std::size_t in = 0;
  for (const Classified& k : cur.scope) in += k.scope == Scope::kIn ? 1 : 0;
  return "the verifier, " + At(self, v->start_ticks()) + ", has " + UidText(*v) + " and cgroup " +
         (c.cgroup ? Quote(*c.cgroup) : std::string("unknown")) + ": --uid " +
         std::to_string(request.uid) + " --cgroup " + Quote(request.cgroup) +
         " is not its scope, and " + Plural(in, "process is", "processes are") +
         " in it (give the verifier's own uid and cgroup)";
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
