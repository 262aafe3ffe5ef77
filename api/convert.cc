// SPDX-License-Identifier: Apache-2.0
#include "api/convert.h"

#include <utility>

#include "core/evidence.h"

namespace proctape::api {

std::string_view Version() noexcept { return PROCTAPE_VERSION; }

std::string_view ErrorCodeName(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kNone: return "NONE";
    case ErrorCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case ErrorCode::kProc: return "PROC";
    case ErrorCode::kRoot: return "ROOT";
    case ErrorCode::kExe: return "EXE";
    case ErrorCode::kOtherBoot: return "OTHER_BOOT";
    case ErrorCode::kRecordRefused: return "RECORD_REFUSED";
    case ErrorCode::kRecordFailed: return "RECORD_FAILED";
    case ErrorCode::kIo: return "IO";
    case ErrorCode::kNotPtape: return "NOT_PTAPE";
    case ErrorCode::kNewerVersion: return "NEWER_VERSION";
    case ErrorCode::kTruncated: return "TRUNCATED";
    case ErrorCode::kChecksum: return "CHECKSUM";
    case ErrorCode::kCorrupt: return "CORRUPT";
    case ErrorCode::kTooLarge: return "TOO_LARGE";
    case ErrorCode::kNotAFingerprint: return "NOT_A_FINGERPRINT";
    case ErrorCode::kInternal: return "INTERNAL";
  }
  return "UNKNOWN";
}

// The values are the core's and the schema's (include/proctape/types.h).
std::string_view StatusName(Status status) noexcept {
  return proctape::StatusName(static_cast<proctape::Status>(status));
}

std::string_view LivenessName(Liveness liveness) noexcept {
  return proctape::LivenessName(static_cast<proctape::LivenessStatus>(liveness));
}

namespace detail {

Verdict FromCore(const proctape::Verdict& v) {
  Verdict out;
  out.status = static_cast<Status>(v.status);
  out.pid = v.pid;
  out.start_ticks = v.start_ticks;
  out.subject_pid = v.subject_pid;
  out.subject_start_ticks = v.subject_start_ticks;
  out.expected_ticks = v.expected_ticks;
  if (v.file != 0) out.file = std::string(ProcFileName(static_cast<ProcFile>(v.file)));
  out.err = v.err;
  out.evidence = v.evidence;
  out.detail = v.detail;
  out.attempts = v.attempts;
  out.bytes_read = v.bytes_read;
  out.matches = v.matches;
  return out;
}

LivenessVerdict FromCore(const proctape::LivenessVerdict& v) {
  LivenessVerdict out;
  out.status = static_cast<Liveness>(v.status);
  out.reason = static_cast<Status>(v.reason);
  out.state = v.state;
  out.detail = v.detail;
  out.err = v.err;
  out.boot_unchecked = v.boot_unchecked;
  return out;
}

Fingerprint FromProto(const v1::RootFingerprint& f) {
  Fingerprint out;
  out.root_pid = f.root_pid();
  out.root_start_ticks = f.root_start_ticks();
  out.root_comm = f.root_comm();
  out.exe_path = f.exe_path();
  out.exe_dev = f.exe_identity().dev();
  out.exe_ino = f.exe_identity().ino();
  out.boot_id = f.boot_id();
  out.taken_mono_ns = f.taken_mono_ns();
  out.taken_realtime_ns = f.taken_realtime_ns();
  return out;
}

v1::RootFingerprint ToProto(const Fingerprint& f) {
  v1::RootFingerprint out;
  out.set_root_pid(f.root_pid);
  out.set_root_start_ticks(f.root_start_ticks);
  out.set_root_comm(f.root_comm);
  out.set_exe_path(f.exe_path);
  out.mutable_exe_identity()->set_dev(f.exe_dev);
  out.mutable_exe_identity()->set_ino(f.exe_ino);
  out.set_boot_id(f.boot_id);
  out.set_taken_mono_ns(f.taken_mono_ns);
  out.set_taken_realtime_ns(f.taken_realtime_ns);
  return out;
}

proctape::Request ToCore(const Request& r) {
  proctape::Request out;
  out.token = r.token;
  out.token_var = r.token_var;
  out.argv = r.argv;
  out.bounds.deadline_ns = r.deadline_ms * 1'000'000;
  out.bounds.byte_budget = r.byte_budget;
  return out;
}

Error FromFormat(const FormatError& e) {
  ErrorCode code = ErrorCode::kNone;
  switch (e.kind) {
    case FormatErrorKind::kNone: return Error{};
    case FormatErrorKind::kIo: code = ErrorCode::kIo; break;
    case FormatErrorKind::kBadMagic: code = ErrorCode::kNotPtape; break;
    case FormatErrorKind::kNewerVersion: code = ErrorCode::kNewerVersion; break;
    case FormatErrorKind::kTruncated: code = ErrorCode::kTruncated; break;
    case FormatErrorKind::kChecksum: code = ErrorCode::kChecksum; break;
    case FormatErrorKind::kCorrupt: code = ErrorCode::kCorrupt; break;
    case FormatErrorKind::kTooLarge: code = ErrorCode::kTooLarge; break;
  }
  return Error{code, e.message};
}

Error Fail(ErrorCode code, std::string message) { return Error{code, std::move(message)}; }

}  // namespace detail
}  // namespace proctape::api
