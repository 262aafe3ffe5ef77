// SPDX-License-Identifier: Apache-2.0
// The text form of `proctape show` (analyze/show.h): one fact per line; and
// its JSON, printed a frame at a time.
#include <cinttypes>
#include <cstdio>
#include <string_view>
#include <vector>

#include "analyze/show.h"
#include "analyze/process_text.h"
#include "core/proc_parse.h"
#include "proto/json_pieces.h"

namespace proctape {
namespace {

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

// "root 4000 \"codex\" at start tick 500000, exe \"/bin/sleep\" 2051:1311,
// taken 2026-12-01T03:24:48.781Z, in the file's boot".
std::string FingerprintText(const v1::FingerprintSummary& f) {
  std::string out = "root " + std::to_string(f.root_pid()) + " " + Quoted(f.root_comm()) +
                    " at start tick " + std::to_string(f.root_start_ticks()) + ", exe " +
                    Quoted(f.exe_path()) + " " + ExeText(f.exe_identity()) + ", taken " +
                    (f.taken_utc().empty() ? std::string("at an unknown time") : f.taken_utc());
  if (f.boot_of_file()) return out + ", in the file's boot";
  return out + ", in boot " + Quoted(f.boot_id()) + " (NOT the file's)";
}

}  // namespace

std::string RenderShow(const v1::ShowReport& r) {
  std::string out;
  RenderShow(
      r, [&r](int i) { return r.frames(i).selected(); },
      [&out](const std::string& piece) { out += piece; });
  return out;
}

void RenderShow(const v1::ShowReport& r, const ShowSelections& selections,
                const std::function<void(const std::string&)>& emit) {
  std::string out = "file: " + r.file() + "\n";
  if (r.chunks() == 0) {
    emit(out + "damage: " + r.error() + "; nothing could be read\n");
    return;
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
  auto size = [](bool has, double v) { return has ? IntegerText(v) : "unknown"; };
  out += "host: " + text(r.has_hostname(), r.hostname()) + ", kernel " +
         text(r.has_kernel_release(), r.kernel_release()) + ", boot_id " +
         text(r.has_boot_id(), r.boot_id()) + "\n";
  out += "  pid_max " + number(r.has_pid_max(), r.pid_max()) + ", " +
         (r.has_clock_ticks_per_second()
              ? std::to_string(r.clock_ticks_per_second()) + " clock ticks per second"
              : std::string("clock ticks per second unknown")) +
         ", page size " + size(r.has_page_size(), r.page_size()) + "\n";
  out +=
      "capture: started " +
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
    const v1::BoundsSummary& b = r.bounds();
    std::string bounds;
    auto add = [&bounds](const char* key, double v) {
      if (v != 0) bounds += std::string(bounds.empty() ? "" : ", ") + key + " " + IntegerText(v);
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
  out += "environ: " +
         (r.has_environ() ? r.environ() : "unknown (the header states no redaction policy)");
  if (r.environ() == "REDACTED") out += " (each value stored as '*' of its length)";
  for (int i = 0; i < r.kept_entries_size(); ++i) {
    const auto& k = r.kept_entries(i);
    out += (i == 0 ? "; kept verbatim: " : ", ") + k.name() + " (a value of " +
           Plural(k.value_bytes(), "byte", "bytes") + ", not shown)";
  }
  out += "\n";
  if (!r.warning().empty()) out += "WARNING: " + r.warning() + "\n";

  out += "frames: " + std::to_string(r.frames_size()) + " (" +
         Plural(r.processes(), "process record", "process records") + ")\n";
  std::vector<int> selected_each;  // how many each frame selects
  for (int i = 0; i < r.frames_size(); ++i) {
    const v1::ShowReport::Frame& f = r.frames(i);
    out += "  frame " + std::to_string(f.position()) + ": " +
           Plural(f.processes(), "process", "processes");
    if (f.records() != f.processes()) {
      out +=
          " (" + Plural(f.records() - f.processes(), "duplicate record", "duplicate records") + ")";
    }
    if (f.unidentified() > 0) out += ", " + std::to_string(f.unidentified()) + " without identity";
    if (f.complete()) {
      out += ", scan " + Ms(AsInt64(f.scan_ns()));
    } else {
      out += ", INCOMPLETE (the capture stopped inside it)";
    }
    out += ", " + Plural(AsUint64(f.bytes_read()), "byte", "bytes") + " read";
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
    // A filter's selection, one process a line, as 'proctape tree' prints it.
    if (f.has_selected()) {
      const v1::ShowReport::Selection chosen = selections(i);
      for (const v1::ProcessSummary& p : chosen.processes()) {
        out += "    " + std::to_string(p.pid()) + " " + ProcessFacts(p) + "\n";
      }
      if (chosen.processes().empty()) out += "    (none selected)\n";
      selected_each.push_back(chosen.processes_size());
    } else {
      selected_each.push_back(0);
    }
    emit(out);
    out.clear();
  }
  if (r.has_selected()) {
    // Several frames: the processes (identities) over them all, then how many
    // each frame holds: never a sum that counts a process once a frame.
    out += "selected: " + Plural(r.selected(), "process", "processes") + " (" +
           FilterText(r.filter()) + ")";
    if (r.frames_size() > 1) {
      std::string each;
      for (int n : selected_each) each += (each.empty() ? "" : ", ") + std::to_string(n);
      out += " in " + std::to_string(r.frames_size()) + " frames: " + each + " a frame";
    }
    out += "\n";
  }
  out += "tape: " + Plural(r.observations(), "observation", "observations") + "\n";
  out += "resolutions: " + std::to_string(r.resolutions_size()) + "\n";
  for (const v1::ShowReport::Resolution& s : r.resolutions()) {
    out += "  resolution " + std::to_string(s.index()) + ": ";
    if (s.kind() == "resolve") {
      out += "resolve beneath root " + IdentityText(s.root_pid(), s.root_start_ticks());
      if (s.has_fingerprint()) {
        out += " (fingerprinted before the turn)";
      } else if (s.fingerprint_on_tape()) {
        out += " (fingerprinted late, on the tape: a restarted root cannot be detected)";
      }
      out += ", token " + s.token_var() + " (" + Plural(s.token_bytes(), "byte", "bytes") +
             ", not shown), argv";
      for (const std::string& a : s.argv()) out.append(" ").append(Quoted(a));
      out += ", exe " + Quoted(s.exe_path()) + " " + ExeText(s.exe_identity()) + "\n";
      if (s.has_fingerprint()) out += "    fingerprint: " + FingerprintText(s.fingerprint()) + "\n";
    } else if (s.kind() == "liveness") {
      out += "liveness of " + IdentityText(s.pid(), s.start_ticks()) + "\n";
    } else {
      out += "no request recorded\n";
    }
    if (s.has_verdict()) {
      const v1::VerdictSummary& v = s.verdict();
      out += "    verdict: " + StatusText(v.status());
      if (v.status() == v1::Verdict::RESOLVED) {
        out += " host pid " + std::to_string(v.pid()) + ", start tick " +
               std::to_string(v.start_ticks());
      }
      for (int m = 0; m < v.matches_size(); ++m) {
        out += (m == 0 ? ", matches " : " ") + std::to_string(v.matches(m));
      }
      out += ", " + Plural(v.attempts(), "attempt", "attempts") + ", " +
             Plural(AsUint64(v.bytes_read()), "byte", "bytes") + " read";
      if (!v.detail().empty()) out += ": " + Printable(v.detail());
      out += "\n";
      if (const std::string subject = SubjectText(v); !subject.empty()) {
        out += "      subject: " + subject + "\n";
      }
      out += NearMissLines(v, "      ");
    } else if (s.has_liveness_verdict()) {
      const v1::LivenessSummary& v = s.liveness_verdict();
      out += "    verdict: " + LivenessText(v);
      if (!v.state().empty()) out += " (state " + v.state() + ")";
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
  if (r.fingerprints_size() > 0) {
    out += "fingerprints: " + std::to_string(r.fingerprints_size()) + "\n";
    for (int i = 0; i < r.fingerprints_size(); ++i) {
      out +=
          "  fingerprint " + std::to_string(i) + ": " + FingerprintText(r.fingerprints(i)) + "\n";
    }
  }
  if (r.intact()) {
    out += "damage: none (" + Plural(r.chunks(), "chunk", "chunks") + ", footer present)\n";
  } else {
    out +=
        "damage: " + r.error_kind() + ": " + r.error() + " (everything above was read before it)\n";
  }
  emit(out);
}

MaybeFailure ShowJson(const v1::ShowReport& report, const ShowSelections& selections,
                      const std::function<void(const std::string&)>& emit) {
  // The report without its frames, each frame printed as ToJson prints it
  // (AppendJsonPieces), its selection read back for it alone.
  v1::ShowReport shell = report;
  shell.clear_frames();
  std::string out;
  const JsonElements frames = [&](std::string* o) -> MaybeFailure {
    // A frame's selection is printed apart too, a process at a time (the
    // printer's tree of a whole selection is ~10 KB a process): the frame
    // printed with an empty one ends `"selected":{"processes":[]}}` (its
    // last field; a quote inside a string is escaped, so rfind finds it),
    // and that object is replaced by the selection's.
    const std::string empty = "\"selected\":{\"processes\":[]}}";
    for (int i = 0; i < report.frames_size(); ++i) {
      if (i > 0) o->push_back(',');
      const v1::ShowReport::Frame& frame = report.frames(i);
      if (MaybeFailure failed = AppendJsonPieces(frame, JsonOptions(), o)) return failed;
      if (frame.has_selected()) {
        const std::size_t at = o->rfind(empty);
        if (at == std::string::npos || at + empty.size() != o->size()) {
          return Failure(FailureKind::kInternal,
                         "frame " + std::to_string(i) + ": its selection was not printed last");
        }
        o->resize(at + 11);  // `"selected":`
        if (MaybeFailure failed = AppendJsonPieces(selections(i), JsonOptions(), o)) return failed;
        o->push_back('}');
      }
      emit(*o);
      o->clear();
    }
    return std::nullopt;
  };
  if (MaybeFailure failed = AppendJsonPieces(shell, JsonOptions(), {{"frames", frames}}, &out)) {
    return failed;
  }
  emit(out);
  return std::nullopt;
}

}  // namespace proctape
