// SPDX-License-Identifier: Apache-2.0
// The search of `proctape explore` (`docs/explore.md`, "The search"): one
// recorded check (a resolution or a liveness check) re-run on its host model
// (explore/host_model.h) under every history of kernel events
// (explore/events.h) up to a depth, each verdict judged by the oracle
// (explore/oracle.h).
//
//   - a baseline run (no event) counts the schedule points N;
//   - depth 1: every event that can happen, at every point 0..N-1 (an exec
//     event completes at 1..N-1: at 0 it is the baseline);
//   - depth 2: each depth-1 history that ran, extended by every event that
//     can happen at each of its own points from the first event's on;
//   - order: points ascending, then events in Applicable()'s order, depth 1
//     before depth 2, each level walked by number, never listed in memory;
//     with a seed, each level is walked in the order i -> (a*i + b) mod n,
//     a and b drawn from it (std::mt19937_64), nothing random otherwise;
//   - pruning: once every event of a history is applied, the rest of its run
//     is decided by (point, answers so far, model, clock); a history that
//     reaches a key an earlier one reached is stopped and counted as pruned.
//     Keys are kept while a run answers as its parent (the history without
//     its last event) did, at most kMaxKeys of them. When a run answered
//     W calls from its event's point p as its parent did, the same event
//     (one that changes the model only: not an exec, not a clock jump) at
//     p+1..p+W reaches the same key there: those histories are counted as
//     pruned without being run;
//   - the budget caps the histories run (the resolver started on them: those
//     that end in a verdict, in a state already explored, or as not
//     applicable); histories skipped without a run cost nothing, and neither
//     do the baseline and the re-run of a pair's first event;
//   - the bound of the whole run (explore/bound.h), when given, is charged
//     every run (the baseline's too) and every history walked, and ends the
//     search as the budget does once it is reached (`stopped` says which).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "explore/bound.h"
#include "explore/check.h"
#include "explore/events.h"
#include "explore/host_model.h"
#include "explore/oracle.h"

namespace proctape::explore {

struct SearchOptions {
  std::uint32_t depth = 2;
  std::uint64_t budget = 100000;
  std::optional<std::uint64_t> seed;
  Checker checker;                                   // empty: the real checks
  std::function<void(std::uint64_t runs)> progress;  // as each run of the budget starts
  std::size_t keep_violations = 100;
  RunBound* bound = nullptr;  // the whole run's, shared by its checks (null: none)
};

struct Violation {
  History history;
  CheckOutcome outcome;
  std::string why;
};

struct SearchReport {
  std::uint64_t points = 0;  // the baseline's schedule points
  CheckOutcome baseline;
  bool baseline_cut = false;         // the baseline run reached kMaxRunCalls: no verdict
  std::uint64_t run = 0;             // histories run to their verdict
  std::uint64_t pruned = 0;          // stopped: a state already explored
  std::uint64_t skipped = 0;         // of the pruned, those known so without a run
  std::uint64_t budget_used = 0;     // runs the budget counted
  std::uint64_t not_applicable = 0;  // an event that could not happen there
  std::uint64_t left = 0;            // not walked: the budget was spent
  std::uint64_t unextended = 0;      // depth 2: run alone, its pairs not listed (budget spent)
  Stop stopped = Stop::kNone;        // the whole run's bound ended it before the budget did
  std::uint64_t violation_count = 0;
  // Histories run, the baseline counted, up to the first violation (0: none).
  std::uint64_t first_violation_after = 0;
  std::vector<Violation> violations;  // the first keep_violations
  // Outcome -> histories that ended in it, and the first of them (in the
  // search's order): `explore --examples` writes the rarest.
  std::map<std::string, std::uint64_t> by_outcome;
  std::map<std::string, History> first_by_outcome;
  // Event kinds of a history ("exit", "exit+gone") -> outcome -> histories.
  std::map<std::string, std::map<std::string, std::uint64_t>> by_kind;
};

inline constexpr std::size_t kMaxKeys = 4'000'000;

SearchReport Search(const CheckSetup& setup, const SearchOptions& options);

// Re-runs one history (for a counterexample): its outcome, and the judgement.
struct HistoryRun {
  CheckOutcome outcome;
  Judgement judgement;
  std::uint64_t calls = 0;
};
// The `n` outcomes reached by the fewest histories, fewest first (ties by
// name), with their counts.
std::vector<std::pair<std::string, std::uint64_t>> RarestOutcomes(const SearchReport& report,
                                                                  std::size_t n);

HistoryRun RunHistory(const CheckSetup& setup, const History& history, const Checker& checker);

}  // namespace proctape::explore
