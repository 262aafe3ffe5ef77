// SPDX-License-Identifier: Apache-2.0
// The checks that refuse an ownership plan before anything is decided
// (internal to ownership/*.cc; docs/ownership.md, "Refusals"). Each
// adds its problems to `plan`; the planner (ownership.cc) stops at the first
// check that added one. The scope's checks are in ownership_scope.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ownership/ownership.h"
#include "ownership/frames.h"

namespace proctape::ownership {

// A problem of `kind` about (pid, start) of frame `frame` of `snapshot`
// ("baseline", "current", or "" for both), added to `plan`.
void AddProblem(v1::OwnershipPlan* plan, v1::OwnershipProblem::Kind kind,
                const std::string& snapshot, std::uint64_t frame, std::int64_t pid,
                std::uint64_t start, const std::string& detail);

// Both files hold a frame, none cut by a bound, of one boot and one pid
// namespace, the baseline strictly before the current. False (with the
// problems added) when they cannot be compared.
bool CheckCaptures(const Snapshot& baseline, const Snapshot& current, v1::OwnershipPlan* plan);

// Every process that may be in scope has a readable identity in every frame
// read, and a pid listed twice is unreadable.
void CheckReadable(const std::vector<FrameView>& base, const FrameView& cur,
                   v1::OwnershipPlan* plan);

// The verifier (request.self_pid) is the same process in the baseline's
// last frame and in `cur`, with its whole parent chain in each; sets the
// plan's self_start_ticks.
void CheckVerifier(const std::vector<FrameView>& base, const FrameView& cur,
                   const OwnershipRequest& request, v1::OwnershipPlan* plan);

// The baseline was taken at bootstrap: by the verifier or its descendant,
// with no other process of the verifier's in any baseline frame, and every
// process it could exempt (in scope in a baseline frame, or in scope in
// `cur` by a pair of the baseline's last frame) started before the verifier
// (plan->self_start_ticks(), set by CheckVerifier) and not between the
// baseline's frames; the verifier's ancestors and the capture aside.
void CheckBootstrap(const Snapshot& baseline, const std::vector<FrameView>& base,
                    const FrameView& cur, const OwnershipRequest& request, v1::OwnershipPlan* plan);

}  // namespace proctape::ownership
