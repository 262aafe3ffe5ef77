// SPDX-License-Identifier: Apache-2.0
#include "analyze/scope.h"

#include <string_view>

#include "core/proc_parse.h"

namespace proctape {
namespace {

// `proctape capture ... --root N ...` or `--root=N` in a header's command line.
std::optional<std::int64_t> RootFromCommandLine(const v1::Header& header) {
  const auto& args = header.command_line();
  if (args.size() < 2 || args[1] != "capture") return std::nullopt;
  for (int i = 2; i < args.size(); ++i) {
    std::string_view arg = args[i];
    std::string_view value;
    if (arg == "--root" && i + 1 < args.size()) {
      value = args[i + 1];
    } else if (arg.substr(0, 7) == "--root=") {
      value = arg.substr(7);
    } else {
      continue;
    }
    auto pid = ParseCanonicalDecimal(value, kMaxPid);
    if (pid && *pid > 0) return static_cast<std::int64_t>(*pid);
  }
  return std::nullopt;
}

}  // namespace

FrameScope ScopeOf(const Snapshot& snapshot, const v1::Frame& frame) {
  FrameScope scope;
  if (snapshot.header.scope_root_pid() > 0) {
    scope.root = snapshot.header.scope_root_pid();
  } else {
    scope.root = RootFromCommandLine(snapshot.header);
  }
  if (frame.cut_by_bounds()) {
    scope.cut_reason = frame.cut_reason().empty() ? "a bound" : EscapeBytes(frame.cut_reason());
  }
  return scope;
}

std::string ScopeText(const FrameScope& scope) {
  std::string out =
      scope.root ? "pid " + std::to_string(*scope.root) + " and its descendants" : "the whole host";
  if (!scope.cut_reason.empty()) out += " (scan cut: " + scope.cut_reason + ")";
  return out;
}

std::optional<std::string> Uncovered(const FrameScope& scope, const ProcessView& p,
                                     const std::vector<ProcessView>& table,
                                     const std::map<std::int64_t, std::size_t>& index,
                                     const std::vector<ProcessView>* scoped,
                                     const std::map<std::int64_t, std::size_t>* scoped_index) {
  if (!scope.cut_reason.empty()) {
    return "the scan was cut by " + scope.cut_reason + " and may not have reached it";
  }
  if (!scope.root) return std::nullopt;
  // Walk p's parents in its own frame; a table's length bounds any chain, a
  // longer walk is a cycle.
  const ProcessView* at = &p;
  std::vector<const ProcessView*> above;  // p's ancestors up to the root
  for (std::size_t steps = 0; steps <= table.size(); ++steps) {
    if (at->pid == *scope.root) {
      // Beneath the root. An ancestor the scoped frame lacks (or holds as
      // another process) may have orphaned p out of the subtree.
      if (scoped == nullptr || scoped_index == nullptr) return std::nullopt;
      for (const ProcessView* x : above) {
        auto there = scoped_index->find(x->pid);
        if (there == scoped_index->end() ||
            (*scoped)[there->second].start_ticks() != x->start_ticks()) {
          return "it holds only pid " + std::to_string(*scope.root) +
                 " and its descendants, and this process's " +
                 (x->pid == *scope.root ? "root " : "ancestor ") + std::to_string(x->pid) +
                 " is gone from it: orphaned, the process left the subtree, alive or not";
        }
      }
      return std::nullopt;
    }
    if (!at->has_identity()) break;
    auto it = index.find(at->ppid());
    if (it == index.end()) break;
    at = &table[it->second];
    above.push_back(at);
  }
  return "it holds only pid " + std::to_string(*scope.root) +
         " and its descendants, and this process is not beneath it";
}

}  // namespace proctape
