// SPDX-License-Identifier: Apache-2.0
#include "capture/recorder.h"

#include <utility>

#include "capture/clock.h"
#include "core/redact.h"
#include "proto/convert.h"

namespace proctape {

RecordingEvidence::RecordingEvidence(Evidence& inner, Sink sink, RecorderOptions options)
    : inner_(inner), sink_(std::move(sink)), options_(std::move(options)) {
  if (!options_.clock) options_.clock = MonotonicNowNs;
}

void RecordingEvidence::Append(v1::Observation& obs, std::int64_t mono_ns) {
  obs.set_index(next_index_++);
  obs.set_mono_ns(mono_ns);
  if (sink_) sink_(std::move(obs));
}

ListResult RecordingEvidence::ListPids(std::uint64_t bound) {
  ListResult result = inner_.ListPids(bound);
  RecordListing(bound, result);
  return result;
}

ListResult RecordingEvidence::ListPidsWithin(const ListLimits& limits) {
  ListResult result = inner_.ListPidsWithin(limits);
  RecordListing(limits.max_entries, result);
  return result;
}

// The limits of ListPidsWithin are not recorded: a replay's are the same
// (the deadline and the budget left follow from the tape), and the tape
// answers with where the listing stopped.
void RecordingEvidence::RecordListing(std::uint64_t bound, const ListResult& result) {
  std::int64_t t = options_.clock();
  v1::Observation obs;
  auto* call = obs.mutable_list_pids();
  call->set_bound(bound);
  for (std::string_view name : result.names) call->add_names(name.data(), name.size());
  call->set_err(result.err);
  call->set_truncated(result.truncated);
  call->set_bytes(result.bytes);
  call->set_stopped_at_bytes(result.stopped == ListStop::kBytes);
  call->set_stopped_at_deadline(result.stopped == ListStop::kDeadline);
  Append(obs, t);
}

ReadResult RecordingEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  ReadResult result = inner_.ReadFile(pid, file, bound);
  std::int64_t t = options_.clock();
  v1::Observation obs;
  auto* call = obs.mutable_read_file();
  call->set_pid(pid);
  call->set_file(static_cast<v1::ProcFile>(static_cast<int>(file)));
  v1::FileRead* read = call->mutable_result();
  // Redacted whatever err says: a source is not trusted to leave data empty.
  if (file == ProcFile::kEnviron && !options_.keep_environ) {
    read->set_data(RedactEnviron(result.data, options_.kept_entries));
    read->set_redacted(true);
  } else {
    read->set_data(result.data.data(), result.data.size());
  }
  read->set_err(result.err);
  read->set_truncated(result.truncated);
  read->set_bound(bound);
  Append(obs, t);
  return result;
}

Identity RecordingEvidence::ExeIdentity(std::int64_t pid) {
  Identity result = inner_.ExeIdentity(pid);
  std::int64_t t = options_.clock();
  v1::Observation obs;
  obs.mutable_exe_identity()->set_pid(pid);
  *obs.mutable_exe_identity()->mutable_result() = ToProto(result);
  Append(obs, t);
  return result;
}

Identity RecordingEvidence::PathIdentity(const std::string& path) {
  Identity result = inner_.PathIdentity(path);
  std::int64_t t = options_.clock();
  v1::Observation obs;
  obs.mutable_path_identity()->set_path(path);
  *obs.mutable_path_identity()->mutable_result() = ToProto(result);
  Append(obs, t);
  return result;
}

std::int64_t RecordingEvidence::NowNs() {
  std::int64_t now = inner_.NowNs();
  v1::Observation obs;
  obs.mutable_now()->set_result_ns(now);
  Append(obs, now);
  return now;
}

void RecordingEvidence::SleepUntil(std::int64_t mono_ns) {
  inner_.SleepUntil(mono_ns);
  std::int64_t t = options_.clock();
  v1::Observation obs;
  obs.mutable_sleep_until()->set_until_ns(mono_ns);
  Append(obs, t);
}

}  // namespace proctape
