// SPDX-License-Identifier: Apache-2.0
#include "format/reader.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "format/held_budget.h"

namespace proctape {

FormatError ReadSnapshot(const std::string& path, Snapshot* out, const ReadKeep& keep) {
  return ReadSnapshot(StreamSource{path, -1}, out, keep);
}

namespace {

// Charges `made` bytes of `item` to `held`: none, or the kTooLarge that
// names the item's chunk.
FormatError Charge(const StreamItem& item, std::uint64_t made, std::uint64_t file_bytes,
                   ReadBudget* held) {
  if (held->Charge(made, file_bytes)) return {};
  FormatError error;
  error.kind = FormatErrorKind::kTooLarge;
  error.chunk = item.index;
  error.offset = item.offset;
  error.message = HeldRefusal(*held, item.index, item.offset, made, file_bytes);
  return error;
}

// Charges `held` with what one item adds to a Snapshot (`made`: what the
// reader materialized for it), unless the Snapshot drops it: a frame part
// whose processes are not kept, observations not kept or kept compact (the
// compact tape holds each distinct result once). kTooLarge, naming the
// item's chunk, when that would pass the limit.
FormatError ChargeHeld(const StreamItem& item, std::uint64_t made, std::uint64_t file_bytes,
                       bool every_frame, const ReadKeep& keep, bool compact, ReadBudget* held) {
  bool kept = true;
  if (item.kind == StreamItem::Kind::kFramePart && !every_frame) {
    kept = std::find(keep.frames->begin(), keep.frames->end(), item.chunk.frame().index()) !=
           keep.frames->end();
  }
  if (item.kind == StreamItem::Kind::kObservations) kept = keep.observations && !compact;
  // Shared records are charged as they are held (HoldRecords).
  if (item.kind == StreamItem::Kind::kFramePart && keep.shared_records) kept = false;
  if (!kept) return {};
  return Charge(item, made, file_bytes, held);
}

// Moves the part's records into `records`, each charged to `held` as it is
// held (a record shared with the previous frame costs nothing).
FormatError HoldRecords(StreamItem* item, std::uint64_t file_bytes, FrameRecords* records,
                        ReadBudget* held) {
  v1::Frame& part = *item->chunk.mutable_frame();
  if (item->first_part) records->BeginFrame();
  for (int i = 0; i < part.processes_size(); ++i) {
    const auto at = static_cast<std::size_t>(i);
    const bool same = at < item->same_as_previous.size() && item->same_as_previous[at];
    const std::uint64_t bytes = records->Add(std::move(*part.mutable_processes(i)), same);
    if (FormatError over = Charge(*item, bytes, file_bytes, held); !over.ok()) return over;
  }
  part.clear_processes();
  return {};
}

}  // namespace

FormatError ReadSnapshot(const StreamSource& source, Snapshot* out, const ReadKeep& keep) {
  *out = Snapshot{};
  FormatError error;
  bool every_frame = !keep.frames;
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::OpenSource(source, &error);
  if (!stream) return error;
  // Version 2's "same as" is resolved by the compact tape itself (no copy),
  // and not at all when no observation is kept.
  const bool compact = keep.observations && keep.compact_tape;
  if (!keep.observations || compact) stream->set_resolve_same_as(false);
  // What the Snapshot keeps, charged as it is kept (docs/format.md section
  // 7, "What a command holds"): a reader that streams drops each item, this
  // one holds every kept frame and observation until the command ends.
  ReadBudget held = HeldBudget();
  for (;;) {
    const std::uint64_t before = stream->materialized();
    const SnapshotStream::Result r = stream->Next();
    out->chunks = stream->counts().chunks;
    out->bytes = stream->bytes();
    out->observation_count = stream->counts().observations;
    out->process_count = stream->counts().processes;
    if (r != SnapshotStream::Result::kItem) out->tape.Seal();
    if (r == SnapshotStream::Result::kEnd) return error;
    if (r == SnapshotStream::Result::kError) return stream->error();
    StreamItem& item = stream->item();
    v1::Chunk& chunk = item.chunk;
    if (FormatError over = ChargeHeld(item, stream->materialized() - before, stream->bytes(),
                                      every_frame, keep, compact, &held);
        !over.ok()) {
      out->tape.Seal();
      return over;
    }
    switch (item.kind) {
      case StreamItem::Kind::kHeader:
        out->header = std::move(*chunk.mutable_header());
        if (keep.every_frame_if && keep.every_frame_if(out->header)) every_frame = true;
        break;
      case StreamItem::Kind::kFramePart: {
        v1::Frame& part = *chunk.mutable_frame();
        // A frame not kept is its shell: every field but its processes.
        if (!every_frame && std::find(keep.frames->begin(), keep.frames->end(), part.index()) ==
                                keep.frames->end()) {
          part.clear_processes();
        }
        if (keep.shared_records) {
          if (FormatError over = HoldRecords(&item, stream->bytes(), &out->records, &held);
              !over.ok()) {
            out->tape.Seal();
            return over;
          }
        }
        if (item.first_part) out->frames.emplace_back();
        JoinFramePart(&out->frames.back(), std::move(part), item.first_part);
        break;
      }
      case StreamItem::Kind::kObservations:
        if (!keep.observations) break;
        if (compact) {
          for (const auto& o : chunk.observations().observations()) out->tape.Add(o);
          break;
        }
        for (auto& o : *chunk.mutable_observations()->mutable_observations()) {
          out->observations.push_back(std::move(o));
        }
        break;
      case StreamItem::Kind::kResolution:
        out->resolutions.push_back(std::move(*chunk.mutable_resolution()));
        break;
      case StreamItem::Kind::kFingerprint:
        out->fingerprints.push_back(std::move(*chunk.mutable_fingerprint()));
        break;
      case StreamItem::Kind::kFooter: out->footer = std::move(*chunk.mutable_footer()); break;
    }
  }
}

}  // namespace proctape
