// SPDX-License-Identifier: Apache-2.0
// corpus_variants N OUT_DIR FILE...: the files of a fleet's corpus for
// bench/corpus_scale_bench.sh. Writes OUT_DIR/v<i>.ptape for i in [0, N):
// FILE number i mod (count of FILEs), read whole, its header's hostname
// suffixed with "-<i>" -- the same recording as captured on host i of a
// fleet -- and its command line cleared (the entry is named v<i>), written again by the real writer (tests/shapes/
// snapshot_copy.h). Its resolutions, tape and frames are the FILE's, so its
// replay reproduces what the FILE's does; its bytes (and so its sha256) are
// its own, so `corpus add` keeps each as an entry.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "format/reader.h"
#include "tests/shapes/snapshot_copy.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: corpus_variants N OUT_DIR FILE...\n");
    return 2;
  }
  const long n = std::strtol(argv[1], nullptr, 10);
  const std::string out_dir = argv[2];
  std::vector<proctape::Snapshot> sources;
  for (int a = 3; a < argc; ++a) {
    proctape::Snapshot s;
    if (proctape::FormatError e = proctape::ReadSnapshot(argv[a], &s); !e.ok()) {
      std::fprintf(stderr, "corpus_variants: %s: %s\n", argv[a], e.message.c_str());
      return 1;
    }
    sources.push_back(std::move(s));
  }
  for (long i = 0; i < n; ++i) {
    proctape::Snapshot s = sources[static_cast<std::size_t>(i) % sources.size()];
    s.header.mutable_host()->set_hostname(s.header.host().hostname() + "-" + std::to_string(i));
    // Not a lab run's command line: `corpus add` names the entry after the
    // file (v<i>), not after the lab's scenario, which every host shares.
    s.header.clear_command_line();
    const std::string path = out_dir + "/v" + std::to_string(i) + ".ptape";
    std::string error;
    if (!proctape::shapes::WriteSnapshotCopy(s, path, &error)) {
      std::fprintf(stderr, "corpus_variants: %s: %s\n", path.c_str(), error.c_str());
      return 1;
    }
  }
  std::printf("corpus_variants: %ld files in %s from %zu sources\n", n, out_dir.c_str(),
              sources.size());
  return 0;
}
