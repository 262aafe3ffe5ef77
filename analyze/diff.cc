// SPDX-License-Identifier: Apache-2.0
#include "analyze/diff.h"

#include <map>
#include <vector>

#include "analyze/process_table.h"
#include "analyze/scope.h"
#include "replay/token_mask.h"
#include "analyze/tree.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "proto/summary.h"

namespace proctape {
namespace {

using Kind = v1::DiffReport::Change;

// "214 \"unshare\"" for the parent pid in `table`, or "214 (not in the frame)".
std::string ParentText(std::int64_t ppid, const std::vector<ProcessView>& table,
                       const std::map<std::int64_t, std::size_t>& index) {
  auto it = index.find(ppid);
  if (it == index.end()) return std::to_string(ppid) + " (not in the frame)";
  const ProcessView& p = table[it->second];
  if (!p.stat) return std::to_string(ppid) + " (no identity)";
  return IdentityText(ppid, p.start_ticks()) + " " +
         Quoted(EscapeBytes(p.stat->comm, p.stat->comm.size()));
}

std::string BootText(const std::string& boot_id) { return EscapeBytes(BootIdLine(boot_id)); }

}  // namespace

std::optional<v1::DiffReport> BuildDiff(const DiffSide& a, const DiffSide& b, Failure* failure,
                                        const ProcessFilter& filter) {
  for (const DiffSide* side : {&a, &b}) {
    if (side->frame >= side->snapshot->frames.size()) {
      *failure = Failure(FailureKind::kUsage,
                         NoSuchFrameIn(side->option, side->frame, side->name, *side->snapshot));
      return std::nullopt;
    }
  }
  v1::DiffReport report;
  report.set_file_a(a.name);
  report.set_frame_a(Count32(a.frame));
  report.set_file_b(b.name);
  report.set_frame_b(Count32(b.frame));

  const std::string& boot_a = a.snapshot->header.host().boot_id();
  const std::string& boot_b = b.snapshot->header.host().boot_id();
  if (boot_a.empty() || boot_b.empty()) {
    report.add_warnings("the boot id of " + (boot_a.empty() ? a.name : b.name) +
                        " is unknown: start ticks may count from different boots");
  } else if (boot_a != boot_b) {
    report.set_different_boots(true);
    report.add_warnings(a.name + " (boot " + BootText(boot_a) + ") and " + b.name + " (boot " +
                        BootText(boot_b) +
                        ") are of different boots: start ticks count from each boot, so "
                        "(pid, start tick) identities cannot be compared");
  }

  const std::vector<ProcessView> ta = ProcessTable(a.snapshot->frames[a.frame]);
  const std::vector<ProcessView> tb = ProcessTable(b.snapshot->frames[b.frame]);
  const std::map<std::int64_t, std::size_t> ia = IndexByPid(ta);
  const std::map<std::int64_t, std::size_t> ib = IndexByPid(tb);
  const std::int64_t hz_a = a.snapshot->header.host().clock_ticks_per_second();
  const std::int64_t hz_b = b.snapshot->header.host().clock_ticks_per_second();
  report.set_processes_a(Count32(ta.size()));
  report.set_processes_b(Count32(tb.size()));

  // A process absent from a frame whose scope does not cover it is outside
  // that scope, not exited (or appeared).
  const FrameScope scope_a = ScopeOf(*a.snapshot, a.snapshot->frames[a.frame]);
  const FrameScope scope_b = ScopeOf(*b.snapshot, b.snapshot->frames[b.frame]);
  report.set_scope_a(ScopeText(scope_a));
  report.set_scope_b(ScopeText(scope_b));
  // Said when the scopes differ; within one subtree scope each process
  // that left it says why on its own line.
  if (!(scope_a == scope_b)) {
    report.add_warnings("A holds " + report.scope_a() + "; B holds " + report.scope_b() +
                        ": a process absent from a frame that could not hold it is outside "
                        "its scope, not exited or appeared");
  }

  std::map<Kind::Kind, std::vector<Kind>> by_kind;
  auto add = [&](Kind::Kind kind, std::int64_t pid, const ProcessView* before,
                 const ProcessView* after) -> Kind& {
    Kind& c = by_kind[kind].emplace_back();
    c.set_kind(kind);
    c.set_pid(Int32(pid));
    if (before != nullptr) *c.mutable_before() = Summarize(*before, hz_a);
    if (after != nullptr) *c.mutable_after() = Summarize(*after, hz_b);
    return c;
  };

  // Both tables are in pid order: walk them together.
  std::uint32_t selected_a = 0, selected_b = 0;
  std::size_t i = 0, j = 0;
  while (i < ta.size() || j < tb.size()) {
    const ProcessView* pa = i < ta.size() ? &ta[i] : nullptr;
    const ProcessView* pb = j < tb.size() ? &tb[j] : nullptr;
    if (pa != nullptr && pb != nullptr && pa->pid != pb->pid) {
      if (pa->pid < pb->pid) {
        pb = nullptr;
      } else {
        pa = nullptr;
      }
    }
    if (pa != nullptr) ++i;
    if (pb != nullptr) ++j;
    if (filter.any()) {
      // Compared when the filter selects it in A or in B.
      const bool in_a = pa != nullptr && Selects(filter, *pa);
      const bool in_b = pb != nullptr && Selects(filter, *pb);
      selected_a += in_a ? 1 : 0;
      selected_b += in_b ? 1 : 0;
      if (!in_a && !in_b) continue;
    }
    const std::int64_t pid = pa != nullptr ? pa->pid : pb->pid;
    if ((pa != nullptr && !pa->has_identity()) || (pb != nullptr && !pb->has_identity())) {
      add(Kind::UNIDENTIFIED, pid, pa, pb);
    } else if (pb == nullptr) {
      if (auto why = Uncovered(scope_b, *pa, ta, ia, &tb, &ib)) {
        add(Kind::OUT_OF_SCOPE, pid, pa, nullptr).set_scope("not in B: " + *why);
      } else {
        add(Kind::EXITED, pid, pa, nullptr);
      }
    } else if (pa == nullptr) {
      if (auto why = Uncovered(scope_a, *pb, tb, ib)) {
        add(Kind::OUT_OF_SCOPE, pid, nullptr, pb).set_scope("not in A: " + *why);
      } else {
        add(Kind::APPEARED, pid, nullptr, pb);
      }
    } else if (pa->start_ticks() != pb->start_ticks()) {
      add(Kind::REUSED, pid, pa, pb);
    } else {
      bool changed = false;
      if (pa->ppid() != pb->ppid()) {
        Kind& c = add(Kind::REPARENTED, pid, pa, pb);
        c.set_parent_before(ParentText(pa->ppid(), ta, ia));
        c.set_parent_after(ParentText(pb->ppid(), tb, ib));
        changed = true;
      }
      if (pa->cmdline_ok != pb->cmdline_ok || pa->argv != pb->argv) {
        add(Kind::ARGV_CHANGED, pid, pa, pb);
        changed = true;
      }
      if (!(pa->exe == pb->exe)) {
        add(Kind::EXE_CHANGED, pid, pa, pb);
        changed = true;
      }
      if (!changed) report.set_unchanged(report.unchanged() + 1);
    }
  }
  for (auto& [kind, changes] : by_kind) {
    for (Kind& c : changes) *report.add_changes() = std::move(c);
  }
  report.set_reused(Count32(by_kind[Kind::REUSED].size()));
  report.set_exited(Count32(by_kind[Kind::EXITED].size()));
  report.set_appeared(Count32(by_kind[Kind::APPEARED].size()));
  report.set_reparented(Count32(by_kind[Kind::REPARENTED].size()));
  report.set_argv_changed(Count32(by_kind[Kind::ARGV_CHANGED].size()));
  report.set_exe_changed(Count32(by_kind[Kind::EXE_CHANGED].size()));
  report.set_unidentified(Count32(by_kind[Kind::UNIDENTIFIED].size()));
  report.set_out_of_scope(Count32(by_kind[Kind::OUT_OF_SCOPE].size()));
  if (filter.any()) {
    *report.mutable_filter() = FilterMessage(filter);
    report.set_selected_a(selected_a);
    report.set_selected_b(selected_b);
  }
  // The tokens of both files: argv and comm may hold them.
  TokenMask mask = TokenMask::Of(*a.snapshot);
  mask.Add(TokenMask::Of(*b.snapshot));
  mask.Mask(&report);
  return report;
}

namespace {

// `215@1310656 "sleep"`.
std::string Who(const v1::ProcessSummary& p) {
  return IdentityText(p.pid(), p.start_ticks()) + " " + Quoted(p.comm());
}

std::string Side(const char* label, bool present, const v1::ProcessSummary& p) {
  if (!present) return std::string(label) + " absent";
  if (!p.identified()) return std::string(label) + " no identity (" + p.problem() + ")";
  return std::string(label) + " " + Who(p);
}

}  // namespace

std::string RenderDiff(const v1::DiffReport& r, bool all_out_of_scope) {
  std::string out;
  if (r.file_a() == r.file_b()) {
    out = r.file_a() + ": frame " + std::to_string(r.frame_a()) + " -> frame " +
          std::to_string(r.frame_b());
  } else {
    out = r.file_a() + " frame " + std::to_string(r.frame_a()) + " -> " + r.file_b() + " frame " +
          std::to_string(r.frame_b());
  }
  out += ", " + std::to_string(r.processes_a()) + " -> " +
         Plural(r.processes_b(), "process", "processes") + "\n";
  if (r.has_filter()) {
    out += "filter " + FilterText(r.filter()) + ": " + std::to_string(r.selected_a()) + " -> " +
           Plural(r.selected_b(), "process", "processes") + " selected\n";
  }
  if (r.scope_a() != r.scope_b() || r.scope_a() != "the whole host") {
    out += "scope: A holds " + r.scope_a() + "; B holds " + r.scope_b() + "\n";
  }
  for (const v1::DiffReport::Change& c : r.changes()) {
    const v1::ProcessSummary& a = c.before();
    const v1::ProcessSummary& b = c.after();
    switch (c.kind()) {
      case Kind::REUSED:
        out += "reused       " + std::to_string(c.pid()) + ": " +
               IdentityText(a.pid(), a.start_ticks()) + " ended, " +
               IdentityText(b.pid(), b.start_ticks()) + " took its pid\n";
        out += "  - " + std::to_string(a.pid()) + " " + ProcessFacts(a) + "\n";
        out += "  + " + std::to_string(b.pid()) + " " + ProcessFacts(b) + "\n";
        break;
      case Kind::EXITED:
        out += "exited       " + std::to_string(a.pid()) + " " + ProcessFacts(a) + "\n";
        break;
      case Kind::APPEARED:
        out += "appeared     " + std::to_string(b.pid()) + " " + ProcessFacts(b) + "\n";
        break;
      case Kind::REPARENTED:
        out += "reparented   " + Who(b) + ": parent " + c.parent_before() + " -> " +
               c.parent_after() + "\n";
        break;
      case Kind::ARGV_CHANGED:
        out += "argv         " + Who(b) + ": " + ArgvText(a) + " -> " + ArgvText(b) + "\n";
        break;
      case Kind::EXE_CHANGED:
        out +=
            "exe          " + Who(b) + ": " + ExeText(a.exe()) + " -> " + ExeText(b.exe()) + "\n";
        break;
      case Kind::OUT_OF_SCOPE:
        if (!all_out_of_scope) break;  // counted below, one line per side
        if (c.has_before()) {
          out += "outside B    " + std::to_string(a.pid()) + " " + ProcessFacts(a) + "\n";
        } else {
          out += "outside A    " + std::to_string(b.pid()) + " " + ProcessFacts(b) + "\n";
        }
        out += "  " + c.scope() + "\n";
        break;
      case Kind::UNIDENTIFIED:
        out += "unidentified " + std::to_string(c.pid()) + ": " + Side("A", c.has_before(), a) +
               "; " + Side("B", c.has_after(), b) + "\n";
        break;
      default: break;
    }
  }
  if (!all_out_of_scope) {
    // "outside B    84 processes of A: not in B: it holds only ..."
    for (bool of_a : {true, false}) {
      std::uint64_t n = 0;
      const v1::DiffReport::Change* first = nullptr;
      for (const v1::DiffReport::Change& c : r.changes()) {
        if (c.kind() != Kind::OUT_OF_SCOPE || c.has_before() != of_a) continue;
        if (n++ == 0) first = &c;
      }
      if (n == 0) continue;
      out += std::string(of_a ? "outside B    " : "outside A    ") +
             Plural(n, "process", "processes") + " of " + (of_a ? "A" : "B") + ": " +
             first->scope() + " (--all lists them)\n";
    }
  }
  out += "summary: " + std::to_string(r.reused()) + " reused, " + std::to_string(r.exited()) +
         " exited, " + std::to_string(r.appeared()) + " appeared, " +
         std::to_string(r.reparented()) + " reparented, " + std::to_string(r.argv_changed()) +
         " argv changed, " + std::to_string(r.exe_changed()) + " exe changed, " +
         std::to_string(r.unidentified()) + " without identity; " + std::to_string(r.unchanged()) +
         " unchanged" +
         (r.out_of_scope() > 0
              ? "; " + std::to_string(r.out_of_scope()) + " outside the other frame's scope"
              : std::string()) +
         "\n";
  return out;
}

}  // namespace proctape
