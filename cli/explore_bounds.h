// SPDX-License-Identifier: Apache-2.0
// The bounds of a whole `explore` or `minimize` run on the command line
// (explore/bound.h; docs/explore.md, "Bounds of a whole run"): the options
// that set them. What the reports say a bound left is explore/bound.h's.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "explore/bound.h"

namespace proctape {

// --work-budget and --time-limit, and `runs_option` (explore's
// --total-budget, minimize's --budget) for the runs; defaults shown.
void AddRunBoundOptions(CLI::App* sub, explore::RunLimits* limits, const std::string& runs_option,
                        const std::string& runs_help);

}  // namespace proctape
