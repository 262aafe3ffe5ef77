// SPDX-License-Identifier: Apache-2.0
#include "replay/tape_evidence.h"

#include <cerrno>

#include "core/proc_parse.h"

namespace proctape {
namespace {

std::string FileName(v1::ProcFile file) {
  return std::string(ProcFileName(static_cast<ProcFile>(file)));
}

}  // namespace

std::string DescribeCall(const v1::Observation& o) {
  switch (o.call_case()) {
    case v1::Observation::kListPids:
      return "ListPids(bound " + std::to_string(o.list_pids().bound()) + ")";
    case v1::Observation::kReadFile:
      return "ReadFile(pid " + std::to_string(o.read_file().pid()) + ", " +
             FileName(o.read_file().file()) + ", bound " +
             std::to_string(o.read_file().result().bound()) + ")";
    case v1::Observation::kExeIdentity:
      return "ExeIdentity(pid " + std::to_string(o.exe_identity().pid()) + ")";
    case v1::Observation::kPathIdentity:
      return "PathIdentity(" + EscapeBytes(o.path_identity().path()) + ")";
    case v1::Observation::kNow: return "Now()";
    case v1::Observation::kSleepUntil:
      return "SleepUntil(" + std::to_string(o.sleep_until().until_ns()) + ")";
    case v1::Observation::CALL_NOT_SET: break;
  }
  return "an empty observation";
}

const Tape& TapeOf(const Snapshot& snapshot, Tape* scratch) {
  if (snapshot.observations.empty()) return snapshot.tape;
  *scratch = Tape();
  for (const v1::Observation& o : snapshot.observations) scratch->Add(o);
  scratch->Seal();
  return *scratch;
}

TapeEvidence::TapeEvidence(const Tape& tape, std::uint64_t first, std::uint64_t count)
    : tape_(tape),
      first_(first < tape.size() ? first : tape.size()),
      end_(first_ + (count < tape.size() - first_ ? count : tape.size() - first_)),
      next_(first_) {}

namespace {

std::shared_ptr<const Tape> Compact(const std::vector<v1::Observation>& observations) {
  auto tape = std::make_shared<Tape>();
  for (const v1::Observation& o : observations) tape->Add(o);
  tape->Seal();
  return tape;
}

}  // namespace

TapeEvidence::TapeEvidence(const std::vector<v1::Observation>& tape, std::uint64_t first,
                           std::uint64_t count)
    : owned_(Compact(tape)),
      tape_(*owned_),
      first_(first < tape_.size() ? first : tape_.size()),
      end_(first_ + (count < tape_.size() - first_ ? count : tape_.size() - first_)),
      next_(first_) {}

bool TapeEvidence::Matches(const Tape::Call& o, const Call& c) const {
  if (o.kind != static_cast<std::uint8_t>(c.kind)) return false;
  switch (c.kind) {
    case v1::Observation::kListPids: return o.bound == c.bound;
    case v1::Observation::kReadFile:
      return o.arg == c.pid && o.file == c.file && o.bound == c.bound;
    case v1::Observation::kExeIdentity: return o.arg == c.pid;
    case v1::Observation::kPathIdentity: return tape_.path(o) == *c.path;
    case v1::Observation::kNow: return true;
    case v1::Observation::kSleepUntil: return o.arg == c.until_ns;
    case v1::Observation::CALL_NOT_SET: return false;
  }
  return false;
}

v1::Observation TapeEvidence::ToObservation(const Call& c) {
  v1::Observation o;
  switch (c.kind) {
    case v1::Observation::kListPids: o.mutable_list_pids()->set_bound(c.bound); break;
    case v1::Observation::kReadFile:
      o.mutable_read_file()->set_pid(c.pid);
      o.mutable_read_file()->set_file(static_cast<v1::ProcFile>(c.file));
      o.mutable_read_file()->mutable_result()->set_bound(c.bound);
      break;
    case v1::Observation::kExeIdentity: o.mutable_exe_identity()->set_pid(c.pid); break;
    case v1::Observation::kPathIdentity: o.mutable_path_identity()->set_path(*c.path); break;
    case v1::Observation::kNow: o.mutable_now(); break;
    case v1::Observation::kSleepUntil: o.mutable_sleep_until()->set_until_ns(c.until_ns); break;
    case v1::Observation::CALL_NOT_SET: break;
  }
  return o;
}

const Tape::Call* TapeEvidence::Take(const Call& call) {
  if (diverged_) return nullptr;
  if (next_ < end_ && Matches(tape_.call(next_), call)) return &tape_.call(next_++);
  std::string recorded = next_ < end_ ? DescribeCall(tape_.Observation(next_)) : "end of tape";
  divergence_ = Divergence{next_ - first_, recorded, DescribeCall(ToObservation(call))};
  diverged_ = true;
  return nullptr;
}

ListResult TapeEvidence::ListPids(std::uint64_t bound) {
  const Tape::Call* o = Take(Call{v1::Observation::kListPids, 0, 0, bound});
  if (o == nullptr) return ListResult{EIO, {}, false};
  const Tape::ListResult& r = tape_.list_result(*o);
  // Views into the tape, valid while it lives (core/evidence.h: until the next call).
  ListResult out{r.err, {}, r.truncated};
  out.names.assign(r.names.begin(), r.names.end());
  out.bytes = r.bytes;
  out.stopped = r.stopped_at_bytes      ? ListStop::kBytes
                : r.stopped_at_deadline ? ListStop::kDeadline
                                        : ListStop::kNone;
  return out;
}

ReadResult TapeEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  const Tape::Call* o = Take(Call{v1::Observation::kReadFile, pid, static_cast<int>(file), bound});
  if (o == nullptr) return ReadResult{EIO, {}, false};
  const Tape::FileResult& r = tape_.file_result(*o);
  if (file == ProcFile::kEnviron && question_ != nullptr && r.err == 0 &&
      !question_->Answers(r.data, r.redacted)) {
    // On the tape, but as stars where the request needs the value: a
    // divergence at that observation, which is not consumed.
    --next_;
    const std::string call = DescribeCall(tape_.Observation(next_));
    divergence_ = Divergence{next_ - first_, call + " with its values redacted", call,
                             v1::UNANSWERED_REDACTED};
    diverged_ = true;
    return ReadResult{EIO, {}, false};
  }
  return ReadResult{r.err, r.data, r.truncated};
}

Identity TapeEvidence::ExeIdentity(std::int64_t pid) {
  const Tape::Call* o = Take(Call{v1::Observation::kExeIdentity, pid});
  if (o == nullptr) return Identity{EIO, 0, 0};
  const v1::FileIdentity& id = tape_.identity_result(*o).identity;
  return Identity{id.err(), id.dev(), id.ino()};
}

Identity TapeEvidence::PathIdentity(const std::string& path) {
  Call call{v1::Observation::kPathIdentity};
  call.path = &path;
  const Tape::Call* o = Take(call);
  if (o == nullptr) return Identity{EIO, 0, 0};
  const v1::FileIdentity& id = tape_.identity_result(*o).identity;
  return Identity{id.err(), id.dev(), id.ino()};
}

std::int64_t TapeEvidence::NowNs() {
  const Tape::Call* o = Take(Call{v1::Observation::kNow});
  if (o == nullptr) return kClockAfterDivergence;
  last_now_ = o->arg;
  return last_now_;
}

void TapeEvidence::SleepUntil(std::int64_t mono_ns) {
  Call call{v1::Observation::kSleepUntil};
  call.until_ns = mono_ns;
  Take(call);  // virtual: returns at once
}

}  // namespace proctape
