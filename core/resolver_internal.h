// SPDX-License-Identifier: Apache-2.0
// The parts of the resolver shared by its files (internal to core/, not an
// interface of proctape): how a verdict is made, the meter that charges every
// read against the byte budget and the deadline, and one point-in-time
// snapshot of the process graph (`docs/resolver.md`, "The eight steps",
// steps 2-4).
//
//   resolver_scan.cc  the meter, the scan and the graph (steps 2-4)
//   resolver.cc       attempts and retries, inspection, confirmation (1, 5-8)
//   resolver_diagnosis.cc  what a NO_MATCH and a deadline say, the near misses
//   request_words.cc  the request's checks (INVALID_REQUEST)
//   liveness.cc       liveness (step 8); fingerprint.cc the root's fingerprint (step 1)
#pragma once

#include <cerrno>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <algorithm>
#include <vector>

#include "core/checked.h"
#include "core/evidence.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "core/verdict.h"

namespace proctape::resolver {

// A process that vanished between listing and reading: the kernel answers
// ENOENT for a gone /proc/PID and ESRCH for a task that exited mid-read.
inline bool Vanished(int err) { return err == ENOENT || err == ESRCH; }

// `docs/resolver.md`, "The eight steps", step 8: gone, or state Z, X or x, is
// dead.
inline bool DeadState(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

// t + d saturating instead of overflowing (core/checked.h): a clock reading,
// deadline or retry interval taken from a tape may be anything an int64 holds.
inline std::int64_t AddSaturating(std::int64_t t, std::int64_t d) { return SaturatingAdd(t, d); }

// "/proc/PID/FILE", for details.
std::string Where(std::int64_t pid, ProcFile file);

// A verdict about `pid`: the resolved process for kResolved, else its subject.
Verdict Make(Status status, std::int64_t pid, std::string detail);

// A verdict decided by one read: its file, errno and an excerpt of its bytes.
Verdict FileVerdict(Status status, std::int64_t pid, ProcFile file, const ReadResult& r,
                    std::string detail);

// The request refused before anything is read (INVALID_REQUEST), or nothing:
// the root pid, the words (CheckRequestWords), the attested executable, the
// retry interval and the deadline (core/resolver.h's limits).
std::optional<Verdict> ValidateRequest(const Request& request);

// The near misses of one attempt (docs/resolver.md, "Near misses"): the
// kMaxNearMisses that passed the most rules (then the lowest pids) kept,
// the others counted.
class NearMisses {
 public:
  void Clear() {
    kept_.clear();
    omitted_ = 0;
  }
  // Whether a near miss of `rule` and `pid` would be kept: its cmdline is
  // copied only then.
  bool Keeps(NearMiss::Rule rule, std::int64_t pid) const;
  // Adds one: kept in order, or counted.
  void Add(NearMiss miss);
  // Counts one that is not kept (Keeps was false).
  void Omit() { ++omitted_; }
  // Sets the verdict's near_misses and near_misses_omitted.
  void CopyTo(Verdict* v) const;

 private:
  std::vector<NearMiss> kept_;  // best first
  std::uint32_t omitted_ = 0;
};

// `docs/resolver.md`, "Retries, deadline and budget": one absolute monotonic
// deadline and one cumulative byte budget serve all attempts; both are checked
// while the listing is read, after it and after every read. One meter serves
// every attempt of one resolution.
class Meter {
 public:
  Meter(Evidence& evidence, const Bounds& bounds) : ev_(evidence), b_(bounds) {}

  // Sets the absolute deadline: `start` + bounds.deadline_ns.
  void Start(std::int64_t start) { deadline_ = AddSaturating(start, b_.deadline_ns); }

  // Counts `bytes`, then checks the budget and the deadline: BYTE_BUDGET or
  // DEADLINE when one is exceeded.
  std::optional<Verdict> Charge(std::size_t bytes);
  std::optional<Verdict> CheckDeadline();

  // Reads a required file and charges it. Returns a final verdict for
  // unreadable (other than vanished) evidence; the caller handles the rest.
  std::optional<Verdict> ReadRequired(std::int64_t pid, ProcFile file, std::uint64_t bound,
                                      ReadResult* out);

  // Parses a stat that was read whole; a verdict if it is not a valid record
  // of `pid` (FILE_BOUND when truncated, MALFORMED_RECORD otherwise). Builds
  // nothing unless it fails: `out->comm` views r's bytes.
  std::optional<Verdict> ParseRequiredStat(std::int64_t pid, const ReadResult& r,
                                           StatView* out) const;

  Evidence& evidence() { return ev_; }
  const Bounds& bounds() const { return b_; }
  std::int64_t deadline() const { return deadline_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  // The bytes a read may still take before the budget is exceeded.
  std::uint64_t budget_left() const {
    return bytes_read_ >= b_.byte_budget ? 0 : b_.byte_budget - bytes_read_;
  }

 private:
  Evidence& ev_;
  const Bounds& b_;
  std::int64_t deadline_ = 0;
  std::uint64_t bytes_read_ = 0;
};

struct Node {
  std::int64_t pid;
  std::int64_t ppid;
  std::uint64_t start_ticks;
  char state;  // stat field 3
};

// Node positions by pid: an open-addressed table (linear probing, at most half
// full) in one array, so that filling it for an attempt allocates nothing once
// the previous attempt sized it (a node-based map allocates per pid).
class PidIndex {
 public:
  // Empties the table, sized for `n` pids.
  void Reset(std::size_t n) {
    std::size_t want = 16;
    while (want < 2 * n) want *= 2;
    if (slots_.size() != want) {
      slots_.assign(want, Slot{});
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot{});
    }
    count_ = 0;
  }
  // Adds pid -> position; false (and nothing changed) when pid is there.
  bool Insert(std::int64_t pid, std::size_t position) {
    if (2 * (count_ + 1) > slots_.size()) Grow();
    Slot& s = slots_[Probe(pid)];
    if (s.used) return false;
    s = Slot{pid, position, true};
    ++count_;
    return true;
  }
  const std::size_t* Find(std::int64_t pid) const {
    if (slots_.empty()) return nullptr;
    const Slot& s = slots_[Probe(pid)];
    return s.used ? &s.position : nullptr;
  }

 private:
  struct Slot {
    std::int64_t pid = 0;
    std::size_t position = 0;
    bool used = false;
  };
  // The slot holding pid, or the empty slot where it would go (Fibonacci
  // hashing: consecutive pids spread over the table).
  std::size_t Probe(std::int64_t pid) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i =
        static_cast<std::size_t>((static_cast<std::uint64_t>(pid) * 0x9E3779B97F4A7C15ULL) >> 20) &
        mask;
    while (slots_[i].used && slots_[i].pid != pid) i = (i + 1) & mask;
    return i;
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
    count_ = 0;
    for (const Slot& s : old) {
      if (s.used) Insert(s.pid, s.position);
    }
  }
  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

// One point-in-time snapshot: nodes in listing order plus an index by pid.
// A resolution reuses one for every attempt (Scan clears it first), so an
// attempt allocates nothing the previous one already had.
struct Snapshot {
  std::vector<Node> nodes;
  PidIndex index;
  PidIndex listed;  // every pid the listing named (a record or not): duplicates
  const Node* Find(std::int64_t pid) const {
    const std::size_t* at = index.Find(pid);
    return at == nullptr ? nullptr : &nodes[*at];
  }
};

// `docs/resolver.md`, "The eight steps", steps 2-3: enumerate, read and
// validate every stat into *snap, which it clears first.
std::optional<Verdict> Scan(Meter& meter, Snapshot* snap);

// `docs/resolver.md`, "The eight steps", steps 3-4: cycles and depth over every
// record; marks the descendants of `root_pid`. `under_root[i]` is true for
// strict descendants.
std::optional<Verdict> Graph(const Snapshot& snap, std::int64_t root_pid, std::uint32_t max_depth,
                             std::vector<bool>* under_root);

// Why an attempt ended without a final verdict; the last one explains
// NO_MATCH (docs/resolver.md, "Retries, deadline and budget").
struct Diagnosis {
  std::string detail;
  std::int64_t pid = 0;
  std::optional<std::uint64_t> start_ticks;  // the scan's start tick of `pid`
  bool stale_token = false;                  // an argv match carried another invocation's token
  NearMisses near_misses;                    // the attempt's
};

// NO_MATCH (TOKEN_MISMATCH for a stale token) after `attempts` attempts, the
// last one's diagnosis `last`.
Verdict NoMatchVerdict(const Diagnosis& last, std::uint32_t attempts);
// The deadline passed during attempt `attempts` after the ones before
// completed: the last completed attempt's diagnosis, naming the deadline.
Verdict DeadlineAfterCompletedAttempts(const Diagnosis& completed, std::uint32_t attempts,
                                       const Verdict& deadline);
// The deadline passed while `match`, the attempt's only match, was being
// confirmed, before it passed `stage` (kExecutable or kAncestry): NO_MATCH
// after completed attempts, DEADLINE in the first, naming the match by its
// identity beside the attempt's near misses `near` (which hold it).
Verdict DeadlineWhileConfirming(const Node& match, NearMiss::Rule stage, const NearMisses& near,
                                std::uint32_t attempts, bool completed, const Verdict& deadline);

}  // namespace proctape::resolver
