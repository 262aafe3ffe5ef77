// replay_bench: how fast replay runs (issue 4, section 6: "replay throughput in
// observations per second and in resolutions per second, from a recorded
// resolution on a host with 10,000 processes; targets: >= 1,000,000
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
// Times are CLOCK_MONOTONIC wall time and the thread's CPU time around the
// call (the file is already in memory: ReadSnapshot is timed apart); medians
// over the R rounds. Throughput: observations consumed per second of median
// tape replay time, and resolutions (whole replays) per second. Also
// reported: recording and read-back time, file sizes.
//
// Output (stdout): a human summary, then one line
//   RESULT key=value ...
// for bench/replay_bench.sh.
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"
#include "capture/recorder.h"
#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "core/resolver.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"
#include "replay/frame_evidence.h"
#include "replay/replay.h"

namespace proctape {
namespace {

std::int64_t ClockNs(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
std::int64_t MonoNs() { return ClockNs(CLOCK_MONOTONIC); }
std::int64_t CpuNs() { return ClockNs(CLOCK_THREAD_CPUTIME_ID); }

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "replay_bench: %s\n", why.c_str());
  std::exit(1);
}

constexpr std::int64_t kShell = 900;
constexpr std::int64_t kSpawner = 950;
constexpr std::int64_t kRoot = 4000;
constexpr std::uint64_t kRootStart = 500000;
constexpr std::int64_t kSleepPid = 4103;
constexpr std::int64_t kFirstWorker = 20000;
const Identity kSleepExe{0, 0x803, 1311};
const std::string kToken = "3f9c1e7a-5b1d-4c8e-9a0f-2e6d7c1b4a93";

// A stat line shaped like the kernel's: 52 fields, realistic magnitudes.
std::string Stat(std::int64_t pid, const std::string& comm, char state, std::int64_t ppid,
                 std::uint64_t start) {
  std::string p = std::to_string(pid);
  std::string s = p + " (" + comm + ") " + state + " " + std::to_string(ppid) + " " + p + " " +
                  std::to_string(kShell) +
                  " 34816 " + p + " 4194560 1183 0 0 0 3 1 0 0 20 0 1 0 " +
                  std::to_string(start) +
                  " 2637824 221 18446744073709551615 94343036166144 94343036178977 "
                  "140726600262224 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94343036189296 "
                  "94343036190760 94343045369856 140726600269585 140726600269640 "
                  "140726600269640 140726600273878 0\n";
  return s;
}

std::string Status(std::int64_t pid, const std::string& comm, char state, std::int64_t ppid) {
  std::string p = std::to_string(pid);
  return "Name:\t" + comm + "\nUmask:\t0022\nState:\t" + state +
         " (sleeping)\nTgid:\t" + p + "\nNgid:\t0\nPid:\t" + p + "\nPPid:\t" +
         std::to_string(ppid) +
         "\nTracerPid:\t0\nUid:\t1001\t1001\t1001\t1001\nGid:\t1001\t1001\t1001\t1001\n"
         "FDSize:\t64\nGroups:\t4 24 27 30 46 100 118 1001 \nNStgid:\t" + p + "\nNSpid:\t" + p +
         "\nNSpgid:\t" + p + "\nNSsid:\t" + std::to_string(kShell) +
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

std::vector<std::string> CiEnviron(int variant) {
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

void Add(MemoryEvidence& host, std::int64_t pid, std::int64_t ppid, std::uint64_t start,
         const std::string& comm, const std::vector<std::string>& argv,
         const std::vector<std::string>& env, Identity exe) {
  MemoryEvidence::Process& p = host.AddProcess(pid, ppid, start, comm, argv, env, exe);
  p.files[ProcFile::kStat] = ReadResult{0, Stat(pid, comm, 'S', ppid, start), false};
  p.files[ProcFile::kStatus] = ReadResult{0, Status(pid, comm, 'S', ppid), false};
  p.files[ProcFile::kCgroup] = ReadResult{0, "0::/user.slice/user-1001.slice/session-4.scope\n", false};
}

// The host: a shell, N idle workers under a spawner, the root and its sandbox.
void BuildHost(MemoryEvidence& host, std::int64_t workers, bool with_sleep) {
  Add(host, 2, 0, 2, "kthreadd", {}, {}, Identity{2, 0, 0});
  Add(host, kShell, 1, 400000, "bash", {"-bash"}, CiEnviron(0), Identity{0, 0x803, 66});
  Add(host, kSpawner, kShell, 400100, "spawn_idle", {"spawn_idle", std::to_string(workers)},
      CiEnviron(0), Identity{0, 0x803, 67});
  Add(host, kRoot, kShell, kRootStart, "codex", {"codex", "app-server"}, CiEnviron(0),
      Identity{0, 0x803, 500});
  Add(host, 4001, kRoot, 500100, "node", {"node", "mcp-server.js"}, CiEnviron(0),
      Identity{0, 0x803, 501});
  Add(host, 4100, kRoot, 510000, "bwrap",
      {"bwrap", "--unshare-pid", "--", "/bin/sh", "-c", "echo $$ >m; exec sleep 120"},
      CiEnviron(0), Identity{0, 0x803, 600});
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

Request TheRequest() {
  Request r;
  r.root_pid = kRoot;
  r.root_start_ticks = kRootStart;
  r.token = kToken;
  r.exe = kSleepExe;
  return r;
}

struct Recorded {
  std::unique_ptr<MemoryEvidence> host;  // the in-memory host it was recorded on
  std::string path;
  Snapshot snapshot;
  std::uint64_t observations = 0;
  double record_s = 0;
  double read_s = 0;
  std::uint64_t file_bytes = 0;
};

void WriteFrame(MemoryEvidence& host, std::uint64_t index, const ScanOptions& scan,
                SnapshotWriter& writer) {
  FrameCallbacks cb;
  cb.begin = [&](std::int64_t t) { writer.BeginFrame(index, t); };
  cb.record = [&](v1::ProcessRecord&& r) { return writer.AddProcess(std::move(r)); };
  ScanStats s = ScanFrame(host, scan, nullptr, cb);
  if (!writer.EndFrame(s.scan_end_mono_ns, s.cut_reason, s.bytes_read)) Die(writer.error());
}

// Records one resolution as `resolve --record` would, then reads it back.
Recorded Record(const std::string& path, std::int64_t workers, bool with_sleep,
                v1::Verdict::Status want) {
  Recorded out;
  out.host = std::make_unique<MemoryEvidence>();
  MemoryEvidence& host = *out.host;
  BuildHost(host, workers, with_sleep);
  Request request = TheRequest();
  const std::string kept = request.token_var + "=" + request.token;
  out.path = path;
  std::int64_t t0 = MonoNs();
  std::string error;
  SnapshotWriter::Options wopts;
  wopts.force = true;
  auto writer = SnapshotWriter::Create(path, wopts, &error);
  if (!writer) Die(error);
  v1::Header header;
  header.set_format_version(1);
  header.set_tool_version(PROCTAPE_VERSION);
  header.set_capturer_uid(1001);
  header.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  header.mutable_redaction()->add_kept_entries(kept);
  if (!writer->WriteHeader(header)) Die(writer->error());
  ScanOptions scan;
  scan.kept_entries = {kept};
  WriteFrame(host, 0, scan, *writer);
  RecordingEvidence recorder(
      host, [&](v1::Observation&& o) { writer->AddObservation(std::move(o)); },
      RecorderOptions{false, {kept}, [&host] { return host.now_ns; }});
  v1::Resolution resolution;
  resolution.set_start_mono_ns(host.now_ns);
  *resolution.mutable_resolve() = ToProto(request);
  resolution.mutable_resolve()->set_exe_path("/bin/sleep");
  Verdict v = Resolve(recorder, request);
  *resolution.mutable_verdict() = ToProto(v);
  resolution.set_end_mono_ns(host.now_ns);
  resolution.set_observation_count(recorder.observations());
  if (!writer->error().empty()) Die(writer->error());
  WriteFrame(host, 1, scan, *writer);
  if (!writer->WriteResolution(resolution)) Die(writer->error());
  if (!writer->Finish(v1::Footer())) Die(writer->error());
  out.file_bytes = writer->bytes_written();
  out.record_s = static_cast<double>(MonoNs() - t0) / 1e9;
  if (resolution.verdict().status() != want) {
    Die("recorded " + v1::Verdict::Status_Name(resolution.verdict().status()) + " (" +
        v.detail + "), wanted " + v1::Verdict::Status_Name(want));
  }
  out.observations = recorder.observations();

  std::int64_t t1 = MonoNs();
  FormatError read = ReadSnapshot(path, &out.snapshot);
  out.read_s = static_cast<double>(MonoNs() - t1) / 1e9;
  if (!read.ok()) Die(path + ": " + read.message);
  if (out.snapshot.resolutions.size() != 1 ||
      out.snapshot.observations.size() != out.observations) {
    Die(path + " did not read back whole");
  }
  return out;
}

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
    std::string tmpl = (std::filesystem::temp_directory_path() / "proctape-replay-bench.XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) Die("mkdtemp failed");
    dir = tmpl;
    made_dir = true;
  }

  std::fprintf(stderr, "replay_bench: recording on a host of %lld idle workers and a sandbox...\n",
               static_cast<long long>(procs));
  Recorded resolved = Record(dir + "/resolved.ptape", procs, true, v1::Verdict::RESOLVED);
  Recorded retry = Record(dir + "/retry.ptape", procs, false, v1::Verdict::NO_MATCH);
  const v1::Verdict& rv = retry.snapshot.resolutions[0].verdict();
  std::int64_t retry_virtual_ns = retry.snapshot.resolutions[0].end_mono_ns() -
                                  retry.snapshot.resolutions[0].start_mono_ns();

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
  std::printf("resolved: RESOLVED, %d attempt, %llu observations; file %llu bytes; "
              "recorded in %.3f s, read back in %.3f s\n",
              static_cast<int>(resolved.snapshot.resolutions[0].verdict().attempts()),
              static_cast<unsigned long long>(resolved.observations),
              static_cast<unsigned long long>(resolved.file_bytes), resolved.record_s,
              resolved.read_s);
  std::printf("retry:    %s, %u attempts over %.3f s (virtual), %llu observations; file %llu "
              "bytes; recorded in %.3f s, read back in %.3f s\n",
              v1::Verdict::Status_Name(rv.status()).c_str(), rv.attempts(),
              static_cast<double>(retry_virtual_ns) / 1e9,
              static_cast<unsigned long long>(retry.observations),
              static_cast<unsigned long long>(retry.file_bytes), retry.record_s, retry.read_s);
  std::printf("medians over %d rounds (after %d warm-up); wall [min..max], CPU:\n", rounds,
              warmup);
  for (int m = 0; m < kModes; ++m) {
    std::printf("  %s %10.3f ms [%.3f..%.3f]  CPU %10.3f ms\n", names[m],
                series[m].MedianWall() * 1e3, series[m].Min() * 1e3, series[m].Max() * 1e3,
                series[m].MedianCpu() * 1e3);
  }
  std::printf("tape replay: resolved %.0f observations/s (CPU: %.0f), %.1f resolutions/s; "
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
      "retry_frames_ms=%.3f resolved_file_bytes=%llu retry_file_bytes=%llu retry_read_s=%.3f\n",
      hosts, rounds, static_cast<unsigned long long>(resolved.observations), res_tape * 1e3,
      series[1].MedianCpu() * 1e3, res_obs_s, 1 / res_tape, series[0].MedianWall() * 1e3,
      series[2].MedianWall() * 1e3, rv.attempts(),
      static_cast<unsigned long long>(retry.observations), ret_tape * 1e3,
      series[4].MedianCpu() * 1e3, ret_obs_s, series[3].MedianWall() * 1e3,
      series[5].MedianWall() * 1e3, static_cast<unsigned long long>(resolved.file_bytes),
      static_cast<unsigned long long>(retry.file_bytes), retry.read_s);
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
