// The resolver's and the liveness check's outcomes. One status per failure mode
// of seed 000 ("Failure modes"); each verdict carries the evidence that decided
// it so that a person (or `proctape explain`) can tell why.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/evidence.h"

namespace proctape {

// Values match the schema's Verdict.Status.
enum class Status : int {
  kResolved = 1,
  kMissingRoot = 2,      // the fingerprinted root is not in the snapshot
  kRootRestarted = 3,    // the root's start time changed
  kNoMatch = 4,          // no matching sleep by the deadline
  kMultipleMatches = 5,  // more than one matching sleep
  kDuplicateRecord = 6,  // one pid listed twice in a snapshot
  kMalformedRecord = 7,  // a /proc record that does not parse
  kCycle = 8,            // parent links form a loop
  kEntryBound = 9,       // more numeric /proc entries than allowed
  kNodeBound = 10,       // more graph nodes than allowed
  kDepthBound = 11,      // ancestry deeper than allowed
  kFileBound = 12,       // a required file larger than its bound
  kByteBudget = 13,      // cumulative bytes read over the budget
  kDeadline = 14,        // the absolute deadline passed during a scan
  kUnreadable = 15,      // a required read failed (errno in the verdict)
  kTokenMismatch = 16,   // a matching sleep carries no usable token entry
  kExeMismatch = 17,     // the candidate's executable is not the attested one
  kAncestryChanged = 18, // a re-read parent differs from the snapshot
  kPidReused = 19,       // a re-read start time differs from the snapshot
  kInvalidRequest = 20,  // the request itself cannot be used
};

// "RESOLVED", "MISSING_ROOT", ... (the schema's enum names).
std::string_view StatusName(Status status);

struct Verdict {
  Status status = Status::kNoMatch;
  std::int64_t pid = 0;               // the resolved pid; 0 unless kResolved
  std::uint64_t start_ticks = 0;      // the resolved start time; 0 unless kResolved
  std::int64_t subject_pid = 0;       // a failure: the pid the evidence is about
  std::uint64_t subject_start_ticks = 0;  // a failure: the start time observed for it
  std::uint64_t expected_ticks = 0;   // the start time expected, where one was
  int file = 0;                       // ProcFile value, 0 when no file decided
  int err = 0;                        // errno of the deciding read
  std::string evidence;               // offending bytes, at most kEvidenceExcerpt
  std::string detail;                 // one human sentence
  std::uint32_t attempts = 0;
  std::uint64_t bytes_read = 0;
  std::vector<std::int64_t> matches;  // every match, for kMultipleMatches
  bool late_fingerprint = false;      // the root was fingerprinted at resolve time

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
