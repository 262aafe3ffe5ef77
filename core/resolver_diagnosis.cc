// SPDX-License-Identifier: Apache-2.0
// What the retries end in when nothing was confirmed: NO_MATCH, and a
// deadline that passes during an attempt (docs/resolver.md, "Retries,
// deadline and budget"), with the near misses they name ("Near misses"):
// bounded, the most informative first.
#include <algorithm>
#include <string>
#include <utility>

#include "core/resolver_internal.h"

namespace proctape::resolver {
namespace {

// How far a near miss got: the more rules passed, the lower its rank.
int Rank(NearMiss::Rule rule) {
  switch (rule) {
    case NearMiss::Rule::kAncestry: return 0;
    case NearMiss::Rule::kExecutable: return 1;
    case NearMiss::Rule::kToken: return 2;
    case NearMiss::Rule::kVanished: return 3;
    case NearMiss::Rule::kArgv: return 4;
  }
  return 5;
}

bool Before(NearMiss::Rule rule, std::int64_t pid, const NearMiss& other) {
  const int a = Rank(rule);
  const int b = Rank(other.rule);
  return a != b ? a < b : pid < other.pid;
}

}  // namespace

bool NearMisses::Keeps(NearMiss::Rule rule, std::int64_t pid) const {
  return kept_.size() < kMaxNearMisses || Before(rule, pid, kept_.back());
}

void NearMisses::Add(NearMiss miss) {
  if (!Keeps(miss.rule, miss.pid)) {
    ++omitted_;
    return;
  }
  auto at = std::find_if(kept_.begin(), kept_.end(),
                         [&](const NearMiss& k) { return Before(miss.rule, miss.pid, k); });
  kept_.insert(at, std::move(miss));
  if (kept_.size() > kMaxNearMisses) {
    kept_.pop_back();
    ++omitted_;
  }
}

void NearMisses::CopyTo(Verdict* v) const {
  v->near_misses = kept_;
  v->near_misses_omitted = omitted_;
}

Verdict NoMatchVerdict(const Diagnosis& last, std::uint32_t attempts) {
  const Status status = last.stale_token ? Status::kTokenMismatch : Status::kNoMatch;
  Verdict v = Make(status, last.pid,
                   "no match by the deadline after " + std::to_string(attempts) +
                       " attempts; last attempt: " + last.detail);
  v.subject_start_ticks = last.start_ticks;
  last.near_misses.CopyTo(&v);
  return v;
}

// `docs/resolver.md`, "Retries, deadline and budget": zero matches, or an owned
// process vanishing during inspection, retry from a fresh snapshot every 100 ms
// for at most 5 s. The deadline passed during attempt N+1 after N attempts
// completed without a match: the search was the retry loop, and the deadline
// ended it as it ends it between attempts. The verdict keeps the diagnosis of
// the last completed attempt (NO_MATCH, or TOKEN_MISMATCH for a match carrying
// another token), its detail naming the deadline.
Verdict DeadlineAfterCompletedAttempts(const Diagnosis& completed, std::uint32_t attempts,
                                       const Verdict& deadline) {
  const Status status = completed.stale_token ? Status::kTokenMismatch : Status::kNoMatch;
  Verdict v = Make(status, completed.pid,
                   "no match by the deadline after " + std::to_string(attempts - 1) +
                       " completed attempts: the deadline passed during attempt " +
                       std::to_string(attempts) + " (DEADLINE: " + deadline.detail +
                       "); last completed attempt: " + completed.detail);
  v.subject_start_ticks = completed.start_ticks;
  completed.near_misses.CopyTo(&v);
  return v;
}

Verdict DeadlineWhileConfirming(const Node& match, NearMiss::Rule stage, const NearMisses& near,
                                std::uint32_t attempts, bool completed, const Verdict& deadline) {
  const std::string what = "while confirming pid " + std::to_string(match.pid) +
                           ", whose argv and token match (" +
                           (stage == NearMiss::Rule::kExecutable
                                ? "its executable not yet checked)"
                                : "its executable as attested, its ancestry not yet re-read)");
  Verdict v =
      completed
          ? Make(Status::kNoMatch, match.pid,
                 "no match confirmed by the deadline after " + std::to_string(attempts - 1) +
                     " completed attempts: the deadline passed during attempt " +
                     std::to_string(attempts) + " " + what + " (DEADLINE: " + deadline.detail + ")")
          : Make(Status::kDeadline, match.pid, deadline.detail + " " + what);
  v.subject_start_ticks = match.start_ticks;
  near.CopyTo(&v);
  return v;
}

}  // namespace proctape::resolver
