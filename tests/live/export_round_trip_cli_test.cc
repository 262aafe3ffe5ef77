// SPDX-License-Identifier: Apache-2.0
// `proctape capture --proc-root` as a user runs it: refusals and their exit
// statuses, a fixture of another tool, and the round trip export ->
// capture --proc-root -> export on every frame of the corpus and on a fresh
// capture of this host: the two directories are identical byte for byte and
// the re-captured records equal the recorded ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "replay/token_mask.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "tests/live/export_cli_fixture.h"
#include "tests/live/files.h"

namespace proctape::live {
namespace {

TEST(CaptureProcRootCliTest, RefusalsAndExitStatuses) {
  TempDir tmp("proc-root-refuse");
  const std::string file = CorpusFile("plain-unshare");
  CommandResult r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("d")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--frames", "2"},
                                             {"--proc", "/proc"},
                                             {"--threads", "2"},
                                             {"--interval", "5"},
                                             {"--env", "keep"}}) {
    std::vector<std::string> args = {"capture", "--proc-root", tmp.File("d"), "-o",
                                     tmp.File("x.ptape")};
    args.insert(args.end(), extra.begin(), extra.end());
    r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << Describe(r);
    EXPECT_FALSE(Exists(tmp.File("x.ptape")));
  }
  EXPECT_NE(r.err.find("holds redacted environ values: they cannot be kept"), std::string::npos)
      << r.err;
  // A side file that does not parse: exit 15, no file.
  WriteFile(tmp.File("d/1/proctape-identity"), "proctape-identity 1\npid_ns 4:5\nexe 1:2\n");
  r = Proctape({"capture", "--proc-root", tmp.File("d"), "-o", tmp.File("x.ptape")});
  EXPECT_EQ(r.exit_code, 15) << Describe(r);
  // Named with the option that brought it, the directory once (docs/cli/messages.md).
  EXPECT_EQ(r.err, "proctape: --proc-root '" + tmp.File("d") +
                       "': 1/proctape-identity: line 3 (exe): repeated or out of order\n")
      << r.err;
  EXPECT_FALSE(Exists(tmp.File("x.ptape")));
  WriteFile(tmp.File("d/proctape-frame"), "proctape-frame 1\nboot_id \\xZZ\n");
  r = Proctape({"capture", "--proc-root", tmp.File("d"), "-o", tmp.File("y.ptape")});
  EXPECT_EQ(r.exit_code, 15) << Describe(r);
  EXPECT_FALSE(Exists(tmp.File("y.ptape")));
  // A DIR that cannot be opened is an input that cannot be read (10).
  r = Proctape({"capture", "--proc-root", tmp.File("none"), "-o", tmp.File("z.ptape")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
}

// export --frame k -> capture --proc-root -> export: the same directory, and
// the records of the recorded frame.
void ExpectRoundTrip(const std::string& file, const std::string& what, const TempDir& tmp) {
  Snapshot original;
  ASSERT_TRUE(ReadSnapshot(file, &original).ok()) << what;
  for (std::size_t k = 0; k < original.frames.size(); ++k) {
    const std::string tag = what + " frame " + std::to_string(k);
    const std::string base = tmp.File(std::to_string(k));
    CommandResult r = Proctape({"export", file, "--format", "proc-dir", "--frame",
                                std::to_string(k), "--out", base + "-a", "--force"});
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << Describe(r);
    r = Proctape({"capture", "--proc-root", base + "-a", "-o", base + ".ptape", "--force"});
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << Describe(r);
    r = Proctape(
        {"export", base + ".ptape", "--format", "proc-dir", "--out", base + "-b", "--force"});
    ASSERT_EQ(r.exit_code, 0) << tag << ": " << Describe(r);
    EXPECT_TRUE(Tree(base + "-a") == Tree(base + "-b")) << tag;

    Snapshot again;
    ASSERT_TRUE(ReadSnapshot(base + ".ptape", &again).ok()) << tag;
    ASSERT_EQ(again.frames.size(), 1u) << tag;
    // The recorded frame, its token masked as every view masks it.
    v1::Frame was = original.frames[k];
    TokenMask::Of(original).Mask(&was);
    const v1::Frame& is = again.frames[0];
    ASSERT_EQ(is.processes_size(), was.processes_size()) << tag;
    for (int i = 0; i < was.processes_size(); ++i) {
      EXPECT_EQ(is.processes(i).SerializeAsString(), was.processes(i).SerializeAsString())
          << tag << " pid " << was.processes(i).pid();
    }
    EXPECT_EQ(is.scan_start_mono_ns(), was.scan_start_mono_ns()) << tag;
    EXPECT_EQ(is.scan_end_mono_ns(), was.scan_end_mono_ns()) << tag;
    EXPECT_EQ(again.header.host().SerializeAsString(), original.header.host().SerializeAsString())
        << tag;
    v1::RedactionPolicy redaction = original.header.redaction();
    TokenMask::Of(original).Mask(&redaction);
    EXPECT_EQ(again.header.redaction().SerializeAsString(), redaction.SerializeAsString()) << tag;
  }
}

TEST(ExportRoundTripTest, EveryFrameOfTheCorpus) {
  const auto files = CorpusFiles();
  ASSERT_GE(files.size(), 24u);
  bool hostile_seen = false;
  for (const auto& [entry, file] : files) {
    TempDir tmp("export-trip");
    ExpectRoundTrip(file, entry, tmp);
    if (entry.rfind("hostile-comm-", 0) == 0) {
      // The hostile comm is in the export as recorded, and back in the file.
      Snapshot again;
      ASSERT_TRUE(ReadSnapshot(tmp.File("0.ptape"), &again).ok());
      bool found = false;
      for (const auto& p : again.frames[0].processes()) {
        found |= p.stat().data().find("(x) Z 1 1 1\nx) ") != std::string::npos;
      }
      EXPECT_TRUE(found) << entry;
      hostile_seen = true;
    }
  }
  EXPECT_TRUE(hostile_seen);
}

TEST(ExportRoundTripTest, AFreshCaptureOfThisHost) {
  TempDir tmp("export-host");
  CommandResult r = Proctape({"capture", "-o", tmp.File("host.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectRoundTrip(tmp.File("host.ptape"), "host capture", tmp);
}

TEST(ExportRoundTripTest, TheHandMadeHostileFile) {
  TempDir tmp("export-hostile-trip");
  const std::string file = WriteHostileFile(tmp);
  ASSERT_FALSE(file.empty());
  // The duplicate and the invalid pid cannot be held by a directory: the
  // directory round-trips, the records but those two come back.
  CommandResult r = Proctape({"export", file, "--format", "proc-dir", "--out", tmp.File("a")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Proctape({"capture", "--proc-root", tmp.File("a"), "-o", tmp.File("b.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot original, again;
  ASSERT_TRUE(ReadSnapshot(file, &original).ok());
  ASSERT_TRUE(ReadSnapshot(tmp.File("b.ptape"), &again).ok());
  v1::Frame was = original.frames[0];
  TokenMask::Of(original).Mask(&was);
  ASSERT_EQ(again.frames[0].processes_size(), was.processes_size() - 2);
  for (int i = 0; i < was.processes_size() - 2; ++i) {
    EXPECT_EQ(again.frames[0].processes(i).SerializeAsString(),
              was.processes(i).SerializeAsString())
        << "pid " << was.processes(i).pid();
  }
  r = Proctape({"export", tmp.File("b.ptape"), "--format", "proc-dir", "--out", tmp.File("c")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto a = Tree(tmp.File("a")), c = Tree(tmp.File("c"));
  // Only the proctape-frame differs: its dropped_pid lines.
  ASSERT_EQ(a.size(), c.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].first == "proctape-frame") {
      EXPECT_NE(a[i].second.find("dropped_pid 41\ndropped_pid 0\n"), std::string::npos);
      EXPECT_EQ(c[i].second.find("dropped_pid"), std::string::npos);
    } else {
      EXPECT_EQ(a[i], c[i]);
    }
  }
}

TEST(CaptureProcRootCliTest, AFixtureOfAnotherTool) {
  // /proc as another tool might lay it out: an exe link, no side files.
  TempDir tmp("proc-root-fixture");
  const std::string dir = tmp.File("proc");
  std::filesystem::create_directories(dir + "/7");
  const std::string stat = "7 (sh) S 1 7 7 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 4242 1 1\n";
  WriteFile(dir + "/7/stat", stat);
  WriteFile(dir + "/7/cmdline", "/bin/sh\0-c\0true\0"s);
  WriteFile(dir + "/7/status", "Name:\tsh\nNSpid:\t7\n");
  ASSERT_EQ(::symlink("/bin/sh", (dir + "/7/exe").c_str()), 0);
  CommandResult r = Proctape({"capture", "--proc-root", dir, "-o", tmp.File("f.ptape")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(tmp.File("f.ptape"), &s).ok());
  ASSERT_EQ(s.frames.size(), 1u);
  ASSERT_EQ(s.frames[0].processes_size(), 1);
  const v1::ProcessRecord& p = s.frames[0].processes(0);
  EXPECT_EQ(p.stat().data(), stat);
  EXPECT_EQ(p.cmdline().data(), "/bin/sh\0-c\0true\0"s);
  EXPECT_EQ(p.environ().err(), ENOENT);
  EXPECT_EQ(p.cgroup().err(), ENOENT);
  // The link is not followed (tests/live/import_cli_test.cc): no identity
  // (ELOOP), its text kept.
  EXPECT_EQ(p.exe().err(), ELOOP);
  EXPECT_EQ(p.exe().dev(), 0u);
  EXPECT_EQ(p.exe().link_text(), "/bin/sh");
  EXPECT_EQ(p.pid_ns().err(), ENOENT);
  // Its export gives the same bytes back, and the link's text in a side file.
  r = Proctape({"export", tmp.File("f.ptape"), "--format", "proc-dir", "--out", tmp.File("x")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(FileBytes(tmp.File("x/7/stat")), stat);
  EXPECT_EQ(FileBytes(tmp.File("x/7/proctape-identity")),
            "proctape-identity 1\nexe error 40\nexe_link /bin/sh\npid_ns error 2\n"
            "environ error 2\ncgroup error 2\n");
}

}  // namespace
}  // namespace proctape::live
