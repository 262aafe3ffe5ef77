// SPDX-License-Identifier: Apache-2.0
// `proctape minimize FILE -o OUT`: the smallest host on which one recorded
// check, re-run by the identical resolver (under the kernel events of a file
// explore derived), reaches the same verdict, written as a recording that
// replay reproduces (explore/minimize.h). Never reads the live /proc.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/explore_bounds.h"
#include "cli/options.h"
#include "cli/outputs.h"
#include "cli/progress.h"
#include "cli/recording_input.h"
#include "explore/minimize_recording.h"
#include "format/reader.h"
#include "format/writer.h"

namespace proctape {
namespace {

struct MinimizeOptions {
  explore::MinimizeRequest request;
  bool force = false;
  bool json = false;
};

int RunMinimize(const MinimizeOptions& o) {
  const explore::MinimizeRequest& r = o.request;
  OutputRequest request;
  request.path = r.output;
  request.force = o.force;
  request.binary = true;
  std::unique_ptr<OutputFile> output;
  if (int entered = EnterCommand({"minimize", {{"FILE", r.file}}, request}, &output);
      entered != kExitOk) {
    return entered;
  }
  Snapshot snapshot;
  if (int read = ReadRecording("minimize", r.file, r.check, &snapshot); read != kExitOk) {
    return read;
  }
  auto writer = SnapshotWriter::Create(std::move(output), SnapshotWriter::Options{});
  Progress progress;
  explore::MinimizeFailure failure;
  std::optional<explore::MinimizedRecording> done = explore::MinimizeRecording(
      snapshot, r, *writer,
      [&](std::uint64_t runs) { progress.Update("minimize: " + std::to_string(runs) + " runs"); },
      &failure);
  progress.Done();
  if (!done && failure.output) return FailAbout("--output", r.output, failure.failure);
  if (!done) return Fail(failure.failure);
  const std::string report = o.json ? explore::MinimizeJson(*done) : explore::MinimizeText(*done);
  std::fputs(report.c_str(), stdout);
  return kExitOk;
}

}  // namespace

void RegisterMinimize(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<MinimizeOptions>();
  CLI::App* sub = app.add_subcommand(
      "minimize",
      "Shrink one recorded check of FILE to the smallest host on which the identical\n"
      "resolver (or liveness check), re-run on the same request, reaches the same\n"
      "verdict, naming the same process (RESOLVED: its pid and start tick; a\n"
      "fail-closed verdict: its subject, such as the near miss of a NO_MATCH).\n"
      "Delta debugging over the host model of the check's frame: processes first, then\n"
      "the environ entries of those kept other than the token's. A file derived by\n"
      "'proctape explore' keeps its kernel events, at the same calls. The output is a\n"
      "recording marked as derived by minimize, which 'proctape replay' reproduces\n"
      "and 'proctape explain' shows in a screen. The check must reach its recorded\n"
      "verdict on the host model of the frame in force at its start (as explore\n"
      "builds it): a verdict that came from a change the frame does not hold has\n"
      "nothing to keep (exit 20). Nothing live is read.\n"
      "See docs/explore.md.");
  sub->add_option(
         "FILE", o->request.file,
         "a recording (resolve --record, liveness --record, lab, explore); - for standard input")
      ->check(NonEmptyPath())
      ->required();
  AddOutputOption(sub, o->request.output, "write the minimized recording here (a .ptape)")
      ->required();
  AddForceOption(sub, o->force, "replace an existing --output");
  AddUnsigned(sub, "--check", o->request.check, 0, UINT64_MAX,
              "the recorded check to minimize (from 0)")
      ->capture_default_str();
  AddRunBoundOptions(sub, &o->request.limits, "--budget",
                     "runs of the check, at most; then the host kept so far is written "
                     "(docs/explore.md, 'Bounds of a whole run')");
  sub->add_flag("--json", o->json, "print one JSON object: a MinimizeReport");
  sub->footer(
      std::string(
          "Examples:\n"
          "  proctape minimize corpus/051df0283b135a91.ptape -o small.ptape\n"
          "  proctape minimize found/run-check0-violation1.ptape -o small.ptape --json\n\n") +
      ExitStatusFooter("0 written, 2 usage error, 10-16 damaged file or output refused, "
                       "20 the check does not reach its recorded verdict on its frame"));
  sub->callback([=] { *exit_code = RunMinimize(*o); });
}

}  // namespace proctape
