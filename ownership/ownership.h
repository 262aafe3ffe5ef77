// SPDX-License-Identifier: Apache-2.0
// The ownership planner (`docs/ownership.md`): which same-uid, same-cgroup
// processes a verifier's cleanup must end, and which the runtime legitimately
// owns.
//
// Inputs are two snapshots: the baseline, captured by the trusted verifier
// when it entered its fresh sandbox, before any repository command, and the
// current one, captured at cleanup time. The plan decides every process of
// the current snapshot whose real uid is `uid` and whose cgroup v2 path is
// exactly `cgroup`, kernel threads (PF_KTHREAD) aside:
//   KEEP   the verifier (--self), the same (pid, start tick) in both snapshots;
//   KEEP   an ancestor of the verifier in the current snapshot;
//   KEEP   a process whose exact (pid, start tick) pair is in the baseline
//          (one that started before the verifier, or the baseline's capture);
//   REMOVE anything else: new processes (detached and double-forked ones too,
//          wherever they were reparented) and a pid reused since the baseline.
// It refuses (decides nothing) when the evidence cannot support a plan: a
// process that may be in scope without a readable identity, a baseline not
// taken strictly before the current snapshot, on another boot or pid
// namespace, not by the verifier, or after a command of the verifier had
// started (a descendant of the verifier in it, or a process it could exempt
// that started at or after the verifier's start tick or between its frames,
// even reparented away from the verifier); or when the scope is not the
// verifier's: it does not hold --self (an empty scope among them), or it
// would remove new processes of a session older than the baseline that is
// not the verifier's (unless force_scope). Process names are never
// consulted. Declared outputs (paths the task produces, which cleanup would
// delete) are planned present or already absent; a parent that is a
// symbolic link or not a directory refuses the plan. It only plans: nothing
// here, nor in proctape, signals a process or deletes a file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ownership/declared_outputs.h"
#include "format/reader.h"
#include "ownership.pb.h"

namespace proctape {

struct OwnershipRequest {
  std::uint32_t uid = 0;      // real uid (status "Uid:", first field)
  std::string cgroup;         // cgroup v2 path, compared exactly ("/system.slice/x")
  std::int64_t self_pid = 0;  // the verifier
  bool all = false;           // also list out-of-scope and vanished processes
  std::string baseline_name;  // for the plan's file fields (escaped there)
  std::string current_name;
  // Declared outputs (--output): each is planned present or already absent
  // (declared_outputs.h); one whose parent is a symbolic link or not a
  // directory, or cannot be looked up, refuses the whole plan.
  std::vector<std::string> outputs;
  // Plan the removal of new processes of sessions older than the baseline
  // that are not the verifier's, instead of refusing (--force-scope).
  bool force_scope = false;
};

// The plan for `request` over the baseline's last frame and the current's
// last frame (docs/ownership.md says why those and which checks read the
// other frames); declared outputs looked up in `paths`. What a planned
// scope makes suspicious (the root cgroup; with --force-scope, other
// sessions' processes planned for removal) is added to `warnings`, one
// sentence each, when it is given.
v1::OwnershipPlan PlanOwnership(const Snapshot& baseline, const Snapshot& current,
                                const OwnershipRequest& request, PathLookup& paths,
                                std::vector<std::string>* warnings = nullptr);

// The same, declared outputs looked up on the live filesystem.
v1::OwnershipPlan PlanOwnership(const Snapshot& baseline, const Snapshot& current,
                                const OwnershipRequest& request,
                                std::vector<std::string>* warnings = nullptr);

// The plan as text: a heading, one line per decision, a summary (or the
// refusal and every problem). Every byte from /proc is escaped.
std::string DescribePlan(const v1::OwnershipPlan& plan);

// One problem of a refused plan, as DescribePlan lists it: its kind, where
// (snapshot, frame), whom (pid@start, or the session) and what.
std::string DescribeProblem(const v1::OwnershipProblem& problem);

// The path of the single "0::" line of a /proc/PID/cgroup file (cgroup v2,
// or the unified hierarchy of a hybrid host), or nullopt when there is none,
// more than one, or it is cut by a truncated read.
//   "0::/user.slice/x\n"                  -> "/user.slice/x"
//   "4:memory:/a\n0::/b\n"                -> "/b"
//   "4:memory:/a\n"                       -> nullopt (cgroup v1 only)
std::optional<std::string> CgroupV2Path(std::string_view cgroup_file, bool truncated);

}  // namespace proctape
