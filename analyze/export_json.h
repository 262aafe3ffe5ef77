// SPDX-License-Identifier: Apache-2.0
// `proctape export --format json` of a file read item by item
// (format/snapshot_stream.h): the document ExportJson (analyze/export.h)
// prints of the whole Snapshot, byte for byte, holding at most one chunk of
// the file and one process record's printer tree. The file is read more than
// once: a first read checks it whole (a damaged file writes nothing, as
// before) and keeps its header, footer, fingerprint and each frame's shell;
// then the frames, the observations and the resolutions are each printed from
// a read of their own, in the document's order.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "format/format_error.h"
#include "format/snapshot_stream.h"
#include "proctape.pb.h"

namespace proctape {

class JsonExport {
 public:
  // The first read: the file checked whole. Not kNone: the damage, as
  // ReadSnapshot reports it (nothing is to be written).
  FormatError Survey(const StreamSource& source);
  const v1::Header& header() const { return shell_.header(); }
  // The process records of every frame, as the document holds them.
  std::uint64_t records() const { return records_; }
  // ExportJson's document and its drain (analyze/export.h), printed from
  // further reads of the file. A failure when the document is over
  // protobuf's 2 GiB (kTooLarge), a printer fails (kInternal), `drain`
  // refuses (its failure) or the file no longer reads as it did (kCorrupt);
  // every message but the first after "cannot print JSON: ".
  MaybeFailure Write(std::string* out,
                     const std::function<MaybeFailure(std::string* out)>& drain) const;

 private:
  StreamSource source_;
  v1::SnapshotExport shell_;       // header, footer, fingerprints
  std::vector<v1::Frame> frames_;  // each frame's shell: every field but its processes
  std::uint64_t size_ = 0;         // the document's message, serialized
  std::uint64_t observations_ = 0;
  std::uint64_t records_ = 0;
  std::uint64_t resolutions_ = 0;
};

}  // namespace proctape
