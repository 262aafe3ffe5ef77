// SPDX-License-Identifier: Apache-2.0
// The keepalive sandbox of `docs/ownership.md` (its introduction: the runtime's
// keepalive beside the verifier) for the ownership planner's unit tests, as
// hand-built snapshots: records of processes (uid, cgroup, argv, start tick), a
// baseline taken at bootstrap, a current snapshot taken at cleanup, the
// request, and small accessors of a plan.
//
// The keepalive sandbox, in pids (all uid 999, cgroup /sandbox unless noted):
//
//   1   init                the runtime's; the verifier's ancestor
//   34    sleep infinity    the runtime's keepalive: a sibling, not an ancestor
//   44    verifier          --self
//   50      proctape capture  the baseline's capturer, a child of the verifier
//   90      proctape capture  the current snapshot's capturer
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ownership/ownership.h"
#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "format/reader.h"

namespace proctape::test {

using Decision = v1::OwnershipDecision;
using Problem = v1::OwnershipProblem;

constexpr std::uint32_t kUid = 999;
inline const std::string kCgroup = "/sandbox";
constexpr std::int64_t kInit = 1, kKeepalive = 34, kVerifier = 44, kBaseCapturer = 50;
constexpr std::int64_t kCurCapturer = 90;

struct P {
  std::int64_t pid;
  std::int64_t ppid;
  std::uint64_t start;
  std::vector<std::string> argv = {"sleep", "infinity"};
  std::string comm = "sleep";
  std::uint32_t uid = kUid;
  std::string cgroup = kCgroup;
};

inline v1::ProcessRecord Record(const P& p) {
  v1::ProcessRecord r;
  r.set_pid(p.pid);
  r.mutable_stat()->set_data(MemoryEvidence::StatLine(p.pid, p.comm, 'S', p.ppid, p.start));
  r.mutable_cmdline()->set_data(JoinNul(p.argv));
  const std::string uid = std::to_string(p.uid);
  r.mutable_status()->set_data("Name:\t" + p.comm.substr(0, 15) + "\nUid:\t" + uid + "\t" + uid +
                               "\t" + uid + "\t" + uid + "\nNSpid:\t" + std::to_string(p.pid) +
                               "\n");
  r.mutable_cgroup()->set_data("0::" + p.cgroup + "\n");
  return r;
}

// The record of `p` as a kernel thread: PF_KTHREAD set in stat's flags
// (field 9), as only the kernel sets it.
inline v1::ProcessRecord KernelThread(const P& p) {
  v1::ProcessRecord r = Record(p);
  std::string stat = r.stat().data();
  const std::string flags = " 4194560 ";  // MemoryEvidence::StatLine's
  const std::size_t at = stat.find(flags);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no flags field" << flags << "in " << stat;
    return r;
  }
  stat.replace(at, flags.size(), " 2129984 ");  // 0x208040: PF_KTHREAD set
  r.mutable_stat()->set_data(stat);
  return r;
}

// The runtime's processes, as they are before and after the verifier runs.
inline P Init() { return {kInit, 0, 100, {"/sbin/init"}, "init"}; }
inline P Keepalive() { return {kKeepalive, kInit, 300}; }
inline P Verifier() {
  return {kVerifier, kInit, 400, {"/usr/bin/verifier", "--task", "t"}, "verifier"};
}
inline P BaseCapture() {
  return {
      kBaseCapturer, kVerifier, 410, {"proctape", "capture", "-o", "baseline.ptape"}, "proctape"};
}
inline P CurCapture() {
  return {kCurCapturer, kVerifier, 900, {"proctape", "capture", "-o", "current.ptape"}, "proctape"};
}

// A snapshot of frames whose records are `frames`, captured by `capturer`,
// starting at `start_ns` on boot "boot-1" in pid namespace 4026531836.
inline Snapshot Snap(const std::vector<std::vector<v1::ProcessRecord>>& frames,
                     std::int64_t capturer, std::int64_t start_ns) {
  Snapshot s;
  s.header.set_format_version(1);
  s.header.mutable_host()->set_boot_id("0c1d-boot-1\n");
  s.header.set_capture_start_mono_ns(start_ns);
  s.header.set_capturer_pid(capturer);
  s.header.set_capturer_uid(kUid);
  s.header.set_capturer_pid_ns_inode(4026531836);
  for (std::size_t k = 0; k < frames.size(); ++k) {
    v1::Frame& f = s.frames.emplace_back();
    f.set_index(k);
    f.set_scan_start_mono_ns(start_ns + 1000 * static_cast<std::int64_t>(k) + 10);
    f.set_scan_end_mono_ns(start_ns + 1000 * static_cast<std::int64_t>(k) + 500);
    f.set_complete(true);
    for (const v1::ProcessRecord& r : frames[k]) *f.add_processes() = r;
  }
  return s;
}

inline std::vector<v1::ProcessRecord> Records(const std::vector<P>& ps) {
  std::vector<v1::ProcessRecord> out;
  for (const P& p : ps) out.push_back(Record(p));
  return out;
}

// The baseline the verifier takes at bootstrap: the runtime and the capture.
inline Snapshot Baseline(std::vector<P> extra = {}) {
  std::vector<P> ps = {Init(), Keepalive(), Verifier(), BaseCapture()};
  ps.insert(ps.end(), extra.begin(), extra.end());
  return Snap({Records(ps)}, kBaseCapturer, 1'000'000);
}

// The current snapshot: the runtime, the verifier, its capture, and `extra`.
inline Snapshot Current(std::vector<P> extra = {}) {
  std::vector<P> ps = {Init(), Keepalive(), Verifier(), CurCapture()};
  ps.insert(ps.end(), extra.begin(), extra.end());
  return Snap({Records(ps)}, kCurCapturer, 9'000'000);
}

inline OwnershipRequest Request() {
  OwnershipRequest r;
  r.uid = kUid;
  r.cgroup = kCgroup;
  r.self_pid = kVerifier;
  r.baseline_name = "baseline.ptape";
  r.current_name = "current.ptape";
  return r;
}

inline const Decision* Find(const v1::OwnershipPlan& plan, std::int64_t pid) {
  for (const Decision& d : plan.decisions()) {
    if (d.pid() == pid) return &d;
  }
  return nullptr;
}

// "KEEP/IN_BASELINE" etc., or "absent".
inline std::string Verdict(const v1::OwnershipPlan& plan, std::int64_t pid) {
  const Decision* d = Find(plan, pid);
  if (d == nullptr) return "absent";
  return Decision::Action_Name(d->action()) + "/" + Decision::Reason_Name(d->reason());
}

inline std::vector<Problem::Kind> Kinds(const v1::OwnershipPlan& plan) {
  std::vector<Problem::Kind> out;
  for (const Problem& p : plan.problems()) out.push_back(p.kind());
  return out;
}

inline std::string Why(const v1::OwnershipPlan& plan) { return DescribePlan(plan); }

}  // namespace proctape::test
