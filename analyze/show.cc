#include "analyze/show.h"

#include <time.h>

#include <cinttypes>
#include <cstdio>
#include <string_view>

#include "analyze/process_table.h"
#include "analyze/token_mask.h"
#include "analyze/tree.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

// Text proctape composed, read back from an untrusted file: printable ASCII
// as is (backslashes too: such text may already hold escapes), other bytes
// as \xNN.
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

std::string Escaped(std::string_view bytes) { return EscapeBytes(bytes, bytes.size()); }

// "2026-12-01T03:24:48.781Z"; empty when unknown.
std::string Utc(std::int64_t realtime_ns) {
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

// b - a, or 0 when it would overflow or be negative.
std::int64_t Span(std::int64_t a, std::int64_t b) {
  std::int64_t d = 0;
  if (__builtin_sub_overflow(b, a, &d) || d < 0) return 0;
  return d;
}

// "5.114 ms".
std::string Ms(std::int64_t ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%" PRId64 ".%03" PRId64 " ms", ns / 1'000'000,
                ns % 1'000'000 / 1'000);
  return buf;
}

// "13106.570713659 s".
std::string Seconds(std::int64_t ns) {
  char buf[48];
  if (ns < 0) {
    std::snprintf(buf, sizeof buf, "%" PRId64 " ns", ns);
  } else {
    std::snprintf(buf, sizeof buf, "%" PRId64 ".%09" PRId64 " s", ns / 1'000'000'000,
                  ns % 1'000'000'000);
  }
  return buf;
}

std::uint64_t TruncatedReads(const v1::Frame& frame) {
  std::uint64_t n = 0;
  for (const v1::ProcessRecord& r : frame.processes()) {
    for (const v1::FileRead* read : {&r.stat(), &r.cmdline(), &r.environ(), &r.status(), &r.cgroup()}) {
      if (read->truncated()) ++n;
    }
  }
  return n;
}

std::string StatusText(const v1::Verdict& v) {
  std::string name = v1::Verdict::Status_Name(v.status());
  return name.empty() ? "status " + std::to_string(v.status()) : name;
}

std::string LivenessText(const v1::LivenessVerdict& v) {
  std::string name = v1::LivenessVerdict::Status_Name(v.status());
  std::string out = name.empty() ? "status " + std::to_string(v.status()) : name;
  if (v.status() == v1::LivenessVerdict::ERROR) {
    std::string reason = v1::Verdict::Status_Name(v.reason());
    out += " " + (reason.empty() ? "reason " + std::to_string(v.reason()) : reason);
  }
  return out;
}

std::string Plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

v1::ShowReport::Resolution SummarizeResolution(const v1::Resolution& r, std::size_t index,
                                     std::size_t observations_read) {
  v1::ShowReport::Resolution s;
  s.set_index(index);
  if (r.has_resolve()) {
    const v1::ResolutionRequest& q = r.resolve();
    s.set_kind("resolve");
    s.set_root_pid(q.root_pid());
    s.set_root_start_ticks(q.root_start_ticks());
    s.set_fingerprint_on_tape(q.fingerprint_on_tape());
    s.set_token_var(Escaped(q.token_var()));
    s.set_token_bytes(q.token().size());
    for (const std::string& a : q.argv()) s.add_argv(Escaped(a));
    s.set_exe_path(Escaped(q.exe_path()));
    *s.mutable_exe_identity() = q.exe_identity();
  } else if (r.has_liveness()) {
    s.set_kind("liveness");
    s.set_pid(r.liveness().pid());
    s.set_start_ticks(r.liveness().start_ticks());
  }
  if (r.has_verdict()) *s.mutable_verdict() = r.verdict();
  if (r.has_liveness_verdict()) *s.mutable_liveness_verdict() = r.liveness_verdict();
  s.set_first_observation(r.first_observation());
  s.set_observation_count(r.observation_count());
  s.set_observations_read(r.first_observation() <= observations_read &&
                          r.observation_count() <= observations_read - r.first_observation());
  s.set_start_mono_ns(r.start_mono_ns());
  s.set_end_mono_ns(r.end_mono_ns());
  return s;
}

}  // namespace

v1::ShowReport BuildShow(const Snapshot& snap, const FormatError& error, const std::string& name) {
  v1::ShowReport report;
  const v1::Header& h = snap.header;
  report.set_file(name);
  report.set_intact(error.ok());
  report.set_error_kind(FormatErrorName(error.kind));
  report.set_error(Printable(error.message));
  report.set_chunks(snap.chunks);
  report.set_bytes(snap.bytes);
  report.set_format_version(h.format_version());
  report.set_tool_version(Printable(h.tool_version()));
  for (const std::string& arg : h.command_line()) report.add_command_line(Escaped(arg));
  // A fact the file does not hold is unknown: absent, and named in `unknown`
  // (an import of a fixture records no fact of the machine that imported it).
  const v1::HostFacts& host = h.host();
  std::string_view boot = host.boot_id();
  if (!boot.empty() && boot.back() == '\n') boot.remove_suffix(1);
  auto known = [&report](const char* fact, bool is_known) {
    if (!is_known) report.add_unknown(fact);
    return is_known;
  };
  if (known("hostname", !host.hostname().empty())) report.set_hostname(Escaped(host.hostname()));
  if (known("kernel_release", !host.kernel_release().empty())) {
    report.set_kernel_release(Escaped(host.kernel_release()));
  }
  if (known("boot_id", !boot.empty())) report.set_boot_id(Escaped(boot));
  if (known("pid_max", host.pid_max() != 0)) report.set_pid_max(host.pid_max());
  if (known("clock_ticks_per_second", host.clock_ticks_per_second() != 0)) {
    report.set_clock_ticks_per_second(host.clock_ticks_per_second());
  }
  if (known("page_size", host.page_size() != 0)) report.set_page_size(host.page_size());
  report.set_capture_start_realtime_ns(h.capture_start_realtime_ns());
  report.set_capture_start_utc(Utc(h.capture_start_realtime_ns()));
  report.set_capture_start_mono_ns(h.capture_start_mono_ns());
  if (snap.footer) report.set_capture_end_mono_ns(snap.footer->capture_end_mono_ns());
  report.set_footer(snap.footer.has_value());
  report.set_capturer_pid(h.capturer_pid());
  report.set_capturer_uid(h.capturer_uid());
  if (known("capturer_pid_ns_inode", h.capturer_pid_ns_inode() != 0)) {
    report.set_capturer_pid_ns_inode(h.capturer_pid_ns_inode());
  }
  report.set_capturer_in_initial_pid_ns(h.capturer_pid_ns_inode() == kInitialPidNsInode);
  if (h.has_bounds()) *report.mutable_bounds() = h.bounds();

  switch (h.redaction().environ()) {
    case v1::RedactionPolicy::ENVIRON_REDACTED: report.set_environ("REDACTED"); break;
    case v1::RedactionPolicy::ENVIRON_KEPT:
      report.set_environ("KEPT");
      report.set_warning("environment values are stored as read (--env keep): this file holds "
                         "whatever secrets the captured environments held");
      break;
    default: report.set_environ("UNSPECIFIED"); break;
  }
  for (const std::string& entry : h.redaction().kept_entries()) {
    v1::ShowReport::KeptEntry* k = report.add_kept_entries();
    const std::size_t eq = entry.find('=');
    k->set_name(Escaped(std::string_view(entry).substr(0, eq)));
    k->set_value_bytes(eq == std::string::npos ? 0 : entry.size() - eq - 1);
  }

  std::uint64_t processes = 0;
  for (std::size_t i = 0; i < snap.frames.size(); ++i) {
    const v1::Frame& f = snap.frames[i];
    const std::vector<ProcessView> table = ProcessTable(f);
    v1::ShowReport::Frame* s = report.add_frames();
    s->set_position(i);
    s->set_index(f.index());
    s->set_scan_start_mono_ns(f.scan_start_mono_ns());
    s->set_scan_end_mono_ns(f.scan_end_mono_ns());
    if (f.complete()) s->set_scan_ns(Span(f.scan_start_mono_ns(), f.scan_end_mono_ns()));
    s->set_records(static_cast<std::uint64_t>(f.processes_size()));
    s->set_processes(table.size());
    std::uint64_t unidentified = 0;
    for (const ProcessView& p : table) unidentified += p.has_identity() ? 0 : 1;
    s->set_unidentified(unidentified);
    s->set_truncated_reads(TruncatedReads(f));
    s->set_bytes_read(f.bytes_read());
    s->set_complete(f.complete());
    s->set_cut_by_bounds(f.cut_by_bounds());
    s->set_cut_reason(Printable(f.cut_reason()));
    s->set_before_resolution(-1);
    for (std::size_t r = 0; r < snap.resolutions.size(); ++r) {
      if (f.complete() && snap.resolutions[r].start_mono_ns() >= f.scan_end_mono_ns()) {
        s->set_before_resolution(static_cast<std::int64_t>(r));
        break;
      }
    }
    processes += static_cast<std::uint64_t>(f.processes_size());
  }
  report.set_processes(processes);
  report.set_observations(snap.observations.size());
  for (std::size_t i = 0; i < snap.resolutions.size(); ++i) {
    *report.add_resolutions() = SummarizeResolution(snap.resolutions[i], i, snap.observations.size());
  }
  // The command line that wrote the file (`--token VALUE`) and any other byte
  // shown: the token's length at most, never its value.
  TokenMask::Of(snap).Mask(&report);
  return report;
}

std::string RenderShow(const v1::ShowReport& r) {
  std::string out = "file: " + r.file() + "\n";
  if (r.chunks() == 0) {
    return out + "damage: " + r.error() + "; nothing could be read\n";
  }
  out += "written by: proctape " + r.tool_version() + " (format " +
         std::to_string(r.format_version()) + ")";
  if (r.command_line_size() > 0) {
    out += ":";
    for (const std::string& arg : r.command_line()) out += " " + arg;
  }
  out += "\n";
  // An unknown fact says so, unquoted: a host named "unknown" is quoted.
  auto text = [](bool has, const std::string& escaped) {
    return has ? Quoted(escaped) : std::string("unknown");
  };
  auto number = [](bool has, std::int64_t v) { return has ? std::to_string(v) : "unknown"; };
  out += "host: " + text(r.has_hostname(), r.hostname()) + ", kernel " +
         text(r.has_kernel_release(), r.kernel_release()) + ", boot_id " +
         text(r.has_boot_id(), r.boot_id()) + "\n";
  out += "  pid_max " + number(r.has_pid_max(), r.pid_max()) + ", " +
         (r.has_clock_ticks_per_second()
              ? std::to_string(r.clock_ticks_per_second()) + " clock ticks per second"
              : std::string("clock ticks per second unknown")) +
         ", page size " + number(r.has_page_size(), r.page_size()) + "\n";
  out += "capture: started " +
         (r.capture_start_utc().empty() ? std::string("at an unknown time") : r.capture_start_utc()) +
         " (monotonic " + Seconds(r.capture_start_mono_ns()) + ")";
  if (r.footer()) {
    out += ", ended " + Ms(Span(r.capture_start_mono_ns(), r.capture_end_mono_ns())) + " later";
  } else {
    out += ", no end recorded (no footer)";
  }
  out += "\n";
  out += "capturer: pid " + std::to_string(r.capturer_pid()) + ", uid " +
         std::to_string(r.capturer_uid()) + ", pid namespace ";
  if (!r.has_capturer_pid_ns_inode()) {
    out += "unknown (the pids in this file are of a namespace the file does not name)\n";
  } else if (r.capturer_in_initial_pid_ns()) {
    out += std::to_string(r.capturer_pid_ns_inode()) + " (the initial one: pids are host pids)\n";
  } else {
    out += std::to_string(r.capturer_pid_ns_inode()) + " (not the initial one, " +
           std::to_string(kInitialPidNsInode) +
           ": every pid in this file is a pid of that namespace)\n";
  }
  if (r.has_bounds()) {
    const v1::Bounds& b = r.bounds();
    std::string bounds;
    auto add = [&bounds](const char* key, std::uint64_t v) {
      if (v != 0) bounds += std::string(bounds.empty() ? "" : ", ") + key + " " + std::to_string(v);
    };
    add("max_proc_entries", b.max_proc_entries());
    add("max_nodes", b.max_nodes());
    add("max_depth", b.max_depth());
    add("stat_bytes", b.stat_bytes());
    add("cmdline_bytes", b.cmdline_bytes());
    add("environ_bytes", b.environ_bytes());
    add("status_bytes", b.status_bytes());
    add("byte_budget", b.byte_budget());
    if (!bounds.empty()) out += "bounds: " + bounds + "\n";
  }
  out += "environ: " + r.environ();
  if (r.environ() == "REDACTED") out += " (each value stored as '*' of its length)";
  for (int i = 0; i < r.kept_entries_size(); ++i) {
    const auto& k = r.kept_entries(i);
    out += (i == 0 ? "; kept verbatim: " : ", ") + k.name() + " (a value of " +
           std::to_string(k.value_bytes()) + " bytes, not shown)";
  }
  out += "\n";
  if (!r.warning().empty()) out += "WARNING: " + r.warning() + "\n";

  out += "frames: " + std::to_string(r.frames_size()) + " (" +
         Plural(r.processes(), "process record", "process records") + ")\n";
  for (const v1::ShowReport::Frame& f : r.frames()) {
    out += "  frame " + std::to_string(f.position()) + ": " +
           Plural(f.processes(), "process", "processes");
    if (f.records() != f.processes()) {
      out += " (" + std::to_string(f.records() - f.processes()) + " duplicate records)";
    }
    if (f.unidentified() > 0) out += ", " + std::to_string(f.unidentified()) + " without identity";
    if (f.complete()) {
      out += ", scan " + Ms(f.scan_ns());
    } else {
      out += ", INCOMPLETE (the capture stopped inside it)";
    }
    out += ", " + std::to_string(f.bytes_read()) + " bytes read";
    if (f.truncated_reads() > 0) {
      out += ", " + Plural(f.truncated_reads(), "read", "reads") + " truncated at its bound";
    }
    if (f.cut_by_bounds()) out += ", CUT by a bound: " + f.cut_reason();
    if (f.index() != f.position()) out += ", stored index " + std::to_string(f.index());
    if (f.before_resolution() >= 0) {
      out += ", before resolution " + std::to_string(f.before_resolution());
    } else if (f.complete() && r.resolutions_size() > 0) {
      out += ", after the last resolution";
    }
    out += "\n";
  }
  out += "tape: " + Plural(r.observations(), "observation", "observations") + "\n";
  out += "resolutions: " + std::to_string(r.resolutions_size()) + "\n";
  for (const v1::ShowReport::Resolution& s : r.resolutions()) {
    out += "  resolution " + std::to_string(s.index()) + ": ";
    if (s.kind() == "resolve") {
      out += "resolve beneath root " + IdentityText(s.root_pid(), s.root_start_ticks());
      if (s.fingerprint_on_tape()) out += " (fingerprinted on the tape)";
      out += ", token " + s.token_var() + " (" + std::to_string(s.token_bytes()) +
             " bytes, not shown), argv";
      for (const std::string& a : s.argv()) out.append(" ").append(Quoted(a));
      out += ", exe " + Quoted(s.exe_path()) + " " + ExeText(s.exe_identity()) + "\n";
    } else if (s.kind() == "liveness") {
      out += "liveness of " + IdentityText(s.pid(), s.start_ticks()) + "\n";
    } else {
      out += "no request recorded\n";
    }
    if (s.has_verdict()) {
      const v1::Verdict& v = s.verdict();
      out += "    verdict: " + StatusText(v);
      if (v.status() == v1::Verdict::RESOLVED) {
        out += " host pid " + std::to_string(v.pid()) + ", start tick " +
               std::to_string(v.start_ticks());
      }
      for (int m = 0; m < v.matches_size(); ++m) {
        out += (m == 0 ? ", matches " : " ") + std::to_string(v.matches(m));
      }
      out += ", " + Plural(v.attempts(), "attempt", "attempts") + ", " +
             std::to_string(v.bytes_read()) + " bytes read";
      if (!v.detail().empty()) out += ": " + Printable(v.detail());
      out += "\n";
    } else if (s.has_liveness_verdict()) {
      const v1::LivenessVerdict& v = s.liveness_verdict();
      out += "    verdict: " + LivenessText(v);
      if (!v.state().empty()) out += " (state " + Escaped(v.state()) + ")";
      if (!v.detail().empty()) out += ": " + Printable(v.detail());
      out += "\n";
    } else {
      out += "    verdict: none recorded\n";
    }
    if (s.observation_count() > 0) {
      out += "    observations " + std::to_string(s.first_observation()) + ".." +
             std::to_string(s.first_observation() + s.observation_count() - 1) + " (" +
             std::to_string(s.observation_count()) + ")";
    } else {
      out += "    no observations";
    }
    if (!s.observations_read()) out += ", NOT all in the file's tape";
    out += ", " + Ms(Span(s.start_mono_ns(), s.end_mono_ns())) + "\n";
  }
  if (r.intact()) {
    out += "damage: none (" + std::to_string(r.chunks()) + " chunks, footer present)\n";
  } else {
    out += "damage: " + r.error_kind() + ": " + r.error() + " (everything above was read before it)\n";
  }
  return out;
}

}  // namespace proctape
