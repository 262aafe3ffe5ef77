// SPDX-License-Identifier: Apache-2.0
#include "core/legacy_marker.h"

#include <cerrno>
#include <cstring>

#include "core/proc_parse.h"

namespace proctape {

std::optional<std::int64_t> ParseMarker(std::string_view marker) {
  if (!marker.empty() && marker.back() == '\n') marker.remove_suffix(1);
  auto pid = ParseCanonicalDecimal(marker, kMaxPid);
  if (!pid || *pid == 0) return std::nullopt;
  return static_cast<std::int64_t>(*pid);
}

LegacyResult LegacyMarkerCheck(std::string_view marker, SignalProbe& probe) {
  LegacyResult out;
  std::optional<std::int64_t> pid = ParseMarker(marker);
  if (!pid) {
    out.detail = "marker '" + EscapeBytes(marker) + "' does not hold a pid";
    return out;
  }
  out.pid = *pid;
  out.err = probe.Kill0(*pid);
  std::string call = "kill(" + std::to_string(*pid) + ", 0)";
  if (out.err == 0) {
    out.outcome = LegacyOutcome::kAlive;
    out.detail = call + " succeeded: the legacy check reports ALIVE";
  } else if (out.err == ESRCH) {
    out.outcome = LegacyOutcome::kDead;
    out.detail = call + " failed with ESRCH: the legacy check reports DEAD";
  } else {
    out.outcome = LegacyOutcome::kError;
    out.detail = call + " failed with " +
                 std::string(strerrorname_np(out.err) ? strerrorname_np(out.err)
                                                      : "errno " + std::to_string(out.err)) +
                 ": the legacy check throws";
  }
  return out;
}

}  // namespace proctape
