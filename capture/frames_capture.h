// SPDX-License-Identifier: Apache-2.0
// A capture's frames (`proctape capture`, docs/cli/commands.md): frame after
// frame of one evidence source written to a SnapshotWriter whose header is
// written, on the schedule of capture/capture_watch.h, until the frame count,
// the root's exit (--until-exit), the file's count limits or an interrupt
// (fs/interrupt.h) ends it; then the footer. The command parses, opens the
// source and the output, calls this and renders what it returns.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"
#include "format/writer.h"
#include "proctape.pb.h"

namespace proctape {

// When frames are taken.
struct FramePlan {
  ScanOptions scan;              // each frame's bounds; scan.root_pid: a subtree
  std::uint64_t max_frames = 1;  // UINT64_MAX: no ceiling (until_exit alone)
  std::int64_t start_ns = 0;     // slot k begins at start_ns + k * interval_ns
  std::int64_t interval_ns = 0;
  bool until_exit = false;  // the frame that shows scan.root_pid exited is the last
};

// Where frames come from.
struct FrameSourceHooks {
  Evidence* evidence = nullptr;
  PidNamespaceFn pid_ns;
  std::vector<ScanWorker> workers;  // none: the scan runs on this thread
  ChildrenFn children;              // optional: a --root scan walks children files
  // Each record before it is written; false stops the frame, and `failed`
  // then says why (an import's damaged side file).
  std::function<bool(v1::ProcessRecord*)> prepare;
  std::function<std::string()> failed;  // "" while the source is sound
  // An import's recorded frame: its times and cut replace this scan's.
  bool recorded = false;
  std::int64_t recorded_begin_ns = 0;
  std::int64_t recorded_end_ns = 0;
  std::string recorded_cut;
};

// What the frames held, summed.
struct FrameTotals {
  std::uint64_t frames = 0;
  std::uint64_t processes = 0;  // process records, over every frame
  std::uint64_t bytes_read = 0;
  std::uint64_t frames_cut = 0;
  std::string last_cut;            // the cut reason of the last cut frame
  std::uint64_t root_missing = 0;  // frames whose listing did not hold the root
  bool root_exited = false;        // until_exit: the last frame shows the root exited
  int list_err = 0;                // the first listing errno, 0: none
  int signal = 0;                  // the interrupt that ended it before the last frame
  std::uint64_t missed_slots = 0;  // FrameSchedule::missed()
  std::uint64_t slots = 0;         // the slots the schedule went through
  std::int64_t elapsed_ns = 0;     // from plan.start_ns to the footer
};

enum class FramesEnd {
  kFinished,      // the footer is written (cut, interrupted or not)
  kSourceFailed,  // hooks.failed() says why; the file is not finished
  kWriteFailed,   // writer.error() says why
};

// Progress of the frame being scanned: its index and the records read so far.
using FrameProgressFn = std::function<void(std::uint64_t frame, std::uint64_t records, bool done)>;

// Frames into `writer` as `plan` says, then the footer. A frame the file's
// count limits refuse to begin is not scanned; a record they refuse cuts its
// frame ("file-limit") and is the last written. An interrupt waits for the
// frame being scanned (its scan is bounded) and ends the capture.
FramesEnd CaptureFrames(const FramePlan& plan, FrameSourceHooks& hooks, SnapshotWriter& writer,
                        const FrameProgressFn& progress, FrameTotals* totals);

}  // namespace proctape
