// SPDX-License-Identifier: Apache-2.0
// `proctape minimize` (`docs/explore.md`, "Minimize"): delta debugging over the
// host model of one recorded check. The smallest host found on which the
// identical resolver (or liveness check), re-run on the same request under the
// same kernel events (those of a recording derived by explore), reaches the
// same verdict: the same status, and the same process named (for RESOLVED the
// pid and start tick, for a fail-closed verdict its subject: the near miss of a
// NO_MATCH, the root that restarted, the pid reused).
//
//   1. the target: the check run on the whole model with its events must
//      give the recorded verdict (else nothing is minimized: the verdict came
//      from something the model does not hold, a race between two frames);
//   2. processes: ddmin (Zeller and Hildebrandt) over the model's pids, in
//      listing order: chunks, then complements, then finer chunks;
//   3. environ: of each process kept, the entries other than the token
//      variable's are dropped, where the verdict stays.
//
// Each candidate costs one run on a host of its size (the event context is
// built from one index of the tree: linear), so a reduction costs what
// ddmin's runs hold, not their square.
//
// A reduced run keeps the events where the original run had them: each of
// its calls is matched to the next call of the original run with the same
// operation, pid and file (explore/model_evidence.h, `original`), the events
// up to that point applied before it. A candidate is kept only if every call
// matched, every event applied, and the verdict is the target.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/failure.h"
#include "explore/bound.h"
#include "explore/search.h"

namespace proctape::explore {

struct Minimized {
  CheckOutcome target;                  // the verdict kept
  std::unique_ptr<CheckSetup> reduced;  // the reduced host, set up
  History history;                      // the events, at the reduced run's points
  std::size_t processes_before = 0;
  std::size_t processes_after = 0;
  std::uint64_t calls_before = 0;  // the check's calls on the whole model
  std::uint64_t calls_after = 0;
  std::uint64_t runs = 0;  // checks run by the reduction
  // The bound that ended the reduction early: the host kept holds the
  // verdict, but a smaller one may too (kNone: it ran to its end).
  Stop stopped = Stop::kNone;
};

// Null, with *failure (kVerdictChanged: one line saying why), when step 1
// fails. `progress` is called as each run starts.
// `bound` (may be null) is charged every run, as explore charges it
// (explore/bound.h); once it is reached no candidate is tried: the
// reduction keeps what it has.
std::unique_ptr<Minimized> Minimize(const CheckSetup& setup, const History& history,
                                    const std::function<void(std::uint64_t runs)>& progress,
                                    Failure* failure, RunBound* bound = nullptr);

}  // namespace proctape::explore
