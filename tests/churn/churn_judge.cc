// SPDX-License-Identifier: Apache-2.0
// The churn run judged and reported (churn_judge.h).
#include "tests/churn/churn_judge.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace proctape::churn {
namespace {

std::string Percent(int n, int total) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", total > 0 ? 100.0 * n / total : 0.0);
  return buf;
}

}  // namespace

// The verdict word of a command's first line: "RESOLVED host pid ...",
// "NO_MATCH: ...", "ERROR PID_REUSED: ...", "ALIVE: ...".
std::string VerdictOf(const std::string& output) {
  std::istringstream in(output.substr(0, output.find('\n')));
  std::string w;
  in >> w;
  if (!w.empty() && w.back() == ':') w.pop_back();
  if (w == "ERROR") {
    in >> w;
    if (!w.empty() && w.back() == ':') w.pop_back();
  }
  return w.empty() ? "(no output)" : w;
}

// "RESOLVED host pid N, start tick T" / "ALIVE: pid N in state S started at tick T".
bool ParseIdentity(const std::string& output, const char* pid_key, const char* tick_key, pid_t* pid,
                   std::uint64_t* start) {
  std::size_t p = output.find(pid_key), t = output.find(tick_key);
  if (p == std::string::npos || t == std::string::npos) return false;
  *pid = static_cast<pid_t>(std::strtol(output.c_str() + p + std::strlen(pid_key), nullptr, 10));
  *start = std::strtoull(output.c_str() + t + std::strlen(tick_key), nullptr, 10);
  return *pid > 0 && *start > 0;
}

// A byte a terminal would act on: every host byte proctape prints is escaped.
bool HasRawControl(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
  return false;
}

void Fail(Stats* s, const std::string& line) {
  s->failures.push_back(line);
  std::fprintf(stderr, "churn: FAIL %s\n", line.c_str());
}

// A command ended by itself within its timeout, by an exit status of its
// documented set, and printed no raw control byte.
bool CheckRun(const Run& r, const std::vector<int>& allowed, Stats* s) {
  s->rss[r.what].push_back(r.maxrss_kb);
  s->wall[r.what].push_back(static_cast<double>(r.end_ns - r.start_ns) / 1e6);
  std::string first = r.output.substr(0, r.output.find('\n'));
  if (!r.started) {
    Fail(s, r.what + ": could not start: " + r.error);
    return false;
  }
  if (r.timed_out) {
    Fail(s, r.what + ": HANG: still running at its timeout (killed)");
    return false;
  }
  if (r.term_signal != 0) {
    Fail(s, r.what + ": CRASH: ended by signal " + std::to_string(r.term_signal));
    return false;
  }
  if (std::find(allowed.begin(), allowed.end(), r.exit_code) == allowed.end()) {
    Fail(s, r.what + ": exit " + std::to_string(r.exit_code) + ": " + first);
    return false;
  }
  if (HasRawControl(r.output)) {
    Fail(s, r.what + ": a raw control byte in its output");
    return false;
  }
  return true;
}

void PrintFigures(const ChurnLog& log, double churn_seconds, const Stats& stats,
                  std::size_t recordings) {
  proctape::churn::ReuseCounts reuse = proctape::churn::CountReuse(log);
  std::printf("load: %llu processes created in %g s = %.0f per second (%llu fork failures)\n",
              static_cast<unsigned long long>(log.forks), churn_seconds,
              static_cast<double>(log.forks) / churn_seconds,
              static_cast<unsigned long long>(log.fork_failures));
  std::printf(
      "pid reuse: %llu host pids reused, %llu namespace pids reused (pid_max %d), "
      "%llu clone3 set_tid reuses (%llu refused: pid taken), %llu (pid, start tick) "
      "identities created twice\n",
      static_cast<unsigned long long>(reuse.host_pids_reused),
      static_cast<unsigned long long>(reuse.ns_pids_reused), log.pid_max,
      static_cast<unsigned long long>(log.reuse_ok),
      static_cast<unsigned long long>(log.reuse_failed),
      static_cast<unsigned long long>(reuse.identity_collisions));
  for (const auto& [what, mix] : stats.verdicts) {
    int total = 0;
    for (const auto& [v, c] : mix) total += c;
    std::printf("verdicts %s (%d):", what.c_str(), total);
    for (const auto& [v, c] : mix)
      std::printf(" %s %d (%s)", v.c_str(), c, Percent(c, total).c_str());
    std::printf("\n");
  }
  std::printf("judged:");
  for (const auto& [j, c] : stats.judged) std::printf(" %s %d", j.c_str(), c);
  std::printf("; planted and alive throughout but not RESOLVED: %d\n", stats.planted_missed_alive);
  for (const auto& [what, v] : stats.rss) {
    const auto& w = stats.wall.at(what);
    std::vector<double> sorted = w;
    std::sort(sorted.begin(), sorted.end());
    std::printf(
        "%-18s runs %4zu  peak RSS first %6ld kB last %6ld kB max %6ld kB  wall median "
        "%.0f ms max %.0f ms\n",
        what.c_str(), v.size(), v.front(), v.back(), *std::max_element(v.begin(), v.end()),
        sorted[sorted.size() / 2], sorted.back());
  }
  std::printf("files: %d written, %d verify intact, %zu recordings, %d replay REPRODUCED\n",
              stats.files, stats.verified, recordings, stats.replayed);
}

}  // namespace proctape::churn
