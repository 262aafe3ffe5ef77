// SPDX-License-Identifier: Apache-2.0
#include "explore/bound.h"

#include "core/proc_parse.h"
#include "explore/model_evidence.h"

#include <chrono>
#include <utility>

namespace proctape::explore {

RunBound::RunBound(RunLimits limits, std::function<std::uint64_t()> elapsed_ms)
    : limits_(limits), elapsed_ms_(std::move(elapsed_ms)) {
  if (!elapsed_ms_) {
    const auto start = std::chrono::steady_clock::now();
    elapsed_ms_ = [start] {
      return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                            std::chrono::steady_clock::now() - start)
                                            .count());
    };
  }
}

bool RunBound::Spent() {
  if (stop_ != Stop::kNone) return true;
  if (runs_ >= limits_.runs) {
    stop_ = Stop::kRuns;
  } else if (steps_ >= limits_.steps) {
    stop_ = Stop::kSteps;
  } else if (limits_.time_s != 0 && asked_++ % 64 == 0 && elapsed_ms_() >= limits_.time_s * 1000) {
    stop_ = Stop::kTime;
  }
  return stop_ != Stop::kNone;
}

std::string StopText(Stop stop, const RunLimits& limits) {
  switch (stop) {
    case Stop::kNone: return "";
    case Stop::kRuns:
      return "the " + limits.runs_name + " of " + Plural(limits.runs, "run", "runs");
    case Stop::kSteps: return "the work budget of " + Plural(limits.steps, "step", "steps");
    case Stop::kTime: return "the time limit of " + std::to_string(limits.time_s) + " s";
    case Stop::kRunCalls:
      return "the limit of " + std::to_string(kMaxRunCalls) + " calls in one run";
  }
  return "";
}

std::string StopWord(Stop stop, const RunLimits& limits) {
  switch (stop) {
    case Stop::kNone: return "";
    case Stop::kRuns: return limits.runs_name;
    case Stop::kSteps: return "work budget";
    case Stop::kTime: return "time limit";
    case Stop::kRunCalls: return "run calls";
  }
  return "";
}

RunEnd EndOf(const RunBound& bound, std::size_t unexplored, std::size_t first, std::size_t last) {
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

std::string ReachedClause(Stop stop, const RunLimits& limits) {
  if (stop == Stop::kNone) return "";
  return " (" + StopText(stop, limits) + " was reached)";
}

std::string UnexploredLine(const RunEnd& end) {
  if (end.unexplored == 0) return "";
  std::string which = end.unexplored == 1 ? "check " + std::to_string(end.first_unexplored)
                                          : std::to_string(end.first_unexplored) + " to " +
                                                std::to_string(end.last_unexplored);
  std::string line = "unexplored: " + Plural(end.unexplored, "check", "checks") + " (" + which +
                     "), not begun: " + StopText(end.stop, end.limits) + " was reached";
  if (end.stop == Stop::kTime) {
    line += " (a time limit depends on the machine: another run may explore more)";
  }
  return line;
}

}  // namespace proctape::explore
