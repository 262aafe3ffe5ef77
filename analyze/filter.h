// SPDX-License-Identifier: Apache-2.0
// The process filters of `show`, `tree` and `diff`: --pid, --uid, --comm.
// Each selects by one fact of a process record and they combine with AND; a
// filter not given selects every process. A process without the fact a
// filter asks for (a stat that did not parse has no comm; a status without a
// Uid line has no uid) is not selected by it. --comm compares the raw bytes
// of stat field 2 with the bytes given, exactly: no prefix, no pattern, no
// case folding (the kernel cuts comm at 15 bytes; so must the value given).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analyze/process_table.h"
#include "views.pb.h"

namespace proctape {

struct ProcessFilter {
  std::optional<std::int64_t> pid;   // that process (tree: and its descendants)
  std::optional<std::uint32_t> uid;  // the real uid, status Uid's first field
  std::optional<std::string> comm;   // stat field 2, raw bytes
  bool any() const { return pid || uid || comm; }
};

// Whether `process` has the uid and comm the filter asks for (its pid is not
// looked at: the views apply --pid themselves).
bool MatchesFacts(const ProcessFilter& filter, const ProcessView& process);
// MatchesFacts, and the pid --pid names.
bool Selects(const ProcessFilter& filter, const ProcessView& process);

// The filter as the views report it (comm escaped).
v1::ProcessFilter FilterMessage(const ProcessFilter& filter);
// A reported filter as given, for a line of text: `--pid 40 --uid 1000
// --comm "sleep"` (comm escaped and quoted); with `pid_subtree`, "--pid 40
// and its descendants".
std::string FilterText(const v1::ProcessFilter& filter, bool pid_subtree = false);

}  // namespace proctape
