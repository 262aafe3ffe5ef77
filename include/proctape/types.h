// SPDX-License-Identifier: Apache-2.0
// proctape's public types: the request, the fingerprint taken before the turn,
// the verdict, liveness, and the errors every call of the library returns
// (docs/library.md). Plain values only: this header includes nothing of
// proctape's internals, of protobuf or of zstd.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proctape::api {

// The library's version ("0.1.0"), the version of the proctape it ships with.
std::string_view Version() noexcept;

// What stopped a call before (or after) the resolver decided: never a
// verdict. Every call returns one; none throws.
enum class ErrorCode : int {
  kNone = 0,
  kInvalidArgument = 1,   // an argument that cannot be used (an empty token, a
                          // fingerprint with no boot id, an --exe that is not a file)
  kProc = 2,              // the /proc mount cannot be opened, or is not procfs
  kRoot = 3,              // TakeFingerprint: the root cannot be fingerprinted
                          // (its status says why: MISSING_ROOT, UNREADABLE, ...)
  kExe = 4,               // TakeFingerprint: the executable cannot be attested
  kOtherBoot = 5,         // a fingerprint taken in another boot than this host's
  kRecordRefused = 6,     // RecordPolicy's path refused before any work (exists
                          // without `replace`, a link, a directory, no directory)
  kRecordFailed = 7,      // the recording could not be written; the verdict stands
  kIo = 8,                // a file cannot be opened, read or written
  kNotPtape = 9,          // not a .ptape file (wrong magic)
  kNewerVersion = 10,     // written by a newer format version
  kTruncated = 11,        // the file ends early (a capture that did not finish)
  kChecksum = 12,         // a chunk's checksum does not match
  kCorrupt = 13,          // does not decode, or breaks the format's structure
  kTooLarge = 14,         // a size over the format's limits
  kNotAFingerprint = 15,  // an intact .ptape that is not a fingerprint file
  kInternal = 16,         // out of memory, or an exception caught at the API's edge
};

// "NONE", "INVALID_ARGUMENT", ...
std::string_view ErrorCodeName(ErrorCode code) noexcept;

struct Error {
  ErrorCode code = ErrorCode::kNone;
  std::string message;  // one line; host bytes in it are escaped (\xNN)
  bool ok() const noexcept { return code == ErrorCode::kNone; }
};

// A process on the host: its pid and its start time (stat field 22, clock
// ticks since boot), in the boot they count from. A pid alone names nothing:
// pids are reused; and a start tick names nothing outside its boot: after a
// reboot the same pair can name another process.
struct ProcessIdentity {
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;
  std::string boot_id;  // /proc/sys/kernel/random/boot_id as read; "" when not known
  bool operator==(const ProcessIdentity&) const = default;
};

// Taken before the turn (docs/resolver.md, "The eight steps", step 1). The
// root's host pid and start tick, the executable's device and inode (links
// followed), the boot they belong to. `root_comm` is for people only: nothing decides on it.
struct Fingerprint {
  std::int64_t root_pid = 0;
  std::uint64_t root_start_ticks = 0;
  std::string root_comm;
  std::string exe_path;
  std::uint64_t exe_dev = 0;
  std::uint64_t exe_ino = 0;
  std::string boot_id;  // /proc/sys/kernel/random/boot_id as read (with its newline)
  std::int64_t taken_mono_ns = 0;
  std::int64_t taken_realtime_ns = 0;
};

// What the resolver looks for beneath the fingerprinted root: the unique
// descendant whose argv is exactly `argv`, whose environment holds
// `token_var`=`token` exactly once, and whose executable is the attested one.
struct Request {
  std::string token;  // required: a random, per-invocation value
  std::string token_var = "PROCTAPE_TOKEN";
  std::vector<std::string> argv = {"/bin/sleep", "120"};
  std::int64_t deadline_ms = 5000;           // retries every 100 ms until then
  std::uint64_t byte_budget = 256ull << 20;  // all /proc reads of all attempts
};

// Values and names are the file format's (docs/resolver.md).
enum class Status : int {
  kResolved = 1,
  kMissingRoot = 2,
  kRootRestarted = 3,
  kNoMatch = 4,
  kMultipleMatches = 5,
  kDuplicateRecord = 6,
  kMalformedRecord = 7,
  kCycle = 8,
  kEntryBound = 9,
  kNodeBound = 10,
  kDepthBound = 11,
  kFileBound = 12,
  kByteBudget = 13,
  kDeadline = 14,
  kUnreadable = 15,
  kTokenMismatch = 16,
  kExeMismatch = 17,
  kAncestryChanged = 18,
  kPidReused = 19,
  kInvalidRequest = 20,
};

// "RESOLVED", "NO_MATCH", ...
std::string_view StatusName(Status status) noexcept;

// The resolver's verdict and the evidence that decided it. Only RESOLVED has
// an identity (`pid`, `start_ticks`, in the boot `boot_id`); a failure names
// the process it is about in `subject_pid`/`subject_start_ticks`.
struct Verdict {
  Status status = Status::kNoMatch;
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;
  std::int64_t subject_pid = 0;
  // The start tick read for the subject; empty when none was read (its stat
  // unreadable or malformed, or no process named).
  std::optional<std::uint64_t> subject_start_ticks;
  std::optional<std::uint64_t> expected_ticks;  // the start tick expected, where one was
  std::string file;      // the /proc/PID file that decided ("stat", "environ", ...) or ""
  int err = 0;           // errno of the deciding read
  std::string evidence;  // raw offending bytes (at most 256): escape before printing
  std::string detail;    // one sentence
  std::uint32_t attempts = 0;
  std::uint64_t bytes_read = 0;
  std::vector<std::int64_t> matches;  // MULTIPLE_MATCHES: every match
  // The boot its start ticks count from: the fingerprint's (Resolve), the
  // recording's (ReadFile, Replay).
  std::string boot_id;
  bool resolved() const noexcept { return status == Status::kResolved; }
  ProcessIdentity identity() const { return {pid, start_ticks, boot_id}; }
};

enum class Liveness : int { kAlive = 1, kDead = 2, kError = 3 };
// "ALIVE", "DEAD", "ERROR"
std::string_view LivenessName(Liveness liveness) noexcept;

// Liveness (docs/resolver.md, "The eight steps", step 8): one re-read of
// stat. kError carries its reason (PID_REUSED, MALFORMED_RECORD, UNREADABLE,
// INVALID_REQUEST).
struct LivenessVerdict {
  Liveness status = Liveness::kError;
  Status reason = Status::kUnreadable;
  std::string state;  // stat field 3 as read
  std::string detail;
  int err = 0;
  // The identity named no boot, so its boot was not checked against this
  // host's (CheckLiveness): after a reboot the same pid and start tick can
  // name another process.
  bool boot_unchecked = false;
};

}  // namespace proctape::api
