// SPDX-License-Identifier: Apache-2.0
#include "api/record.h"

#include <utility>

#include "api/convert.h"
#include "capture/live_checks.h"
#include "capture/live_record.h"

namespace proctape::api::detail {

std::unique_ptr<OutputFile> OpenRecording(const RecordPolicy& policy, Error* error) {
  if (policy.when == Record::kNever) return nullptr;
  if (policy.path.empty()) {
    *error = Fail(ErrorCode::kInvalidArgument, "the recording's path is empty");
    return nullptr;
  }
  OutputRequest request;
  request.path = policy.path;
  request.force = policy.replace;
  request.binary = true;
  request.remove_on_interrupt = false;  // the program's signals are its own
  Failure refused;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, &refused);
  if (!output) {
    *error = Fail(refused.kind == FailureKind::kUsage ? ErrorCode::kInvalidArgument
                                                      : ErrorCode::kRecordRefused,
                  refused.message);
  }
  return output;
}

ResolveResult ResolveRecorded(Evidence& evidence, proctape::Request request,
                              const v1::RootFingerprint& fingerprint, Record when,
                              std::unique_ptr<OutputFile> output, const FrameSource& frames,
                              v1::Header header) {
  ResolveResult result;
  proctape::Verdict verdict;
  // The request holds the fingerprint taken before the turn: not late.
  LiveCheck check = ResolveCheck(&request, fingerprint.exe_path(), false, &verdict, &fingerprint);
  if (when == Record::kNever || !output) {
    v1::Resolution unused;
    check(evidence, &unused);
  } else {
    const std::string path = output->path();
    const std::string shown = output->shown();
    RecordPlan plan;
    plan.scan.kept_entries = {TokenEntry(request)};
    plan.header = std::move(header);
    plan.header.mutable_redaction()->clear_kept_entries();
    plan.header.mutable_redaction()->add_kept_entries(plan.scan.kept_entries[0]);
    plan.frames = frames;
    plan.frame_before_first = when == Record::kAlways;
    if (when == Record::kOnFailure) plan.keep = [&verdict] { return !verdict.resolved(); };
    Failure failure;
    switch (RecordChecks(evidence, plan, std::move(output), {LiveStep{nullptr, check}}, &failure)) {
      case RecordOutcome::kWritten: result.recording = path; break;
      case RecordOutcome::kDiscarded: break;
      case RecordOutcome::kFailed:
        result.error = Fail(ErrorCode::kRecordFailed,
                            "cannot write the recording " + shown + ": " + failure.message);
        break;
    }
  }
  result.ran = true;
  result.verdict = FromCore(verdict);
  result.verdict.boot_id = fingerprint.boot_id();  // its start tick's boot
  return result;
}

}  // namespace proctape::api::detail
