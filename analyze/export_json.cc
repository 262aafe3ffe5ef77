// SPDX-License-Identifier: Apache-2.0
#include "analyze/export_json.h"

#include <map>
#include <memory>
#include <utility>

#include <google/protobuf/io/coded_stream.h>

#include "format/snapshot_stream.h"
#include "proto/convert.h"
#include "proto/json_pieces.h"

namespace proctape {
namespace {

using Drain = std::function<MaybeFailure(std::string* out)>;
constexpr std::size_t kDrainAt = 1 << 20;

// What an element adds to the serialized document, as ExportJson counts it:
// its size, its tag and its length.
std::uint64_t ElementSize(std::uint64_t bytes) { return bytes + 1 + 10; }

// A record's bytes within its frame: tag (field 4: one byte), length, record.
std::uint64_t RecordSize(const v1::ProcessRecord& p) {
  const std::uint64_t n = p.ByteSizeLong();
  return 1 + google::protobuf::io::CodedOutputStream::VarintSize64(n) + n;
}

const char kChanged[] = "the file no longer reads as it did when the export began";

// The file read otherwise than when the export began (kCorrupt).
Failure Changed(const std::string& message) { return Failure(FailureKind::kCorrupt, message); }

// Reads the stream to its end; a failure when it does not end whole.
MaybeFailure Whole(SnapshotStream* stream, SnapshotStream::Result r) {
  while (r == SnapshotStream::Result::kItem) r = stream->Next();
  if (r == SnapshotStream::Result::kEnd) return std::nullopt;
  return Changed(std::string(kChanged) + ": " + stream->error().message);
}

}  // namespace

FormatError JsonExport::Survey(const StreamSource& source) {
  source_ = source;
  FormatError error;
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::OpenSource(source, &error);
  if (!stream) return error;
  std::vector<std::uint64_t> records;  // each frame's records, serialized
  std::uint64_t elements = 0;          // observations and resolutions
  for (;;) {
    const SnapshotStream::Result r = stream->Next();
    if (r == SnapshotStream::Result::kError) return stream->error();
    if (r == SnapshotStream::Result::kEnd) break;
    StreamItem& item = stream->item();
    v1::Chunk& chunk = item.chunk;
    switch (item.kind) {
      case StreamItem::Kind::kHeader:
        *shell_.mutable_header() = std::move(*chunk.mutable_header());
        break;
      case StreamItem::Kind::kFramePart: {
        v1::Frame& part = *chunk.mutable_frame();
        if (item.first_part) {
          frames_.emplace_back();
          records.push_back(0);
        }
        for (const v1::ProcessRecord& p : part.processes()) records.back() += RecordSize(p);
        records_ += static_cast<std::uint64_t>(part.processes_size());
        part.clear_processes();
        JoinFramePart(&frames_.back(), std::move(part), item.first_part);
        break;
      }
      case StreamItem::Kind::kObservations:
        for (const v1::Observation& o : chunk.observations().observations()) {
          elements += ElementSize(o.ByteSizeLong());
          ++observations_;
        }
        break;
      case StreamItem::Kind::kResolution:
        elements += ElementSize(chunk.resolution().ByteSizeLong());
        ++resolutions_;
        break;
      case StreamItem::Kind::kFingerprint:
        *shell_.add_fingerprints() = std::move(*chunk.mutable_fingerprint());
        break;
      case StreamItem::Kind::kFooter:
        *shell_.mutable_footer() = std::move(*chunk.mutable_footer());
        break;
    }
  }
  size_ = shell_.ByteSizeLong() + elements;
  for (std::size_t i = 0; i < frames_.size(); ++i) {
    size_ += ElementSize(frames_[i].ByteSizeLong() + records[i]);
  }
  return error;
}

MaybeFailure JsonExport::Write(std::string* out, const Drain& drain) const {
  out->clear();
  if (size_ > kMaxSerializedBytes) {
    return Failure(FailureKind::kTooLarge, "the document's message is " + std::to_string(size_) +
                                               " bytes serialized, over protobuf's limit of " +
                                               std::to_string(kMaxSerializedBytes) +
                                               " bytes: the JSON cannot be written");
  }
  const auto options = JsonOptions();
  auto drained = [&drain](std::string* o) -> MaybeFailure {
    if (!drain || o->size() < kDrainAt) return std::nullopt;
    return drain(o);
  };
  // Each list from a read of its own: the items of one kind, in file order.
  auto each = [this](StreamItem::Kind kind,
                     const std::function<MaybeFailure(SnapshotStream*)>& print) -> MaybeFailure {
    FormatError open;
    std::unique_ptr<SnapshotStream> stream = SnapshotStream::OpenSource(source_, &open);
    if (!stream) return Changed(std::string(kChanged) + ": " + open.message);
    SnapshotStream::Result r;
    while ((r = stream->Next()) == SnapshotStream::Result::kItem) {
      if (stream->item().kind != kind) continue;
      if (MaybeFailure failed = print(stream.get())) return failed;
    }
    return Whole(stream.get(), r);
  };
  // A frame: its shell, whose processes are printed part by part as they
  // are read.
  auto frames = [&](std::string* o) -> MaybeFailure {
    if (frames_.empty()) return std::nullopt;
    std::size_t next = 0;
    return each(StreamItem::Kind::kFramePart, [&](SnapshotStream* stream) -> MaybeFailure {
      if (next >= frames_.size() || !stream->item().first_part) return Changed(kChanged);
      if (next > 0) o->push_back(',');
      auto records = [&](std::string* o2) -> MaybeFailure {
        bool first = true;
        for (;;) {
          for (const v1::ProcessRecord& p : stream->item().chunk.frame().processes()) {
            if (!first) o2->push_back(',');
            first = false;
            if (MaybeFailure failed = AppendJsonPieces(p, options, o2)) return failed;
            if (MaybeFailure failed = drained(o2)) return failed;
          }
          if (stream->item().last_part) return std::nullopt;
          if (stream->Next() != SnapshotStream::Result::kItem ||
              stream->item().kind != StreamItem::Kind::kFramePart) {
            return Changed(kChanged);
          }
        }
      };
      const std::map<std::string, JsonElements> parts = {{"processes", records}};
      if (MaybeFailure failed = AppendJsonPieces(frames_[next++], options, parts, o)) {
        return failed;
      }
      return drained(o);
    });
  };
  auto observations = [&](std::string* o) -> MaybeFailure {
    if (observations_ == 0) return std::nullopt;
    bool first = true;
    return each(StreamItem::Kind::kObservations, [&](SnapshotStream* stream) -> MaybeFailure {
      for (const v1::Observation& obs : stream->item().chunk.observations().observations()) {
        if (!first) o->push_back(',');
        first = false;
        if (MaybeFailure failed = AppendJsonPieces(obs, options, o)) return failed;
        if (MaybeFailure failed = drained(o)) return failed;
      }
      return std::nullopt;
    });
  };
  auto resolutions = [&](std::string* o) -> MaybeFailure {
    if (resolutions_ == 0) return std::nullopt;
    bool first = true;
    return each(StreamItem::Kind::kResolution, [&](SnapshotStream* stream) -> MaybeFailure {
      if (!first) o->push_back(',');
      first = false;
      if (MaybeFailure failed = AppendJsonPieces(stream->item().chunk.resolution(), options, o)) {
        return failed;
      }
      return drained(o);
    });
  };
  const std::map<std::string, JsonElements> elements = {
      {"frames", frames}, {"observations", observations}, {"resolutions", resolutions}};
  if (MaybeFailure failed = AppendJsonPieces(shell_, options, elements, out)) {
    out->clear();
    return Failure(failed->kind, "cannot print JSON: " + failed->message, failed->sys_errno);
  }
  return std::nullopt;
}

}  // namespace proctape
