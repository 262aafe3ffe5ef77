// SPDX-License-Identifier: Apache-2.0
// The previous frame's table (format/previous_frame.h PreviousFrame): what a
// frame remembers of its records, under the bound of docs/format.md section
// 9a, with long cmdline and environ bytes held once. The rules of the
// references themselves are in format/previous_references.cc.
#include "format/previous_frame.h"

#include "core/proc_parse.h"
#include "format/file_format.h"

namespace proctape {

std::optional<RecordKey> KeyOf(const v1::ProcessRecord& plain) {
  if (!plain.has_stat() || plain.stat().err() != 0) return std::nullopt;
  StatParse parsed = ParseStat(plain.stat().data());
  if (!parsed.ok()) return std::nullopt;
  return RecordKey{plain.pid(), parsed.fields->start_ticks};
}

std::uint64_t TruncatedReads(const v1::ProcessRecord& plain) {
  std::uint64_t n = 0;
  for (const v1::FileRead* r :
       {&plain.stat(), &plain.cmdline(), &plain.environ(), &plain.status(), &plain.cgroup()}) {
    n += r->truncated() ? 1 : 0;
  }
  return n;
}

void PreviousFrame::BeginFrame(std::uint64_t index) {
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (it->second.frame + 1 < index || it->second.frame > index) {
      Drop(&it->second);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  frame_ = index;
  begun_ = true;
  frame_bytes_ = 0;
}

PreviousFrame::Held PreviousFrame::FindHeld(const RecordKey& key) const {
  if (!begun_ || frame_ == 0) return {};
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.frame != frame_ - 1 || !it->second.held) return {};
  const Entry& e = it->second;
  return Held{&e.rest, e.cmdline != nullptr ? &e.cmdline->first : nullptr,
              e.environ != nullptr ? &e.environ->first : nullptr, e.rest_bytes};
}

bool PreviousFrame::Find(const RecordKey& key, v1::ProcessRecord* out) const {
  const Held held = FindHeld(key);
  if (held.rest == nullptr) return false;
  *out = *held.rest;
  if (held.cmdline != nullptr) out->mutable_cmdline()->set_data(*held.cmdline);
  if (held.environ != nullptr) out->mutable_environ()->set_data(*held.environ);
  return true;
}

void PreviousFrame::Remember(v1::ProcessRecord* plain) {
  if (std::optional<RecordKey> key = KeyOf(*plain)) Remember(*key, plain);
}

void PreviousFrame::Remember(const RecordKey& key, v1::ProcessRecord* plain) {
  Take(key, plain->ByteSizeLong(), plain);
}

void PreviousFrame::TakeKey(const RecordKey& key) { Take(key, 0, nullptr); }

void PreviousFrame::Carry(const RecordKey& key) {
  // Take of the same bytes: the entry moves to this frame, held if it fits.
  Entry& e = entries_.at(key);
  e.frame = frame_;
  if (frame_bytes_ + e.size > kMaxPreviousFrameBytes) {
    Drop(&e);
    return;
  }
  frame_bytes_ += e.size;
}

void PreviousFrame::Take(const RecordKey& key, std::uint64_t size, v1::ProcessRecord* plain) {
  auto [it, fresh] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (!fresh && e.frame == frame_) return;  // the first record of the frame keeps the key
  Drop(&e);
  e.frame = frame_;
  e.held = plain != nullptr && frame_bytes_ + size <= kMaxPreviousFrameBytes;
  if (!e.held) return;
  frame_bytes_ += size;
  // The shared bytes are moved out for the rest to be copied without them,
  // then back.
  // Short ones stay in the rest: sharing them would cost more than it saves.
  constexpr std::size_t kShareBytes = 128;
  const bool share_cmdline = plain->has_cmdline() && plain->cmdline().data().size() >= kShareBytes;
  const bool share_environ = plain->has_environ() && plain->environ().data().size() >= kShareBytes;
  std::string cmdline, environ;
  if (share_cmdline) cmdline.swap(*plain->mutable_cmdline()->mutable_data());
  if (share_environ) environ.swap(*plain->mutable_environ()->mutable_data());
  e.rest = *plain;
  e.rest_bytes = e.rest.ByteSizeLong();
  e.size = size;
  if (share_cmdline) {
    e.cmdline = Share(&cmdline, &last_cmdline_);
    plain->mutable_cmdline()->mutable_data()->swap(cmdline);
  }
  if (share_environ) {
    e.environ = Share(&environ, &last_environ_);
    plain->mutable_environ()->mutable_data()->swap(environ);
  }
  bytes_ += e.rest_bytes;
}

// The held copy of *data (made if new; *data is left as it came).
PreviousFrame::Shared* PreviousFrame::Share(std::string* data, Shared** last) {
  // Records in file order mostly repeat their neighbour's bytes: compared
  // before they are hashed.
  if (*last != nullptr && (*last)->first == *data) {
    ++(*last)->second;
    return *last;
  }
  auto it = shared_.find(*data);
  if (it == shared_.end()) {
    it = shared_.emplace(*data, 0).first;
    bytes_ += data->size();
  }
  ++it->second;
  *last = &*it;
  return *last;
}

void PreviousFrame::Drop(Entry* e) {
  bytes_ -= e->rest_bytes;
  e->rest_bytes = 0;
  e->size = 0;
  v1::ProcessRecord().Swap(&e->rest);
  for (Shared** s : {&e->cmdline, &e->environ}) {
    if (*s == nullptr) continue;
    if (--(*s)->second == 0) {
      if (*s == last_cmdline_) last_cmdline_ = nullptr;
      if (*s == last_environ_) last_environ_ = nullptr;
      bytes_ -= (*s)->first.size();
      shared_.erase(shared_.find((*s)->first));
    }
    *s = nullptr;
  }
  e->held = false;
}

}  // namespace proctape
