// SPDX-License-Identifier: Apache-2.0
#include "proto/summary.h"

#include <time.h>

#include <cstdio>

#include "core/proc_parse.h"

namespace proctape {

std::uint32_t Count32(std::uint64_t n) {
  return n > UINT32_MAX ? UINT32_MAX : static_cast<std::uint32_t>(n);
}

std::int32_t Int32(std::int64_t v) {
  return v < INT32_MIN || v > INT32_MAX ? kNotA32BitValue : static_cast<std::int32_t>(v);
}

std::string EscapedText(std::string_view bytes) { return EscapeBytes(bytes, bytes.size()); }

std::string Printable(std::string_view text) {
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(ch);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string DoubleQuoted(std::string_view escaped) {
  std::string out = "\"";
  for (char c : escaped) {
    if (c == '"') {
      out += "\\x22";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string CutEscaped(std::string_view escaped) {
  constexpr std::size_t kMax = 256;
  std::size_t units = 0;
  std::size_t at = 0;
  while (at < escaped.size() && units < kMax) {
    at += escaped[at] == '\\' && at + 4 <= escaped.size() ? 4 : 1;
    ++units;
  }
  if (at >= escaped.size()) return std::string(escaped);
  return std::string(escaped.substr(0, at)) + "...";
}

std::string QuoteEscaped(std::string_view escaped) { return DoubleQuoted(CutEscaped(escaped)); }

std::string IntegerText(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::int64_t AsInt64(double v) {
  if (!(v > -9.2233720368547758e18)) return INT64_MIN;  // NaN too
  if (v >= 9.2233720368547758e18) return INT64_MAX;
  return static_cast<std::int64_t>(v);
}

std::uint64_t AsUint64(double v) {
  if (!(v > 0)) return 0;
  if (v >= 1.8446744073709552e19) return UINT64_MAX;
  return static_cast<std::uint64_t>(v);
}

std::string UtcText(std::int64_t realtime_ns) {
  if (realtime_ns <= 0) return "";
  const time_t seconds = static_cast<time_t>(realtime_ns / 1'000'000'000);
  struct tm tm;
  if (gmtime_r(&seconds, &tm) == nullptr) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(realtime_ns % 1'000'000'000 / 1'000'000));
  return buf;
}

v1::IdentitySummary ToSummary(const v1::FileIdentity& id) {
  v1::IdentitySummary s;
  s.set_dev(id.dev());
  s.set_ino(id.ino());
  s.set_err(id.err());
  s.set_link_text(EscapedText(id.link_text()));
  return s;
}

v1::BoundsSummary ToSummary(const v1::Bounds& b) {
  v1::BoundsSummary s;
  s.set_max_proc_entries(Count32(b.max_proc_entries()));
  s.set_max_nodes(Count32(b.max_nodes()));
  s.set_max_depth(b.max_depth());
  s.set_stat_bytes(static_cast<double>(b.stat_bytes()));
  s.set_cmdline_bytes(static_cast<double>(b.cmdline_bytes()));
  s.set_environ_bytes(static_cast<double>(b.environ_bytes()));
  s.set_status_bytes(static_cast<double>(b.status_bytes()));
  s.set_byte_budget(static_cast<double>(b.byte_budget()));
  s.set_deadline_ns(static_cast<double>(b.deadline_ns()));
  s.set_retry_interval_ns(static_cast<double>(b.retry_interval_ns()));
  return s;
}

namespace {

// A value of a stored enum a view may print: a known one other than the
// zero value (UNSPECIFIED), which a view shows by its name; anything else
// (0, or a value a hand-made file holds) is shown as absent or as a word.
bool Named(const google::protobuf::EnumDescriptor* e, int value) {
  return value != 0 && e->FindValueByNumber(value) != nullptr;
}

std::string EnumText(const google::protobuf::EnumDescriptor* e, int value) {
  if (value == 0) return "unknown status";
  if (!Named(e, value)) return "unknown status " + std::to_string(value);
  return e->FindValueByNumber(value)->name();
}

std::string NearMissDetail(const v1::NearMissSummary& m) {
  switch (m.rule()) {
    case v1::NearMiss::ARGV:
      if (m.argv().empty() && !m.argv_cut()) {
        return "argv empty (a kernel thread or a zombie): not the expected argv";
      }
      return "argv " + QuotedArgv(m.argv()) + (m.argv_cut() ? " ... (cut)" : "") +
             ": not the expected argv";
    case v1::NearMiss::TOKEN:
      return m.token_entries() == 0
                 ? std::string(
                       "argv exact; no entry named the token variable: not this "
                       "invocation's")
                 : "argv exact; " + Plural(m.token_entries(), "entry", "entries") +
                       " named the token variable, none with this token: another "
                       "invocation's";
    case v1::NearMiss::EXECUTABLE:
      return "argv and token match; the deadline passed before its executable was checked";
    case v1::NearMiss::ANCESTRY:
      return "argv, token and executable match; its ancestry was not confirmed (the deadline "
             "passed, or an ancestor vanished, before it was re-read)";
    case v1::NearMiss::VANISHED: return "vanished during inspection (the attempt was retried)";
    default: break;
  }
  return "rule " + std::to_string(m.rule()) + " (unknown to this proctape)";
}

}  // namespace

std::string QuotedArgv(const google::protobuf::RepeatedPtrField<std::string>& argv) {
  constexpr int kShown = 16;
  std::string out;
  for (int i = 0; i < argv.size() && i < kShown; ++i) {
    if (i > 0) out += " ";
    out += QuoteEscaped(argv[i]);
  }
  if (argv.size() > kShown) out += " ... (" + std::to_string(argv.size() - kShown) + " more)";
  return out;
}

std::string StatusText(int status) { return EnumText(v1::Verdict::Status_descriptor(), status); }

std::string LivenessStatusText(int status) {
  return EnumText(v1::LivenessVerdict::Status_descriptor(), status);
}

std::string LivenessText(const v1::LivenessSummary& v) {
  std::string out = LivenessStatusText(v.status());
  if (v.status() == v1::LivenessVerdict::ERROR) out.append(" ").append(StatusText(v.reason()));
  if (v.boot_unchecked()) out += " (boot not checked)";
  return out;
}

std::string LivenessLine(const v1::LivenessSummary& v) {
  return v.detail().empty() ? LivenessText(v) : LivenessText(v) + ": " + v.detail();
}

v1::NearMissSummary ToSummary(const v1::NearMiss& m) {
  v1::NearMissSummary s;
  s.set_pid(Int32(m.pid()));
  s.set_start_ticks(m.start_ticks());
  s.set_rule(m.rule());
  if (m.rule() == v1::NearMiss::ARGV) {
    for (std::string_view a : SplitNul(m.argv())) s.add_argv(EscapedText(a));
    s.set_argv_cut(m.argv_cut());
  }
  if (m.rule() == v1::NearMiss::TOKEN) s.set_token_entries(m.token_entries());
  s.set_detail(NearMissDetail(s));
  return s;
}

std::string SubjectText(const v1::VerdictSummary& v) {
  if (!v.has_subject_pid()) return "";
  const std::string pid = "pid " + std::to_string(v.subject_pid());
  if (!v.has_subject_start_ticks()) return pid + ", start tick unknown";
  return pid + ", start tick " + std::to_string(v.subject_start_ticks());
}

std::string NearMissLines(const v1::VerdictSummary& v, std::string_view indent) {
  std::string out;
  for (const v1::NearMissSummary& m : v.near_misses()) {
    out.append(indent).append("near miss: pid " + std::to_string(m.pid()) + ", start tick " +
                              std::to_string(m.start_ticks()) + ": " + Printable(m.detail()) +
                              "\n");
  }
  if (v.near_misses_omitted() > 0) {
    out.append(indent).append(
        "near misses: " + Plural(v.near_misses_omitted(), "other process", "other processes") +
        " beneath the root not listed\n");
  }
  return out;
}

v1::VerdictSummary ToSummary(const v1::Verdict& v) {
  v1::VerdictSummary s;
  if (Named(v1::Verdict::Status_descriptor(), v.status())) s.set_status(v.status());
  if (v.has_pid()) s.set_pid(Int32(v.pid()));
  if (v.has_start_ticks()) s.set_start_ticks(v.start_ticks());
  if (Named(v1::ProcFile_descriptor(), v.file())) s.set_file(v.file());
  s.set_err(v.err());
  s.set_evidence(EscapedText(v.evidence()));
  s.set_detail(Printable(v.detail()));
  s.set_attempts(v.attempts());
  s.set_bytes_read(static_cast<double>(v.bytes_read()));
  for (std::int64_t m : v.matches()) s.add_matches(Int32(m));
  if (v.has_expected_ticks()) s.set_expected_ticks(v.expected_ticks());
  if (v.subject_pid() != 0) s.set_subject_pid(Int32(v.subject_pid()));
  if (v.has_subject_start_ticks()) s.set_subject_start_ticks(v.subject_start_ticks());
  s.set_late_fingerprint(v.late_fingerprint());
  for (const v1::NearMiss& m : v.near_misses()) *s.add_near_misses() = ToSummary(m);
  s.set_near_misses_omitted(v.near_misses_omitted());
  return s;
}

v1::LivenessSummary ToSummary(const v1::LivenessVerdict& v) {
  v1::LivenessSummary s;
  if (Named(v1::LivenessVerdict::Status_descriptor(), v.status())) s.set_status(v.status());
  if (Named(v1::Verdict::Status_descriptor(), v.reason())) s.set_reason(v.reason());
  s.set_state(EscapedText(v.state()));
  s.set_detail(Printable(v.detail()));
  s.set_err(v.err());
  s.set_boot_unchecked(v.boot_unchecked());
  return s;
}

v1::FingerprintSummary ToSummary(const v1::RootFingerprint& f, std::string_view file_boot_id) {
  v1::FingerprintSummary s;
  s.set_root_pid(Int32(f.root_pid()));
  s.set_root_start_ticks(f.root_start_ticks());
  s.set_root_comm(EscapedText(f.root_comm()));
  s.set_exe_path(EscapedText(f.exe_path()));
  *s.mutable_exe_identity() = ToSummary(f.exe_identity());
  std::string_view boot = f.boot_id();
  if (!boot.empty() && boot.back() == '\n') boot.remove_suffix(1);
  s.set_boot_id(EscapedText(boot));
  s.set_boot_of_file(!f.boot_id().empty() && f.boot_id() == file_boot_id);
  s.set_taken_mono_ns(f.taken_mono_ns());
  s.set_taken_realtime_ns(f.taken_realtime_ns());
  s.set_taken_utc(UtcText(f.taken_realtime_ns()));
  return s;
}

v1::RequestSummary ToSummary(const v1::ResolutionRequest& q, std::string_view file_boot_id) {
  v1::RequestSummary s;
  s.set_root_pid(Int32(q.root_pid()));
  s.set_root_start_ticks(q.root_start_ticks());
  s.set_token_var(EscapedText(q.token_var()));
  s.set_token_bytes(Count32(q.token().size()));
  for (const std::string& a : q.argv()) s.add_argv(EscapedText(a));
  s.set_exe_path(EscapedText(q.exe_path()));
  *s.mutable_exe_identity() = ToSummary(q.exe_identity());
  if (q.has_bounds()) *s.mutable_bounds() = ToSummary(q.bounds());
  s.set_fingerprint_on_tape(q.fingerprint_on_tape());
  if (q.has_fingerprint()) *s.mutable_fingerprint() = ToSummary(q.fingerprint(), file_boot_id);
  return s;
}

v1::LivenessRequestSummary ToSummary(const v1::LivenessRequest& q) {
  v1::LivenessRequestSummary s;
  s.set_pid(Int32(q.pid()));
  s.set_start_ticks(q.start_ticks());
  return s;
}

v1::CheckSummary ToSummary(const v1::Resolution& r, std::uint32_t index,
                           std::string_view file_boot_id) {
  v1::CheckSummary s;
  s.set_index(index);
  if (r.has_resolve()) {
    s.set_kind("resolve");
    *s.mutable_resolve() = ToSummary(r.resolve(), file_boot_id);
  } else if (r.has_liveness()) {
    s.set_kind("liveness");
    *s.mutable_liveness() = ToSummary(r.liveness());
  }
  if (r.has_verdict()) *s.mutable_verdict() = ToSummary(r.verdict());
  if (r.has_liveness_verdict()) *s.mutable_liveness_verdict() = ToSummary(r.liveness_verdict());
  return s;
}

v1::ReplaySummary ToSummary(const v1::ReplayResult& r) {
  v1::ReplaySummary s;
  if (r.outcome() != v1::ReplayResult::OUTCOME_UNSPECIFIED) s.set_outcome(r.outcome());
  s.set_resolution_index(Count32(r.resolution_index()));
  if (r.has_recorded()) *s.mutable_recorded() = ToSummary(r.recorded());
  if (r.has_replayed()) *s.mutable_replayed() = ToSummary(r.replayed());
  if (r.has_recorded_liveness()) *s.mutable_recorded_liveness() = ToSummary(r.recorded_liveness());
  if (r.has_replayed_liveness()) *s.mutable_replayed_liveness() = ToSummary(r.replayed_liveness());
  s.set_consumed(Count32(r.consumed()));
  s.set_recorded_count(Count32(r.recorded_count()));
  s.set_divergence_index(Count32(r.divergence_index()));
  s.set_recorded_call(Printable(r.recorded_call()));
  s.set_made_call(Printable(r.made_call()));
  s.set_request_changed(r.request_changed());
  if (r.has_unanswered()) s.set_unanswered(r.unanswered());
  return s;
}

}  // namespace proctape
