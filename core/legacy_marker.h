// SPDX-License-Identifier: Apache-2.0
// The legacy strategy the resolver replaces, kept so that tests and replays
// can show what it would have concluded (`docs/resolver.md`, "The legacy
// check": the marker taken as the host pid and probed with kill(pid, 0)).
// On Linux the marker is a pid of the sandbox's PID namespace, so this check
// probes an unrelated host process.
//
// proctape never signals: the probe is an injected interface. Tests fake it;
// replay answers it from a captured frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace proctape {

class SignalProbe {
 public:
  virtual ~SignalProbe() = default;
  // What kill(pid, 0) would return: 0, or the errno it would fail with.
  virtual int Kill0(std::int64_t pid) = 0;
};

enum class LegacyOutcome : int {
  kAlive = 1,          // kill(pid, 0) succeeded
  kDead = 2,           // ESRCH
  kError = 3,          // any other errno: the legacy code throws (EPERM above all)
  kInvalidMarker = 4,  // the marker does not hold a pid
};

struct LegacyResult {
  LegacyOutcome outcome = LegacyOutcome::kInvalidMarker;
  std::int64_t pid = 0;  // the marker's value, taken as a host pid
  int err = 0;
  std::string detail;
};

// The pid a marker file holds: `echo $$ > M` writes "N\n". One trailing
// newline is allowed; anything else that is not a canonical pid is nullopt.
std::optional<std::int64_t> ParseMarker(std::string_view marker);

LegacyResult LegacyMarkerCheck(std::string_view marker, SignalProbe& probe);

}  // namespace proctape
