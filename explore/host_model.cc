// SPDX-License-Identifier: Apache-2.0
#include "explore/host_model.h"

#include <cerrno>

#include "core/redact.h"
#include "proto/convert.h"

namespace proctape::explore {

std::uint64_t Fnv(std::uint64_t h, const void* data, std::size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::uint64_t HashBytes(std::uint64_t h, std::string_view bytes) {
  return Mix64(h, std::hash<std::string_view>{}(bytes));
}

namespace {

std::uint64_t BytesHash(const std::optional<StoredRead>& r) {
  return r ? std::hash<std::string_view>{}(r->data) : 0;
}

// HashBytes(h, r->data) is Mix64(h, BytesHash(r)): `bytes` is the latter's.
std::uint64_t HashRead(std::uint64_t h, const std::optional<StoredRead>& r, std::uint64_t bytes) {
  h = Mix64(h, r ? 1 : 0);
  if (!r) return h;
  h = Mix64(h, static_cast<std::uint64_t>(r->err) * 2 + (r->truncated ? 1 : 0));
  return Mix64(h, bytes);
}

constexpr ProcFile kFiles[] = {ProcFile::kStat, ProcFile::kCmdline, ProcFile::kEnviron,
                               ProcFile::kStatus, ProcFile::kCgroup};

std::size_t BoundSlot(ProcFile file) { return static_cast<std::size_t>(file) - 1; }

std::optional<StoredRead> FromRead(const v1::ProcessRecord& r, ProcFile file, ModelProcess* p) {
  const v1::FileRead* read = RecordedRead(r, file);
  if (read == nullptr) return std::nullopt;
  p->bounds[BoundSlot(file)] = read->bound();
  return StoredRead(read->err(), read->data(), read->truncated());
}

void ToRead(const ModelProcess& p, ProcFile file, v1::FileRead* to) {
  const std::optional<StoredRead>& from = *p.File(file);
  to->set_err(from->err);
  to->set_data(from->data);
  to->set_truncated(from->truncated);
  to->set_bound(p.bounds[BoundSlot(file)]);
}

}  // namespace

const std::optional<StoredRead>* ModelProcess::File(ProcFile file) const {
  switch (file) {
    case ProcFile::kStat: return &stat;
    case ProcFile::kCmdline: return &cmdline;
    case ProcFile::kEnviron: return &environ;
    case ProcFile::kStatus: return &status;
    case ProcFile::kCgroup: return &cgroup;
    default: return nullptr;
  }
}

std::optional<StoredRead>* ModelProcess::File(ProcFile file) {
  return const_cast<std::optional<StoredRead>*>(std::as_const(*this).File(file));
}

void HashFiles(ModelProcess* p) {
  std::uint64_t h = Mix64(kFnvStart, static_cast<std::uint64_t>(p->pid));
  for (ProcFile f : kFiles) {
    std::uint64_t& bytes = p->bytes_hash[BoundSlot(f)];
    bytes = BytesHash(*p->File(f));
    h = HashRead(h, *p->File(f), bytes);
  }
  h = Mix64(h, p->exe ? 1 : 0);
  if (p->exe) {
    h = Mix64(Mix64(Mix64(h, static_cast<std::uint64_t>(p->exe->err)), p->exe->dev), p->exe->ino);
  }
  p->hash = h;
}

HostModel HostModel::FromFrame(const v1::Frame& frame) {
  HostModel m;
  m.cut_ = frame.cut_by_bounds();
  for (const v1::ProcessRecord& r : frame.processes()) {
    m.listing_.push_back(r.pid());
    if (m.procs_.count(r.pid()) != 0) continue;  // the first record answers
    ModelProcess p;
    p.pid = r.pid();
    p.stat = FromRead(r, ProcFile::kStat, &p);
    p.cmdline = FromRead(r, ProcFile::kCmdline, &p);
    p.environ = FromRead(r, ProcFile::kEnviron, &p);
    p.status = FromRead(r, ProcFile::kStatus, &p);
    p.cgroup = FromRead(r, ProcFile::kCgroup, &p);
    if (r.has_exe()) p.exe = FromProto(r.exe());
    if (r.has_pid_ns()) p.pid_ns = r.pid_ns();
    HashFiles(&p);
    m.hash_ += p.hash;
    m.procs_.emplace(p.pid, std::move(p));
  }
  for (const auto& [pid, p] : m.procs_) m.Issued(pid);
  return m;
}

void HostModel::Issued(std::int64_t pid) {
  high_pid_ = std::max(high_pid_, pid);
  if (std::optional<StatFields> s = Stat(pid)) high_start_ = std::max(high_start_, s->start_ticks);
}

const ModelProcess* HostModel::Find(std::int64_t pid) const {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

ModelProcess* HostModel::Mutable(std::int64_t pid) {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : &it->second;
}

std::optional<StatFields> HostModel::Stat(std::int64_t pid) const {
  const ModelProcess* p = Find(pid);
  if (p == nullptr || !p->stat || !p->stat->ok() || p->stat->truncated) return std::nullopt;
  StatParse parsed = ParseStat(p->stat->data);
  if (!parsed.ok() || parsed.fields->pid != pid) return std::nullopt;
  return parsed.fields;
}

std::vector<std::int64_t> HostModel::Children(std::int64_t pid) const {
  std::vector<std::int64_t> out;
  for (std::int64_t c : listing_) {
    std::optional<StatFields> s = Stat(c);
    if (s && s->ppid == pid && (out.empty() || out.back() != c)) out.push_back(c);
  }
  return out;
}

std::unordered_map<std::int64_t, std::vector<std::int64_t>> HostModel::ChildrenByParent() const {
  std::unordered_map<std::int64_t, std::vector<std::int64_t>> out;
  for (std::int64_t c : listing_) {
    std::optional<StatFields> s = Stat(c);
    if (!s) continue;
    std::vector<std::int64_t>& children = out[s->ppid];
    if (children.empty() || children.back() != c) children.push_back(c);
  }
  return out;
}

void HostModel::Rehash(std::int64_t, const ModelProcess* before, ModelProcess* after) {
  if (before != nullptr) hash_ -= before->hash;
  if (after != nullptr) {
    HashFiles(after);
    hash_ += after->hash;
  }
}

// Field `field` (1-based, as proc(5) numbers them; 3 and later) of the stat
// after the final ") " replaced by `value`.
bool HostModel::RewriteStat(std::int64_t pid, std::size_t field, const std::string& value) {
  ModelProcess* p = Mutable(pid);
  if (p == nullptr || !Stat(pid)) return false;
  const std::string& s = p->stat->data;
  const std::size_t close = s.rfind(") ");
  std::size_t begin = close + 2;
  for (std::size_t f = 3; f < field; ++f) {
    begin = s.find(' ', begin);
    if (begin == std::string::npos) return false;
    ++begin;
  }
  std::size_t end = s.find_first_of(" \n", begin);
  if (end == std::string::npos) end = s.size();
  Rehash(pid, p, nullptr);
  p->stat->data.replace(begin, end - begin, value);
  Rehash(pid, nullptr, p);
  return true;
}

bool ReplaceStatusLine(std::string* status, const std::string& key, const std::string& value) {
  std::string& s = *status;
  const std::string head = key + ":\t";
  std::size_t at = std::string::npos;
  if (s.compare(0, head.size(), head) == 0) {
    at = 0;
  } else if (std::size_t nl = s.find("\n" + head); nl != std::string::npos) {
    at = nl + 1;
  }
  if (at == std::string::npos) return false;
  const std::size_t begin = at + head.size();
  std::size_t end = s.find('\n', begin);
  if (end == std::string::npos) end = s.size();
  s.replace(begin, end - begin, value);
  return true;
}

std::string WithStatPid(const std::string& stat, std::int64_t pid) {
  const std::size_t open = stat.find(" (");
  if (open == std::string::npos) return stat;
  return std::to_string(pid) + stat.substr(open);
}

bool HostModel::RewriteStatusLine(std::int64_t pid, const std::string& key,
                                  const std::string& value) {
  ModelProcess* p = Mutable(pid);
  if (p == nullptr || !p->status || !p->status->ok()) return false;
  std::string copy = p->status->data;
  if (!ReplaceStatusLine(&copy, key, value)) return false;
  Rehash(pid, p, nullptr);
  p->status->data = std::move(copy);
  Rehash(pid, nullptr, p);
  return true;
}

namespace {

std::string StateWords(char state) {
  switch (state) {
    case 'R': return "R (running)";
    case 'S': return "S (sleeping)";
    case 'D': return "D (disk sleep)";
    case 'T': return "T (stopped)";
    case 't': return "t (tracing stop)";
    case 'X': return "X (dead)";
    case 'Z': return "Z (zombie)";
    case 'P': return "P (parked)";
    case 'I': return "I (idle)";
    default: return std::string(1, state);
  }
}

}  // namespace

bool HostModel::SetState(std::int64_t pid, char state) {
  if (!RewriteStat(pid, 3, std::string(1, state))) return false;
  RewriteStatusLine(pid, "State", StateWords(state));
  return true;
}

bool HostModel::SetParent(std::int64_t pid, std::int64_t ppid) {
  if (!RewriteStat(pid, 4, std::to_string(ppid))) return false;
  RewriteStatusLine(pid, "PPid", std::to_string(ppid));
  return true;
}

bool HostModel::SetStartTicks(std::int64_t pid, std::uint64_t ticks) {
  if (!RewriteStat(pid, 22, std::to_string(ticks))) return false;
  Issued(pid);
  return true;
}

bool HostModel::SetComm(std::int64_t pid, const std::string& comm) {
  ModelProcess* p = Mutable(pid);
  if (p == nullptr || !Stat(pid)) return false;
  std::string& s = p->stat->data;
  const std::size_t open = s.find(" (");
  const std::size_t close = s.rfind(") ");
  Rehash(pid, p, nullptr);
  s.replace(open + 2, close - open - 2, comm);
  Rehash(pid, nullptr, p);
  RewriteStatusLine(pid, "Name", comm);
  return true;
}

bool HostModel::SetFile(std::int64_t pid, ProcFile file, std::optional<StoredRead> read) {
  ModelProcess* p = Mutable(pid);
  if (p == nullptr || p->File(file) == nullptr) return false;
  Rehash(pid, p, nullptr);
  *p->File(file) = std::move(read);
  Rehash(pid, nullptr, p);
  return true;
}

bool HostModel::SetExe(std::int64_t pid, std::optional<Identity> exe) {
  ModelProcess* p = Mutable(pid);
  if (p == nullptr) return false;
  Rehash(pid, p, nullptr);
  p->exe = exe;
  Rehash(pid, nullptr, p);
  return true;
}

bool HostModel::Add(ModelProcess process) {
  if (procs_.count(process.pid) != 0) return false;
  const std::int64_t pid = process.pid;
  HashFiles(&process);
  hash_ += process.hash;
  procs_.emplace(pid, std::move(process));
  listing_.push_back(pid);
  Issued(pid);
  return true;
}

bool HostModel::Remove(std::int64_t pid) {
  ModelProcess* p = Mutable(pid);
  if (p == nullptr) return false;
  Rehash(pid, p, nullptr);
  procs_.erase(pid);
  std::erase(listing_, pid);
  return true;
}

HostModel HostModel::Subset(const std::unordered_set<std::int64_t>& keep) const {
  HostModel m;
  m.cut_ = cut_;
  m.high_start_ = high_start_;
  m.high_pid_ = high_pid_;
  for (std::int64_t pid : listing_) {
    if (keep.count(pid) != 0) m.listing_.push_back(pid);
  }
  for (const auto& [pid, p] : procs_) {
    if (keep.count(pid) == 0) continue;
    m.hash_ += p.hash;
    m.procs_.emplace(pid, p);
  }
  return m;
}

v1::Frame HostModel::ToFrame(std::uint64_t index, std::int64_t scan_start_ns,
                             std::int64_t scan_end_ns, const std::vector<std::string>* kept) const {
  v1::Frame f;
  f.set_index(index);
  f.set_scan_start_mono_ns(scan_start_ns);
  f.set_scan_end_mono_ns(scan_end_ns);
  f.set_complete(true);
  f.set_cut_by_bounds(cut_);
  for (std::int64_t pid : listing_) {
    const ModelProcess* p = Find(pid);
    if (p == nullptr) continue;
    v1::ProcessRecord* r = f.add_processes();
    r->set_pid(pid);
    if (p->stat) ToRead(*p, ProcFile::kStat, r->mutable_stat());
    if (p->cmdline) ToRead(*p, ProcFile::kCmdline, r->mutable_cmdline());
    if (p->environ) {
      ToRead(*p, ProcFile::kEnviron, r->mutable_environ());
      if (kept != nullptr) {
        v1::FileRead* env = r->mutable_environ();
        env->set_redacted(true);  // as a capture marks every environ read, failed ones too
        if (p->environ->ok()) env->set_data(RedactEnviron(env->data(), *kept));
      }
    }
    if (p->status) ToRead(*p, ProcFile::kStatus, r->mutable_status());
    if (p->cgroup) ToRead(*p, ProcFile::kCgroup, r->mutable_cgroup());
    if (p->exe) *r->mutable_exe() = ToProto(*p->exe);
    if (p->pid_ns) *r->mutable_pid_ns() = *p->pid_ns;
  }
  return f;
}

}  // namespace proctape::explore
