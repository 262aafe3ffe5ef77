// SPDX-License-Identifier: Apache-2.0
// The pipeline of `proctape explore FILE...` (docs/explore.md): every
// recorded check of each recording, read whole by the caller, set up on the
// host model of its frame (explore/check.h) and searched (explore/search.h)
// within the whole run's bound (explore/bound.h), every file's checks
// together: once it is reached, the checks after are not begun. The checks
// run on `jobs` threads, with the result of one (explore/in_order.h). Never reads the live /proc, never writes: with --out it
// names the files the violations and examples go to (FoundFiles), which the
// caller opens and writes (WriteDerived, explore/counterexample.h). Its text
// and --json output are explore/explore_report.h's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "explore/bound.h"
#include "explore/check.h"
#include "explore/search.h"
#include "format/reader.h"
#include "replay/token_mask.h"

namespace proctape::explore {

struct ExploreRequest {
  std::string file;  // as named on the command line ("-": standard input)
  std::uint32_t depth = 2;
  std::uint64_t budget = 100000;  // runs per check
  std::string out;                // --out DIR ("": nothing written)
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> check;  // explore only this check
  std::uint64_t examples = 0;          // the N rarest outcomes' first histories
  RunLimits limits;                    // the whole run's bound
  unsigned jobs = 1;                   // checks explored at once; 0: one per core
  Checker checker;                     // empty: the real checks (a test's mutant)
};

// One explored check: its setup, what the search found, and the file each
// kept violation is written to ("" without --out).
struct ExploredCheck {
  std::unique_ptr<CheckSetup> setup;
  SearchReport report;
  std::vector<std::string> written;
  std::size_t derived_events = 0;  // the file's own events (explore/counterexample.h)
  // --examples: the rarest outcomes, their histories' count and file.
  struct Example {
    std::string outcome;
    std::uint64_t histories = 0;
    History history;
    std::string file;
  };
  std::vector<Example> examples;
};

struct ExploreRun {
  ExploreRequest request;
  TokenMask mask;           // the file's tokens: the names said are masked with it
  std::string source_name;  // the file's name, its directory left out (unmasked)
  std::vector<ExploredCheck> checks;
  RunEnd end;  // what the whole run's bound left of this file (its runs and steps)
};

// What the checks found together: the last line and the exit status.
struct ExploreTotals {
  std::uint64_t run = 0;
  std::uint64_t pruned = 0;
  std::uint64_t violations = 0;
  std::uint64_t written = 0;  // counterexamples and examples written to --out
};
ExploreTotals Totals(const std::vector<ExploredCheck>& checks);

// What the search of one check reports as it runs: "check 3 (1 of 2): 40 of
// 100 runs" (escaped text, for a progress line).
using ExploreProgress = std::function<void(const std::string& line)>;

// Explores the checks of `snapshot` (the recording `request.file`, holding
// check `request.check` when one is named). Nullopt with *failure (kUsage,
// "FILE: check N: why", the name masked) when a check cannot be set up.
std::optional<ExploreRun> ExploreRecording(const Snapshot& snapshot, const ExploreRequest& request,
                                           const ExploreProgress& progress, Failure* failure);

// One of several recordings: its name (as `request.file` is) and contents.
struct RecordingToExplore {
  std::string file;
  const Snapshot* snapshot = nullptr;
};
// Explores them in the order given, as one run: one bound for all their
// checks (each run's `end` says what it left of its file, its runs and steps
// its own), a run per recording, each as ExploreRecording makes it alone when
// no bound is reached. `request.file` is ignored. Nullopt with *failure at the
// first check (in order) that cannot be set up.
std::optional<std::vector<ExploreRun>> ExploreRecordings(
    const std::vector<RecordingToExplore>& recordings, const ExploreRequest& request,
    const ExploreProgress& progress, Failure* failure);

// A file --out writes: a violation kept or an example, with what it holds.
struct FoundFile {
  std::string path;
  const CheckSetup* setup = nullptr;  // points into the run
  const History* history = nullptr;
};
// The STEM of the files --out writes for FILE `file`: its name without its
// directory and extension ("stdin" for "-").
std::string FoundStem(const std::string& file);
// The files of `run` in the order they are written: check by check, its
// violations, then its examples (none without --out).
std::vector<FoundFile> FoundFiles(const ExploreRun& run);

}  // namespace proctape::explore
