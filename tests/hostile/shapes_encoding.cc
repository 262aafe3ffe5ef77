// SPDX-License-Identifier: Apache-2.0
// The protobuf encoding itself (docs/format.md section 9: messages a reader
// parses whole): nesting as deep as a chunk holds, every integer at an edge,
// repeated fields no count limit covers (a verdict's matches, a header's
// command line). The counts of section 7 are of records, observations,
// resolutions and chunks; these are the repeats beside them.
#include <cstdint>
#include <limits>
#include <string>

#include "tests/hostile/recording.h"
#include "tests/hostile/shapes.h"

namespace proctape::hostile {
namespace {

using I64 = std::numeric_limits<std::int64_t>;
using U64 = std::numeric_limits<std::uint64_t>;

Recording SmallRecording() {
  MemoryEvidence host;
  AddRoot(host);
  AddStar(host, 3, kToken);
  return Record(host, SleepRequest());
}

// A record holding `depth` nested groups of an unknown field (start-group
// tags, then as many end-group tags): the parser's recursion, or the count
// of chunk_counts.h walking the wire bytes, meets them before any limit of
// section 7 does.
void DeepGroups(const Params& p, Built* out) {
  const std::uint64_t depth = p.Num("depth");
  const std::string start = Varint((99u << 3) | 3), end = Varint((99u << 3) | 4);
  std::string record(1, '\x08');  // ProcessRecord.pid
  record += Varint(kRootPid);
  record.reserve(record.size() + depth * (start.size() + end.size()));
  for (std::uint64_t i = 0; i < depth; ++i) record += start;
  for (std::uint64_t i = 0; i < depth; ++i) record += end;
  const std::string frame = LengthDelimited(4, record) + std::string("\x30\x01", 2);  // complete
  out->file.AddHeader(SmallRecording().header);
  Tally t;
  t.frames = 1;
  t.processes = 1;
  out->file.AddContent(LengthDelimited(2, frame), t);  // Chunk.frame
  out->file.AddFooter();
  out->pid = kRootPid;
}

void AddEdgeRecord(v1::Frame* frame, std::int64_t pid, std::uint64_t start) {
  v1::ProcessRecord* r = frame->add_processes();
  r->set_pid(pid);
  r->mutable_stat()->set_data(MemoryEvidence::StatLine(pid, "edge", 'S', pid, start));
  r->mutable_exe()->set_dev(U64::max());
  r->mutable_exe()->set_ino(U64::max());
}

// A real recording with every integer it holds at an edge: clock ticks per
// second 0, pids of INT64_MIN and INT64_MAX, start ticks of UINT64_MAX,
// scans from INT64_MIN to INT64_MAX, bounds at their largest, a verdict of
// a status and a file this reader does not know.
void ExtremeValues(const Params&, Built* out) {
  Recording r = SmallRecording();
  v1::HostFacts* host = r.header.mutable_host();
  host->set_clock_ticks_per_second(0);
  host->set_pid_max(I64::min());
  host->set_page_size(-1);
  r.header.set_capture_start_mono_ns(I64::min());
  for (v1::Frame* f : {&r.before, &r.after}) {
    AddEdgeRecord(f, I64::max(), U64::max());
    AddEdgeRecord(f, I64::min(), 0);
    AddEdgeRecord(f, -1, U64::max() - 1);
    f->set_scan_start_mono_ns(I64::min());
    f->set_scan_end_mono_ns(I64::max());
    f->set_bytes_read(U64::max());
  }
  v1::Bounds* b = r.resolution.mutable_resolve()->mutable_bounds();
  b->set_max_proc_entries(U64::max());
  b->set_max_nodes(U64::max());
  b->set_max_depth(std::numeric_limits<std::uint32_t>::max());
  b->set_byte_budget(U64::max());
  v1::Verdict* v = r.resolution.mutable_verdict();
  v->set_status(static_cast<v1::Verdict::Status>(std::numeric_limits<std::int32_t>::max()));
  v->set_file(static_cast<v1::ProcFile>(99));
  v->set_attempts(std::numeric_limits<std::uint32_t>::max());
  v->set_bytes_read(U64::max());
  v->set_subject_pid(I64::min());
  v->set_expected_ticks(U64::max());
  v->add_matches(I64::min());
  v->add_matches(I64::max());
  r.resolution.set_start_mono_ns(I64::max());
  r.resolution.set_end_mono_ns(I64::min());
  WriteRecording(r, &out->file);
  out->token = kToken;
  out->pid = kRootPid;
}

// A real recording whose verdict lists `matches` matching pids (packed, a
// byte each on the wire, 8 bytes each in memory).
void HugeVerdict(const Params& p, Built* out) {
  Recording r = SmallRecording();
  v1::Verdict* v = r.resolution.mutable_verdict();
  v->set_status(v1::Verdict::MULTIPLE_MATCHES);
  v->mutable_matches()->Reserve(static_cast<int>(p.Num("matches")));
  for (std::uint64_t i = 0; i < p.Num("matches"); ++i)
    v->add_matches(static_cast<std::int64_t>(1 + i % 100));
  WriteRecording(r, &out->file);
  out->token = kToken;
  out->pid = kRootPid;
}

// A real recording whose header's command line holds `entries` more empty
// words (2 bytes each on the wire): show prints the command line.
void HugeHeader(const Params& p, Built* out) {
  Recording r = SmallRecording();
  r.header.set_format_version(kFormatVersion);
  std::string header = r.header.SerializeAsString();
  const std::uint64_t entries = p.Num("entries");
  header.reserve(header.size() + entries * 2);
  for (std::uint64_t i = 0; i < entries; ++i) header += std::string("\x5a\x00", 2);  // field 11
  out->file.AddContent(LengthDelimited(1, header), Tally{});                         // Chunk.header
  WriteRecordingBody(r, &out->file);
  out->token = kToken;
  out->pid = kRootPid;
}

}  // namespace

std::vector<Shape> EncodingShapes() {
  return {
      {"deep-groups",
       "a record holding 1 M nested groups of an unknown field: the parser's and the chunk "
       "counter's recursion (a corrupt chunk, said in one line)",
       "depth=1000000", "depth=1000", 15, DeepGroups},
      {"extreme-values",
       "a recording with every integer at an edge (0 ticks per second, pids INT64_MIN/MAX, scans "
       "INT64_MIN..MAX, unknown status and file): arithmetic in every view",
       "", "", 0, ExtremeValues},
      {"huge-verdict",
       "a recorded verdict listing 16 M matching pids (packed: a byte each on disk, 8 in memory): "
       "show, explain, replay, sql, export json",
       "matches=16000000", "matches=10", 0, HugeVerdict},
      {"huge-header",
       "a header whose command line holds 8 M empty words: every reader keeps the header; show "
       "prints it",
       "entries=8000000", "entries=10", 0, HugeHeader},
  };
}

}  // namespace proctape::hostile
