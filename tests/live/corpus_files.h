// SPDX-License-Identifier: Apache-2.0
// The shipped corpus (corpus/ of the source tree), by entry: each entry of
// corpus/MANIFEST and its recording, by absolute path.
#pragma once

#include <map>
#include <string>

#include "corpus/manifest.h"
#include "tests/live/files.h"
#include "tests/live/source_dir.h"

namespace proctape::live {

// Corpus entry name -> its file, from corpus/MANIFEST (empty when it cannot
// be read).
inline std::map<std::string, std::string> CorpusFiles() {
  Manifest manifest;
  ManifestError error;
  std::map<std::string, std::string> out;
  if (!ParseManifest(FileBytes(kSource + "/corpus/MANIFEST"), &manifest, &error)) return out;
  for (const ManifestEntry& e : manifest.entries) out[e.name] = kSource + "/corpus/" + e.file;
  return out;
}

// The file of corpus entry `entry`, or "" when it has none.
inline std::string CorpusFile(const std::string& entry) {
  auto files = CorpusFiles();
  auto it = files.find(entry);
  return it == files.end() ? "" : it->second;
}

}  // namespace proctape::live
