// SPDX-License-Identifier: Apache-2.0
// The checks a live recording runs: `resolve --record`, `liveness --record`
// and every `proctape lab` scenario record through these, so a lab file and a
// file from a failing CI host are made by the same code.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/evidence.h"
#include "core/failure.h"
#include "core/resolver.h"
#include "core/verdict.h"
#include "proctape.pb.h"

namespace proctape {

using LiveCheck = std::function<void(Evidence&, v1::Resolution*)>;

// The environ entry a resolution keeps verbatim in a redacted recording.
std::string TokenEntry(const Request& request);

// Resolves `*request` and stores request, `exe_path` and verdict in the
// Resolution and in `*verdict`. An environ excerpt in the verdict is redacted
// like the tape. Where the root's start tick comes from (`docs/resolver.md`,
// "When the root is fingerprinted"):
//   - `fingerprint`, taken before the turn: `*request` already holds its root
//     pid, start tick and executable identity (ApplyFingerprint); the
//     recorded request keeps the fingerprint itself;
//   - `fingerprint_root`: neither was given, so the root is fingerprinted now,
//     first, on the same evidence (the tape begins with that stat read;
//     fingerprint_on_tape). That is late: a root restarted since the turn
//     began cannot be told from it, and the verdict says late_fingerprint;
//   - otherwise the caller's start tick (--root-start), as given.
LiveCheck ResolveCheck(Request* request, std::string exe_path, bool fingerprint_root,
                       Verdict* verdict, const v1::RootFingerprint* fingerprint = nullptr);

// A process identity bound to its boot (docs/resolver.md, "Liveness"): a
// start tick counts clock ticks since boot, so (pid, start tick) names a
// process only within the boot it was read in.
struct BootIdentity {
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;
  std::string boot_id;  // /proc/sys/kernel/random/boot_id as read; empty: not known
};

// A boot id as the kernel prints it in /proc/sys/kernel/random/boot_id (36
// characters, 8-4-4-4-12 lowercase hexadecimal digits, and a newline), from
// one a user gives: either case, with or without blanks or a newline around
// it ("5B1F...-..." as copied from a log). Another value is no boot id: ""
// with *failure (kUsage) saying why ("not a boot id: ...").
std::string ParseBootId(std::string_view given, Failure* failure);

// CheckLiveness of the identity, stored in the Resolution (its request with
// the boot) and `*verdict`. Its boot must have been found to be the host's
// before (OtherBoot, format/fingerprint_file.h); without one the verdict is
// boot_unchecked, as a resolution of a root fingerprinted late is
// late_fingerprint.
LiveCheck LivenessCheck(const BootIdentity& identity, LivenessVerdict* verdict);

}  // namespace proctape
