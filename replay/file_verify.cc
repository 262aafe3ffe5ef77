// SPDX-License-Identifier: Apache-2.0
#include "replay/file_verify.h"

#include <memory>
#include <utility>

#include "core/proc_parse.h"
#include "format/snapshot_stream.h"
#include "proto/summary.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

// What verify says of a file: its counts, read chunk by chunk (nothing of
// the file is held but its header and fingerprint).
struct Verified {
  v1::Header header;
  std::optional<v1::RootFingerprint> fingerprint;
  StreamCounts counts;
  TokenMask mask;  // the file's tokens: its name may hold a piece of one
};

FormatError ReadVerified(const std::string& file, Verified* out) {
  FormatError error;
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::Open(file, &error);
  if (!stream) return error;
  stream->set_resolve_same_as(false);       // checked, never copied: verify keeps no result
  stream->set_resolve_same_records(false);  // nor a record
  for (;;) {
    const SnapshotStream::Result r = stream->Next();
    out->counts = stream->counts();
    if (r == SnapshotStream::Result::kEnd) return error;
    if (r == SnapshotStream::Result::kError) return stream->error();
    StreamItem& item = stream->item();
    if (item.kind == StreamItem::Kind::kHeader) {
      out->header = std::move(*item.chunk.mutable_header());
      out->mask.Add(TokenMask::Of(out->header, {}));
    } else if (item.kind == StreamItem::Kind::kResolution) {
      if (item.chunk.resolution().has_resolve()) {
        out->mask.Add(item.chunk.resolution().resolve().token());
      }
    } else if (item.kind == StreamItem::Kind::kFingerprint) {
      out->fingerprint = std::move(*item.chunk.mutable_fingerprint());
    }
  }
}

bool EnvironKept(const Verified& snap) {
  return snap.header.redaction().environ() == v1::RedactionPolicy::ENVIRON_KEPT;
}

// The VerifyReport of a file as read.
v1::VerifyReport VerifyReportOf(const std::string& file, const Verified& snap,
                                const FormatError& error) {
  const StreamCounts& n = snap.counts;
  v1::VerifyReport report;
  report.set_file(EscapedText(snap.mask.Masked(file)));
  report.set_intact(error.ok());
  report.set_error_kind(FormatErrorName(error.kind));
  report.set_error_chunk(Count32(error.chunk));
  report.set_error_offset(static_cast<double>(error.offset));
  report.set_error(Printable(error.message));
  report.set_chunks(Count32(n.chunks));
  report.set_frames(Count32(n.frames));
  report.set_processes(Count32(n.processes));
  report.set_observations(Count32(n.observations));
  report.set_resolutions(Count32(n.resolutions));
  report.set_environ_kept(EnvironKept(snap));
  report.set_fingerprints(Count32(n.fingerprints));
  return report;
}

// The line of an intact file.
std::string IntactLine(const std::string& name, const Verified& snap) {
  const StreamCounts& n = snap.counts;
  if (snap.fingerprint && n.frames == 0 && n.resolutions == 0) {
    // A fingerprint file: what it fingerprinted, not frames and environs.
    const v1::RootFingerprint& f = *snap.fingerprint;
    return name + ": intact: " + Plural(n.chunks, "chunk", "chunks") + ", " +
           Plural(n.fingerprints, "root fingerprint", "root fingerprints") + ": root " +
           std::to_string(f.root_pid()) + " at start tick " + std::to_string(f.root_start_ticks()) +
           ", exe " + EscapeBytes(f.exe_path(), 1024) + " " +
           std::to_string(f.exe_identity().dev()) + ":" + std::to_string(f.exe_identity().ino()) +
           "\n";
  }
  // The process records are summed over the frames.
  return name + ": intact: " + Plural(n.chunks, "chunk", "chunks") + ", " +
         Plural(n.frames, "frame", "frames") + ", " +
         Plural(n.processes, "process record", "process records") + ", " +
         Plural(n.observations, "observation", "observations") + ", " +
         Plural(n.resolutions, "resolution", "resolutions") + ", environ " +
         (EnvironKept(snap) ? "KEPT" : "redacted") + "\n";
}

// One line: the damage, then what came before it.
Failure DamageOf(const std::string& name, const Verified& snap, const FormatError& error) {
  const StreamCounts& n = snap.counts;
  std::string before;
  if (n.chunks > 0) {
    before = "; " + Plural(n.chunks, "complete chunk", "complete chunks") +
             " before it read back (" + Plural(n.frames, "frame", "frames") + ", " +
             Plural(n.observations, "observation", "observations") + ")";
  }
  return Failure(*FailureKindOf(error.kind), name + ": " + error.message + before);
}

}  // namespace

FileVerified VerifyFile(const std::string& file) {
  Verified snap;
  const FormatError error = ReadVerified(file, &snap);
  const std::string name = snap.mask.Shown(file);
  FileVerified out;
  out.report = VerifyReportOf(file, snap, error);
  if (!error.ok()) {
    out.damage = DamageOf(name, snap, error);
    return out;
  }
  out.line = IntactLine(name, snap);
  if (EnvironKept(snap))
    out.warnings.push_back(name + " stores environment values as read (--env keep)");
  return out;
}

}  // namespace proctape
