// SPDX-License-Identifier: Apache-2.0
// Streaming writer of .ptape files. Memory is bounded by one chunk (plus the
// table of stored-once blobs, itself bounded): every chunk is compressed and
// written as soon as it is complete.
//
// Output: the one rule of fs/output_file.h. The file is written as a
// temporary NAME.XXXXXX.partial beside NAME and renamed by Finish(), after
// the footer; a writer destroyed unfinished (a failure) removes it, as an
// interrupt does. Crash safety: a writer killed by SIGKILL at any point
// leaves the temporary, whose complete chunks all read back. "-" writes to
// standard output (no temporary, no rename).
//
// Calls after a failure do nothing and return false; error() says why.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/failure.h"
#include "format/file_format.h"
#include "fs/output_file.h"
#include "format/previous_frame.h"
#include "format/tape_calls.h"
#include "proctape.pb.h"

namespace proctape {

class SnapshotWriter {
 public:
  struct Options {
    bool force = false;  // Create(path): replace an existing NAME
    int level = 3;       // zstd level
    std::uint64_t target_chunk = kTargetChunkContent;
    // Version 2 (docs/format.md 9a): a record whose (pid, start tick) the
    // previous frame remembered is stored as what changed from it (a read
    // the same, stat fields that changed, or the whole record the same),
    // only where the rebuild gives the record back exactly. false: every
    // record whole, as version 1 stored them.
    bool from_previous = true;
    // The frames the caller will write, when it knows (0: not known). The
    // last of them keeps no record for a next frame: its records are not
    // serialized a second time to be remembered (still keyed, so the file is
    // the same). A BeginFrame past this count fails.
    std::uint64_t frames = 0;
    // The reader's count limits (format/file_format.h), kept by the writer
    // so that it never writes a file the reader refuses. Smaller values are
    // for tests.
    struct Limits {
      std::uint64_t chunks = kMaxChunks;  // the footer's included
      std::uint64_t processes = kMaxProcessRecords;
      std::uint64_t observations = kMaxObservations;
      std::uint64_t resolutions = kMaxResolutions;
      // Bytes a reader copies (each kept by not making a reference that
      // would pass it: the data is written whole instead).
      std::uint64_t blob_copy_bytes = kMaxBlobCopyBytes;
      std::uint64_t previous_copy_bytes = kMaxPreviousCopyBytes;
      std::uint64_t same_as_copy_bytes = kMaxSameAsCopyBytes;
    } limits = {};
  };

  // Writes to `output`, opened (and so checked) before any work began.
  static std::unique_ptr<SnapshotWriter> Create(std::unique_ptr<OutputFile> output,
                                                const Options& options);
  // Opens `path` ("-": standard output) and writes to it; null with *failure
  // when the output is refused (OutputFile::Open's: kUsage or kIo).
  static std::unique_ptr<SnapshotWriter> Create(const std::string& path, const Options& options,
                                                Failure* failure);
  ~SnapshotWriter();
  SnapshotWriter(const SnapshotWriter&) = delete;
  SnapshotWriter& operator=(const SnapshotWriter&) = delete;

  // The calls below keep the rules of docs/format.md: a call that would break
  // one fails (and the writer with it), e.g. a second header, a frame index
  // other than the next, an observation index out of order, a resolution
  // whose span runs past the observations written, a second fingerprint, or
  // anything after Finish.
  //
  // A call that would pass a count limit (Options::limits: chunks, with one
  // always kept for the footer; process records; observations; resolutions)
  // is refused: it returns false and writes nothing, refused() says which
  // limit, and the writer is not failed: an open frame can still be ended
  // and the file finished, intact, with what it holds.
  bool WriteHeader(const v1::Header& header);  // chunk 0; format_version set
  // A frame: BeginFrame, AddProcess for each record, EndFrame. Frames are
  // numbered 0, 1, 2, ... in file order: `index` is the next one.
  // BeginFrame returns false when refused (or failed): no frame is open.
  bool BeginFrame(std::uint64_t index, std::int64_t scan_start_mono_ns);
  bool AddProcess(v1::ProcessRecord&& record);
  bool EndFrame(std::int64_t scan_end_mono_ns, const std::string& cut_reason,
                std::uint64_t bytes_read);
  // Observations are batched into chunks of about target_chunk bytes; their
  // indexes run 0, 1, 2, ... across the file. An observation whose result is
  // byte for byte that of the last earlier observation of the same call is
  // written as "same as" it (version 2, docs/format.md section 9a); the
  // writer keeps at most kWriterTapeBytes of results to compare (past it, a
  // call not yet kept is written whole), and refuses an observation that
  // would take the reader's table of latest results past kMaxTapeTableBytes.
  bool AddObservation(v1::Observation&& observation);
  bool WriteResolution(const v1::Resolution& resolution);
  // The one fingerprint chunk a file may hold (`proctape fingerprint`,
  // format/fingerprint_file.h).
  bool WriteFingerprint(const v1::RootFingerprint& fingerprint);
  // Writes the footer (counts filled in), syncs, renames the temporary to NAME.
  bool Finish(v1::Footer footer);
  // Stops as SIGKILL would stop the writer: the temporary stays, unfinished,
  // and its path is returned ("" for standard output). For tests of crash
  // safety and of the reader.
  std::string Abandon();

  // One chunk as given, for tests of the limits and of the reader: only the
  // size limit is checked (the footer still counts what it holds).
  bool WriteChunk(const v1::Chunk& chunk);

  // Why the writer failed, or else why the last call was refused ("").
  const std::string& error() const { return error_.empty() ? refused_ : error_; }
  // The last refusal by a count limit ("" none); the writer still works.
  const std::string& refused() const { return refused_; }
  // The temporary being written ("" for standard output).
  const std::string& temporary() const { return output_->temporary(); }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t chunks() const { return chunks_; }
  bool frame_open() const { return frame_open_; }

 private:
  SnapshotWriter(std::unique_ptr<OutputFile> output, const Options& options);
  bool Fail(const std::string& message);
  bool Refuse(const std::string& message);
  // The chunks the file holds if finished now: those written, the open
  // frame's part, the open observation batch, the footer.
  std::uint64_t Committed() const;
  bool ChunkRoom(const char* what);  // room for one more committed chunk
  // Whether the open part, given `bytes` more in the file and `resolved`
  // more as a reader resolves them, reaches target_chunk (and so flushes).
  bool PartFills(std::uint64_t bytes, std::uint64_t resolved) const {
    return frame_part_bytes_ + bytes >= options_.target_chunk ||
           frame_part_resolved_ + resolved >= options_.target_chunk;
  }
  bool Ready(const char* what);
  void Count(const v1::Chunk& chunk, const std::uint64_t* reads_truncated = nullptr);
  bool WriteAll(const void* data, std::size_t size);
  bool WriteCounted(const v1::Chunk& chunk, const std::uint64_t* reads_truncated);
  bool FlushFramePart(bool complete);
  bool FlushObservations();
  void StoreOnce(v1::FileRead* read);
  bool SameAs(v1::Observation* observation);

  std::unique_ptr<OutputFile> output_;
  Options options_;
  ZSTD_CCtx* cctx_;
  std::string serialized_;
  std::string compressed_;
  std::string error_;
  std::string refused_;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t chunks_ = 0;

  v1::Chunk frame_part_;  // the open frame's current part
  std::uint64_t frame_part_bytes_ = 0;
  std::uint64_t frame_part_resolved_ = 0;   // its records as a reader resolves them
  std::uint64_t frame_part_truncated_ = 0;  // reads truncated in the part, as given
  PreviousFrame previous_;  // the previous frame's records, as the reader keeps them
  bool frame_open_ = false;
  v1::Chunk observations_;
  std::uint64_t observation_bytes_ = 0;

  std::unordered_map<std::string, std::uint64_t> blobs_;  // content -> id
  std::uint64_t blob_bytes_ = 0;
  // What readers copy, as they count it against their limits
  // (file_format.h): out of blobs, out of the previous frame, out of the
  // tape's latest results. A reference that would pass one is not made.
  std::uint64_t blob_copy_bytes_ = 0;
  std::uint64_t previous_copy_bytes_ = 0;
  std::uint64_t same_as_copy_bytes_ = 0;
  std::unordered_set<std::uint64_t> seen_;  // hashes of data seen once

  // Per call (SameAsKey): its last observation, the size of its result as
  // the reader's table counts it, and the result's bytes when kept.
  struct LastResult {
    std::uint64_t index = 0;
    std::uint64_t size = 0;
    bool kept = false;
    std::string bytes;
  };
  std::unordered_map<CallKey, LastResult, CallKeyHash> last_results_;
  std::uint64_t tape_table_bytes_ = 0;  // the reader's count (kMaxTapeTableBytes)
  std::uint64_t tape_kept_bytes_ = 0;   // bytes kept to compare (kWriterTapeBytes)

  v1::Footer counts_;  // of the chunks written
  std::uint64_t fingerprints_ = 0;
  bool finished_ = false;  // the footer is written
};

}  // namespace proctape
