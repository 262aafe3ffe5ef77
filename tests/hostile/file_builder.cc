// SPDX-License-Identifier: Apache-2.0
#include "tests/hostile/file_builder.h"

#include <google/protobuf/unknown_field_set.h>

#include <random>

#include <google/protobuf/io/coded_stream.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace proctape::hostile {
namespace {

std::string Le32(std::uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// A repeated message's tag and length beside its bytes, at most.
constexpr std::uint64_t kFieldOverhead = 6;

Tally TallyOf(const v1::Chunk& chunk, bool frame_open) {
  Tally t;
  if (chunk.has_frame()) {
    const v1::Frame& f = chunk.frame();
    t.frames = frame_open ? 0 : 1;
    t.processes = static_cast<std::uint64_t>(f.processes_size());
    for (const v1::ProcessRecord& p : f.processes()) {
      for (const v1::FileRead* r :
           {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
        t.reads_truncated += r->truncated() ? 1 : 0;
      }
    }
    t.frames_cut = f.complete() && f.cut_by_bounds() ? 1 : 0;
  }
  if (chunk.has_observations()) {
    t.observations = static_cast<std::uint64_t>(chunk.observations().observations_size());
  }
  if (chunk.has_resolution()) t.resolutions = 1;
  return t;
}

}  // namespace

std::string Varint(std::uint64_t v) {
  std::uint8_t bytes[10];  // the longest varint
  const std::uint8_t* end = google::protobuf::io::CodedOutputStream::WriteVarint64ToArray(v, bytes);
  return std::string(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(end - bytes));
}

std::string LengthDelimited(int number, const std::string& bytes) {
  std::string out = Varint((static_cast<std::uint64_t>(number) << 3) | 2);
  out += Varint(bytes.size());
  out += bytes;
  return out;
}

std::string ZstdFrame(const std::string& content) {
  if (content.size() > kMaxChunkContent) {
    throw std::runtime_error("chunk content of " + std::to_string(content.size()) +
                             " bytes, over kMaxChunkContent");
  }
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 19);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 24);  // 16 MiB: section 1's largest window
  std::string out(ZSTD_compressBound(content.size()), '\0');
  const std::size_t n = ZSTD_compress2(c, out.data(), out.size(), content.data(), content.size());
  ZSTD_freeCCtx(c);
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

FileBuilder::FileBuilder(std::uint32_t version) : version_(version) {
  bytes_.assign(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  bytes_ += Le32(version);
}

void FileBuilder::AddContent(const std::string& content, const Tally& tally) {
  const std::string frame = ZstdFrame(content);
  bytes_ += Le32(static_cast<std::uint32_t>(frame.size()));
  bytes_ += frame;
  ++chunks_;
  counts_.frames += tally.frames;
  counts_.processes += tally.processes;
  counts_.observations += tally.observations;
  counts_.resolutions += tally.resolutions;
  counts_.reads_truncated += tally.reads_truncated;
  counts_.frames_cut += tally.frames_cut;
}

void FileBuilder::Add(const v1::Chunk& chunk) {
  AddContent(chunk.SerializeAsString(), TallyOf(chunk, frame_open_));
  if (chunk.has_frame()) frame_open_ = !chunk.frame().complete();
  if (chunk.has_resolution()) {
    outcomes_.push_back(chunk.resolution());
    outcomes_.back().clear_request();
  }
}

namespace {
std::uint64_t header_pad = 0;
}  // namespace

void FileBuilder::SetHeaderPad(std::uint64_t bytes) { header_pad = bytes; }

void FileBuilder::AddHeader(v1::Header header) {
  header.set_format_version(version_);
  if (header_pad > 0) {
    std::mt19937_64 rng(7);  // the same file each time
    std::string noise(header_pad, '\0');
    for (char& c : noise) c = static_cast<char>(rng());
    header.GetReflection()->MutableUnknownFields(&header)->AddLengthDelimited(1000, noise);
  }
  v1::Chunk c;
  *c.mutable_header() = std::move(header);
  Add(c);
}

void FileBuilder::AddFrame(const v1::Frame& frame, std::uint64_t part_bytes) {
  v1::Chunk c;
  v1::Frame* part = c.mutable_frame();
  auto start_part = [&] {
    part->Clear();
    part->set_index(counts_.frames - (frame_open_ ? 1 : 0));
    if (!frame_open_) part->set_scan_start_mono_ns(frame.scan_start_mono_ns());
  };
  start_part();
  std::uint64_t held = 0;
  for (int i = 0; i < frame.processes_size(); ++i) {
    const std::uint64_t size = frame.processes(i).ByteSizeLong() + kFieldOverhead;
    if (part->processes_size() > 0 && (part_bytes == 0 || held + size > part_bytes)) {
      Add(c);
      start_part();
      held = 0;
    }
    *part->add_processes() = frame.processes(i);
    held += size;
  }
  part->set_complete(true);
  part->set_scan_end_mono_ns(frame.scan_end_mono_ns());
  part->set_cut_by_bounds(frame.cut_by_bounds());
  part->set_cut_reason(frame.cut_reason());
  part->set_bytes_read(frame.bytes_read());
  Add(c);
}

void FileBuilder::AddObservations(const std::vector<v1::Observation>& observations,
                                  std::uint64_t batch_bytes) {
  v1::Chunk c;
  std::uint64_t held = 0;
  for (const v1::Observation& o : observations) {
    const std::uint64_t size = o.ByteSizeLong() + kFieldOverhead;
    if (c.observations().observations_size() > 0 && held + size > batch_bytes) {
      Add(c);
      c.Clear();
      held = 0;
    }
    *c.mutable_observations()->add_observations() = o;
    held += size;
  }
  if (c.observations().observations_size() > 0) Add(c);
}

void FileBuilder::AddFooter(std::int64_t capture_end_mono_ns) {
  v1::Chunk c;
  v1::Footer* f = c.mutable_footer();
  f->set_chunks(chunks_);
  f->set_frames(counts_.frames);
  f->set_observations(counts_.observations);
  f->set_resolutions(counts_.resolutions);
  f->set_processes(counts_.processes);
  f->set_reads_truncated(counts_.reads_truncated);
  f->set_frames_cut_by_bounds(counts_.frames_cut);
  f->set_capture_end_mono_ns(capture_end_mono_ns);
  Add(c);
}

bool FileBuilder::WriteTo(const std::string& path, std::string* error) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
  out.close();
  if (!out) {
    *error = path + ": cannot write: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace proctape::hostile
