// SPDX-License-Identifier: Apache-2.0
// The identity `proctape liveness` checks, and its boot (docs/resolver.md,
// "Liveness"): (--pid, --start) with the boot of --boot-id ID or of
// --fingerprint FILE, or the resolved identity of --from-recording FILE and
// the boot it was recorded in. An identity of another boot than this
// host's is refused (exit 9), as `resolve` refuses a fingerprint of another
// boot.
#pragma once

#include <cstdint>
#include <string>

#include "capture/live_checks.h"

namespace proctape {

struct LivenessSource {
  std::int64_t pid = 0;
  std::uint64_t start = 0;
  std::string boot_id;  // --boot-id ID (with or without its newline)
  bool has_boot_id = false;
  std::string fingerprint;     // --fingerprint FILE: its boot
  std::string from_recording;  // --from-recording FILE: its resolved identity and boot
  std::string proc = "/proc";  // whose boot id is this host's
};

// The identity, its boot checked against this host's; false after one line
// with *exit_code: 2 (a recording with no one resolved identity, an empty
// --boot-id), 9 (another boot), 10-16 (a damaged file), 1 (this host's boot
// id cannot be read while there is a boot to check).
bool LivenessIdentity(const LivenessSource& source, BootIdentity* identity, int* exit_code);

// The warning said when the identity's boot is not known (as `resolve`
// warns of a root fingerprinted late).
std::string UncheckedBootWarning(const BootIdentity& identity);

}  // namespace proctape
