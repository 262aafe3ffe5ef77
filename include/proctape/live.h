// SPDX-License-Identifier: Apache-2.0
// The live host: fingerprint the root before the turn, resolve the sandboxed
// process after it (recording on failure, or always), check its liveness
// later. docs/library.md states each contract.
//
// Threads: every call opens its own /proc evidence and shares nothing, so
// different requests may run on several threads at once. No call throws,
// writes to standard output or standard error, signals, ptraces or writes to
// another process, or installs a signal handler.
#pragma once

#include <string>
#include <vector>

#include "proctape/types.h"

namespace proctape::api {

// Where the live host is read, and what a recording's header says.
struct LiveOptions {
  std::string proc_root = "/proc";        // the root of a procfs mount
  unsigned scan_threads = 0;              // a recording's frame scans; 0: the cores, at most 4
  std::vector<std::string> command_line;  // stored in a recording's header (who recorded)
};

struct FingerprintResult {
  Fingerprint fingerprint;                 // whole only when error.ok()
  Status root_status = Status::kResolved;  // kRoot: why the root cannot be fingerprinted
  Error error;
  bool ok() const noexcept { return error.ok(); }
};

// Before the turn (docs/resolver.md, "The eight steps", step 1): reads
// `root_pid`'s stat once (its start tick), attests `exe_path` (stat, links
// followed: a regular file) and the boot id. Errors: kProc, kRoot (root_status says why), kExe,
// kInvalidArgument (a pid outside 2..2147483647), kInternal.
FingerprintResult TakeFingerprint(std::int64_t root_pid, const std::string& exe_path = "/bin/sleep",
                                  const LiveOptions& options = {}) noexcept;

enum class Record : int {
  kNever = 0,      // record nothing; the plain resolver's cost
  kOnFailure = 1,  // write `path` only for a verdict other than RESOLVED
  kAlways = 2,     // write `path` whatever the verdict (as `proctape resolve --record`)
};

struct RecordPolicy {
  Record when = Record::kNever;
  std::string path;      // the .ptape to write; checked before any work
  bool replace = false;  // replace an existing regular file at `path`
};

struct ResolveResult {
  bool ran = false;  // the resolver ran: `verdict` is its verdict
  Verdict verdict;
  std::string recording;  // the path written, or "" when nothing was written
  Error error;            // before the run (ran == false) or the recording (kRecordFailed)
  bool ok() const noexcept { return error.ok(); }
};

// After the turn: the resolver (docs/resolver.md) on the live host, against
// `fingerprint` (taken before the turn by TakeFingerprint, in this boot).
// Recording (RecordPolicy): the tape of every call the resolver makes is
// streamed to a temporary beside `path` while it runs; kOnFailure keeps it
// only for a verdict other than RESOLVED, adding a whole-host frame taken
// just after the verdict; kAlways adds a frame before and one after.
// Errors: kInvalidArgument (empty token, an argv element holding a NUL, an
// unusable fingerprint), kOtherBoot, kProc, kRecordRefused (before any
// work: nothing ran), kRecordFailed (the verdict stands, nothing is left of
// the file), kInternal.
ResolveResult Resolve(const Request& request, const Fingerprint& fingerprint,
                      const RecordPolicy& record = {}, const LiveOptions& options = {}) noexcept;

struct LivenessResult {
  LivenessVerdict verdict;
  Error error;  // kOtherBoot, kProc, kInternal: no verdict then
  bool ok() const noexcept { return error.ok(); }
};

// Later (docs/resolver.md, "The eight steps", step 8): is `identity` still alive? One stat read, in the
// identity's boot: an identity of another boot than this host's is
// kOtherBoot (its start tick names nothing here: nothing is read); a
// `boot_id` that is no boot id (36 characters 8-4-4-4-12 of hexadecimal
// digits, either case, blanks around it allowed) is kInvalidArgument. An
// identity that names no boot (`boot_id` empty) is checked all the same, and
// the verdict says so (`boot_unchecked`). `Verdict::identity()` of Resolve
// carries its fingerprint's boot.
LivenessResult CheckLiveness(const ProcessIdentity& identity,
                             const LiveOptions& options = {}) noexcept;

}  // namespace proctape::api
