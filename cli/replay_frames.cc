// SPDX-License-Identifier: Apache-2.0
#include "cli/replay_frames.h"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/frame_evidence.h"
#include "replay/replay_file.h"
#include "replay/token_mask.h"
#include "replay/unanswered.h"

namespace proctape {
namespace {

// Environ values stored redacted cannot carry the token unless its entry was
// kept verbatim (a recording keeps it; a plain capture does not): said once
// before the runs, which diverge where it matters (replay/unanswered.h).
void NoteRedaction(const Snapshot& snapshot, const Request& request, const std::string& name) {
  if (snapshot.header.redaction().environ() != v1::RedactionPolicy::ENVIRON_REDACTED) return;
  if (TokenQuestion(request, snapshot.header.redaction()).Kept()) return;
  Note(name +
       ": environ values are stored redacted and the token entry asked is not kept "
       "verbatim: a run that must tell whether a process carries that token diverges "
       "there (capture with --env keep to replay a token check)");
}

// A plain capture, with no recorded request to start from: the request of
// the options, its root's start tick from the first frame read unless given.
int PlainCaptureRun(const ReplayOptions& o, const Snapshot& snapshot, const std::string& name,
                    std::vector<FrameReplay>* runs) {
  if (!o.has_root || !o.has_token) {
    const std::string missing = !o.has_root && !o.has_token ? "--root and --token"
                                : !o.has_root               ? "--root"
                                                            : "--token";
    return Fail(kExitUsage, name + " records no resolution: --model frames needs " + missing +
                                " (it takes --root, --token and --exe-identity or --exe-like)");
  }
  if (!o.overrides.exe) {
    return Fail(kExitUsage, name +
                                " records no resolution: give the attested executable "
                                "with --exe-identity DEV:INO or --exe-like PID");
  }
  const std::int64_t start = FrameModelStart(snapshot, nullptr);
  Request request;
  o.overrides.Apply(&request);
  if (!o.overrides.root_start_ticks) {
    FrameEvidence at_start(snapshot, start);
    const std::size_t in_force = *at_start.FrameInForce();
    const v1::Frame& first = snapshot.frames[in_force];
    const v1::ProcessRecord* record = at_start.Find(in_force, request.root_pid);
    if (std::optional<StatFields> root = StatOfRecord(record, request.root_pid)) {
      request.root_start_ticks = root->start_ticks;
    } else if (record == nullptr) {
      Note("root pid " + std::to_string(request.root_pid) + " is not in frame " +
           std::to_string(first.index()) + ", the first the replay reads");
    } else {
      Note("root pid " + std::to_string(request.root_pid) + " has no valid stat in frame " +
           std::to_string(first.index()) + ": its start tick defaults to 0 (give --root-start)");
    }
  }
  NoteRedaction(snapshot, request, name);
  runs->push_back(ReplayRequestOnFrames(snapshot, request, start));
  return kExitOk;
}

// Each run, or one ReplayReport of them (--json); the status is the first
// run's that is not 0.
int PrintFrameRuns(const ReplayOptions& o, const Snapshot& snapshot,
                   const std::vector<FrameReplay>& runs) {
  int code = kExitOk;
  v1::ReplayReport report;
  report.set_file(EscapedText(
      TokenMask::Of(snapshot).Masked(std::filesystem::path(o.file).filename().string())));
  report.set_model("frames");
  for (const FrameReplay& r : runs) {
    if (o.json) {
      *report.add_frame_runs() = r.summary;
    } else {
      std::fputs(r.text.c_str(), stdout);
    }
    // A run the frames could not answer has no verdict: it diverged.
    int c = r.run.unanswered != v1::UNANSWERED_NONE ? kExitDiverged
            : r.run.liveness                        ? ExitCodeFor(r.run.liveness_verdict)
                                                    : ExitCodeFor(r.run.verdict.status);
    if (!r.run.cut.empty()) c = kExitBound;  // no decision: the frame model's bound on work
    if (code == kExitOk) code = c;
  }
  if (o.json) std::printf("%s\n", ToJson(report).c_str());
  return code;
}

}  // namespace

// --model frames: every recorded resolution re-run on the frames (request
// overrides applied), or, in a plain capture, the request of the options.
int RunFrames(const ReplayOptions& o, const Snapshot& snapshot, const std::string& name) {
  if (snapshot.frames.empty()) {
    return Fail(kExitUsage, name + " holds no frame: it is " + FileHolds(snapshot) +
                                " (take one with 'proctape capture')");
  }
  std::vector<FrameReplay> runs;
  if (snapshot.resolutions.empty()) {
    if (int bad = PlainCaptureRun(o, snapshot, name, &runs); bad != kExitOk) return bad;
    return PrintFrameRuns(o, snapshot, runs);
  }
  bool any_resolve = false;
  for (const v1::Resolution& r : snapshot.resolutions) any_resolve |= r.has_resolve();
  if (o.overrides.any() && !any_resolve) {
    return Fail(kExitUsage, name +
                                " records only liveness checks: the request options "
                                "apply to resolutions");
  }
  for (const v1::Resolution& r : snapshot.resolutions) {
    if (!r.has_resolve()) continue;
    Request request = FromProto(r.resolve());
    o.overrides.Apply(&request);
    NoteRedaction(snapshot, request, name);
  }
  runs = ReplayFrames(snapshot, o.overrides);
  return PrintFrameRuns(o, snapshot, runs);
}

}  // namespace proctape
