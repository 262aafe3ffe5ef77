// SPDX-License-Identifier: Apache-2.0
#include "explore/model_evidence.h"

#include <cerrno>
#include <limits>

#include "core/checked.h"

namespace proctape::explore {
namespace {

constexpr std::int64_t kStoppedClock = std::numeric_limits<std::int64_t>::max() / 2;

std::uint64_t Mix(std::uint64_t h, std::int64_t v) {
  return Mix64(h, static_cast<std::uint64_t>(v));
}

}  // namespace

ModelEvidence::ModelEvidence(HostModel* model, const EventContext* ctx, const History* history,
                             std::int64_t scan_ns)
    : model_(model), ctx_(ctx), history_(history), scan_ns_(scan_ns), now_(ctx->start_ns) {
  for (const Scheduled& s : *history_) {
    if (IsExec(s.event.kind) && !ApplyExecBegin(s.event, *ctx_, model_)) ++failed_;
  }
}

void ModelEvidence::SetAttestedPath(std::string path, Identity identity) {
  attested_path_ = std::move(path);
  attested_ = identity;
}

PidReads ModelEvidence::ReadsOf(std::int64_t pid) const {
  PidReads out;
  out.listing = listing_;
  for (const PidRead& r : reads_) {
    if (r.pid != pid) continue;
    out.points.push_back(r.point);
    if (r.stat) out.last_stat = r.point;
  }
  return out;
}

bool ModelEvidence::Point(CallKey key) {
  if (stopped_) return false;
  if (calls_ >= kMaxRunCalls) {
    cut_ = true;
    stopped_ = true;
    now_ = kStoppedClock;
    return false;
  }
  if (keep_calls) calls_made_.push_back(key);
  std::uint64_t k = calls_;
  if (original != nullptr) {
    while (cursor_ < original->size() && !((*original)[cursor_] == key)) ++cursor_;
    if (cursor_ == original->size()) {
      mismatched_ = true;
      stopped_ = true;
      now_ = kStoppedClock;
      return false;
    }
    k = cursor_++;
  }
  while (next_event_ < history_->size() && (*history_)[next_event_].point <= k) {
    if (!Apply((*history_)[next_event_].event, *ctx_, model_, &now_)) ++failed_;
    applied_at_.push_back(calls_);
    ++next_event_;
  }
  if (at_point && !at_point(k)) {
    stopped_ = true;
    now_ = kStoppedClock;
    return false;
  }
  return true;
}

void ModelEvidence::Answered(std::uint64_t h) {
  ++calls_;
  answers_ = Mix(answers_, static_cast<std::int64_t>(h));
  if (keep_answers) answer_hashes_.push_back(h);
}

ListResult ModelEvidence::ListPids(std::uint64_t bound) {
  ListResult out;
  if (!Point({1, 0, 0})) {
    ++calls_;
    out.err = EIO;
    return out;
  }
  listing_ = calls_;
  reads_.clear();
  const std::vector<std::int64_t>& pids = model_->listing();
  const std::size_t listed = static_cast<std::size_t>(std::min<std::uint64_t>(pids.size(), bound));
  names_.clear();
  std::uint64_t h = Mix(kFnvStart, 1);
  for (std::size_t i = 0; i < listed; ++i) {
    names_.push_back(std::to_string(pids[i]));
    h = Mix(h, pids[i]);
  }
  out.names.assign(names_.begin(), names_.end());
  names_listed_ += listed;
  out.truncated = pids.size() > bound || model_->cut_by_bounds();
  h = Mix(h, out.truncated ? 1 : 0);
  now_ = SaturatingAdd(now_, scan_ns_);
  Answered(h);
  return out;
}

ReadResult ModelEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  if (!Point({2, pid, static_cast<int>(file)})) {
    ++calls_;
    return ReadResult{EIO, {}, false};
  }
  reads_.push_back(PidRead{calls_, pid, file == ProcFile::kStat});
  ReadResult out{ENOENT, {}, false};
  const ModelProcess* p = model_->Find(pid);
  const std::optional<StoredRead>* read = p == nullptr ? nullptr : p->File(file);
  if (read != nullptr && read->has_value()) {
    const StoredRead& r = **read;
    out.err = r.err;
    if (r.ok()) {
      std::string_view data = r.data;
      out.truncated = r.truncated;
      if (data.size() > bound) {
        data = data.substr(0, static_cast<std::size_t>(bound));
        out.truncated = true;
      }
      // Copied: an event at the next call may change or remove the
      // process, and the resolver parses a read after its deadline check
      // (a NowNs call): like MemoryEvidence, a read's bytes stay valid until
      // the next read.
      read_.assign(data);
      out.data = read_;
    }
  }
  std::uint64_t h = Mix(Mix(Mix(kFnvStart, 2), pid), static_cast<int>(file));
  h = Mix(Mix(h, out.err), out.truncated ? 1 : 0);
  // The whole file: its bytes' hash as the model keeps it (HashBytes of them).
  const bool whole = read != nullptr && read->has_value() && (*read)->ok() &&
                     out.data.size() == (*read)->data.size();
  h = whole ? Mix64(h, p->bytes_hash[static_cast<std::size_t>(file) - 1]) : HashBytes(h, out.data);
  Answered(h);
  return out;
}

Identity ModelEvidence::ExeIdentity(std::int64_t pid) {
  if (!Point({3, pid, 0})) {
    ++calls_;
    return Identity{EIO, 0, 0};
  }
  reads_.push_back(PidRead{calls_, pid, false});
  const ModelProcess* p = model_->Find(pid);
  Identity out = p != nullptr && p->exe ? *p->exe : Identity{ENOENT, 0, 0};
  std::uint64_t h = Mix(Mix(Mix(kFnvStart, 3), pid), out.err);
  h = Mix(Mix(h, static_cast<std::int64_t>(out.dev)), static_cast<std::int64_t>(out.ino));
  Answered(h);
  return out;
}

Identity ModelEvidence::PathIdentity(const std::string& path) {
  if (!Point({4, 0, 0})) {
    ++calls_;
    return Identity{EIO, 0, 0};
  }
  Identity out = attested_path_ && *attested_path_ == path ? attested_ : Identity{ENOENT, 0, 0};
  Answered(Mix(Mix(kFnvStart, 4), out.err));
  return out;
}

std::int64_t ModelEvidence::NowNs() {
  if (!Point({5, 0, 0})) {
    ++calls_;
    return now_;
  }
  Answered(Mix(Mix(kFnvStart, 5), now_));
  return now_;
}

void ModelEvidence::SleepUntil(std::int64_t mono_ns) {
  if (!Point({6, 0, 0})) {
    ++calls_;
    return;
  }
  if (mono_ns > now_) now_ = mono_ns;
  Answered(Mix(Mix(kFnvStart, 6), mono_ns));
}

}  // namespace proctape::explore
