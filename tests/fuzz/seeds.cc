// SPDX-License-Identifier: Apache-2.0
// fuzz_seeds SOURCE_DIR OUT_DIR: each target's seed corpus, OUT_DIR/TARGET/,
// made from the repository's own data (nothing of it is checked in):
//   reader      every .ptape of corpus/, tests/data/replay, tests/data/hostile,
//               and every shape of tests/hostile/ at its small size;
//   replay,     each of those that reads whole, as the structure-aware input
//   views       (a serialized SnapshotExport: tests/fuzz/snapshot_input.h);
//   proc_parse  the stat, status, cmdline and environ bytes of their records
//               (at most kMaxProcSeeds distinct ones);
//   proc_root   the first frame of each, exported as a proc-dir and packed
//               (tests/fuzz/proc_tree.h), at most 16 KiB each;
//   manifest    corpus/MANIFEST whole, and each of its entries alone;
// plus, for every target, the inputs of tests/fuzz/regressions/TARGET.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "procdir/writer.h"
#include "format/reader.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/proc_tree.h"
#include "tests/fuzz/snapshot_input.h"
#include "tests/hostile/shapes.h"

namespace fs = std::filesystem;
using namespace proctape;

namespace {

constexpr std::size_t kMaxProcSeeds = 400;

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void Put(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

std::vector<fs::path> Files(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && (ext.empty() || e.path().extension() == ext)) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fuzz_seeds SOURCE_DIR OUT_DIR\n");
    return 2;
  }
  const fs::path src = argv[1], out = argv[2];
  std::vector<fs::path> files;
  for (const char* dir : {"corpus", "tests/data/replay", "tests/data/hostile"}) {
    for (const fs::path& f : Files(src / dir, ".ptape")) files.push_back(f);
  }
  // The hostile shapes (tests/hostile/README.md) at their small sizes: the
  // forms of docs/format.md 9a and the edges of section 7, for mutations to
  // grow. (Their full sizes cost what the readers do not bound yet.)
  const fs::path hostile = fs::path(fuzz::ScratchDir()) / "seed-hostile";
  for (const hostile::Shape& shape : hostile::AllShapes()) {
    hostile::Params params;
    hostile::Built built;
    std::string error;
    if (!params.Parse(shape.defaults, shape.small, &error)) fuzz::Broken(shape.name + ": " + error);
    shape.build(params, &built);
    Put(hostile, "hostile-" + shape.name + ".ptape", built.file.bytes());
    files.push_back(hostile / ("hostile-" + shape.name + ".ptape"));
  }
  std::set<std::string> proc_bytes;
  for (const fs::path& f : files) {
    const std::string name = f.stem().string();
    Put(out / "reader", name + ".ptape", Slurp(f));
    Snapshot snapshot;
    if (!ReadSnapshot(f.string(), &snapshot).ok()) continue;
    const std::string input = fuzz::SnapshotInputOf(snapshot);
    Put(out / "replay", name + ".pb", input);
    Put(out / "views", name + ".pb", input);
    for (const v1::Frame& frame : snapshot.frames) {
      for (const v1::ProcessRecord& r : frame.processes()) {
        for (const v1::FileRead* read : {&r.stat(), &r.status(), &r.cmdline(), &r.environ()}) {
          if (proc_bytes.size() < kMaxProcSeeds && !read->data().empty()) {
            proc_bytes.insert(read->data());
          }
        }
      }
    }
    if (!snapshot.frames.empty()) {
      const std::string dir = fuzz::ScratchDir() + "/seed-proc-dir";
      ProcDirStats stats;
      if (!WriteProcDir(snapshot, 0, dir, true, &stats)) {
        Put(out / "proc_root", name + ".tree", fuzz::PackTree(dir, 16384));
      }
      fuzz::RemoveTree(dir);
    }
  }
  std::size_t k = 0;
  for (const std::string& bytes : proc_bytes) Put(out / "proc_parse", std::to_string(k++), bytes);

  const std::string manifest = Slurp(src / "corpus" / "MANIFEST");
  Put(out / "manifest", "MANIFEST", manifest);
  const std::string header = manifest.substr(0, manifest.find('\n') + 1);
  std::size_t at = 0, block = 0;
  while ((at = manifest.find("\nentry", at)) != std::string::npos) {
    std::size_t end = manifest.find("\n\n", at + 1);
    Put(out / "manifest", "entry-" + std::to_string(block++),
        header + manifest.substr(at + 1, end == std::string::npos ? end : end - at));
    at += 1;
  }

  for (const char* target : {"reader", "proc_parse", "replay", "views", "proc_root", "manifest"}) {
    for (const fs::path& f : Files(src / "tests/fuzz/regressions" / target, "")) {
      Put(out / target, "regression-" + f.filename().string(), Slurp(f));
    }
  }
  if (files.empty()) {
    // A source directory without corpus/ and tests/data/ (run from elsewhere
    // than the repository root, or a typo): empty seed corpora are no seeds.
    std::fprintf(stderr,
                 "fuzz_seeds: %s: no .ptape under corpus/, tests/data/replay/ or "
                 "tests/data/hostile/ (give the repository root)\n",
                 argv[1]);
    return 1;
  }
  std::printf("fuzz_seeds: %zu files read into %s\n", files.size(), out.c_str());
  return 0;
}
