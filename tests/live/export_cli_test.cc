// SPDX-License-Identifier: Apache-2.0
// `proctape export` as a user runs it: --help, golden outputs
// (tests/golden/export/; PROCTAPE_UPDATE_GOLDEN=1 rewrites them) on corpus
// entries and on a hand-made file of hostile names, refusals and their exit
// statuses. The round trip through capture --proc-root is in
// export_round_trip_cli_test.cc.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "corpus/sha256.h"
#include "format/reader.h"
#include "tests/live/export_cli_fixture.h"
#include "tests/live/files.h"

#include <google/protobuf/util/json_util.h>

namespace proctape::live {
namespace {

// Compares `actual` with tests/golden/export/NAME byte for byte;
// PROCTAPE_UPDATE_GOLDEN=1 rewrites the file instead.
void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = kSource + "/tests/golden/export/" + name;
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(kSource + "/tests/golden/export");
    WriteFile(path, actual);
    return;
  }
  ASSERT_TRUE(Exists(path)) << path << " is missing (PROCTAPE_UPDATE_GOLDEN=1 writes it)";
  EXPECT_EQ(actual, FileBytes(path))
      << "differs from " << path << " (PROCTAPE_UPDATE_GOLDEN=1 rewrites it)";
}

// The golden form of a proc-dir: one line per file (mode, size, the first 16
// hex digits of its SHA-256, path), then every proctape-* side file in full.
std::string Listing(const std::string& dir) {
  std::string files, sides;
  for (const auto& [rel, content] : Tree(dir)) {
    if (content == "d") continue;
    struct stat st;
    ::lstat((dir + "/" + rel).c_str(), &st);
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", st.st_mode & 07777);
    const std::string bytes = content.substr(1);
    files += std::string(mode) + " " + std::to_string(bytes.size()) + " " +
             Sha256Hex(bytes).substr(0, 16) + " " + rel + "\n";
    if (rel.find("proctape-") != std::string::npos) sides += "== " + rel + "\n" + bytes;
  }
  return files + sides;
}

TEST(ExportCliTest, HelpTeachesEveryFormatAndTheWayBack) {
  CommandResult r = Proctape({"export", "--help"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  // The help is wrapped to the screen: words are compared across line breaks.
  std::string words;
  for (char c : r.out) {
    const bool space = c == ' ' || c == '\n';
    if (!space || (!words.empty() && words.back() != ' ')) words.push_back(space ? ' ' : c);
  }
  for (const char* word :
       {"json", "dot", "proc-dir", "base64", "proctape-identity", "proctape-frame", "--proc-root",
        "--frame", "--force", "Examples:", "the one output that holds a recording's token"}) {
    EXPECT_NE(words.find(word), std::string::npos) << word << "\n" << r.out;
  }
  r = Proctape({"capture", "--help"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("--proc-root"), std::string::npos) << r.out;
}

TEST(ExportCliTest, GoldenOutputsOfCorpusEntries) {
  TempDir tmp("export-golden");
  const std::vector<std::pair<std::string, int>> dots = {{"hostile-comm-unshare", 0},
                                                         {"misleading-name-bwrap", 0},
                                                         {"pid-reuse-unshare", 1},
                                                         {"zombie-bwrap", 1}};
  for (const auto& [entry, frame] : dots) {
    const std::string file = CorpusFile(entry);
    ASSERT_FALSE(file.empty()) << entry;
    CommandResult r =
        Proctape({"export", file, "--format", "dot", "--frame", std::to_string(frame)});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_EQ(r.err, "");
    ExpectGolden(entry + ".frame" + std::to_string(frame) + ".dot", r.out);
  }
  const std::vector<std::pair<std::string, int>> dirs = {{"hostile-comm-bwrap", 0},
                                                         {"pid-reuse-bwrap", 1}};
  for (const auto& [entry, frame] : dirs) {
    const std::string out = tmp.File(entry);
    CommandResult r = Proctape({"export", CorpusFile(entry), "--format", "proc-dir", "--frame",
                                std::to_string(frame), "--out", out});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_TRUE(StartsWith(r.out, "wrote " + out + ": frame " + std::to_string(frame))) << r.out;
    ExpectGolden(entry + ".frame" + std::to_string(frame) + ".proc-dir.txt", Listing(out));
  }
  CommandResult r = Proctape({"export", CorpusFile("hostile-comm-unshare"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile-comm-unshare.json", r.out);
}

// --json says how many processes were written: the DOT's the processes it
// draws (its graph label counts them), json's the process records of every
// frame (as verify counts them), proc-dir's its directories.
TEST(ExportCliTest, JsonReportCountsTheProcessesWritten) {
  TempDir tmp("export-report");
  const std::string file = CorpusFile("pid-reuse-unshare");
  ASSERT_FALSE(file.empty());
  CommandResult r = Proctape(
      {"export", file, "--format", "dot", "--frame", "1", "-o", tmp.File("t.dot"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const std::string dot = FileBytes(tmp.File("t.dot"));
  const std::size_t at = dot.find("label=\"frame 1: ");
  ASSERT_NE(at, std::string::npos) << dot;
  const std::string drawn = dot.substr(at + 16, dot.find(' ', at + 16) - at - 16);
  ASSERT_GT(std::stoul(drawn), 0u) << dot;
  EXPECT_NE(r.out.find("\"processes\":" + drawn + ","), std::string::npos) << drawn << "\n"
                                                                           << r.out;

  CommandResult verify = Proctape({"verify", file});
  const std::size_t records_at = verify.out.find(" process records");
  ASSERT_NE(records_at, std::string::npos) << verify.out;
  const std::size_t from = verify.out.rfind(' ', records_at - 1) + 1;
  const std::string records = verify.out.substr(from, records_at - from);
  r = Proctape({"export", file, "--format", "json", "-o", tmp.File("t.json"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\"processes\":" + records + ","), std::string::npos) << records << "\n"
                                                                             << r.out;
}

TEST(ExportCliTest, GoldenOutputsOfHostileNames) {
  TempDir tmp("export-hostile");
  const std::string file = WriteHostileFile(tmp);
  ASSERT_FALSE(file.empty());
  CommandResult r = Proctape({"export", file, "--format", "dot"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile.dot", r.out);
  r = Proctape({"export", file, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile.json", r.out);
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("dir")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("hostile.proc-dir.txt", Listing(tmp.File("dir")));
}

TEST(ExportCliTest, JsonIsTheWholeFileAndParsesBack) {
  for (const auto& [entry, file] : CorpusFiles()) {
    CommandResult r = Proctape({"export", file, "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << entry << ": " << Describe(r);
    ASSERT_TRUE(OneLine(r.out)) << entry;
    v1::SnapshotExport parsed;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &parsed).ok()) << entry;
    Snapshot snapshot;
    ASSERT_TRUE(ReadSnapshot(file, &snapshot).ok()) << entry;
    ASSERT_EQ(parsed.frames_size(), static_cast<int>(snapshot.frames.size())) << entry;
    for (std::size_t k = 0; k < snapshot.frames.size(); ++k) {
      EXPECT_EQ(parsed.frames(static_cast<int>(k)).SerializeAsString(),
                snapshot.frames[k].SerializeAsString())
          << entry << " frame " << k;
    }
    EXPECT_EQ(parsed.header().SerializeAsString(), snapshot.header.SerializeAsString()) << entry;
    EXPECT_EQ(parsed.observations_size(), static_cast<int>(snapshot.observations.size()));
    EXPECT_EQ(parsed.resolutions_size(), static_cast<int>(snapshot.resolutions.size()));
    EXPECT_EQ(parsed.footer().chunks(), snapshot.footer->chunks()) << entry;
  }
}

TEST(ExportCliTest, RefusalsAndExitStatuses) {
  TempDir tmp("export-refuse");
  const std::string file = CorpusFile("plain-unshare");
  ASSERT_FALSE(file.empty());
  // An existing output: refused unless --force; a link: refused always.
  WriteFile(tmp.File("tree.dot"), "mine");
  CommandResult r = Proctape({"export", file, "--format", "dot", "--out", tmp.File("tree.dot")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "proctape: ")) << r.err;
  EXPECT_NE(r.err.find("exists: refused (use --force"), std::string::npos) << r.err;
  EXPECT_EQ(FileBytes(tmp.File("tree.dot")), "mine");
  r = Proctape({"export", file, "--format", "dot", "--out", tmp.File("tree.dot"), "--force"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(FileBytes(tmp.File("tree.dot")), "// proctape export --format dot"));
  ASSERT_EQ(::symlink(tmp.File("tree.dot").c_str(), tmp.File("link.json").c_str()), 0);
  r = Proctape({"export", file, "--format", "json", "--out", tmp.File("link.json"), "--force"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_NE(r.err.find("is a symbolic link: refused"), std::string::npos) << r.err;
  ASSERT_EQ(::symlink(tmp.path().c_str(), tmp.File("link-dir").c_str()), 0);
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("link-dir"), "--force"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_NE(r.err.find("is a symbolic link: refused"), std::string::npos) << r.err;
  // A directory that is not an export is never replaced, and says so up front.
  for (bool force : {false, true}) {
    std::vector<std::string> args = {"export", file, "--format", "proc-dir", "--out", tmp.path()};
    if (force) args.push_back("--force");
    r = Proctape(args);
    EXPECT_EQ(r.exit_code, 10) << Describe(r);
    EXPECT_NE(r.err.find("is a directory that is not an earlier export (it holds no "
                         "proctape-frame): refused, --force or not"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(FileBytes(tmp.File("tree.dot")).empty(), false);
  // An earlier export is, with --force.
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("d")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("d")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  r = Proctape(
      {"export", file, "--format", "proc-dir", "--frame", "1", "--out", tmp.File("d"), "--force"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  // Usage.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"export", file, "--format", "dot", "--frame", "2"},
           {"export", file, "--format", "proc-dir", "--frame", "9", "--out", tmp.File("e")},
           {"export", file, "--format", "json", "--frame", "0"},
           {"export", file, "--format", "proc-dir"},
           {"export", file, "--format", "proc-dir", "--out", "-"},
           {"export", file, "--format", "svg"},
           {"export", file},
       }) {
    r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "proctape: ")) << r.err;
    EXPECT_EQ(r.out, "");
  }
  r = Proctape({"export", file, "--format", "dot", "--frame", "2"});
  EXPECT_EQ(r.err, "proctape: export: --frame 2: " + file +
                       " has 2 frames (0..1) (see 'proctape export --help')\n");
  EXPECT_FALSE(Exists(tmp.File("e")));
  // A damaged file: its own status, nothing written.
  const std::string whole = FileBytes(file);
  WriteFile(tmp.File("cut.ptape"), whole.substr(0, whole.size() / 2));
  r = Proctape({"export", tmp.File("cut.ptape"), "--format", "proc-dir", "--out", tmp.File("f")});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_FALSE(Exists(tmp.File("f")));
  r = Proctape({"export", tmp.File("missing.ptape"), "--format", "json"});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
}

}  // namespace
}  // namespace proctape::live
