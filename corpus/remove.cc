// `corpus rm`: entries taken out of a corpus (corpus/corpus.h).
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "corpus/corpus.h"

namespace proctape {
namespace {

// The corpus directory, open and locked until destroyed.
struct DirLock {
  int fd = -1;
  ~DirLock() {
    if (fd >= 0) ::close(fd);
  }
};

RemoveOutcome Failed(RemoveOutcome::Kind kind, std::string message) {
  RemoveOutcome out;
  out.kind = kind;
  out.message = std::move(message);
  return out;
}

}  // namespace

RemoveOutcome RemoveFromCorpus(const std::string& dir, const std::vector<std::string>& names) {
  using Kind = RemoveOutcome::Kind;
  const std::string shown = EscapeBytes(dir, 4096);
  DirLock lock{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (lock.fd < 0) {
    // A directory that cannot be opened holds no MANIFEST that can: said as
    // LoadManifest says it (check and list), so every command says the same.
    const int err = errno;
    Failure failure;
    errno = err;
    if (!LoadManifest(dir, false, &failure)) return Failed(Kind::kManifest, failure.message);
    return Failed(Kind::kManifest, shown + ": " + std::strerror(err) +
                                       " (not a corpus: 'proctape corpus add' creates one)");
  }
  if (::flock(lock.fd, LOCK_EX) != 0) {
    return Failed(Kind::kIo, shown + ": cannot lock the directory: " + std::strerror(errno));
  }
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(dir, false, &failure);
  if (!loaded) return Failed(Kind::kManifest, failure.message);
  Manifest manifest = std::move(*loaded);

  std::vector<std::string> unknown;
  for (const std::string& name : names) {
    auto it = std::find_if(manifest.entries.begin(), manifest.entries.end(),
                           [&](const ManifestEntry& e) { return e.name == name; });
    if (it == manifest.entries.end()) unknown.push_back(EscapeBytes(name, 64));
  }
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& u : unknown) list += (list.empty() ? "" : ", ") + u;
    return Failed(Kind::kUsage, "no entry " + list + " in " + EscapeBytes(ManifestPath(dir), 4096) +
                                    ": nothing was removed ('proctape corpus list' names them)");
  }

  RemoveOutcome out;
  std::vector<ManifestEntry> kept;
  for (ManifestEntry& e : manifest.entries) {
    const bool named = std::find(names.begin(), names.end(), e.name) != names.end();
    (named ? out.removed : kept).push_back(std::move(e));
  }
  manifest.entries = std::move(kept);
  // The MANIFEST first: a file it no longer names is only a stray file; an
  // entry whose file is gone would be a corpus that does not check.
  if (MaybeFailure failed = WriteFileAtomic(ManifestPath(dir), FormatManifest(manifest))) {
    out.removed.clear();
    return Failed(Kind::kIo, failed->message);
  }
  for (const ManifestEntry& e : out.removed) {
    const std::string file = dir + "/" + e.file;
    if (::unlink(file.c_str()) == 0) continue;
    if (errno == ENOENT) {
      out.warnings.push_back(e.name + ": its file " + EscapeBytes(file, 4096) +
                             " was already missing");
      continue;
    }
    out.kind = Kind::kIo;
    out.message = e.name + " left the MANIFEST, but its file " + EscapeBytes(file, 4096) +
                  " cannot be deleted: " + std::strerror(errno);
    return out;
  }
  return out;
}

}  // namespace proctape
