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

std::vector<ProcessView> ProcessTable(const v1::Frame& frame) {
  std::vector<ProcessView> table;
  table.reserve(static_cast<std::size_t>(frame.processes_size()));
  for (const v1::ProcessRecord& r : frame.processes()) table.push_back(View(r));
  std::stable_sort(table.begin(), table.end(),
                   [](const ProcessView& a, const ProcessView& b) { return a.pid < b.pid; });
  table.erase(std::unique(table.begin(), table.end(),
                          [](const ProcessView& a, const ProcessView& b) { return a.pid == b.pid; }),
              table.end());
  return table;
}

std::map<std::int64_t, std::size_t> IndexByPid(const std::vector<ProcessView>& table) {
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < table.size(); ++i) index.emplace(table[i].pid, i);
  return index;
}

}  // namespace proctape
