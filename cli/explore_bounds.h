// SPDX-License-Identifier: Apache-2.0
// The bounds of a whole `explore` or `minimize` run on the command line
// (explore/bound.h; docs/explore.md, "Bounds of a whole run"): the options
// that set them, and what the reports say a bound left.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

#include "explore/bound.h"

namespace proctape {

// --work-budget and --time-limit, and `runs_option` (explore's
// --total-budget, minimize's --budget) for the runs; defaults shown.
void AddRunBoundOptions(CLI::App* sub, explore::RunLimits* limits, const std::string& runs_option,
                        const std::string& runs_help);

// What the bound of a whole explore run left: the checks it never began.
struct RunEnd {
  explore::RunLimits limits;
  explore::Stop stop = explore::Stop::kNone;
  std::uint64_t runs = 0;            // runs the bound counted
  std::uint64_t steps = 0;           // steps it counted
  std::size_t unexplored = 0;        // checks not begun
  std::size_t first_unexplored = 0;  // the first of them (they follow each other)
  std::size_t last_unexplored = 0;
};
RunEnd EndOf(const explore::RunBound& bound, std::size_t unexplored, std::size_t first,
             std::size_t last);

// " (the work budget of 400000000 steps was reached)", or "" for kNone.
std::string ReachedClause(explore::Stop stop, const explore::RunLimits& limits);
// "unexplored: 65519 checks (17 to 65535), not begun: the total budget of
// 1000000 runs was reached", with a word on a time limit; "" when the bound
// left no check unexplored.
std::string UnexploredLine(const RunEnd& end);

}  // namespace proctape
