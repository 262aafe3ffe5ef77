// proctape's exit statuses: one per family of outcome, documented in
// docs/cli.md and in `proctape --help`.
#pragma once

#include "core/verdict.h"

namespace proctape {

enum ExitCode : int {
  kExitOk = 0,               // RESOLVED, or liveness ALIVE
  kExitInternal = 1,         // proctape itself failed (cannot open /proc, ...)
  kExitUsage = 2,            // bad command line or invalid request
  kExitDead = 3,             // liveness DEAD
  kExitIdentityChanged = 4,  // ROOT_RESTARTED, PID_REUSED, ANCESTRY_CHANGED, EXE_MISMATCH
  kExitNotFound = 5,         // MISSING_ROOT, NO_MATCH, TOKEN_MISMATCH
  kExitAmbiguous = 6,        // MULTIPLE_MATCHES
  kExitBadEvidence = 7,      // DUPLICATE_RECORD, MALFORMED_RECORD, CYCLE, UNREADABLE
  kExitBound = 8,            // ENTRY/NODE/DEPTH/FILE_BOUND, BYTE_BUDGET, DEADLINE
};

int ExitCodeFor(Status status);
int ExitCodeFor(const LivenessVerdict& verdict);

// The table above as text, for --help.
const char* ExitCodeHelp();

}  // namespace proctape
