// SPDX-License-Identifier: Apache-2.0
// `proctape explore FILE...`: every recorded check of each FILE re-run on a
// host model built from its frames under histories of kernel events (a
// process exits, a pid is reused, an exec is caught half done, a second match
// appears, the root restarts, the clock jumps), each verdict judged against
// the model's truth (explore/). Never reads the live /proc, never sleeps.
// Several FILEs are reported in the order given, as verify does: their texts
// one after the other, under --json {"files": [...]} of their reports.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/explore_bounds.h"
#include "cli/inputs.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/progress.h"
#include "cli/recording_input.h"
#include "core/proc_parse.h"
#include "corpus/shard.h"
#include "explore/counterexample.h"
#include "explore/explore_recording.h"
#include "explore/explore_report.h"
#include "format/reader.h"
#include "format/writer.h"

namespace proctape {
namespace {

struct ExploreOptions {
  explore::ExploreRequest request;
  std::vector<std::string> files;
  bool force = false;  // --force: files of an earlier run in --out are replaced
  bool json = false;
  std::uint64_t seed = 0;
  std::uint64_t check = 0;
  Shard shard;  // --shard K/N: only the FILEs of shard K
};

// Each counterexample and example the search found, written to --out under
// the output rule (docs/cli/outputs.md): every file checked (opened, its
// temporary made, and let go: a run may find hundreds, more than the
// descriptors it may hold) before any is written, so that one refused (it
// exists, without --force) leaves none written.
int WriteFound(const ExploreOptions& o, const std::vector<Snapshot>& snapshots,
               const std::vector<explore::ExploreRun>& runs) {
  struct Found {
    explore::FoundFile file;
    const Snapshot* snapshot;
    const explore::ExploreRun* run;
  };
  std::vector<Found> found;
  for (std::size_t f = 0; f < runs.size(); ++f) {
    for (const explore::FoundFile& file : explore::FoundFiles(runs[f])) {
      found.push_back({file, &snapshots[f], &runs[f]});
    }
  }
  auto open = [&o](const std::string& path, int* exit_code) {
    OutputRequest request;
    request.path = path;
    request.force = o.force;
    request.binary = true;
    return OpenOutput(request, "--out", InputsNamed("FILE", o.files), exit_code);
  };
  int exit_code = kExitOk;
  for (const Found& f : found) {
    if (!open(f.file.path, &exit_code)) return exit_code;
  }
  for (const Found& f : found) {
    std::unique_ptr<OutputFile> output = open(f.file.path, &exit_code);
    if (!output) return exit_code;
    auto writer = SnapshotWriter::Create(std::move(output), SnapshotWriter::Options{});
    const std::string failed =
        explore::WriteDerived(*writer, "explore", *f.snapshot, f.run->source_name, *f.file.setup,
                              *f.file.history, explore::Checker{});
    if (!failed.empty()) return FailAbout(kExitIo, "--out", f.file.path, failed);
  }
  return kExitOk;
}

// Two FILEs whose files under --out would have the same names (DIR/STEM-...):
// the second's name, else "".
std::string SameStem(const ExploreOptions& o) {
  if (o.request.out.empty()) return "";
  std::vector<std::string> stems;
  bool stdin_named = false;
  for (const std::string& file : o.files) {
    // A second '-' is refused as standard input read twice (EnterCommand).
    if (file == "-" && std::exchange(stdin_named, true)) continue;
    const std::string stem = explore::FoundStem(file);
    if (std::find(stems.begin(), stems.end(), stem) != stems.end()) return file;
    stems.push_back(stem);
  }
  return "";
}

// The usage errors of --out and --examples, and --out DIR checked before
// the search rather than when its first file is written.
int CheckOptions(const ExploreOptions& o) {
  const std::string& out = o.request.out;
  if (std::string why = ForceWithoutOutput(o.force, "--out", !out.empty(), out); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  if (const std::string same = SameStem(o); !same.empty()) {
    return FailAbout(kExitUsage, "FILE", same,
                     "its files under --out would have the names of an earlier FILE's (" +
                         explore::FoundStem(same) + "-check...): explore it on its own");
  }
  if (!out.empty()) {
    if (MaybeFailure refused = DirectoryWrittenIntoProblem(out)) {
      return FailAbout("--out", out, *refused);
    }
  } else if (o.request.examples > 0) {
    return Fail(kExitUsage, "--examples " + std::to_string(o.request.examples) +
                                ": needs --out DIR, where the examples are written");
  }
  return kExitOk;
}

// With --shard K/N: the FILEs of shard K alone, the others not read again
// (docs/explore.md, "Shards"); said on standard error when none is.
int TakeShard(ExploreOptions* o) {
  if (!o->shard.active()) return kExitOk;
  Failure failure;
  std::optional<std::vector<std::string>> kept = FilesOfShard(o->files, o->shard, &failure);
  if (!kept) return Fail(failure);
  if (kept->empty()) {
    std::fprintf(stderr, "proctape: explore: shard %s holds none of the %s\n",
                 ShardText(o->shard).c_str(), Plural(o->files.size(), "FILE", "FILEs").c_str());
  }
  o->files = std::move(*kept);
  return kExitOk;
}

int RunExplore(ExploreOptions o) {
  if (int taken = TakeShard(&o); taken != kExitOk) return taken;
  if (o.shard.active() && o.files.empty()) {
    std::fputs(o.json ? "{\"files\":[]}\n" : "", stdout);
    return kExitOk;
  }
  if (int bad = CheckOptions(o); bad != kExitOk) return bad;
  // With --out the files are made in DIR as the search finds them.
  CommandIo io{"explore", InputsNamed("FILE", o.files)};
  io.creates_in = {o.request.out};
  if (int entered = EnterCommand(io); entered != kExitOk) return entered;
  // Every FILE is read before any is explored: one that cannot be ends it.
  std::vector<Snapshot> snapshots(o.files.size());
  std::vector<explore::RecordingToExplore> recordings;
  for (std::size_t f = 0; f < o.files.size(); ++f) {
    if (int read = ReadRecording("explore", o.files[f], o.request.check, &snapshots[f]);
        read != kExitOk) {
      return read;
    }
    recordings.push_back({o.files[f], &snapshots[f]});
  }
  Progress progress;
  Failure failure;
  std::optional<std::vector<explore::ExploreRun>> runs = explore::ExploreRecordings(
      recordings, o.request, [&](const std::string& line) { progress.Update(line); }, &failure);
  if (!runs) return Fail(failure);
  progress.Done();
  if (int wrote = WriteFound(o, snapshots, *runs); wrote != kExitOk) return wrote;
  std::string text;
  std::vector<std::string> reports;
  std::uint64_t violations = 0;
  for (const explore::ExploreRun& run : *runs) {
    if (o.json) {
      std::string json = explore::ExploreJson(run);
      json.pop_back();  // its newline
      reports.push_back(std::move(json));
    } else {
      text += explore::ExploreText(run);
    }
    violations += explore::Totals(run.checks).violations;
  }
  // A shard's document is {"files": [...]} however many FILEs it holds.
  if (o.json) text = (o.shard.active() ? JsonList(reports, true) : JsonList(reports)) + "\n";
  std::fputs(text.c_str(), stdout);
  if (violations == 0) return kExitOk;
  return Finding(kExitVerdictChanged, Plural(violations, "violation", "violations") + " found");
}

// What `explore --help` says above its options, and below them.
constexpr const char* kExploreHelp =
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
    "See docs/explore.md.";

std::string ExploreFooter() {
  return std::string(
             "Examples:\n"
             "  proctape explore corpus/051df0283b135a91.ptape --depth 1\n"
             "  proctape explore run.ptape --out found/ --json\n"
             "  proctape explore corpus/*.ptape --depth 1 --jobs 2\n\n") +
         ExitStatusFooter(
             "0 no violation, 2 usage error (also two FILEs of one name with --out), "
             "10 a FILE unreadable or --out refused (no such directory, "
             "not one, a file in it exists without --force), 10-16 damaged "
             "file (of several: the first, nothing explored), 20 violations found "
             "(in any FILE)");
}

}  // namespace

void RegisterExplore(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ExploreOptions>();
  CLI::App* sub = app.add_subcommand("explore", kExploreHelp);
  sub->add_option("FILE", o->files,
                  "a recording (resolve --record, liveness --record, lab); - for standard input; "
                  "several are one run: a report each, in order, the bounds shared")
      ->check(NonEmptyPath())
      ->required();
  AddUnsigned(sub, "--depth", o->request.depth, 1, 2, "events per history: 1, or 2 (pairs)")
      ->capture_default_str();
  AddUnsigned(sub, "--budget", o->request.budget, 1, 100000000,
              "runs of the resolver per check, at most: every history started counts "
              "(not the baseline, nor a history pruned without a run)")
      ->capture_default_str();
  AddRunBoundOptions(sub, &o->request.limits, "--total-budget",
                     "runs in all checks together, at most; then the checks left are not "
                     "begun (docs/explore.md, 'Bounds of a whole run')");
  sub->add_option("--out", o->request.out,
                  "write each violation here as a .ptape (a directory that exists; an existing "
                  "file is not replaced without --force), named by its FILE's name (- as "
                  "stdin): two FILEs of one name are refused")
      ->check(NonEmptyPath("directory"))
      ->type_name("DIR");
  AddForceOption(sub, o->force, "replace files of an earlier run in --out DIR");
  CLI::Option* seed = AddUnsigned(sub, "--seed", o->seed, 0, UINT64_MAX,
                                  "shuffle the order of histories by N (a budget then "
                                  "samples); without it the order is fixed");
  CLI::Option* check = AddUnsigned(sub, "--check", o->check, 0, UINT64_MAX,
                                   "explore only check N (from 0) of every FILE");
  CLI::Option* examples =
      AddUnsigned(sub, "--examples", o->request.examples, 1, 100,
                  "with --out, also write the first history of each of the N (1 to 100) rarest "
                  "outcomes of each check, violation or not, as DIR/STEM-checkC-OUTCOME.ptape "
                  "(docs/explore.md)");
  o->request.jobs = 0;  // one per core, unless --jobs says
  AddJobsOption(sub, o->request.jobs, "checks");
  AddShardOption(sub, o->shard, "FILEs (by content)");
  sub->add_flag("--json", o->json, "one JSON object (of several FILEs: {\"files\": [...]})");
  sub->footer(ExploreFooter());
  sub->callback([=] {
    if (seed->count() > 0) o->request.seed = o->seed;
    if (check->count() > 0) o->request.check = o->check;
    if (examples->count() == 0) o->request.examples = 0;
    *exit_code = RunExplore(*o);
  });
}

}  // namespace proctape
