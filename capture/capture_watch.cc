// SPDX-License-Identifier: Apache-2.0
#include "capture/capture_watch.h"

#include "core/proc_parse.h"

namespace proctape {

std::int64_t FrameSchedule::At(std::uint64_t slot) const {
  // Saturating: a million frames a day apart would overflow.
  std::int64_t offset = 0, at = 0;
  if (slot > static_cast<std::uint64_t>(INT64_MAX) ||
      __builtin_mul_overflow(static_cast<std::int64_t>(slot), interval_, &offset) ||
      __builtin_add_overflow(start_, offset, &at)) {
    return INT64_MAX;
  }
  return at;
}

std::int64_t FrameSchedule::Next(std::int64_t now_ns) {
  ++slot_;
  if (interval_ <= 0) return now_ns;
  if (now_ns > start_) {
    // The latest slot that has begun; the ones before it and after the last
    // frame's are missed.
    const std::uint64_t begun = static_cast<std::uint64_t>((now_ns - start_) / interval_);
    if (begun > slot_) {
      missed_ += begun - slot_;
      slot_ = begun;
    }
  }
  return At(slot_);
}

void RootWatch::Observe(const v1::ProcessRecord& record) {
  if (record.pid() != root_) return;
  seen_ = true;
  // An unreadable or malformed stat cannot say it exited: the record is there.
  if (!record.has_stat() || record.stat().err() != 0) {
    running_ = true;
    return;
  }
  StatViewParse stat = ParseStatView(record.stat().data());
  if (!stat.ok()) {
    running_ = true;
    return;
  }
  if (!start_ticks_) start_ticks_ = stat.fields.start_ticks;
  if (*start_ticks_ != stat.fields.start_ticks) return;  // another process
  if (stat.fields.state == 'Z' || stat.fields.state == 'X') return;
  running_ = true;
}

}  // namespace proctape
