// SPDX-License-Identifier: Apache-2.0
#include "cli/exit_codes.h"

namespace proctape {

int ExitCodeFor(Status status) {
  switch (status) {
    case Status::kResolved: return kExitOk;
    case Status::kInvalidRequest: return kExitUsage;
    case Status::kRootRestarted:
    case Status::kPidReused:
    case Status::kAncestryChanged:
    case Status::kExeMismatch: return kExitIdentityChanged;
    case Status::kMissingRoot:
    case Status::kNoMatch:
    case Status::kTokenMismatch: return kExitNotFound;
    case Status::kMultipleMatches: return kExitAmbiguous;
    case Status::kDuplicateRecord:
    case Status::kMalformedRecord:
    case Status::kCycle:
    case Status::kUnreadable: return kExitBadEvidence;
    case Status::kEntryBound:
    case Status::kNodeBound:
    case Status::kDepthBound:
    case Status::kFileBound:
    case Status::kByteBudget:
    case Status::kDeadline: return kExitBound;
  }
  return kExitInternal;
}

int ExitCodeFor(const LivenessVerdict& verdict) {
  switch (verdict.status) {
    case LivenessStatus::kAlive: return kExitOk;
    case LivenessStatus::kDead: return kExitDead;
    case LivenessStatus::kError: return ExitCodeFor(verdict.reason);
  }
  return kExitInternal;
}

int ExitCodeFor(FormatErrorKind kind) {
  const std::optional<FailureKind> failure = FailureKindOf(kind);
  return failure ? ExitCodeFor(*failure) : kExitOk;
}

int ExitCodeFor(FailureKind kind) {
  switch (kind) {
    case FailureKind::kUsage: return kExitUsage;
    case FailureKind::kNotFound: return kExitNotFound;
    case FailureKind::kBound: return kExitBound;
    case FailureKind::kOtherBoot: return kExitOtherBoot;
    case FailureKind::kIo: return kExitIo;
    case FailureKind::kBadMagic: return kExitBadMagic;
    case FailureKind::kNewerVersion: return kExitNewerVersion;
    case FailureKind::kTruncated: return kExitTruncated;
    case FailureKind::kChecksum: return kExitChecksum;
    case FailureKind::kCorrupt: return kExitCorrupt;
    case FailureKind::kTooLarge: return kExitTooLarge;
    case FailureKind::kVerdictChanged: return kExitVerdictChanged;
    case FailureKind::kDiverged: return kExitDiverged;
    case FailureKind::kCorpusDrift: return kExitCorpusDrift;
    case FailureKind::kManifest: return kExitCorpusManifest;
    case FailureKind::kLabUnavailable: return kExitLabUnavailable;
    case FailureKind::kLabFailed: return kExitLabFailed;
    case FailureKind::kScope: return kExitScope;
    case FailureKind::kShards: return kExitShards;
    case FailureKind::kInternal: return kExitInternal;
  }
  return kExitInternal;
}

std::string ExitCodeMeaning(int status) {
  switch (status) {
    case kExitOk: return "success";
    case kExitInternal: return "proctape itself failed";
    case kExitUsage: return "usage error";
    case kExitDead: return "liveness DEAD";
    case kExitIdentityChanged: return "identity changed";
    case kExitNotFound: return "not found";
    case kExitAmbiguous: return "ambiguous";
    case kExitBadEvidence: return "bad evidence";
    case kExitBound: return "bound exceeded";
    case kExitOtherBoot: return "a fingerprint or an identity from another boot";
    case kExitIo: return "file I/O failed";
    case kExitBadMagic: return "not a snapshot file";
    case kExitNewerVersion: return "snapshot written by a newer format version";
    case kExitTruncated: return "snapshot truncated";
    case kExitChecksum: return "snapshot chunk checksum mismatch";
    case kExitCorrupt: return "snapshot corrupt";
    case kExitTooLarge: return "snapshot length or size over the limits";
    case kExitVerdictChanged: return "replay: VERDICT CHANGED";
    case kExitDiverged: return "replay: DIVERGED";
    case kExitCorpusDrift: return "corpus: an entry drifted or is unreadable";
    case kExitCorpusManifest: return "corpus: the manifest does not parse or names a missing file";
    case kExitLabUnavailable: return "lab: cannot run here";
    case kExitLabFailed: return "lab: the scenario could not be set up";
    case kExitScope: return "ownership: the scope is not the verifier's";
    case kExitShards: return "corpus report: the shards' reports make no whole";
  }
  if (status > kExitInterrupted)
    return "interrupted by signal " + std::to_string(status - kExitInterrupted);
  return "failure";
}

const char* ExitCodeHelp() {
  // Every line within 80 columns (ExitCodes.HelpExitCodesFitsEightyColumns).
  return "Exit status:\n"
         "  0  success: resolve RESOLVED; liveness ALIVE; verify: the file intact;\n"
         "     fingerprint, capture, export: the file written whole; show, tree,\n"
         "     diff, explain, corpus list: shown; replay, corpus check, report: every\n"
         "     verdict reproduced; explore: no violation; minimize, corpus add, rm:\n"
         "     done; sql: the statements ran;\n"
         "     lab: the scenario showed what it says; ownership: a plan made\n"
         "  1  proctape itself failed (for example /proc cannot be opened, or out of\n"
         "     memory)\n"
         "  2  usage error: a command line that cannot run, or an invalid request\n"
         "  3  liveness DEAD\n"
         "  4  identity changed: ROOT_RESTARTED, PID_REUSED, ANCESTRY_CHANGED,\n"
         "     EXE_MISMATCH\n"
         "  5  not found: MISSING_ROOT, NO_MATCH, TOKEN_MISMATCH; show, tree, diff: a\n"
         "     --pid/--uid/--comm filter that selects no process\n"
         "  6  ambiguous: MULTIPLE_MATCHES\n"
         "  7  bad evidence: DUPLICATE_RECORD, MALFORMED_RECORD, CYCLE, UNREADABLE\n"
         "  8  bound exceeded: ENTRY_BOUND, NODE_BOUND, DEPTH_BOUND, FILE_BOUND,\n"
         "     BYTE_BUDGET, DEADLINE (resolve, replay --model frames); capture: a frame\n"
         "     cut by a bound (--max-processes, --max-bytes, the file's limits):\n"
         "     written, without every process; ownership: a frame cut by a bound\n"
         "  9  a root fingerprint or an identity from another boot (resolve\n"
         "     --fingerprint, liveness --boot-id/--fingerprint/--from-recording: not\n"
         "     this host's boot_id; replay --fingerprint: not the recording's)\n"
         " 10  file I/O failed (standard output too: a full disk; a closed pipe when\n"
         "     SIGPIPE is ignored), or the output was refused (exists, a link, a\n"
         "     directory, its directory missing or not writable)\n"
         " 11  not a snapshot file (bad magic)\n"
         " 12  snapshot written by a newer format version\n"
         " 13  snapshot truncated (ends inside a chunk, or has no footer)\n"
         " 14  snapshot chunk checksum mismatch\n"
         " 15  snapshot corrupt (a chunk does not decode or parse)\n"
         " 16  snapshot length or size over the limits\n"
         " 20  replay: VERDICT CHANGED (same evidence, another verdict); explore: a\n"
         "     verdict the host model's truth contradicts (a violation); minimize: a\n"
         "     check whose frame's host model gives another verdict than recorded\n"
         " 21  replay: DIVERGED (the resolver asked for what the tape does not hold)\n"
         " 22  corpus: an entry drifted from its expected verdict, or could not be read\n"
         " 23  corpus: the manifest does not parse, or names a file that is missing\n"
         " 24  lab: cannot run here (no PID namespace, sandbox tool or needed privilege)\n"
         " 25  lab: the scenario could not be set up as described\n"
         " 26  ownership: the scope is not the verifier's: --uid and --cgroup do not hold\n"
         "     --self (an empty scope too), or it holds new processes of sessions older\n"
         "     than the baseline that are not the verifier's (without --force-scope)\n"
         " 27  corpus report: the shards' reports make no whole check (a shard missing\n"
         "     or given twice, reports of another corpus, --entry or N)\n"
         "130  interrupted (128 + the signal: 129 SIGHUP, 143 SIGTERM): capture finished\n"
         "     its file with the frames complete; any other command removed what it had\n"
         "     begun and ended by the signal\n"
         "141  SIGPIPE (128 + 13): the reader of standard output closed it early\n"
         "     (| head), as with any filter; what was printed before it stands\n";
}

std::string ExitStatusFooter(const std::string& these) {
  std::string out = "Exit status:";
  std::size_t column = out.size();
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    if (column + 1 + word.size() > 80) {
      out += "\n ";
      column = 1;
    }
    out += " " + word;
    column += 1 + word.size();
    word.clear();
  };
  for (char c : these) {
    if (c == ' ') {
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return out + "\nEvery status: 'proctape help exit-codes'.\n";
}

}  // namespace proctape
