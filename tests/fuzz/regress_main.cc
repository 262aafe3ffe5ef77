// SPDX-License-Identifier: Apache-2.0
// fuzz_regressions: the past crashers (and slow inputs) of the fuzz targets,
// run in the ordinary build through the targets' own sources (compiled here
// with LLVMFuzzerTestOneInput renamed ProctapeFuzz_TARGET).
//
//   fuzz_regressions TARGET [PATH...] [--generated SOURCE_DIR]
//
// Every file given, and every file of every directory given (sorted), is one
// input; --generated adds the target's generated inputs
// (tests/fuzz/generated.h). A crash, a sanitizer report or a broken invariant
// aborts (the test fails, the input's name last on standard error); exit 2
// for a bad command line or an unreadable path; else one line per input and
// exit 0.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "tests/fuzz/generated.h"

#define PROCTAPE_FUZZ_TARGET(name) \
  extern "C" int ProctapeFuzz_##name(const std::uint8_t* data, std::size_t size);
PROCTAPE_FUZZ_TARGET(reader)
PROCTAPE_FUZZ_TARGET(proc_parse)
PROCTAPE_FUZZ_TARGET(replay)
PROCTAPE_FUZZ_TARGET(views)
PROCTAPE_FUZZ_TARGET(proc_root)
PROCTAPE_FUZZ_TARGET(manifest)

namespace {

using Target = int (*)(const std::uint8_t*, std::size_t);

void Run(Target target, const std::string& name, const std::string& bytes) {
  std::fprintf(stderr, "input %s (%zu bytes)\n", name.c_str(), bytes.size());
  std::fflush(stderr);
  target(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

bool RunFile(Target target, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Run(target, path.string(), bytes);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, Target> targets = {
      {"reader", ProctapeFuzz_reader},       {"proc_parse", ProctapeFuzz_proc_parse},
      {"replay", ProctapeFuzz_replay},       {"views", ProctapeFuzz_views},
      {"proc_root", ProctapeFuzz_proc_root}, {"manifest", ProctapeFuzz_manifest}};
  if (argc < 2 || targets.count(argv[1]) == 0) {
    std::fprintf(stderr, "usage: fuzz_regressions TARGET [PATH...] [--generated SOURCE_DIR]\n");
    return 2;
  }
  const std::string name = argv[1];
  const Target target = targets.at(name);
  std::size_t inputs = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--generated" && i + 1 < argc) {
      for (const auto& input : proctape::fuzz::GeneratedInputs(name, argv[++i])) {
        Run(target, "generated:" + input.name, input.bytes);
        ++inputs;
      }
      continue;
    }
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        if (!RunFile(target, file)) {
          std::fprintf(stderr, "fuzz_regressions: cannot read %s\n", file.c_str());
          return 2;
        }
        ++inputs;
      }
    } else if (!RunFile(target, arg)) {
      std::fprintf(stderr, "fuzz_regressions: cannot read %s\n", arg.c_str());
      return 2;
    } else {
      ++inputs;
    }
  }
  std::printf("%s: %zu inputs, no crash\n", name.c_str(), inputs);
  return 0;
}
