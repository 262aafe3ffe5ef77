// SPDX-License-Identifier: Apache-2.0
#include "capi/edge.h"

#include <algorithm>
#include <cstring>

namespace proctape::capi {

void CopyText(char* dst, std::size_t n, const std::string& s) noexcept {
  const std::size_t len = std::min(s.size(), n - 1);
  std::memcpy(dst, s.data(), len);
  dst[len] = '\0';
}

// A boot id given out: without /proc/sys/kernel/random/boot_id's newline,
// as the CLI prints it; taken back in, the newline the C++ API compares with.
static std::string BootOut(std::string id) {
  if (!id.empty() && id.back() == '\n') id.pop_back();
  return id;
}
static std::string BootIn(std::string id) {
  if (!id.empty() && id.back() != '\n') id.push_back('\n');
  return id;
}

proctape_status Report(proctape_error* err, proctape_status status,
                       const std::string& message) noexcept {
  if (err != nullptr) {
    err->status = status;
    CopyText(err->message, message);
  }
  return status;
}

proctape_status Report(proctape_error* err, const api::Error& error) noexcept {
  return Report(err, static_cast<proctape_status>(error.code), error.message);
}

api::LiveOptions ToOptions(const proctape_options* options) {
  api::LiveOptions out;
  if (options == nullptr) return out;
  if (options->proc_root != nullptr) out.proc_root = options->proc_root;
  out.scan_threads = options->scan_threads;
  if (options->command_line != nullptr) {
    for (std::size_t i = 0; i < options->command_line_len; ++i) {
      out.command_line.emplace_back(options->command_line[i] ? options->command_line[i] : "");
    }
  }
  return out;
}

void FromVerdict(const api::Verdict& in, proctape_verdict* out) noexcept {
  *out = proctape_verdict{};
  out->status = static_cast<int>(in.status);
  out->pid = in.pid;
  out->start_ticks = in.start_ticks;
  out->subject_pid = in.subject_pid;
  out->has_subject_start_ticks = in.subject_start_ticks.has_value();
  out->subject_start_ticks = in.subject_start_ticks.value_or(0);
  out->has_expected_ticks = in.expected_ticks.has_value();
  out->expected_ticks = in.expected_ticks.value_or(0);
  CopyText(out->file, in.file);
  out->err = in.err;
  out->evidence_len = std::min(in.evidence.size(), sizeof out->evidence);
  std::memcpy(out->evidence, in.evidence.data(), out->evidence_len);
  CopyText(out->detail, in.detail);
  out->attempts = in.attempts;
  out->bytes_read = in.bytes_read;
  out->match_count = in.matches.size();
  std::copy_n(in.matches.begin(), std::min<std::size_t>(in.matches.size(), PROCTAPE_MATCHES_MAX),
              out->matches);
  CopyText(out->boot_id, BootOut(in.boot_id));
}

void FromLiveness(const api::LivenessVerdict& in, proctape_liveness_verdict* out) noexcept {
  *out = proctape_liveness_verdict{};
  out->status = static_cast<int>(in.status);
  // The reason exists for ERROR alone: otherwise none, not a real-looking status.
  out->reason =
      in.status == api::Liveness::kError ? static_cast<int>(in.reason) : PROCTAPE_VERDICT_NONE;
  CopyText(out->state, in.state);
  CopyText(out->detail, in.detail);
  out->err = in.err;
  out->boot_unchecked = in.boot_unchecked;
}

void FromFingerprint(const api::Fingerprint& in, proctape_fingerprint* out) noexcept {
  *out = proctape_fingerprint{};
  out->root_pid = in.root_pid;
  out->root_start_ticks = in.root_start_ticks;
  CopyText(out->root_comm, in.root_comm);
  CopyText(out->exe_path, in.exe_path);
  out->exe_dev = in.exe_dev;
  out->exe_ino = in.exe_ino;
  CopyText(out->boot_id, BootOut(in.boot_id));
  out->taken_mono_ns = in.taken_mono_ns;
  out->taken_realtime_ns = in.taken_realtime_ns;
}

// Bounded reads: a struct a caller filled by hand may lack its NUL.
static std::string Field(const char* s, std::size_t n) { return std::string(s, strnlen(s, n)); }

api::Fingerprint ToFingerprint(const proctape_fingerprint& in) {
  api::Fingerprint out;
  out.root_pid = in.root_pid;
  out.root_start_ticks = in.root_start_ticks;
  out.root_comm = Field(in.root_comm, sizeof in.root_comm);
  out.exe_path = Field(in.exe_path, sizeof in.exe_path);
  out.exe_dev = in.exe_dev;
  out.exe_ino = in.exe_ino;
  out.boot_id = BootIn(Field(in.boot_id, sizeof in.boot_id));
  out.taken_mono_ns = in.taken_mono_ns;
  out.taken_realtime_ns = in.taken_realtime_ns;
  return out;
}

}  // namespace proctape::capi
