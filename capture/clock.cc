// SPDX-License-Identifier: Apache-2.0
#include "capture/clock.h"

#include <time.h>

#include <cerrno>

namespace proctape {

std::int64_t MonotonicNowNs() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void SleepUntilMonotonic(std::int64_t mono_ns) {
  struct timespec ts {};
  ts.tv_sec = mono_ns / 1'000'000'000;
  ts.tv_nsec = mono_ns % 1'000'000'000;
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace proctape
