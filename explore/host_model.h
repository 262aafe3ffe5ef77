// SPDX-License-Identifier: Apache-2.0
// The host model of `proctape explore` (`docs/explore.md`, "The host model"): a
// mutable host built from the frame the frame model would answer a recorded
// check from (replay/frame_evidence.h: the latest frame whose scan started at
// or before the check's start), so that kernel events (explore/events.h) can
// change it between two calls of the resolver.
//
// A process is its files as bytes (stat, cmdline, environ, status, cgroup:
// each a StoredRead, present or not, exactly as the frame recorded it), its
// exe identity and its pid namespace. Edits keep the bytes plausible /proc
// bytes: a state or parent change rewrites stat field 3 or 4 and the status
// lines "State:" and "PPid:" in place, nothing else; a start tick rewrites
// field 22. The listing is the frame's order, new pids appended.
//
// Every change updates a 64-bit hash of the whole model (per-process hashes
// combined by addition, so an edit costs one process's bytes): two models
// with the same hash are, for the search, the same host.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/evidence.h"
#include "core/proc_parse.h"
#include "proctape.pb.h"

namespace proctape::explore {

struct ModelProcess {
  std::int64_t pid = 0;
  std::optional<StoredRead> stat, cmdline, environ, status, cgroup;
  std::optional<Identity> exe;  // unset: no identity recorded (answers ENOENT)
  std::optional<v1::FileIdentity> pid_ns;
  // The bound each file was read with (stat, cmdline, environ, status,
  // cgroup), as the frame recorded it: written back by ToFrame.
  std::array<std::uint64_t, 5> bounds{};
  std::uint64_t hash = 0;  // HashFiles of the rest, kept by HostModel
  // std::hash of each file's bytes (stat, cmdline, environ, status, cgroup;
  // 0 for none), kept by HostModel with `hash`: an answer's hash without
  // hashing its bytes again (explore/model_evidence.h).
  std::array<std::uint64_t, 5> bytes_hash{};

  // The file of that kind, or null.
  const std::optional<StoredRead>* File(ProcFile file) const;
  std::optional<StoredRead>* File(ProcFile file);
};

class HostModel {
 public:
  HostModel() = default;
  // From one frame's records (the first record of a pid listed twice wins
  // for answers; the listing keeps every name, as the frame does).
  static HostModel FromFrame(const v1::Frame& frame);

  const ModelProcess* Find(std::int64_t pid) const;
  const std::vector<std::int64_t>& listing() const { return listing_; }
  bool cut_by_bounds() const { return cut_; }
  void set_cut_by_bounds(bool cut) { cut_ = cut; }
  std::uint64_t hash() const { return hash_; }

  // Parsed stat of `pid` (nullopt: no process, or a stat that does not parse).
  std::optional<StatFields> Stat(std::int64_t pid) const;
  // Pids whose stat names `pid` as parent, in listing order.
  std::vector<std::int64_t> Children(std::int64_t pid) const;
  // Children() of every parent at once, from one pass over the listing (each
  // stat parsed once): what a walk of the whole tree needs, in linear time.
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> ChildrenByParent() const;
  // The highest start tick and pid the model has held, a reaped process's
  // included (new processes go past them: the kernel never starts a later
  // process at an earlier tick, and allocates pids past the last one).
  std::uint64_t MaxStartTicks() const { return high_start_; }
  std::int64_t MaxPid() const { return high_pid_; }

  // Edits: each returns false (and changes nothing) when `pid` has no
  // process or no stat that parses.
  bool SetState(std::int64_t pid, char state);                // stat field 3, status State:
  bool SetParent(std::int64_t pid, std::int64_t ppid);        // stat field 4, status PPid:
  bool SetStartTicks(std::int64_t pid, std::uint64_t ticks);  // stat field 22
  bool SetComm(std::int64_t pid, const std::string& comm);    // stat field 2, status Name:
  // Replaces one file's answer (nullopt: the file is absent).
  bool SetFile(std::int64_t pid, ProcFile file, std::optional<StoredRead> read);
  bool SetExe(std::int64_t pid, std::optional<Identity> exe);
  // Adds `process` (its pid must be free), listed last.
  bool Add(ModelProcess process);
  bool Remove(std::int64_t pid);
  // This model with only the processes `keep` holds (listing order kept;
  // the high-water marks too: a later process still goes past them).
  HostModel Subset(const std::unordered_set<std::int64_t>& keep) const;

  // The frame this model is now, as a capture stores one: with `kept`
  // (the file's policy redacts environ), every environ read is marked
  // redacted and its bytes redacted as a capture redacts them
  // (core/redact.h, `kept` entries verbatim). The frame's own bytes are
  // redacted already and stay as they are; what an event wrote (another
  // run's token entry) is redacted here.
  v1::Frame ToFrame(std::uint64_t index, std::int64_t scan_start_ns, std::int64_t scan_end_ns,
                    const std::vector<std::string>* kept) const;

 private:
  ModelProcess* Mutable(std::int64_t pid);
  void Rehash(std::int64_t pid, const ModelProcess* before, ModelProcess* after);
  bool RewriteStat(std::int64_t pid, std::size_t field, const std::string& value);
  bool RewriteStatusLine(std::int64_t pid, const std::string& key, const std::string& value);
  void Issued(std::int64_t pid);  // raises the high-water marks to pid's

  std::unordered_map<std::int64_t, ModelProcess> procs_;
  std::vector<std::int64_t> listing_;
  bool cut_ = false;
  std::uint64_t hash_ = 0;
  std::uint64_t high_start_ = 0;
  std::int64_t high_pid_ = 0;
};

// The line "KEY:\t..." of a status text, its value replaced; false (nothing
// changed) when it has no such line.
bool ReplaceStatusLine(std::string* status, const std::string& key, const std::string& value);
// The stat bytes with field 1 (the pid) replaced.
std::string WithStatPid(const std::string& stat, std::int64_t pid);

// Sets p->bytes_hash and p->hash, the process's hash (its pid, every file's
// bytes, errno and flags, its exe).
void HashFiles(ModelProcess* p);
// FNV-1a, 64 bits, continued from `h` (for a few bytes; HashBytes for many).
std::uint64_t Fnv(std::uint64_t h, const void* data, std::size_t size);
std::uint64_t HashBytes(std::uint64_t h, std::string_view bytes);
// `v` mixed into `h` (one multiply-xorshift round: cheap, for numbers).
inline std::uint64_t Mix64(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}
inline constexpr std::uint64_t kFnvStart = 1469598103934665603ull;

}  // namespace proctape::explore
