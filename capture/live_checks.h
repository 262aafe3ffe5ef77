// The checks a live recording runs: `resolve --record`, `liveness --record`
// and every `proctape lab` scenario record through these, so a lab file and a
// file from a failing CI host are made by the same code.
#pragma once

#include <functional>
#include <string>

#include "core/evidence.h"
#include "core/resolver.h"
#include "core/verdict.h"
#include "proctape.pb.h"

namespace proctape {

using LiveCheck = std::function<void(Evidence&, v1::Resolution*)>;

// The environ entry a resolution keeps verbatim in a redacted recording.
std::string TokenEntry(const Request& request);

// Resolves `*request` (fingerprinting its root first, on the same evidence,
// when `fingerprint_root`: the root's start tick is then what was found) and
// stores request, `exe_path` and verdict in the Resolution and in `*verdict`.
// An environ excerpt in the verdict is redacted like the tape.
LiveCheck ResolveCheck(Request* request, std::string exe_path, bool fingerprint_root,
                       Verdict* verdict);

// CheckLiveness of (pid, start_ticks), stored in the Resolution and `*verdict`.
LiveCheck LivenessCheck(std::int64_t pid, std::uint64_t start_ticks, LivenessVerdict* verdict);

}  // namespace proctape
