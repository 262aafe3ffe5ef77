// SPDX-License-Identifier: Apache-2.0
#include "replay/file_replay.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/frame_evidence.h"
#include "replay/legacy_replay.h"
#include "replay/token_mask.h"
#include "replay/unanswered.h"

namespace proctape {
namespace {

// The request as the steps change it: the overrides and what was given.
struct Asked {
  RequestOverrides overrides;
  bool root_given = false;
  bool token_given = false;
  std::string name;  // the file's name as it is said (masked, escaped)
};

FileFailure UsageFailure(std::string message) {
  return FileFailure{{FailureKind::kUsage, std::move(message)}, ""};
}

// The tape model keeps no frame's processes; the frame model, the legacy
// replay and --exe-like read the frames.
ReadKeep KeepFor(const FileReplayRequest& request) {
  ReadKeep keep;
  if (request.model != ReplayModel::kFrames && !request.legacy_marker && !request.exe_like) {
    keep.frames.emplace();
  }
  // The frame model looks records up: a record unchanged from the previous
  // frame is held once (format/frame_records.h).
  keep.shared_records = !request.legacy_marker;
  keep.compact_tape = true;  // the tape as replay keeps it (format/tape.h)
  return keep;
}

// --legacy-marker N: the legacy check's conclusion, from the first frame.
void ReplayLegacy(const Snapshot& snapshot, const std::string& marker, const std::string& name,
                  FileReplayOutcome* out) {
  if (snapshot.frames.empty()) {
    out->failure = UsageFailure(name + " holds no frame: it is " + FileHolds(snapshot) +
                                "; the legacy check is answered from one");
    return;
  }
  out->legacy = LegacyReplay(snapshot, marker);
}

// What if the root had been fingerprinted before the turn (--fingerprint):
// the file's root, start tick and executable. False: none was given.
bool ApplyFingerprint(const FileReplayRequest& request, const Snapshot& snapshot, Asked* asked) {
  std::optional<v1::RootFingerprint> fp = request.fingerprint(snapshot.header.host().boot_id());
  if (!fp) return false;
  asked->overrides.root_pid = fp->root_pid();
  asked->overrides.root_start_ticks = fp->root_start_ticks();
  asked->overrides.exe = FromProto(fp->exe_identity());
  asked->root_given = true;  // for --model frames on a plain capture
  return true;
}

// --exe-like PID: the identity of that process's executable in the first
// frame. No record at all, or a record without an identity, is ENOENT (the
// frame model's answer for both, replay/frame_evidence.h); any other errno
// is what the capture met taking that identity.
MaybeFileFailure ApplyExeLike(std::int64_t exe_like, const Snapshot& snapshot, Asked* asked) {
  FrameEvidence at_start(snapshot, FrameModelStart(snapshot, nullptr));
  const Identity exe = at_start.ExeIdentity(exe_like);
  if (exe.ok()) {
    asked->overrides.exe = exe;
    return std::nullopt;
  }
  const std::string pid = std::to_string(exe_like);
  const std::optional<std::size_t> first = at_start.FrameInForce();
  const bool listed = first && at_start.Find(*first, exe_like) != nullptr;
  return UsageFailure("--exe-like " + pid + ": the first frame of " + asked->name +
                      (!listed ? " holds no process " + pid
                       : exe.err == ENOENT
                           ? " holds process " + pid + " with no executable identity"
                           : " recorded no executable identity of process " + pid + ": " +
                                 std::strerror(exe.err) + " (errno " + std::to_string(exe.err) +
                                 ")"));
}

// --model tape: each recorded resolution against its own tape.
void ReplayOnTape(const FileReplayRequest& request, const Snapshot& snapshot, const TokenMask& mask,
                  const Asked& asked, FileReplayOutcome* out) {
  if (snapshot.resolutions.empty()) {
    // --model frames is offered only to a file that holds frames: of any
    // other file (a fingerprint file) it would fail too; say what it is.
    if (snapshot.frames.empty()) {
      out->failure =
          UsageFailure(asked.name + " holds no recorded resolution and no frame: it is " +
                       FileHolds(snapshot) + ", nothing to replay");
      return;
    }
    out->failure = UsageFailure(asked.name +
                                " holds no recorded resolution (record one with "
                                "'proctape resolve ... --record FILE', or replay a capture "
                                "with --model frames)");
    return;
  }
  // Masked: a verdict's evidence may quote an environ entry, never the token.
  out->tape = ReplayTape(snapshot, asked.overrides);
  // One document for the whole file, every replay in it.
  const std::string base = mask.Masked(std::filesystem::path(request.file).filename().string());
  out->report = TapeReplayReport(base, out->tape);
}

// Environ values stored redacted cannot carry the token unless its entry was
// kept verbatim (a recording keeps it; a plain capture does not): said once
// before the runs, which diverge where it matters (replay/unanswered.h).
void NoteRedaction(const Snapshot& snapshot, const Request& request, const std::string& name,
                   std::vector<std::string>* notes) {
  if (snapshot.header.redaction().environ() != v1::RedactionPolicy::ENVIRON_REDACTED) return;
  if (TokenQuestion(request, snapshot.header.redaction()).Kept()) return;
  notes->push_back(name +
                   ": environ values are stored redacted and the token entry asked is not kept "
                   "verbatim: a run that must tell whether a process carries that token diverges "
                   "there (capture with --env keep to replay a token check)");
}

// The root's start tick of a plain capture's request, from the first frame
// read: left 0, with a note, when that frame has no valid stat of it.
void RootStartFromFirstFrame(const Snapshot& snapshot, std::int64_t start, Request* request,
                             std::vector<std::string>* notes) {
  FrameEvidence at_start(snapshot, start);
  const std::size_t in_force = *at_start.FrameInForce();
  const v1::Frame& first = snapshot.frames[in_force];
  const v1::ProcessRecord* record = at_start.Find(in_force, request->root_pid);
  if (std::optional<StatFields> root = StatOfRecord(record, request->root_pid)) {
    request->root_start_ticks = root->start_ticks;
  } else if (record == nullptr) {
    notes->push_back("root pid " + std::to_string(request->root_pid) + " is not in frame " +
                     std::to_string(first.index()) + ", the first the replay reads");
  } else {
    notes->push_back("root pid " + std::to_string(request->root_pid) +
                     " has no valid stat in frame " + std::to_string(first.index()) +
                     ": its start tick defaults to 0 (give --root-start)");
  }
}

// A plain capture, with no recorded request to start from: the request of
// the options, its root's start tick from the first frame read unless given.
void PlainCaptureRun(const Snapshot& snapshot, const Asked& asked, FileReplayOutcome* out) {
  if (!asked.root_given || !asked.token_given) {
    const std::string missing = !asked.root_given && !asked.token_given ? "--root and --token"
                                : !asked.root_given                     ? "--root"
                                                                        : "--token";
    out->failure =
        UsageFailure(asked.name + " records no resolution: --model frames needs " + missing +
                     " (it takes --root, --token and --exe-identity or --exe-like)");
    return;
  }
  if (!asked.overrides.exe) {
    out->failure = UsageFailure(asked.name +
                                " records no resolution: give the attested executable "
                                "with --exe-identity DEV:INO or --exe-like PID");
    return;
  }
  const std::int64_t start = FrameModelStart(snapshot, nullptr);
  Request request;
  asked.overrides.Apply(&request);
  if (!asked.overrides.root_start_ticks) {
    RootStartFromFirstFrame(snapshot, start, &request, &out->notes);
  }
  NoteRedaction(snapshot, request, asked.name, &out->notes);
  out->frame_runs.push_back(ReplayRequestOnFrames(snapshot, request, start));
}

// --model frames: every recorded resolution re-run on the frames (request
// overrides applied), or, in a plain capture, the request of the options.
void ReplayOnFrames(const Snapshot& snapshot, const Asked& asked, FileReplayOutcome* out) {
  if (snapshot.frames.empty()) {
    out->failure = UsageFailure(asked.name + " holds no frame: it is " + FileHolds(snapshot) +
                                " (take one with 'proctape capture')");
    return;
  }
  if (snapshot.resolutions.empty()) {
    PlainCaptureRun(snapshot, asked, out);
    return;
  }
  bool any_resolve = false;
  for (const v1::Resolution& r : snapshot.resolutions) any_resolve |= r.has_resolve();
  if (asked.overrides.any() && !any_resolve) {
    out->failure = UsageFailure(asked.name +
                                " records only liveness checks: the request options "
                                "apply to resolutions");
    return;
  }
  for (const v1::Resolution& r : snapshot.resolutions) {
    if (!r.has_resolve()) continue;
    Request request = FromProto(r.resolve());
    asked.overrides.Apply(&request);
    NoteRedaction(snapshot, request, asked.name, &out->notes);
  }
  out->frame_runs = ReplayFrames(snapshot, asked.overrides);
}

// The frame model's runs as one ReplayReport (--json).
v1::ReplayReport FrameRunsReport(const std::string& file, const TokenMask& mask,
                                 const std::vector<FrameReplay>& runs) {
  v1::ReplayReport report;
  report.set_file(EscapedText(mask.Masked(std::filesystem::path(file).filename().string())));
  report.set_model("frames");
  for (const FrameReplay& r : runs) *report.add_frame_runs() = r.summary;
  return report;
}

}  // namespace

FileReplayOutcome ReplayFileAsRequested(const FileReplayRequest& request) {
  FileReplayOutcome out;
  Snapshot snapshot;
  TokenMask mask;
  out.failure = ReadMaskedFile(request.file, KeepFor(request), &snapshot, &mask);
  if (out.failure) return out;
  Asked asked{request.overrides, request.root_given, request.token_given, mask.Shown(request.file)};
  if (request.legacy_marker) {
    ReplayLegacy(snapshot, *request.legacy_marker, asked.name, &out);
    return out;
  }
  if (request.fingerprint && !ApplyFingerprint(request, snapshot, &asked)) {
    out.fingerprint_refused = true;
    return out;
  }
  if (request.exe_like) {
    out.failure = ApplyExeLike(*request.exe_like, snapshot, &asked);
    if (out.failure) return out;
  }
  if (request.model == ReplayModel::kTape) {
    ReplayOnTape(request, snapshot, mask, asked, &out);
    return out;
  }
  ReplayOnFrames(snapshot, asked, &out);
  if (!out.failure) out.report = FrameRunsReport(request.file, mask, out.frame_runs);
  return out;
}

}  // namespace proctape
