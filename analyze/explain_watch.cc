// SPDX-License-Identifier: Apache-2.0
#include "analyze/explain_watch.h"

#include <cerrno>
#include <string>
#include <utility>

#include "core/proc_parse.h"
#include "proto/summary.h"

namespace proctape::explain {
namespace {

Seen Call(Seen::Op op, std::int64_t pid = 0, ProcFile file = ProcFile::kStat) {
  Seen s;
  s.op = op;
  s.pid = pid;
  s.file = file;
  return s;
}

}  // namespace

bool Vanished(int err) { return err == ENOENT || err == ESRCH; }

ListResult WatchingEvidence::ListPids(std::uint64_t bound) {
  Seen s = Call(Seen::Op::kList);
  ListResult list = tape_.ListPids(bound);
  s.list.err = list.err;
  s.list.listed = list.names.size();
  s.list.truncated = list.truncated;
  s.list.stopped = list.stopped;
  Keep(std::move(s));
  return list;
}

ReadResult WatchingEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  Seen s = Call(Seen::Op::kRead, pid, file);
  ReadResult read = tape_.ReadFile(pid, file, bound);
  s.read = StoredRead(read);
  Keep(std::move(s));
  return read;
}

Identity WatchingEvidence::ExeIdentity(std::int64_t pid) {
  Seen s = Call(Seen::Op::kExe, pid, ProcFile::kExe);
  s.identity = tape_.ExeIdentity(pid);
  Identity identity = s.identity;
  Keep(std::move(s));
  return identity;
}

Identity WatchingEvidence::PathIdentity(const std::string& path) {
  Seen s = Call(Seen::Op::kPath);
  s.identity = tape_.PathIdentity(path);
  Identity identity = s.identity;
  Keep(std::move(s));
  return identity;
}

std::int64_t WatchingEvidence::NowNs() {
  Seen s = Call(Seen::Op::kNow);
  s.ns = tape_.NowNs();
  const std::int64_t ns = s.ns;
  Keep(std::move(s));
  return ns;
}

void WatchingEvidence::SleepUntil(std::int64_t mono_ns) {
  Seen s = Call(Seen::Op::kSleep);
  s.ns = mono_ns;
  tape_.SleepUntil(mono_ns);
  Keep(std::move(s));
}

void WatchingEvidence::Keep(Seen s) {
  if (tape_.diverged()) {
    if (!unheld_) unheld_ = std::move(s);
    return;
  }
  s.index = tape_.consumed() - 1;
  told_(std::move(s));
}

bool ScannedBefore(const Seen& asked) {
  return asked.op == Seen::Op::kSleep ||
         (asked.op == Seen::Op::kRead && asked.file == ProcFile::kCmdline);
}

bool MovedOn(const Seen& asked, std::int64_t pid) {
  switch (asked.op) {
    case Seen::Op::kSleep:
    case Seen::Op::kList: return true;
    case Seen::Op::kExe: return asked.pid != pid;
    case Seen::Op::kRead: return asked.file == ProcFile::kCmdline && asked.pid != pid;
    default: return false;
  }
}

v1::ExplainStat StatOf(std::int64_t pid, const ReadResult& r) {
  v1::ExplainStat s;
  s.set_pid(Int32(pid));
  s.set_err(r.err);
  s.set_truncated(r.truncated);
  if (!r.ok() || r.truncated) return s;
  StatParse parsed = ParseStat(r.data);
  if (!parsed.ok()) {
    s.set_parse_error(parsed.error);
    return s;
  }
  if (parsed.fields->pid != pid) {
    s.set_parse_error("field 1 is " + std::to_string(parsed.fields->pid) +
                      ", not the directory's pid");
    return s;
  }
  s.set_parsed(true);
  s.set_comm(EscapedText(parsed.fields->comm));
  s.set_state(EscapedText(std::string(1, parsed.fields->state)));
  s.set_ppid(Int32(parsed.fields->ppid));
  s.set_start_ticks(parsed.fields->start_ticks);
  return s;
}

bool ScanRecords::Add(std::size_t j) {
  const Seen& c = calls_[j];
  const ReadResult r = c.read.view();
  if (!r.ok() || r.truncated) return false;
  const StatViewParse parsed = ParseStatView(r.data);
  if (!parsed.ok() || parsed.fields.pid != c.pid) return false;
  return at_.emplace(c.pid, Scan{j, parsed.fields.ppid}).second;
}

const v1::ExplainStat* ScanRecords::Stat(std::int64_t pid) {
  auto scanned = at_.find(pid);
  if (scanned == at_.end()) return nullptr;
  auto [told, fresh] = told_.try_emplace(pid);
  if (fresh) told->second = StatOf(pid, calls_[scanned->second.call].read.view());
  return &told->second;
}

void TellTree(const Request& request, ScanRecords& scanned, const std::vector<std::int64_t>& order,
              v1::ExplainAttempt* a) {
  const v1::ExplainStat* root = scanned.Stat(request.root_pid);
  if (root == nullptr) return;
  a->set_root_seen(true);
  *a->mutable_root() = *root;
  if (root->start_ticks() != request.root_start_ticks) return;
  // Whether each scanned pid's parent chain reaches the root: every pid is
  // decided once (its whole unknown chain with it), so a 60,000-deep chain
  // costs 60,000 steps, not 60,000 walks of up to 60,000 (`docs/format.md`,
  // "The frame model's work": every view linear, whatever the file's shape).
  // A chain that leaves the scanned records, or loops, does not reach it.
  enum class Beneath { kUnknown, kWalking, kYes, kNo };
  std::unordered_map<std::int64_t, Beneath> beneath;
  std::vector<std::int64_t> path;
  for (std::int64_t pid : order) {
    if (pid == request.root_pid) continue;
    path.clear();
    Beneath result = Beneath::kNo;
    for (std::int64_t at = pid;;) {
      Beneath& known = beneath[at];
      if (known == Beneath::kYes || known == Beneath::kNo) {
        result = known;
        break;
      }
      if (known == Beneath::kWalking) break;  // a loop: kNo
      known = Beneath::kWalking;
      path.push_back(at);
      const std::int64_t up = scanned.Parent(at);
      if (up == request.root_pid) {
        result = Beneath::kYes;
        break;
      }
      if (!scanned.Has(up)) break;  // leaves the records: kNo
      at = up;
    }
    for (std::int64_t walked : path) beneath[walked] = result;
    if (result == Beneath::kYes) a->add_beneath_root(Int32(pid));
  }
}

}  // namespace proctape::explain
