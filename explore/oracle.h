// SPDX-License-Identifier: Apache-2.0
// The oracle of `proctape explore` (`docs/explore.md`, "The oracle"): whether a
// verdict was right, decided from the host model's truth, never from the
// resolver.
//
//   RESOLVED(pid, start) is right only if, at the resolver's final re-read
//   of that pid's stat (the last point at which it read it: what it knew
//   when it decided), the model held that exact process (pid and start
//   tick), not dead (Z, X, x), its cmdline exactly the expected argv, its
//   environ exactly one entry named the token variable and that entry the
//   token, its exe identity the attested one, and a parent chain (at most
//   max_depth links) from it to the root, the root with the start tick of
//   the request and of the model before any event, not dead.
//   Two more rules make RESOLVED a claim about one process: every read of
//   the resolved pid since the deciding attempt's listing (stat, cmdline,
//   environ, exe) was answered by that process (pid and start tick: what
//   the resolver read was of the process it named), and no other process
//   that matched (argv, token, exe, beneath the root, not dead) at that
//   listing still matched, as the same process, at the final re-read
//   (`docs/resolver.md`, "The eight steps", step 6: "Exactly one match";
//   one that appeared after the
//   listing, or stopped matching before it was read, was not there to see).
//   Every other verdict is fail-closed and right.
//   ALIVE (a liveness check) is right only if, at its one stat read, the
//   process existed with that start tick and was not dead; DEAD and ERROR
//   are fail-closed.
//
// The truth at a point is the initial model with every event at or before
// that point applied (events depend on the model alone, never on answers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "core/verdict.h"
#include "explore/events.h"
#include "explore/host_model.h"

namespace proctape::explore {

struct Judgement {
  bool violation = false;
  std::string why;  // a violation: what the model held instead
};

// The model at schedule point `point`: `ctx.initial` with the events of
// `history` at or before it applied (and every exec event's earlier state).
HostModel TruthAt(const EventContext& ctx, const History& history, std::uint64_t point);

// What a check read of one pid, from its last listing on (a liveness check:
// from its start): that listing's point, the point of every read of the
// pid's files, and of the last read of its stat.
struct PidReads {
  std::optional<std::uint64_t> listing;
  std::vector<std::uint64_t> points;
  std::optional<std::uint64_t> last_stat;
};

// A resolution's verdict on the run of `history`, by every rule above.
Judgement JudgeResolutionRun(const EventContext& ctx, const History& history,
                             const Request& request, std::uint64_t initial_root_start,
                             const Verdict& verdict, const PidReads& reads);

// The rules at the final re-read alone, on the truth there
// (`final_read_seen` false: it never read the pid's stat, a violation for
// RESOLVED).
Judgement JudgeResolution(const HostModel& truth, const Request& request,
                          std::uint64_t initial_root_start, const Verdict& verdict,
                          bool final_read_seen);
Judgement JudgeLiveness(const HostModel& truth, std::int64_t pid, std::uint64_t start_ticks,
                        const LivenessVerdict& verdict);

}  // namespace proctape::explore
