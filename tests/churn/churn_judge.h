// SPDX-License-Identifier: Apache-2.0
// The churn run judged and reported (tests/churn/churn_bench.cc): each
// command's run checked (no crash, no hang, an exit status of its documented
// set, no raw control byte), its verdict word and the identity it names read
// from its output, and the figures printed at the end. The verdicts
// themselves are judged against the churner's log by churn_log.h.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/churn/churn_log.h"
#include "tests/churn/spawner.h"

namespace proctape::churn {

// The verdict word of a command's first line: "RESOLVED host pid ...",
// "NO_MATCH: ...", "ERROR PID_REUSED: ...", "ALIVE: ...".
std::string VerdictOf(const std::string& output);

// "RESOLVED host pid N, start tick T" / "ALIVE: pid N in state S started at tick T".
bool ParseIdentity(const std::string& output, const char* pid_key, const char* tick_key, pid_t* pid,
                   std::uint64_t* start);

// A byte a terminal would act on: every host byte proctape prints is escaped.
bool HasRawControl(const std::string& s);

struct Stats {
  std::map<std::string, std::map<std::string, int>> verdicts;  // what -> verdict -> n
  std::map<std::string, int> judged;                           // judgement -> n
  std::map<std::string, std::vector<long>> rss;                // what -> ru_maxrss kB, in order
  std::map<std::string, std::vector<double>> wall;             // what -> ms
  std::vector<std::string> failures;
  int files = 0, verified = 0, replayed = 0;
  int planted_missed_alive = 0;  // planted, alive throughout, yet not RESOLVED
};

// Counts `line` as a failure and prints it on standard error.
void Fail(Stats* s, const std::string& line);

// A command ended by itself within its timeout, by an exit status of its
// documented set, and printed no raw control byte.
bool CheckRun(const Run& r, const std::vector<int>& allowed, Stats* s);

// The figures of a run: the load the churner held and its pid reuses (from
// its log), the verdict mix, what was judged, each command's peak RSS and
// wall time, and the files verified and replayed.
void PrintFigures(const ChurnLog& log, double churn_seconds, const Stats& stats,
                  std::size_t recordings);

}  // namespace proctape::churn
