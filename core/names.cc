// SPDX-License-Identifier: Apache-2.0
#include "core/evidence.h"
#include "core/verdict.h"

namespace proctape {

std::string_view ProcFileName(ProcFile file) {
  switch (file) {
    case ProcFile::kStat: return "stat";
    case ProcFile::kCmdline: return "cmdline";
    case ProcFile::kEnviron: return "environ";
    case ProcFile::kStatus: return "status";
    case ProcFile::kCgroup: return "cgroup";
    case ProcFile::kExe: return "exe";
  }
  return "unknown";
}

std::string_view StatusName(Status status) {
  switch (status) {
    case Status::kResolved: return "RESOLVED";
    case Status::kMissingRoot: return "MISSING_ROOT";
    case Status::kRootRestarted: return "ROOT_RESTARTED";
    case Status::kNoMatch: return "NO_MATCH";
    case Status::kMultipleMatches: return "MULTIPLE_MATCHES";
    case Status::kDuplicateRecord: return "DUPLICATE_RECORD";
    case Status::kMalformedRecord: return "MALFORMED_RECORD";
    case Status::kCycle: return "CYCLE";
    case Status::kEntryBound: return "ENTRY_BOUND";
    case Status::kNodeBound: return "NODE_BOUND";
    case Status::kDepthBound: return "DEPTH_BOUND";
    case Status::kFileBound: return "FILE_BOUND";
    case Status::kByteBudget: return "BYTE_BUDGET";
    case Status::kDeadline: return "DEADLINE";
    case Status::kUnreadable: return "UNREADABLE";
    case Status::kTokenMismatch: return "TOKEN_MISMATCH";
    case Status::kExeMismatch: return "EXE_MISMATCH";
    case Status::kAncestryChanged: return "ANCESTRY_CHANGED";
    case Status::kPidReused: return "PID_REUSED";
    case Status::kInvalidRequest: return "INVALID_REQUEST";
  }
  return "unknown status";
}

std::string_view LivenessName(LivenessStatus status) {
  switch (status) {
    case LivenessStatus::kAlive: return "ALIVE";
    case LivenessStatus::kDead: return "DEAD";
    case LivenessStatus::kError: return "ERROR";
  }
  return "unknown status";
}

}  // namespace proctape
