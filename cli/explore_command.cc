// SPDX-License-Identifier: Apache-2.0
// `proctape explore FILE`: every recorded check of FILE re-run on a host
// model built from its frames under histories of kernel events (a process
// exits, a pid is reused, an exec is caught half done, a second match
// appears, the root restarts, the clock jumps), each verdict judged against
// the model's truth (explore/). Never reads the live /proc, never sleeps.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/explore_output.h"
#include "cli/exit_codes.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/progress.h"
#include "cli/recording_input.h"
#include "core/proc_parse.h"
#include "explore/counterexample.h"
#include "explore/search.h"
#include "format/reader.h"
#include "format/writer.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

using explore::CheckSetup;
using explore::SearchReport;
// Each counterexample and example the search found, written to --out under
// the output rule (docs/cli/outputs.md): every file checked (opened, its
// temporary made, and let go: a run may find hundreds, more than the
// descriptors it may hold) before any is written, so that one refused (it
// exists, without --force) leaves none written.
int WriteFound(const ExploreOptions& o, const Snapshot& snapshot, const std::string& base,
               const std::vector<CheckResult>& results) {
  struct Found {
    std::string path;
    const CheckSetup* setup;
    const explore::History* history;
  };
  std::vector<Found> found;
  for (const CheckResult& c : results) {
    for (std::size_t v = 0; v < c.written.size(); ++v) {
      found.push_back({c.written[v], c.setup.get(), &c.report.violations[v].history});
    }
    for (const CheckResult::Example& e : c.examples)
      found.push_back({e.file, c.setup.get(), &e.history});
  }
  auto open = [&o](const std::string& path, int* exit_code) {
    OutputRequest request;
    request.path = path;
    request.force = o.force;
    request.binary = true;
    return OpenOutput(request, "--out", {{"FILE", o.file}}, exit_code);
  };
  int exit_code = kExitOk;
  for (const Found& f : found) {
    if (!open(f.path, &exit_code)) return exit_code;
  }
  for (const Found& f : found) {
    std::unique_ptr<OutputFile> output = open(f.path, &exit_code);
    if (!output) return exit_code;
    auto writer = SnapshotWriter::Create(std::move(output), SnapshotWriter::Options{});
    const std::string failed = explore::WriteDerived(*writer, "explore", snapshot, base, *f.setup,
                                                     *f.history, explore::Checker{});
    if (!failed.empty()) return FailAbout(kExitIo, "--out", f.path, failed);
  }
  return kExitOk;
}

// The usage errors of --out and --examples, and --out DIR checked before
// the search rather than when its first file is written.
int CheckOptions(const ExploreOptions& o) {
  if (std::string why = ForceWithoutOutput(o.force, "--out", !o.out.empty(), o.out); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  if (!o.out.empty()) {
    if (MaybeFailure refused = DirectoryWrittenIntoProblem(o.out)) {
      return FailAbout("--out", o.out, *refused);
    }
  } else if (o.examples > 0) {
    return Fail(kExitUsage, "--examples " + std::to_string(o.examples) +
                                ": needs --out DIR, where the examples are written");
  }
  return kExitOk;
}

// Where check i is in the run, for its search's progress line.
struct CheckPlace {
  std::size_t check;
  std::size_t position;  // 1-based among the checks explored
  std::size_t checks;
};

// The search of one check within the run's bound, and the names of the
// files its violations and examples would be written to under --out.
int ExploreCheck(const ExploreOptions& o, const Snapshot& snapshot, const std::string& name,
                 CheckPlace at, explore::RunBound& bound, Progress& progress, CheckResult* c) {
  std::string why;
  c->setup = explore::SetUp(snapshot, at.check, &why);
  if (!c->setup) return Fail(kExitUsage, name + ": check " + std::to_string(at.check) + ": " + why);
  bound.Steps(2 * c->setup->initial.listing().size());  // the model built, its context
  explore::SearchOptions so;
  so.depth = o.depth;
  so.budget = o.budget;
  so.bound = &bound;
  if (o.has_seed) so.seed = o.seed;
  so.progress = [&, at](std::uint64_t runs) {
    progress.Update("check " + std::to_string(at.check) + " (" + std::to_string(at.position) +
                    " of " + std::to_string(at.checks) + "): " + std::to_string(runs) + " of " +
                    std::to_string(o.budget) + " runs");
  };
  c->report = explore::Search(*c->setup, so);
  // Standard input's files are named as corpus add names it: "stdin".
  const std::string stem = o.file == "-" ? "stdin" : std::filesystem::path(o.file).stem().string();
  const std::string prefix =
      (std::filesystem::path(o.out) / (stem + "-check" + std::to_string(at.check) + "-")).string();
  for (std::size_t v = 0; v < c->report.violations.size(); ++v) {
    c->written.push_back(o.out.empty() ? ""
                                       : prefix + "violation" + std::to_string(v + 1) + ".ptape");
  }
  for (const auto& [outcome, histories] : explore::RarestOutcomes(c->report, o.examples)) {
    CheckResult::Example e{outcome, histories, c->report.first_by_outcome.at(outcome), ""};
    std::string word = outcome;
    std::replace(word.begin(), word.end(), ' ', '-');
    e.file = prefix + word + ".ptape";
    c->examples.push_back(std::move(e));
  }
  return kExitOk;
}

int RunExplore(const ExploreOptions& o) {
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  // With --out the files are made in DIR as the search finds them.
  CommandIo io{"explore", {{"FILE", o.file}}};
  io.creates_in = {o.out};
  if (int entered = EnterCommand(io); entered != kExitOk) return entered;
  Snapshot snapshot;
  const std::optional<std::uint64_t> only =
      o.has_check ? std::optional<std::uint64_t>(o.check) : std::nullopt;
  if (int read = ReadRecording("explore", o.file, only, &snapshot); read != kExitOk) return read;
  const TokenMask mask = TokenMask::Of(snapshot);  // the names said may hold a piece of it
  const std::string name = mask.Shown(o.file);
  const std::string base = std::filesystem::path(o.file).filename().string();
  // The file's own events, when explore or minimize wrote it: read once.
  std::size_t derived_events = 0;
  std::string unparsed;
  if (std::optional<explore::History> derived = explore::DerivedHistory(snapshot, &unparsed)) {
    derived_events = derived->size();
  }
  Progress progress;
  const std::size_t checks = o.has_check ? 1 : snapshot.resolutions.size();
  // The whole run's bound: once reached, the checks after are not begun.
  explore::RunBound bound(o.limits);
  std::vector<CheckResult> results;
  std::size_t unexplored = 0, first_unexplored = 0, last_unexplored = 0;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    if (o.has_check && i != o.check) continue;
    if (bound.Spent()) {
      if (unexplored++ == 0) first_unexplored = i;
      last_unexplored = i;
      continue;
    }
    CheckResult c;
    c.derived_events = derived_events;
    const CheckPlace at{i, results.size() + 1, checks};
    if (int bad = ExploreCheck(o, snapshot, name, at, bound, progress, &c); bad != kExitOk) {
      return bad;
    }
    results.push_back(std::move(c));
  }
  progress.Done();
  if (!o.out.empty()) {
    if (int wrote = WriteFound(o, snapshot, base, results); wrote != kExitOk) return wrote;
  }
  const RunEnd end = EndOf(bound, unexplored, first_unexplored, last_unexplored);
  if (o.json) {
    PrintExploreJson(o, mask.Shown(base), results, end, mask);
  } else {
    PrintExploreText(o, mask.Shown(base), results, end, mask);
  }
  const std::uint64_t violations = Totals(results).violations;
  if (violations == 0) return kExitOk;
  return Finding(kExitVerdictChanged, Plural(violations, "violation", "violations") + " found");
}

}  // namespace

void RegisterExplore(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExploreOptions>();
  CLI::App* sub = app.add_subcommand(
      "explore",
      "Re-run every check recorded in FILE (a resolution or a liveness check) on a host model\n"
      "built from its frames, under every history of kernel events up to --depth: at each\n"
      "call the resolver makes, a process may exit (a zombie first, then gone, its children\n"
      "to init), its pid may be reused (by an unrelated process, an impostor with the argv,\n"
      "or one with the argv and token but another executable), an exec may be caught half\n"
      "done, a second match may appear, the root may restart, the clock may jump past a retry\n"
      "or the deadline. Each verdict is judged from the model's truth, never from the\n"
      "resolver: RESOLVED must name the exact process that matched argv, token and executable\n"
      "beneath the unchanged root at its final re-read, ALIVE a live process of that start\n"
      "tick; anything else must fail closed. A wrong verdict is a violation; with --out each\n"
      "is written as a recording that 'proctape replay' reproduces. Nothing live is read.\n"
      "See docs/explore.md.");
  sub->add_option("FILE", o->file, "a recording (resolve --record, liveness --record, lab)")
      ->check(NonEmptyPath())
      ->required();
  AddUnsigned(sub, "--depth", o->depth, 1, 2, "events per history: 1, or 2 (pairs)")
      ->capture_default_str();
  AddUnsigned(sub, "--budget", o->budget, 1, 100000000,
              "runs of the resolver per check, at most: every history started counts "
              "(not the baseline, nor a history pruned without a run)")
      ->capture_default_str();
  AddRunBoundOptions(sub, &o->limits, "--total-budget",
                     "runs in all checks together, at most; then the checks left are not "
                     "begun (docs/explore.md, 'Bounds of a whole run')");
  sub->add_option("--out", o->out,
                  "write each violation here as a .ptape (a directory that exists; an existing "
                  "file is not replaced without --force)")
      ->check(NonEmptyPath("directory"))
      ->type_name("DIR");
  AddForceOption(sub, o->force, "replace files of an earlier run in --out DIR");
  CLI::Option* seed = AddUnsigned(sub, "--seed", o->seed, 0, UINT64_MAX,
                                  "shuffle the order of histories by N (a budget then "
                                  "samples); without it the order is fixed");
  CLI::Option* check = AddUnsigned(sub, "--check", o->check, 0, UINT64_MAX,
                                   "explore only this recorded check (from 0)");
  CLI::Option* examples =
      AddUnsigned(sub, "--examples", o->examples, 1, 100,
                  "with --out, also write the first history of each of the N (1 to 100) rarest "
                  "outcomes of each check, violation or not, as DIR/STEM-checkC-OUTCOME.ptape "
                  "(docs/explore.md)");
  sub->add_flag("--json", o->json, "print one JSON object: the same summary");
  sub->footer(
      std::string("Examples:\n"
                  "  proctape explore corpus/051df0283b135a91.ptape --depth 1\n"
                  "  proctape explore run.ptape --out found/ --json\n\n") +
      ExitStatusFooter("0 no violation, 2 usage error, 10 --out refused (no such directory, "
                       "not one, a file in it exists without --force), 10-16 damaged "
                       "file, 20 violations found"));
  sub->callback([=] {
    o->has_seed = seed->count() > 0;
    o->has_check = check->count() > 0;
    if (examples->count() == 0) o->examples = 0;
    *exit_code = RunExplore(*o);
  });
}

}  // namespace proctape
