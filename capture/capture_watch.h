// SPDX-License-Identifier: Apache-2.0
// Watching with `capture` (`docs/architecture.md`, "Layers"; its speed:
// BENCHMARKS.md, "Watching at 10 ms"): the schedule of a multi-frame capture
// and --until-exit's question "has the root exited?".
// Apart from the frame loop (capture/frames_capture.h) so that both are unit-tested
// on made-up times and records.
#pragma once

#include <cstdint>
#include <optional>

#include "proctape.pb.h"

namespace proctape {

// Frame slots on an absolute clock: slot k starts at start + k·interval, so
// a late frame does not push the ones after it (no drift). A frame that
// starts after its slot's successor has begun takes the latest begun slot:
// the slots in between are skipped, and counted (missed). Interval 0: the
// frames follow one another, nothing is missed.
class FrameSchedule {
 public:
  FrameSchedule(std::int64_t start_ns, std::int64_t interval_ns)
      : start_(start_ns), interval_(interval_ns) {}
  // Frame 0 starts at once, in slot 0. For each later frame: the time to
  // wait for (the past when it should start at once), given the time now.
  std::int64_t Next(std::int64_t now_ns);
  std::uint64_t missed() const { return missed_; }
  std::uint64_t slot() const { return slot_; }  // the slot of the last frame Next placed

 private:
  std::int64_t At(std::uint64_t slot) const;
  std::int64_t start_;
  std::int64_t interval_;
  std::uint64_t slot_ = 0;
  std::uint64_t missed_ = 0;
};

// --until-exit: whether the root process is still the one the capture began
// with. It is identified by (pid, start tick, stat field 22) from the first
// frame that holds it; a frame shows it exited when its record is missing
// (gone and reaped), is a zombie or dead (stat state Z or X: it has exited,
// its parent has not reaped it yet), or has another start tick (the pid was
// reused: another process).
class RootWatch {
 public:
  explicit RootWatch(std::int64_t root) : root_(root) {}
  void BeginFrame() { seen_ = running_ = false; }
  // Each record of the frame.
  void Observe(const v1::ProcessRecord& record);
  // After the frame: true when it shows the root exited. `root_found` is the
  // scan's (ScanStats::root_found): a root it did not find is gone, while a
  // frame cut by a bound before the root's record says nothing of it.
  bool Exited(bool root_found) const { return !root_found || (seen_ && !running_); }

 private:
  std::int64_t root_;
  std::optional<std::uint64_t> start_ticks_;
  bool seen_ = false;
  bool running_ = false;
};

}  // namespace proctape
