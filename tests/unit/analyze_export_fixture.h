// SPDX-License-Identifier: Apache-2.0
// What the export tests (analyze_export_test.cc, analyze_proc_dir_*_test.cc)
// share: hostile comms, a record shaped as ScanFrame makes one, and a snapshot
// of one frame holding every kind of record a printer or a proc-dir must cope
// with.
#pragma once

#include <cstdint>
#include <string>

#include "capture/frame_scanner.h"
#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape::test {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs

// The comm of the corpus's hostile-comm scenario, and one with every other
// byte a printer must not pass through.
inline const std::string kHostileComm = "x) Z 1 1 1\nx";
inline const std::string kWorseComm = "a\"b\\c\x1b[31m\") \xff";

inline std::string Stat(std::int64_t pid, const std::string& comm, char state, std::int64_t ppid,
                        std::uint64_t start) {
  const std::string p = std::to_string(ppid);
  return std::to_string(pid) + " (" + comm + ") " + state + " " + p + " " + p + " " + p +
         " 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(start) + " 1000 10\n";
}

inline void SetRead(v1::FileRead* r, const std::string& data, std::uint64_t bound, int err = 0,
                    bool truncated = false) {
  r->set_data(err == 0 ? data : "");
  r->set_err(err);
  r->set_bound(bound);
  r->set_truncated(truncated);
}

// A record shaped as ScanFrame makes one with the default bounds.
inline v1::ProcessRecord Record(std::int64_t pid, const std::string& comm, std::int64_t ppid,
                                std::uint64_t start, char state = 'S') {
  const ScanOptions o;
  v1::ProcessRecord r;
  r.set_pid(pid);
  SetRead(r.mutable_stat(), Stat(pid, comm, state, ppid, start), o.stat_bytes);
  SetRead(r.mutable_cmdline(), comm + "\0arg\0"s, o.cmdline_bytes);
  SetRead(r.mutable_environ(), "PATH=****\0PROCTAPE_TOKEN=t0k3n-42\0"s, o.environ_bytes);
  r.mutable_environ()->set_redacted(true);
  SetRead(r.mutable_status(), "Name:\t" + comm + "\nUid:\t0\t0\t0\t0\n", o.status_bytes);
  SetRead(r.mutable_cgroup(), "0::/lab\n", o.cgroup_bytes);
  r.mutable_exe()->set_dev(65024);
  r.mutable_exe()->set_ino(1000 + static_cast<std::uint64_t>(pid));
  r.mutable_pid_ns()->set_dev(4);
  r.mutable_pid_ns()->set_ino(4026531836);
  return r;
}

// One frame: init; app-server 40 (the root of resolution 0) with the
// hostile sleep 41 (RESOLVED by it) beneath; 42 with unreadable stat; 43
// whose parent 44 started after it; a zombie with the worst comm; a
// duplicate of 41 and an invalid pid, which a proc-dir cannot hold.
inline Snapshot HostileSnapshot() {
  Snapshot s;
  s.header.set_capture_start_mono_ns(1'000'000'000);
  s.header.set_capture_start_realtime_ns(1'796'000'000'000'000'000);
  s.header.mutable_host()->set_hostname("ci\nhost");
  s.header.mutable_host()->set_boot_id("0b0e-1d\n");
  s.header.mutable_host()->set_clock_ticks_per_second(100);
  s.header.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  s.header.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=t0k3n-42");
  v1::Frame& f = s.frames.emplace_back();
  f.set_scan_start_mono_ns(1'500'000'000);
  f.set_scan_end_mono_ns(1'600'000'000);
  f.set_complete(true);
  *f.add_processes() = Record(1, "init", 0, 5);
  *f.add_processes() = Record(40, "app-server", 1, 100);
  *f.add_processes() = Record(41, kHostileComm, 40, 120);
  v1::ProcessRecord unreadable = Record(42, "gone", 1, 130);
  SetRead(unreadable.mutable_stat(), "", 4096, EACCES);
  SetRead(unreadable.mutable_environ(), "", 65536, EACCES);
  unreadable.mutable_environ()->set_redacted(true);
  unreadable.mutable_exe()->Clear();
  unreadable.mutable_exe()->set_err(ENOENT);
  *f.add_processes() = unreadable;
  v1::ProcessRecord truncated = Record(43, "child", 44, 140);
  SetRead(truncated.mutable_status(), std::string(16384, 's'), 16384, 0, true);
  *f.add_processes() = truncated;
  *f.add_processes() = Record(44, "late-parent", 1, 150);
  v1::ProcessRecord zombie = Record(45, kWorseComm, 40, 160, 'Z');
  SetRead(zombie.mutable_cmdline(), "", 65536);
  *f.add_processes() = zombie;
  *f.add_processes() = Record(41, "duplicate", 40, 999);
  *f.add_processes() = Record(0, "invalid", 1, 1);
  v1::Resolution& r = s.resolutions.emplace_back();
  r.mutable_resolve()->set_root_pid(40);
  r.mutable_resolve()->set_root_start_ticks(100);
  r.mutable_verdict()->set_status(v1::Verdict::RESOLVED);
  r.mutable_verdict()->set_pid(41);
  r.mutable_verdict()->set_start_ticks(120);
  v1::Resolution& gone = s.resolutions.emplace_back();
  gone.mutable_resolve()->set_root_pid(40);
  gone.mutable_resolve()->set_root_start_ticks(100);
  gone.mutable_verdict()->set_status(v1::Verdict::RESOLVED);
  gone.mutable_verdict()->set_pid(77);
  gone.mutable_verdict()->set_start_ticks(700);
  return s;
}

}  // namespace proctape::test
