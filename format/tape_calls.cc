// SPDX-License-Identifier: Apache-2.0
#include "format/tape_calls.h"

namespace proctape {
namespace {

std::string Presence(bool present, const google::protobuf::Message& result) {
  std::string out(1, present ? '1' : '0');
  result.AppendToString(&out);
  return out;
}

}  // namespace

CallKey SameAsKey(const v1::Observation& o) {
  CallKey key;
  switch (o.call_case()) {
    case v1::Observation::kListPids: key.bound = o.list_pids().bound(); break;
    case v1::Observation::kReadFile:
      key.pid = o.read_file().pid();
      key.file = static_cast<std::uint8_t>(o.read_file().file());
      key.bound = o.read_file().result().bound();
      break;
    case v1::Observation::kExeIdentity: key.pid = o.exe_identity().pid(); break;
    case v1::Observation::kPathIdentity: key.path = o.path_identity().path(); break;
    case v1::Observation::kNow:
    case v1::Observation::kSleepUntil:
    case v1::Observation::CALL_NOT_SET: return key;
  }
  key.kind = static_cast<std::uint8_t>(o.call_case());
  return key;
}

std::size_t CallKeyHash::operator()(const CallKey& k) const {
  // splitmix64's finalizer over the fields: pids and bounds are small and
  // close together, which the identity hash of std::hash<int64> keeps.
  auto mix = [](std::uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  };
  std::uint64_t h = mix(static_cast<std::uint64_t>(k.pid) ^ (std::uint64_t{k.kind} << 56) ^
                        (std::uint64_t{k.file} << 48));
  h = mix(h ^ k.bound);
  if (!k.path.empty()) h ^= std::hash<std::string>{}(k.path);
  return static_cast<std::size_t>(h);
}

std::string ResultBytes(const v1::Observation& o) {
  switch (o.call_case()) {
    case v1::Observation::kListPids: {
      v1::Observation::ListPids l = o.list_pids();
      l.clear_bound();
      return l.SerializeAsString();
    }
    // A present but empty result and an absent one serialize alike: the
    // first byte says which, so that the rebuild has the same presence.
    case v1::Observation::kReadFile:
      return Presence(o.read_file().has_result(), o.read_file().result());
    case v1::Observation::kExeIdentity:
      return Presence(o.exe_identity().has_result(), o.exe_identity().result());
    case v1::Observation::kPathIdentity:
      return Presence(o.path_identity().has_result(), o.path_identity().result());
    default: break;
  }
  return {};
}

std::uint64_t ResultSize(const v1::Observation& o) {
  switch (o.call_case()) {
    case v1::Observation::kReadFile: return 1 + o.read_file().result().ByteSizeLong();
    case v1::Observation::kExeIdentity: return 1 + o.exe_identity().result().ByteSizeLong();
    case v1::Observation::kPathIdentity: return 1 + o.path_identity().result().ByteSizeLong();
    default: break;
  }
  return ResultBytes(o).size();
}

bool HoldsResult(const v1::Observation& o) {
  switch (o.call_case()) {
    case v1::Observation::kListPids: {
      const auto& l = o.list_pids();
      return l.names_size() != 0 || l.err() != 0 || l.truncated() || l.bytes() != 0 ||
             l.stopped_at_bytes() || l.stopped_at_deadline();
    }
    case v1::Observation::kReadFile: {
      const v1::FileRead& r = o.read_file().result();
      return !r.data().empty() || r.err() != 0 || r.truncated() || r.blob() != 0 || r.redacted();
    }
    case v1::Observation::kExeIdentity: return o.exe_identity().has_result();
    case v1::Observation::kPathIdentity: return o.path_identity().has_result();
    default: break;
  }
  return false;
}

void ClearResult(v1::Observation* o) {
  switch (o->call_case()) {
    case v1::Observation::kListPids: {
      auto* l = o->mutable_list_pids();
      l->clear_names();
      l->clear_err();
      l->clear_truncated();
      l->clear_bytes();
      l->clear_stopped_at_bytes();
      l->clear_stopped_at_deadline();
      break;
    }
    case v1::Observation::kReadFile: {
      if (!o->read_file().has_result()) break;
      const std::uint64_t bound = o->read_file().result().bound();
      o->mutable_read_file()->mutable_result()->Clear();
      o->mutable_read_file()->mutable_result()->set_bound(bound);
      break;
    }
    case v1::Observation::kExeIdentity: o->mutable_exe_identity()->clear_result(); break;
    case v1::Observation::kPathIdentity: o->mutable_path_identity()->clear_result(); break;
    default: break;
  }
}

void CopyResult(const v1::Observation& from, v1::Observation* to) {
  switch (to->call_case()) {
    case v1::Observation::kListPids: {
      auto* l = to->mutable_list_pids();
      *l->mutable_names() = from.list_pids().names();
      l->set_err(from.list_pids().err());
      l->set_truncated(from.list_pids().truncated());
      l->set_bytes(from.list_pids().bytes());
      l->set_stopped_at_bytes(from.list_pids().stopped_at_bytes());
      l->set_stopped_at_deadline(from.list_pids().stopped_at_deadline());
      break;
    }
    case v1::Observation::kReadFile:
      if (from.read_file().has_result()) {
        *to->mutable_read_file()->mutable_result() = from.read_file().result();
      } else {
        to->mutable_read_file()->clear_result();
      }
      break;
    case v1::Observation::kExeIdentity:
      if (from.exe_identity().has_result())
        *to->mutable_exe_identity()->mutable_result() = from.exe_identity().result();
      break;
    case v1::Observation::kPathIdentity:
      if (from.path_identity().has_result())
        *to->mutable_path_identity()->mutable_result() = from.path_identity().result();
      break;
    default: break;
  }
}

}  // namespace proctape
