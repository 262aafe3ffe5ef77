// SPDX-License-Identifier: Apache-2.0
#include "explore/explore_recording.h"

#include <algorithm>
#include <filesystem>
#include <utility>

#include "explore/counterexample.h"

namespace proctape::explore {
namespace {

// Where check `check` is in the run, for its search's progress line.
struct CheckPlace {
  std::size_t check;
  std::size_t position;  // 1-based among the checks explored
  std::size_t checks;
};

// The names of the files the violations and examples of check `at.check`
// are written to under --out: DIR/STEM-checkC-violationV.ptape and
// DIR/STEM-checkC-OUTCOME.ptape.
void NameFound(const ExploreRequest& request, std::size_t check, ExploredCheck* c) {
  // Standard input's files are named as corpus add names it: "stdin".
  const std::string stem =
      request.file == "-" ? "stdin" : std::filesystem::path(request.file).stem().string();
  const std::string prefix =
      (std::filesystem::path(request.out) / (stem + "-check" + std::to_string(check) + "-"))
          .string();
  for (std::size_t v = 0; v < c->report.violations.size(); ++v) {
    c->written.push_back(
        request.out.empty() ? "" : prefix + "violation" + std::to_string(v + 1) + ".ptape");
  }
  for (const auto& [outcome, histories] : RarestOutcomes(c->report, request.examples)) {
    ExploredCheck::Example e{outcome, histories, c->report.first_by_outcome.at(outcome), ""};
    std::string word = outcome;
    std::replace(word.begin(), word.end(), ' ', '-');
    e.file = prefix + word + ".ptape";
    c->examples.push_back(std::move(e));
  }
}

// The search of one check within the run's bound.
MaybeFailure ExploreCheck(const Snapshot& snapshot, const ExploreRequest& request,
                          const std::string& name, CheckPlace at, RunBound& bound,
                          const ExploreProgress& progress, ExploredCheck* c) {
  Failure why;
  c->setup = SetUp(snapshot, at.check, &why);
  if (!c->setup) {
    // kUsage
    return Failure(why.kind, name + ": check " + std::to_string(at.check) + ": " + why.message);
  }
  bound.Steps(2 * c->setup->initial.listing().size());  // the model built, its context
  SearchOptions so;
  so.depth = request.depth;
  so.budget = request.budget;
  so.bound = &bound;
  so.seed = request.seed;
  so.progress = [&, at](std::uint64_t runs) {
    if (!progress) return;
    progress("check " + std::to_string(at.check) + " (" + std::to_string(at.position) + " of " +
             std::to_string(at.checks) + "): " + std::to_string(runs) + " of " +
             std::to_string(request.budget) + " runs");
  };
  c->report = Search(*c->setup, so);
  NameFound(request, at.check, c);
  return std::nullopt;
}

// The file's own events, when explore or minimize wrote it: read once.
std::size_t DerivedEvents(const Snapshot& snapshot) {
  Failure unparsed;
  if (std::optional<History> derived = DerivedHistory(snapshot, &unparsed)) {
    return derived->size();
  }
  return 0;
}

}  // namespace

ExploreTotals Totals(const std::vector<ExploredCheck>& checks) {
  ExploreTotals t;
  for (const ExploredCheck& c : checks) {
    t.run += c.report.run;
    t.pruned += c.report.pruned;
    t.violations += c.report.violation_count;
    for (const std::string& w : c.written) t.written += w.empty() ? 0 : 1;
    t.written += c.examples.size();
  }
  return t;
}

std::optional<ExploreRun> ExploreRecording(const Snapshot& snapshot, const ExploreRequest& request,
                                           const ExploreProgress& progress, Failure* failure) {
  ExploreRun run;
  run.request = request;
  run.mask = TokenMask::Of(snapshot);  // the names said may hold a piece of it
  run.source_name = std::filesystem::path(request.file).filename().string();
  const std::string name = run.mask.Shown(request.file);
  const std::size_t derived_events = DerivedEvents(snapshot);
  const std::size_t checks = request.check ? 1 : snapshot.resolutions.size();
  RunBound bound(request.limits);
  std::size_t unexplored = 0, first_unexplored = 0, last_unexplored = 0;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    if (request.check && i != *request.check) continue;
    if (bound.Spent()) {
      if (unexplored++ == 0) first_unexplored = i;
      last_unexplored = i;
      continue;
    }
    ExploredCheck c;
    c.derived_events = derived_events;
    const CheckPlace at{i, run.checks.size() + 1, checks};
    if (MaybeFailure bad = ExploreCheck(snapshot, request, name, at, bound, progress, &c)) {
      *failure = std::move(*bad);
      return std::nullopt;
    }
    run.checks.push_back(std::move(c));
  }
  run.end = EndOf(bound, unexplored, first_unexplored, last_unexplored);
  return run;
}

std::vector<FoundFile> FoundFiles(const ExploreRun& run) {
  std::vector<FoundFile> found;
  if (run.request.out.empty()) return found;
  for (const ExploredCheck& c : run.checks) {
    for (std::size_t v = 0; v < c.written.size(); ++v) {
      found.push_back({c.written[v], c.setup.get(), &c.report.violations[v].history});
    }
    for (const ExploredCheck::Example& e : c.examples) {
      found.push_back({e.file, c.setup.get(), &e.history});
    }
  }
  return found;
}

}  // namespace proctape::explore
