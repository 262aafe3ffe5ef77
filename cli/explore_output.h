// SPDX-License-Identifier: Apache-2.0
// The output of `proctape explore`: the text summary and the --json
// document (ExploreReport, proto/explore.proto), the same numbers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cli/explore_bounds.h"
#include "explore/search.h"
#include "replay/token_mask.h"

namespace proctape {

struct ExploreOptions {
  std::string file;
  std::uint32_t depth = 2;
  std::uint64_t budget = 100000;
  std::string out;
  bool force = false;  // --force: files of an earlier run in `out` are replaced
  bool json = false;
  std::uint64_t seed = 0;
  bool has_seed = false;
  std::uint64_t check = 0;
  bool has_check = false;
  std::uint64_t examples = 0;  // --examples N: the N rarest outcomes' first histories
  explore::RunLimits limits;   // the whole run's bound (cli/explore_bounds.h)
};

// One explored check: its setup, what the search found, and the file each
// kept violation was written to ("" when not written).
struct CheckResult {
  std::unique_ptr<explore::CheckSetup> setup;
  explore::SearchReport report;
  std::vector<std::string> written;
  std::size_t derived_events = 0;  // the file's own events (explore/counterexample.h)
  // --examples: the rarest outcomes, their histories' count and file.
  struct Example {
    std::string outcome;
    std::uint64_t histories = 0;
    explore::History history;
    std::string file;
  };
  std::vector<Example> examples;
};

// What the checks found together: the last line and the exit status.
struct ExploreTotals {
  std::uint64_t run = 0;
  std::uint64_t pruned = 0;
  std::uint64_t violations = 0;
  std::uint64_t written = 0;  // counterexamples written to --out
};
ExploreTotals Totals(const std::vector<CheckResult>& results);

// `name` is the file's name as printed (escaped); `end`, what the whole
// run's bound left; `mask`, the file's tokens, with which the paths said
// (written files, --out) are masked (replay/token_mask.h).
void PrintExploreText(const ExploreOptions& o, const std::string& name,
                      const std::vector<CheckResult>& results, const RunEnd& end,
                      const TokenMask& mask);
void PrintExploreJson(const ExploreOptions& o, const std::string& name,
                      const std::vector<CheckResult>& results, const RunEnd& end,
                      const TokenMask& mask);

}  // namespace proctape
