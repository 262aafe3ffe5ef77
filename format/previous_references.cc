// SPDX-License-Identifier: Apache-2.0
// The references of version 2 to the previous frame's record
// (format/previous_frame.h; docs/format.md section 9a): resolved by the
// reader (ResolveFromPrevious, CheckSameAsPrevious) and made by the writer
// (CompactAgainst), by the same rules.
#include <algorithm>
#include <string_view>
#include <vector>

#include "format/file_format.h"
#include "format/previous_frame.h"

namespace proctape {
namespace {

std::string Str(std::uint64_t v) { return std::to_string(v); }

// The reads of a record, with their names, in field order.
struct ReadSlot {
  const char* name;
  bool (v1::ProcessRecord::*has)() const;
  v1::FileRead* (v1::ProcessRecord::*get)();
  const v1::FileRead& (v1::ProcessRecord::*read)() const;
};
constexpr ReadSlot kReads[] = {
    {"stat", &v1::ProcessRecord::has_stat, &v1::ProcessRecord::mutable_stat,
     &v1::ProcessRecord::stat},
    {"cmdline", &v1::ProcessRecord::has_cmdline, &v1::ProcessRecord::mutable_cmdline,
     &v1::ProcessRecord::cmdline},
    {"environ", &v1::ProcessRecord::has_environ, &v1::ProcessRecord::mutable_environ,
     &v1::ProcessRecord::environ},
    {"status", &v1::ProcessRecord::has_status, &v1::ProcessRecord::mutable_status,
     &v1::ProcessRecord::status},
    {"cgroup", &v1::ProcessRecord::has_cgroup, &v1::ProcessRecord::mutable_cgroup,
     &v1::ProcessRecord::cgroup},
};

// stat's fields: its bytes split at every ' ' (n spaces, n + 1 fields).
// Joining them with ' ' gives the bytes back exactly, whatever they hold.
std::vector<std::string_view> SplitFields(std::string_view data, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (;;) {
    std::size_t space = data.find(separator, start);
    if (space == std::string_view::npos) break;
    fields.push_back(data.substr(start, space - start));
    start = space + 1;
  }
  fields.push_back(data.substr(start));
  return fields;
}

bool OwnFieldsSet(const v1::FileRead& r) {
  return !r.data().empty() || r.err() != 0 || r.truncated() || r.bound() != 0 || r.blob() != 0 ||
         r.redacted() || r.stat_changes_size() != 0;
}

// FROM_PREVIOUS_FIELDS: `previous`'s data with `r`'s changes applied, in
// one pass over it (no table of its fields: a stat of 8 M fields costs its
// bytes, not 8 M views of them).
std::string ApplyChanges(const v1::FileRead& previous, v1::FileRead* r, char separator,
                         std::uint64_t* copied) {
  if (!r->data().empty() || r->blob() != 0)
    return "stat fields from the previous frame beside inline data";
  if (r->err() != 0) return "stat fields from the previous frame on a failed read";
  if (previous.err() != 0) return "stat fields from a previous stat that was not read";
  const std::string& before = previous.data();
  const std::uint64_t fields =
      1 + static_cast<std::uint64_t>(std::count(before.begin(), before.end(), separator));
  std::uint64_t next = 0;
  for (const v1::StatFieldChange& c : r->stat_changes()) {
    if (c.field() < next || c.field() >= fields) {
      return "stat field change " + Str(c.field()) + " out of order or past the " + Str(fields) +
             " fields of the previous stat";
    }
    next = static_cast<std::uint64_t>(c.field()) + 1;
  }
  // Reserved once, at most the changes' bytes over: grown by doubling, a
  // rebuilt stat of 16 MB would keep 32 MB of address space in every frame
  // that holds it.
  std::uint64_t changed = 0;
  for (const v1::StatFieldChange& c : r->stat_changes()) changed += c.value().size();
  std::string data;
  data.reserve(before.size() + changed);
  auto change = r->stat_changes().begin();
  std::size_t start = 0;
  for (std::uint64_t field = 0;; ++field) {
    std::size_t end = before.find(separator, start);
    const bool last = end == std::string::npos;
    if (last) end = before.size();
    if (field != 0) data.push_back(separator);
    if (change != r->stat_changes().end() && change->field() == field) {
      data.append(change->value());
      ++change;
    } else {
      data.append(before, start, end - start);
    }
    if (last) break;
    start = end + 1;
  }
  *copied += data.size();
  r->set_data(std::move(data));
  r->clear_stat_changes();
  r->set_from_previous(v1::FROM_PREVIOUS_NONE);
  return {};
}

// FROM_PREVIOUS_FIELDS: stat's fields are split at ' ', status's lines at
// '\n'; no other read has fields (0).
char FieldSeparator(v1::ProcessRecord& record, const v1::FileRead* r) {
  if (record.has_stat() && r == record.mutable_stat()) return ' ';
  if (record.has_status() && r == record.mutable_status()) return '\n';
  return 0;
}

// The shared data of a read of a held record (cmdline, environ), or null.
const std::string* SharedData(const PreviousFrame::Held& held, const ReadSlot& s) {
  if (s.get == &v1::ProcessRecord::mutable_cmdline) return held.cmdline;
  if (s.get == &v1::ProcessRecord::mutable_environ) return held.environ;
  return nullptr;
}

std::uint64_t SharedBytes(const PreviousFrame::Held& held, const ReadSlot& s) {
  const std::string* shared = SharedData(held, s);
  return shared != nullptr ? shared->size() : 0;
}

// The end of the sentence for a reference to a record the previous frame
// does not hold.
std::string NoSuchRecord(const v1::ProcessRecord& record) {
  return " refers to (pid " + std::to_string(record.pid()) + ", start tick " +
         Str(record.previous_start_ticks()) + ") of the previous frame, which holds no such record";
}

void RestoreShared(const PreviousFrame::Held& held, v1::ProcessRecord* record) {
  if (held.cmdline != nullptr) record->mutable_cmdline()->set_data(*held.cmdline);
  if (held.environ != nullptr) record->mutable_environ()->set_data(*held.environ);
}

}  // namespace

bool UsesVersion2(const v1::ProcessRecord& record) {
  if (record.has_previous_start_ticks() || record.same_as_previous()) return true;
  for (const ReadSlot& s : kReads) {
    const v1::FileRead& r = (record.*s.read)();
    if (r.from_previous() != v1::FROM_PREVIOUS_NONE || r.stat_changes_size() != 0) return true;
  }
  return false;
}

std::string ResolveFromPrevious(v1::ProcessRecord* record, const v1::ProcessRecord* previous,
                                std::uint64_t* copied) {
  return ResolveFromPrevious(
      record,
      PreviousFrame::Held{previous, nullptr, nullptr, previous ? previous->ByteSizeLong() : 0},
      copied);
}

std::string CheckSameAsPrevious(const v1::ProcessRecord& record, const PreviousFrame::Held& held,
                                std::uint64_t* copied) {
  const std::string who = "process record of pid " + std::to_string(record.pid());
  if (held.rest == nullptr) return who + NoSuchRecord(record);
  bool own = record.has_exe() || record.has_pid_ns();
  for (const ReadSlot& s : kReads) own = own || (record.*s.has)();
  if (own) return who + " is the previous frame's beside fields of its own";
  *copied += held.rest_bytes + SharedBytes(held, kReads[1]) + SharedBytes(held, kReads[2]);
  return {};
}

std::string ResolveFromPrevious(v1::ProcessRecord* record, const PreviousFrame::Held& held,
                                std::uint64_t* copied) {
  const v1::ProcessRecord* previous = held.rest;
  const std::string who = "process record of pid " + std::to_string(record->pid());
  if (!record->has_previous_start_ticks()) {
    if (UsesVersion2(*record))
      return who + " refers to the previous frame without previous_start_ticks";
    return {};
  }
  if (previous == nullptr) return who + NoSuchRecord(*record);
  if (record->same_as_previous()) {
    std::string wrong = CheckSameAsPrevious(*record, held, copied);
    if (!wrong.empty()) return wrong;
    *record = *previous;
    RestoreShared(held, record);
    return {};
  }
  for (const ReadSlot& s : kReads) {
    if (!(record->*s.has)()) continue;
    v1::FileRead* r = (record->*s.get)();
    const v1::FileRead* pr = (previous->*s.has)() ? &(previous->*s.read)() : nullptr;
    switch (r->from_previous()) {
      case v1::FROM_PREVIOUS_NONE:
        if (r->stat_changes_size() != 0) return who + ": stat_changes without FROM_PREVIOUS_FIELDS";
        break;
      case v1::FROM_PREVIOUS_SAME:
        if (OwnFieldsSet(*r))
          return who + ": " + s.name + " same as the previous frame's beside fields of its own";
        if (pr == nullptr)
          return who + ": " + s.name + " same as the previous frame's, which did not read it";
        *copied += pr->ByteSizeLong() + SharedBytes(held, s);
        *r = *pr;
        if (const std::string* shared = SharedData(held, s)) r->set_data(*shared);
        break;
      case v1::FROM_PREVIOUS_FIELDS: {
        const char separator = FieldSeparator(*record, r);
        if (separator == 0)
          return who + ": " + s.name + " as stat fields (only stat and status may be)";
        if (pr == nullptr)
          return who + ": " + s.name + " fields from the previous frame, which did not read it";
        std::string wrong = ApplyChanges(*pr, r, separator, copied);
        if (!wrong.empty()) return who + ": " + wrong;
        break;
      }
      default:
        return who + ": " + s.name + " has from_previous " + std::to_string(r->from_previous()) +
               ", unknown to this reader";
    }
  }
  record->clear_previous_start_ticks();
  record->clear_same_as_previous();
  return {};
}

bool CompactAgainst(const v1::ProcessRecord& previous, v1::ProcessRecord* plain,
                    std::uint64_t copy_room, std::uint64_t* copied) {
  std::optional<RecordKey> key = KeyOf(*plain);
  if (!key || UsesVersion2(*plain)) return false;
  const std::string want = plain->SerializeAsString();
  v1::ProcessRecord compact;
  compact.set_pid(plain->pid());
  compact.set_previous_start_ticks(key->start_ticks);
  if (want == previous.SerializeAsString()) {
    compact.set_same_as_previous(true);
  } else {
    bool refers = false;
    const v1::ProcessRecord base = *plain;
    compact = base;
    compact.set_previous_start_ticks(key->start_ticks);
    for (const ReadSlot& s : kReads) {
      if (!(base.*s.has)() || !(previous.*s.has)()) continue;
      const v1::FileRead& now = (base.*s.read)();
      const v1::FileRead& before = (previous.*s.read)();
      v1::FileRead* out = (compact.*s.get)();
      if (now.SerializeAsString() == before.SerializeAsString()) {
        out->Clear();
        out->set_from_previous(v1::FROM_PREVIOUS_SAME);
        refers = true;
        continue;
      }
      const char separator = FieldSeparator(compact, out);
      if (separator == 0 || now.err() != 0 || before.err() != 0) continue;
      std::vector<std::string_view> a = SplitFields(before.data(), separator);
      std::vector<std::string_view> b = SplitFields(now.data(), separator);
      if (a.size() != b.size()) continue;
      v1::FileRead fields;
      fields.set_err(now.err());
      fields.set_truncated(now.truncated());
      fields.set_bound(now.bound());
      fields.set_redacted(now.redacted());
      fields.set_from_previous(v1::FROM_PREVIOUS_FIELDS);
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] == b[i]) continue;
        v1::StatFieldChange* c = fields.add_stat_changes();
        c->set_field(static_cast<std::uint32_t>(i));
        c->set_value(std::string(b[i]));
      }
      if (fields.ByteSizeLong() < now.ByteSizeLong()) {
        *out = std::move(fields);
        refers = true;
      }
    }
    if (!refers) return false;
  }
  // The rebuild is checked before the compact form is chosen.
  v1::ProcessRecord check = compact;
  std::uint64_t copy = 0;
  if (!ResolveFromPrevious(&check, &previous, &copy).empty()) return false;
  if (check.SerializeAsString() != want || copy > copy_room) return false;
  *plain = std::move(compact);
  *copied = copy;
  return true;
}

}  // namespace proctape
