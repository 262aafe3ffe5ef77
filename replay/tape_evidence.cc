#include "replay/tape_evidence.h"

#include <cerrno>
#include <limits>

#include "core/proc_parse.h"

namespace proctape {
namespace {

// After a divergence the clock reads here: past every deadline, without
// overflowing a deadline check.
constexpr std::int64_t kAfterDivergence = std::numeric_limits<std::int64_t>::max() / 2;

std::string FileName(v1::ProcFile file) {
  return std::string(ProcFileName(static_cast<ProcFile>(file)));
}

// The call of an observation, without its result: what must match.
v1::Observation CallOnly(const v1::Observation& o) {
  v1::Observation call;
  switch (o.call_case()) {
    case v1::Observation::kListPids:
      call.mutable_list_pids()->set_bound(o.list_pids().bound());
      break;
    case v1::Observation::kReadFile:
      call.mutable_read_file()->set_pid(o.read_file().pid());
      call.mutable_read_file()->set_file(o.read_file().file());
      call.mutable_read_file()->mutable_result()->set_bound(o.read_file().result().bound());
      break;
    case v1::Observation::kExeIdentity:
      call.mutable_exe_identity()->set_pid(o.exe_identity().pid());
      break;
    case v1::Observation::kPathIdentity:
      call.mutable_path_identity()->set_path(o.path_identity().path());
      break;
    case v1::Observation::kNow:
      call.mutable_now();
      break;
    case v1::Observation::kSleepUntil:
      call.mutable_sleep_until()->set_until_ns(o.sleep_until().until_ns());
      break;
    case v1::Observation::CALL_NOT_SET:
      break;
  }
  return call;
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

TapeEvidence::TapeEvidence(const std::vector<v1::Observation>& tape, std::uint64_t first,
                           std::uint64_t count)
    : tape_(tape),
      first_(first < tape.size() ? first : tape.size()),
      end_(first_ + (count < tape.size() - first_ ? count : tape.size() - first_)),
      next_(first_) {}

const v1::Observation* TapeEvidence::Take(const v1::Observation& made) {
  if (diverged_) return nullptr;
  if (next_ < end_) {
    const v1::Observation& recorded = tape_[next_];
    v1::Observation expected = CallOnly(recorded);
    if (expected.SerializeAsString() == made.SerializeAsString()) {
      ++next_;
      return &recorded;
    }
    divergence_ = Divergence{next_ - first_, DescribeCall(recorded), DescribeCall(made)};
  } else {
    divergence_ = Divergence{next_ - first_, "end of tape", DescribeCall(made)};
  }
  diverged_ = true;
  return nullptr;
}

ListResult TapeEvidence::ListPids(std::uint64_t bound) {
  v1::Observation made;
  made.mutable_list_pids()->set_bound(bound);
  const v1::Observation* o = Take(made);
  if (o == nullptr) return ListResult{EIO, {}, false};
  ListResult out;
  out.err = o->list_pids().err();
  out.truncated = o->list_pids().truncated();
  out.names.assign(o->list_pids().names().begin(), o->list_pids().names().end());
  return out;
}

ReadResult TapeEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  v1::Observation made;
  made.mutable_read_file()->set_pid(pid);
  made.mutable_read_file()->set_file(static_cast<v1::ProcFile>(static_cast<int>(file)));
  made.mutable_read_file()->mutable_result()->set_bound(bound);
  const v1::Observation* o = Take(made);
  if (o == nullptr) return ReadResult{EIO, {}, false};
  const v1::FileRead& r = o->read_file().result();
  return ReadResult{r.err(), r.data(), r.truncated()};
}

Identity TapeEvidence::ExeIdentity(std::int64_t pid) {
  v1::Observation made;
  made.mutable_exe_identity()->set_pid(pid);
  const v1::Observation* o = Take(made);
  if (o == nullptr) return Identity{EIO, 0, 0};
  const v1::FileIdentity& id = o->exe_identity().result();
  return Identity{id.err(), id.dev(), id.ino()};
}

Identity TapeEvidence::PathIdentity(const std::string& path) {
  v1::Observation made;
  made.mutable_path_identity()->set_path(path);
  const v1::Observation* o = Take(made);
  if (o == nullptr) return Identity{EIO, 0, 0};
  const v1::FileIdentity& id = o->path_identity().result();
  return Identity{id.err(), id.dev(), id.ino()};
}

std::int64_t TapeEvidence::NowNs() {
  v1::Observation made;
  made.mutable_now();
  const v1::Observation* o = Take(made);
  if (o == nullptr) return kAfterDivergence;
  last_now_ = o->now().result_ns();
  return last_now_;
}

void TapeEvidence::SleepUntil(std::int64_t mono_ns) {
  v1::Observation made;
  made.mutable_sleep_until()->set_until_ns(mono_ns);
  Take(made);  // virtual: returns at once
}

}  // namespace proctape
