// SPDX-License-Identifier: Apache-2.0
// What the view tests (views_cli_test.cc, views_hostile_cli_test.cc,
// views_live_cli_test.cc) share: the built binary run from a working
// directory, golden transcripts, the corpus entries, JSON parsed back. The
// tests live in proctape::live::views, where Proctape runs at the
// repository root.
//
// Golden files: tests/golden/{show,tree,diff}/NAME.{txt,json} hold a run's
// standard output, then (if any) "--- stderr" and its standard error, then
// "--- exit N". The binary runs with its working directory at the repository
// root (corpus files) or at a temporary directory (hand-made files), and is
// given relative paths, so no path of this machine is in a golden file.
// PROCTAPE_UPDATE_GOLDEN=1 rewrites them (review the diff before committing).
#pragma once

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus/manifest.h"
#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"
#include "tests/live/source_dir.h"

namespace proctape::live::views {

constexpr int kTimeoutMs = 120'000;

// proctape ARGS, run with its working directory at `cwd`.
inline CommandResult ProctapeIn(const std::string& cwd, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd,
                                   ::proctape::live::TestedBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return live::RunCommand(argv, kTimeoutMs);
}

inline CommandResult Proctape(const std::vector<std::string>& args) {
  return ProctapeIn(kSource, args);
}

inline std::string Transcript(const CommandResult& r) {
  std::string out = r.out;
  if (!r.err.empty()) out += "--- stderr\n" + r.err;
  return out + "--- exit " + std::to_string(r.exit_code) + "\n";
}

// Compares a run with tests/golden/NAME, or rewrites it.
inline void ExpectGolden(const std::string& name, const CommandResult& r) {
  ASSERT_TRUE(r.started && !r.timed_out) << Describe(r);
  const std::string path = kSource + "/tests/golden/" + name;
  const std::string actual = Transcript(r);
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    WriteFile(path, actual);
    return;
  }
  ASSERT_TRUE(live::Exists(path)) << "no golden file tests/golden/" << name
                                  << " (PROCTAPE_UPDATE_GOLDEN=1 writes it)\n"
                                  << actual;
  EXPECT_EQ(FileBytes(path), actual)
      << "tests/golden/" << name << " differs (PROCTAPE_UPDATE_GOLDEN=1 rewrites it)";
}

// No terminal control byte in text output: only printable ASCII and newlines.
inline void ExpectPlainAscii(const std::string& text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    ASSERT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "byte " << static_cast<int>(u);
  }
}

struct Entry {
  std::string name;
  std::string file;  // corpus/<sha>.ptape, relative to the repository root
};

inline std::vector<Entry> CorpusEntries() {
  Manifest manifest;
  ManifestError error;
  EXPECT_TRUE(ParseManifest(FileBytes(kSource + "/corpus/MANIFEST"), &manifest, &error))
      << error.message;
  std::vector<Entry> out;
  for (const ManifestEntry& e : manifest.entries) out.push_back({e.name, "corpus/" + e.file});
  return out;
}

inline std::string CorpusFile(const std::string& name) {
  for (const Entry& e : CorpusEntries()) {
    if (e.name == name) return e.file;
  }
  ADD_FAILURE() << "no corpus entry " << name;
  return "";
}

template <typename M>
inline M ParseJson(const std::string& json) {
  M message;
  auto status = google::protobuf::util::JsonStringToMessage(json, &message);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return message;
}

}  // namespace proctape::live::views
