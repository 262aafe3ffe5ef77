// SPDX-License-Identifier: Apache-2.0
// The checks of an explore run (every FILE's, one after the other) decided
// in their order within the whole run's bound (explore/bound.h), on `jobs`
// threads, with the result of one thread
// (docs/explore.md, "Several FILEs, every core").
//
// The search of one check is sequential; checks run in parallel. Each is run
// speculatively by a worker on a bound of its own (the limits less what the
// checks before it had counted when it began); then, in check order, the
// speculative result stands when the runs and steps counted before it, in
// check order, plus its own stay below the limits (counts only grow, so the
// end totals decide) and it reached no bound of its own: every Spent() of its
// search then answered as it would have on the whole run's bound, so the
// search did the same. Otherwise the check is run again, on this thread, on
// the whole run's bound itself, and the checks after it are decided as
// before. Runs and steps are so counted exactly as with one thread, and what
// they cut is the same; the time limit (the wall clock, from the start of the
// run for every worker) stays the machine's: a check its speculative run saw
// reach it is run again on the whole run's bound.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "core/failure.h"
#include "explore/bound.h"
#include "explore/explore_recording.h"

namespace proctape::explore {

// Runs task `task` (a check) on `bound`, into *check; `progress`: the line of
// its runs (null on a worker: only the calling thread says anything).
using CheckAttempt = std::function<MaybeFailure(
    std::size_t task, RunBound& bound, const ExploreProgress* progress, ExploredCheck* check)>;
// Task `task` decided, in order: its check (nullopt: not begun, the bound was
// reached before it), `bound` counting everything up to it.
using CheckDecided = std::function<void(std::size_t task, std::optional<ExploredCheck> check,
                                        const RunBound& bound)>;

// Decides tasks 0..tasks-1 in order on `bound`, `jobs` at once (1: each in
// turn on this thread, no other). The first task whose check fails to set
// up (in order, among those begun) ends it: its failure. `progress` is
// called on this thread only: with one job the runs of the check under way,
// with more the checks done ("12 of 80 checks explored, 2 at once").
MaybeFailure DecideInOrder(std::size_t tasks, unsigned jobs, RunBound& bound,
                           const CheckAttempt& attempt, const CheckDecided& decided,
                           const ExploreProgress& progress);

}  // namespace proctape::explore
