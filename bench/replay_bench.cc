// SPDX-License-Identifier: Apache-2.0
// replay_bench: how fast replay runs (BENCHMARKS.md, "Replay": replay
// throughput in observations per second and in resolutions per second, from a
// recorded resolution on a host with 10,000 processes; targets: >= 1,000,000
// observations/s and a recorded 5 s retry loop replayed in under 50 ms").
//
//   replay_bench [--procs N] [--rounds R] [--warmup W] [--dir DIR] [--keep]
//
// The recordings are made here, not on a live host, by the real recording
// path: the resolver runs through a RecordingEvidence around a MemoryEvidence
// host of N idle workers (default 10,000; children of a spawner, as
// bench/spawn_idle starts them) plus a shell, the fingerprinted root, and a
// sandbox chain beneath it. Every file holds realistic bytes: kernel-shaped
// stat lines (~270 bytes), a worker argv, a CI job's environment (~1.3 KB,
// redacted as `resolve --record` stores it, the token entry kept) and a
// ~1.2 KB status. Each recording is written as `resolve --record` writes it
// (SnapshotWriter: header, a frame before, the tape, a frame after, the
// Resolution, footer) into DIR and read back with ReadSnapshot; replay then
// runs on what was read, exactly as `proctape replay FILE` does after reading.
//
//   resolved  the sleep is there: RESOLVED in one attempt (one listing, N+
//             stat reads, each followed by a clock reading, ...).
//   retry     the sandbox never exec'd the sleep: NO_MATCH after 51 attempts,
//             a 5 s retry loop (the host's virtual clock does not move by
//             itself, so attempts start exactly 100 ms apart and the 51st is
//             the last before the deadline).
//
// Measured for each recording, R rounds after W discarded warm-up rounds,
// each round running all six (recording x mode) once, in alternation (the
// first rotates every round):
//   memory   Resolve on the in-memory host itself: the resolver alone, with
//            the cheapest evidence there is — the floor under any replay.
//   tape     ReplayResolution (replay/replay.h): the tape model; must be
//            REPRODUCED with every observation consumed.
//   frames   RerunOnFrames (replay/frame_evidence.h): the frame model; must
//            reach the recorded decision.
// Times are CLOCK_MONOTONIC wall time and the thread's CPU time around the call
// (the file is already in memory: ReadSnapshot is timed apart); medians over
// the R rounds. Throughput: observations consumed per second of median tape
// replay time, and resolutions (whole replays) per second; and, for the
// resolver alone (BENCHMARKS.md, "Replay: the resolver at 10 M
// observations/s"), the retry loop's observations per second of its median CPU
// time. Also reported: recording and read-back time, file sizes.
//
// Output (stdout): a human summary, then one line
//   RESULT key=value ...
//
// The host: bench/replay_bench_host.h; the clocks and the recordings:
// bench/replay_bench_record.h; here, the timed runs, the rounds and the report.
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/replay_bench_host.h"
#include "bench/replay_bench_record.h"
#include "core/resolver.h"
#include "proto/convert.h"
#include "replay/frame_evidence.h"
#include "replay/replay.h"

namespace proctape {
namespace {

using namespace bench;  // the host, the clocks, Die, Record

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Wall and CPU time of one run.
struct Timing {
  double wall = 0;
  double cpu = 0;
};

template <typename F>
Timing Time(F&& run) {
  std::int64_t w = MonoNs();
  std::int64_t c = CpuNs();
  run();
  return Timing{static_cast<double>(MonoNs() - w) / 1e9, static_cast<double>(CpuNs() - c) / 1e9};
}

// The floor: the resolver alone, on the in-memory host the file was recorded
// on (no recording, no replay).
Timing TimeMemory(const Recorded& r) {
  Verdict v;
  Timing t = Time([&] { v = Resolve(*r.host, TheRequest()); });
  if (ToProto(v).status() != r.snapshot.resolutions[0].verdict().status()) {
    Die(r.path + ": the in-memory host decided otherwise: " + v.detail);
  }
  return t;
}

// One tape replay; aborts unless it reproduced every observation.
Timing TimeTape(const Recorded& r) {
  v1::ReplayResult result;
  Timing t = Time([&] { result = ReplayResolution(r.snapshot, 0, RequestOverrides{}); });
  if (result.outcome() != v1::ReplayResult::REPRODUCED || result.consumed() != r.observations) {
    Die(r.path + ": tape replay did not reproduce: " + DescribeReplay(result));
  }
  return t;
}

// One frame-model run; aborts unless it reached the recorded decision.
Timing TimeFrames(const Recorded& r, std::uint64_t* calls) {
  FrameRun run;
  Timing t = Time([&] { run = RerunOnFrames(r.snapshot, 0, RequestOverrides{}); });
  if (!run.same_decision) Die(r.path + ": frame model decided otherwise: " + DescribeFrameRun(run));
  *calls = run.calls;
  return t;
}

// Per mode: the timings of the measured rounds.
struct Series {
  std::vector<double> wall;
  std::vector<double> cpu;
  void Add(const Timing& t) {
    wall.push_back(t.wall);
    cpu.push_back(t.cpu);
  }
  double MedianWall() const { return Median(wall); }
  double MedianCpu() const { return Median(cpu); }
  double Min() const { return *std::min_element(wall.begin(), wall.end()); }
  double Max() const { return *std::max_element(wall.begin(), wall.end()); }
};

int Main(int argc, char** argv) {
  std::int64_t procs = 10000;
  int rounds = 11;
  int warmup = 1;
  std::string dir;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--procs") {
      procs = std::atoll(value().c_str());
    } else if (a == "--rounds") {
      rounds = std::atoi(value().c_str());
    } else if (a == "--warmup") {
      warmup = std::atoi(value().c_str());
    } else if (a == "--dir") {
      dir = value();
    } else if (a == "--keep") {
      keep = true;
    } else {
      std::fprintf(stderr,
                   "usage: replay_bench [--procs N] [--rounds R] [--warmup W] [--dir DIR] "
                   "[--keep]\n");
      return 2;
    }
  }
  if (procs < 1 || procs > 1'000'000) Die("--procs must be in 1..1000000");
  if (rounds < 1 || warmup < 0) Die("--rounds must be >= 1 and --warmup >= 0");
  bool made_dir = false;
  if (dir.empty()) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "proctape-replay-bench.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) Die("mkdtemp failed");
    dir = tmpl;
    made_dir = true;
  }

  std::fprintf(stderr, "replay_bench: recording on a host of %lld idle workers and a sandbox...\n",
               static_cast<long long>(procs));
  Recorded resolved = Record(dir + "/resolved.ptape", procs, true, v1::Verdict::RESOLVED);
  Recorded retry = Record(dir + "/retry.ptape", procs, false, v1::Verdict::NO_MATCH);
  const v1::Verdict& rv = retry.snapshot.resolutions[0].verdict();
  std::int64_t retry_virtual_ns =
      retry.snapshot.resolutions[0].end_mono_ns() - retry.snapshot.resolutions[0].start_mono_ns();

  // Modes: 0 memory, 1 tape, 2 frames; of the resolved (0..2) and retry
  // (3..5) recordings. Each round runs all six, the first rotating.
  constexpr int kModes = 6;
  const char* names[kModes] = {"memory resolved", "tape   resolved", "frames resolved",
                               "memory retry   ", "tape   retry   ", "frames retry   "};
  Series series[kModes];
  std::uint64_t frame_calls[2] = {0, 0};
  std::fprintf(stderr, "replay_bench: %d warm-up + %d rounds...\n", warmup, rounds);
  for (int r = 0; r < warmup + rounds; ++r) {
    Timing t[kModes];
    for (int k = 0; k < kModes; ++k) {
      int m = (r + k) % kModes;
      const Recorded& rec = m < 3 ? resolved : retry;
      switch (m % 3) {
        case 0: t[m] = TimeMemory(rec); break;
        case 1: t[m] = TimeTape(rec); break;
        default: t[m] = TimeFrames(rec, &frame_calls[m / 3]); break;
      }
    }
    if (r < warmup) continue;
    for (int m = 0; m < kModes; ++m) series[m].Add(t[m]);
  }

  const double res_tape = series[1].MedianWall();
  const double ret_tape = series[4].MedianWall();
  const double res_obs_s = static_cast<double>(resolved.observations) / res_tape;
  const double ret_obs_s = static_cast<double>(retry.observations) / ret_tape;
  const double res_obs_cpu = static_cast<double>(resolved.observations) / series[1].MedianCpu();
  const double ret_obs_cpu = static_cast<double>(retry.observations) / series[4].MedianCpu();
  const auto hosts = static_cast<long long>(resolved.snapshot.frames[0].processes_size());

  std::printf("host: %lld processes (%lld idle workers); files in %s\n", hosts,
              static_cast<long long>(procs), dir.c_str());
  std::printf(
      "resolved: RESOLVED, %d attempt, %llu observations; file %llu bytes; "
      "recorded in %.3f s, read back in %.3f s\n",
      static_cast<int>(resolved.snapshot.resolutions[0].verdict().attempts()),
      static_cast<unsigned long long>(resolved.observations),
      static_cast<unsigned long long>(resolved.file_bytes), resolved.record_s, resolved.read_s);
  std::printf(
      "retry:    %s, %u attempts over %.3f s (virtual), %llu observations; file %llu "
      "bytes; recorded in %.3f s, read back in %.3f s\n",
      v1::Verdict::Status_Name(rv.status()).c_str(), rv.attempts(),
      static_cast<double>(retry_virtual_ns) / 1e9,
      static_cast<unsigned long long>(retry.observations),
      static_cast<unsigned long long>(retry.file_bytes), retry.record_s, retry.read_s);
  std::printf("medians over %d rounds (after %d warm-up); wall [min..max], CPU:\n", rounds, warmup);
  for (int m = 0; m < kModes; ++m) {
    std::printf("  %s %10.3f ms [%.3f..%.3f]  CPU %10.3f ms\n", names[m],
                series[m].MedianWall() * 1e3, series[m].Min() * 1e3, series[m].Max() * 1e3,
                series[m].MedianCpu() * 1e3);
  }
  std::printf(
      "tape replay: resolved %.0f observations/s (CPU: %.0f), %.1f resolutions/s; "
      "retry %.0f observations/s (CPU: %.0f); targets >= 1000000 observations/s, "
      "5 s loop < 50 ms\n",
      res_obs_s, res_obs_cpu, 1 / res_tape, ret_obs_s, ret_obs_cpu);
  std::printf("frame model: %llu calls (resolved), %llu calls (retry)\n",
              static_cast<unsigned long long>(frame_calls[0]),
              static_cast<unsigned long long>(frame_calls[1]));
  std::printf(
      "RESULT procs=%lld rounds=%d resolved_obs=%llu resolved_tape_ms=%.3f "
      "resolved_tape_cpu_ms=%.3f resolved_obs_per_s=%.0f resolved_res_per_s=%.1f "
      "resolved_memory_ms=%.3f resolved_frames_ms=%.3f retry_attempts=%u retry_obs=%llu "
      "retry_tape_ms=%.3f retry_tape_cpu_ms=%.3f retry_obs_per_s=%.0f retry_memory_ms=%.3f "
      "retry_frames_ms=%.3f resolved_file_bytes=%llu retry_file_bytes=%llu retry_read_s=%.3f "
      "resolved_memory_cpu_ms=%.3f retry_memory_cpu_ms=%.3f retry_memory_obs_per_cpu_s=%.0f\n",
      hosts, rounds, static_cast<unsigned long long>(resolved.observations), res_tape * 1e3,
      series[1].MedianCpu() * 1e3, res_obs_s, 1 / res_tape, series[0].MedianWall() * 1e3,
      series[2].MedianWall() * 1e3, rv.attempts(),
      static_cast<unsigned long long>(retry.observations), ret_tape * 1e3,
      series[4].MedianCpu() * 1e3, ret_obs_s, series[3].MedianWall() * 1e3,
      series[5].MedianWall() * 1e3, static_cast<unsigned long long>(resolved.file_bytes),
      static_cast<unsigned long long>(retry.file_bytes), retry.read_s, series[0].MedianCpu() * 1e3,
      series[3].MedianCpu() * 1e3, static_cast<double>(retry.observations) / series[3].MedianCpu());
  if (!keep) {
    std::error_code ec;
    std::filesystem::remove(resolved.path, ec);
    std::filesystem::remove(retry.path, ec);
    if (made_dir) std::filesystem::remove(dir, ec);
  }
  return 0;
}

}  // namespace
}  // namespace proctape

int main(int argc, char** argv) { return proctape::Main(argc, argv); }
