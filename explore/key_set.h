// SPDX-License-Identifier: Apache-2.0
// The set of explored states of one search (explore/search.h): 64-bit keys
// in one open-addressing table (linear probing, grown at half full), so that
// a lookup costs one cache line where a node-based set costs several, and
// four million keys take 64 MB rather than some 160 MB.
#pragma once

#include <cstdint>
#include <vector>

namespace proctape::explore {

class KeySet {
 public:
  std::size_t size() const { return size_; }
  bool contains(std::uint64_t key) const {
    if (slots_.empty()) return false;
    key = Stored(key);
    for (std::size_t i = Home(key);; i = (i + 1) & mask_) {
      if (slots_[i] == key) return true;
      if (slots_[i] == 0) return false;
    }
  }
  void insert(std::uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    if (Place(Stored(key))) ++size_;
  }

 private:
  // 0 marks an empty slot: a key of 0 is kept as 1 (a 64-bit hash: the two
  // collide as any two keys may).
  static std::uint64_t Stored(std::uint64_t key) { return key == 0 ? 1 : key; }
  std::size_t Home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ull) >> 20) & mask_;
  }
  bool Place(std::uint64_t key) {
    for (std::size_t i = Home(key);; i = (i + 1) & mask_) {
      if (slots_[i] == key) return false;
      if (slots_[i] == 0) {
        slots_[i] = key;
        return true;
      }
    }
  }
  void Grow() {
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 1024 : 2 * old.size(), 0);
    mask_ = slots_.size() - 1;
    for (std::uint64_t key : old) {
      if (key != 0) Place(key);
    }
  }

  std::vector<std::uint64_t> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace proctape::explore
