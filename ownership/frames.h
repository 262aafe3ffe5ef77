// SPDX-License-Identifier: Apache-2.0
// How the ownership planner reads one frame of a snapshot (internal to
// ownership/*.cc): each process's scope (uid, cgroup, kernel thread,
// vanished, unknown), the frame indexed by pid, and parent chains.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ownership/ownership.h"
#include "analyze/process_table.h"
#include "ownership.pb.h"

namespace proctape::ownership {

// A quoted, escaped value: EscapeBytes, and '"' as \x22 so that the quotes
// delimit it.
std::string Quote(std::string_view bytes);

// "pid@start".
std::string At(std::int64_t pid, std::uint64_t start);

// A read that failed because the process exited: ENOENT or ESRCH.
bool Vanished(int err);

// What the scope rules can tell of one record of a frame.
enum class Scope { kIn, kOut, kVanished, kUnknown };
struct Classified {
  Scope scope = Scope::kUnknown;
  v1::OwnershipDecision::Reason out_reason = v1::OwnershipDecision::REASON_UNSPECIFIED;
  std::optional<std::string> cgroup;  // the v2 path, when known
  std::string why;                    // kOut / kVanished / kUnknown: one phrase
};

// A process is out of scope as soon as one readable attribute excludes it;
// in scope when uid and cgroup both match and its stat gives its identity;
// unknown otherwise (it may be in scope and cannot be decided).
Classified Classify(const ProcessView& v, const OwnershipRequest& request);

// One frame, parsed and classified once.
struct FrameView {
  const v1::Frame* frame = nullptr;
  std::vector<ProcessView> table;
  std::map<std::int64_t, std::size_t> index;
  std::vector<Classified> scope;  // parallel to table

  FrameView(const v1::Frame& f, const OwnershipRequest& request);
  const ProcessView* Find(std::int64_t pid) const {
    auto it = index.find(pid);
    return it == index.end() ? nullptr : &table[it->second];
  }
};

// The parent chain of `pid` in a frame, `pid` first, up to a process whose
// ppid is 0 or up to `stop`. `broken` says why it could not be followed.
struct Chain {
  std::vector<std::int64_t> pids;
  bool reached_stop = false;
  std::string broken;  // empty: complete
};
Chain ParentChain(const FrameView& f, std::int64_t pid, std::optional<std::int64_t> stop);

bool Contains(const std::vector<std::int64_t>& pids, std::int64_t pid);

}  // namespace proctape::ownership
