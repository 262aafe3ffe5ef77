// SPDX-License-Identifier: Apache-2.0
#include "explore/counterexample.h"

#include <algorithm>

#include "capture/recorder.h"
#include "core/checked.h"
#include "explore/model_evidence.h"
#include "format/writer.h"
#include "proto/convert.h"

namespace proctape::explore {

std::string WriteCounterexample(const std::string& path, const Snapshot& source,
                                const std::string& source_name, const CheckSetup& setup,
                                const History& history, const Checker& checker) {
  Failure refused;
  SnapshotWriter::Options wopts;
  wopts.force = true;
  auto writer = SnapshotWriter::Create(path, wopts, &refused);
  if (!writer) return refused.message;
  return WriteDerived(*writer, "explore", source, source_name, setup, history, checker);
}

namespace {
constexpr std::string_view kDerivedBy = " (derived by ";
}  // namespace

std::optional<History> DerivedHistory(const Snapshot& snapshot, Failure* failure) {
  History out;
  const std::string& version = snapshot.header.tool_version();
  const std::size_t at = version.rfind(kDerivedBy);
  if (at == std::string::npos || version.back() != ')') return out;
  const auto& words = snapshot.header.command_line();
  int i = 0;
  while (i < words.size() && words[i] != "--derived") ++i;
  for (++i; i < words.size(); ++i) {
    if (words[i] == "no event (the baseline)" || words[i] == "no event") continue;
    std::optional<Scheduled> s = ParseDescribed(words[i]);
    if (!s || (!out.empty() && s->point < out.back().point)) {
      *failure =
          Failure(FailureKind::kCorrupt, "its list of events does not parse: '" + words[i] + "'");
      return std::nullopt;
    }
    out.push_back(*s);
  }
  return out;
}

std::string WriteDerived(SnapshotWriter& out, const std::string& tool, const Snapshot& source,
                         const std::string& source_name, const CheckSetup& setup,
                         const History& history, const Checker& checker) {
  SnapshotWriter* writer = &out;
  v1::Header header = source.header;
  header.set_tool_version(std::string(PROCTAPE_VERSION) + std::string(kDerivedBy) + tool + ")");
  header.clear_command_line();
  header.add_command_line("proctape");
  header.add_command_line(tool);
  header.add_command_line(source_name);
  header.add_command_line("--check");
  header.add_command_line(std::to_string(setup.index));
  header.add_command_line("--derived");
  for (const Scheduled& s : history) header.add_command_line(Describe(s));
  if (history.empty())
    header.add_command_line(tool == "explore" ? "no event (the baseline)" : "no event");
  if (!writer->WriteHeader(header)) return writer->error();

  const bool redacted = header.redaction().environ() == v1::RedactionPolicy::ENVIRON_REDACTED;
  const std::vector<std::string> kept(header.redaction().kept_entries().begin(),
                                      header.redaction().kept_entries().end());
  HostModel model = setup.initial;
  ModelEvidence ev(&model, &setup.ctx, &history, setup.scan_ns);
  if (!setup.liveness) ev.SetAttestedPath(setup.exe_path, setup.request.exe);
  {
    // Frame 0: the host before any event (an exec's earlier state included).
    v1::Frame f = model.ToFrame(0, setup.start_ns - setup.scan_ns, setup.start_ns,
                                redacted ? &kept : nullptr);
    if (!writer->BeginFrame(0, f.scan_start_mono_ns())) return writer->error();
    for (v1::ProcessRecord& r : *f.mutable_processes()) {
      if (!writer->AddProcess(std::move(r))) return writer->error();
    }
    if (!writer->EndFrame(f.scan_end_mono_ns(), "", 0)) return writer->error();
  }
  RecorderOptions ropts;
  ropts.keep_environ = !redacted;
  ropts.kept_entries = kept;
  ropts.clock = [&ev] { return ev.now(); };
  RecordingEvidence recorder(
      ev, [&writer](v1::Observation&& o) { writer->AddObservation(std::move(o)); }, ropts);
  CheckOutcome outcome = RunCheck(recorder, setup, checker);
  if (!writer->error().empty()) return writer->error();
  const std::int64_t end = ev.now();
  // Frame 1 is scanned after the check began (1 ns past its start at least:
  // a liveness check's one read takes no virtual time), so that the frame in
  // force at its start (replay/frame_evidence.h) is frame 0, the host before
  // any event, as explore and minimize model it.
  const std::int64_t after = std::max(end, SaturatingAdd(setup.start_ns, std::int64_t{1}));
  {
    v1::Frame f =
        model.ToFrame(1, after, SaturatingAdd(after, setup.scan_ns), redacted ? &kept : nullptr);
    if (!writer->BeginFrame(1, f.scan_start_mono_ns())) return writer->error();
    for (v1::ProcessRecord& r : *f.mutable_processes()) {
      if (!writer->AddProcess(std::move(r))) return writer->error();
    }
    if (!writer->EndFrame(f.scan_end_mono_ns(), "", 0)) return writer->error();
  }
  v1::Resolution resolution;
  resolution.set_first_observation(0);
  resolution.set_observation_count(recorder.observations());
  resolution.set_start_mono_ns(setup.start_ns);
  resolution.set_end_mono_ns(end);
  if (setup.liveness) {
    *resolution.mutable_liveness() = setup.recorded.liveness();
    *resolution.mutable_liveness_verdict() = ToProto(outcome.liveness);
  } else {
    *resolution.mutable_resolve() = setup.recorded.resolve();
    *resolution.mutable_verdict() = ToProto(outcome.verdict);
  }
  if (!writer->WriteResolution(resolution)) return writer->error();
  v1::Footer footer;
  footer.set_capture_end_mono_ns(SaturatingAdd(after, setup.scan_ns));
  if (!writer->Finish(footer)) return writer->error();
  return "";
}

}  // namespace proctape::explore
