#include "format/writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace proctape {
namespace {

std::string Errno(const std::string& what) { return what + ": " + std::strerror(errno); }

void PutLe32(std::string* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::unique_ptr<SnapshotWriter> SnapshotWriter::Create(const std::string& path,
                                                       const Options& options,
                                                       std::string* error) {
  if (path == "-") {
    return std::unique_ptr<SnapshotWriter>(new SnapshotWriter(STDOUT_FILENO, "", "", options));
  }
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      *error = path + " is a symbolic link: refused";
      return nullptr;
    }
    if (!options.force) {
      *error = path + " exists: refused (use --force to replace it)";
      return nullptr;
    }
  }
  std::string partial = path + ".partial";
  if (options.force && ::lstat(partial.c_str(), &st) == 0) ::unlink(partial.c_str());
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = errno == EEXIST
                 ? partial + " exists (left by a capture that did not finish?): remove it or use --force"
                 : Errno("cannot create " + partial);
    return nullptr;
  }
  return std::unique_ptr<SnapshotWriter>(new SnapshotWriter(fd, path, partial, options));
}

SnapshotWriter::SnapshotWriter(int fd, std::string path, std::string partial,
                               const Options& options)
    : fd_(fd), path_(std::move(path)), partial_(std::move(partial)), options_(options),
      cctx_(ZSTD_createCCtx()) {
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, options_.level);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_contentSizeFlag, 1);
  std::string preamble(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  PutLe32(&preamble, kFormatVersion);
  WriteAll(preamble.data(), preamble.size());
}

SnapshotWriter::~SnapshotWriter() {
  ZSTD_freeCCtx(cctx_);
  if (!partial_.empty() && fd_ >= 0) ::close(fd_);  // an unfinished file stays .partial
}

bool SnapshotWriter::Fail(const std::string& message) {
  if (error_.empty()) error_ = message;
  return false;
}

bool SnapshotWriter::WriteAll(const void* data, std::size_t size) {
  if (!error_.empty()) return false;
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Fail(Errno("write to " + (path_.empty() ? "standard output" : partial_)));
    p += n;
    size -= static_cast<std::size_t>(n);
    bytes_written_ += static_cast<std::uint64_t>(n);
  }
  return true;
}

bool SnapshotWriter::WriteChunk(const v1::Chunk& chunk) {
  if (!error_.empty()) return false;
  std::size_t size = chunk.ByteSizeLong();
  if (size > kMaxChunkContent) {
    return Fail("chunk " + std::to_string(chunks_) + " would hold " + std::to_string(size) +
                " bytes, over the limit of " + std::to_string(kMaxChunkContent));
  }
  serialized_.clear();
  if (!chunk.SerializeToString(&serialized_)) return Fail("cannot serialize chunk");
  compressed_.resize(kLengthBytes + ZSTD_compressBound(serialized_.size()));
  ZSTD_CCtx_setPledgedSrcSize(cctx_, serialized_.size());
  std::size_t n = ZSTD_compress2(cctx_, compressed_.data() + kLengthBytes,
                                 compressed_.size() - kLengthBytes, serialized_.data(),
                                 serialized_.size());
  if (ZSTD_isError(n)) return Fail(std::string("zstd: ") + ZSTD_getErrorName(n));
  std::string length;
  PutLe32(&length, static_cast<std::uint32_t>(n));
  std::memcpy(compressed_.data(), length.data(), kLengthBytes);
  if (!WriteAll(compressed_.data(), kLengthBytes + n)) return false;
  ++chunks_;
  return true;
}

bool SnapshotWriter::WriteHeader(const v1::Header& header) {
  v1::Chunk chunk;
  *chunk.mutable_header() = header;
  chunk.mutable_header()->set_format_version(kFormatVersion);
  return WriteChunk(chunk);
}

void SnapshotWriter::BeginFrame(std::uint64_t index, std::int64_t scan_start_mono_ns) {
  frame_part_.Clear();
  v1::Frame* f = frame_part_.mutable_frame();
  f->set_index(index);
  f->set_scan_start_mono_ns(scan_start_mono_ns);
  frame_part_bytes_ = 0;
  frame_open_ = true;
}

// Replaces large cmdline/environ data seen before by a reference to a blob
// defined once per file. Data seen for the first time stays inline (only its
// hash is remembered), so unique data costs nothing extra; the second sighting
// defines the blob. Both tables are bounded (kWriterBlobBytes, kWriterSeen):
// past them data simply stays inline, so memory does not grow with the host.
void SnapshotWriter::StoreOnce(v1::FileRead* read) {
  const std::string& data = read->data();
  if (data.size() < kMinBlobBytes) return;
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
  read->clear_data();
  read->set_blob(it->second);
}

bool SnapshotWriter::AddProcess(v1::ProcessRecord&& record) {
  if (!frame_open_) return Fail("AddProcess outside a frame");
  for (const v1::FileRead* r : {&record.stat(), &record.cmdline(), &record.environ(),
                                &record.status(), &record.cgroup()}) {
    if (r->truncated()) counts_.set_reads_truncated(counts_.reads_truncated() + 1);
  }
  if (record.has_cmdline()) StoreOnce(record.mutable_cmdline());
  if (record.has_environ()) StoreOnce(record.mutable_environ());
  frame_part_bytes_ += record.ByteSizeLong() + 4;
  *frame_part_.mutable_frame()->add_processes() = std::move(record);
  counts_.set_processes(counts_.processes() + 1);
  if (frame_part_bytes_ >= options_.target_chunk) return FlushFramePart(false);
  return error_.empty();
}

bool SnapshotWriter::FlushFramePart(bool complete) {
  v1::Frame* f = frame_part_.mutable_frame();
  f->set_complete(complete);
  bool ok = WriteChunk(frame_part_);
  // The next part carries only the index; blobs once written are known.
  std::uint64_t index = f->index();
  frame_part_.Clear();
  frame_part_.mutable_frame()->set_index(index);
  frame_part_bytes_ = 0;
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
  counts_.set_frames(counts_.frames() + 1);
  if (!cut_reason.empty()) counts_.set_frames_cut_by_bounds(counts_.frames_cut_by_bounds() + 1);
  return FlushFramePart(true);
}

bool SnapshotWriter::AddObservation(v1::Observation&& observation) {
  observation_bytes_ += observation.ByteSizeLong() + 4;
  *observations_.mutable_observations()->add_observations() = std::move(observation);
  counts_.set_observations(counts_.observations() + 1);
  if (observation_bytes_ >= options_.target_chunk) return FlushObservations();
  return error_.empty();
}

bool SnapshotWriter::FlushObservations() {
  if (!observations_.has_observations()) return error_.empty();
  bool ok = WriteChunk(observations_);
  observations_.Clear();
  observation_bytes_ = 0;
  return ok;
}

bool SnapshotWriter::WriteResolution(const v1::Resolution& resolution) {
  if (!FlushObservations()) return false;
  v1::Chunk chunk;
  *chunk.mutable_resolution() = resolution;
  counts_.set_resolutions(counts_.resolutions() + 1);
  return WriteChunk(chunk);
}

bool SnapshotWriter::WriteFingerprint(const v1::RootFingerprint& fingerprint) {
  if (!FlushObservations()) return false;
  v1::Chunk chunk;
  *chunk.mutable_fingerprint() = fingerprint;
  return WriteChunk(chunk);
}

bool SnapshotWriter::Finish(v1::Footer footer) {
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
  if (partial_.empty()) return true;  // standard output: nothing to rename
  if (::fsync(fd_) != 0) return Fail(Errno("fsync " + partial_));
  if (::close(fd_) != 0) {
    fd_ = -1;
    return Fail(Errno("close " + partial_));
  }
  fd_ = -1;
  // No replacing of a NAME that appeared meanwhile unless forced; a rename
  // never follows a link at NAME.
  unsigned flags = options_.force ? 0 : RENAME_NOREPLACE;
  if (::renameat2(AT_FDCWD, partial_.c_str(), AT_FDCWD, path_.c_str(), flags) != 0) {
    return Fail(Errno("rename " + partial_ + " to " + path_));
  }
  return true;
}

}  // namespace proctape
