// SPDX-License-Identifier: Apache-2.0
// The resolver's and the liveness check's outcomes. One status per failure mode
// (`docs/resolver.md`, "The eight steps", "One attempt" and "Liveness"); each
// verdict carries the evidence that decided
// it so that a person (or `proctape explain`) can tell why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.h"

namespace proctape {

// Values match the schema's Verdict.Status.
enum class Status : int {
  kResolved = 1,
  kMissingRoot = 2,       // the fingerprinted root is not in the snapshot
  kRootRestarted = 3,     // the root's start time changed
  kNoMatch = 4,           // no matching sleep by the deadline
  kMultipleMatches = 5,   // more than one matching sleep
  kDuplicateRecord = 6,   // one pid listed twice in a snapshot
  kMalformedRecord = 7,   // a /proc record that does not parse
  kCycle = 8,             // parent links form a loop
  kEntryBound = 9,        // more numeric /proc entries than allowed
  kNodeBound = 10,        // more graph nodes than allowed
  kDepthBound = 11,       // ancestry deeper than allowed
  kFileBound = 12,        // a required file larger than its bound
  kByteBudget = 13,       // cumulative bytes read over the budget
  kDeadline = 14,         // the absolute deadline passed during a scan
  kUnreadable = 15,       // a required read failed (errno in the verdict)
  kTokenMismatch = 16,    // a matching sleep carries no usable token entry
  kExeMismatch = 17,      // the candidate's executable is not the attested one
  kAncestryChanged = 18,  // a re-read parent differs from the snapshot
  kPidReused = 19,        // a re-read start time differs from the snapshot
  kInvalidRequest = 20,   // the request itself cannot be used
};

// "RESOLVED", "MISSING_ROOT", ... (the schema's enum names).
std::string_view StatusName(Status status);

// A process beneath the root that was not the match, and the first rule of
// the inspection or the confirmation (docs/resolver.md, "One attempt", steps
// 3-4) it did not pass, so that NO_MATCH tells "the argv differs" from
// "nothing started yet" (docs/resolver.md, "Near misses").
struct NearMiss {
  enum class Rule : int {
    kArgv = 1,        // its cmdline is not the expected argv
    kToken = 2,       // argv exact; no environment entry carries this token
    kExecutable = 3,  // argv and token match; the deadline passed before its exe was checked
    kAncestry = 4,    // ... exe as attested; the deadline passed during the ancestry re-read
    kVanished = 5,    // it vanished during inspection (the attempt was retried)
  };
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;  // the scan's stat of it
  Rule rule = Rule::kArgv;
  std::string argv;                 // kArgv: the cmdline's first bytes, raw
  bool argv_cut = false;            // kArgv: the cmdline held more than `argv`
  std::uint32_t token_entries = 0;  // kToken: entries named the token variable
};

// At most this many near misses are listed; the rest are counted.
inline constexpr std::size_t kMaxNearMisses = 16;
// The bytes of a near miss's cmdline kept.
inline constexpr std::size_t kNearMissArgvBytes = 256;

struct Verdict {
  Status status = Status::kNoMatch;
  std::int64_t pid = 0;           // the resolved pid; 0 unless kResolved
  std::uint64_t start_ticks = 0;  // the resolved start time; 0 unless kResolved
  std::int64_t subject_pid = 0;   // a failure: the pid the evidence is about, 0 for none
  // A failure: the start time the resolver read for its subject (the scan's
  // stat, or the re-read one that differs: ROOT_RESTARTED, PID_REUSED);
  // absent when no stat of it was read or parsed (docs/resolver.md, "The
  // verdict names processes by their identity").
  std::optional<std::uint64_t> subject_start_ticks;
  std::optional<std::uint64_t> expected_ticks;  // the start time expected, where one was
  int file = 0;                                 // ProcFile value, 0 when no file decided
  int err = 0;                                  // errno of the deciding read
  std::string evidence;                         // offending bytes, at most kEvidenceExcerpt
  std::string detail;                           // one human sentence
  std::uint32_t attempts = 0;
  std::uint64_t bytes_read = 0;
  std::vector<std::int64_t> matches;  // every match, for kMultipleMatches
  // NO_MATCH and TOKEN_MISMATCH after the retries (and a deadline during a
  // confirmation): the processes beneath the root of the attempt that
  // diagnosed it, those that passed the most rules first, then by pid.
  std::vector<NearMiss> near_misses;
  std::uint32_t near_misses_omitted = 0;  // beyond kMaxNearMisses
  bool late_fingerprint = false;          // the root was fingerprinted at resolve time

  bool resolved() const { return status == Status::kResolved; }
};

inline constexpr std::size_t kEvidenceExcerpt = 256;

enum class LivenessStatus : int { kAlive = 1, kDead = 2, kError = 3 };
std::string_view LivenessName(LivenessStatus status);

struct LivenessVerdict {
  LivenessStatus status = LivenessStatus::kError;
  Status reason = Status::kUnreadable;  // for kError: kPidReused, kMalformedRecord, kUnreadable,
                                        // kInvalidRequest (a pid or start tick that cannot be)
  std::string state;                    // stat field 3 as read
  std::string detail;
  int err = 0;
  // The identity's boot was not known, so not checked against the host's
  // (docs/resolver.md, "Liveness"). Set by the caller that knows the request,
  // as Verdict::late_fingerprint is; CheckLiveness never sets it.
  bool boot_unchecked = false;
};

}  // namespace proctape
