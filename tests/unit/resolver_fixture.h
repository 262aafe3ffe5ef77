// SPDX-License-Identifier: Apache-2.0
// What the resolver tests (resolver_*_test.cc) and the replay tests that
// record the resolver share beyond fake_host.h: the in-memory host's clock at
// the start, the attempts a 5 s retry loop makes, and a second sandbox.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "tests/unit/fake_host.h"

namespace proctape::test {

inline constexpr std::int64_t kT0 = 1'000'000'000;  // MemoryEvidence's initial clock
inline constexpr std::uint32_t kAttemptsIn5s = 51;  // attempts at t = 0, 0.1 s, ..., 5.0 s

// A second sandbox beneath the same app-server, its sleep carrying `token`:
//   4000 -> 4200 bwrap -> 4201 bwrap [1] -> 4202 sh [2] -> 4203 sleep [3]
inline constexpr std::int64_t kSecondSleep = 4203;
inline void AddSecondSandbox(FakeHost& host, const std::string& token) {
  host.AddProcess(4200, kAppServer, 520000, "bwrap", {"bwrap", "--unshare-pid"}, {},
                  Identity{0, 0x803, 600});
  host.AddProcess(4201, 4200, 520001, "bwrap", {"bwrap"}, {}, Identity{0, 0x803, 600});
  host.AddProcess(4202, 4201, 520002, "sh", {"/bin/sh", "-c", "..."}, {}, kShExe);
  host.AddSleep(kSecondSleep, 4202, 520003, token);
}

// The deadline during a confirmation (docs/resolver.md, "Retries, deadline
// and budget"): the sleep of `host` is absent for the first `empty`
// attempts, appears (this invocation's) before the next one, and the clock
// passes the 5 s deadline as its executable is taken.
inline void DeadlineWhileConfirmingAfter(FakeHost& host, int empty) {
  host.Remove(kSleep);
  auto sleeps = std::make_shared<int>(0);
  host.on_sleep = [sleeps, empty](MemoryEvidence& ev) {
    if (++*sleeps == empty) {
      ev.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"},
                    SleepEnviron(kToken), kSleepExe);
    }
  };
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) h.now_ns += 6'000'000'000;
  };
}

}  // namespace proctape::test
