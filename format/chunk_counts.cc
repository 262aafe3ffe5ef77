// SPDX-License-Identifier: Apache-2.0
#include "format/chunk_counts.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

namespace proctape {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// Field numbers of proto/proctape.proto.
constexpr int kChunkFrame = 2;
constexpr int kChunkObservations = 3;
constexpr int kChunkResolution = 4;
constexpr int kFrameProcesses = 4;
constexpr int kFrameBlobs = 7;
constexpr int kBatchObservations = 1;

// Calls on_field(number) for each length-delimited field of the message in
// `in` up to its limit, skipping the field's bytes; skips every other field.
template <typename F>
bool EachField(CodedInputStream& in, F on_field) {
  for (;;) {
    const std::uint32_t tag = in.ReadTag();
    if (tag == 0) return true;  // the end (or bytes the parser refuses)
    if (WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      std::uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return false;
      if (!on_field(WireFormatLite::GetTagFieldNumber(tag), length)) return false;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return false;
    }
  }
}

}  // namespace

bool CountChunk(std::string_view content, ChunkCounts* out) {
  *out = ChunkCounts{};
  CodedInputStream in(reinterpret_cast<const std::uint8_t*>(content.data()),
                      static_cast<int>(content.size()));
  return EachField(in, [&](int field, std::uint32_t length) {
    if (field == kChunkResolution) ++out->resolutions;
    if (field != kChunkFrame && field != kChunkObservations)
      return in.Skip(static_cast<int>(length));
    const auto limit = in.PushLimit(static_cast<int>(length));
    const bool ok = EachField(in, [&](int inner, std::uint32_t inner_length) {
      if (field == kChunkFrame && inner == kFrameProcesses) ++out->processes;
      if (field == kChunkFrame && inner == kFrameBlobs) ++out->blobs;
      if (field == kChunkObservations && inner == kBatchObservations) ++out->observations;
      return in.Skip(static_cast<int>(inner_length));
    });
    in.PopLimit(limit);
    return ok;
  });
}

}  // namespace proctape
