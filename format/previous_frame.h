// SPDX-License-Identifier: Apache-2.0
// Version 2's frames that cost what changed (docs/format.md section 9a,
// "Frames: only what changed"): a process record may refer to the previous
// frame's record of the same (pid, start tick), whole or read by read, and a
// stat may be stored as the fields that changed. The writer and the reader
// keep the same table of the previous frame's records (PreviousFrame) and
// the same rules, so that every reference the writer makes is one the reader
// can resolve.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "proctape.pb.h"

namespace proctape {

// (pid, start tick): what a record is remembered under and referred to by.
struct RecordKey {
  std::int64_t pid = 0;
  std::uint64_t start_ticks = 0;
  bool operator==(const RecordKey&) const = default;
};
struct RecordKeyHash {
  std::size_t operator()(const RecordKey& k) const {
    return std::hash<std::int64_t>{}(k.pid) * 31 ^ std::hash<std::uint64_t>{}(k.start_ticks);
  }
};

// The key of a plain record: its pid and the start tick (field 22) of its
// stat, when stat was read and parses (core ParseStat); none otherwise.
std::optional<RecordKey> KeyOf(const v1::ProcessRecord& plain);

// How many of a plain record's reads (stat, cmdline, environ, status,
// cgroup) were cut at their bound: what a footer's reads_truncated counts.
std::uint64_t TruncatedReads(const v1::ProcessRecord& plain);

// The records of the previous frame a reference may name, and those of the
// frame being read so far. Bounded by the rule of docs/format.md section 9a:
// a frame remembers its records, in order, while their serialized sizes total
// at most kMaxPreviousFrameBytes; the table holds at most the previous
// frame's and the current frame's (2 x kMaxPreviousFrameBytes of records).
// What it holds is less: each record serialized without its cmdline and
// environ bytes when they are long (128 bytes or more), which are kept once
// per distinct content (the workers of a CI job share one environ: 2.4 of a
// record's 4.4 KB).
class PreviousFrame {
 public:
  // Frame `index` begins: the records of frames before index - 1 are dropped.
  void BeginFrame(std::uint64_t index);
  // The previous frame's record of `key`, plain, into *out: false when the
  // previous frame did not remember one, or when a record of the current
  // frame has already taken the key ("the first record of that frame": one
  // record of a frame may be referred to, by the first record of the next
  // frame that has its key).
  bool Find(const RecordKey& key, v1::ProcessRecord* out) const;
  // The same record where it is held, nothing copied (null when Find would
  // be false): a reference costs what it copies out of it, not the record.
  struct Held {
    const v1::ProcessRecord* rest = nullptr;  // cmdline and environ data empty when shared
    const std::string* cmdline = nullptr;     // their data, when shared
    const std::string* environ = nullptr;
    std::uint64_t rest_bytes = 0;  // rest's serialized size
  };
  Held FindHeld(const RecordKey& key) const;
  // A plain record of the current frame, in file order: it takes its key
  // (KeyOf), and is remembered if its key is new to the frame and it fits.
  // `plain` is given back as it came (its bytes are moved out and back).
  void Remember(v1::ProcessRecord* plain);
  // The same, of a record already keyed.
  void Remember(const RecordKey& key, v1::ProcessRecord* plain);
  // The key alone: the record takes its key and is not remembered (a frame
  // no other frame will refer to).
  void TakeKey(const RecordKey& key);
  // A record of the current frame that is the previous frame's record of
  // `key`, whole (same_as_previous, resolved): as Remember of that record,
  // which the table already holds, so nothing is copied. The previous frame
  // must hold a record of `key` (FindHeld) that no record of this frame took.
  void Carry(const RecordKey& key);
  std::uint64_t bytes() const { return bytes_; }  // bytes held, shared bytes once

 private:
  // A cmdline or environ's bytes, held once however many records have them.
  using Shared = std::unordered_map<std::string, std::uint64_t>::value_type;  // bytes, users
  struct Entry {
    std::uint64_t frame = 0;       // the frame that took the key
    bool held = false;             // its record is remembered (it fit)
    v1::ProcessRecord rest;        // the record, cmdline and environ data empty when shared
    std::uint64_t rest_bytes = 0;  // its serialized size
    std::uint64_t size = 0;        // the whole record's (what the frame's bound counts)
    Shared* cmdline = nullptr;
    Shared* environ = nullptr;
  };
  void Take(const RecordKey& key, std::uint64_t size, v1::ProcessRecord* plain);
  Shared* Share(std::string* data, Shared** last);
  void Drop(Entry* e);
  std::unordered_map<RecordKey, Entry, RecordKeyHash> entries_;
  std::unordered_map<std::string, std::uint64_t> shared_;
  Shared* last_cmdline_ = nullptr;  // the last shared of each, while held
  Shared* last_environ_ = nullptr;
  std::uint64_t frame_ = 0;
  bool begun_ = false;
  std::uint64_t frame_bytes_ = 0;  // remembered by the current frame (serialized sizes)
  std::uint64_t bytes_ = 0;
};

// Resolves the version 2 forms of `record` against `previous` (the previous
// frame's record of its key, or null): on success `record` is plain (no
// previous_start_ticks, same_as_previous, from_previous, stat_changes) and
// *copied grows by the bytes taken from the previous record (as below). Returns "" or
// what is wrong (a corrupt record), in the words of docs/format.md section 8.
std::string ResolveFromPrevious(v1::ProcessRecord* record, const v1::ProcessRecord* previous,
                                std::uint64_t* copied);
// The same against a record as PreviousFrame holds it (previous.rest null:
// no such record). What it copies is counted by its serialized size: a whole
// record's every field (an exe's link text, a field this reader does not
// know), a read's every field, a rebuilt stat's bytes.
std::string ResolveFromPrevious(v1::ProcessRecord* record, const PreviousFrame::Held& previous,
                                std::uint64_t* copied);

// The checks ResolveFromPrevious makes of a whole reference (`record`
// same_as_previous) against `previous`, and what resolving it copies (*copied
// grows by it), without the copy: "" or what is wrong, in the same words.
std::string CheckSameAsPrevious(const v1::ProcessRecord& record,
                                const PreviousFrame::Held& previous, std::uint64_t* copied);

// Whether `record` (as read, before resolution) uses a version 2 form.
bool UsesVersion2(const v1::ProcessRecord& record);

// The writer's side: `plain`, whose key matches `previous`, rewritten in its
// most compact form against it. The rebuild is checked (ResolveFromPrevious
// of the result must give back `plain` byte for byte); when it differs the
// record is left plain. So it is when the reader's copy out of `previous`
// for the compact form (what ResolveFromPrevious counts) would pass
// `copy_room`: the writer keeps the reader's kMaxPreviousCopyBytes. Returns
// whether the record now refers to `previous`, with that copy in *copied.
bool CompactAgainst(const v1::ProcessRecord& previous, v1::ProcessRecord* plain,
                    std::uint64_t copy_room, std::uint64_t* copied);

}  // namespace proctape
