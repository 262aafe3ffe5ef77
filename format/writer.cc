// SPDX-License-Identifier: Apache-2.0
#include "format/writer.h"

#include <cstring>

#include "format/file_holds.h"
#include "format/tape_calls.h"

namespace proctape {

// Structured calls come after the header and before Finish.
bool SnapshotWriter::Ready(const char* what) {
  if (!error_.empty()) return false;
  if (finished_) return Fail(std::string(what) + " after Finish");
  if (chunks_ == 0) return Fail(std::string(what) + " before the header");
  return true;
}

bool SnapshotWriter::WriteHeader(const v1::Header& header) {
  if (!error_.empty()) return false;
  // "The header is chunk 0, and only chunk 0"; its version is the preamble's.
  if (chunks_ != 0 || finished_) return Fail("WriteHeader after chunk 0");
  if (!ChunkRoom("WriteHeader")) return false;
  // Rule 2 of fs/output_file.h, decided here for every .ptape: a file
  // whose header keeps environment values is the owner's only.
  if (KeepsEnvironValues(header)) output_->KeepOwnerOnly();
  v1::Chunk chunk;
  *chunk.mutable_header() = header;
  chunk.mutable_header()->set_format_version(kFormatVersion);
  return WriteChunk(chunk);
}

bool SnapshotWriter::BeginFrame(std::uint64_t index, std::int64_t scan_start_mono_ns) {
  if (!Ready("BeginFrame")) return false;
  if (frame_open_) return Fail("BeginFrame inside an open frame");
  // "Frame k of the file (from 0) has index k."
  if (index != counts_.frames()) {
    return Fail("BeginFrame index " + std::to_string(index) + ", expected " +
                std::to_string(counts_.frames()));
  }
  if (options_.frames != 0 && index >= options_.frames) {
    return Fail("BeginFrame index " + std::to_string(index) + " past the " +
                std::to_string(options_.frames) + " frames announced");
  }
  if (!ChunkRoom("BeginFrame")) return false;
  frame_part_.Clear();
  v1::Frame* f = frame_part_.mutable_frame();
  f->set_index(index);
  f->set_scan_start_mono_ns(scan_start_mono_ns);
  frame_part_bytes_ = 0;
  frame_part_resolved_ = 0;
  frame_part_truncated_ = 0;
  frame_open_ = true;
  previous_.BeginFrame(index);
  return true;
}

// Replaces large cmdline/environ data seen before by a reference to a blob
// defined once per file. Data seen for the first time stays inline (only its
// hash is remembered), so unique data costs nothing extra; the second sighting
// defines the blob. Both tables are bounded (kWriterBlobBytes, kWriterSeen):
// past them data simply stays inline, so memory does not grow with the host.
void SnapshotWriter::StoreOnce(v1::FileRead* read) {
  const std::string& data = read->data();
  if (read->err() != 0 || data.size() < kMinBlobBytes) return;
  // Each reference costs a reader a copy of the blob (kMaxBlobCopyBytes).
  if (blob_copy_bytes_ + data.size() > options_.limits.blob_copy_bytes) return;
  auto it = blobs_.find(data);
  if (it == blobs_.end()) {
    std::uint64_t hash = std::hash<std::string>{}(data);
    if (seen_.count(hash) == 0) {
      if (seen_.size() < kWriterSeen) seen_.insert(hash);
      return;
    }
    if (blob_bytes_ + data.size() > kWriterBlobBytes) return;
    std::uint64_t id = blobs_.size() + 1;
    v1::Blob* blob = frame_part_.mutable_frame()->add_blobs();
    blob->set_id(id);
    blob->set_data(data);
    blob_bytes_ += data.size();
    frame_part_bytes_ += data.size() + 8;
    it = blobs_.emplace(data, id).first;
  }
  blob_copy_bytes_ += data.size();
  read->clear_data();
  read->set_blob(it->second);
}

bool SnapshotWriter::AddProcess(v1::ProcessRecord&& record) {
  if (!error_.empty()) return false;
  if (!frame_open_) return Fail("AddProcess outside a frame");
  const std::uint64_t records =
      counts_.processes() + static_cast<std::uint64_t>(frame_part_.frame().processes_size());
  if (records >= options_.limits.processes) {
    return Refuse("AddProcess: the file would pass the limit of " +
                  std::to_string(options_.limits.processes) + " process records");
  }
  // Blob references are the writer's alone to make.
  for (const v1::FileRead* r :
       {&record.stat(), &record.cmdline(), &record.environ(), &record.status(), &record.cgroup()}) {
    if (r->blob() != 0) return Fail("AddProcess: a record that refers to a blob");
  }
  if (UsesVersion2(record)) return Fail("AddProcess: a record that refers to the previous frame");
  const std::uint64_t truncated = TruncatedReads(record);
  // The previous frame's record of its key, read before this record takes
  // the key; the record is remembered plain, as the reader will see it.
  // It is remembered once it is sure to be written (a refused record is not).
  // The announced last frame (Options::frames) remembers keys only: no frame
  // will refer to its records. When it is also the first, nothing is looked
  // up or remembered: there is no frame before it or after it.
  const std::uint64_t frame = counts_.frames();
  const bool last = options_.frames != 0 && frame + 1 == options_.frames;
  std::optional<RecordKey> key;
  v1::ProcessRecord plain;
  // The record as a reader holds it once resolved (blobs and the previous
  // frame copied in): a part is closed by this size as well as by its own,
  // so that a reader resolves at most about target_chunk bytes at a time
  // (a part of 10,000 records "the same as the previous frame" is a few
  // hundred KB in the file and 22 MB resolved).
  const std::uint64_t resolved = record.ByteSizeLong() + 4;
  std::uint64_t previous_copy = 0;  // what the reader copies out of the previous frame
  if (options_.from_previous && !(last && frame == 0)) key = KeyOf(record);
  if (key) {
    if (!last) plain = record;
    v1::ProcessRecord before;
    if (previous_.Find(*key, &before)) {
      const std::uint64_t room = options_.limits.previous_copy_bytes - previous_copy_bytes_;
      CompactAgainst(before, &record, room, &previous_copy);
    }
  }
  // A part that fills flushes, and the frame's next part takes a chunk. The
  // room is checked before StoreOnce, which defines blobs in the open part:
  // a refused record must leave the part as it was (a blob nothing refers to
  // is corrupt). So the check takes a bound of what the record will add: a
  // read that becomes a blob reference moves its data into the blob and adds
  // at most kBlobSlack bytes of framing.
  constexpr std::uint64_t kBlobSlack = 24;
  const std::uint64_t bound = record.ByteSizeLong() + 4 + 2 * kBlobSlack;
  if (PartFills(bound, resolved) && !ChunkRoom("AddProcess")) return false;
  if (record.has_cmdline()) StoreOnce(record.mutable_cmdline());
  if (record.has_environ()) StoreOnce(record.mutable_environ());
  const std::uint64_t bytes = record.ByteSizeLong() + 4;
  if (key && last) previous_.TakeKey(*key);
  if (key && !last) previous_.Remember(*key, &plain);
  previous_copy_bytes_ += previous_copy;
  frame_part_bytes_ += bytes;
  frame_part_resolved_ += resolved;
  frame_part_truncated_ += truncated;
  *frame_part_.mutable_frame()->add_processes() = std::move(record);
  if (PartFills(0, 0)) return FlushFramePart(false);
  return error_.empty();
}

bool SnapshotWriter::FlushFramePart(bool complete) {
  v1::Frame* f = frame_part_.mutable_frame();
  f->set_complete(complete);
  bool ok = WriteCounted(frame_part_, &frame_part_truncated_);
  // The next part carries only the index; blobs once written are known.
  std::uint64_t index = f->index();
  frame_part_.Clear();
  frame_part_.mutable_frame()->set_index(index);
  frame_part_bytes_ = 0;
  frame_part_resolved_ = 0;
  frame_part_truncated_ = 0;
  return ok;
}

bool SnapshotWriter::EndFrame(std::int64_t scan_end_mono_ns, const std::string& cut_reason,
                              std::uint64_t bytes_read) {
  if (!frame_open_) return Fail("EndFrame outside a frame");
  v1::Frame* f = frame_part_.mutable_frame();
  f->set_scan_end_mono_ns(scan_end_mono_ns);
  f->set_cut_by_bounds(!cut_reason.empty());
  f->set_cut_reason(cut_reason);
  f->set_bytes_read(bytes_read);
  frame_open_ = false;
  return FlushFramePart(true);
}

bool SnapshotWriter::AddObservation(v1::Observation&& observation) {
  if (!Ready("AddObservation")) return false;
  // "Observation indexes run 0, 1, 2, ... across the whole file."
  const std::uint64_t next =
      counts_.observations() +
      static_cast<std::uint64_t>(observations_.observations().observations_size());
  if (observation.index() != next) {
    return Fail("AddObservation index " + std::to_string(observation.index()) + ", expected " +
                std::to_string(next));
  }
  if (observation.read_file().result().blob() != 0) {
    return Fail("AddObservation: a read that refers to a blob");
  }
  if (next >= options_.limits.observations) {
    return Refuse("AddObservation: the file would pass the limit of " +
                  std::to_string(options_.limits.observations) + " observations");
  }
  if (observation.same_as() != 0) return Fail("AddObservation: a 'same as' reference");
  // A new batch takes a chunk (a full one is written and the next is empty).
  if (!observations_.has_observations() && !ChunkRoom("AddObservation")) return false;
  if (!SameAs(&observation)) return false;
  observation_bytes_ += observation.ByteSizeLong() + 4;
  *observations_.mutable_observations()->add_observations() = std::move(observation);
  if (observation_bytes_ >= options_.target_chunk) return FlushObservations();
  return error_.empty();
}

// "The result is the same as observation index - same_as, the last earlier
// observation of the same call, whose result bytes are equal": chosen only
// when the bytes kept of that result equal the new result's bytes, so the
// reader's copy rebuilds exactly what was replaced. Otherwise the result is
// written whole and becomes the call's last (kept if the budget allows).
bool SnapshotWriter::SameAs(v1::Observation* o) {
  CallKey key = SameAsKey(*o);
  if (key.empty()) return true;  // a clock reading: never "same as"
  std::string bytes = ResultBytes(*o);
  auto it = last_results_.find(key);
  if (it != last_results_.end() && it->second.kept && it->second.bytes == bytes &&
      same_as_copy_bytes_ + it->second.size <= options_.limits.same_as_copy_bytes) {
    same_as_copy_bytes_ += it->second.size;
    o->set_same_as(o->index() - it->second.index);
    ClearResult(o);
    it->second.index = o->index();
    return true;
  }
  const std::uint64_t old_size = it == last_results_.end() ? 0 : it->second.size;
  const std::uint64_t table = tape_table_bytes_ - old_size + bytes.size();
  if (table > kMaxTapeTableBytes) {
    return Refuse(
        "AddObservation: the latest results of the tape's calls would pass the limit of " +
        std::to_string(kMaxTapeTableBytes) + " bytes");
  }
  tape_table_bytes_ = table;
  LastResult& last = last_results_[key];
  if (last.kept) tape_kept_bytes_ -= last.bytes.size();
  last.index = o->index();
  last.size = bytes.size();
  last.kept = tape_kept_bytes_ + bytes.size() <= kWriterTapeBytes;
  if (last.kept) {
    tape_kept_bytes_ += bytes.size();
    last.bytes = std::move(bytes);
  } else {
    last.bytes.clear();
    last.bytes.shrink_to_fit();
  }
  return true;
}

bool SnapshotWriter::FlushObservations() {
  if (!observations_.has_observations()) return error_.empty();
  bool ok = WriteChunk(observations_);
  observations_.Clear();
  observation_bytes_ = 0;
  return ok;
}

bool SnapshotWriter::WriteResolution(const v1::Resolution& resolution) {
  if (!Ready("WriteResolution")) return false;
  if (counts_.resolutions() >= options_.limits.resolutions) {
    return Refuse("WriteResolution: the file would pass the limit of " +
                  std::to_string(options_.limits.resolutions) + " resolutions");
  }
  if (!ChunkRoom("WriteResolution") || !FlushObservations()) return false;
  // "A resolution's span lies within the observations before it."
  const std::uint64_t seen = counts_.observations();
  if (resolution.first_observation() > seen ||
      resolution.observation_count() > seen - resolution.first_observation()) {
    return Fail("WriteResolution: observations " + std::to_string(resolution.first_observation()) +
                " + " + std::to_string(resolution.observation_count()) + " past the " +
                std::to_string(seen) + " written");
  }
  v1::Chunk chunk;
  *chunk.mutable_resolution() = resolution;
  return WriteChunk(chunk);
}

bool SnapshotWriter::WriteFingerprint(const v1::RootFingerprint& fingerprint) {
  if (!Ready("WriteFingerprint")) return false;
  // "A file holds at most one fingerprint chunk."
  if (fingerprints_ != 0) return Fail("WriteFingerprint: a second fingerprint");
  if (!ChunkRoom("WriteFingerprint")) return false;
  v1::Chunk chunk;
  *chunk.mutable_fingerprint() = fingerprint;
  return WriteChunk(chunk);
}

bool SnapshotWriter::Finish(v1::Footer footer) {
  if (!Ready("Finish")) return false;
  if (frame_open_) return Fail("Finish inside an open frame");
  if (!FlushObservations()) return false;
  footer.set_frames(counts_.frames());
  footer.set_observations(counts_.observations());
  footer.set_resolutions(counts_.resolutions());
  footer.set_processes(counts_.processes());
  footer.set_reads_truncated(counts_.reads_truncated());
  footer.set_frames_cut_by_bounds(counts_.frames_cut_by_bounds());
  footer.set_chunks(chunks_);
  v1::Chunk chunk;
  *chunk.mutable_footer() = footer;
  if (!WriteChunk(chunk)) return false;
  finished_ = true;  // "Nothing may follow the footer."
  // Synced and renamed; a NAME that appeared meanwhile is not replaced
  // unless forced, and a rename never follows a link at NAME.
  if (MaybeFailure failed = output_->Commit()) return Fail(failed->message);
  return true;
}

}  // namespace proctape
