// SPDX-License-Identifier: Apache-2.0
// The text of `proctape explain`: every byte from a /proc file escaped, every
// line a function of the explanation alone (no clock, no path of this host).
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "analyze/explain.h"
#include "analyze/process_text.h"
#include "core/proc_parse.h"
#include "proto/summary.h"

namespace proctape {
namespace {

// Any integer, in decimal.
template <typename T>
std::string Num(T v) {
  return std::to_string(v);
}

// At most 64 pids, then how many more.
std::string Pids(const google::protobuf::RepeatedField<std::int32_t>& pids) {
  constexpr int kShown = 64;
  std::string out;
  for (int i = 0; i < pids.size() && i < kShown; ++i) out.append(" ").append(Num(pids[i]));
  if (pids.size() > kShown) out += " ... (" + Num(std::int64_t{pids.size() - kShown}) + " more)";
  return out;
}

// "\"sleep\" S, parent 6, start tick 1309522", or why there is no record.
std::string StatText(const v1::ExplainStat& s) {
  if (s.err() != 0) {
    return (s.err() == ENOENT || s.err() == ESRCH ? "gone (errno " : "unreadable (errno ") +
           std::to_string(s.err()) + ")";
  }
  if (s.truncated()) return "larger than its bound";
  if (!s.parsed()) return "does not parse: " + s.parse_error();
  return QuoteEscaped(s.comm()) + " " + s.state() + ", parent " + Num(s.ppid()) + ", start tick " +
         Num(s.start_ticks());
}

std::string VerdictText(const v1::VerdictSummary& v) {
  std::string out = StatusText(v.status());
  if (v.status() == v1::Verdict::RESOLVED) {
    out += " host pid " + Num(v.pid()) + ", start tick " + Num(v.start_ticks());
  } else if (!v.detail().empty()) {
    out += ": " + v.detail();
  }
  return out + " (" + Plural(v.attempts(), "attempt", "attempts") + ", " +
         Plural(AsUint64(v.bytes_read()), "byte", "bytes") + " read)";
}

// The lines of an attempt after its first: what decides whether two
// attempts read alike. Without `unrelated`, not the processes listed and gone
// before their stat was read: the resolver never knew them, so they took no
// part in the resolution.
std::vector<std::string> AttemptBody(const v1::ExplainAttempt& a, const v1::ExplainCheck& check,
                                     bool unrelated = true) {
  std::vector<std::string> out;
  const std::string in = "    ";
  if (unrelated && !a.vanished_before_stat().empty()) {
    out.push_back(in + "gone before their stat was read:" + Pids(a.vanished_before_stat()));
  }
  if (a.root_seen()) {
    const std::uint64_t expected = check.resolve().root_start_ticks();
    // Only the root's identity and whether it is dead matter to the
    // resolver: its parent is left out, so that attempts alike read alike.
    // A dead root (Z, X) is a missing one: the one state that decides.
    const std::string& state = a.root().state();
    const bool dead = state == "Z" || state == "X" || state == "x";
    out.push_back(in + "root " + Num(a.root().pid()) + " " + QuoteEscaped(a.root().comm()) +
                  ", start tick " + Num(a.root().start_ticks()) +
                  (a.root().start_ticks() != expected ? ": not the expected " + Num(expected)
                   : dead ? ": as expected, but dead (state " + state + ")"
                          : ": as expected"));
  } else if (a.scan_complete() && a.list_err() == 0 && !a.list_truncated()) {
    out.push_back(in + "root " + Num(check.resolve().root_pid()) + ": not in this scan");
  }
  if (a.root_seen() && a.root().start_ticks() == check.resolve().root_start_ticks()) {
    out.push_back(
        in + "beneath the root: " +
        (a.beneath_root().empty()
             ? std::string("no process")
             : Plural(static_cast<std::uint64_t>(a.beneath_root_size()), "process", "processes") +
                   ":" + Pids(a.beneath_root())));
  }
  for (const v1::ExplainCandidate& k : a.candidates()) {
    std::string line = in + "pid " + Num(k.pid());
    if (!k.state().empty()) {
      line.append(" ").append(QuoteEscaped(k.comm()) + " " + k.state() + ", start tick " +
                              Num(k.start_ticks()));
    }
    out.push_back(line + ": " + k.detail());
    for (const v1::ExplainAncestor& link : k.ancestry()) {
      out.push_back(in + "  re-read: " + link.detail());
    }
  }
  if (!a.not_inspected().empty()) {
    out.push_back(in + "not inspected (the attempt ended first):" + Pids(a.not_inspected()));
  }
  out.push_back(in + "outcome: " + a.summary());
  return out;
}

// What the attempt's listing found.
std::string AttemptScan(const v1::ExplainAttempt& a) {
  if (a.list_err() != 0)
    return "listing /proc failed (errno " + Num(std::int64_t{a.list_err()}) + ")";
  std::string out = "listed " + Plural(a.listed(), "/proc entry", "/proc entries");
  if (a.list_truncated()) return out + ", more than the bound";
  if (!a.list_stopped().empty()) return out + ", then stopped at the " + a.list_stopped();
  return out + ", " + Plural(a.records(), "stat record", "stat records");
}

// A replay that diverged where the tape could not answer has no verdict.
const std::string kNoVerdict = "none: the tape cannot answer a call the resolver made";

void RenderResolve(const v1::ExplainCheck& c, bool all, std::string* out) {
  const v1::RequestSummary& r = c.resolve();
  *out += "check " + Num(c.index()) + ": resolve\n";
  std::string argv;
  for (const std::string& arg : r.argv()) argv.append(" ").append(QuoteEscaped(arg));
  std::string how;
  if (r.has_fingerprint()) {
    how = " (fingerprinted before the turn)";
  } else if (c.fingerprinted()) {
    how = " (fingerprinted late, on the tape: a restarted root cannot be detected)";
  }
  *out += "  request: root pid " + Num(r.root_pid()) + ", start tick " + Num(r.root_start_ticks()) +
          how + "; argv" + argv + "; " + CutEscaped(r.token_var()) + "=" +
          QuoteEscaped(std::string(r.token_bytes(), '*')) + "; exe " + QuoteEscaped(r.exe_path()) +
          " " + Num(r.exe_identity().dev()) + ":" + Num(r.exe_identity().ino()) + "\n";
  // As recorded: a negative interval (an invalid request) keeps its sign.
  std::string every = FormatOffset(AsInt64(r.bounds().retry_interval_ns()));
  if (every[0] == '+') every.erase(0, 1);
  *out += "  bounds: a new attempt every " + every + " until " +
          FormatOffset(AsInt64(r.bounds().deadline_ns())) + "\n";
  if (c.fingerprinted()) {
    *out += "  fingerprint: /proc/" + Num(r.root_pid()) + "/stat: " +
            (c.has_fingerprint() ? StatText(c.fingerprint()) : "not answered by the tape") + "\n";
  } else if (r.has_fingerprint()) {
    const v1::FingerprintSummary& f = r.fingerprint();
    *out += "  fingerprint: taken before the turn: root " + Num(f.root_pid()) + " " +
            QuoteEscaped(f.root_comm()) + ", start tick " + Num(f.root_start_ticks()) + "; exe " +
            QuoteEscaped(f.exe_path()) + " " + Num(f.exe_identity().dev()) + ":" +
            Num(f.exe_identity().ino()) + "\n";
  }
  const auto& attempts = c.attempts();
  // Alike: the same listing and lines. Alike where it matters: the same
  // root, the same processes beneath it and the same reasons, while
  // processes that are neither (not beneath the root, never a candidate, or
  // gone before their stat was read) came and went: the listing's counts may
  // differ, not whether it failed or hit its bound.
  auto alike = [&c](const v1::ExplainAttempt& x, const v1::ExplainAttempt& y) {
    return AttemptScan(x) == AttemptScan(y) && AttemptBody(x, c) == AttemptBody(y, c);
  };
  auto alike_where_it_matters = [&c](const v1::ExplainAttempt& x, const v1::ExplainAttempt& y) {
    return x.list_err() == y.list_err() && x.list_truncated() == y.list_truncated() &&
           AttemptBody(x, c, false) == AttemptBody(y, c, false);
  };
  auto at = [](const v1::ExplainAttempt& a) { return FormatOffset(AsInt64(a.start_offset_ns())); };
  for (int i = 0; i < attempts.size();) {
    const v1::ExplainAttempt& a = attempts[i];
    *out += "  attempt " + Num(std::uint64_t{a.index()}) + " at " + at(a) + ": " + AttemptScan(a) +
            "\n";
    for (const std::string& line : AttemptBody(a, c)) *out += line + "\n";
    int j = i + 1;
    while (!all && j < attempts.size() && alike_where_it_matters(attempts[j], a)) ++j;
    std::string same = "the same as attempt " + Num(a.index()) + " (" + a.summary() + ")";
    if (!std::all_of(attempts.begin() + i + 1, attempts.begin() + j,
                     [&](const v1::ExplainAttempt& x) { return alike(x, a); })) {
      std::uint32_t fewest = UINT32_MAX, most = 0;
      for (int k = i + 1; k < j; ++k) {
        fewest = std::min(fewest, attempts[k].listed());
        most = std::max(most, attempts[k].listed());
      }
      same += ", but for unrelated processes coming and going (" +
              (fewest == most ? Num(most) : Num(fewest) + " to " + Num(most)) +
              " /proc entries listed)";
    }
    same += "\n";
    if (j == i + 2) {
      *out += "  attempt " + Num(std::uint64_t{attempts[i + 1].index()}) + " at " +
              at(attempts[i + 1]) + ": " + same;
    } else if (j > i + 2) {
      *out += "  attempts " + Num(std::uint64_t{attempts[i + 1].index()}) + "-" +
              Num(std::uint64_t{attempts[j - 1].index()}) + " at " + at(attempts[i + 1]) + " to " +
              at(attempts[j - 1]) + ": each " + same;
    }
    i = j;
  }
  *out += "  ended: " + c.ended_by() + "\n";
  *out += "  verdict: " + (c.has_verdict() ? VerdictText(c.verdict()) : kNoVerdict) + "\n";
  if (!c.has_verdict()) return;
  // The process it names, by identity, and the near misses (docs/resolver.md).
  if (const std::string subject = SubjectText(c.verdict()); !subject.empty()) {
    *out += "    subject: " + subject + "\n";
  }
  *out += NearMissLines(c.verdict(), "    ");
}

void RenderLiveness(const v1::ExplainCheck& c, std::string* out) {
  const v1::LivenessRequestSummary& r = c.liveness();
  *out += "check " + Num(c.index()) + ": liveness of pid " + Num(r.pid()) + ", start tick " +
          Num(r.start_ticks()) + "\n";
  const v1::ExplainStat& s = c.liveness_read();
  if (s.pid() == 0) {
    *out += "  no stat read on the tape\n";
  } else {
    std::string line = "  re-read /proc/" + Num(s.pid()) + "/stat: " + StatText(s);
    if (s.parsed()) {
      line += s.start_ticks() == r.start_ticks() ? ": the expected start tick"
                                                 : ": not the expected " + Num(r.start_ticks());
    }
    *out += line + "\n";
  }
  *out +=
      "  verdict: " + (c.has_liveness_verdict() ? LivenessLine(c.liveness_verdict()) : kNoVerdict) +
      "\n";
}

}  // namespace

std::string FormatOffset(std::int64_t ns) {
  const bool negative = ns < 0;
  const std::uint64_t magnitude =
      negative ? static_cast<std::uint64_t>(-(ns + 1)) + 1 : static_cast<std::uint64_t>(ns);
  const std::uint64_t tenths = magnitude / 100'000 + (magnitude % 100'000 >= 50'000 ? 1 : 0);
  return std::string(negative ? "-" : "+") + Num(tenths / 10) + "." + Num(tenths % 10) + " ms";
}

std::string QuoteBytes(std::string_view bytes) { return DoubleQuoted(EscapeBytes(bytes)); }

std::string RenderExplanation(const v1::Explanation& e, bool all) {
  std::string out =
      e.file() + ": " + Plural(e.recorded_checks(), "recorded check", "recorded checks") + "\n";
  if (!e.derived_by().empty()) {
    out += "derived by " + e.derived_by() + " from a host model, not captured: " +
           (e.derived_events().empty() ? std::string("no kernel event")
                                       : "the kernel events it applied between the calls:") +
           "\n";
    for (const std::string& ev : e.derived_events()) out += "  " + ev + "\n";
  }
  for (const v1::ExplainCheck& c : e.checks()) {
    out += "\n";
    if (c.kind() == v1::ExplainCheck::LIVENESS) {
      RenderLiveness(c, &out);
    } else {
      RenderResolve(c, all, &out);
    }
    out += "  replay: " + v1::ReplayResult::Outcome_Name(c.replay()) + " (" +
           Num(c.observations()) + " of " +
           Plural(c.recorded_observations(), "observation", "observations") + ")";
    if (!c.replay_detail().empty()) out += ": " + c.replay_detail();
    out += "\n";
  }
  return out;
}

}  // namespace proctape
