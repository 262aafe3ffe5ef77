// SPDX-License-Identifier: Apache-2.0
// The meter every read of a resolution goes through, and one point-in-time
// snapshot of the process graph (`docs/resolver.md`, "The eight steps",
// steps 2-4).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "core/resolver_internal.h"

namespace proctape::resolver {

std::string Where(std::int64_t pid, ProcFile file) {
  return "/proc/" + std::to_string(pid) + "/" + std::string(ProcFileName(file));
}

Verdict Make(Status status, std::int64_t pid, std::string detail) {
  Verdict v;
  v.status = status;
  (status == Status::kResolved ? v.pid : v.subject_pid) = pid;
  v.detail = std::move(detail);
  return v;
}

Verdict FileVerdict(Status status, std::int64_t pid, ProcFile file, const ReadResult& r,
                    std::string detail) {
  Verdict v = Make(status, pid, std::move(detail));
  v.file = static_cast<int>(file);
  v.err = r.err;
  v.evidence = std::string(r.data.substr(0, kEvidenceExcerpt));
  return v;
}

std::optional<Verdict> Meter::Charge(std::size_t bytes) {
  bytes_read_ += bytes;
  if (bytes_read_ > b_.byte_budget) {
    return Make(Status::kByteBudget, 0,
                "read " + std::to_string(bytes_read_) + " bytes, over the budget of " +
                    std::to_string(b_.byte_budget));
  }
  return CheckDeadline();
}

std::optional<Verdict> Meter::CheckDeadline() {
  std::int64_t now = ev_.NowNs();
  if (now > deadline_) {
    // Saturates where a recorded clock is absurd (core/checked.h).
    const std::int64_t late = ElapsedNs(deadline_, now);
    return Make(Status::kDeadline, 0, "the deadline passed " + DurationText(late) + " ago");
  }
  return std::nullopt;
}

std::optional<Verdict> Meter::ReadRequired(std::int64_t pid, ProcFile file, std::uint64_t bound,
                                           ReadResult* out) {
  *out = ev_.ReadFile(pid, file, bound);
  // A read costs what it read: a truncated one read the byte past its bound
  // that tells it was (core/evidence.h).
  if (auto v = Charge(out->data.size() + (out->truncated ? 1 : 0))) return v;
  if (!out->ok() && !Vanished(out->err)) {
    return FileVerdict(
        Status::kUnreadable, pid, file, *out,
        Where(pid, file) + " is unreadable (errno " + std::to_string(out->err) + ")");
  }
  return std::nullopt;
}

std::optional<Verdict> Meter::ParseRequiredStat(std::int64_t pid, const ReadResult& r,
                                                StatView* out) const {
  if (r.truncated) {
    return FileVerdict(Status::kFileBound, pid, ProcFile::kStat, r,
                       Where(pid, ProcFile::kStat) + " is larger than " +
                           std::to_string(b_.stat_bytes) + " bytes");
  }
  StatViewParse parsed = ParseStatView(r.data);
  if (!parsed.ok()) {
    return FileVerdict(Status::kMalformedRecord, pid, ProcFile::kStat, r,
                       Where(pid, ProcFile::kStat) + ": " + parsed.Error());
  }
  if (parsed.fields.pid != pid) {
    return FileVerdict(Status::kMalformedRecord, pid, ProcFile::kStat, r,
                       Where(pid, ProcFile::kStat) + ": field 1 is " +
                           std::to_string(parsed.fields.pid) + ", not the directory's pid");
  }
  *out = parsed.fields;
  return std::nullopt;
}

// `docs/resolver.md`, "The eight steps", steps 2-3.
std::optional<Verdict> Scan(Meter& meter, Snapshot* snap) {
  Evidence& ev = meter.evidence();
  const Bounds& b = meter.bounds();
  // "Checked throughout enumeration": the listing itself stops at the budget
  // left and at the deadline while it reads the directory.
  ListResult list =
      ev.ListPidsWithin(ListLimits{b.max_entries, meter.budget_left(), meter.deadline()});
  if (!list.ok()) {
    Verdict v = Make(Status::kUnreadable, 0,
                     "listing /proc failed (errno " + std::to_string(list.err) + ")");
    v.err = list.err;
    return v;
  }
  if (list.truncated) {
    return Make(Status::kEntryBound, 0,
                "/proc holds more than " + std::to_string(b.max_entries) + " numeric entries");
  }
  // The listing is part of the scan and costs what it read: the directory
  // entries the kernel handed over, or, from a source that does not count
  // them (a tape recorded before they were), the bytes of the names.
  // Charged like every read: budget, then deadline.
  std::uint64_t listed_bytes = list.bytes;
  if (listed_bytes == 0) {
    for (std::string_view name : list.names) listed_bytes += name.size();
  }
  if (auto v = meter.Charge(listed_bytes)) return v;
  if (list.stopped != ListStop::kNone) {
    // A source stops at a limit only past it; this one says so without the
    // charge or the clock showing it: the listing is incomplete all the same.
    const bool bytes = list.stopped == ListStop::kBytes;
    return Make(bytes ? Status::kByteBudget : Status::kDeadline, 0,
                "the listing of /proc stopped at the " +
                    std::string(bytes ? "byte budget" : "deadline") + " after " +
                    std::to_string(list.names.size()) + " numeric entries");
  }
  snap->nodes.clear();
  snap->nodes.reserve(list.names.size());
  snap->index.Reset(list.names.size());
  snap->listed.Reset(list.names.size());
  for (std::string_view name : list.names) {
    auto parsed_pid = ParseCanonicalDecimal(name, kMaxPid);
    if (!parsed_pid || *parsed_pid == 0) {
      Verdict v = Make(Status::kMalformedRecord, 0,
                       "/proc entry '" + EscapeBytes(name) + "' is not a canonical pid");
      v.evidence = std::string(name.substr(0, kEvidenceExcerpt));
      return v;
    }
    auto pid = static_cast<std::int64_t>(*parsed_pid);
    if (pid == 1) continue;  // init: outside step 2's pid range 2..2147483647
    // "Duplicate records ... stop the checker": a pid the listing names
    // twice is one, whatever its reads answer (the first may have vanished,
    // the second may fail): decided at its second name, nothing more read.
    if (!snap->listed.Insert(pid, 0)) {
      Verdict v = Make(Status::kDuplicateRecord, pid,
                       "pid " + std::to_string(pid) + " is listed twice in one snapshot");
      v.evidence = std::string(name.substr(0, kEvidenceExcerpt));
      return v;
    }
    ReadResult r;
    if (auto v = meter.ReadRequired(pid, ProcFile::kStat, b.stat_bytes, &r)) return v;
    // `docs/resolver.md`, "The eight steps": a numeric entry that vanishes
    // before its first stat read is left out of that snapshot.
    if (!r.ok()) continue;
    StatView f;
    if (auto v = meter.ParseRequiredStat(pid, r, &f)) return v;
    if (snap->nodes.size() >= b.max_nodes) {
      Verdict v = Make(Status::kNodeBound, pid,
                       "more than " + std::to_string(b.max_nodes) + " process records");
      v.subject_start_ticks = f.start_ticks;
      return v;
    }
    snap->index.Insert(pid, snap->nodes.size());
    snap->nodes.push_back(Node{pid, f.ppid, f.start_ticks, f.state});
  }
  return std::nullopt;
}

// `docs/resolver.md`, "The eight steps", steps 3-4.
std::optional<Verdict> Graph(const Snapshot& snap, std::int64_t root_pid, std::uint32_t max_depth,
                             std::vector<bool>* under_root) {
  enum Mark : unsigned char { kUnseen, kOnPath, kDone };
  std::vector<Mark> mark(snap.nodes.size(), kUnseen);
  std::vector<std::uint32_t> depth(snap.nodes.size(), 0);
  under_root->assign(snap.nodes.size(), false);
  std::vector<std::size_t> path;
  for (std::size_t start = 0; start < snap.nodes.size(); ++start) {
    if (mark[start] == kDone) continue;
    path.clear();
    std::size_t i = start;
    // Walk up until a known node or the top of the graph. A loop is found
    // however long the walk before it: parent links that loop are CYCLE,
    // never DEPTH_BOUND, even when the loop lies deeper than the bound.
    std::optional<std::size_t> top_known;
    for (;;) {
      if (mark[i] == kOnPath) {
        return Make(Status::kCycle, snap.nodes[i].pid,
                    "parent links from pid " + std::to_string(snap.nodes[start].pid) +
                        " loop through pid " + std::to_string(snap.nodes[i].pid));
      }
      if (mark[i] == kDone) {
        top_known = i;
        break;
      }
      mark[i] = kOnPath;
      path.push_back(i);
      const Node* parent = snap.Find(snap.nodes[i].ppid);
      if (parent == nullptr) break;
      i = static_cast<std::size_t>(parent - snap.nodes.data());
    }
    if (path.size() > static_cast<std::size_t>(max_depth) + 1) {
      return Make(Status::kDepthBound, snap.nodes[start].pid,
                  "ancestry of pid " + std::to_string(snap.nodes[start].pid) + " is deeper than " +
                      std::to_string(max_depth));
    }
    // Unwind: depth counts parent links up to the top of the graph.
    std::uint32_t d = top_known ? depth[*top_known] + 1 : 0;
    bool under = top_known && ((*under_root)[*top_known] || snap.nodes[*top_known].pid == root_pid);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      if (d > max_depth) {
        return Make(Status::kDepthBound, snap.nodes[*it].pid,
                    "ancestry of pid " + std::to_string(snap.nodes[*it].pid) + " is deeper than " +
                        std::to_string(max_depth));
      }
      depth[*it] = d;
      (*under_root)[*it] = under;
      mark[*it] = kDone;
      if (snap.nodes[*it].pid == root_pid) under = true;
      ++d;
    }
  }
  return std::nullopt;
}

}  // namespace proctape::resolver
