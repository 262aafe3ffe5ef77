// SPDX-License-Identifier: Apache-2.0
#include "analyze/tree.h"

#include <map>
#include <vector>

#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

constexpr std::uint32_t kMaxIndent = 100;  // tree levels drawn in text

std::string KernelThreads(std::uint64_t n) { return Plural(n, "kernel thread", "kernel threads"); }

// (pid, start tick) of a resolution's RESOLVED verdict, if it has one.
bool ResolvedIdentity(const v1::Resolution& r, std::int64_t* pid, std::uint64_t* start) {
  if (!r.has_resolve() || !r.has_verdict() || r.verdict().status() != v1::Verdict::RESOLVED) {
    return false;
  }
  *pid = r.verdict().pid();
  *start = r.verdict().start_ticks();
  return true;
}

// Marks for the processes of `table` from the recorded resolutions.
std::map<std::int64_t, std::vector<std::string>> ResolutionMarks(
    const Snapshot& snapshot, const std::vector<ProcessView>& table) {
  std::map<std::int64_t, std::vector<std::string>> marks;
  std::map<std::int64_t, std::size_t> index = IndexByPid(table);
  auto mark = [&](std::int64_t pid, std::uint64_t start, const std::string& same,
                  const std::string& other) {
    auto it = index.find(pid);
    if (it == index.end() || !table[it->second].has_identity()) return;
    if (table[it->second].start_ticks() == start) {
      marks[pid].push_back(same);
    } else {
      marks[pid].push_back(other + " (that one started at tick " + std::to_string(start) + ")");
    }
  };
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    const v1::Resolution& r = snapshot.resolutions[i];
    const std::string n = std::to_string(i);
    if (r.has_resolve()) {
      mark(r.resolve().root_pid(), r.resolve().root_start_ticks(), "root of resolution " + n,
           "not the root of resolution " + n);
    }
    std::int64_t pid = 0;
    std::uint64_t start = 0;
    if (ResolvedIdentity(r, &pid, &start)) {
      mark(pid, start, "resolved by resolution " + n,
           "not the process resolution " + n + " resolved");
    }
  }
  return marks;
}

// With a filter: keeps the nodes of the processes it selects (--pid: that
// process and its descendants) and of their ancestors, these as context.
// `drawn` is the table index of each node, in order.
void KeepSelected(const std::vector<ProcessView>& table, const std::vector<std::size_t>& parent,
                  const std::vector<std::vector<std::size_t>>& children,
                  const std::vector<std::size_t>& drawn, const ProcessFilter& filter,
                  v1::TreeReport* report) {
  const std::size_t n = table.size();
  std::vector<bool> in_scope(n, !filter.pid.has_value());
  if (filter.pid) {
    const std::map<std::int64_t, std::size_t> index = IndexByPid(table);
    auto it = index.find(*filter.pid);
    std::vector<std::size_t> todo;
    if (it != index.end()) todo.push_back(it->second);
    while (!todo.empty()) {  // each index once: parent loops end here
      const std::size_t i = todo.back();
      todo.pop_back();
      if (in_scope[i]) continue;
      in_scope[i] = true;
      for (std::size_t c : children[i]) todo.push_back(c);
    }
  }
  std::vector<bool> selected(n, false);
  std::vector<bool> keep(n, false);
  std::uint32_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!in_scope[i] || !MatchesFacts(filter, table[i])) continue;
    selected[i] = true;
    ++count;
    // Its ancestors, up to one already kept (each once: loops end).
    for (std::size_t a = i; a != SIZE_MAX && !keep[a]; a = parent[a]) keep[a] = true;
  }
  google::protobuf::RepeatedPtrField<v1::TreeReport::Node> kept;
  for (int k = 0; k < report->nodes_size(); ++k) {
    const std::size_t i = drawn[static_cast<std::size_t>(k)];
    if (!keep[i]) continue;
    v1::TreeReport::Node* node = report->mutable_nodes(k);
    node->set_context(!selected[i]);
    kept.Add(std::move(*node));
  }
  report->mutable_nodes()->Swap(&kept);
  *report->mutable_filter() = FilterMessage(filter);
  report->set_selected(count);
}

}  // namespace

bool DerivesMarker(const v1::Header& h) {
  return h.command_line_size() >= 2 && h.command_line(1) == "lab";
}

std::optional<std::int64_t> DerivedMarker(const Snapshot& snapshot, std::string* source) {
  if (!DerivesMarker(snapshot.header)) return std::nullopt;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    std::int64_t pid = 0;
    std::uint64_t start = 0;
    if (!ResolvedIdentity(snapshot.resolutions[i], &pid, &start)) continue;
    for (const v1::Frame& frame : snapshot.frames) {
      for (const ProcessView& p : ProcessTable(frame)) {
        if (p.pid != pid || !p.has_identity() || p.start_ticks() != start || p.nspid.empty()) {
          continue;
        }
        *source = "derived: the innermost NSpid of " + IdentityText(pid, start) +
                  ", which resolution " + std::to_string(i) +
                  " resolved; the lab's shell wrote its $$ there, then exec'd";
        return p.nspid.back();
      }
    }
    return std::nullopt;  // only the first RESOLVED resolution speaks for the marker
  }
  return std::nullopt;
}

std::optional<v1::TreeReport> BuildTree(const Snapshot& snapshot, const std::string& name,
                                        const TreeOptions& options, Failure* failure) {
  if (options.frame >= snapshot.frames.size()) {
    *failure =
        Failure(FailureKind::kUsage, NoSuchFrameIn("--frame", options.frame, name, snapshot));
    return std::nullopt;
  }
  const v1::Frame& frame = snapshot.frames[options.frame];
  const std::vector<ProcessView> table = ProcessTable(frame);
  const std::map<std::int64_t, std::size_t> index = IndexByPid(table);
  const std::int64_t hz = snapshot.header.host().clock_ticks_per_second();

  v1::TreeReport report;
  report.set_file(name);
  report.set_frame(Count32(options.frame));
  report.set_frames(Count32(snapshot.frames.size()));
  report.set_frame_complete(frame.complete());
  report.set_processes(Count32(table.size()));
  report.set_root(Int32(options.root));

  // Parent links: a process whose parent is absent (or itself) is a root.
  const std::size_t n = table.size();
  constexpr std::size_t kNone = SIZE_MAX;
  std::vector<std::size_t> parent(n, kNone);
  std::vector<std::vector<std::size_t>> children(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!table[i].has_identity() || table[i].ppid() == table[i].pid) continue;
    auto it = index.find(table[i].ppid());
    if (it == index.end()) continue;
    parent[i] = it->second;
    children[it->second].push_back(i);  // in pid order: the table is sorted
  }

  std::vector<std::size_t> roots;
  if (options.root != 0) {
    auto it = index.find(options.root);
    if (it == index.end()) {
      // The form of every "selects no process" line: what was read, then why.
      *failure = Failure(FailureKind::kNotFound, name + " frame " + std::to_string(options.frame) +
                                                     ": --root " + std::to_string(options.root) +
                                                     ": no process has that pid");
      return std::nullopt;
    }
    roots.push_back(it->second);
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      if (parent[i] == kNone) roots.push_back(i);
    }
  }

  std::string marker_source;
  std::optional<std::int64_t> marker = options.marker;
  if (marker) {
    marker_source = "--marker";
  } else {
    marker = DerivedMarker(snapshot, &marker_source);
  }
  std::map<std::int64_t, std::vector<std::string>> marks = ResolutionMarks(snapshot, table);
  if (marker) {
    report.set_marker(Int32(*marker));
    report.set_marker_source(marker_source);
    report.set_marker_in_frame(index.count(*marker) > 0);
    marks[*marker].push_back("marker " + std::to_string(*marker) + " names this host pid");
  }

  // Depth first, iteratively (a hostile file may chain 65,536 parents).
  const bool fold = !options.kernel && !options.filter.any();
  std::vector<bool> visited(n, false);
  std::vector<std::size_t> drawn;  // the table index of each node
  std::uint64_t folded_total = 0;
  auto walk = [&](std::size_t start, bool cycle) {
    struct Item {
      std::size_t i;
      std::uint32_t depth;
    };
    std::vector<Item> stack{{start, 0}};
    while (!stack.empty()) {
      Item item = stack.back();
      stack.pop_back();
      if (visited[item.i]) continue;
      visited[item.i] = true;
      const ProcessView& p = table[item.i];
      v1::TreeReport::Node* node = report.add_nodes();
      drawn.push_back(item.i);
      *node->mutable_process() = Summarize(p, hz);
      node->set_depth(item.depth);
      if (item.depth > 0) node->set_parent(Int32(table[parent[item.i]].pid));
      if (cycle && item.depth == 0) node->add_marks("its parent links loop back to it");
      for (const std::string& m : marks[p.pid]) node->add_marks(m);
      std::vector<std::size_t> shown;
      for (std::size_t c : children[item.i]) {
        if (visited[c]) continue;
        if (fold && p.kernel_thread && table[c].kernel_thread) {
          // Folded: c and everything beneath it, counted.
          std::vector<std::size_t> hide{c};
          std::uint64_t count = 0;
          while (!hide.empty()) {
            std::size_t h = hide.back();
            hide.pop_back();
            if (visited[h]) continue;
            visited[h] = true;
            ++count;
            for (std::size_t g : children[h]) hide.push_back(g);
          }
          node->set_folded_kernel_threads(Count32(node->folded_kernel_threads() + count));
          folded_total += count;
        } else {
          shown.push_back(c);
        }
      }
      for (auto it = shown.rbegin(); it != shown.rend(); ++it)
        stack.push_back({*it, item.depth + 1});
    }
  };
  for (std::size_t r : roots) walk(r, false);
  if (options.root == 0) {
    // What no root reaches hangs in a loop of parent links: its lowest pid
    // becomes a root.
    for (std::size_t i = 0; i < n; ++i) {
      if (!visited[i]) walk(i, true);
    }
  }
  report.set_folded_kernel_threads(Count32(folded_total));
  if (options.filter.any()) {
    KeepSelected(table, parent, children, drawn, options.filter, &report);
  }
  if (marker) {
    for (const v1::TreeReport::Node& node : report.nodes()) {
      if (node.process().pid() == *marker) report.set_marker_shown(true);
    }
  }
  // argv and comm may hold the token (the sandbox's own command line): shown
  // as stars of its length, masked before the text cuts a long argument.
  TokenMask::Of(snapshot).Mask(&report);
  return report;
}

namespace {

// RenderTree's lines, whole.
std::string RenderTreeLines(const v1::TreeReport& r) {
  std::string out = r.file() + ": frame " + std::to_string(r.frame()) + " of " +
                    std::to_string(r.frames()) + ", " +
                    Plural(r.processes(), "process", "processes");
  if (!r.frame_complete()) out += ", incomplete (the capture stopped inside this frame)";
  if (r.root() != 0) out += ", the subtree of " + std::to_string(r.root());
  out += "\n";

  // has_next[i]: a sibling follows node i (computed backwards).
  const int n = r.nodes_size();
  std::vector<bool> has_next(static_cast<std::size_t>(n), false);
  std::vector<bool> pending;
  for (int i = n - 1; i >= 0; --i) {
    const std::size_t d = r.nodes(i).depth();
    if (pending.size() <= d) pending.resize(d + 1, false);
    has_next[static_cast<std::size_t>(i)] = pending[d];
    pending[d] = true;
    pending.resize(d + 1);
  }
  std::vector<bool> open;  // open[k]: the ancestor at depth k has a later sibling
  for (int i = 0; i < n; ++i) {
    const v1::TreeReport::Node& node = r.nodes(i);
    const std::uint32_t d = node.depth();
    open.resize(d + 1);
    open[d] = has_next[static_cast<std::size_t>(i)];
    std::string line;
    if (d > 0) {
      const std::uint32_t drawn = d < kMaxIndent ? d : kMaxIndent;
      for (std::uint32_t k = 1; k < drawn; ++k) line += open[k] ? "| " : "  ";
      if (d > kMaxIndent) line += "[depth " + std::to_string(d) + "] ";
      line += open[d] ? "|-" : "`-";
    }
    const v1::ProcessSummary& p = node.process();
    if (node.context()) {
      // Not selected: only where it stands, as the path to what is.
      line +=
          std::to_string(p.pid()) + (p.identified() ? " " + Quoted(p.comm()) : "") + " (context)";
    } else {
      line += std::to_string(p.pid()) + " " + ProcessFacts(p);
    }
    if (node.folded_kernel_threads() > 0) {
      line += " [+" + KernelThreads(node.folded_kernel_threads()) + " folded]";
    }
    for (int m = 0; m < node.marks_size(); ++m) {
      line += (m == 0 ? "  <= " : "; ") + node.marks(m);
    }
    out += line + "\n";
  }
  if (r.has_selected()) {
    // The filter as given; its --pid selects a subtree here.
    out += "selected: " + Plural(r.selected(), "process", "processes") + " (" +
           FilterText(r.filter(), true) + ")\n";
  }
  if (r.folded_kernel_threads() > 0) {
    out += "(" + KernelThreads(r.folded_kernel_threads()) + " folded; --kernel shows them)\n";
  }
  if (!r.marker_source().empty()) {
    std::string m = "marker " + std::to_string(r.marker()) + " (" + r.marker_source() + ")";
    if (r.marker_shown()) {
      out += m + " names host pid " + std::to_string(r.marker()) + ", marked above\n";
    } else if (r.marker_in_frame()) {
      out += m + " names host pid " + std::to_string(r.marker()) + ", outside the subtree shown\n";
    } else {
      out += m + ": no process has host pid " + std::to_string(r.marker()) + " in this frame\n";
    }
  }
  return out;
}

}  // namespace

std::string RenderTree(const v1::TreeReport& r, std::size_t width) {
  const std::string out = RenderTreeLines(r);
  if (width < 2) return out;
  std::string fitted;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    if (end - start > width) {
      fitted.append(out, start, width - 1).append(">\n");
    } else {
      fitted.append(out, start, end - start).append("\n");
    }
    start = end + 1;
  }
  return fitted;
}

}  // namespace proctape
