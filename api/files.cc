// SPDX-License-Identifier: Apache-2.0
// include/proctape/files.h: fingerprint files, reading and replaying a
// recording, over format/ and replay/.
#include "proctape/files.h"

#include <utility>

#include "api/convert.h"
#include "api/guard.h"
#include "capture/fingerprint.h"
#include "core/proc_parse.h"
#include "format/fingerprint_file.h"
#include "fs/output_file.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "replay/replay.h"
#include "replay/replay_file.h"
#include "replay/token_mask.h"

namespace proctape::api {
namespace {

using detail::Fail;
using detail::Guard;

struct ErrorOnly {
  Error error;
};

LivenessVerdict FromProtoLiveness(const v1::LivenessVerdict& v) {
  LivenessVerdict out;
  out.status = static_cast<Liveness>(v.status());
  out.reason = static_cast<Status>(v.reason());
  out.state = v.state();
  out.detail = v.detail();
  out.err = v.err();
  out.boot_unchecked = v.boot_unchecked();
  return out;
}

// A recorded verdict, in the boot it was recorded in (the fingerprint's the
// request was resolved against, else the recording's).
Verdict FromProtoVerdict(v1::Verdict v, const v1::Resolution& recorded, const v1::Header& header) {
  UpgradeVerdict(&v);
  Verdict out = detail::FromCore(proctape::FromProto(v));
  out.boot_id = recorded.resolve().has_fingerprint() ? recorded.resolve().fingerprint().boot_id()
                                                     : header.host().boot_id();
  return out;
}

}  // namespace

std::string_view ReplayOutcomeName(ReplayOutcome outcome) noexcept {
  switch (outcome) {
    case ReplayOutcome::kReproduced: return "REPRODUCED";
    case ReplayOutcome::kVerdictChanged: return "VERDICT CHANGED";
    case ReplayOutcome::kDiverged: return "DIVERGED";
  }
  return "UNKNOWN";
}

Error WriteFingerprintFile(const std::string& path, const Fingerprint& fingerprint, bool replace,
                           const LiveOptions& options) noexcept {
  return Guard<ErrorOnly>([&] {
           ErrorOnly out;
           const v1::RootFingerprint taken = detail::ToProto(fingerprint);
           if (std::string why = FingerprintProblem(taken); !why.empty()) {
             out.error =
                 Fail(ErrorCode::kInvalidArgument, "the fingerprint cannot be used: " + why);
             return out;
           }
           OutputRequest request;
           request.path = path;
           request.force = replace;
           request.binary = true;
           request.remove_on_interrupt = false;
           Failure refused;
           std::unique_ptr<OutputFile> output = OutputFile::Open(request, &refused);
           if (!output) {
             out.error = Fail(refused.kind == FailureKind::kUsage ? ErrorCode::kInvalidArgument
                                                                  : ErrorCode::kRecordRefused,
                              refused.message);
             return out;
           }
           const v1::Header header = FingerprintHeader(options.proc_root, options.command_line);
           if (MaybeFailure failed =
                   proctape::WriteFingerprintFile(std::move(output), header, taken)) {
             out.error = Fail(ErrorCode::kIo, failed->message);
           }
           return out;
         })
      .error;
}

FingerprintResult ReadFingerprintFile(const std::string& path) noexcept {
  return Guard<FingerprintResult>([&] {
    FingerprintResult out;
    FingerprintFile file = proctape::ReadFingerprintFile(path);
    switch (file.problem) {
      case FingerprintFile::Problem::kNone:
        out.fingerprint = detail::FromProto(file.fingerprint);
        break;
      case FingerprintFile::Problem::kFormat: out.error = detail::FromFormat(file.format); break;
      case FingerprintFile::Problem::kNotAFingerprint:
        out.error = Fail(ErrorCode::kNotAFingerprint, file.error);
        break;
      case FingerprintFile::Problem::kInvalid:
        out.error = Fail(ErrorCode::kInvalidArgument, file.error);
        break;
    }
    return out;
  });
}

FileSummary ReadFile(const std::string& path) noexcept {
  return Guard<FileSummary>([&] {
    FileSummary out;
    if (path.empty()) {
      out.error = detail::Fail(ErrorCode::kInvalidArgument, "path is empty");
      return out;
    }
    // Counted, not kept: no frame's processes, no observation.
    Snapshot snap;
    ReadKeep keep;
    keep.frames.emplace();
    keep.observations = false;
    out.error = detail::FromFormat(ReadSnapshot(path, &snap, keep));
    out.chunks = snap.chunks;
    out.frames = snap.frames.size();
    out.processes = snap.process_count;
    out.observations = snap.observation_count;
    out.environ_kept = snap.header.redaction().environ() == v1::RedactionPolicy::ENVIRON_KEPT;
    // A recorded verdict's evidence may quote the token: masked, as every
    // view shows it (replay/token_mask.h).
    const TokenMask mask = TokenMask::Of(snap);
    for (v1::Resolution r : snap.resolutions) {
      mask.Mask(&r);
      RecordedCheck& check = out.checks.emplace_back();
      check.liveness = r.has_liveness();
      if (check.liveness)
        check.liveness_verdict = FromProtoLiveness(r.liveness_verdict());
      else
        check.verdict = FromProtoVerdict(r.verdict(), r, snap.header);
      check.observations = r.observation_count();
    }
    for (const v1::RootFingerprint& f : snap.fingerprints) {
      out.fingerprints.push_back(detail::FromProto(f));
    }
    return out;
  });
}

ReplayReport Replay(const std::string& path) noexcept {
  return Guard<ReplayReport>([&] {
    ReplayReport out;
    if (path.empty()) {
      out.error = detail::Fail(ErrorCode::kInvalidArgument, "path is empty");
      return out;
    }
    Snapshot snap;  // the tape model: no frame's processes kept
    ReadKeep keep;
    keep.frames.emplace();
    out.error = detail::FromFormat(ReadSnapshot(path, &snap, keep));
    if (!out.error.ok()) return out;
    // Masked as `proctape replay` shows it: no verdict's evidence, detail or
    // description holds the recording's token.
    const std::vector<v1::ReplayResult> results = ReplayTape(snap);
    for (const v1::ReplayResult& r : results) {
      ReplayedCheck& check = out.checks.emplace_back();
      check.index = r.resolution_index();
      check.outcome = static_cast<ReplayOutcome>(r.outcome());
      check.liveness = r.has_recorded_liveness();
      const v1::Resolution& resolution = snap.resolutions.at(check.index);
      if (check.liveness) {
        check.recorded_liveness = FromProtoLiveness(r.recorded_liveness());
        check.has_replayed = r.has_replayed_liveness();
        if (check.has_replayed) check.replayed_liveness = FromProtoLiveness(r.replayed_liveness());
      } else {
        check.recorded = FromProtoVerdict(r.recorded(), resolution, snap.header);
        check.has_replayed = r.has_replayed();
        if (check.has_replayed) {
          check.replayed = FromProtoVerdict(r.replayed(), resolution, snap.header);
        }
      }
      check.description = DescribeReplay(r);
      while (!check.description.empty() && check.description.back() == '\n') {
        check.description.pop_back();  // lines for a caller to print, not printed ones
      }
    }
    if (!results.empty()) out.worst = static_cast<ReplayOutcome>(WorstOutcome(results));
    return out;
  });
}

}  // namespace proctape::api
