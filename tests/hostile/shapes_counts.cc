// SPDX-License-Identifier: Apache-2.0
// Counts at or near their limits (docs/format.md section 7): records,
// chunks, recorded checks, tokens, each in a file under 1 MiB. Intact files:
// what they cost is what a reader does per record, chunk, check or token.
#include <algorithm>
#include <cstdio>
#include <string>

#include "core/memory_evidence.h"
#include "tests/hostile/recording.h"
#include "tests/hostile/shapes.h"

namespace proctape::hostile {
namespace {

// `records` copies of one record (form=empty: no field at all, 2 bytes on
// the wire; form=stat: one process's stat, the same (pid, start tick) each
// time), as one frame in parts of at most a chunk's content.
void RecordLimit(const Params& p, Built* out) {
  const std::uint64_t records = p.Num("records");
  std::string record;
  if (p.Text("form") == "stat") {
    v1::ProcessRecord r;
    r.set_pid(kRootPid);
    r.mutable_stat()->set_data(MemoryEvidence::StatLine(kRootPid, "dup", 'S', 1, kRootStart));
    record = r.SerializeAsString();
  }
  const std::string one = LengthDelimited(4, record);  // Frame.processes
  // A record of its own pid: at most 6 bytes on the wire (pid < 2^21).
  const std::uint64_t width = p.Text("form") == "pids" ? 6 : one.size();
  const std::uint64_t per_part = (kMaxChunkContent - 64) / width;
  out->file.AddHeader(HostileHeader(""));
  for (std::uint64_t done = 0; done < records;) {
    const std::uint64_t n = std::min(per_part, records - done);
    std::string frame;
    frame.reserve(n * width + 2);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (p.Text("form") != "pids") {
        frame += one;
        continue;
      }
      v1::ProcessRecord r;  // a pid of its own: a view each
      r.set_pid(static_cast<std::int64_t>(done + i + 1));
      frame += LengthDelimited(4, r.SerializeAsString());
    }
    if (done + n == records) frame += std::string("\x30\x01", 2);  // complete
    Tally t;
    t.frames = done == 0 ? 1 : 0;
    t.processes = n;
    out->file.AddContent(LengthDelimited(2, frame), t);  // Chunk.frame
    done += n;
  }
  out->file.AddFooter();
  out->pid = kRootPid;
}

// As many chunks as fit under 1 MiB: kind=frames, each a frame of one
// record; kind=parts, one frame in that many parts; kind=batches, one clock
// reading per observation batch.
void ManyChunks(const Params& p, Built* out) {
  const std::uint64_t chunks = p.Num("chunks");
  const std::string kind = p.Text("kind");
  out->file.AddHeader(HostileHeader(""));
  v1::Chunk c;
  for (std::uint64_t k = 0; k < chunks; ++k) {
    c.Clear();
    if (kind == "batches") {
      v1::Observation* o = c.mutable_observations()->add_observations();
      o->set_index(k);
      o->mutable_now()->set_result_ns(static_cast<std::int64_t>(k));
    } else {
      v1::Frame* f = c.mutable_frame();
      f->set_index(kind == "frames" ? k : 0);
      f->add_processes()->set_pid(static_cast<std::int64_t>(kRootPid + k % 1000));
      f->set_complete(kind == "frames" || k + 1 == chunks);
    }
    out->file.Add(c);
  }
  out->file.AddFooter();
  out->pid = kRootPid;
}

// One real recorded check on a star of n, its resolution chunk repeated
// `checks` times over the same span of the tape (section 2 allows it).
void ManyChecks(const Params& p, Built* out) {
  MemoryEvidence host;
  AddRoot(host);
  AddStar(host, static_cast<std::uint32_t>(p.Num("n")), kToken);
  WriteOptions options;
  options.copies = static_cast<std::uint32_t>(p.Num("checks"));
  WriteRecording(Record(host, SleepRequest()), &out->file, options);
  out->token = kToken;
  out->pid = kRootPid;
}

// A recording on a star of n whose header keeps `tokens` entries besides
// its own: every one a token the views mask in everything they print.
void ManyTokens(const Params& p, Built* out) {
  MemoryEvidence host;
  AddRoot(host);
  AddStar(host, static_cast<std::uint32_t>(p.Num("n")), kToken);
  Recording r = Record(host, SleepRequest());
  char entry[32];
  for (std::uint64_t k = 0; k < p.Num("tokens"); ++k) {
    std::snprintf(entry, sizeof entry, "T=tok%07llu", static_cast<unsigned long long>(k));
    r.header.mutable_redaction()->add_kept_entries(entry);
  }
  WriteRecording(r, &out->file);
  out->token = kToken;
  out->pid = kRootPid;
}

}  // namespace

std::vector<Shape> CountShapes() {
  return {
      {"record-limit",
       "1,048,576 process records (kMaxProcessRecords), empty (form=stat: one process repeated; "
       "form=pids: each its own pid) "
       "in a 277-byte file: show, tree, export dot, sql, ownership",
       "records=1048576 form=empty", "records=10 form=empty", 0, RecordLimit},
      {"many-chunks",
       "as many chunks as fit in 1 MiB (kMaxChunks cannot be reached under it): kind=frames "
       "one-record frames, parts (one frame), batches: per-chunk and per-frame costs",
       "chunks=34000 kind=frames", "chunks=5 kind=frames", 0, ManyChunks},
      {"many-checks",
       "one real recorded check repeated over the same tape (kMaxResolutions is 65,536; as many "
       "as fit in 1 MiB): replay, explain, explore, corpus check per check",
       "checks=4500 n=20", "checks=3 n=3", 0, ManyChecks},
      {"many-tokens",
       "a recording whose header keeps 100,000 token entries, on a star of 2,000: the token "
       "mask of every view (show tree diff explain export dot/csv sql)",
       "tokens=100000 n=2000", "tokens=3 n=3", 0, ManyTokens},
  };
}

}  // namespace proctape::hostile
