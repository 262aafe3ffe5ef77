// SPDX-License-Identifier: Apache-2.0
#include "replay/replay_file.h"

#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

// A run as --json prints it; a run that could not be answered has no verdict.
v1::FrameRunSummary SummarizeRun(const FrameRun& run) {
  v1::FrameRunSummary s;
  if (run.resolution_index) s.set_resolution_index(Count32(*run.resolution_index));
  s.set_liveness(run.liveness);
  s.set_request_changed(run.request_changed);
  const bool answered = run.unanswered == v1::UNANSWERED_NONE;
  if (!answered) {
    s.set_unanswered(run.unanswered);
    s.set_unanswered_call(run.unanswered_call);
  }
  if (run.liveness) {
    if (answered) *s.mutable_liveness_verdict() = ToSummary(ToProto(run.liveness_verdict));
    if (run.recorded_liveness) *s.mutable_recorded_liveness() = ToSummary(*run.recorded_liveness);
  } else {
    if (answered) *s.mutable_verdict() = ToSummary(ToProto(run.verdict));
    if (run.recorded) *s.mutable_recorded() = ToSummary(*run.recorded);
  }
  s.set_same_decision(run.same_decision);
  s.set_calls(Count32(run.calls));
  if (run.first_frame) s.set_first_frame(Count32(*run.first_frame));
  if (run.last_frame) s.set_last_frame(Count32(*run.last_frame));
  s.set_virtual_ns(static_cast<double>(run.virtual_ns));
  s.set_attempts_skipped(Count32(run.attempts_skipped));
  s.set_cut(run.cut);
  return s;
}

FrameReplay Masked(FrameRun run, const TokenMask& mask) {
  // The host's bytes of the run (evidence, the details that quote them, the
  // near misses' argv, the recorded verdicts), before the text is made of
  // them: the text's own words are never masked.
  for (std::string* text : {&run.verdict.evidence, &run.verdict.detail, &run.liveness_verdict.state,
                            &run.liveness_verdict.detail}) {
    mask.Mask(text);
  }
  for (NearMiss& m : run.verdict.near_misses) mask.Mask(&m.argv);
  if (run.recorded) mask.Mask(&*run.recorded);
  if (run.recorded_liveness) mask.Mask(&*run.recorded_liveness);
  FrameReplay out;
  out.summary = SummarizeRun(run);
  out.text = DescribeFrameRun(run);
  out.run = std::move(run);
  return out;
}

}  // namespace

std::vector<v1::ReplayResult> ReplayTape(const Snapshot& snapshot,
                                         const RequestOverrides& overrides) {
  const TokenMask mask = TokenMask::Of(snapshot);
  std::vector<v1::ReplayResult> results;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    results.push_back(ReplayTapeCheck(snapshot, i, overrides, mask));
  }
  return results;
}

v1::ReplayResult ReplayTapeCheck(const Snapshot& snapshot, std::size_t index,
                                 const RequestOverrides& overrides, const TokenMask& mask,
                                 ReplayWatch* watch) {
  v1::ReplayResult result = ReplayResolution(snapshot, index, overrides, watch);
  mask.Mask(&result);
  return result;
}

std::vector<FrameReplay> ReplayFrames(const Snapshot& snapshot, const RequestOverrides& overrides) {
  const TokenMask mask = TokenMask::Of(snapshot);
  std::vector<FrameReplay> runs;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    runs.push_back(Masked(RerunOnFrames(snapshot, i, overrides), mask));
  }
  return runs;
}

FrameReplay ReplayRequestOnFrames(const Snapshot& snapshot, const Request& request,
                                  std::int64_t start_ns) {
  return Masked(RunOnFrames(snapshot, request, start_ns), TokenMask::Of(snapshot));
}

}  // namespace proctape
