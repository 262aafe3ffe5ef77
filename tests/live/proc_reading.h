// SPDX-License-Identifier: Apache-2.0
// Independent /proc reading for the live tests (tests/live/sandbox.h): whole
// files, a stat split at its last ')', the NSpid line, the descendants of a
// process; and two small helpers (a random hex token, a program on PATH).
//
// The /proc reading here is deliberately independent of proctape's parsers:
// it is what the tests check proctape against.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace proctape::live {

// The whole of /proc/PID/NAME; nullopt with *err set when it cannot be read.
std::optional<std::string> ReadProc(pid_t pid, const std::string& name, int* err = nullptr);

struct ProcStat {
  pid_t pid = 0;
  char state = 0;
  pid_t ppid = 0;
  std::uint64_t start_ticks = 0;  // field 22
};
// /proc/PID/stat split at the last ')': nullopt if gone or unparsable.
std::optional<ProcStat> ReadStat(pid_t pid);

// The NSpid line of /proc/PID/status, outermost first ({8155, 3}); empty if
// the process is gone.
std::vector<long> NsPids(pid_t pid);

// Every process whose parent chain reaches `root` (root excluded), in the
// order /proc lists them.
std::vector<pid_t> Descendants(pid_t root);

// A random hex string for tokens.
std::string RandomHex(std::size_t bytes);

// "/usr/bin/bwrap" for "bwrap", or empty when it is not on PATH.
std::string FindOnPath(const std::string& program);

// Waits (polling every 2 ms, at most `timeout_ms`) until /proc/PID is gone
// or the process is a zombie/dead (state Z, X or x). False on timeout.
bool WaitGoneOrDead(pid_t pid, int timeout_ms);

}  // namespace proctape::live
