// SPDX-License-Identifier: Apache-2.0
// Kernel events of `proctape explore` (`docs/explore.md`, "The events"), each
// one a thing this kernel was seen to do (../shared/KERNEL-FACTS.md, the lab's
// watch test):
//
//   exit              the process becomes a zombie: state Z, an empty cmdline,
//                     environ ESRCH, exe ENOENT, the same start tick; its
//                     children are reparented to init (pid 1: the model knows
//                     no subreaper), stat field 4 and status PPid: both;
//   gone              the process is reaped (from alive or zombie): no /proc
//                     entry; its children reparented as for exit;
//   reuse-unrelated   the pid is gone and reused by a new process (a new,
//                     later start tick) with another argv and exe, parent init;
//   reuse-argv        ... by an impostor under the same parent with the
//                     expected argv and the attested exe but another run's
//                     token (the token with "-2" after it, as a harness
//                     that numbers its runs gives);
//   reuse-token       ... by one with the expected argv and the token but
//                     another executable identity;
//   exec-shell        the matching process had not finished its exec: until
//   exec-empty        the event's point it showed the shell's argv with the
//   exec-oldargv      shell's exe / an empty cmdline with the new exe / the
//                     shell's argv with the new exe; at the point the exec
//                     completes (its bytes become the frame's again);
//   second-match      a second process with the expected argv, token and exe
//                     appears under the same parent (a new pid and start tick);
//   root-restart      the root's pid is reused by a new root (same argv, a new
//                     start tick); the old root's children go to init;
//   time-retry        the clock jumps one retry interval ahead;
//   time-deadline     the clock jumps past the resolution's deadline.
//
// A new process's start tick is one past the highest in the model and a new
// pid one past the highest pid, so histories are deterministic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/resolver.h"
#include "explore/host_model.h"

namespace proctape::explore {

enum class EventKind : int {
  kExit,
  kGone,
  kReuseUnrelated,
  kReuseArgv,
  kReuseToken,
  kExecShell,
  kExecEmpty,
  kExecOldArgv,
  kSecondMatch,
  kRootRestart,
  kTimeRetry,
  kTimeDeadline,
};
inline constexpr int kEventKinds = 12;

std::string_view KindName(EventKind kind);
bool IsExec(EventKind kind);

struct Event {
  EventKind kind = EventKind::kExit;
  std::int64_t pid = 0;  // the process it happens to (0: a clock event)
  bool operator==(const Event&) const = default;
};

// An event at schedule point `point`: applied before call `point` (from 0)
// of the checked run is answered.
struct Scheduled {
  std::uint64_t point = 0;
  Event event;
};
using History = std::vector<Scheduled>;  // points in increasing order

// What events need to know of the check they change.
struct EventContext {
  const HostModel* initial = nullptr;  // the model before any event
  std::int64_t root_pid = 0;           // 0: a liveness check
  std::vector<std::string> argv;       // expected (empty: a liveness check)
  std::string token_entry;             // TOKEN_VAR=TOKEN
  Identity exe;                        // attested
  std::int64_t start_ns = 0;
  Bounds bounds;
  // The processes events may happen to: the root and its descendants in
  // the initial model (a liveness check: its pid).
  std::vector<std::int64_t> targets;
};

// The context of a resolution or liveness check on `initial`.
EventContext MakeContext(const HostModel* initial, const Request* request,
                         std::int64_t liveness_pid, std::int64_t start_ns);

// The events that can happen to `model` now, in a fixed order (by target in
// the order of ctx.targets, then by kind; clock events last).
std::vector<Event> Applicable(const HostModel& model, const EventContext& ctx, std::int64_t clock);

// Applies `e` at its point; false (nothing changed) when it cannot happen now.
bool Apply(const Event& e, const EventContext& ctx, HostModel* model, std::int64_t* clock);
// An exec event's state before its point (applied at point 0 of the run).
bool ApplyExecBegin(const Event& e, const EventContext& ctx, HostModel* model);

// "at call 12: pid 257 exits (zombie)".
std::string Describe(const Scheduled& s);
// The event a line of Describe() describes (nullopt: no such line).
std::optional<Scheduled> ParseDescribed(std::string_view line);
// "exit", "exit+reuse-argv": the kinds of a history, in order.
std::string KindsOf(const History& h);

}  // namespace proctape::explore
