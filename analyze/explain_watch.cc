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
  s.list.names.assign(list.names.begin(), list.names.end());
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

}  // namespace proctape::explain
