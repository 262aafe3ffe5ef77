// SPDX-License-Identifier: Apache-2.0
#include "cli/explore_bounds.h"

#include <algorithm>

#include "cli/options.h"

namespace proctape {

void AddRunBoundOptions(CLI::App* sub, explore::RunLimits* limits, const std::string& runs_option,
                        const std::string& runs_help) {
  limits->runs_name = runs_option.substr(2);
  std::replace(limits->runs_name.begin(), limits->runs_name.end(), '-', ' ');
  AddUnsigned(sub, runs_option, limits->runs, 1, std::uint64_t{1} << 40, runs_help)
      ->capture_default_str();
  AddUnsigned(sub, "--work-budget", limits->steps, 1, std::uint64_t{1} << 40,
              "steps of work in all, at most (counted, never timed)")
      ->capture_default_str();
  AddUnsigned(sub, "--time-limit", limits->time_s, 0, 86'400,
              "wall clock at most, 0: none (a last resort; the report says so)", "SECONDS")
      ->capture_default_str();
}

}  // namespace proctape
