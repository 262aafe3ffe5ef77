// SPDX-License-Identifier: Apache-2.0
// The process records of a snapshot's frames, one list per frame, where a
// record that is the previous frame's is held once. Version 2 marks a record
// the previous frame's whole (docs/format.md section 9a, "same as previous"):
// the reader keeps such a record as a second pointer to the first, not as a
// copy, so that ten frames of an idle host cost about one frame in memory
// (docs/format.md section 7, "What a command holds"). Lists may also view
// frames that hold their own records (Of): nothing is copied.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "format/previous_frame.h"
#include "proctape.pb.h"

namespace proctape {

class FrameRecords {
 public:
  using List = std::vector<const v1::ProcessRecord*>;

  // Views the records `frames` hold (which must outlive this object).
  static FrameRecords Of(const std::vector<v1::Frame>& frames);

  std::size_t size() const { return lists_.size(); }
  bool empty() const { return lists_.empty(); }
  // Frame `frame`'s records, in file order.
  const List& operator[](std::size_t frame) const { return lists_[frame]; }
  // Records listed over every frame, and the distinct ones held (Of: 0).
  std::uint64_t listed() const { return listed_; }
  std::uint64_t held() const { return held_.size(); }

  // Building, in file order (the reader). A frame begins.
  void BeginFrame();
  // Adds `record` to the last frame begun. `same_as_previous`: the file said
  // it is the previous frame's record of its key (pid, start tick), whole;
  // then that record is listed again, if the previous frame holds it. The
  // first record of a frame with a key is the one the next frame may name.
  // Returns the bytes newly held: 0 when shared, else its serialized size.
  std::uint64_t Add(v1::ProcessRecord&& record, bool same_as_previous);

 private:
  using Table = std::unordered_map<RecordKey, const v1::ProcessRecord*, RecordKeyHash>;
  std::deque<v1::ProcessRecord> held_;  // stable addresses, moved with the object
  std::vector<List> lists_;
  Table previous_, current_;
  std::uint64_t listed_ = 0;
};

}  // namespace proctape
