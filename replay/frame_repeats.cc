// SPDX-License-Identifier: Apache-2.0
#include "replay/frame_repeats.h"

#include <algorithm>
#include <limits>

namespace proctape {
namespace {

std::uint64_t Mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

}  // namespace

void FrameRepeats::Call(int op, std::int64_t pid, int file, std::uint64_t bound,
                        std::uint64_t bytes, std::optional<std::size_t> frame) {
  std::uint64_t h = Mix(current_.calls_hash, static_cast<std::uint64_t>(op));
  h = Mix(Mix(Mix(h, static_cast<std::uint64_t>(pid)), static_cast<std::uint64_t>(file)), bound);
  current_.calls_hash = Mix(h, bytes);
  current_.bytes += bytes;
  bytes_ += bytes;
  if (!frame) return;
  if (current_.frame && *current_.frame != *frame) current_.one_frame = false;
  current_.frame = frame;
}

bool FrameRepeats::Repeats(const Attempt& a, const Attempt& b, std::int64_t a_duration,
                           std::int64_t b_duration) {
  return a.ended && b.ended && a.one_frame && b.one_frame && a.frame && a.frame == b.frame &&
         a.calls_hash == b.calls_hash && a.bytes == b.bytes && a_duration == b_duration;
}

std::int64_t FrameRepeats::Wake(std::int64_t now, std::int64_t until, std::int64_t change,
                                std::int64_t deadline, bool skip) {
  current_.ended = true;
  const std::int64_t duration = now - current_.start;
  std::int64_t wake = std::max(now, until);
  if (skip && duration >= 0 && Repeats(current_, previous_, duration, previous_duration_)) {
    // Attempt j starts at wake + j * period and ends by its start + span:
    // it repeats this one while that is before the frame changes, and one
    // more attempt follows it while that is before the deadline.
    const std::int64_t period = std::max(until - current_.start, duration);
    const std::int64_t span = std::max(duration, period);
    const std::int64_t limit = std::min(change, deadline);
    if (period > 0 && limit > wake && limit - wake > span) {
      __extension__ using Wide = __int128;
      const Wide repeats = (static_cast<Wide>(limit) - 1 - wake - span) / period + 1;
      if (repeats > 2) {
        const Wide not_made = repeats - 2;
        wake = static_cast<std::int64_t>(wake + not_made * period);
        skipped_ += static_cast<std::uint64_t>(not_made);
        bytes_ += static_cast<std::uint64_t>(not_made) * current_.bytes;
      }
    }
  }
  previous_ = current_;
  previous_duration_ = duration;
  current_ = Attempt{};
  current_.start = wake;
  return wake;
}

}  // namespace proctape
