// SPDX-License-Identifier: Apache-2.0
#include "explore/check.h"

#include "core/checked.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/frame_evidence.h"

namespace proctape::explore {

std::unique_ptr<CheckSetup> SetUp(const Snapshot& snapshot, std::size_t index, Failure* failure) {
  auto s = std::make_unique<CheckSetup>();
  s->index = index;
  s->recorded = snapshot.resolutions.at(index);
  s->liveness = s->recorded.has_liveness();
  s->start_ns = FrameModelStart(snapshot, &s->recorded);
  FrameEvidence at(snapshot.frames, s->start_ns);
  std::optional<std::size_t> frame = at.FrameInForce();
  if (!frame) {
    *failure = Failure(FailureKind::kUsage, "it holds no frame to build a host model from");
    return nullptr;
  }
  s->frame = *frame;
  const v1::Frame& f = snapshot.frames[*frame];
  s->initial = HostModel::FromFrame(f);
  s->scan_ns = f.complete() ? ElapsedNs(f.scan_start_mono_ns(), f.scan_end_mono_ns()) : 0;
  if (s->liveness) {
    s->ctx = MakeContext(&s->initial, nullptr, s->recorded.liveness().pid(), s->start_ns);
  } else {
    s->request = FromProto(s->recorded.resolve());
    s->exe_path = s->recorded.resolve().exe_path();
    s->ctx = MakeContext(&s->initial, &s->request, 0, s->start_ns);
  }
  return s;
}

std::unique_ptr<CheckSetup> WithModel(const CheckSetup& setup, HostModel model) {
  auto s = std::make_unique<CheckSetup>();
  s->index = setup.index;
  s->liveness = setup.liveness;
  s->recorded = setup.recorded;
  s->request = setup.request;
  s->exe_path = setup.exe_path;
  s->frame = setup.frame;
  s->start_ns = setup.start_ns;
  s->scan_ns = setup.scan_ns;
  s->initial = std::move(model);
  s->ctx = s->liveness
               ? MakeContext(&s->initial, nullptr, s->recorded.liveness().pid(), s->start_ns)
               : MakeContext(&s->initial, &s->request, 0, s->start_ns);
  return s;
}

CheckOutcome RunCheck(Evidence& ev, const CheckSetup& setup, const Checker& checker) {
  CheckOutcome out;
  if (setup.liveness) {
    const std::int64_t pid = setup.recorded.liveness().pid();
    const std::uint64_t start = setup.recorded.liveness().start_ticks();
    out.liveness =
        checker.liveness ? checker.liveness(ev, pid, start) : CheckLiveness(ev, pid, start);
    return out;
  }
  out.request = setup.request;
  if (setup.recorded.resolve().fingerprint_on_tape()) {
    // As replay (replay/replay.cc) and the recording: the root's start tick
    // is read first, on the tape.
    Verdict fingerprint = FingerprintRoot(ev, setup.request.root_pid);
    if (!fingerprint.resolved()) {
      out.verdict = fingerprint;
      return out;
    }
    out.request.root_start_ticks = fingerprint.start_ticks;
  }
  out.verdict = checker.resolve ? checker.resolve(ev, out.request) : Resolve(ev, out.request);
  out.verdict.late_fingerprint = setup.recorded.resolve().fingerprint_on_tape() &&
                                 out.verdict.status != Status::kInvalidRequest;
  return out;
}

// A fail-closed verdict's subject is the near miss of a NO_MATCH, the root
// that restarted, the reused pid...: what a reduction must keep to explain it.
bool SameVerdict(const CheckSetup& s, const CheckOutcome& a, const CheckOutcome& b) {
  if (s.liveness) {
    return a.liveness.status == b.liveness.status && a.liveness.reason == b.liveness.reason;
  }
  if (a.verdict.status != b.verdict.status) return false;
  if (a.verdict.resolved()) {
    return a.verdict.pid == b.verdict.pid && a.verdict.start_ticks == b.verdict.start_ticks;
  }
  return a.verdict.subject_pid == b.verdict.subject_pid;
}

bool SameAsRecorded(const CheckSetup& s, const CheckOutcome& run, std::string* recorded) {
  if (s.liveness) {
    const v1::LivenessVerdict want = s.recorded.liveness_verdict();
    const v1::LivenessVerdict got = ToProto(run.liveness);
    *recorded = LivenessStatusText(want.status());
    if (want.status() == v1::LivenessVerdict::ERROR) {
      recorded->append(" ").append(StatusText(want.reason()));
    }
    return want.status() == got.status() && want.reason() == got.reason();
  }
  CheckOutcome as_recorded;
  as_recorded.verdict = FromProto(s.recorded.verdict());
  *recorded = VerdictText(s, as_recorded);
  return SameVerdict(s, run, as_recorded);
}

std::string VerdictText(const CheckSetup& s, const CheckOutcome& o) {
  std::string out = OutcomeName(s, o);
  if (!s.liveness && o.verdict.resolved()) {
    out += " host pid " + std::to_string(o.verdict.pid) + ", start tick " +
           std::to_string(o.verdict.start_ticks);
  }
  return out;
}

std::string OutcomeName(const CheckSetup& setup, const CheckOutcome& outcome) {
  if (setup.liveness) {
    std::string out(LivenessName(outcome.liveness.status));
    if (outcome.liveness.status == LivenessStatus::kError) {
      out.append(" ").append(StatusName(outcome.liveness.reason));
    }
    return out;
  }
  return std::string(StatusName(outcome.verdict.status));
}

}  // namespace proctape::explore
