// SPDX-License-Identifier: Apache-2.0
// `proctape minimize FILE -o OUT`: the smallest host on which one recorded
// check, re-run by the identical resolver (under the kernel events of a file
// explore derived), reaches the same verdict, written as a recording that
// replay reproduces (explore/minimize.h). Never reads the live /proc.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

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
#include "explore.pb.h"
#include "explore/counterexample.h"
#include "explore/minimize.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

struct MinimizeOptions {
  std::string file;
  std::string output;
  bool force = false;
  std::uint64_t check = 0;
  bool json = false;
  explore::RunLimits limits;  // cli/explore_bounds.h
};

// A file's size ("-": standard input's, when it is a file).
std::uint64_t SizeOf(const std::string& path) {
  struct stat st {};
  const int got = path == "-" ? ::fstat(0, &st) : ::stat(path.c_str(), &st);
  return got == 0 && S_ISREG(st.st_mode) ? static_cast<std::uint64_t>(st.st_size) : 0;
}

std::uint32_t U32(std::uint64_t v) {
  return v > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(v);
}

// What minimize did (MinimizeReport), its names masked with the file's tokens.
v1::MinimizeReport Report(const MinimizeOptions& o, const Snapshot& snapshot, const TokenMask& mask,
                          const explore::CheckSetup& setup, const explore::Minimized& done,
                          const explore::RunBound& bound) {
  v1::MinimizeReport report;
  report.set_file(EscapedText(mask.Masked(std::filesystem::path(o.file).filename().string())));
  report.set_check(U32(o.check));
  report.set_kind(setup.liveness ? "liveness" : "resolve");
  report.set_verdict(explore::OutcomeName(setup, done.target));
  report.set_processes_before(U32(done.processes_before));
  report.set_processes_after(U32(done.processes_after));
  report.set_calls_before(U32(done.calls_before));
  report.set_calls_after(U32(done.calls_after));
  report.set_bytes_before(U32(snapshot.bytes));  // as read: a pipe has no size
  report.set_bytes_after(U32(SizeOf(o.output)));
  report.set_runs(U32(done.runs));
  for (const explore::Scheduled& s : done.history) report.add_events(explore::Describe(s));
  report.set_output(EscapedText(mask.Masked(o.output)));
  report.set_budget(U32(o.limits.runs));
  report.set_work_budget(U32(o.limits.steps));
  report.set_time_limit_s(U32(o.limits.time_s));
  report.set_work_used(U32(bound.steps()));
  report.set_stopped_by(explore::StopWord(done.stopped, o.limits));
  return report;
}

void PrintText(const MinimizeOptions& o, const std::string& name, const TokenMask& mask,
               const v1::MinimizeReport& report, const explore::CheckSetup& setup,
               const explore::Minimized& done) {
  std::string verdict = report.verdict();
  if (!setup.liveness && done.target.verdict.resolved()) {
    verdict += " pid " + std::to_string(done.target.verdict.pid) + ", start tick " +
               std::to_string(done.target.verdict.start_ticks);
  }
  std::printf("minimize %s, check %llu (%s): %s, kept\n", name.c_str(),
              static_cast<unsigned long long>(o.check), report.kind().c_str(), verdict.c_str());
  std::printf("  processes %u -> %u, calls %u -> %u, bytes %llu -> %llu (%s)\n",
              report.processes_before(), report.processes_after(), report.calls_before(),
              report.calls_after(), static_cast<unsigned long long>(report.bytes_before()),
              static_cast<unsigned long long>(report.bytes_after()),
              Plural(report.runs(), "run", "runs").c_str());
  if (done.stopped != explore::Stop::kNone) {
    std::printf(
        "  stopped early: %s was reached; the host kept holds the verdict, a smaller one "
        "may too\n",
        explore::StopText(done.stopped, o.limits).c_str());
  }
  for (const std::string& e : report.events()) std::printf("  event %s\n", e.c_str());
  std::printf("wrote %s\n", mask.Shown(o.output).c_str());
}

int RunMinimize(const MinimizeOptions& o) {
  OutputRequest request;
  request.path = o.output;
  request.force = o.force;
  request.binary = true;
  std::unique_ptr<OutputFile> output;
  if (int entered = EnterCommand({"minimize", {{"FILE", o.file}}, request}, &output);
      entered != kExitOk) {
    return entered;
  }

  Snapshot snapshot;
  if (int read = ReadRecording("minimize", o.file, o.check, &snapshot); read != kExitOk)
    return read;
  const TokenMask mask = TokenMask::Of(snapshot);  // the names said may hold a piece of it
  const std::string name = mask.Shown(o.file);
  std::string why;
  std::optional<explore::History> history = explore::DerivedHistory(snapshot, &why);
  if (!history) return Fail(kExitCorrupt, name + ": " + why);
  auto setup = explore::SetUp(snapshot, o.check, &why);
  if (!setup) return Fail(kExitUsage, name + ": check " + std::to_string(o.check) + ": " + why);
  Progress progress;
  explore::RunBound bound(o.limits);
  auto done = explore::Minimize(
      *setup, *history,
      [&](std::uint64_t runs) { progress.Update("minimize: " + std::to_string(runs) + " runs"); },
      &why, &bound);
  progress.Done();
  if (!done) {
    return Fail(kExitVerdictChanged, name + ": check " + std::to_string(o.check) + ": " + why);
  }
  const std::string base = std::filesystem::path(o.file).filename().string();
  SnapshotWriter::Options wopts;
  auto writer = SnapshotWriter::Create(std::move(output), wopts);
  std::string failed = explore::WriteDerived(*writer, "minimize", snapshot, base, *done->reduced,
                                             done->history, explore::Checker{});
  if (!failed.empty()) return FailAbout(kExitIo, "--output", o.output, failed);

  const v1::MinimizeReport report = Report(o, snapshot, mask, *setup, *done, bound);
  if (o.json) {
    std::printf("%s\n", ToJson(report).c_str());
    return kExitOk;
  }
  PrintText(o, name, mask, report, *setup, *done);
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
  sub->add_option("FILE", o->file,
                  "a recording (resolve --record, liveness --record, lab, explore)")
      ->check(NonEmptyPath())
      ->required();
  AddOutputOption(sub, o->output, "write the minimized recording here (a .ptape)")->required();
  AddForceOption(sub, o->force, "replace an existing --output");
  AddUnsigned(sub, "--check", o->check, 0, UINT64_MAX, "the recorded check to minimize (from 0)")
      ->capture_default_str();
  AddRunBoundOptions(sub, &o->limits, "--budget",
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
