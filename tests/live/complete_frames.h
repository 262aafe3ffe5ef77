// SPDX-License-Identifier: Apache-2.0
// Complete frames readable so far from a file being written: what the live
// tests that interrupt or kill a command mid-file (capture_output_live_test.cc,
// outputs_interrupt_cli_test.cc) wait for before they stop it.
#pragma once

#include <string>

#include "format/chunk_reader.h"
#include "format/format_error.h"
#include "proctape.pb.h"

namespace proctape::live {

// Complete frames readable so far from a file being written.
inline int CompleteFrames(const std::string& path) {
  FormatError err;
  auto reader = ChunkReader::Open(path, &err);
  if (!reader) return 0;
  v1::Chunk chunk;
  int frames = 0;
  while (reader->Next(&chunk) == ChunkReader::Result::kChunk) {
    if (chunk.has_frame() && chunk.frame().complete()) ++frames;
  }
  return frames;
}

}  // namespace proctape::live
