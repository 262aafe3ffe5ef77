// SPDX-License-Identifier: Apache-2.0
// The frame model run (replay/frame_evidence.h): a request replayed against a
// file's frames, a recorded resolution rerun on them, the frames a run used,
// and what a run is said to have decided.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <limits>

#include "core/checked.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "replay/frame_evidence.h"
#include "replay/tape_evidence.h"

namespace proctape {

std::int64_t FrameModelStart(const Snapshot& snapshot, const v1::Resolution* resolution) {
  if (resolution != nullptr) return resolution->start_mono_ns();
  if (snapshot.frames.empty()) return 0;
  std::int64_t start = snapshot.frames.front().scan_start_mono_ns();
  for (const v1::Frame& f : snapshot.frames) start = std::min(start, f.scan_start_mono_ns());
  return start;
}

const v1::ProcessRecord* RecordInFrame(const v1::Frame& frame, std::int64_t pid) {
  for (const v1::ProcessRecord& r : frame.processes()) {
    if (r.pid() == pid) return &r;
  }
  return nullptr;
}

std::optional<StatFields> StatInFrame(const v1::Frame& frame, std::int64_t pid) {
  return StatOfRecord(RecordInFrame(frame, pid), pid);
}

std::optional<StatFields> StatOfRecord(const v1::ProcessRecord* r, std::int64_t pid) {
  if (r == nullptr || !r->has_stat() || r->stat().err() != 0 || r->stat().truncated()) {
    return std::nullopt;
  }
  StatParse parsed = ParseStat(r->stat().data());
  if (!parsed.ok() || parsed.fields->pid != pid) return std::nullopt;
  return parsed.fields;
}

Identity ExeInFrame(const v1::Frame& frame, std::int64_t pid) {
  const v1::ProcessRecord* r = RecordInFrame(frame, pid);
  if (r == nullptr || !r->has_exe()) return Identity{ENOENT, 0, 0};
  return FromProto(r->exe());
}

namespace {

void NoteFrames(const FrameEvidence& ev, std::int64_t start_ns, FrameRun* run) {
  run->unanswered = ev.unanswered();
  run->unanswered_call = ev.unanswered_call();
  run->calls = ev.calls();
  run->first_frame = ev.first_frame_used();
  run->last_frame = ev.last_frame_used();
  run->virtual_ns = ev.now() - start_ns;
  run->attempts_skipped = ev.attempts_skipped();
}

}  // namespace

FrameRun RunOnFrames(const Snapshot& snapshot, const Request& request, std::int64_t start_ns,
                     const std::string& exe_path, const FrameWork& work) {
  FrameEvidence ev(snapshot, start_ns);
  if (!exe_path.empty()) ev.SetAttestedPath(exe_path, request.exe);
  const TokenQuestion question(request, snapshot.header.redaction());
  ev.SetTokenQuestion(&question);
  // The resolver's deadline: its clock at entry (the model's start) plus
  // the request's (core/resolver.h).
  ev.BoundWork(SaturatingAdd(start_ns, request.bounds.deadline_ns), work);
  FrameRun run;
  run.verdict = Resolve(ev, request);
  NoteFrames(ev, start_ns, &run);
  if (ev.capped()) {
    run.cut = "the frame model answers at most " + std::to_string(work.exact_calls) + " + " +
              std::to_string(work.calls_per_record) + " calls per process record of the frames";
  } else if (ev.attempts_skipped() > 0 && ev.bytes_charged() > request.bounds.byte_budget) {
    run.cut =
        "with the attempts the frame model did not make, the run reads past the byte "
        "budget of " +
        std::to_string(request.bounds.byte_budget) + " bytes";
  }
  return run;
}

FrameRun RerunOnFrames(const Snapshot& snapshot, std::size_t index,
                       const RequestOverrides& overrides, const FrameWork& work) {
  const v1::Resolution& recorded = snapshot.resolutions.at(index);
  const std::int64_t start = FrameModelStart(snapshot, &recorded);
  FrameRun run;
  if (recorded.has_liveness()) {
    FrameEvidence ev(snapshot, start);
    run.liveness_verdict =
        CheckLiveness(ev, recorded.liveness().pid(), recorded.liveness().start_ticks());
    run.liveness_verdict.boot_unchecked = recorded.liveness().boot_id().empty();
    NoteFrames(ev, start, &run);
    run.liveness = true;
    if (recorded.has_liveness_verdict()) {
      run.recorded_liveness = recorded.liveness_verdict();
      run.same_decision = run.unanswered == v1::UNANSWERED_NONE &&
                          SameDecision(*run.recorded_liveness, ToProto(run.liveness_verdict));
    }
  } else {
    Request request = FromProto(recorded.resolve());
    overrides.Apply(&request);
    run = RunOnFrames(snapshot, request, start, recorded.resolve().exe_path(), work);
    run.request_changed = RequestChanged(recorded.resolve(), overrides);
    if (recorded.has_verdict()) {
      run.recorded = recorded.verdict();
      run.same_decision = run.unanswered == v1::UNANSWERED_NONE && run.cut.empty() &&
                          SameDecision(*run.recorded, ToProto(run.verdict));
    }
  }
  run.resolution_index = index;
  return run;
}

bool SameDecision(const v1::Verdict& a, const v1::Verdict& b) {
  return a.status() == b.status() && a.pid() == b.pid() && a.start_ticks() == b.start_ticks();
}

bool SameDecision(const v1::LivenessVerdict& a, const v1::LivenessVerdict& b) {
  return a.status() == b.status() && a.reason() == b.reason();
}

namespace {

std::string VerdictLine(const v1::Verdict& v) {
  std::string out = StatusText(v.status());
  if (v.status() == v1::Verdict::RESOLVED) {
    out.append(" host pid ").append(std::to_string(v.pid()));
    out.append(", start tick ").append(std::to_string(v.start_ticks()));
  } else if (!v.detail().empty()) {
    out.append(": ").append(v.detail());
  }
  return out;
}

std::string LivenessLine(const v1::LivenessVerdict& v) {
  std::string out = LivenessStatusText(v.status());
  if (v.status() == v1::LivenessVerdict::ERROR) out.append(" ").append(StatusText(v.reason()));
  if (!v.detail().empty()) out.append(": ").append(v.detail());
  return out;
}

std::string FramesUsed(const FrameRun& run) {
  if (!run.first_frame) return "no frame";
  if (*run.first_frame == *run.last_frame) return "frame " + std::to_string(*run.first_frame);
  return "frames " + std::to_string(*run.first_frame) + ".." + std::to_string(*run.last_frame);
}

}  // namespace

std::string DescribeFrameRun(const FrameRun& run) {
  std::string head;
  if (run.resolution_index) {
    head = "resolution " + std::to_string(*run.resolution_index);
    if (run.liveness) head += " (liveness)";
    if (run.request_changed) head += " (request changed)";
    head += " on the frames: ";
  } else {
    head = "request on the frames: ";
  }
  char virt[64];
  std::snprintf(virt, sizeof virt, "%" PRId64 ".%03" PRId64 " s virtual",
                run.virtual_ns / 1'000'000'000, (run.virtual_ns % 1'000'000'000) / 1'000'000);
  const bool answered = run.unanswered == v1::UNANSWERED_NONE;
  std::string counts = " (";
  if (!run.liveness && answered) {
    counts.append(Plural(run.verdict.attempts, "attempt", "attempts")).append(", ");
    if (run.attempts_skipped != 0) {
      counts.append(std::to_string(run.attempts_skipped)).append(" repeats not made, ");
    }
  }
  counts.append(Plural(run.calls, "call", "calls")).append(", ").append(FramesUsed(run));
  counts.append(", ").append(virt).append(")");
  std::string out;
  if (!answered) {
    // No verdict: what the resolver made of the failures that stopped it is
    // not one (docs/replay.md, "What a replay cannot answer").
    out = head + "DIVERGED: the frames cannot answer " + run.unanswered_call + counts + "\n  " +
          UnansweredWhy(run.unanswered) + "\n  no verdict: replay invents no evidence";
    if (run.recorded) out += "; recorded: " + VerdictLine(*run.recorded);
    if (run.recorded_liveness) out += "; recorded: " + LivenessLine(*run.recorded_liveness);
    return out + "\n";
  }
  if (run.liveness) {
    v1::LivenessVerdict now = ToProto(run.liveness_verdict);
    out = head + LivenessLine(now) + counts + "\n";
    if (run.recorded_liveness) {
      out += "  recorded: " + LivenessLine(*run.recorded_liveness) +
             (run.same_decision ? " (the same decision)\n" : " (a DIFFERENT decision)\n");
    }
  } else {
    v1::Verdict now = ToProto(run.verdict);
    out = head + (run.cut.empty() ? VerdictLine(now) : "no decision: " + run.cut) + counts + "\n";
    if (run.cut.empty())
      out += NearMissLines(ToSummary(now), "  ");  // docs/resolver.md, "Near misses"
    if (run.recorded) {
      out += "  recorded: " + VerdictLine(*run.recorded) +
             (run.same_decision ? " (the same decision)\n" : " (a DIFFERENT decision)\n");
    }
  }
  return out;
}

}  // namespace proctape
