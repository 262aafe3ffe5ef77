// SPDX-License-Identifier: Apache-2.0
// A test utility for the replay issue: records one resolution or liveness
// check, run on an in-memory host (MemoryEvidence, FakeHost), through the real
// recorder (RecordingEvidence) into a real .ptape file written by the real
// SnapshotWriter, laid out as `proctape resolve --record` lays out a live
// recording (capture/live_record.h):
//
//   header, [frame 0], the tape, [frame 1], Resolution{request, verdict,
//   first_observation 0, observation_count}, footer
//
// As the CLI does, environ values are redacted in tape and frames alike,
// except the token entry (TOKEN_VAR=TOKEN) of a resolution, which is kept
// verbatim and listed in the header's redaction policy.
//
// Everything is deterministic: the recorder's time stamps and the header's
// times come from the host's virtual clock (read without advancing it), and
// the header holds fixed host facts and the file's name (not its directory),
// so one scenario always gives the same bytes.
//
// Frames are optional (RecordOptions::frames). They are scanned by the real
// frame scanner from a copy of the host's table (sliced to MemoryEvidence:
// no call log, no hooks), so scanning them changes neither the host, nor its
// clock, nor what the check sees.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "capture/frame_scanner.h"
#include "capture/live_checks.h"
#include "capture/recorder.h"
#include "core/memory_evidence.h"
#include "core/resolver.h"
#include "format/reader.h"
#include "format/writer.h"
#include "tests/shapes/snapshot_copy.h"
#include "proto/convert.h"

namespace proctape::test {

// A fresh directory (under $TMPDIR or /tmp), removed with its contents.
class ReplayTempDir {
 public:
  ReplayTempDir() {
    const char* base = ::getenv("TMPDIR");
    std::string tmpl =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/proctape-replay-XXXXXX";
    if (::mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ReplayTempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  ReplayTempDir(const ReplayTempDir&) = delete;
  ReplayTempDir& operator=(const ReplayTempDir&) = delete;

  bool ok() const { return !path_.empty(); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct RecordOptions {
  bool frames = false;  // frame 0 before the check, frame 1 after
  // As `proctape resolve` without --root-start: the request's start time is
  // ignored, the root is fingerprinted first through the recorder (the tape
  // begins with that stat read; a failed fingerprint is the verdict) and the
  // request is stored with fingerprint_on_tape. Otherwise as with
  // --root-start: the tape is the resolver's alone.
  bool fingerprint = false;
  // As `proctape resolve --fingerprint FILE`: the request's root pid, start
  // time and executable identity are this fingerprint's (taken before the
  // turn), and the request stores it. Excludes `fingerprint`.
  std::optional<v1::RootFingerprint> before_turn;
  bool keep_environ = false;  // store environ values as read
  std::string exe_path = "/bin/sleep";
};

// What a recording produced.
struct Recorded {
  bool ok = false;
  std::string error;               // why the file could not be written
  Verdict verdict;                 // resolutions
  LivenessVerdict liveness;        // liveness checks
  std::uint64_t observations = 0;  // the tape's length
};

namespace fixture_detail {

inline v1::Header MakeHeader(std::int64_t now_ns, const RecordOptions& options,
                             const std::vector<std::string>& kept_entries,
                             std::vector<std::string> command_line) {
  v1::Header header;
  header.set_tool_version("replay-fixture");
  v1::HostFacts* host = header.mutable_host();
  host->set_hostname("fake-host");
  host->set_kernel_release("6.1.0-fake");
  host->set_boot_id("00000000-0000-4000-8000-000000000000\n");
  host->set_pid_max(4194304);
  host->set_clock_ticks_per_second(100);
  host->set_page_size(4096);
  header.set_capture_start_mono_ns(now_ns);
  header.set_capture_start_realtime_ns(1'700'000'000'000'000'000);
  header.set_capturer_pid(4242);
  v1::RedactionPolicy* redaction = header.mutable_redaction();
  redaction->set_environ(options.keep_environ ? v1::RedactionPolicy::ENVIRON_KEPT
                                              : v1::RedactionPolicy::ENVIRON_REDACTED);
  for (const auto& kept : kept_entries) redaction->add_kept_entries(kept);
  for (auto& arg : command_line) header.add_command_line(std::move(arg));
  return header;
}

// One frame of the host as it is now, from a copy of its table.
inline bool WriteFrame(const MemoryEvidence& host, const RecordOptions& options,
                       const std::vector<std::string>& kept_entries, std::uint64_t index,
                       SnapshotWriter& writer) {
  MemoryEvidence copy(host);  // sliced: no log, no hooks
  copy.on_sleep = nullptr;
  ScanOptions scan;
  scan.keep_environ = options.keep_environ;
  scan.kept_entries = kept_entries;
  FrameCallbacks callbacks;
  callbacks.begin = [&writer, index](std::int64_t t) { writer.BeginFrame(index, t); };
  callbacks.record = [&writer](v1::ProcessRecord&& r) { return writer.AddProcess(std::move(r)); };
  ScanStats s = ScanFrame(copy, scan, PidNamespaceFn{}, callbacks);
  return writer.EndFrame(s.scan_end_mono_ns, s.cut_reason, s.bytes_read);
}

// Runs `check` through a recorder between the optional frames and writes the
// file, as RecordLive does.
inline Recorded Record(MemoryEvidence& host, const std::string& path, const RecordOptions& options,
                       const std::vector<std::string>& kept_entries,
                       std::vector<std::string> command_line,
                       const std::function<void(Evidence&, v1::Resolution*, Recorded*)>& check) {
  Recorded out;
  SnapshotWriter::Options wopts;
  wopts.force = true;
  Failure refused;
  auto writer = SnapshotWriter::Create(path, wopts, &refused);
  if (!writer) {
    out.error = refused.message;
    return out;
  }
  auto failed = [&] {
    out.error = writer->error();
    return out;
  };
  v1::Header header = MakeHeader(host.now_ns, options, kept_entries, std::move(command_line));
  if (!writer->WriteHeader(header)) return failed();
  if (options.frames && !WriteFrame(host, options, kept_entries, 0, *writer)) return failed();

  RecorderOptions ropts;
  ropts.keep_environ = options.keep_environ;
  ropts.kept_entries = kept_entries;
  ropts.clock = [&host] { return host.now_ns; };  // virtual, and not a call
  RecordingEvidence recorder(
      host, [&writer](v1::Observation&& o) { writer->AddObservation(std::move(o)); }, ropts);
  v1::Resolution resolution;
  resolution.set_first_observation(0);
  resolution.set_start_mono_ns(host.now_ns);
  check(recorder, &resolution, &out);
  resolution.set_end_mono_ns(host.now_ns);
  resolution.set_observation_count(recorder.observations());
  out.observations = recorder.observations();
  if (!writer->error().empty()) return failed();

  if (options.frames && !WriteFrame(host, options, kept_entries, 1, *writer)) return failed();
  if (!writer->WriteResolution(resolution)) return failed();
  v1::Footer footer;
  footer.set_capture_end_mono_ns(host.now_ns);
  if (!writer->Finish(footer)) return failed();
  out.ok = true;
  return out;
}

}  // namespace fixture_detail

// Records Resolve(host, request) into `path`, like
// `proctape resolve ... --record path` (with --root-start, unless
// options.fingerprint or options.before_turn): the request (with exe_path,
// and the fingerprint it was given) and the verdict (late_fingerprint when
// the root was fingerprinted on the tape) as the CLI stores them.
inline Recorded RecordResolution(MemoryEvidence& host, const Request& request,
                                 const std::string& path, const RecordOptions& options = {}) {
  std::string token_entry = request.token_var;
  token_entry.append("=").append(request.token);
  return fixture_detail::Record(
      host, path, options, {token_entry},
      {"proctape", "resolve", "--root", std::to_string(request.root_pid), "--token", request.token,
       "--record", std::filesystem::path(path).filename().string()},
      [&](Evidence& ev, v1::Resolution* r, Recorded* out) {
        Request asked = request;
        if (options.before_turn) ApplyFingerprint(*options.before_turn, &asked);
        bool read_late = false;
        if (options.fingerprint) {
          asked.root_start_ticks = 0;  // not given: found by the fingerprint
          Verdict fingerprint = FingerprintRoot(ev, asked.root_pid);
          if (fingerprint.resolved()) {
            asked.root_start_ticks = fingerprint.start_ticks;
            out->verdict = Resolve(ev, asked);
            read_late = true;
          } else {
            out->verdict = fingerprint;
          }
        } else {
          out->verdict = Resolve(ev, asked);
        }
        // Fingerprinted late, as ResolveCheck says it: a start tick read late
        // and used by a resolution that ran.
        out->verdict.late_fingerprint = read_late && out->verdict.status != Status::kInvalidRequest;
        *r->mutable_resolve() = ToProto(asked);
        r->mutable_resolve()->set_exe_path(options.exe_path);
        r->mutable_resolve()->set_fingerprint_on_tape(options.fingerprint);
        if (options.before_turn)
          *r->mutable_resolve()->mutable_fingerprint() = *options.before_turn;
        *r->mutable_verdict() = ToProto(out->verdict);
      });
}

// Records the liveness check of (pid, start_ticks) into `path` with the
// CLI's LivenessCheck, like `proctape liveness --pid PID --start START
// --record path` (the identity's boot not given: boot_unchecked).
inline Recorded RecordLivenessCheck(MemoryEvidence& host, std::int64_t pid,
                                    std::uint64_t start_ticks, const std::string& path,
                                    const RecordOptions& options = {}) {
  return fixture_detail::Record(
      host, path, options, {},
      {"proctape", "liveness", "--pid", std::to_string(pid), "--start", std::to_string(start_ticks),
       "--record", std::filesystem::path(path).filename().string()},
      [&](Evidence& ev, v1::Resolution* r, Recorded* out) {
        LivenessCheck({pid, start_ticks, ""}, &out->liveness)(ev, r);
      });
}

// Writes `snapshot` to `path` with the real writer, in the layout of a live
// recording (tests/shapes/snapshot_copy.h).
inline bool WriteSnapshotFile(const Snapshot& snapshot, const std::string& path,
                              std::string* error) {
  return shapes::WriteSnapshotCopy(snapshot, path, error);
}

// Tape edits on a snapshot read back, keeping it a valid file's content
// (indexes are positions; the resolution's count follows the tape).
inline void RenumberTape(Snapshot* s) {
  for (std::size_t i = 0; i < s->observations.size(); ++i) s->observations[i].set_index(i);
}
inline void RemoveObservation(Snapshot* s, std::size_t k) {
  s->observations.erase(s->observations.begin() + static_cast<std::ptrdiff_t>(k));
  RenumberTape(s);
  v1::Resolution& r = s->resolutions.at(0);
  r.set_observation_count(r.observation_count() - 1);
}
inline void AppendObservation(Snapshot* s, v1::Observation o) {
  s->observations.push_back(std::move(o));
  RenumberTape(s);
  v1::Resolution& r = s->resolutions.at(0);
  r.set_observation_count(r.observation_count() + 1);
}

}  // namespace proctape::test
