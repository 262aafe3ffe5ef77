// SPDX-License-Identifier: Apache-2.0
// The bound on the work of one whole `proctape explore` or `proctape minimize`
// run, across all its checks (docs/explore.md, "Bounds of a whole run"):
//
//   - runs: runs of the resolver started, every check's together (the unit
//     of explore's per-check --budget);
//   - work: steps, a unit that follows the real cost of a run whatever the
//     size of the host: one per call the model answers, one per name a
//     listing lists, one per process of every model copied or built (each
//     run starts from a copy; each check builds one from its frame), one
//     per history the search walks past without a run;
//   - time: the wall clock, a last resort for a machine slower than the
//     work budget assumes. What it stops depends on the machine: the report
//     says so, and the same file and options may then print other numbers.
//
// Runs and steps are counted, never timed, so what they cut is the same on
// every run of the same file and options. Once a bound is reached it stays
// reached: every later Spent() says so, and stop() names the first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace proctape::explore {

struct RunLimits {
  std::string runs_name = "total budget";  // the option that sets `runs`, as reports name it
  std::uint64_t runs = 1'000'000;
  std::uint64_t steps = 150'000'000;
  std::uint64_t time_s = 50;  // wall clock; 0: no time limit
};

// kRunCalls: one run reached kMaxRunCalls (explore/model_evidence.h).
enum class Stop { kNone, kRuns, kSteps, kTime, kRunCalls };

class RunBound {
 public:
  // `elapsed_ms`: milliseconds since the run began (empty: the steady clock
  // from construction; a test gives its own).
  explicit RunBound(RunLimits limits, std::function<std::uint64_t()> elapsed_ms = {});

  void Steps(std::uint64_t n) { steps_ += n; }
  void Run() { ++runs_; }
  // A bound of its own with `limits`, on this one's clock (the time limit
  // counts from the start of the whole run).
  RunBound OnSameClock(RunLimits limits) const { return RunBound(limits, elapsed_ms_); }
  // Counts what `other` counted (a check run on its own bound, taken as if
  // run on this one: explore/in_order.h), reaching no bound by itself.
  void Absorb(const RunBound& other) {
    runs_ += other.runs_;
    steps_ += other.steps_;
  }
  // Whether a bound is reached (the time is read every 64th call).
  bool Spent();

  Stop stop() const { return stop_; }
  std::uint64_t runs() const { return runs_; }
  std::uint64_t steps() const { return steps_; }
  const RunLimits& limits() const { return limits_; }

 private:
  RunLimits limits_;
  std::function<std::uint64_t()> elapsed_ms_;
  std::uint64_t runs_ = 0;
  std::uint64_t steps_ = 0;
  std::uint64_t asked_ = 0;
  Stop stop_ = Stop::kNone;
};

// "the total budget of 1000000 runs", "the work budget of 400000000 steps",
// "the time limit of 50 s": the bound `stop` names, as the reports say it
// ("" for kNone).
std::string StopText(Stop stop, const RunLimits& limits);
// "total budget", "work budget", "time limit" ("" for kNone): --json's word.
std::string StopWord(Stop stop, const RunLimits& limits);

// What the bound of a whole explore run left: the checks it never began.
struct RunEnd {
  RunLimits limits;
  Stop stop = Stop::kNone;
  std::uint64_t runs = 0;            // runs the bound counted
  std::uint64_t steps = 0;           // steps it counted
  std::size_t unexplored = 0;        // checks not begun
  std::size_t first_unexplored = 0;  // the first of them (they follow each other)
  std::size_t last_unexplored = 0;
};
RunEnd EndOf(const RunBound& bound, std::size_t unexplored, std::size_t first, std::size_t last);

// " (the work budget of 400000000 steps was reached)", or "" for kNone.
std::string ReachedClause(Stop stop, const RunLimits& limits);
// "unexplored: 65519 checks (17 to 65535), not begun: the total budget of
// 1000000 runs was reached", with a word on a time limit; "" when the bound
// left no check unexplored.
std::string UnexploredLine(const RunEnd& end);

}  // namespace proctape::explore
