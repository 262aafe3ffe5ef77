// SPDX-License-Identifier: Apache-2.0
// Checked and saturating arithmetic on integers taken from a file or a
// request (a recorded deadline, a frame's scan times, a clock reading on a
// tape). Such a value may be anything its type holds, INT64_MIN and INT64_MAX
// included: a plain `a - b` on them is undefined behaviour. Every sum,
// difference or product of such values in proctape goes through one of these.
//
//   Checked*     the exact result, or nullopt when it does not fit;
//   Saturating*  the exact result, or the nearest end of the type's range.
//
// Which a call site uses is part of its contract: a saturated time is still
// ordered correctly against every other time (a deadline of INT64_MAX never
// passes), a saturated duration prints as the largest one.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace proctape {

template <typename T>
std::optional<T> CheckedAdd(T a, T b) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

template <typename T>
std::optional<T> CheckedSub(T a, T b) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

template <typename T>
std::optional<T> CheckedMul(T a, T b) {
  T r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b, or the end of T's range the true sum lies beyond.
template <typename T>
T SaturatingAdd(T a, T b) {
  T r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  // Overflow only happens with b on the side of the end it passed.
  return b > T{0} ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

// a - b, or the end of T's range the true difference lies beyond.
template <typename T>
T SaturatingSub(T a, T b) {
  T r;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < T{0} ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
}

// a * b, or the end of T's range the true product lies beyond.
template <typename T>
T SaturatingMul(T a, T b) {
  T r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  const bool negative = (a < T{0}) != (b < T{0});
  return negative ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
}

// The length of [from, to] in ns for two recorded clock readings: to - from,
// 0 when `to` is before `from`, INT64_MAX when the true length is larger.
inline std::int64_t ElapsedNs(std::int64_t from, std::int64_t to) {
  if (to < from) return 0;
  return SaturatingSub(to, from);
}

}  // namespace proctape
