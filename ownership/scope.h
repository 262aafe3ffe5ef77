// SPDX-License-Identifier: Apache-2.0
// Whether an ownership plan's scope (--uid, --cgroup) is the verifier's own
// (internal to ownership/*.cc; docs/ownership.md, "Scope"). The
// cleanup decides the members of the
// verifier's own uid and cgroup. A scope that does not hold the verifier is
// another scope (an empty one among them); one that would remove processes
// of an older session than the verifier's reaches beyond what a repository
// command can have started.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ownership/ownership.h"
#include "ownership/frames.h"

namespace proctape::ownership {

// `docs/ownership.md`, "Scope": the cleanup decides every other same-uid cgroup
// member: of the verifier's uid and cgroup. When --self (found, with an
// identity, in `cur`) is out of scope, the scope is another's, or empty: a
// SCOPE_WITHOUT_VERIFIER problem is added to `plan`, saying what that scope
// holds.
void CheckScope(const FrameView& cur, const OwnershipRequest& request, v1::OwnershipPlan* plan);

// New processes of a session older than the baseline that is not the
// verifier's (OtherSessions, below) among the plan's REMOVE decisions: what
// a cleanup that ends every other same-uid cgroup member does to the
// runtime's keepalive (the introduction of docs/ownership.md). Each session is
// an OTHER_SESSION problem added to `plan`; with request.force_scope their
// decisions are marked instead and `warnings` (when given) says how many.
void CheckSessions(const std::vector<FrameView>& base, const FrameView& cur,
                   const OwnershipRequest& request, v1::OwnershipPlan* plan,
                   std::vector<std::string>* warnings);

// The root cgroup "/" holds, outside a cgroup namespace, every process no
// service manager placed in a cgroup of its own: a planned `plan` for it
// adds a warning (when `warnings` is given).
void WarnOfTheRootCgroup(const OwnershipRequest& request, const v1::OwnershipPlan& plan,
                         std::vector<std::string>* warnings);

// A session older than the baseline, not the verifier's, holding processes
// the plan would remove.
struct OtherSession {
  std::int64_t session = 0;  // stat field 6: its leader's pid (0: outside the namespace)
  std::string leader;        // how the baseline showed its leader, or why it did not
  std::vector<const ProcessView*> removed;  // in pid order
  std::string Detail() const;               // one sentence for the problem or the decisions
};

// A process keeps its parent's session or starts a new one (setsid); it
// never joins an older one. So a process of a session that existed at the
// baseline and held none of the verifier's processes then (the verifier and
// its descendants: the capture) was not started by a repository command,
// whatever it is now. `removed` are the pids the plan would remove; the
// sessions of theirs that are such are returned, by session id. A session
// whose leader in `cur` is itself new (the old session ended and its id was
// reused) is a new session.
std::vector<OtherSession> OtherSessions(const std::vector<FrameView>& base, const FrameView& cur,
                                        std::int64_t self,
                                        const std::vector<std::int64_t>& removed);

}  // namespace proctape::ownership
