// SPDX-License-Identifier: Apache-2.0
// The churner's children (tests/churn/churner.cc): the hostile names they
// take, the report each sends before it exits or execs, and what a child of
// each kind does once forked (see churner.cc's header for the kinds).
#pragma once

#include <cstdint>
#include <string>

namespace proctape::churn {

// Names a host shows in comm and that a careless reader mis-parses or lets
// reach a terminal: ESC sequences, a newline, ") (" (a fake end of comm),
// a forged stat tail, non-UTF-8 bytes, empty and blank.
inline const char* const kHostileComms[] = {
    "\x1b[31mred\x1b[0m",
    "a\nb",
    ") (",
    "x) S 1 1 1",
    "\xff\xfe\x80\xc3",
    "sleep",
    "",
    " ",
    "(((",
    "))",
    "\\x41\\n",
    "\x7f\x01\x02",
    "ok\r\x1b]0;t\a",
};
inline constexpr int kHostileCount = sizeof kHostileComms / sizeof kHostileComms[0];

// What a child sends before it exits or execs: one write of under PIPE_BUF
// bytes, so reports of concurrent children never interleave.
struct Report {
  std::uint32_t seq = 0;
  std::int32_t ns_pid = 0;
  std::int32_t host_pid = 0;
  std::int32_t err = 0;  // errno of reading /proc/self/stat, or -1: unparsable
  std::uint64_t start = 0;
  char comm[32] = {};
  std::uint32_t comm_len = 0;
};

// Fills host pid, comm and start tick (field 22) from /proc/self/stat,
// split at the last ')' as the kernel writes it.
void ReadSelfStat(Report* r);

// The forked child number `s` of `kind` (x, s or e): renamed to `comm`, it
// reports on `report_fd`, then execs /bin/sleep or /bin/true through `link`
// with environment `env`, or exits (an exit child, or a failed exec).
[[noreturn]] void RunChild(std::uint32_t s, char kind, const char* comm, const std::string& link,
                           const char* const* env, int report_fd);

}  // namespace proctape::churn
