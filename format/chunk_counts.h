// SPDX-License-Identifier: Apache-2.0
// How many repeated messages a chunk's content holds, counted on the wire
// before it is parsed: parsing 16 MiB of 2-byte process records makes 8 M
// message objects (hundreds of megabytes), so the file's count limits
// (format/file_format.h) are checked on these counts first.
#pragma once

#include <cstdint>
#include <string_view>

namespace proctape {

struct ChunkCounts {
  std::uint64_t processes = 0;     // Chunk.frame.processes
  std::uint64_t blobs = 0;         // Chunk.frame.blobs
  std::uint64_t observations = 0;  // Chunk.observations.observations
  std::uint64_t resolutions = 0;   // Chunk.resolution (0 or more occurrences)
};

// Counts the messages of `content` (a serialized Chunk). Every occurrence
// of a field counts (the parser merges repeated occurrences), so the counts
// bound what parsing makes. Returns false when the bytes are not well-formed
// protobuf wire data (the parser then reports the chunk corrupt).
bool CountChunk(std::string_view content, ChunkCounts* out);

}  // namespace proctape
