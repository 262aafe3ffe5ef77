// SPDX-License-Identifier: Apache-2.0
// What the corpus add tests share (corpus_add_test.cc, corpus_add_names_test.cc):
// the real recordings of tests/data/replay, a file's bytes, a snapshot read
// and written by the real reader and writer, and one add.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "corpus/corpus.h"
#include "format/reader.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape::corpus_add_test {

using Kind = AddOutcome::Kind;
using test::ReplayTempDir;

inline std::string Data(const std::string& name) {
  return (test::SourceDir() / "tests" / "data" / "replay" / (name + ".ptape")).string();
}

inline std::string Bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline Snapshot Read(const std::string& path) {
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << path << ": " << e.message;
  return s;
}

inline std::string Write(const Snapshot& s, const std::string& path) {
  std::string error;
  EXPECT_TRUE(test::WriteSnapshotFile(s, path, &error)) << error;
  return path;
}

inline AddOutcome Add(const std::string& file, const std::string& dir,
                      std::vector<std::string> expects = {}, const std::string& name = "") {
  AddRequest r;
  r.file = file;
  r.dir = dir;
  r.name = name;
  r.expects = std::move(expects);
  return AddToCorpus(r);
}

inline std::string Why(const AddOutcome& o) {
  return "kind " + std::to_string(static_cast<int>(o.kind)) + ": " + o.message;
}

}  // namespace proctape::corpus_add_test
