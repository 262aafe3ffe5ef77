// SPDX-License-Identifier: Apache-2.0
// .ptape files for tools: a fingerprint file kept between fingerprint and
// resolution (the format of `proctape fingerprint`), reading a recording,
// and replaying it (what `proctape replay` does). docs/library.md.
// Thread-safe for different files; nothing is printed, nothing thrown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "proctape/live.h"
#include "proctape/types.h"

namespace proctape::api {

// Writes `fingerprint` as a fingerprint file (header, fingerprint, footer)
// that `proctape resolve --fingerprint` reads. The path is checked first
// (kRecordRefused: exists without `replace`, a link, a directory); written
// to a temporary and renamed (kIo: nothing is left).
Error WriteFingerprintFile(const std::string& path, const Fingerprint& fingerprint,
                           bool replace = false, const LiveOptions& options = {}) noexcept;

// Reads a fingerprint file: the file's damage (kIo .. kTooLarge),
// kNotAFingerprint, or kInvalidArgument for a fingerprint that cannot be used.
// Its boot is not checked here: Resolve checks it against this host's.
FingerprintResult ReadFingerprintFile(const std::string& path) noexcept;

// One check a recording holds.
struct RecordedCheck {
  bool liveness = false;  // a liveness check; otherwise a resolution
  Verdict verdict;        // a resolution's recorded verdict
  LivenessVerdict liveness_verdict;
  std::uint64_t observations = 0;  // calls on its tape
};

struct FileSummary {
  Error error;  // the first damage (kIo .. kTooLarge); the counts are
                // of what was read before it
  std::uint64_t chunks = 0;
  std::uint64_t frames = 0;
  std::uint64_t processes = 0;  // records in all frames
  std::uint64_t observations = 0;
  bool environ_kept = false;  // written with environ values kept (secrets)
  std::vector<RecordedCheck> checks;
  std::vector<Fingerprint> fingerprints;
  bool ok() const noexcept { return error.ok(); }
};

// Reads and checks a whole .ptape (what `proctape verify` checks).
FileSummary ReadFile(const std::string& path) noexcept;

enum class ReplayOutcome : int { kReproduced = 1, kVerdictChanged = 2, kDiverged = 3 };
// "REPRODUCED", "VERDICT CHANGED", "DIVERGED"
std::string_view ReplayOutcomeName(ReplayOutcome outcome) noexcept;

struct ReplayedCheck {
  std::size_t index = 0;  // the check's index in the file
  ReplayOutcome outcome = ReplayOutcome::kDiverged;
  bool liveness = false;
  Verdict recorded;  // a resolution's verdicts
  Verdict replayed;  // valid when has_replayed
  LivenessVerdict recorded_liveness;
  LivenessVerdict replayed_liveness;
  bool has_replayed = false;  // false when the tape could not answer a call
  std::string description;    // `proctape replay`'s line(s), host bytes escaped, no final newline
};

struct ReplayReport {
  Error error;  // the file cannot be read whole: nothing replayed
  std::vector<ReplayedCheck> checks;
  ReplayOutcome worst = ReplayOutcome::kReproduced;  // of every check
  bool ok() const noexcept { return error.ok(); }
};

// Replays every check of a recording against its tape, with the identical
// resolver: nothing live is read, the recorded clock is used.
ReplayReport Replay(const std::string& path) noexcept;

}  // namespace proctape::api
