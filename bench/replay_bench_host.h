// SPDX-License-Identifier: Apache-2.0
// replay_bench's in-memory host: a shell, N idle workers under a spawner (as
// bench/spawn_idle starts them), the fingerprinted root and a sandbox chain
// beneath it, every file with realistic bytes (kernel-shaped stat lines, a
// worker argv, a CI job's environment, a status), and the request that
// resolves its sleep. Included by bench/replay_bench.cc and, for its record
// bytes, tests/shapes/many_frames.cc (`many_frames --host`), so
// the definitions are inline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "core/resolver.h"

namespace proctape::bench {

inline constexpr std::int64_t kShell = 900;
inline constexpr std::int64_t kSpawner = 950;
inline constexpr std::int64_t kRoot = 4000;
inline constexpr std::uint64_t kRootStart = 500000;
inline constexpr std::int64_t kSleepPid = 4103;
inline constexpr std::int64_t kFirstWorker = 20000;
inline const Identity kSleepExe{0, 0x803, 1311};
inline const std::string kToken = "3f9c1e7a-5b1d-4c8e-9a0f-2e6d7c1b4a93";

// A stat line shaped like the kernel's: 52 fields, realistic magnitudes.
inline std::string Stat(std::int64_t pid, const std::string& comm, char state, std::int64_t ppid,
                        std::uint64_t start) {
  std::string p = std::to_string(pid);
  std::string s = p + " (" + comm + ") " + state + " " + std::to_string(ppid) + " " + p + " " +
                  std::to_string(kShell) + " 34816 " + p + " 4194560 1183 0 0 0 3 1 0 0 20 0 1 0 " +
                  std::to_string(start) +
                  " 2637824 221 18446744073709551615 94343036166144 94343036178977 "
                  "140726600262224 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94343036189296 "
                  "94343036190760 94343045369856 140726600269585 140726600269640 "
                  "140726600269640 140726600273878 0\n";
  return s;
}

inline std::string Status(std::int64_t pid, const std::string& comm, char state,
                          std::int64_t ppid) {
  std::string p = std::to_string(pid);
  return "Name:\t" + comm + "\nUmask:\t0022\nState:\t" + state + " (sleeping)\nTgid:\t" + p +
         "\nNgid:\t0\nPid:\t" + p + "\nPPid:\t" + std::to_string(ppid) +
         "\nTracerPid:\t0\nUid:\t1001\t1001\t1001\t1001\nGid:\t1001\t1001\t1001\t1001\n"
         "FDSize:\t64\nGroups:\t4 24 27 30 46 100 118 1001 \nNStgid:\t" +
         p + "\nNSpid:\t" + p + "\nNSpgid:\t" + p + "\nNSsid:\t" + std::to_string(kShell) +
         "\nKthread:\t0\nVmPeak:\t    2576 kB\nVmSize:\t    2576 kB\nVmLck:\t       0 kB\n"
         "VmPin:\t       0 kB\nVmHWM:\t     884 kB\nVmRSS:\t     884 kB\nRssAnon:\t      84 kB\n"
         "RssFile:\t     800 kB\nRssShmem:\t       0 kB\nVmData:\t     224 kB\n"
         "VmStk:\t     132 kB\nVmExe:\t      16 kB\nVmLib:\t    1552 kB\nVmPTE:\t      44 kB\n"
         "VmSwap:\t       0 kB\nHugetlbPages:\t       0 kB\nCoreDumping:\t0\nTHP_enabled:\t1\n"
         "untag_mask:\t0xffffffffffffffff\nThreads:\t1\nSigQ:\t0/94226\n"
         "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n"
         "SigIgn:\t0000000000000000\nSigCgt:\t0000000000000000\nCapInh:\t0000000000000000\n"
         "CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t000001ffffffffff\n"
         "CapAmb:\t0000000000000000\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n"
         "Speculation_Store_Bypass:\tthread vulnerable\nSpeculationIndirectBranch:\tconditional "
         "enabled\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\nMems_allowed:\t00000001\n"
         "Mems_allowed_list:\t0\nvoluntary_ctxt_switches:\t2\nnonvoluntary_ctxt_switches:\t0\n";
}

inline std::vector<std::string> CiEnviron(int variant) {
  std::vector<std::string> env = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "HOME=/home/runner",
      "LANG=C.UTF-8",
      "CI=true",
      "GITHUB_ACTIONS=true",
      "GITHUB_WORKSPACE=/home/runner/work/proctape/proctape",
      "GITHUB_REPOSITORY=example/proctape",
      "GITHUB_RUN_ID=" + std::to_string(9123456780 + variant),
      "GITHUB_SHA=4f1d2c3b4a5968778695a4b3c2d1e0f9e8d7c6b5",
      "RUNNER_TEMP=/home/runner/work/_temp",
      "RUNNER_TOOL_CACHE=/opt/hostedtoolcache",
      "ACTIONS_RUNTIME_URL=https://pipelines.actions.githubusercontent.com/abcdefghijklmnop/",
  };
  env.push_back("ACTIONS_RUNTIME_TOKEN=" + std::string(700, 'e'));
  return env;
}

inline void Add(MemoryEvidence& host, std::int64_t pid, std::int64_t ppid, std::uint64_t start,
                const std::string& comm, const std::vector<std::string>& argv,
                const std::vector<std::string>& env, Identity exe) {
  MemoryEvidence::Process& p = host.AddProcess(pid, ppid, start, comm, argv, env, exe);
  p.files[ProcFile::kStat] = StoredRead{0, Stat(pid, comm, 'S', ppid, start), false};
  p.files[ProcFile::kStatus] = StoredRead{0, Status(pid, comm, 'S', ppid), false};
  p.files[ProcFile::kCgroup] =
      StoredRead{0, "0::/user.slice/user-1001.slice/session-4.scope\n", false};
}

// The host: a shell, N idle workers under a spawner, the root and its sandbox.
inline void BuildHost(MemoryEvidence& host, std::int64_t workers, bool with_sleep) {
  Add(host, 2, 0, 2, "kthreadd", {}, {}, Identity{2, 0, 0});
  Add(host, kShell, 1, 400000, "bash", {"-bash"}, CiEnviron(0), Identity{0, 0x803, 66});
  Add(host, kSpawner, kShell, 400100, "spawn_idle", {"spawn_idle", std::to_string(workers)},
      CiEnviron(0), Identity{0, 0x803, 67});
  Add(host, kRoot, kShell, kRootStart, "codex", {"codex", "app-server"}, CiEnviron(0),
      Identity{0, 0x803, 500});
  Add(host, 4001, kRoot, 500100, "node", {"node", "mcp-server.js"}, CiEnviron(0),
      Identity{0, 0x803, 501});
  Add(host, 4100, kRoot, 510000, "bwrap",
      {"bwrap", "--unshare-pid", "--", "/bin/sh", "-c", "echo $$ >m; exec sleep 120"}, CiEnviron(0),
      Identity{0, 0x803, 600});
  Add(host, 4101, 4100, 510001, "bwrap", {"bwrap"}, {}, Identity{0, 0x803, 600});
  std::vector<std::string> sandbox_env = CiEnviron(0);
  sandbox_env.push_back("PROCTAPE_TOKEN=" + kToken);
  Add(host, 4102, 4101, 510002, "sh", {"/bin/sh", "-c", "exec sleep 120"}, sandbox_env,
      Identity{0, 0x803, 1200});
  if (with_sleep) {
    Add(host, kSleepPid, 4102, 510003, "sleep", {"/bin/sleep", "120"}, sandbox_env, kSleepExe);
  }
  for (std::int64_t i = 0; i < workers; ++i) {
    std::int64_t pid = kFirstWorker + i;
    Add(host, pid, kSpawner, 400200 + static_cast<std::uint64_t>(i), "idle_worker",
        {"proctape-bench-worker-" + std::to_string(i), "--queue=default"},
        CiEnviron(static_cast<int>(i % 4)), Identity{0, 0x803, 700});
  }
}

inline Request TheRequest() {
  Request r;
  r.root_pid = kRoot;
  r.root_start_ticks = kRootStart;
  r.token = kToken;
  r.exe = kSleepExe;
  return r;
}

}  // namespace proctape::bench
