// SPDX-License-Identifier: Apache-2.0
// proctape's exit statuses: one per family of outcome, documented in
// README.md and in `proctape --help`.
#pragma once

#include <string>

#include "core/failure.h"
#include "core/verdict.h"
#include "format/format_error.h"

namespace proctape {

enum ExitCode : int {
  kExitOk = 0,               // RESOLVED, or liveness ALIVE
  kExitInternal = 1,         // proctape itself failed (cannot open /proc, ...)
  kExitUsage = 2,            // bad command line or invalid request
  kExitDead = 3,             // liveness DEAD
  kExitIdentityChanged = 4,  // ROOT_RESTARTED, PID_REUSED, ANCESTRY_CHANGED, EXE_MISMATCH
  kExitNotFound = 5,         // MISSING_ROOT, NO_MATCH, TOKEN_MISMATCH; a view's filter: nothing
  kExitAmbiguous = 6,        // MULTIPLE_MATCHES
  kExitBadEvidence = 7,      // DUPLICATE_RECORD, MALFORMED_RECORD, CYCLE, UNREADABLE
  kExitBound = 8,            // ENTRY/NODE/DEPTH/FILE_BOUND, BYTE_BUDGET, DEADLINE
  kExitOtherBoot = 9,        // a fingerprint or an identity of another boot (boot_id differs)
  // Snapshot files: one status per FormatErrorKind (format/format_error.h).
  kExitIo = 10,            // open/read/write failed, or an output path was refused
  kExitBadMagic = 11,      // not a .ptape file
  kExitNewerVersion = 12,  // written by a newer format version
  kExitTruncated = 13,     // ends inside a chunk, or has no footer
  kExitChecksum = 14,      // a chunk's content checksum does not match
  kExitCorrupt = 15,       // a chunk does not decode or parse
  kExitTooLarge = 16,      // a length or declared size over the limits
  // Replay.
  kExitVerdictChanged = 20,  // same evidence, another verdict
  kExitDiverged = 21,        // the resolver asked for what the tape does not hold
  // Corpus and lab.
  kExitCorpusDrift = 22,     // a corpus entry drifted from its expectation or is unreadable
  kExitCorpusManifest = 23,  // a corpus manifest does not parse, or names a missing file
  kExitLabUnavailable = 24,  // the lab cannot run here (no PID namespaces, tool or privilege)
  kExitLabFailed = 25,       // a lab scenario could not be set up as described
  // Ownership.
  kExitScope = 26,  // the scope is not the verifier's: it does not hold --self (or is
                    // empty), or holds other sessions' new processes (no --force-scope)
  // Corpus shards.
  kExitShards = 27,  // corpus report: the shards' reports make no whole corpus check
  // 128 + N: interrupted by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143), the
  // shell's convention. `capture` returns it after finishing its file with the
  // frames complete; every other command ends by the signal itself, having
  // removed what it had begun (docs/cli/outputs.md).
  kExitInterrupted = 128,
};

inline int ExitInterrupted(int signal) { return kExitInterrupted + signal; }

int ExitCodeFor(Status status);
int ExitCodeFor(const LivenessVerdict& verdict);
// kNone -> 0; every other kind -> the status of its FailureKind (10..16).
int ExitCodeFor(FormatErrorKind kind);
// The status of a library's failure (core/failure.h): its kind's family.
int ExitCodeFor(FailureKind kind);

// What `status` means, in a few words ("bound exceeded"), for a failure
// said by its status alone (cli/errors.h Finish).
std::string ExitCodeMeaning(int status);
// The table above as text: `proctape help exit-codes`.
const char* ExitCodeHelp();
// A command's help footer: the statuses it gives (`these`), wrapped, and a
// pointer to the whole table.
std::string ExitStatusFooter(const std::string& these);

}  // namespace proctape
