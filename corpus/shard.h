// SPDX-License-Identifier: Apache-2.0
// A shard of a run split over a CI matrix (docs/corpus.md, "Shards";
// docs/explore.md, "Shards"): `--shard K/N` takes the items whose id hashes
// to K. The hash is SHA-256 (corpus/sha256.h) of the id: its first 8 bytes,
// big-endian, modulo N, plus 1. An item's shard depends on its id and N
// alone, never on its position or on the other items: adding an item moves
// no other, every item is in exactly one of the N shards.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/failure.h"

namespace proctape {

// The most shards a run is split into (a GitHub matrix holds 256 jobs, a
// GitLab `parallel:` 200).
inline constexpr unsigned kMaxShards = 1024;

struct Shard {
  unsigned index = 0;  // K, 1..count
  unsigned count = 0;  // N, 1..kMaxShards; 0: no shard given, the whole run
  bool active() const { return count > 0; }
};

// "K/N": two plain decimals (no sign, no space), 1 <= K <= N <= kMaxShards.
// nullopt with *failure (kUsage, one line quoting the value, without the
// option's name: "'4/3' has K outside 1..3 (K is this shard, from 1 to N)")
// when it is not one.
std::optional<Shard> ParseShard(std::string_view text, Failure* failure);
// "K/N".
std::string ShardText(const Shard& shard);

// The shard, 1..count, of the item `id` (count >= 1).
unsigned ShardOfId(std::string_view id, unsigned count);
// Whether `id` is in `shard` (always, when no shard is given).
bool InShard(std::string_view id, const Shard& shard);

// `explore FILE... --shard K/N` (docs/explore.md, "Shards"): the FILEs of
// the shard, in the order given; a FILE's id is the SHA-256 of its content
// (the same in every checkout, whatever path names it). Standard input
// ("-") and a FILE that is no regular file (a pipe) have no id a second
// job could compute: nullopt, *failure kUsage naming it; a FILE that
// cannot be read: nullopt, kIo ("FILE: cannot open: ...").
std::optional<std::vector<std::string>> FilesOfShard(const std::vector<std::string>& files,
                                                     const Shard& shard, Failure* failure);

}  // namespace proctape
