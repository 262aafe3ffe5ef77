// SPDX-License-Identifier: Apache-2.0
#include "capture/frames_capture.h"

#include <utility>

#include "capture/capture_watch.h"
#include "core/checked.h"
#include "fs/interrupt.h"

namespace proctape {
namespace {

// One frame's scan; the refused record, if any, is not counted.
ScanStats ScanOne(std::uint64_t k, FrameSourceHooks& hooks, const ScanOptions& scan,
                  SnapshotWriter& writer, RootWatch& root_watch, const FrameProgressFn& progress) {
  FrameCallbacks callbacks;
  callbacks.begin = [&writer, &hooks, k](std::int64_t t) {
    writer.BeginFrame(k, hooks.recorded ? hooks.recorded_begin_ns : t);
  };
  callbacks.children = hooks.children;
  std::uint64_t read = 0;
  root_watch.BeginFrame();
  callbacks.record = [&](v1::ProcessRecord&& r) {
    if (!writer.refused().empty()) return false;
    root_watch.Observe(r);
    if (hooks.prepare && !hooks.prepare(&r)) return false;
    if (progress) progress(k, ++read, false);
    return writer.AddProcess(std::move(r));
  };
  ScanStats s = ScanFrameParallel(*hooks.evidence, scan, hooks.pid_ns, hooks.workers, callbacks);
  if (!writer.refused().empty() && writer.frame_open()) {
    --s.processes;  // the refused record is not in the file
    s.cut_reason = kCutFileLimit;
  }
  if (hooks.recorded && s.cut_reason.empty()) s.cut_reason = hooks.recorded_cut;
  return s;
}

void Add(const ScanStats& s, bool has_root, FrameTotals* t) {
  ++t->frames;
  t->processes += s.processes;
  t->bytes_read += s.bytes_read;
  if (!s.cut_reason.empty()) {
    ++t->frames_cut;
    t->last_cut = s.cut_reason;
  }
  if (s.list_err != 0 && t->list_err == 0) t->list_err = s.list_err;
  if (has_root && s.list_err == 0 && !s.root_found) ++t->root_missing;
}

}  // namespace

FramesEnd CaptureFrames(const FramePlan& plan, FrameSourceHooks& hooks, SnapshotWriter& writer,
                        const FrameProgressFn& progress, FrameTotals* totals) {
  *totals = FrameTotals{};
  const bool has_root = plan.scan.root_pid.has_value();
  FrameSchedule schedule(plan.start_ns, plan.interval_ns);
  RootWatch root_watch(plan.scan.root_pid.value_or(0));
  for (std::uint64_t k = 0; k < plan.max_frames && Interrupted() == 0; ++k) {
    if (k > 0 && !SleepUntilOrInterrupted(schedule.Next(hooks.evidence->NowNs()))) break;
    if (!writer.refused().empty()) break;  // the file's limits: no frame begins
    ScanStats s = ScanOne(k, hooks, plan.scan, writer, root_watch, progress);
    if (hooks.failed && !hooks.failed().empty()) return FramesEnd::kSourceFailed;
    if (!writer.refused().empty() && !writer.frame_open()) break;  // refused at BeginFrame
    const std::int64_t end = hooks.recorded ? hooks.recorded_end_ns : s.scan_end_mono_ns;
    if (!writer.EndFrame(end, s.cut_reason, s.bytes_read)) return FramesEnd::kWriteFailed;
    Add(s, has_root, totals);
    if (progress) progress(k, s.processes, true);
    if (plan.until_exit && s.list_err == 0 && root_watch.Exited(s.root_found)) {
      totals->root_exited = true;
      break;
    }
  }
  // Interrupted before the last frame: the file is finished with the frames
  // complete, and the totals say by what.
  if (totals->frames < plan.max_frames && !totals->root_exited) totals->signal = Interrupted();
  totals->missed_slots = schedule.missed();
  totals->slots = schedule.slot() + 1;
  v1::Footer footer;
  footer.set_capture_end_mono_ns(hooks.recorded ? hooks.recorded_end_ns : hooks.evidence->NowNs());
  if (!writer.Finish(footer)) return FramesEnd::kWriteFailed;
  totals->elapsed_ns = SaturatingSub(hooks.evidence->NowNs(), plan.start_ns);
  return FramesEnd::kFinished;
}

}  // namespace proctape
