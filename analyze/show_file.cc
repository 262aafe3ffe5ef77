// SPDX-License-Identifier: Apache-2.0
#include "analyze/show_file.h"

#include <optional>
#include <utility>
#include <vector>

#include "analyze/view_read.h"
#include "core/proc_parse.h"
#include "format/format_error.h"
#include "format/snapshot_stream.h"
#include "proto/summary.h"

namespace proctape {
namespace {

// What ShowBuilder does not hold of a file read item by item: one frame
// held at a time (its parts joined, and added), with the header,
// resolutions, fingerprint and footer (small); observations counted. A
// frame cut by the damage is added as far as it was read.
struct ShowRead {
  std::vector<v1::Resolution> resolutions;
  std::vector<v1::RootFingerprint> fingerprints;
  std::optional<v1::Footer> footer;
  std::uint64_t chunks = 0, bytes = 0, observations = 0;
  FormatError error;
};

void ReadStreamed(const std::string& file, ShowBuilder& builder, ShowRead* read) {
  v1::Frame frame;
  bool open = false;  // `frame` holds parts of a frame not yet added
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::Open(file, &read->error);
  while (stream) {
    const SnapshotStream::Result r = stream->Next();
    read->chunks = stream->counts().chunks;
    read->bytes = stream->bytes();
    read->observations = stream->counts().observations;
    if (r == SnapshotStream::Result::kEnd) break;
    if (r == SnapshotStream::Result::kError) {
      read->error = stream->error();
      break;
    }
    StreamItem& item = stream->item();
    switch (item.kind) {
      case StreamItem::Kind::kHeader: builder.SetHeader(item.chunk.header()); break;
      case StreamItem::Kind::kFramePart:
        JoinFramePart(&frame, std::move(*item.chunk.mutable_frame()), item.first_part);
        open = !item.last_part;
        if (item.last_part) builder.AddFrame(frame);
        break;
      case StreamItem::Kind::kObservations: break;
      case StreamItem::Kind::kResolution:
        read->resolutions.push_back(std::move(*item.chunk.mutable_resolution()));
        break;
      case StreamItem::Kind::kFingerprint:
        read->fingerprints.push_back(std::move(*item.chunk.mutable_fingerprint()));
        break;
      case StreamItem::Kind::kFooter: read->footer = std::move(*item.chunk.mutable_footer()); break;
    }
  }
  if (open) builder.AddFrame(frame);
}

}  // namespace

ShowOutcome ShowFile(const std::string& file, const ProcessFilter& filter) {
  ShowOutcome out;
  const std::string name = EscapeBytes(file, 4096);
  out.builder = std::make_unique<ShowBuilder>(name, filter);
  ShowRead read;
  ReadStreamed(file, *out.builder, &read);
  const FormatError& error = read.error;
  if (!error.ok() && read.chunks == 0) {
    out.unread = true;
    out.report.set_file(name);
    out.report.set_error_kind(FormatErrorName(error.kind));
    out.report.set_error(Printable(error.message));
    out.damage = DamageOf(name, error);
    out.builder.reset();
    return out;
  }
  out.report = out.builder->Finish({read.chunks, read.bytes, read.footer ? &*read.footer : nullptr,
                                    read.observations, &read.resolutions, &read.fingerprints},
                                   error);
  out.selections = [builder = out.builder.get()](int i) { return builder->Selection(i); };
  // Its name as the report says it: masked with the file's tokens.
  const std::string& said = out.report.file();
  out.damage = DamageOf(said, error);
  if (out.report.has_selected() && out.report.selected() == 0) {
    out.nothing_selected =
        Failure(FailureKind::kNotFound,
                said + ": " + FilterText(out.report.filter()) + " selects no process in any frame");
  }
  return out;
}

}  // namespace proctape
