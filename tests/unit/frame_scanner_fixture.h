// SPDX-License-Identifier: Apache-2.0
// What the frame scanner tests (frame_scanner_*_test.cc) share: an in-memory
// /proc that counts its reads and can change the host right after one, a
// pid-namespace source, a scan that keeps what its callbacks were given, and
// a small host (with the exe identities of fake_host.h).
#pragma once

#include <cerrno>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "capture/frame_scanner.h"
#include "core/memory_evidence.h"
#include "tests/unit/fake_host.h"  // kSleepExe, kShExe

namespace proctape::test {

// MemoryEvidence that counts reads per (pid, file) and can change the host
// right after a read (a process vanishing mid-scan).
class TestHost : public MemoryEvidence {
 public:
  ReadResult ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) override {
    ReadResult r = MemoryEvidence::ReadFile(pid, file, bound);
    ++reads[{pid, file}];
    if (after_read) after_read(pid, file);
    return r;
  }
  int ReadsOf(std::int64_t pid, ProcFile file) const {
    auto it = reads.find({pid, file});
    return it == reads.end() ? 0 : it->second;
  }
  std::map<std::pair<std::int64_t, ProcFile>, int> reads;
  std::function<void(std::int64_t, ProcFile)> after_read;
};

// Identity of /proc/PID/ns/pid in the tests: ino = 4026531836 for all, but
// pid 666 has gone (ENOENT).
inline Identity FakePidNs(std::int64_t pid) {
  if (pid == 666) return Identity{ENOENT, 0, 0};
  return Identity{0, 4, 4026531836};
}

struct Capture {
  std::vector<v1::ProcessRecord> records;
  ScanStats stats;
  std::int64_t begin_ns = -1;
  int begins = 0;
  int records_before_begin = 0;
};

// Callbacks that collect a scan's frame into `c`.
inline FrameCallbacks CollectInto(Capture& c) {
  FrameCallbacks cb;
  cb.begin = [&c](std::int64_t t) {
    c.begin_ns = t;
    ++c.begins;
  };
  cb.record = [&c](v1::ProcessRecord&& r) {
    if (c.begins == 0) ++c.records_before_begin;
    c.records.push_back(std::move(r));
    return true;
  };
  return cb;
}

inline Capture Scan(Evidence& evidence, const ScanOptions& options,
                    const PidNamespaceFn& pid_ns = FakePidNs) {
  Capture c;
  c.stats = ScanFrame(evidence, options, pid_ns, CollectInto(c));
  return c;
}

inline std::vector<std::int64_t> Pids(const Capture& c) {
  std::vector<std::int64_t> out;
  for (const auto& r : c.records) out.push_back(r.pid());
  return out;
}

inline std::uint64_t DataBytes(const v1::ProcessRecord& r) {
  return r.stat().data().size() + r.cmdline().data().size() + r.environ().data().size() +
         r.status().data().size() + r.cgroup().data().size();
}

// A small host: 1 init, 10 shell with 11 and 12, 12 has 13; 20 with 21.
inline void SmallTree(MemoryEvidence& host) {
  host.AddProcess(1, 0, 10, "systemd", {"/sbin/init"}, {"HOME=/"}, kShExe);
  host.AddProcess(10, 1, 100, "sh", {"/bin/sh"}, {"HOME=/root"}, kShExe);
  host.AddProcess(11, 10, 110, "sleep", {"/bin/sleep", "11"}, {"A=1"}, kSleepExe);
  host.AddProcess(12, 10, 120, "sh", {"/bin/sh", "-c", "x"}, {"B=2"}, kShExe);
  host.AddProcess(13, 12, 130, "sleep", {"/bin/sleep", "13"}, {"C=3"}, kSleepExe);
  host.AddProcess(20, 1, 200, "cron", {"/usr/sbin/cron"}, {"D=4"}, kShExe);
  host.AddProcess(21, 20, 210, "sleep", {"/bin/sleep", "21"}, {"E=5"}, kSleepExe);
}

}  // namespace proctape::test
