// SPDX-License-Identifier: Apache-2.0
#include "tests/fuzz/proc_tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

namespace proctape::fuzz {
namespace {

std::string CleanPath(const std::string& raw) {
  std::string out;
  std::size_t depth = 0, start = 0;
  while (start <= raw.size() && depth < kMaxDepth) {
    std::size_t end = raw.find('/', start);
    if (end == std::string::npos) end = raw.size();
    std::string part = raw.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string::npos) {
      continue;
    }
    if (!out.empty()) out.push_back('/');
    out += part;
    ++depth;
  }
  return out;
}

void WriteFile(const std::string& path, const std::string& content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

}  // namespace

std::vector<TreeEntry> ParseTree(const std::uint8_t* data, std::size_t size) {
  std::vector<TreeEntry> out;
  std::size_t at = 0;
  while (at + 2 <= size && out.size() < kMaxEntries) {
    TreeEntry e;
    e.kind = static_cast<char>(data[at]);
    const std::size_t path_len = data[at + 1];
    at += 2;
    if (size - at < path_len + 2) break;
    std::string raw(reinterpret_cast<const char*>(data + at), path_len);
    at += path_len;
    const std::size_t len = data[at] | (static_cast<std::size_t>(data[at + 1]) << 8);
    at += 2;
    if (size - at < len) break;
    e.content.assign(reinterpret_cast<const char*>(data + at), len);
    at += len;
    e.path = CleanPath(raw);
    if (e.path.empty()) continue;
    if (e.kind == 'd' || e.kind == 'f' || e.kind == 'l' || e.kind == 'p') out.push_back(e);
  }
  return out;
}

void MakeTree(const std::vector<TreeEntry>& entries, const std::string& root) {
  for (const TreeEntry& e : entries) {
    const std::string path = root + "/" + e.path;
    std::error_code ec;
    const std::size_t slash = e.path.rfind('/');
    if (slash != std::string::npos) {
      std::filesystem::create_directories(root + "/" + e.path.substr(0, slash), ec);
      if (ec) continue;
    }
    switch (e.kind) {
      case 'd': ::mkdir(path.c_str(), 0755); break;
      case 'f': WriteFile(path, e.content); break;
      case 'l':
        if (e.content.find('\0') == std::string::npos) {
          [[maybe_unused]] int r = ::symlink(e.content.c_str(), path.c_str());
        }
        break;
      case 'p': ::mkfifo(path.c_str(), 0644); break;
      default: break;
    }
  }
}

std::string PackTree(const std::string& root, std::size_t max_bytes) {
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    paths.push_back(it->path());
  }
  std::sort(paths.begin(), paths.end());
  std::string out;
  for (const std::filesystem::path& p : paths) {
    std::string rel = std::filesystem::relative(p, root, ec).string();
    if (ec || rel.size() > 255) continue;
    std::string content;
    char kind;
    auto status = std::filesystem::symlink_status(p, ec);
    if (std::filesystem::is_symlink(status)) {
      kind = 'l';
      content = std::filesystem::read_symlink(p, ec).string();
    } else if (std::filesystem::is_directory(status)) {
      kind = 'd';
    } else if (std::filesystem::is_regular_file(status)) {
      kind = 'f';
      std::ifstream in(p, std::ios::binary);
      content.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    } else {
      continue;
    }
    if (content.size() > 65535) content.resize(65535);
    std::string entry;
    entry.push_back(kind);
    entry.push_back(static_cast<char>(rel.size()));
    entry += rel;
    entry.push_back(static_cast<char>(content.size() & 0xff));
    entry.push_back(static_cast<char>(content.size() >> 8));
    entry += content;
    if (out.size() + entry.size() > max_bytes) continue;
    out += entry;
  }
  return out;
}

}  // namespace proctape::fuzz
