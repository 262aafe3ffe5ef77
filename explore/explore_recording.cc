// SPDX-License-Identifier: Apache-2.0
#include "explore/explore_recording.h"

#include <algorithm>
#include <filesystem>
#include <thread>
#include <utility>

#include "explore/counterexample.h"
#include "explore/in_order.h"

namespace proctape::explore {
namespace {

// Where check `check` is in the run, for its search's progress line.
struct CheckPlace {
  std::size_t check;
  std::size_t position;  // 1-based among the checks explored
  std::size_t checks;
};

// A check of one of the recordings explored together.
struct Task {
  std::size_t file;
  CheckPlace at;
};

// What a recording's checks share, and what the bound left of them.
struct FileState {
  std::string name;  // masked
  std::string said;  // its progress lines begin with it ("" for one file)
  std::size_t derived_events = 0;
  std::size_t last_task = 0;  // one past its last
  std::size_t unexplored = 0, first_unexplored = 0, last_unexplored = 0;
};

// The names of the files the violations and examples of check `at.check`
// are written to under --out: DIR/STEM-checkC-violationV.ptape and
// DIR/STEM-checkC-OUTCOME.ptape.
void NameFound(const ExploreRequest& request, std::size_t check, ExploredCheck* c) {
  const std::string stem = FoundStem(request.file);
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

// The search of one check within the run's bound; its progress line begins
// with `said` ("" or "FILE: ").
MaybeFailure ExploreCheck(const Snapshot& snapshot, const ExploreRequest& request,
                          const std::string& name, CheckPlace at, RunBound& bound,
                          const ExploreProgress* progress, const std::string& said,
                          ExploredCheck* c) {
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
  so.checker = request.checker;
  if (progress != nullptr && *progress) {
    so.progress = [&, at](std::uint64_t runs) {
      (*progress)(said + "check " + std::to_string(at.check) + " (" + std::to_string(at.position) +
                  " of " + std::to_string(at.checks) + "): " + std::to_string(runs) + " of " +
                  std::to_string(request.budget) + " runs");
    };
  }
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

std::string FoundStem(const std::string& file) {
  // Standard input's files are named as corpus add names it: "stdin".
  return file == "-" ? "stdin" : std::filesystem::path(file).stem().string();
}

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
  std::optional<std::vector<ExploreRun>> runs =
      ExploreRecordings({{request.file, &snapshot}}, request, progress, failure);
  if (!runs) return std::nullopt;
  return std::move(runs->front());
}

std::optional<std::vector<ExploreRun>> ExploreRecordings(
    const std::vector<RecordingToExplore>& recordings, const ExploreRequest& request,
    const ExploreProgress& progress, Failure* failure) {
  std::vector<ExploreRun> runs(recordings.size());
  std::vector<FileState> files(recordings.size());
  std::vector<Task> tasks;
  for (std::size_t f = 0; f < recordings.size(); ++f) {
    const Snapshot& snapshot = *recordings[f].snapshot;
    ExploreRun& run = runs[f];
    run.request = request;
    run.request.file = recordings[f].file;
    run.mask = TokenMask::Of(snapshot);  // the names said may hold a piece of it
    run.source_name = std::filesystem::path(run.request.file).filename().string();
    run.end.limits = request.limits;
    files[f].name = run.mask.Shown(run.request.file);
    files[f].said = recordings.size() > 1 ? files[f].name + ": " : "";
    files[f].derived_events = DerivedEvents(snapshot);
    const std::size_t checks = request.check ? 1 : snapshot.resolutions.size();
    for (std::size_t i = 0, position = 0; i < snapshot.resolutions.size(); ++i) {
      if (request.check && i != *request.check) continue;
      tasks.push_back({f, CheckPlace{i, ++position, checks}});
    }
    files[f].last_task = tasks.size();  // one past it
  }
  auto attempt = [&](std::size_t t, RunBound& bound, const ExploreProgress* said,
                     ExploredCheck* c) {
    const std::size_t f = tasks[t].file;
    c->derived_events = files[f].derived_events;
    return ExploreCheck(*recordings[f].snapshot, runs[f].request, files[f].name, tasks[t].at, bound,
                        said, files[f].said, c);
  };
  // What each file counted: the bound's counts before its first check.
  std::uint64_t runs_before = 0, steps_before = 0;
  auto decided = [&](std::size_t t, std::optional<ExploredCheck> c, const RunBound& bound) {
    FileState& file = files[tasks[t].file];
    if (c) {
      runs[tasks[t].file].checks.push_back(std::move(*c));
    } else {
      if (file.unexplored++ == 0) file.first_unexplored = tasks[t].at.check;
      file.last_unexplored = tasks[t].at.check;
    }
    if (t + 1 != file.last_task) return;
    RunEnd& end = runs[tasks[t].file].end;
    end = EndOf(bound, file.unexplored, file.first_unexplored, file.last_unexplored);
    end.runs -= runs_before;
    end.steps -= steps_before;
    runs_before = bound.runs();
    steps_before = bound.steps();
  };
  const unsigned jobs =
      request.jobs > 0 ? request.jobs : std::max(std::thread::hardware_concurrency(), 1u);
  RunBound bound(request.limits);
  if (MaybeFailure bad = DecideInOrder(tasks.size(), jobs, bound, attempt, decided, progress)) {
    *failure = std::move(*bad);
    return std::nullopt;
  }
  return runs;
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
