// SPDX-License-Identifier: Apache-2.0
#include "explore/minimize_recording.h"

#include <sys/stat.h>

#include <filesystem>
#include <utility>

#include "core/proc_parse.h"
#include "explore/counterexample.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape::explore {
namespace {

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
v1::MinimizeReport Report(const MinimizedRecording& m, const Snapshot& snapshot,
                          const RunBound& bound) {
  const MinimizeRequest& o = m.request;
  const Minimized& done = *m.done;
  v1::MinimizeReport report;
  report.set_file(EscapedText(m.mask.Masked(std::filesystem::path(o.file).filename().string())));
  report.set_check(U32(o.check));
  report.set_kind(m.setup->liveness ? "liveness" : "resolve");
  report.set_verdict(OutcomeName(*m.setup, done.target));
  report.set_processes_before(U32(done.processes_before));
  report.set_processes_after(U32(done.processes_after));
  report.set_calls_before(U32(done.calls_before));
  report.set_calls_after(U32(done.calls_after));
  report.set_bytes_before(U32(snapshot.bytes));  // as read: a pipe has no size
  report.set_bytes_after(U32(SizeOf(o.output)));
  report.set_runs(U32(done.runs));
  for (const Scheduled& s : done.history) report.add_events(Describe(s));
  report.set_output(EscapedText(m.mask.Masked(o.output)));
  report.set_budget(U32(o.limits.runs));
  report.set_work_budget(U32(o.limits.steps));
  report.set_time_limit_s(U32(o.limits.time_s));
  report.set_work_used(U32(bound.steps()));
  report.set_stopped_by(StopWord(done.stopped, o.limits));
  return report;
}

}  // namespace

std::optional<MinimizedRecording> MinimizeRecording(
    const Snapshot& snapshot, const MinimizeRequest& request, SnapshotWriter& writer,
    const std::function<void(std::uint64_t runs)>& progress, MinimizeFailure* failure) {
  MinimizedRecording m;
  m.request = request;
  m.mask = TokenMask::Of(snapshot);  // the names said may hold a piece of it
  const std::string name = m.mask.Shown(request.file);
  const std::string check = name + ": check " + std::to_string(request.check) + ": ";
  Failure why;
  std::optional<History> history = DerivedHistory(snapshot, &why);
  if (!history) {
    failure->failure = Failure(why.kind, name + ": " + why.message);  // kCorrupt
    return std::nullopt;
  }
  m.setup = SetUp(snapshot, request.check, &why);
  if (!m.setup) {
    failure->failure = Failure(why.kind, check + why.message);  // kUsage
    return std::nullopt;
  }
  RunBound bound(request.limits);
  m.done = Minimize(*m.setup, *history, progress, &why, &bound);
  if (!m.done) {
    failure->failure = Failure(why.kind, check + why.message);  // kVerdictChanged
    return std::nullopt;
  }
  const std::string base = std::filesystem::path(request.file).filename().string();
  std::string failed = WriteDerived(writer, "minimize", snapshot, base, *m.done->reduced,
                                    m.done->history, Checker{});
  if (!failed.empty()) {
    failure->failure = Failure(FailureKind::kIo, failed);
    failure->output = true;
    return std::nullopt;
  }
  m.report = Report(m, snapshot, bound);
  return m;
}

std::string MinimizeText(const MinimizedRecording& m) {
  const v1::MinimizeReport& report = m.report;
  const Minimized& done = *m.done;
  std::string verdict = report.verdict();
  if (!m.setup->liveness && done.target.verdict.resolved()) {
    verdict += " pid " + std::to_string(done.target.verdict.pid) + ", start tick " +
               std::to_string(done.target.verdict.start_ticks);
  }
  std::string text = "minimize " + m.mask.Shown(m.request.file) + ", check " +
                     std::to_string(m.request.check) + " (" + report.kind() + "): " + verdict +
                     ", kept\n";
  text += "  processes " + std::to_string(report.processes_before()) + " -> " +
          std::to_string(report.processes_after()) + ", calls " +
          std::to_string(report.calls_before()) + " -> " + std::to_string(report.calls_after()) +
          ", bytes " + std::to_string(report.bytes_before()) + " -> " +
          std::to_string(report.bytes_after()) + " (" + Plural(report.runs(), "run", "runs") +
          ")\n";
  if (done.stopped != Stop::kNone) {
    text += "  stopped early: " + StopText(done.stopped, m.request.limits) +
            " was reached; the host kept holds the verdict, a smaller one may too\n";
  }
  for (const std::string& e : report.events()) text += "  event " + e + "\n";
  return text + "wrote " + m.mask.Shown(m.request.output) + "\n";
}

std::string MinimizeJson(const MinimizedRecording& m) { return ToJson(m.report) + "\n"; }

}  // namespace proctape::explore
