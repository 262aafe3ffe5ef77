// SPDX-License-Identifier: Apache-2.0
// What a frame can hold, so that a view never calls a process "exited" (or
// "appeared") when the other frame could not have held it: a `capture --root`
// frame holds one process and its descendants, and a frame whose scan was cut
// by a bound holds a prefix of the listing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analyze/process_table.h"
#include "format/reader.h"

namespace proctape {

struct FrameScope {
  std::optional<std::int64_t> root;  // only this process and its descendants
  std::string cut_reason;            // non-empty: the scan stopped at this bound

  bool whole_host() const { return !root && cut_reason.empty(); }
  bool operator==(const FrameScope&) const = default;
};

// The scope of `frame` of `snapshot`: Header.scope_root_pid, or for files
// written before that field, the `--root N` of a `proctape capture` command
// line in the header; the frame's cut_reason when its scan was cut.
FrameScope ScopeOf(const Snapshot& snapshot, const v1::Frame& frame);

// "the whole host", "pid 4242 and its descendants", "... (scan cut: max-processes)".
std::string ScopeText(const FrameScope& scope);

// Whether `scope` would hold `p`, a process of another frame (`table`,
// indexed by `index`), had it still existed unchanged. nullopt: it would (so
// its absence means it is gone); otherwise why not, as one phrase. A cut
// scan covers nothing it may not have reached; a subtree covers `p` when p's
// ancestry in its own frame reaches the root and, given the scoped frame's
// own table (`scoped`, `scoped_index`), every one of those ancestors is
// still there: a process whose parent exited is reparented (to init or a
// subreaper) and leaves the subtree alive, so its absence is not an exit.
std::optional<std::string> Uncovered(
    const FrameScope& scope, const ProcessView& p, const std::vector<ProcessView>& table,
    const std::map<std::int64_t, std::size_t>& index,
    const std::vector<ProcessView>* scoped = nullptr,
    const std::map<std::int64_t, std::size_t>* scoped_index = nullptr);

}  // namespace proctape
