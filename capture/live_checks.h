// The checks a live recording runs: `resolve --record`, `liveness --record`
// and every `proctape lab` scenario record through these, so a lab file and a
// file from a failing CI host are made by the same code.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/evidence.h"
#include "core/resolver.h"
#include "core/verdict.h"
#include "proctape.pb.h"

namespace proctape {

using LiveCheck = std::function<void(Evidence&, v1::Resolution*)>;

// The environ entry a resolution keeps verbatim in a redacted recording.
std::string TokenEntry(const Request& request);

// Resolves `*request` and stores request, `exe_path` and verdict in the
// Resolution and in `*verdict`. An environ excerpt in the verdict is redacted
// like the tape. Where the root's start tick comes from (seed 000, step 1:
// "before starting the turn"):
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

// CheckLiveness of (pid, start_ticks), stored in the Resolution and `*verdict`.
LiveCheck LivenessCheck(std::int64_t pid, std::uint64_t start_ticks, LivenessVerdict* verdict);

}  // namespace proctape
