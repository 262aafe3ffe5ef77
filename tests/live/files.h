// File helpers shared by the live tests: a temporary directory removed with
// everything in it, and the decompressed chunks or records of a snapshot.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape::live {

// A fresh directory /tmp/proctape-NAME-XXXXXX, removed with everything in it.
class TempDir {
 public:
  explicit TempDir(const std::string& name = "test") {
    std::string tmpl = "/tmp/proctape-" + name + "-XXXXXX";
    const char* made = ::mkdtemp(tmpl.data());
    path_ = made == nullptr ? "" : made;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Every chunk of `path`, decompressed and serialized again: the bytes the
// file holds, as the reader sees them. Stops at the first damage.
inline std::vector<std::string> DecompressedChunks(const std::string& path, FormatError* error) {
  std::vector<std::string> out;
  auto reader = ChunkReader::Open(path, error);
  if (!reader) return out;
  v1::Chunk chunk;
  for (;;) {
    ChunkReader::Result r = reader->Next(&chunk);
    if (r == ChunkReader::Result::kEnd) break;
    if (r == ChunkReader::Result::kError) {
      *error = reader->error();
      break;
    }
    out.push_back(chunk.SerializeAsString());
  }
  return out;
}

inline const v1::ProcessRecord* FindRecord(const v1::Frame& frame, std::int64_t pid) {
  for (const auto& r : frame.processes()) {
    if (r.pid() == pid) return &r;
  }
  return nullptr;
}

}  // namespace proctape::live
