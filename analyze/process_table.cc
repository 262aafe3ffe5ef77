// SPDX-License-Identifier: Apache-2.0
#include "analyze/process_table.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "proto/convert.h"

namespace proctape {
namespace {

// Whitespace-separated canonical decimals; empty when any is not one or is
// past what T holds (never wrapped).
template <typename T>
std::vector<T> Numbers(std::string_view text) {
  std::vector<T> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    std::size_t end = pos;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    if (end == pos) break;
    std::optional<std::uint64_t> v = ParseCanonicalDecimal(
        text.substr(pos, end - pos), static_cast<std::uint64_t>(std::numeric_limits<T>::max()));
    if (!v) return {};
    out.push_back(static_cast<T>(*v));
    pos = end;
  }
  return out;
}

// PF_KTHREAD in stat's flags: field 9, the 7th after the final ") ".
bool KernelThread(std::string_view stat) {
  constexpr std::uint64_t kPfKthread = 0x00200000;
  std::size_t pos = stat.rfind(") ");
  if (pos == std::string_view::npos) return false;
  std::string_view rest = stat.substr(pos + 2);
  for (int skip = 0; skip < 6; ++skip) {
    std::size_t space = rest.find(' ');
    if (space == std::string_view::npos) return false;
    rest.remove_prefix(space + 1);
  }
  std::optional<std::uint64_t> flags = ParseCanonicalDecimal(rest.substr(0, rest.find(' ')));
  return flags && (*flags & kPfKthread) != 0;
}

ProcessView View(const v1::ProcessRecord& r) {
  ProcessView v;
  v.pid = r.pid();
  v.record = &r;
  if (r.stat().err() != 0) {
    v.stat_problem = "stat unreadable: " + std::string(std::strerror(r.stat().err()));
  } else {
    StatParse parsed = ParseStat(r.stat().data());
    if (parsed.ok() && parsed.fields->pid != r.pid()) {
      v.stat_problem = "stat names pid " + std::to_string(parsed.fields->pid);
    } else if (parsed.ok()) {
      v.stat = parsed.fields;
      v.kernel_thread = KernelThread(r.stat().data());
    } else {
      v.stat_problem = "stat malformed: " + parsed.error;
    }
  }
  if (r.cmdline().err() == 0) {
    v.cmdline_ok = true;
    for (std::string_view a : SplitNul(r.cmdline().data())) v.argv.emplace_back(a);
  }
  if (r.status().err() == 0) {
    const std::string& status = r.status().data();
    if (auto uids = StatusIds(status, "Uid")) v.uids.assign(uids->begin(), uids->end());
    if (auto ns = StatusValue(status, "NSpid")) v.nspid = Numbers<std::int64_t>(*ns);
  }
  if (r.cgroup().err() == 0) {
    v.cgroup_ok = true;
    v.cgroup = r.cgroup().data();
  }
  v.exe = FromProto(r.exe());
  v.pid_ns = FromProto(r.pid_ns());
  return v;
}

}  // namespace

std::uint64_t ViewCost(const v1::ProcessRecord& r) {
  constexpr std::uint64_t kStringObject = sizeof(std::string);
  std::uint64_t cost = sizeof(ProcessView) + kViewOverheadBytes;
  // The stat's comm, its problem, the cgroup: at most their bytes each.
  cost += r.stat().data().size() + r.cgroup().data().size() + 64;
  if (r.cmdline().err() == 0) {
    const std::string& c = r.cmdline().data();
    const std::uint64_t elements =
        static_cast<std::uint64_t>(std::count(c.begin(), c.end(), '\0')) + 1;
    cost += c.size() + elements * kStringObject;
  }
  return cost;
}

std::vector<ProcessView> ProcessTable(const v1::Frame& frame, std::uint64_t limit) {
  // The records are ordered and the duplicates dropped by position before
  // any view is built: a frame of a million records of one pid makes one
  // view, not a million (docs/format.md section 7, "What the views hold").
  const auto& records = frame.processes();
  std::vector<int> order(static_cast<std::size_t>(records.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return records[a].pid() < records[b].pid(); });
  order.erase(std::unique(order.begin(), order.end(),
                          [&](int a, int b) { return records[a].pid() == records[b].pid(); }),
              order.end());
  std::uint64_t cost = 0;
  for (int i : order) cost += ViewCost(records[i]);
  if (cost > limit) {
    throw ViewTooLarge("frame " + std::to_string(frame.index()) + ": its " +
                       std::to_string(order.size()) + " processes' views (" + std::to_string(cost) +
                       " bytes) would take what a view holds past " + std::to_string(limit) +
                       " bytes (the views' limit, docs/format.md section 7)");
  }
  std::vector<ProcessView> table;
  table.reserve(order.size());
  for (int i : order) table.push_back(View(records[i]));
  return table;
}

std::map<std::int64_t, std::size_t> IndexByPid(const std::vector<ProcessView>& table) {
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < table.size(); ++i) index.emplace(table[i].pid, i);
  return index;
}

}  // namespace proctape
