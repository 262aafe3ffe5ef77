// SPDX-License-Identifier: Apache-2.0
// --shard K/N: its syntax and the split by SHA-256 of an item's id.
#include "corpus/shard.h"

#include <sys/stat.h>

#include <cstdint>

#include "core/proc_parse.h"
#include "corpus/sha256.h"

namespace proctape {
namespace {

// A plain decimal of at most 9 digits (leading zeros allowed), or nullopt.
std::optional<unsigned> Decimal(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  unsigned value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  return value;
}

}  // namespace

std::optional<Shard> ParseShard(std::string_view text, Failure* failure) {
  const std::string value = Quoted(text);
  const std::size_t slash = text.find('/');
  const std::optional<unsigned> k =
      slash == std::string_view::npos ? std::nullopt : Decimal(text.substr(0, slash));
  const std::optional<unsigned> n =
      slash == std::string_view::npos ? std::nullopt : Decimal(text.substr(slash + 1));
  if (!k || !n) {
    *failure =
        Failure(FailureKind::kUsage, value + " is not K/N, shard K of N (as 2/5; 1 <= K <= N <= " +
                                         std::to_string(kMaxShards) + ")");
    return std::nullopt;
  }
  if (*n == 0 || *n > kMaxShards) {
    *failure =
        Failure(FailureKind::kUsage, value + " has N outside 1.." + std::to_string(kMaxShards) +
                                         " (N is the number of shards)");
    return std::nullopt;
  }
  if (*k == 0 || *k > *n) {
    *failure = Failure(FailureKind::kUsage, value + " has K outside 1.." + std::to_string(*n) +
                                                " (K is this shard, from 1 to N)");
    return std::nullopt;
  }
  return Shard{*k, *n};
}

std::string ShardText(const Shard& shard) {
  return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

unsigned ShardOfId(std::string_view id, unsigned count) {
  const std::string hex = Sha256Hex(id);
  std::uint64_t head = 0;
  for (std::size_t i = 0; i < 16; ++i) {
    const char c = hex[i];
    head = head * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return static_cast<unsigned>(head % count) + 1;
}

bool InShard(std::string_view id, const Shard& shard) {
  return !shard.active() || ShardOfId(id, shard.count) == shard.index;
}

std::optional<std::vector<std::string>> FilesOfShard(const std::vector<std::string>& files,
                                                     const Shard& shard, Failure* failure) {
  std::vector<std::string> kept;
  for (const std::string& file : files) {
    struct stat st;
    if (file == "-" || (::stat(file.c_str(), &st) == 0 && !S_ISREG(st.st_mode))) {
      *failure = Failure(FailureKind::kUsage,
                         "FILE " + Quoted(file) +
                             " is not a regular file: --shard splits FILEs by the SHA-256 of "
                             "their content, which only a file read again can give every shard");
      return std::nullopt;
    }
    Failure why;
    std::optional<std::string> sha256 = Sha256File(file, &why);
    if (!sha256) {
      *failure = Failure(why.kind, Quoted(file) + ": " + why.message, why.sys_errno);
      return std::nullopt;
    }
    if (InShard(*sha256, shard)) kept.push_back(file);
  }
  return kept;
}

}  // namespace proctape
