// Whether an ownership plan's scope (--uid, --cgroup) is the verifier's own
// (internal to analyze/ownership*.cc; docs/ownership.md, "Scope"). Seed 002's
// cleanup decides "every other same-UID cgroup member": members of the
// verifier's own uid and cgroup. A scope that does not hold the verifier is
// another scope (an empty one among them); one that would remove processes
// of an older session than the verifier's reaches beyond what a repository
// command can have started.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyze/ownership.h"
#include "analyze/ownership_frames.h"

namespace proctape::ownership {

// Why the current frame's scope is not the verifier's: --self (found, with
// an identity, in `cur`) is out of it. nullopt when it is in scope.
std::optional<std::string> ScopeWithoutVerifier(const FrameView& cur, std::int64_t self,
                                                const OwnershipRequest& request);

// A session older than the baseline, not the verifier's, holding processes
// the plan would remove.
struct OtherSession {
  std::int64_t session = 0;            // stat field 6: its leader's pid (0: outside the namespace)
  std::string leader;                  // how the baseline showed its leader, or why it did not
  std::vector<const ProcessView*> removed;  // in pid order
  std::string Detail() const;          // one sentence for the problem or the decisions
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
