// SPDX-License-Identifier: Apache-2.0
// corpus list and rm as they report: the entries shown (masked with each
// recording's tokens) or removed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "corpus/pipelines.h"
#include "format/snapshot_stream.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

// The tokens the header of entry `e`'s recording names (its kept entries,
// --token on its command line: every recording keeps its token entry), read
// from its first chunk; none when it is not a regular file (no link is
// followed, no FIFO waited on) or has no header.
TokenMask EntryTokens(const std::string& dir, const ManifestEntry& e) {
  const std::string path = dir + "/" + e.file;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return {};
  }
  FormatError error;
  std::unique_ptr<SnapshotStream> stream = SnapshotStream::OpenFd(fd, &error);
  if (!stream || stream->Next() != SnapshotStream::Result::kItem ||
      stream->item().kind != StreamItem::Kind::kHeader) {
    return {};
  }
  return TokenMask::Of(stream->item().chunk.header(), {});
}

// The MANIFEST's values are host bytes to a view: each entry's masked with
// its recording's tokens (docs/security.md "The token in outputs").
void MaskEntries(const std::string& dir, std::vector<ManifestEntry>* entries) {
  for (ManifestEntry& e : *entries) {
    const TokenMask mask = EntryTokens(dir, e);
    if (mask.empty()) continue;
    for (std::string* text : {&e.name, &e.file, &e.shows, &e.kernel, &e.captured, &e.scenario}) {
      mask.Mask(text);
    }
    for (std::string& text : e.expects) mask.Mask(&text);
    for (std::string& text : e.comments) mask.Mask(&text);
  }
}

v1::CorpusList ListOf(const std::string& dir, const std::vector<ManifestEntry>& entries) {
  v1::CorpusList list;
  list.set_dir(EscapeBytes(dir, 4096));
  for (const ManifestEntry& e : entries) *list.add_entries() = ToProto(e);
  return list;
}

MaybeFailure FailureOf(const RemoveOutcome& outcome) {
  switch (outcome.kind) {
    case RemoveOutcome::Kind::kRemoved: return std::nullopt;
    case RemoveOutcome::Kind::kUsage: return Failure(FailureKind::kUsage, outcome.message);
    case RemoveOutcome::Kind::kManifest: return Failure(FailureKind::kManifest, outcome.message);
    case RemoveOutcome::Kind::kIo: return Failure(FailureKind::kIo, outcome.message);
  }
  return Failure(FailureKind::kInternal, outcome.message);
}

}  // namespace

CorpusListing ListCorpus(const std::string& dir) {
  CorpusListing listing;
  Failure failure;
  std::optional<Manifest> manifest = LoadManifest(dir, false, &failure);
  if (!manifest) {
    listing.failure = failure;
    return listing;
  }
  MaskEntries(dir, &manifest->entries);
  listing.list = ListOf(dir, manifest->entries);
  for (const std::string& line : ListLines(manifest->entries)) listing.text += line + "\n";
  return listing;
}

CorpusRemoval RemoveCorpusEntries(const std::string& dir, const std::vector<std::string>& names) {
  RemoveOutcome outcome = RemoveFromCorpus(dir, names);
  CorpusRemoval removal;
  removal.failure = FailureOf(outcome);
  if (!outcome.removed.empty()) removal.removed = ListOf(dir, outcome.removed);
  const std::string shown = EscapeBytes(dir, 4096);
  for (const ManifestEntry& e : outcome.removed) {
    removal.text += "removed " + e.name + " (" + shown + "/" + e.file + ") from the corpus\n";
  }
  removal.warnings = std::move(outcome.warnings);
  return removal;
}

}  // namespace proctape
