// SPDX-License-Identifier: Apache-2.0
#include "replay/replay.h"

#include <google/protobuf/util/message_differencer.h>

#include "core/redact.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/unanswered.h"

namespace proctape {

void RequestOverrides::Apply(Request* r) const {
  if (root_pid) r->root_pid = *root_pid;
  if (root_start_ticks) r->root_start_ticks = *root_start_ticks;
  if (token) r->token = *token;
  if (token_var) r->token_var = *token_var;
  if (argv) r->argv = *argv;
  if (exe) r->exe = *exe;
}

bool RequestChanged(const v1::ResolutionRequest& recorded, const RequestOverrides& overrides) {
  // A start time given where the recording fingerprinted its root on the
  // tape: the root is no longer read there, whatever the value.
  if (recorded.fingerprint_on_tape() && overrides.root_start_ticks) return true;
  const Request before = FromProto(recorded);
  Request after = before;
  overrides.Apply(&after);
  return after.root_pid != before.root_pid || after.root_start_ticks != before.root_start_ticks ||
         after.token != before.token || after.token_var != before.token_var ||
         after.argv != before.argv || !(after.exe == before.exe);
}

namespace {

using google::protobuf::util::MessageDifferencer;

v1::ReplayResult::Outcome Decide(bool same_verdict, const TapeEvidence& tape,
                                 v1::ReplayResult* result) {
  result->set_consumed(tape.consumed());
  result->set_recorded_count(tape.count());
  if (tape.diverged()) {
    result->set_divergence_index(tape.divergence().index);
    result->set_recorded_call(tape.divergence().recorded);
    result->set_made_call(tape.divergence().made);
    if (tape.divergence().unanswered != v1::UNANSWERED_NONE) {
      result->set_unanswered(tape.divergence().unanswered);
    }
    return v1::ReplayResult::DIVERGED;
  }
  if (!same_verdict) return v1::ReplayResult::VERDICT_CHANGED;
  if (tape.consumed() != tape.count()) {
    // Same verdict, but the tape holds calls the resolver no longer makes.
    result->set_divergence_index(tape.consumed());
    result->set_recorded_call("observation " + std::to_string(tape.consumed()) + " and later");
    result->set_made_call("none: the resolver stopped");
    return v1::ReplayResult::DIVERGED;
  }
  return v1::ReplayResult::REPRODUCED;
}

// Whether the recorded and the replayed verdict are the same decision on the
// same evidence. A verdict's `evidence` quotes the bytes the resolver read;
// when those are environ bytes (FILE_BOUND on an environ, TOKEN_MISMATCH for
// two token entries) the live resolver quoted them as read, while the tape
// holds them redacted (values as '*', kept entries verbatim) and the replayed
// resolver quotes those. The two excerpts are then compared after redaction
// with the file's kept entries: RedactEnviron(raw prefix) and
// RedactEnviron(redacted prefix) are the same bytes when the tape is the
// redaction of what was read, so nothing but the redaction is forgiven.
//
// The decision is the status, the identity (resolved or subject, start ticks
// observed and expected), the deciding file, errno and evidence, the matches
// and the number of attempts. The detail sentence and the byte count are how
// a decision is told and accounted, late_fingerprint how the root came to be
// known, not the decision: a proctape that words a verdict differently, or
// counts the /proc listing's bytes, still reproduces a recording made before
// it (the calls made must still be the recorded ones, which Decide() checks).
bool SameVerdict(v1::Verdict recorded, v1::Verdict replayed, const Snapshot& snapshot,
                 const Tape& calls, const TapeEvidence& tape, std::uint64_t first) {
  for (v1::Verdict* v : {&recorded, &replayed}) {
    v->clear_detail();
    v->clear_bytes_read();
    // Derived from the request, not the evidence (and absent from files
    // written before it existed): how the root was fingerprinted, not what
    // was decided.
    v->clear_late_fingerprint();
  }
  // What a verdict names that a recording made before proctape said it does
  // not hold (docs/resolver.md, "The verdict names processes by their
  // identity", "Near misses"): a subject's start tick, a zero expected one,
  // the near misses. Each is a function of the reads the resolver made,
  // which Decide() checks are the recorded ones, so it is compared only when
  // the recording holds it.
  if (!recorded.has_subject_start_ticks()) replayed.clear_subject_start_ticks();
  if (!recorded.has_expected_ticks() && replayed.expected_ticks() == 0) {
    replayed.clear_expected_ticks();
  }
  if (recorded.near_misses().empty() && recorded.near_misses_omitted() == 0) {
    replayed.clear_near_misses();
    replayed.clear_near_misses_omitted();
  }
  if (recorded.file() == v1::PROC_FILE_ENVIRON && replayed.file() == v1::PROC_FILE_ENVIRON &&
      recorded.subject_pid() == replayed.subject_pid()) {
    bool redacted = false;
    for (std::uint64_t i = first; i < first + tape.consumed(); ++i) {
      const Tape::Call& o = calls.call(i);
      if (o.kind == v1::Observation::kReadFile && o.arg == replayed.subject_pid() &&
          o.file == v1::PROC_FILE_ENVIRON && calls.file_result(o).redacted) {
        redacted = true;
      }
    }
    if (redacted) {
      const auto& kept_entries = snapshot.header.redaction().kept_entries();
      std::vector<std::string> kept(kept_entries.begin(), kept_entries.end());
      recorded.set_evidence(RedactEnviron(recorded.evidence(), kept));
      replayed.set_evidence(RedactEnviron(replayed.evidence(), kept));
    }
  }
  return MessageDifferencer::Equals(recorded, replayed);
}

}  // namespace

v1::ReplayResult ReplayResolution(const Snapshot& snapshot, std::size_t index,
                                  const RequestOverrides& overrides, ReplayWatch* watch) {
  const v1::Resolution& recorded = snapshot.resolutions.at(index);
  v1::ReplayResult result;
  result.set_resolution_index(index);
  Tape scratch;
  const Tape& calls = TapeOf(snapshot, &scratch);
  TapeEvidence tape(calls, recorded.first_observation(), recorded.observation_count());
  // What the resolver calls: the tape, or the view's watch of it.
  Evidence& evidence = watch != nullptr && watch->watch ? watch->watch(tape) : tape;
  if (recorded.has_liveness()) {
    const v1::LivenessRequest& req = recorded.liveness();
    LivenessVerdict v = CheckLiveness(evidence, req.pid(), req.start_ticks());
    // As LivenessCheck says it (capture/live_checks.h): from the request.
    v.boot_unchecked = req.boot_id().empty();
    *result.mutable_recorded_liveness() = recorded.liveness_verdict();
    *result.mutable_replayed_liveness() = ToProto(v);
    // boot_unchecked is how the identity's boot was known, not what was
    // decided (and absent from files written before it existed).
    v1::LivenessVerdict recorded_decision = result.recorded_liveness();
    v1::LivenessVerdict replayed_decision = result.replayed_liveness();
    recorded_decision.clear_boot_unchecked();
    replayed_decision.clear_boot_unchecked();
    bool same = MessageDifferencer::Equals(recorded_decision, replayed_decision);
    result.set_outcome(Decide(same, tape, &result));
    if (tape.diverged()) result.clear_replayed_liveness();  // decided on no evidence
    return result;
  }
  Request request = FromProto(recorded.resolve());
  overrides.Apply(&request);
  result.set_request_changed(RequestChanged(recorded.resolve(), overrides));
  // Environ bytes stored redacted answer only what the redaction kept
  // (replay/unanswered.h).
  const TokenQuestion question(request, snapshot.header.redaction());
  tape.SetTokenQuestion(&question);
  // The watch is told the request before the resolver's first call.
  auto resolve = [&evidence, watch](const Request& r) {
    if (watch != nullptr) watch->request = r;
    return Resolve(evidence, r);
  };
  Verdict v;
  bool read_late = false;  // a start tick read on the tape was used
  if (recorded.resolve().fingerprint_on_tape() && !overrides.root_start_ticks) {
    // The recording began by fingerprinting the root; so does the replay.
    Verdict fingerprint = FingerprintRoot(evidence, request.root_pid);
    if (fingerprint.resolved()) request.root_start_ticks = fingerprint.start_ticks;
    if (watch != nullptr) watch->fingerprint = fingerprint;
    v = fingerprint.resolved() ? resolve(request) : fingerprint;
    read_late = fingerprint.resolved();
  } else if (recorded.resolve().fingerprint_on_tape()) {
    // A start time given for a what-if: nothing to fingerprint, but the tape
    // begins with the recorded fingerprint read (of the recorded root). Pass
    // over it as recorded, then resolve with the given start time; otherwise
    // every such replay would diverge at observation 0.
    (void)FingerprintRoot(evidence, recorded.resolve().root_pid());
    v = resolve(request);
  } else {
    v = resolve(request);
  }
  if (watch != nullptr) watch->request = request;
  // As ResolveCheck says it: the root's start tick was read at resolve time
  // (on the tape) and used, unless the what-if gave one.
  v.late_fingerprint = read_late && v.status != Status::kInvalidRequest;
  *result.mutable_recorded() = recorded.verdict();
  *result.mutable_replayed() = ToProto(v);
  bool same = SameVerdict(result.recorded(), result.replayed(), snapshot, calls, tape,
                          recorded.first_observation());
  result.set_outcome(Decide(same, tape, &result));
  // Past a divergence the tape answers nothing (TapeEvidence fails every
  // read and puts the clock past the deadline so the resolver stops): what
  // the resolver concluded from that is not a verdict, and is not reported.
  if (tape.diverged()) result.clear_replayed();
  return result;
}

v1::ReplayResult::Outcome WorstOutcome(const std::vector<v1::ReplayResult>& results) {
  v1::ReplayResult::Outcome worst = v1::ReplayResult::REPRODUCED;
  for (const auto& r : results) {
    if (r.outcome() == v1::ReplayResult::DIVERGED) return r.outcome();
    if (r.outcome() == v1::ReplayResult::VERDICT_CHANGED) worst = r.outcome();
  }
  return worst;
}

v1::ReplayReport TapeReplayReport(const std::string& file_name,
                                  const std::vector<v1::ReplayResult>& results) {
  v1::ReplayReport report;
  report.set_file(EscapedText(file_name));
  report.set_model("tape");
  for (const v1::ReplayResult& r : results) *report.add_replays() = ToSummary(r);
  return report;
}

namespace {

std::string VerdictText(const v1::VerdictSummary& v) {
  std::string out = StatusText(v.status());
  if (v.status() == v1::Verdict::RESOLVED) {
    out +=
        " host pid " + std::to_string(v.pid()) + ", start tick " + std::to_string(v.start_ticks());
  } else if (!v.detail().empty()) {
    out += ": " + v.detail();
  }
  return out;
}

}  // namespace

std::string DescribeReplay(const v1::ReplayResult& r) { return DescribeReplay(ToSummary(r)); }

std::string DescribeReplay(const v1::ReplaySummary& r) {
  bool liveness = r.has_recorded_liveness();
  // A liveness check's boot is its request's: said once, in the head.
  const bool boot_unchecked =
      r.recorded_liveness().boot_unchecked() || r.replayed_liveness().boot_unchecked();
  auto liveness_line = [](v1::LivenessSummary v) {
    v.clear_boot_unchecked();
    return LivenessLine(v);
  };
  std::string recorded =
      liveness ? liveness_line(r.recorded_liveness()) : VerdictText(r.recorded());
  std::string replayed =
      liveness ? liveness_line(r.replayed_liveness()) : VerdictText(r.replayed());
  // A what-if says so: its verdict is of the request as changed.
  std::string head =
      "resolution " + std::to_string(r.resolution_index()) +
      (liveness ? (boot_unchecked ? " (liveness, boot not checked)" : " (liveness)") : "") +
      (r.request_changed() ? " (request changed)" : "") + ": ";
  std::string counts = " (" + std::to_string(r.consumed()) + " of " +
                       Plural(r.recorded_count(), "observation", "observations") + ")";
  // The near misses of the verdict the replay gave (docs/resolver.md, "Near
  // misses"): a recording made before they were recorded shows them too.
  // A failure names its subject by identity, as resolve prints it.
  std::string misses;
  if (!liveness && r.replayed().status() != v1::Verdict::RESOLVED) {
    if (const std::string subject = SubjectText(r.replayed()); !subject.empty()) {
      misses = "  subject: " + subject + "\n";
    }
    misses += NearMissLines(r.replayed(), "  ");
  }
  switch (r.outcome()) {
    case v1::ReplayResult::REPRODUCED:
      return (head + "REPRODUCED " + replayed + counts + "\n").append(misses);
    case v1::ReplayResult::VERDICT_CHANGED:
      return (head + "VERDICT CHANGED: recorded " + recorded + "; now " + replayed + counts + "\n")
          .append(misses);
    case v1::ReplayResult::DIVERGED: {
      std::string out = head + "DIVERGED at observation " + std::to_string(r.divergence_index()) +
                        ": recorded " + r.recorded_call() + ", made " + r.made_call() + "\n";
      if (r.has_replayed() || r.has_replayed_liveness()) {
        // The resolver decided on recorded evidence, but left some unasked.
        return out + "  replayed verdict: " + replayed + "; recorded: " + recorded + counts + "\n";
      }
      out +=
          "  no replayed verdict: the tape cannot answer that call, and replay invents no "
          "evidence; recorded: " +
          recorded + counts + "\n";
      if (r.has_unanswered()) {
        out += "  " + UnansweredWhy(r.unanswered()) + "\n";
      } else if (r.request_changed()) {
        out +=
            "  a changed request needs evidence the tape never read: replay it against "
            "the frames (--model frames)\n";
      }
      return out;
    }
    default: break;
  }
  return head + "unknown outcome\n";
}

}  // namespace proctape
