// SPDX-License-Identifier: Apache-2.0
#include "format/frame_records.h"

#include <utility>

namespace proctape {

FrameRecords FrameRecords::Of(const std::vector<v1::Frame>& frames) {
  FrameRecords out;
  out.lists_.reserve(frames.size());
  for (const v1::Frame& f : frames) {
    List& list = out.lists_.emplace_back();
    list.reserve(static_cast<std::size_t>(f.processes_size()));
    for (const v1::ProcessRecord& r : f.processes()) list.push_back(&r);
    out.listed_ += list.size();
  }
  return out;
}

void FrameRecords::BeginFrame() {
  previous_.swap(current_);
  current_.clear();
  lists_.emplace_back();
}

std::uint64_t FrameRecords::Add(v1::ProcessRecord&& record, bool same_as_previous) {
  const std::optional<RecordKey> key = KeyOf(record);
  const v1::ProcessRecord* listed = nullptr;
  std::uint64_t bytes = 0;
  if (same_as_previous && key) {
    if (auto it = previous_.find(*key); it != previous_.end()) listed = it->second;
  }
  if (listed == nullptr) {
    bytes = record.ByteSizeLong();
    listed = &held_.emplace_back(std::move(record));
  }
  if (key) current_.try_emplace(*key, listed);
  lists_.back().push_back(listed);
  ++listed_;
  return bytes;
}

}  // namespace proctape
