// SPDX-License-Identifier: Apache-2.0
// Byte-level helpers for the tests of docs/format.md: a preamble, a chunk
// from a Chunk message, a zstd frame built field by field (RFC 8878) so that
// each requirement of the format can be broken alone, and an XXH64 written
// from its specification (not zstd's), to pin the checksum's seed.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "format/file_format.h"
#include "proctape.pb.h"

namespace proctape::test {

inline std::string Le(std::uint64_t v, int bytes) {
  std::string s;
  for (int i = 0; i < bytes; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}
inline std::string Le32(std::uint64_t v) { return Le(v, 4); }

inline std::uint64_t GetLe(const std::string& s, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s.at(at + i));
  return v;
}

inline std::string Preamble(std::uint32_t version = kFormatVersion) {
  return std::string(reinterpret_cast<const char*>(kMagic), sizeof kMagic) + Le32(version);
}

// XXH64 (github.com/Cyan4973/xxHash, doc/xxhash_spec.md), little-endian input.
inline std::uint64_t Xxh64(const std::string& data, std::uint64_t seed) {
  constexpr std::uint64_t P1 = 11400714785074694791ULL, P2 = 14029467366897019727ULL,
                          P3 = 1609587929392839161ULL, P4 = 9650029242287828579ULL,
                          P5 = 2870177450012600261ULL;
  auto rotl = [](std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); };
  auto round = [&](std::uint64_t acc, std::uint64_t lane) {
    acc += lane * P2;
    return rotl(acc, 31) * P1;
  };
  auto merge = [&](std::uint64_t acc, std::uint64_t v) {
    acc ^= round(0, v);
    return acc * P1 + P4;
  };
  const std::size_t n = data.size();
  std::size_t i = 0;
  std::uint64_t h;
  if (n >= 32) {
    std::uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
    for (; i + 32 <= n; i += 32) {
      v1 = round(v1, GetLe(data, i, 8));
      v2 = round(v2, GetLe(data, i + 8, 8));
      v3 = round(v3, GetLe(data, i + 16, 8));
      v4 = round(v4, GetLe(data, i + 24, 8));
    }
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else {
    h = seed + P5;
  }
  h += n;
  for (; i + 8 <= n; i += 8) {
    h ^= round(0, GetLe(data, i, 8));
    h = rotl(h, 27) * P1 + P4;
  }
  if (i + 4 <= n) {
    h ^= GetLe(data, i, 4) * P1;
    h = rotl(h, 23) * P2 + P3;
    i += 4;
  }
  for (; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]) * P5;
    h = rotl(h, 11) * P1;
  }
  h ^= h >> 33;
  h *= P2;
  h ^= h >> 29;
  h *= P3;
  h ^= h >> 32;
  return h;
}

// A zstd frame of raw blocks, every header field chosen (RFC 8878, 3.1.1).
// The defaults make the frame the format requires: single segment, the
// content size present, a checksum of XXH64 with seed 0, no dictionary.
struct FrameSpec {
  bool single_segment = true;
  int window_byte = -1;      // Window_Descriptor; -1: none (single segment)
  bool content_size = true;  // Frame_Content_Size present (needs !single_segment to omit)
  bool checksum = true;
  std::uint64_t checksum_seed = 0;
  int dictionary_bytes = 0;  // 0, 1, 2 or 4: Dictionary_ID field size
  std::uint32_t dictionary_id = 0;
  bool reserved_bit = false;        // Frame_Header_Descriptor bit 3
  bool unused_bit = false;          // bit 4, which decoders do not interpret
  std::int64_t declared_size = -1;  // Frame_Content_Size; -1: the content's
};

inline std::string ZstdRawFrame(const std::string& content, const FrameSpec& spec = {}) {
  const std::uint64_t declared =
      spec.declared_size < 0 ? content.size() : static_cast<std::uint64_t>(spec.declared_size);
  int fcs_flag = 3;  // 8 bytes: any size fits
  if (!spec.content_size) fcs_flag = 0;
  int did_flag = spec.dictionary_bytes == 4 ? 3 : spec.dictionary_bytes;
  unsigned char fhd = static_cast<unsigned char>((fcs_flag << 6) | (spec.single_segment << 5) |
                                                 (spec.unused_bit << 4) | (spec.reserved_bit << 3) |
                                                 (spec.checksum << 2) | did_flag);
  std::string f = Le32(0xFD2FB528);
  f.push_back(static_cast<char>(fhd));
  if (!spec.single_segment)
    f.push_back(static_cast<char>(spec.window_byte < 0 ? 0 : spec.window_byte));
  f += Le(spec.dictionary_id, spec.dictionary_bytes);
  if (fcs_flag == 3) f += Le(declared, 8);
  // Raw blocks of at most 128 KiB; Last_Block on the final one.
  std::size_t at = 0;
  do {
    const std::size_t n = std::min<std::size_t>(content.size() - at, 128 << 10);
    const bool last = at + n == content.size();
    f += Le((static_cast<std::uint64_t>(n) << 3) | (last ? 1 : 0), 3);
    f += content.substr(at, n);
    at += n;
  } while (at < content.size());
  if (spec.checksum) f += Le32(Xxh64(content, spec.checksum_seed) & 0xffffffff);
  return f;
}

inline std::string ChunkOf(const std::string& frame) { return Le32(frame.size()) + frame; }
inline std::string ChunkOf(const v1::Chunk& chunk, const FrameSpec& spec = {}) {
  return ChunkOf(ZstdRawFrame(chunk.SerializeAsString(), spec));
}

// A chunk of `content` compressed by zstd (content size and checksum on): a
// file as small as a hostile one is.
inline std::string Compressed(const std::string& content) {
  ZSTD_CCtx* c = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 19);
  ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 24);
  std::string out(ZSTD_compressBound(content.size()), '\0');
  std::size_t n = ZSTD_compress2(c, out.data(), out.size(), content.data(), content.size());
  ZSTD_freeCCtx(c);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return ChunkOf(out);
}

inline v1::Chunk HeaderBody(std::uint32_t version = kFormatVersion) {
  v1::Chunk c;
  c.mutable_header()->set_format_version(version);
  c.mutable_header()->set_tool_version("rules");
  return c;
}

inline v1::Chunk FooterBody(std::uint64_t chunks) {
  v1::Chunk c;
  c.mutable_footer()->set_chunks(chunks);
  return c;
}

// A whole file of one complete frame whose `refs` process records each take
// their cmdline from one blob of 15 MiB: a few KB on disk, 15 MiB per
// reference if each were copied.
inline std::string FileOfBlobReferences(int refs) {
  v1::Chunk c;
  v1::Frame* f = c.mutable_frame();
  f->set_complete(true);
  v1::Blob* blob = f->add_blobs();
  blob->set_id(1);
  blob->set_data(std::string(15u << 20, 'A'));
  for (int i = 0; i < refs; ++i) {
    v1::ProcessRecord* p = f->add_processes();
    p->set_pid(100 + i);
    p->mutable_cmdline()->set_blob(1);
  }
  return Preamble() + ChunkOf(HeaderBody()) + Compressed(c.SerializeAsString()) +
         ChunkOf(FooterBody(2));
}

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A fresh directory per test, removed after it.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proctape-fmt-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

}  // namespace proctape::test
