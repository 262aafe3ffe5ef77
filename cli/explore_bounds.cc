// SPDX-License-Identifier: Apache-2.0
#include "cli/explore_bounds.h"

#include <algorithm>

#include "cli/options.h"
#include "core/proc_parse.h"

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

RunEnd EndOf(const explore::RunBound& bound, std::size_t unexplored, std::size_t first,
             std::size_t last) {
  RunEnd end;
  end.limits = bound.limits();
  end.stop = bound.stop();
  end.runs = bound.runs();
  end.steps = bound.steps();
  end.unexplored = unexplored;
  end.first_unexplored = first;
  end.last_unexplored = last;
  return end;
}

std::string ReachedClause(explore::Stop stop, const explore::RunLimits& limits) {
  if (stop == explore::Stop::kNone) return "";
  return " (" + explore::StopText(stop, limits) + " was reached)";
}

std::string UnexploredLine(const RunEnd& end) {
  if (end.unexplored == 0) return "";
  std::string which = end.unexplored == 1 ? "check " + std::to_string(end.first_unexplored)
                                          : std::to_string(end.first_unexplored) + " to " +
                                                std::to_string(end.last_unexplored);
  std::string line = "unexplored: " + Plural(end.unexplored, "check", "checks") + " (" + which +
                     "), not begun: " + explore::StopText(end.stop, end.limits) + " was reached";
  if (end.stop == explore::Stop::kTime) {
    line += " (a time limit depends on the machine: another run may explore more)";
  }
  return line;
}

}  // namespace proctape
