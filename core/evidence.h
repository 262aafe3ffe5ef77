// SPDX-License-Identifier: Apache-2.0
// The evidence interface: every /proc read and every clock reading the resolver
// makes goes through one Evidence object. A live host, a recording wrapper, a
// tape replayer and an in-memory fake all implement it, so the identical
// resolver code runs against each (`docs/architecture.md`, "The one idea"):
// the /proc readers are injected, so the Linux contract is unit-testable
// without a live Linux procfs.
//
// Contract for every implementation:
//   - calls never throw; failures are reported as an errno value;
//   - a read returns at most `bound` bytes and sets `truncated` when the file
//     held more (the live source reads bound+1 bytes to know);
//   - the clock is CLOCK_MONOTONIC nanoseconds; SleepUntil may be virtual;
//   - results are views: the bytes of a ReadResult and the names of a
//     ListResult (the vector is the caller's, the bytes each name views are
//     not) stay valid until the next ListPids, ReadFile, ExeIdentity or
//     PathIdentity call on the same Evidence object, and no longer; the
//     clock (NowNs, SleepUntil) leaves them valid: the resolver checks its
//     deadline between a read and the parse of its bytes, and that order is
//     in every recorded tape. A caller that keeps bytes past its next call copies them
//     (StoredRead below, or std::string). An implementation serves views into
//     what it holds (its table, the decoded tape, its read buffer) and copies
//     nothing per call; a wrapper passes its inner evidence's views through.
// Not thread-safe: one resolver drives one Evidence at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proctape {

// The per-pid files the resolver and the capturer read. Values match the
// schema's ProcFile enum.
// kExe names /proc/PID/exe in verdicts; it is never read, only its identity taken.
enum class ProcFile : int {
  kStat = 1,
  kCmdline = 2,
  kEnviron = 3,
  kStatus = 4,
  kCgroup = 5,
  kExe = 6
};

// "stat", "cmdline", ... : the name of the file under /proc/PID.
std::string_view ProcFileName(ProcFile file);

struct ReadResult {
  int err = 0;             // 0: `data` holds what was read
  std::string_view data;   // raw bytes, never normalised; valid until the next call
  bool truncated = false;  // the file held more than the bound
  bool ok() const { return err == 0; }
};

// A read that owns its bytes: what a caller keeps past its next call on the
// evidence, and what an in-memory source stores.
struct StoredRead {
  int err = 0;
  std::string data;
  bool truncated = false;
  StoredRead() = default;
  StoredRead(int e, std::string d, bool t) : err(e), data(std::move(d)), truncated(t) {}
  explicit StoredRead(const ReadResult& r) : err(r.err), data(r.data), truncated(r.truncated) {}
  // A view of these bytes, valid while this StoredRead is unchanged.
  ReadResult view() const { return ReadResult{err, data, truncated}; }
  bool ok() const { return err == 0; }
};

// Why a listing stopped before the end of the directory (ListPidsWithin).
enum class ListStop : int { kNone = 0, kBytes = 1, kDeadline = 2 };

struct ListResult {
  int err = 0;
  // All-digit entries of /proc, directory order; each name valid until the
  // next call.
  std::vector<std::string_view> names;
  bool truncated = false;  // more than the bound exist
  // The bytes the listing read: the directory entries the kernel handed over
  // (getdents: every entry, numeric or not, with its record header). 0 when
  // the source does not know (a tape recorded before it was kept): the
  // listing then costs the bytes of its names.
  std::uint64_t bytes = 0;
  // It stopped at a limit of ListPidsWithin before the directory's end: the
  // names are the first ones only.
  ListStop stopped = ListStop::kNone;
  bool ok() const { return err == 0; }
};

// What one listing may take, checked while it is read (docs/resolver.md,
// "Retries, deadline and budget": the deadline and the byte budget are
// checked throughout enumeration).
struct ListLimits {
  std::uint64_t max_entries = UINT64_MAX;  // numeric entries (ListPids' bound)
  std::uint64_t max_bytes = UINT64_MAX;    // bytes read (ListResult.bytes): the budget left
  std::int64_t deadline_ns = INT64_MAX;    // monotonic: the resolution's deadline
};

struct Identity {
  int err = 0;
  std::uint64_t dev = 0;
  std::uint64_t ino = 0;
  bool ok() const { return err == 0; }
  bool operator==(const Identity&) const = default;
};

class Evidence {
 public:
  virtual ~Evidence() = default;

  // The all-digit entries of /proc, at most `bound` of them.
  virtual ListResult ListPids(std::uint64_t bound) = 0;
  // The listing of a resolution's scan: ListPids(limits.max_entries), except
  // that a source reading a directory stops as soon as it has read more than
  // `max_bytes` (ListStop::kBytes) or its clock has passed `deadline_ns`
  // (kDeadline). A source whose answer is at hand (a tape, frames, memory)
  // answers ListPids; a wrapper forwards this call as it is.
  virtual ListResult ListPidsWithin(const ListLimits& limits) {
    return ListPids(limits.max_entries);
  }
  // At most `bound` bytes of /proc/PID/FILE.
  virtual ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) = 0;
  // st_dev + st_ino of the file /proc/PID/exe links to.
  virtual Identity ExeIdentity(std::int64_t pid) = 0;
  // st_dev + st_ino of `path`, links followed (the pre-attested executable).
  virtual Identity PathIdentity(const std::string& path) = 0;
  virtual std::int64_t NowNs() = 0;
  virtual void SleepUntil(std::int64_t mono_ns) = 0;
};

}  // namespace proctape
