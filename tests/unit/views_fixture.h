// SPDX-License-Identifier: Apache-2.0
// Hand-built frames and snapshots for the tests of the views (show, tree,
// diff) and of the process table: each process is written as the kernel
// would write its stat, cmdline and status, so the tests go through the same
// parsers as a real file.
#pragma once

#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/proc_parse.h"
#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape::test {

inline constexpr std::uint64_t kUserFlags = 4194304;        // PF_... of a user process
inline constexpr std::uint64_t kKthreadFlags = 0x00208040;  // PF_KTHREAD set

// One process; Proc(61).Ppid(60).Start(601) sets what differs from the defaults.
struct Proc {
  explicit Proc(std::int64_t p) : pid(p) {}
  std::int64_t pid = 0;
  std::string comm = "sleep";
  char state = 'S';
  std::int64_t ppid = 1;
  std::uint64_t start = 100;
  std::vector<std::string> argv = {"/bin/sleep", "120"};
  std::vector<std::int64_t> nspid;  // empty: {pid}
  std::uint32_t uid = 1000;
  std::uint64_t exe_ino = 11;  // exe identity 8:exe_ino; 0: unreadable (ENOENT)
  std::uint64_t flags = kUserFlags;
  std::int64_t pgrp = 0;     // 0: pid
  std::int64_t session = 0;  // 0: pid

  Proc& Comm(std::string v) {
    comm = std::move(v);
    return *this;
  }
  Proc& State(char v) {
    state = v;
    return *this;
  }
  Proc& Ppid(std::int64_t v) {
    ppid = v;
    return *this;
  }
  Proc& Start(std::uint64_t v) {
    start = v;
    return *this;
  }
  Proc& Argv(std::vector<std::string> v) {
    argv = std::move(v);
    return *this;
  }
  Proc& Nspid(std::vector<std::int64_t> v) {
    nspid = std::move(v);
    return *this;
  }
  Proc& Uid(std::uint32_t v) {
    uid = v;
    return *this;
  }
  Proc& ExeIno(std::uint64_t v) {
    exe_ino = v;
    return *this;
  }
  Proc& Flags(std::uint64_t v) {
    flags = v;
    return *this;
  }
};

// "PID (COMM) S PPID PGRP SID 0 -1 FLAGS 0 ... START 2560000 349": fields 1-22 and two more.
inline std::string StatLine(const Proc& p) {
  return std::to_string(p.pid) + " (" + p.comm + ") " + std::string(1, p.state) + " " +
         std::to_string(p.ppid) + " " + std::to_string(p.pgrp != 0 ? p.pgrp : p.pid) + " " +
         std::to_string(p.session != 0 ? p.session : p.pid) + " 0 -1 " + std::to_string(p.flags) +
         " 0 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(p.start) + " 2560000 349\n";
}

inline v1::ProcessRecord MakeRecord(const Proc& p) {
  v1::ProcessRecord r;
  r.set_pid(p.pid);
  r.mutable_stat()->set_data(StatLine(p));
  r.mutable_cmdline()->set_data(JoinNul(p.argv));
  std::string nspid;
  for (std::int64_t v : p.nspid.empty() ? std::vector<std::int64_t>{p.pid} : p.nspid) {
    if (!nspid.empty()) nspid += '\t';
    nspid += std::to_string(v);
  }
  const std::string uid = std::to_string(p.uid);
  r.mutable_status()->set_data("Name:\tx\nState:\tS (sleeping)\nPid:\t" + std::to_string(p.pid) +
                               "\nUid:\t" + uid + "\t" + uid + "\t" + uid + "\t" + uid +
                               "\nNSpid:\t" + nspid + "\n");
  if (p.exe_ino == 0) {
    r.mutable_exe()->set_err(ENOENT);
  } else {
    r.mutable_exe()->set_dev(8);
    r.mutable_exe()->set_ino(p.exe_ino);
  }
  r.mutable_pid_ns()->set_ino(4026531836);
  return r;
}

// A complete frame scanned from start_ns to start_ns + 2 ms.
inline v1::Frame MakeFrame(std::uint64_t index, const std::vector<Proc>& procs,
                           std::int64_t start_ns = 1'000'000'000) {
  v1::Frame f;
  f.set_index(index);
  f.set_scan_start_mono_ns(start_ns);
  f.set_scan_end_mono_ns(start_ns + 2'000'000);
  f.set_complete(true);
  f.set_bytes_read(1000);
  for (const Proc& p : procs) *f.add_processes() = MakeRecord(p);
  return f;
}

// A whole, intact snapshot of `frames` from host "ci-1", 100 ticks a second.
inline Snapshot MakeSnapshot(std::vector<v1::Frame> frames, const std::string& boot_id = "b00t\n") {
  Snapshot s;
  s.header.set_format_version(1);
  s.header.set_tool_version("0.1.0");
  s.header.mutable_host()->set_hostname("ci-1");
  s.header.mutable_host()->set_kernel_release("6.1.0-18-amd64");
  s.header.mutable_host()->set_boot_id(boot_id);
  s.header.mutable_host()->set_pid_max(4194304);
  s.header.mutable_host()->set_clock_ticks_per_second(100);
  s.header.mutable_host()->set_page_size(4096);
  s.header.set_capture_start_mono_ns(900'000'000);
  s.header.set_capture_start_realtime_ns(1796095488781825853);  // 2026-12-01T03:24:48.781Z
  s.header.set_capturer_pid(42);
  s.header.set_capturer_pid_ns_inode(4026531836);
  s.header.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  s.header.add_command_line("proctape");
  s.header.add_command_line("capture");
  s.frames = std::move(frames);
  s.footer = v1::Footer();
  s.footer->set_frames(s.frames.size());
  s.footer->set_capture_end_mono_ns(1'900'000'000);
  s.chunks = 2 + s.frames.size();
  return s;
}

// A RESOLVED resolution of (pid, start) beneath root (root_pid, root_start).
inline v1::Resolution Resolved(std::int64_t root_pid, std::uint64_t root_start, std::int64_t pid,
                               std::uint64_t start, std::int64_t at_ns) {
  v1::Resolution r;
  r.mutable_resolve()->set_root_pid(root_pid);
  r.mutable_resolve()->set_root_start_ticks(root_start);
  r.mutable_resolve()->set_token("t0k3n-secret-value");
  r.mutable_resolve()->set_token_var("PROCTAPE_TOKEN");
  r.mutable_resolve()->add_argv("/bin/sleep");
  r.mutable_resolve()->add_argv("120");
  r.mutable_resolve()->set_exe_path("/bin/sleep");
  r.mutable_resolve()->mutable_exe_identity()->set_dev(8);
  r.mutable_resolve()->mutable_exe_identity()->set_ino(11);
  r.mutable_verdict()->set_status(v1::Verdict::RESOLVED);
  r.mutable_verdict()->set_pid(pid);
  r.mutable_verdict()->set_start_ticks(start);
  r.mutable_verdict()->set_attempts(1);
  r.mutable_verdict()->set_detail("pid " + std::to_string(pid) + " started at tick " +
                                  std::to_string(start));
  r.set_observation_count(0);
  r.set_start_mono_ns(at_ns);
  r.set_end_mono_ns(at_ns + 1'000'000);
  return r;
}

}  // namespace proctape::test
