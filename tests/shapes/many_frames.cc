// SPDX-License-Identifier: Apache-2.0
#include "tests/shapes/many_frames.h"

#include <cstdint>
#include <memory>

#include "bench/replay_bench_host.h"
#include "format/writer.h"
#include "proctape.pb.h"

using namespace std::string_literals;

namespace proctape::shapes {
namespace {

// A record of a quiet host: distinct bytes per process and frame.
v1::ProcessRecord Record(int frame, int i) {
  v1::ProcessRecord p;
  const std::string pid = std::to_string(1000 + i);
  p.set_pid(1000 + i);
  p.mutable_stat()->set_data(
      pid + " (worker) S 1 " + pid + " " + pid + " 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 " +
      std::to_string(5000 + i) + " 2265088 130 " + std::to_string(frame) + "\n");
  p.mutable_cmdline()->set_data("/usr/lib/worker\0--id\0"s + pid + '\0');
  std::string env;
  for (int k = 0; k < 16; ++k) {
    env += "VAR_" + std::to_string(k) + "=value-" + pid + "-" + std::to_string(frame * 16 + k) +
           "-" + std::string(40, static_cast<char>('a' + k)) + '\0';
  }
  p.mutable_environ()->set_data(env);
  // Every record is a root "worker": `show --uid 0` and `--comm worker`
  // select all of them.
  p.mutable_status()->set_data("Name:\tworker\nPid:\t" + pid + "\nUid:\t0\t0\t0\t0\nNSpid:\t" +
                               pid + "\n");
  return p;
}

v1::FileRead* Read(v1::FileRead* read, std::string data, std::uint64_t bound) {
  read->set_data(std::move(data));
  read->set_bound(bound);
  return read;
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& part : parts) s += part + '\0';
  return s;
}

// One process of the host of bench/replay_bench_host.h as frame `frame`
// captures it; `moved`: its stat's minflt and its voluntary context
// switches are this frame's.
v1::ProcessRecord HostRecord(std::int64_t pid, std::int64_t ppid, std::uint64_t start,
                             const std::string& comm, const std::vector<std::string>& argv,
                             const std::vector<std::string>& env, std::uint64_t exe_ino, int frame,
                             bool moved) {
  v1::ProcessRecord p;
  p.set_pid(pid);
  std::string stat = bench::Stat(pid, comm, 'S', ppid, start);
  std::string status = bench::Status(pid, comm, 'S', ppid);
  if (moved) {
    const std::string minflt = " 4194560 1183 ";
    stat.replace(stat.find(minflt), minflt.size(),
                 " 4194560 " + std::to_string(1183 + frame) + " ");
    const std::string switches = "\nvoluntary_ctxt_switches:\t2\n";
    status.replace(status.find(switches), switches.size(),
                   "\nvoluntary_ctxt_switches:\t" + std::to_string(2 + frame) + "\n");
  }
  Read(p.mutable_stat(), std::move(stat), 4096);
  Read(p.mutable_cmdline(), Joined(argv), 65536);
  Read(p.mutable_environ(), Joined(env), 65536);
  Read(p.mutable_status(), std::move(status), 16384);
  Read(p.mutable_cgroup(), "0::/user.slice/user-1001.slice/session-4.scope\n", 4096);
  p.mutable_exe()->set_dev(0x803);
  p.mutable_exe()->set_ino(exe_ino);
  p.mutable_pid_ns()->set_dev(4);
  p.mutable_pid_ns()->set_ino(4026531836);
  return p;
}

// A writer of `path`, replacing a file there; null with *error when refused.
std::unique_ptr<SnapshotWriter> CreateReplacing(const std::string& path, std::string* error) {
  SnapshotWriter::Options options;
  options.force = true;
  Failure refused;
  std::unique_ptr<SnapshotWriter> w = SnapshotWriter::Create(path, options, &refused);
  if (!w) *error = refused.message;
  return w;
}

}  // namespace

bool WriteManyFrames(const std::string& path, int frames, int processes, std::string* error) {
  std::unique_ptr<SnapshotWriter> w = CreateReplacing(path, error);
  if (!w) return false;
  v1::Header h;
  h.set_tool_version("many_frames");
  h.mutable_host()->set_clock_ticks_per_second(100);
  bool ok = w->WriteHeader(h);
  for (int f = 0; ok && f < frames; ++f) {
    ok = w->BeginFrame(static_cast<std::uint64_t>(f), f * 1000);
    for (int i = 0; ok && i < processes; ++i) ok = w->AddProcess(Record(f, i));
    ok = ok && w->EndFrame(f * 1000 + 500, "", 1);
  }
  ok = ok && w->Finish(v1::Footer{});
  if (!ok) *error = path + ": " + w->error();
  return ok;
}

bool WriteHostFrames(const std::string& path, int frames, int processes, std::string* error) {
  std::unique_ptr<SnapshotWriter> w = CreateReplacing(path, error);
  if (!w) return false;
  v1::Header h;
  h.set_tool_version("many_frames --host");
  h.mutable_host()->set_clock_ticks_per_second(100);
  h.mutable_host()->set_page_size(4096);
  h.mutable_host()->set_pid_max(4194304);
  bool ok = w->WriteHeader(h);
  const std::vector<std::string> ci = bench::CiEnviron(0);
  for (int f = 0; ok && f < frames; ++f) {
    ok = w->BeginFrame(static_cast<std::uint64_t>(f), f * 100'000'000LL);
    ok = ok && w->AddProcess(HostRecord(1, 0, 1, "systemd", {"/sbin/init"}, {}, 10, f, false));
    ok = ok &&
         w->AddProcess(HostRecord(bench::kShell, 1, 400000, "bash", {"-bash"}, ci, 66, f, false));
    ok = ok &&
         w->AddProcess(HostRecord(bench::kSpawner, bench::kShell, 400100, "spawn_idle",
                                  {"spawn_idle", std::to_string(processes)}, ci, 67, f, false));
    for (int i = 0; ok && i < processes; ++i) {
      const bool moved = f > 0 && i % 50 == f % 50;
      ok = w->AddProcess(HostRecord(
          bench::kFirstWorker + i, bench::kSpawner, 400200 + static_cast<std::uint64_t>(i),
          "idle_worker", {"proctape-bench-worker-" + std::to_string(i), "--queue=default"},
          bench::CiEnviron(i % 4), 700, f, moved));
    }
    ok = ok && w->EndFrame(f * 100'000'000LL + 50'000'000, "", 1);
  }
  ok = ok && w->Finish(v1::Footer{});
  if (!ok) *error = path + ": " + w->error();
  return ok;
}

bool WriteLongTape(const std::string& path, int observations, std::string* error) {
  std::unique_ptr<SnapshotWriter> w = CreateReplacing(path, error);
  if (!w) return false;
  v1::Header h;
  h.set_tool_version("many_frames");
  h.mutable_host()->set_clock_ticks_per_second(100);
  bool ok = w->WriteHeader(h);
  for (int i = 0; ok && i < observations; ++i) {
    v1::Observation o;
    o.set_index(static_cast<std::uint64_t>(i));
    o.set_mono_ns(i);
    v1::Observation::ReadFile* read = o.mutable_read_file();
    read->set_pid(1000);
    read->set_file(v1::PROC_FILE_ENVIRON);
    read->mutable_result()->set_bound(1u << 20);
    read->mutable_result()->set_data("N=" + std::to_string(i) + '\0' +
                                     std::string(1024, static_cast<char>('a' + i % 26)));
    ok = w->AddObservation(std::move(o));
  }
  v1::Resolution r;
  r.mutable_resolve()->set_root_pid(1000);
  r.mutable_resolve()->set_root_start_ticks(5000);
  r.mutable_resolve()->set_token("t");
  r.mutable_verdict()->set_status(v1::Verdict::NO_MATCH);
  r.set_first_observation(0);
  r.set_observation_count(static_cast<std::uint64_t>(observations));
  r.set_end_mono_ns(observations);
  ok = ok && w->WriteResolution(r);
  ok = ok && w->Finish(v1::Footer{});
  if (!ok) *error = path + ": " + w->error();
  return ok;
}

}  // namespace proctape::shapes
