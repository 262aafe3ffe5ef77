// SPDX-License-Identifier: Apache-2.0
#include "tests/hostile/recording.h"

#include <unordered_map>
#include <utility>

#include "capture/frame_scanner.h"
#include "capture/recorder.h"
#include "format/tape_calls.h"
#include "proto/convert.h"

namespace proctape::hostile {
namespace {

std::string TokenEntry(const std::string& token) { return std::string(kTokenVar) + "=" + token; }

// Every process beneath the root started in the same clock tick, in the
// root's process group and session: its stat differs from its neighbour's
// in its pid and parent pid only, so that a file of 60,000 of them stays
// under 1 MiB (zstd cannot shorten a counting sequence).
void AddBelowRoot(MemoryEvidence& host, std::uint32_t n, const std::string& token, bool chain) {
  const std::uint64_t start = kRootStart + 1;
  for (std::uint32_t k = 1; k <= n; ++k) {
    const std::int64_t pid = HostPid(k);
    const std::int64_t ppid = chain && k > 1 ? pid - 1 : kRootPid;
    const bool sleep = k == n;
    const std::string comm = sleep ? "sleep" : "sh";
    if (sleep) {
      host.AddProcess(pid, ppid, start, comm, {"/bin/sleep", "120"}, {TokenEntry(token)},
                      kSleepExe);
    } else {
      host.AddProcess(pid, ppid, start, comm, {"/bin/sh", "-c", "exec sleep 120"}, {"HOME=/root"},
                      kShellExe);
    }
    std::string stat = MemoryEvidence::StatLine(pid, comm, 'S', ppid, start);
    const std::string p = std::to_string(ppid), root = std::to_string(kRootPid);
    const std::string ids = " " + p + " " + p + " " + p + " ";  // ppid, pgrp, session
    stat.replace(stat.find(ids), ids.size(), " " + p + " " + root + " " + root + " ");
    host.SetFile(pid, ProcFile::kStat, stat);
  }
}

v1::Header HeaderOf(const Request& request, const RecordOptions& options, std::int64_t now) {
  v1::Header h = HostileHeader(options.token);
  for (const char* word : {"proctape", "resolve", "--record", "hostile.ptape"}) {
    h.add_command_line(word);
  }
  h.set_capture_start_mono_ns(now);
  *h.mutable_bounds() = ToProto(request.bounds);
  if (options.keep_environ) h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_KEPT);
  return h;
}

// Each observation whose result is its call's last result, byte for byte,
// made "the same as" that observation (docs/format.md 9a).
void SameAs(std::vector<v1::Observation>* tape) {
  struct Last {
    std::uint64_t index = 0;
    std::string result;
  };
  std::unordered_map<CallKey, Last, CallKeyHash> last;
  for (v1::Observation& o : *tape) {
    CallKey key = SameAsKey(o);
    if (key.empty()) continue;
    std::string result = ResultBytes(o);
    auto it = last.find(key);
    if (it != last.end() && it->second.result == result) {
      o.set_same_as(o.index() - it->second.index);
      ClearResult(&o);
      it->second.index = o.index();
      continue;
    }
    last[std::move(key)] = Last{o.index(), std::move(result)};
  }
}

}  // namespace

v1::Header HostileHeader(const std::string& token) {
  v1::Header h;
  h.set_tool_version("hostile");
  h.mutable_host()->set_hostname("hostile");
  h.mutable_host()->set_boot_id("00000000-0000-4000-8000-000000000000\n");
  h.mutable_host()->set_pid_max(4194304);
  h.mutable_host()->set_clock_ticks_per_second(100);
  h.mutable_host()->set_page_size(4096);
  h.set_capturer_pid_ns_inode(4026531836);  // the initial pid namespace's
  h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  if (!token.empty()) h.mutable_redaction()->add_kept_entries(TokenEntry(token));
  return h;
}

void AddRoot(MemoryEvidence& host) {
  host.AddProcess(1, 0, 1, "init", {"/sbin/init"}, {}, Identity{0, 0x803, 2});
  host.AddProcess(kRootPid, 1, kRootStart, "shell", {"/bin/sh"}, {}, Identity{0, 0x803, 3});
}

void AddStar(MemoryEvidence& host, std::uint32_t n, const std::string& token) {
  AddBelowRoot(host, n, token, false);
}

void AddChain(MemoryEvidence& host, std::uint32_t n, const std::string& token) {
  AddBelowRoot(host, n, token, true);
}

Request SleepRequest(const std::string& token) {
  Request r;
  r.root_pid = kRootPid;
  r.root_start_ticks = kRootStart;
  r.token = token;
  r.token_var = kTokenVar;
  r.exe = kSleepExe;
  return r;
}

v1::Frame Scan(MemoryEvidence& host, const RecordOptions& options) {
  ScanOptions scan;
  scan.keep_environ = options.keep_environ;
  scan.kept_entries = {TokenEntry(options.token)};
  v1::Frame frame;
  FrameCallbacks cb;
  cb.begin = [&](std::int64_t t) { frame.set_scan_start_mono_ns(t); };
  cb.record = [&](v1::ProcessRecord&& r) {
    *frame.add_processes() = std::move(r);
    return true;
  };
  const ScanStats s = ScanFrame(host, scan, nullptr, cb);
  frame.set_scan_end_mono_ns(s.scan_end_mono_ns);
  frame.set_bytes_read(s.bytes_read);
  frame.set_complete(true);
  return frame;
}

Recording Record(MemoryEvidence& host, const Request& request, const RecordOptions& options) {
  Recording out;
  out.header = HeaderOf(request, options, host.now_ns);
  out.before = Scan(host, options);
  RecorderOptions recorder_options{
      options.keep_environ, {TokenEntry(options.token)}, [&host] { return host.now_ns; }};
  RecordingEvidence recorder(
      host, [&](v1::Observation&& o) { out.tape.push_back(std::move(o)); }, recorder_options);
  out.resolution.set_start_mono_ns(host.now_ns);
  *out.resolution.mutable_resolve() = ToProto(request);
  out.resolution.mutable_resolve()->set_exe_path("/bin/sleep");
  *out.resolution.mutable_verdict() = ToProto(Resolve(recorder, request));
  out.resolution.set_end_mono_ns(host.now_ns);
  out.resolution.set_observation_count(recorder.observations());
  out.after = Scan(host, options);
  return out;
}

void WriteRecording(const Recording& recording, FileBuilder* file, const WriteOptions& options) {
  file->AddHeader(recording.header);
  WriteRecordingBody(recording, file, options);
}

void WriteRecordingBody(const Recording& recording, FileBuilder* file,
                        const WriteOptions& options) {
  if (options.frames) file->AddFrame(recording.before, options.chunk_bytes);
  v1::Resolution resolution = recording.resolution;
  resolution.set_first_observation(file->observations());
  std::vector<v1::Observation> tape = recording.tape;
  for (v1::Observation& o : tape) o.set_index(o.index() + file->observations());
  if (options.same_as) SameAs(&tape);
  file->AddObservations(tape, options.chunk_bytes);
  v1::Chunk chunk;
  *chunk.mutable_resolution() = resolution;
  for (std::uint32_t i = 0; i < options.copies; ++i) file->Add(chunk);
  if (options.frames) file->AddFrame(recording.after, options.chunk_bytes);
  file->AddFooter(recording.after.scan_end_mono_ns());
}

}  // namespace proctape::hostile
