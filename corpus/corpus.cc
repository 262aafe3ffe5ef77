// The corpus's MANIFEST on disk, and an entry as `corpus list` shows it.
#include "corpus/corpus.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>

#include "core/proc_parse.h"
#include "corpus/beside_file.h"
#include "corpus/corpus_internal.h"
#include "corpus/sha256.h"
#include "fs/output_file.h"

namespace proctape {

using corpus_internal::Escaped;

std::string ManifestPath(const std::string& dir) { return dir + "/" + kManifestName; }

std::optional<Manifest> LoadManifest(const std::string& dir, bool missing_ok, Failure* failure,
                                     std::string* sha256) {
  const std::string path = ManifestPath(dir);
  Manifest manifest;
  // A file beside the corpus's entries: a regular file of bounded size, no
  // link followed, no FIFO waited on (corpus/beside_file.h).
  Failure why;
  std::optional<std::string> text = ReadFileBeside(path, kMaxManifestBytes, &why);
  if (!text) {
    const int err = why.sys_errno;
    if (err == ENOENT && missing_ok) return manifest;
    *failure =
        Failure(FailureKind::kManifest,
                Escaped(path) + ": " + why.message +
                    (err == ENOENT ? " (not a corpus: 'proctape corpus add' creates one)" : ""),
                err);
    return std::nullopt;
  }
  ManifestError e;
  if (!ParseManifest(*text, &manifest, &e)) {
    *failure = Failure(FailureKind::kManifest,
                       Escaped(path) + ":" + std::to_string(e.line) + ": " + e.message);
    return std::nullopt;
  }
  if (sha256 != nullptr) *sha256 = Sha256Hex(*text);
  return manifest;
}

MaybeFailure WriteFileAtomic(const std::string& path, const std::string& data) {
  OutputRequest request;
  request.path = path;
  request.force = true;  // the corpus's own file, rewritten whole
  Failure refused;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &refused);
  MaybeFailure failed = out ? out->WriteAndCommit(data) : MaybeFailure(refused);
  // Its callers say any of these as an I/O failure (a refused path too).
  if (failed) failed->kind = FailureKind::kIo;
  return failed;
}

v1::CorpusEntry ToProto(const ManifestEntry& e) {
  v1::CorpusEntry out;
  out.set_name(e.name);
  out.set_file(e.file);
  out.set_sha256(e.sha256);
  for (const std::string& x : e.expects) out.add_expect(EscapeValue(x));
  out.set_shows(EscapeValue(e.shows));
  out.set_kernel(EscapeValue(e.kernel));
  out.set_captured(EscapeValue(e.captured));
  out.set_scenario(EscapeValue(e.scenario));
  return out;
}

std::vector<std::string> ListLines(const std::vector<ManifestEntry>& entries) {
  // The cells of each entry: name, expects, kernel, captured, shows.
  constexpr std::size_t kColumns = 5;
  std::vector<std::array<std::string, kColumns>> rows;
  std::array<std::size_t, kColumns> width{};
  for (const ManifestEntry& e : entries) {
    std::array<std::string, kColumns> row;
    row[0] = e.name;
    for (std::size_t i = 0; i < e.expects.size(); ++i) {
      row[1] += (i == 0 ? "" : ", ") + EscapeValue(e.expects[i]);
    }
    if (!e.kernel.empty()) row[2] = "kernel " + EscapeValue(e.kernel);
    if (!e.captured.empty()) row[3] = "captured " + EscapeValue(e.captured);
    if (!e.shows.empty()) row[4] = "shows " + EscapeValue(e.shows);
    for (std::size_t c = 0; c < kColumns; ++c) width[c] = std::max(width[c], row[c].size());
    rows.push_back(std::move(row));
  }
  std::vector<std::string> lines;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < kColumns; ++c) {
      if (width[c] == 0) continue;  // a fact no entry has: no column
      if (!line.empty()) line += "  ";
      line += row[c];
      if (c + 1 < kColumns) line.append(width[c] - row[c].size(), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace proctape
