// SPDX-License-Identifier: Apache-2.0
// What the corpus CLI tests (corpus_cli_test.cc, corpus_cli_refusals_test.cc)
// share: the four real recordings of tests/data/replay, and a temporary
// corpus to add them to. The tests live in proctape::live.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <string>

#include "corpus/sha256.h"
#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"
#include "tests/live/source_dir.h"

namespace proctape::live {

inline const char* const kNames[] = {"alive", "dead", "no-match-5s", "resolved"};  // sorted

inline std::string Data(const std::string& name) {
  return (std::filesystem::path(kSource) / "tests" / "data" / "replay" / (name + ".ptape"))
      .string();
}

inline std::string Hash16(const std::string& path) {
  return Sha256Hex(FileBytes(path)).substr(0, 16);
}

// The summary line (the last) without its wall time: "(0.012 s)" -> "(T s)".
inline std::string Timeless(const std::string& out) {
  std::size_t open = out.rfind(" (");
  if (open == std::string::npos || !out.ends_with(" s)\n")) return out;
  return out.substr(0, open) + " (T s)\n";
}

class CorpusCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    dir_ = tmp_.File("corpus");
  }

  // Adds the four recordings; each says what it added.
  void AddAll() {
    for (const char* name : kNames) {
      CommandResult r = Proctape({"corpus", "add", Data(name), "--corpus", dir_, "--note",
                                  std::string("the ") + name + " recording"});
      ASSERT_EQ(r.exit_code, 0) << name << Describe(r);
      EXPECT_TRUE(StartsWith(r.out, std::string("added ") + name + " as " + dir_ + "/" +
                                        Hash16(Data(name)) + ".ptape: expect "))
          << Describe(r);
      EXPECT_TRUE(r.err.empty()) << Describe(r);
    }
  }

  // Replaces `from` by `to` in the MANIFEST (exactly once).
  void EditManifest(const std::string& from, const std::string& to) {
    std::string text = FileBytes(dir_ + "/MANIFEST");
    std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    WriteFile(dir_ + "/MANIFEST", text.replace(at, from.size(), to));
  }

  TempDir tmp_{"corpus"};
  std::string dir_;
};

}  // namespace proctape::live
