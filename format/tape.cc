// SPDX-License-Identifier: Apache-2.0
#include "format/tape.h"

#include "format/tape_calls.h"

namespace proctape {
namespace {

bool Same(const Tape::FileResult& a, const v1::Observation& o) {
  const v1::FileRead& r = o.read_file().result();
  return a.present == o.read_file().has_result() && a.err == r.err() &&
         a.truncated == r.truncated() && a.redacted == r.redacted() && a.data == r.data();
}

bool Same(const Tape::ListResult& a, const v1::Observation& o) {
  const auto& l = o.list_pids();
  if (a.err != l.err() || a.truncated != l.truncated() || a.bytes != l.bytes() ||
      a.stopped_at_bytes != l.stopped_at_bytes() ||
      a.stopped_at_deadline != l.stopped_at_deadline()) {
    return false;
  }
  if (a.names.size() != static_cast<std::size_t>(l.names_size())) return false;
  for (int i = 0; i < l.names_size(); ++i) {
    if (a.names[static_cast<std::size_t>(i)] != l.names(i)) return false;
  }
  return true;
}

bool Same(const Tape::IdentityResult& a, bool present, const v1::FileIdentity& id) {
  return a.present == present && a.identity.dev() == id.dev() && a.identity.ino() == id.ino() &&
         a.identity.err() == id.err() && a.identity.link_text() == id.link_text();
}

}  // namespace

void Tape::Add(const v1::Observation& o) {
  Call c;
  c.kind = static_cast<std::uint8_t>(o.call_case());
  CallKey key = SameAsKey(o);
  auto last = key.empty() ? last_.end() : last_.find(key);
  const bool has_last = last != last_.end();
  // "same as" (checked by the reader), or equal to the call's last result.
  bool shared = has_last && o.same_as() != 0;
  switch (o.call_case()) {
    case v1::Observation::kListPids:
      c.bound = o.list_pids().bound();
      if (!shared && has_last) shared = Same(lists_[last->second], o);
      if (!shared) {
        ListResult r;
        r.names.assign(o.list_pids().names().begin(), o.list_pids().names().end());
        r.err = o.list_pids().err();
        r.truncated = o.list_pids().truncated();
        r.bytes = o.list_pids().bytes();
        r.stopped_at_bytes = o.list_pids().stopped_at_bytes();
        r.stopped_at_deadline = o.list_pids().stopped_at_deadline();
        lists_.push_back(std::move(r));
      }
      break;
    case v1::Observation::kReadFile: {
      c.arg = o.read_file().pid();
      c.file = static_cast<std::uint8_t>(o.read_file().file());
      c.bound = o.read_file().result().bound();
      if (!shared && has_last) shared = Same(files_[last->second], o);
      if (!shared) {
        const v1::FileRead& r = o.read_file().result();
        files_.push_back(
            FileResult{r.data(), r.err(), r.truncated(), r.redacted(), o.read_file().has_result()});
      }
      break;
    }
    case v1::Observation::kExeIdentity:
    case v1::Observation::kPathIdentity: {
      const bool exe = o.call_case() == v1::Observation::kExeIdentity;
      const bool present = exe ? o.exe_identity().has_result() : o.path_identity().has_result();
      const v1::FileIdentity& id = exe ? o.exe_identity().result() : o.path_identity().result();
      if (exe) {
        c.arg = o.exe_identity().pid();
      } else {
        auto p = path_numbers_.try_emplace(o.path_identity().path(), paths_.size()).first;
        if (p->second == paths_.size()) paths_.push_back(o.path_identity().path());
        c.bound = p->second;
      }
      if (!shared && has_last) shared = Same(identities_[last->second], present, id);
      if (!shared) identities_.push_back(IdentityResult{id, present});
      break;
    }
    case v1::Observation::kNow: c.arg = o.now().result_ns(); break;
    case v1::Observation::kSleepUntil: c.arg = o.sleep_until().until_ns(); break;
    case v1::Observation::CALL_NOT_SET: break;
  }
  if (!key.empty()) {
    if (shared) {
      c.result = last->second;
    } else {
      const std::size_t n = o.call_case() == v1::Observation::kListPids   ? lists_.size()
                            : o.call_case() == v1::Observation::kReadFile ? files_.size()
                                                                          : identities_.size();
      c.result = static_cast<std::uint32_t>(n - 1);
      last_[std::move(key)] = c.result;
    }
  }
  calls_.push_back(c);
}

void Tape::Seal() {
  last_ = {};
  path_numbers_ = {};
}

v1::Observation Tape::Observation(std::size_t i) const {
  const Call& c = calls_[i];
  v1::Observation o;
  o.set_index(i);
  switch (static_cast<v1::Observation::CallCase>(c.kind)) {
    case v1::Observation::kListPids: {
      auto* l = o.mutable_list_pids();
      l->set_bound(c.bound);
      const ListResult& r = lists_[c.result];
      for (const std::string& n : r.names) l->add_names(n);
      l->set_err(r.err);
      l->set_truncated(r.truncated);
      l->set_bytes(r.bytes);
      l->set_stopped_at_bytes(r.stopped_at_bytes);
      l->set_stopped_at_deadline(r.stopped_at_deadline);
      break;
    }
    case v1::Observation::kReadFile: {
      auto* f = o.mutable_read_file();
      f->set_pid(c.arg);
      f->set_file(static_cast<v1::ProcFile>(c.file));
      const FileResult& r = files_[c.result];
      if (r.present || c.bound != 0) {
        auto* res = f->mutable_result();
        res->set_bound(c.bound);
        res->set_data(r.data);
        res->set_err(r.err);
        res->set_truncated(r.truncated);
        res->set_redacted(r.redacted);
      }
      break;
    }
    case v1::Observation::kExeIdentity: {
      o.mutable_exe_identity()->set_pid(c.arg);
      const IdentityResult& r = identities_[c.result];
      if (r.present) *o.mutable_exe_identity()->mutable_result() = r.identity;
      break;
    }
    case v1::Observation::kPathIdentity: {
      o.mutable_path_identity()->set_path(paths_[c.bound]);
      const IdentityResult& r = identities_[c.result];
      if (r.present) *o.mutable_path_identity()->mutable_result() = r.identity;
      break;
    }
    case v1::Observation::kNow: o.mutable_now()->set_result_ns(c.arg); break;
    case v1::Observation::kSleepUntil: o.mutable_sleep_until()->set_until_ns(c.arg); break;
    case v1::Observation::CALL_NOT_SET: break;
  }
  return o;
}

}  // namespace proctape
