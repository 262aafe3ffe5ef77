// SPDX-License-Identifier: Apache-2.0
// A frame's process records, parsed once for the views (tree, diff, ...) and
// the ownership planner: stat by core's ParseStat (split at the final ") "),
// argv split at NULs, the status lines that identify a process (Uid, NSpid),
// the cgroup. Nothing is trimmed or normalized: fields keep their raw bytes,
// and what did not parse says why. Identity is (pid, start tick), never a pid
// alone and never a name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/evidence.h"
#include "core/proc_parse.h"
#include "proctape.pb.h"

namespace proctape {

struct ProcessView {
  std::int64_t pid = 0;
  const v1::ProcessRecord* record = nullptr;  // into the frame it came from

  std::optional<StatFields> stat;  // nullopt: stat unread or malformed
  std::string stat_problem;        // why (errno or the parser's reason)
  bool kernel_thread = false;      // PF_KTHREAD in stat field 9 (flags)

  bool cmdline_ok = false;  // read (it may be empty: a kernel thread or zombie)
  std::vector<std::string> argv;

  // status "Uid:" real, effective, saved, fs; empty when status is unread,
  // has no such line or a malformed one (StatusIds: a value past 2^32-1 is
  // no uid).
  std::vector<std::uint32_t> uids;
  // status "NSpid:", outermost first ({8155, 3}); empty when unknown.
  std::vector<std::int64_t> nspid;

  bool cgroup_ok = false;
  std::string cgroup;  // the cgroup file as read (raw bytes)

  Identity exe;  // err != 0 when unreadable
  Identity pid_ns;

  bool has_identity() const { return stat.has_value(); }
  std::uint64_t start_ticks() const { return stat ? stat->start_ticks : 0; }
  std::int64_t ppid() const { return stat ? stat->ppid : 0; }
  std::optional<std::uint32_t> real_uid() const {
    return uids.empty() ? std::nullopt : std::optional<std::uint32_t>(uids[0]);
  }
};

// What the views hold (docs/format.md section 7, "What the views hold"): a
// frame's table is estimated, record by record (ViewCost), before any view is
// built, and a table past `limit` is not built: ProcessTable throws
// ViewTooLarge, which a command ends with as too-large (exit 16), one line
// naming the limit, its outputs removed (cli/errors.h FailEscaped).
inline constexpr std::uint64_t kMaxViewTableBytes = 128ull << 20;
// Beside a view's own bytes: what a view makes of each process it shows (a
// tree's node and child links, an index entry, a line of dot), measured.
inline constexpr std::uint64_t kViewOverheadBytes = 512;
struct ViewTooLarge : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// The bytes the view of `r`, and what a view makes of it, hold: its object,
// kViewOverheadBytes, the bytes it copies (cmdline, cgroup, comm) and a
// string object per argv element (a cmdline of 8 M NULs is 8 M strings).
std::uint64_t ViewCost(const v1::ProcessRecord& r);

// Every record of `frame`, in pid order. A pid listed twice keeps its first
// record (the resolver calls that DUPLICATE_RECORD; views show the first),
// and only that record is viewed (or charged). Throws ViewTooLarge when the
// views of the frame would cost more than `limit`.
std::vector<ProcessView> ProcessTable(const v1::Frame& frame,
                                      std::uint64_t limit = kMaxViewTableBytes);

// pid -> index into `table`.
std::map<std::int64_t, std::size_t> IndexByPid(const std::vector<ProcessView>& table);

}  // namespace proctape
