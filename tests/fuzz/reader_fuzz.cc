// SPDX-License-Identifier: Apache-2.0
// Fuzz target `reader`: the file reader on arbitrary bytes. The input is a
// .ptape file (seeds: corpus/, tests/data/); it is read chunk by chunk as
// stored (ChunkReader), then assembled (ReadSnapshot), and everything the
// reader returned -- every frame and record, observation, resolution,
// fingerprint, the footer -- is walked and shown as `show` shows a damaged
// file (the part before the damage). Invariants: the reader never returns
// more chunks than it read, and a file that reads whole is read again alike.
#include <cstddef>
#include <cstdint>

#include "analyze/show.h"
#include "format/chunk_reader.h"
#include "format/reader.h"
#include "tests/fuzz/fuzz_support.h"

using namespace proctape;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fuzz::InputAsFile(data, size);

  FormatError open_error;
  std::uint64_t stored = 0;
  std::size_t bytes = 0;  // every message walked (ByteSizeLong visits each field)
  if (std::unique_ptr<ChunkReader> chunks = ChunkReader::Open(path, &open_error)) {
    v1::Chunk chunk;
    while (chunks->Next(&chunk) == ChunkReader::Result::kChunk) {
      bytes += chunk.ByteSizeLong();
      ++stored;
    }
    if (chunks->chunks() != stored) fuzz::Broken("ChunkReader counts another number of chunks");
  }

  Snapshot snapshot;
  FormatError error = ReadSnapshot(path, &snapshot);
  if (snapshot.chunks > stored) fuzz::Broken("ReadSnapshot took more chunks than the file holds");
  bytes += snapshot.header.ByteSizeLong();
  for (const v1::Frame& frame : snapshot.frames) {
    for (const v1::ProcessRecord& record : frame.processes()) bytes += record.ByteSizeLong();
  }
  for (const v1::Observation& o : snapshot.observations) bytes += o.ByteSizeLong();
  for (const v1::Resolution& r : snapshot.resolutions) bytes += r.ByteSizeLong();
  for (const v1::RootFingerprint& f : snapshot.fingerprints) bytes += f.ByteSizeLong();
  if (snapshot.footer) bytes += snapshot.footer->ByteSizeLong();

  // `show` of what was read, damage and all.
  v1::ShowReport report = BuildShow(snapshot, error, "input.ptape");
  std::string text = RenderShow(report);

  if (error.ok()) {
    Snapshot again;
    if (!ReadSnapshot(path, &again).ok() || again.chunks != snapshot.chunks) {
      fuzz::Broken("a whole file read twice reads differently");
    }
  }
  fuzz::Keep(bytes + text.size());
  return 0;
}
