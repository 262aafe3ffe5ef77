// SPDX-License-Identifier: Apache-2.0
#include "tests/shapes/many_frames.h"

#include <cstdint>
#include <memory>

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

}  // namespace

bool WriteManyFrames(const std::string& path, int frames, int processes, std::string* error) {
  SnapshotWriter::Options options;
  options.force = true;
  Failure refused;
  std::unique_ptr<SnapshotWriter> w = SnapshotWriter::Create(path, options, &refused);
  if (!w) {
    *error = refused.message;
    return false;
  }
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

bool WriteLongTape(const std::string& path, int observations, std::string* error) {
  SnapshotWriter::Options options;
  options.force = true;
  Failure refused;
  std::unique_ptr<SnapshotWriter> w = SnapshotWriter::Create(path, options, &refused);
  if (!w) {
    *error = refused.message;
    return false;
  }
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
