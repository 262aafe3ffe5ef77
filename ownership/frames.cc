// SPDX-License-Identifier: Apache-2.0
// How the ownership planner reads a frame: scope, the frame by pid, parent
// chains, the cgroup v2 path (declarations and contracts in ownership_frames.h
// and ownership.h).
#include "ownership/frames.h"

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "core/proc_parse.h"

namespace proctape::ownership {

using Decision = v1::OwnershipDecision;

std::string Quote(std::string_view bytes) {
  std::string out = "\"";
  for (char c : EscapeBytes(bytes)) {
    if (c == '"') {
      out.append("\\x22");
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

std::string At(std::int64_t pid, std::uint64_t start) {
  return std::to_string(pid) + "@" + std::to_string(start);
}

bool Vanished(int err) { return err == ENOENT || err == ESRCH; }

Classified Classify(const ProcessView& v, const OwnershipRequest& request) {
  Classified c;
  const v1::ProcessRecord& r = *v.record;
  for (const auto& [name, read] : {std::pair<const char*, const v1::FileRead*>{"stat", &r.stat()},
                                   {"status", &r.status()},
                                   {"cgroup", &r.cgroup()}}) {
    if (Vanished(read->err())) {
      c.scope = Scope::kVanished;
      c.why = std::string(name) + ": " + std::strerror(read->err());
      return c;
    }
  }
  if (v.cgroup_ok) c.cgroup = CgroupV2Path(v.cgroup, r.cgroup().truncated());
  if (v.kernel_thread) {
    // No repository command starts one, and no signal ends one.
    c.scope = Scope::kOut;
    c.out_reason = Decision::KERNEL_THREAD;
    c.why = "a kernel thread";
    return c;
  }
  const std::optional<std::uint32_t> uid = v.real_uid();
  if (uid && *uid != request.uid) {
    c.scope = Scope::kOut;
    c.out_reason = Decision::OTHER_UID;
    c.why = "uid " + std::to_string(*uid);
    return c;
  }
  if (c.cgroup && *c.cgroup != request.cgroup) {
    c.scope = Scope::kOut;
    c.out_reason = Decision::OTHER_CGROUP;
    c.why = "cgroup " + Quote(*c.cgroup);
    return c;
  }
  if (!uid) {
    c.why = r.status().err() != 0
                ? std::string("status unreadable: ") + std::strerror(r.status().err())
                : "status has no valid Uid line";
  } else if (!c.cgroup) {
    c.why = r.cgroup().err() != 0
                ? std::string("cgroup unreadable: ") + std::strerror(r.cgroup().err())
                : "cgroup has no single complete \"0::\" (cgroup v2) line";
  } else if (!v.has_identity()) {
    c.why = v.stat_problem;
  } else {
    c.scope = Scope::kIn;
    return c;
  }
  c.why += " (uid and cgroup do not rule it out)";
  return c;
}

FrameView::FrameView(const v1::Frame& f, const OwnershipRequest& request)
    : frame(&f), table(ProcessTable(f)), index(IndexByPid(table)) {
  for (const ProcessView& v : table) scope.push_back(Classify(v, request));
}

Chain ParentChain(const FrameView& f, std::int64_t pid, std::optional<std::int64_t> stop) {
  Chain c;
  std::set<std::int64_t> seen;
  for (std::int64_t at = pid;;) {
    if (!seen.insert(at).second) {
      c.broken = "the parent chain loops at pid " + std::to_string(at);
      return c;
    }
    const ProcessView* v = f.Find(at);
    if (v == nullptr) {
      c.broken = "pid " + std::to_string(at) + " is not in the frame";
      return c;
    }
    if (!v->has_identity()) {
      c.broken = "pid " + std::to_string(at) + ": " + v->stat_problem;
      return c;
    }
    c.pids.push_back(at);
    if (stop && at == *stop) {
      c.reached_stop = true;
      return c;
    }
    if (v->ppid() == 0) return c;
    at = v->ppid();
  }
}

bool Contains(const std::vector<std::int64_t>& pids, std::int64_t pid) {
  for (std::int64_t p : pids) {
    if (p == pid) return true;
  }
  return false;
}

}  // namespace proctape::ownership

namespace proctape {

std::optional<std::string> CgroupV2Path(std::string_view file, bool truncated) {
  std::optional<std::string> path;
  int found = 0;
  std::size_t pos = 0;
  while (pos < file.size()) {
    std::size_t end = file.find('\n', pos);
    const bool complete = end != std::string_view::npos || !truncated;
    if (end == std::string_view::npos) end = file.size();
    std::string_view line = file.substr(pos, end - pos);
    if (line.substr(0, 3) == "0::") {
      if (!complete) return std::nullopt;
      ++found;
      path = std::string(line.substr(3));
    }
    pos = end + 1;
  }
  if (found != 1) return std::nullopt;
  return path;
}

}  // namespace proctape
