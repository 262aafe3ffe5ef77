// SPDX-License-Identifier: Apache-2.0
// The host's monotonic clock, as every Evidence of a real host serves it
// (core/evidence.h: NowNs, SleepUntil): CLOCK_MONOTONIC in nanoseconds.
#pragma once

#include <cstdint>

namespace proctape {

std::int64_t MonotonicNowNs();

// Sleeps until the monotonic clock reads `mono_ns` (absolute; a time already
// past returns at once); a signal's interruption is slept through.
void SleepUntilMonotonic(std::int64_t mono_ns);

}  // namespace proctape
