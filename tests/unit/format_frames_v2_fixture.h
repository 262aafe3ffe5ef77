// SPDX-License-Identifier: Apache-2.0
// An idle process's record as a capture reads it, for the version 2 frame
// tests (format_frames_v2_test.cc, format_frames_v2_rules_test.cc).
#pragma once

#include <cstdint>
#include <string>

#include "proctape.pb.h"
#include "tests/unit/format_writer_fixture.h"  // Ok, Id

namespace proctape::test {

// An idle process as a capture reads it: a stat with its start tick (field
// 22), an argv, an environment, a status and a cgroup.
inline v1::ProcessRecord Idle(std::int64_t pid, std::uint64_t start, std::uint64_t utime = 3) {
  v1::ProcessRecord p;
  p.set_pid(pid);
  const std::string s = std::to_string(pid);
  *p.mutable_stat() = Ok(s + " (idle worker) S 1 " + s + " " + s + " 0 -1 4194560 90 0 0 0 " +
                             std::to_string(utime) + " 1 0 0 20 0 1 0 " + std::to_string(start) +
                             " 2400000 200 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n",
                         4096);
  *p.mutable_cmdline() = Ok("proctape-bench-worker-" + s + "\0--idle\0"s, 65536);
  *p.mutable_environ() = Ok("HOME=****\0PATH=**************\0"s, 65536);
  p.mutable_environ()->set_redacted(true);
  *p.mutable_status() = Ok("Name:\tidle worker\nState:\tS (sleeping)\nPid:\t" + s + "\n", 16384);
  *p.mutable_exe() = Id(0x803, 1311);
  *p.mutable_pid_ns() = Id(4, 4026531836);
  *p.mutable_cgroup() = Ok("0::/bench.scope\n", 4096);
  return p;
}

}  // namespace proctape::test
