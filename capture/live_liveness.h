// SPDX-License-Identifier: Apache-2.0
// `proctape liveness` on the live host (docs/resolver.md, "Liveness"): the
// identity it checks and its boot, (--pid, --start) with the boot of
// --boot-id ID or of --fingerprint FILE, or the resolved identity of
// --from-recording FILE and the boot it was recorded in; then the check
// (capture/live_checks.h LivenessCheck) on the live /proc, recorded into
// --record's file when there is one. An identity of another boot than this
// host's is refused (kOtherBoot), as `resolve` refuses a fingerprint of
// another boot.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/live_checks.h"
#include "capture/option_failure.h"
#include "capture/procfs_evidence.h"
#include "core/failure.h"
#include "core/verdict.h"
#include "fs/output_file.h"

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

// The identity, its boot checked against this host's (*identity set), or
// why not: a recording with no one resolved identity (kUsage, about
// "--from-recording"), another boot (kOtherBoot), a damaged file (kIo,
// kBadMagic ... kTooLarge, about the option that named it), this host's
// boot id unread while there is a boot to check (kInternal).
std::optional<OptionFailure> LivenessIdentity(const LivenessSource& source, BootIdentity* identity);

// The warning said when the identity's boot is not known (as `resolve`
// warns of a root fingerprinted late).
std::string UncheckedBootWarning(const BootIdentity& identity);

struct LiveLiveness {
  bool ran = false;  // the check ran: `verdict` stands (false: the recording
                     // could not be begun, `record_failure` says why)
  LivenessVerdict verdict;
  // Said after the verdict: the boot was not checked (UncheckedBootWarning).
  std::vector<std::string> warnings;
  // --record's file could not be begun or written (kIo; nothing is left of
  // it): said about that file, before the verdict.
  MaybeFailure record_failure;
};

// The liveness of `identity` (its boot found to be this host's, or not
// known) on `live`, recorded into `record` when it is not null (opened
// before any work), its header naming `proc` and `command_line`.
LiveLiveness CheckLivenessLive(ProcfsEvidence& live, const BootIdentity& identity,
                               const std::string& proc,
                               const std::vector<std::string>& command_line,
                               std::unique_ptr<OutputFile> record);

}  // namespace proctape
