// SPDX-License-Identifier: Apache-2.0
#include "proto/convert.h"

#include <google/protobuf/util/json_util.h>

#include "core/proc_parse.h"
#include "proto/json_pieces.h"

namespace proctape {

v1::Bounds ToProto(const Bounds& b) {
  v1::Bounds out;
  out.set_max_proc_entries(b.max_entries);
  out.set_max_nodes(b.max_nodes);
  out.set_max_depth(b.max_depth);
  out.set_stat_bytes(b.stat_bytes);
  out.set_cmdline_bytes(b.cmdline_bytes);
  out.set_environ_bytes(b.environ_bytes);
  out.set_byte_budget(b.byte_budget);
  out.set_deadline_ns(b.deadline_ns);
  out.set_retry_interval_ns(b.retry_ns);
  return out;
}

Bounds FromProto(const v1::Bounds& b) {
  Bounds out;
  out.max_entries = b.max_proc_entries();
  out.max_nodes = b.max_nodes();
  out.max_depth = b.max_depth();
  out.stat_bytes = b.stat_bytes();
  out.cmdline_bytes = b.cmdline_bytes();
  out.environ_bytes = b.environ_bytes();
  out.byte_budget = b.byte_budget();
  out.deadline_ns = b.deadline_ns();
  out.retry_ns = b.retry_interval_ns();
  return out;
}

v1::FileIdentity ToProto(const Identity& id) {
  v1::FileIdentity out;
  out.set_dev(id.dev);
  out.set_ino(id.ino);
  out.set_err(id.err);
  return out;
}

Identity FromProto(const v1::FileIdentity& id) { return Identity{id.err(), id.dev(), id.ino()}; }

v1::ResolutionRequest ToProto(const Request& r) {
  v1::ResolutionRequest out;
  out.set_root_pid(r.root_pid);
  out.set_root_start_ticks(r.root_start_ticks);
  out.set_token(r.token);
  out.set_token_var(r.token_var);
  for (const auto& a : r.argv) out.add_argv(a);
  *out.mutable_exe_identity() = ToProto(r.exe);
  *out.mutable_bounds() = ToProto(r.bounds);
  return out;
}

Request FromProto(const v1::ResolutionRequest& r) {
  Request out;
  out.root_pid = r.root_pid();
  out.root_start_ticks = r.root_start_ticks();
  out.token = r.token();
  out.token_var = r.token_var();
  out.argv.assign(r.argv().begin(), r.argv().end());
  out.exe = FromProto(r.exe_identity());
  out.bounds = FromProto(r.bounds());
  if (r.has_fingerprint()) ApplyFingerprint(r.fingerprint(), &out);
  return out;
}

v1::Verdict ToProto(const Verdict& v) {
  v1::Verdict out;
  out.set_status(static_cast<v1::Verdict::Status>(v.status));
  if (v.resolved()) {
    out.set_pid(v.pid);
    out.set_start_ticks(v.start_ticks);
  } else {
    out.set_subject_pid(v.subject_pid);
    if (v.subject_start_ticks) out.set_subject_start_ticks(*v.subject_start_ticks);
  }
  out.set_late_fingerprint(v.late_fingerprint);
  if (v.expected_ticks) out.set_expected_ticks(*v.expected_ticks);
  if (v.file != 0) out.set_file(static_cast<v1::ProcFile>(v.file));
  out.set_err(v.err);
  out.set_evidence(v.evidence);
  // `detail` is a string field: hostile bytes quoted in it must not make the
  // message invalid UTF-8 (protobuf would refuse to parse it back).
  out.set_detail(EscapeBytes(v.detail, v.detail.size()));
  out.set_attempts(v.attempts);
  out.set_bytes_read(v.bytes_read);
  for (auto m : v.matches) out.add_matches(m);
  for (const NearMiss& m : v.near_misses) {
    v1::NearMiss* n = out.add_near_misses();
    n->set_pid(m.pid);
    n->set_start_ticks(m.start_ticks);
    n->set_rule(static_cast<v1::NearMiss::Rule>(m.rule));
    n->set_argv(m.argv);
    n->set_argv_cut(m.argv_cut);
    n->set_token_entries(m.token_entries);
  }
  out.set_near_misses_omitted(v.near_misses_omitted);
  return out;
}

Verdict FromProto(const v1::Verdict& v) {
  Verdict out;
  out.status = static_cast<Status>(v.status());
  out.pid = v.pid();
  out.start_ticks = v.start_ticks();
  out.subject_pid = v.subject_pid();
  if (v.has_subject_start_ticks()) out.subject_start_ticks = v.subject_start_ticks();
  out.late_fingerprint = v.late_fingerprint();
  if (v.has_expected_ticks()) out.expected_ticks = v.expected_ticks();
  out.file = v.file();
  out.err = v.err();
  out.evidence = v.evidence();
  out.detail = v.detail();
  out.attempts = v.attempts();
  out.bytes_read = v.bytes_read();
  out.matches.assign(v.matches().begin(), v.matches().end());
  for (const v1::NearMiss& m : v.near_misses()) {
    out.near_misses.push_back(NearMiss{m.pid(), m.start_ticks(),
                                       static_cast<NearMiss::Rule>(m.rule()), m.argv(),
                                       m.argv_cut(), m.token_entries()});
  }
  out.near_misses_omitted = v.near_misses_omitted();
  return out;
}

v1::LivenessVerdict ToProto(const LivenessVerdict& v) {
  v1::LivenessVerdict out;
  out.set_status(static_cast<v1::LivenessVerdict::Status>(v.status));
  if (v.status == LivenessStatus::kError)
    out.set_reason(static_cast<v1::Verdict::Status>(v.reason));
  out.set_state(v.state);
  // `detail` is a string field: hostile bytes quoted in it must not make the
  // message invalid UTF-8 (protobuf would refuse to parse it back).
  out.set_detail(EscapeBytes(v.detail, v.detail.size()));
  out.set_err(v.err);
  out.set_boot_unchecked(v.boot_unchecked);
  return out;
}

void ApplyFingerprint(const v1::RootFingerprint& fingerprint, Request* request) {
  request->root_pid = fingerprint.root_pid();
  request->root_start_ticks = fingerprint.root_start_ticks();
  request->exe = FromProto(fingerprint.exe_identity());
}

void UpgradeLiveness(v1::Resolution* r) {
  if (r->has_liveness() && r->has_liveness_verdict() && r->liveness().boot_id().empty()) {
    r->mutable_liveness_verdict()->set_boot_unchecked(true);
  }
}

void UpgradeVerdict(v1::Verdict* v) {
  if (v->status() == v1::Verdict::RESOLVED) return;
  if (v->subject_pid() == 0 && v->pid() != 0) v->set_subject_pid(v->pid());
  if (!v->has_subject_start_ticks() && v->start_ticks() != 0) {
    v->set_subject_start_ticks(v->start_ticks());
  }
  v->clear_pid();
  v->clear_start_ticks();
}

const v1::FileRead* RecordedRead(const v1::ProcessRecord& r, ProcFile file) {
  switch (file) {
    case ProcFile::kStat: return r.has_stat() ? &r.stat() : nullptr;
    case ProcFile::kCmdline: return r.has_cmdline() ? &r.cmdline() : nullptr;
    case ProcFile::kEnviron: return r.has_environ() ? &r.environ() : nullptr;
    case ProcFile::kStatus: return r.has_status() ? &r.status() : nullptr;
    case ProcFile::kCgroup: return r.has_cgroup() ? &r.cgroup() : nullptr;
    case ProcFile::kExe: return nullptr;
  }
  return nullptr;
}

std::string ToJson(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  if (AppendJsonPieces(message, options, &out)) out.clear();
  return out;
}

MaybeFailure ToJsonChecked(const google::protobuf::Message& message, std::string* out,
                           std::uint64_t max_bytes) {
  out->clear();
  const std::uint64_t size = message.ByteSizeLong();
  if (size > max_bytes) {
    return Failure(FailureKind::kTooLarge, "the document's message is " + std::to_string(size) +
                                               " bytes serialized, over protobuf's limit of " +
                                               std::to_string(max_bytes) +
                                               " bytes: the JSON cannot be written");
  }
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  if (MaybeFailure failed = AppendJsonPieces(message, options, out)) {
    out->clear();
    return Failure(failed->kind, "cannot print JSON: " + failed->message, failed->sys_errno);
  }
  return std::nullopt;
}

}  // namespace proctape
