// SPDX-License-Identifier: Apache-2.0
// What the structure-rule tests (format_structure_rules_test.cc,
// format_blob_rules_test.cc) share: a file built chunk by chunk with the
// footer the writer would count, chunks of each kind, and expectations that a
// file reads or is refused with the documented kind, chunk and byte offset.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"

namespace proctape::test {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs

// A file built chunk by chunk: where each chunk starts, and the footer the
// writer would write (its counts as docs/format.md section 2 defines them).
struct Built {
  std::string bytes;
  std::vector<std::uint64_t> starts;  // of chunk 0, 1, ...
};

inline v1::Footer CountedFooter(const std::vector<v1::Chunk>& body) {
  v1::Footer f;
  f.set_chunks(body.size() + 1);
  for (const v1::Chunk& c : body) {
    if (c.has_frame()) {
      const v1::Frame& part = c.frame();
      if (part.complete()) f.set_frames(f.frames() + 1);
      if (part.complete() && part.cut_by_bounds())
        f.set_frames_cut_by_bounds(f.frames_cut_by_bounds() + 1);
      f.set_processes(f.processes() + part.processes_size());
      for (const v1::ProcessRecord& p : part.processes()) {
        for (const v1::FileRead* r :
             {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
          if (r->truncated()) f.set_reads_truncated(f.reads_truncated() + 1);
        }
      }
    }
    if (c.has_observations())
      f.set_observations(f.observations() + c.observations().observations_size());
    if (c.has_resolution()) f.set_resolutions(f.resolutions() + 1);
  }
  return f;
}

// Preamble, header, `body`, then `footer` (by default the counted one; none
// when `with_footer` is false).
inline Built Build(const std::vector<v1::Chunk>& body,
                   std::optional<v1::Footer> footer = std::nullopt, bool with_footer = true,
                   const v1::Chunk& header = HeaderBody()) {
  Built b;
  b.bytes = Preamble();
  auto add = [&b](const v1::Chunk& c) {
    b.starts.push_back(b.bytes.size());
    b.bytes += ChunkOf(c);
  };
  add(header);
  for (const v1::Chunk& c : body) add(c);
  if (with_footer) {
    v1::Chunk f;
    *f.mutable_footer() = footer ? *footer : CountedFooter(body);
    add(f);
  }
  return b;
}

inline v1::Chunk FramePart(std::uint64_t index, bool complete, int processes = 1) {
  v1::Chunk c;
  c.mutable_frame()->set_index(index);
  c.mutable_frame()->set_complete(complete);
  for (int i = 0; i < processes; ++i) {
    v1::ProcessRecord* p = c.mutable_frame()->add_processes();
    p->set_pid(100 + i);
    p->mutable_stat()->set_data(std::to_string(100 + i) + " (x) S 1");
  }
  return c;
}

inline v1::Chunk Batch(std::vector<std::uint64_t> indexes) {
  v1::Chunk c;
  for (std::uint64_t i : indexes) {
    v1::Observation* o = c.mutable_observations()->add_observations();
    o->set_index(i);
    o->mutable_now()->set_result_ns(static_cast<std::int64_t>(i));
  }
  return c;
}

inline v1::Chunk Resolution(std::uint64_t first, std::uint64_t count) {
  v1::Chunk c;
  c.mutable_resolution()->mutable_liveness()->set_pid(7);
  c.mutable_resolution()->set_first_observation(first);
  c.mutable_resolution()->set_observation_count(count);
  return c;
}

inline v1::Chunk Fingerprint(std::int64_t pid) {
  v1::Chunk c;
  c.mutable_fingerprint()->set_root_pid(pid);
  c.mutable_fingerprint()->set_root_start_ticks(4242);
  c.mutable_fingerprint()->set_boot_id("b00t\n");
  return c;
}

inline const std::string kData = "/usr/bin/a-long-enough-argument\0--flag\0"s;

// Frame 0's first part, defining blob 1 and referring to it from a cmdline.
inline v1::Chunk BlobFrame(bool complete = true) {
  v1::Chunk c = FramePart(0, complete);
  v1::Blob* blob = c.mutable_frame()->add_blobs();
  blob->set_id(1);
  blob->set_data(kData);
  c.mutable_frame()->mutable_processes(0)->mutable_cmdline()->set_blob(1);
  return c;
}

struct Read {
  FormatError error;
  Snapshot snapshot;
};

class FormatStructureRulesTest : public TempDirTest {
 protected:
  Read ReadBytes(const std::string& bytes) {
    Spit(Path("f.ptape"), bytes);
    Read r;
    r.error = ReadSnapshot(Path("f.ptape"), &r.snapshot);
    return r;
  }
};

inline ::testing::AssertionResult Refused(const Read& r, const Built& b, std::size_t chunk,
                                          const std::string& says,
                                          FormatErrorKind kind = FormatErrorKind::kCorrupt) {
  const FormatError& e = r.error;
  const std::uint64_t offset = b.starts.at(chunk);
  const std::string at =
      "chunk " + std::to_string(chunk) + " at byte " + std::to_string(offset) + ": ";
  if (e.kind != kind || e.chunk != chunk || e.offset != offset || e.message.rfind(at, 0) != 0 ||
      e.message.find(says) == std::string::npos || e.message.find('\n') != std::string::npos ||
      r.snapshot.chunks != chunk) {
    return ::testing::AssertionFailure()
           << "got " << FormatErrorName(e.kind) << " chunk " << e.chunk << " offset " << e.offset
           << " \"" << e.message << "\" with " << r.snapshot.chunks << " chunks read; want "
           << FormatErrorName(kind) << " \"" << at << "..." << says << "...\"";
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult Reads(const Read& r) {
  if (r.error.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.error.message;
}

}  // namespace proctape::test
