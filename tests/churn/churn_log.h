// SPDX-License-Identifier: Apache-2.0
// The churner's log (tests/churn/churner.cc) read back, and the verdicts of
// the proctape commands run during the churn judged against it.
//
// The log is the ground truth: every process the churner created, its host
// pid and start tick as the process itself read them from /proc/self/stat,
// its token, and when it was reaped. A verdict is judged only by what the
// log proves:
//   RESOLVED (pid, start) for token T   correct iff the log holds a process
//       with token T (exactly one entry), that host pid and that start tick,
//       not reaped before the command began; anything else is WRONG;
//   ALIVE (pid, start)                  correct iff the log holds (pid,
//       start) not reaped before the command began;
//   every other verdict (NO_MATCH, TOKEN_MISMATCH, DEADLINE, DEAD,
//       PID_REUSED, ...)                fail-closed: it names no process.
// Two logged processes with the same (host pid, start tick) — a pid reused
// within one clock tick, which clone3 set_tid makes possible — cannot be told
// apart by any (pid, start tick) identity: a verdict naming such a pair is
// counted as "ambiguous identity", not as correct or wrong.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace proctape::churn {

struct Created {
  std::uint32_t seq = 0;
  char kind = 'x';     // x exit, s sleeper (token), e exec /bin/true
  bool reuse = false;  // made by clone3 at a reaped child's pids
  pid_t ns_pid = 0;
  pid_t host_pid = 0;
  std::uint64_t start = 0;    // stat field 22, read by the process itself
  std::string comm;           // raw bytes
  std::string token;          // empty: none
  bool dup_token = false;     // the token entry twice in its environment
  std::int64_t fork_ns = 0;   // CLOCK_MONOTONIC
  std::int64_t reap_ns = -1;  // -1: not reaped (yet)
};

struct ChurnLog {
  int pid_max = 0;  // the namespace's
  pid_t churner_host_pid = 0;
  std::uint64_t churner_start = 0;
  std::map<std::uint32_t, Created> created;  // by seq
  std::uint64_t fork_failures = 0;
  bool ended = false;  // the E line was read
  std::uint64_t forks = 0, reaped = 0, reuse_ok = 0, reuse_failed = 0;
};

// Reads the complete lines of `text` from `*offset` on into `*log`, advancing
// `*offset` past them (a partial last line is left for the next call). False
// if a complete line does not parse.
bool ParseLog(const std::string& text, std::size_t* offset, ChurnLog* log, std::string* error);

struct ReuseCounts {
  std::uint64_t host_pids_reused = 0;     // creations at a host pid logged before
  std::uint64_t ns_pids_reused = 0;       // creations at a namespace pid logged before
  std::uint64_t identity_collisions = 0;  // (host pid, start tick) logged twice
};
ReuseCounts CountReuse(const ChurnLog& log);

enum class Judgement { kCorrect, kFailClosed, kAmbiguous, kWrong };
const char* JudgementName(Judgement j);

// `token` empty means a token the churner never planted. `command_start_ns`
// is when the command was started (CLOCK_MONOTONIC). `why` says what was
// wrong or ambiguous.
Judgement JudgeResolved(const ChurnLog& log, const std::string& token, pid_t pid,
                        std::uint64_t start, std::int64_t command_start_ns, std::string* why);
Judgement JudgeAlive(const ChurnLog& log, pid_t pid, std::uint64_t start,
                     std::int64_t command_start_ns, std::string* why);

}  // namespace proctape::churn
