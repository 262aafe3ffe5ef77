// SPDX-License-Identifier: Apache-2.0
#include "analyze/export.h"

#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "analyze/process_table.h"
#include "proto/convert.h"
#include "proto/json_pieces.h"
#include "replay/token_mask.h"
#include "core/proc_parse.h"

namespace proctape {
namespace {

using Key = std::pair<std::int64_t, std::uint64_t>;  // (pid, start tick)

// Resolution indexes per process they name, for one role.
using Marks = std::map<Key, std::vector<std::size_t>>;

std::string List(const std::vector<std::size_t>& indexes) {
  std::string out;
  for (std::size_t i : indexes) out += (out.empty() ? "" : ", ") + std::to_string(i);
  return out;
}

// "resolution " or "resolutions ", before a list of their indexes.
std::string Noun(const char* word, std::size_t n) {
  return std::string(word) + (n == 1 ? " " : "s ");
}

std::string NodeId(const ProcessView& p) {
  std::string id = "p";
  id.append(std::to_string(p.pid));
  if (p.stat) id.append("_").append(std::to_string(p.stat->start_ticks));
  return id;
}

}  // namespace

v1::SnapshotExport ToExport(const Snapshot& snapshot) {
  v1::SnapshotExport out;
  *out.mutable_header() = snapshot.header;
  for (const v1::Frame& f : snapshot.frames) *out.add_frames() = f;
  for (const v1::Observation& o : snapshot.observations) *out.add_observations() = o;
  for (const v1::Resolution& r : snapshot.resolutions) *out.add_resolutions() = r;
  if (snapshot.footer) *out.mutable_footer() = *snapshot.footer;
  for (const v1::RootFingerprint& f : snapshot.fingerprints) *out.add_fingerprints() = f;
  return out;
}

namespace {

// Appends each of `items` printed, joined by commas.
using Drain = std::function<MaybeFailure(std::string* out)>;

template <typename T>
JsonElements Printed(const std::vector<T>& items, const Drain& drain) {
  return [&items, &drain](std::string* out) -> MaybeFailure {
    constexpr std::size_t kDrainAt = 1 << 20;
    const auto options = JsonOptions();
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out->push_back(',');
      if (MaybeFailure failed = AppendJsonPieces(items[i], options, out)) return failed;
      if (drain && out->size() >= kDrainAt) {
        if (MaybeFailure failed = drain(out)) return failed;
      }
    }
    return std::nullopt;
  };
}

// What each of `items` adds to the serialized document: its size, its tag and
// its length.
template <typename T>
std::uint64_t SerializedSize(const std::vector<T>& items) {
  std::uint64_t total = 0;
  for (const T& item : items) total += item.ByteSizeLong() + 1 + 10;
  return total;
}

}  // namespace

MaybeFailure ExportJson(const Snapshot& snapshot, std::string* out, const Drain& drain) {
  out->clear();
  v1::SnapshotExport shell;
  *shell.mutable_header() = snapshot.header;
  if (snapshot.footer) *shell.mutable_footer() = *snapshot.footer;
  for (const v1::RootFingerprint& f : snapshot.fingerprints) *shell.add_fingerprints() = f;
  const std::uint64_t size = shell.ByteSizeLong() + SerializedSize(snapshot.frames) +
                             SerializedSize(snapshot.observations) +
                             SerializedSize(snapshot.resolutions);
  if (size > kMaxSerializedBytes) {
    return Failure(FailureKind::kTooLarge, "the document's message is " + std::to_string(size) +
                                               " bytes serialized, over protobuf's limit of " +
                                               std::to_string(kMaxSerializedBytes) +
                                               " bytes: the JSON cannot be written");
  }
  const std::map<std::string, JsonElements> elements = {
      {"frames", Printed(snapshot.frames, drain)},
      {"observations", Printed(snapshot.observations, drain)},
      {"resolutions", Printed(snapshot.resolutions, drain)},
  };
  if (MaybeFailure failed = AppendJsonPieces(shell, JsonOptions(), elements, out)) {
    out->clear();
    return Failure(failed->kind, "cannot print JSON: " + failed->message, failed->sys_errno);
  }
  return std::nullopt;
}

std::string DotEscape(std::string_view raw, std::size_t max) {
  std::string out;
  for (char c : EscapeBytes(raw, max)) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string FrameDot(const Snapshot& snapshot, std::size_t frame, std::size_t* drawn) {
  const v1::Frame& f = snapshot.frames[frame];
  const std::vector<ProcessView> table = ProcessTable(f);
  if (drawn) *drawn = table.size();
  const std::map<std::int64_t, std::size_t> by_pid = IndexByPid(table);
  // Host bytes shown (a comm, a stat's problem) never show a token's value.
  const TokenMask mask = TokenMask::Of(snapshot);

  Marks resolved, roots;
  for (std::size_t i = 0; i < snapshot.resolutions.size(); ++i) {
    const v1::Resolution& r = snapshot.resolutions[i];
    if (!r.has_resolve()) continue;
    roots[{r.resolve().root_pid(), r.resolve().root_start_ticks()}].push_back(i);
    if (r.has_verdict() && r.verdict().status() == v1::Verdict::RESOLVED) {
      resolved[{r.verdict().pid(), r.verdict().start_ticks()}].push_back(i);
    }
  }

  std::string graph_label = "frame " + std::to_string(frame) + ": " + std::to_string(table.size()) +
                            " " + (table.size() == 1 ? "process" : "processes");
  for (const auto& [key, indexes] : resolved) {
    auto it = by_pid.find(key.first);
    if (it != by_pid.end() && table[it->second].stat &&
        table[it->second].start_ticks() == key.second) {
      continue;
    }
    graph_label += "\\n" + Noun("resolution", indexes.size()) + List(indexes) + ": RESOLVED " +
                   std::to_string(key.first) + " start " + std::to_string(key.second) +
                   ", not in this frame";
  }

  std::string out = "// proctape export --format dot, frame " + std::to_string(frame) + "\n";
  out += "digraph proctape {\n";
  out += "  graph [label=\"" + graph_label + "\", labelloc=t, fontname=\"monospace\"];\n";
  out += "  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (const ProcessView& p : table) {
    std::string label = std::to_string(p.pid);
    std::vector<std::string> attrs;
    if (p.stat) {
      label += " start " + std::to_string(p.stat->start_ticks) + " " +
               DotEscape(std::string_view(&p.stat->state, 1)) + "\\n" +
               DotEscape(mask.Masked(p.stat->comm));
      const Key key{p.pid, p.stat->start_ticks};
      if (auto it = resolved.find(key); it != resolved.end()) {
        label += "\\nRESOLVED (" + Noun("resolution", it->second.size()) + List(it->second) + ")";
        attrs.push_back("style=\"filled,bold\", fillcolor=\"#ffd966\"");
      }
      if (auto it = roots.find(key); it != roots.end()) {
        label += "\\nroot of " + Noun("resolution", it->second.size()) + List(it->second);
        attrs.push_back("peripheries=2");
      }
    } else {
      label += "\\n(" + DotEscape(mask.Masked(p.stat_problem)) + ")";
      attrs.push_back("style=dashed");
    }
    out += "  " + NodeId(p) + " [label=\"" + label + "\"";
    for (const std::string& a : attrs) out += ", " + a;
    out += "];\n";
  }
  for (const ProcessView& child : table) {
    if (!child.stat) continue;
    auto it = by_pid.find(child.stat->ppid);
    if (it == by_pid.end() || it->second == static_cast<std::size_t>(&child - table.data())) {
      continue;
    }
    const ProcessView& parent = table[it->second];
    out += "  " + NodeId(parent) + " -> " + NodeId(child);
    if (parent.stat && parent.stat->start_ticks > child.stat->start_ticks) {
      out += " [style=dashed]";
    }
    out += ";\n";
  }
  out += "}\n";
  return out;
}

}  // namespace proctape
