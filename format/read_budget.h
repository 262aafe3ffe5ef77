// SPDX-License-Identifier: Apache-2.0
// The reader's budget (docs/format.md section 7, "The reader's budget"): one
// counter per reader of a file, charged with everything the reader
// materializes, before it is allocated: each chunk's message as parsed
// (ParseCost: its bytes and a fixed cost per message and per repeated
// element) and every byte copied out of a reference (a blob, a previous
// frame's record or read, a rebuilt stat, a "same as" result). It may reach
// kReaderBaseBytes plus kReaderBytesPerFileByte for each byte of the file read
// so far: what a file makes a reader hold and do grows with what the file
// holds, and a small file costs little, whatever its references say.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "format/file_format.h"

namespace google::protobuf {
class Descriptor;
}

namespace proctape {

class ReadBudget {
 public:
  // The defaults: kReaderBaseBytes, kReaderBytesPerFileByte.
  ReadBudget() : ReadBudget(kReaderBaseBytes, kReaderBytesPerFileByte, kMaxChunkMaterialized) {}
  ReadBudget(std::uint64_t base, std::uint64_t per_file_byte,
             std::uint64_t per_chunk = kMaxChunkMaterialized)
      : base_(base), per_file_byte_(per_file_byte), per_chunk_(per_chunk) {}
  // A chunk begins: what it makes is counted against per_chunk from 0.
  void BeginChunk() { chunk_used_ = 0; }
  // The most a reader may have materialized once `file_bytes` of the file
  // are read (saturating).
  std::uint64_t Limit(std::uint64_t file_bytes) const;
  // Charges `bytes`, with `file_bytes` read: false, nothing charged, when
  // that would take the total past Limit(file_bytes), or the chunk's past
  // per_chunk.
  bool Charge(std::uint64_t bytes, std::uint64_t file_bytes);
  std::uint64_t used() const { return used_; }
  // The refusal of a charge that failed, one line: `what` (its size) would
  // take the total past the limit, and the limit's terms.
  std::string Refusal(const std::string& what, std::uint64_t bytes, std::uint64_t file_bytes) const;

 private:
  std::uint64_t base_;
  std::uint64_t per_file_byte_;
  std::uint64_t per_chunk_;
  std::uint64_t used_ = 0;
  std::uint64_t chunk_used_ = 0;
};

// What parsing `wire` as a message of `type` makes in memory, over-estimated
// from the wire bytes alone: the bytes themselves, for every message its
// empty object's size (SpaceUsedLong of its prototype), for every string,
// bytes or unknown field an object of std::string beside its bytes, and 8
// bytes per element of a repeated field (a packed one: per byte of it). A
// chunk of 16 MiB of empty strings takes 2 bytes each on the wire and some
// 50 in memory: this counts them so.
std::uint64_t ParseCost(std::string_view wire, const google::protobuf::Descriptor* type);

}  // namespace proctape
