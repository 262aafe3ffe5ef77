// SPDX-License-Identifier: Apache-2.0
#include "replay/frame_evidence.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <limits>

#include "core/checked.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "replay/tape_evidence.h"
#include "proto/summary.h"

namespace proctape {
namespace {

// A complete frame's scan took end - start (0 when the end is before the
// start, INT64_MAX when a recorded time is absurd: core/checked.h).
std::int64_t ScanDuration(const v1::Frame& f) {
  if (!f.complete()) return 0;
  return ElapsedNs(f.scan_start_mono_ns(), f.scan_end_mono_ns());
}

}  // namespace

FrameEvidence::FrameEvidence(const Snapshot& snapshot, std::int64_t start_ns)
    : FrameEvidence(snapshot.frames,
                    !snapshot.records.empty() && snapshot.records.size() == snapshot.frames.size()
                        ? &snapshot.records
                        : nullptr,
                    start_ns) {}

FrameEvidence::FrameEvidence(const std::vector<v1::Frame>& frames, std::int64_t start_ns)
    : FrameEvidence(frames, nullptr, start_ns) {}

FrameEvidence::FrameEvidence(const std::vector<v1::Frame>& frames, const FrameRecords* records,
                             std::int64_t start_ns)
    : frames_(frames),
      own_(records == nullptr ? FrameRecords::Of(frames) : FrameRecords{}),
      records_(records == nullptr ? &own_ : records),
      index_(frames.size()),
      indexed_(frames.size(), false),
      now_(start_ns),
      repeats_(start_ns) {
  order_.resize(frames.size());
  for (std::size_t i = 0; i < frames.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    return frames[a].scan_start_mono_ns() < frames[b].scan_start_mono_ns();
  });
}

void FrameEvidence::BoundWork(std::int64_t deadline_ns, const FrameWork& work) {
  bounded_ = true;
  deadline_ = deadline_ns;
  exact_calls_ = work.exact_calls;
  max_calls_ = work.exact_calls + work.calls_per_record * records_->listed();
}

bool FrameEvidence::Capped() {
  if (bounded_ && calls_ >= max_calls_) capped_ = true;
  if (capped_) ++calls_;
  return capped_;
}

std::int64_t FrameEvidence::NextChange() const {
  auto after = std::upper_bound(
      order_.begin(), order_.end(), now_,
      [&](std::int64_t t, std::size_t i) { return t < frames_[i].scan_start_mono_ns(); });
  return after == order_.end() ? std::numeric_limits<std::int64_t>::max()
                               : frames_[*after].scan_start_mono_ns();
}

void FrameEvidence::SetAttestedPath(std::string path, Identity identity) {
  attested_path_ = std::move(path);
  attested_identity_ = identity;
}

std::optional<std::size_t> FrameEvidence::FrameInForce() const {
  if (order_.empty()) return std::nullopt;
  // The first frame (by scan start) whose scan started after now; the one
  // before it is in force.
  auto after = std::upper_bound(
      order_.begin(), order_.end(), now_,
      [&](std::int64_t t, std::size_t i) { return t < frames_[i].scan_start_mono_ns(); });
  if (after == order_.begin()) return order_.front();
  return *(after - 1);
}

const v1::Frame* FrameEvidence::Use() {
  ++calls_;
  in_force_ = FrameInForce();
  if (!in_force_) return nullptr;
  if (!first_used_) first_used_ = in_force_;
  last_used_ = in_force_;
  return &frames_[*in_force_];
}

const v1::ProcessRecord* FrameEvidence::Find(std::size_t i, std::int64_t pid) {
  if (!indexed_[i]) {
    auto& index = index_[i];
    index.reserve((*records_)[i].size());
    for (const v1::ProcessRecord* r : (*records_)[i]) index.emplace(r->pid(), r);
    indexed_[i] = true;
  }
  auto it = index_[i].find(pid);
  return it == index_[i].end() ? nullptr : it->second;
}

ReadResult FrameEvidence::Unanswered(v1::Unanswered why, std::string call) {
  unanswered_ = why;
  unanswered_call_ = std::move(call);
  return ReadResult{EIO, {}, false};
}

ListResult FrameEvidence::ListPids(std::uint64_t bound) {
  ListResult out;
  if (unanswered_ != v1::UNANSWERED_NONE) return ++calls_, ListResult{EIO, {}, false};
  if (Capped()) {
    ++lists_;
    out.err = EIO;
    return out;
  }
  const v1::Frame* f = Use();
  ++lists_;
  if (f == nullptr) {
    out.err = ENOENT;
    return out;
  }
  const FrameRecords::List& records = (*records_)[*in_force_];
  const auto count = static_cast<std::uint64_t>(records.size());
  const std::uint64_t listed = std::min(count, bound);
  names_.clear();
  names_.reserve(static_cast<std::size_t>(listed));
  std::uint64_t bytes = 0;  // what the resolver's meter charges: the names
  for (std::uint64_t i = 0; i < listed; ++i) {
    names_.push_back(std::to_string(records[static_cast<std::size_t>(i)]->pid()));
    bytes += names_.back().size();
  }
  // Views only once names_ is complete: growing it moves its strings.
  out.names.assign(names_.begin(), names_.end());
  out.truncated = count > bound || f->cut_by_bounds();
  repeats_.Call(1, 0, 0, bound, bytes, in_force_);
  now_ = SaturatingAdd(now_, ScanDuration(*f));
  return out;
}

ReadResult FrameEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  if (unanswered_ != v1::UNANSWERED_NONE) return ++calls_, ReadResult{EIO, {}, false};
  if (Capped()) return ReadResult{EIO, {}, false};
  ReadResult out = Read(pid, file, bound);
  repeats_.Call(2, pid, static_cast<int>(file), bound, out.data.size(), in_force_);
  return out;
}

ReadResult FrameEvidence::Read(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  if (Use() == nullptr) return ReadResult{ENOENT, {}, false};
  const v1::ProcessRecord* r = Find(*in_force_, pid);
  if (r == nullptr || file == ProcFile::kExe) return ReadResult{ENOENT, {}, false};
  const v1::FileRead* read = RecordedRead(*r, file);
  auto call = [&] {
    v1::Observation o;
    o.mutable_read_file()->set_pid(pid);
    o.mutable_read_file()->set_file(static_cast<v1::ProcFile>(file));
    o.mutable_read_file()->mutable_result()->set_bound(bound);
    return DescribeCall(o);
  };
  if (read == nullptr) return Unanswered(v1::UNANSWERED_NOT_RECORDED, call());
  if (read->err() != 0) return ReadResult{read->err(), {}, false};
  const std::string_view data = read->data();
  // Past a recorded bound nothing was seen: a larger bound is not answered.
  if (read->truncated() && bound > data.size()) {
    return Unanswered(v1::UNANSWERED_PAST_BOUND, call());
  }
  if (file == ProcFile::kEnviron && question_ != nullptr &&
      !question_->Answers(data, read->redacted())) {
    return Unanswered(v1::UNANSWERED_REDACTED, call());
  }
  ReadResult out;
  if (data.size() > bound) {
    out.data = data.substr(0, static_cast<std::size_t>(bound));
    out.truncated = true;
  } else {
    out.data = data;
    out.truncated = read->truncated();
  }
  return out;
}

Identity FrameEvidence::ExeIdentity(std::int64_t pid) {
  if (unanswered_ != v1::UNANSWERED_NONE) return ++calls_, Identity{EIO, 0, 0};
  if (Capped()) return Identity{EIO, 0, 0};
  if (Use() == nullptr) return Identity{ENOENT, 0, 0};
  repeats_.Call(3, pid, 0, 0, 0, in_force_);
  const v1::ProcessRecord* r = Find(*in_force_, pid);
  if (r == nullptr) return Identity{ENOENT, 0, 0};
  if (!r->has_exe()) {
    v1::Observation o;
    o.mutable_exe_identity()->set_pid(pid);
    Unanswered(v1::UNANSWERED_NOT_RECORDED, DescribeCall(o));
    return Identity{EIO, 0, 0};
  }
  return FromProto(r->exe());
}

Identity FrameEvidence::PathIdentity(const std::string& path) {
  ++calls_;
  if (unanswered_ != v1::UNANSWERED_NONE) return Identity{EIO, 0, 0};
  repeats_.Call(4, static_cast<std::int64_t>(std::hash<std::string>{}(path)), 0, 0, 0,
                std::nullopt);
  if (attested_path_ && *attested_path_ == path) return attested_identity_;
  return Identity{ENOENT, 0, 0};
}

std::int64_t FrameEvidence::NowNs() {
  ++calls_;
  if (unanswered_ != v1::UNANSWERED_NONE) return kClockAfterDivergence;
  repeats_.Call(5, 0, 0, 0, 0, std::nullopt);
  return now_;
}

void FrameEvidence::SleepUntil(std::int64_t mono_ns) {
  ++calls_;
  if (unanswered_ != v1::UNANSWERED_NONE) return;
  // Never backwards; past repeated attempts when the work is bounded.
  now_ = repeats_.Wake(now_, mono_ns, NextChange(), deadline_, bounded_ && calls_ >= exact_calls_);
}

}  // namespace proctape
