// SPDX-License-Identifier: Apache-2.0
// proctape export's proc-dir on hand-made snapshots: the writer and its
// refusals, the atomic output file it is written through, and ProcDirEvidence
// reading the directory back through the capture's own scanner. The side
// files are in analyze_proc_dir_side_file_test.cc; the CLI, the corpus and the
// golden files are in tests/live/export_cli_test.cc.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "procdir/evidence.h"
#include "procdir/facts.h"
#include "procdir/writer.h"
#include "capture/frame_scanner.h"
#include "fs/output_file.h"
#include "replay/token_mask.h"
#include "tests/unit/analyze_export_fixture.h"
#include "tests/unit/failure_text.h"

namespace proctape {
namespace {

using namespace test;  // kHostileComm, kWorseComm, Stat, Record, HostileSnapshot

class TempDir {
 public:
  TempDir() {
    std::string tmpl = "/tmp/proctape-export-unit-XXXXXX";
    path_ = ::mkdtemp(tmpl.data()) != nullptr ? tmpl : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The names in `dir`, sorted.
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---- The directory -----------------------------------------------------------

TEST(ProcDirWriterTest, WritesTheRecordedBytesAndSideFiles) {
  TempDir tmp;
  const Snapshot s = HostileSnapshot();
  ProcDirStats stats;
  std::string error;
  ASSERT_EQ(Why(WriteProcDir(s, 0, tmp.File("out"), false, &stats)), "");
  EXPECT_EQ(stats.processes, 7u);  // the duplicate 41 and pid 0 are dropped
  const std::string dir = tmp.File("out");
  const v1::ProcessRecord& hostile = s.frames[0].processes(2);
  EXPECT_EQ(Slurp(dir + "/41/stat"), hostile.stat().data());
  EXPECT_EQ(Slurp(dir + "/41/cmdline"), hostile.cmdline().data());
  // The kept token entry by its length only (replay/token_mask.h).
  EXPECT_EQ(Slurp(dir + "/41/environ"), "PATH=****\0PROCTAPE_TOKEN=********\0"s);
  EXPECT_EQ(Slurp(dir + "/41/status"), hostile.status().data());
  EXPECT_EQ(Slurp(dir + "/41/cgroup"), "0::/lab\n");
  EXPECT_EQ(Slurp(dir + "/41/proctape-identity"), PrintIdentityFacts(IdentityFactsOf(hostile)));
  FrameFacts facts = FrameFactsOf(s, 0);
  facts.kept_entries = {"PROCTAPE_TOKEN=********"};
  EXPECT_EQ(Slurp(dir + "/proctape-frame"), PrintFrameFacts(facts));
  // A failed read is no file; an empty read is an empty file.
  struct stat st;
  EXPECT_NE(::lstat((dir + "/42/stat").c_str(), &st), 0);
  EXPECT_NE(::lstat((dir + "/42/environ").c_str(), &st), 0);
  ASSERT_EQ(::lstat((dir + "/45/cmdline").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 0);
  EXPECT_EQ(Slurp(dir + "/43/status"), std::string(16384, 's'));
  ASSERT_EQ(::lstat((dir + "/41/environ").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(::lstat((dir + "/0").c_str(), &st), 0);
  EXPECT_EQ(Names(tmp.path()), std::vector<std::string>{"out"}) << "no temporary is left";
}

TEST(ProcDirWriterTest, RefusesWhatItMustNotReplace) {
  TempDir tmp;
  const Snapshot s = HostileSnapshot();
  ProcDirStats stats;
  std::string error;
  // A symbolic link, even to an empty directory, and even with force.
  ASSERT_EQ(::mkdir(tmp.File("empty").c_str(), 0755), 0);
  ASSERT_EQ(::symlink(tmp.File("empty").c_str(), tmp.File("link").c_str()), 0);
  error = Why(WriteProcDir(s, 0, tmp.File("link"), true, &stats));
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("is a symbolic link: refused"), std::string::npos) << error;
  EXPECT_TRUE(std::filesystem::is_empty(tmp.File("empty")));
  // A file.
  std::ofstream(tmp.File("file")) << "x";
  error = Why(WriteProcDir(s, 0, tmp.File("file"), true, &stats));
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("is not a directory"), std::string::npos) << error;
  // A non-empty directory that is not an export: never, even with force, and
  // the refusal says so up front (not "use --force" first).
  ASSERT_EQ(::mkdir(tmp.File("home").c_str(), 0755), 0);
  std::ofstream(tmp.File("home/notes")) << "mine";
  for (bool force : {false, true}) {
    error = Why(WriteProcDir(s, 0, tmp.File("home"), force, &stats));
    EXPECT_NE(error, "");
    EXPECT_NE(error.find("is a directory that is not an earlier export (it holds no "
                         "proctape-frame): refused, --force or not"),
              std::string::npos)
        << error;
  }
  EXPECT_EQ(Slurp(tmp.File("home/notes")), "mine");
  // An empty directory is replaced; an earlier export only with force.
  EXPECT_EQ(Why(WriteProcDir(s, 0, tmp.File("empty"), false, &stats)), "");
  error = Why(WriteProcDir(s, 0, tmp.File("empty"), false, &stats));
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("holds an earlier export: refused (use --force to replace it)"),
            std::string::npos)
      << error;
  // A file no export writes, even deep in a pid's directory: never, even
  // with force.
  std::ofstream(tmp.File("empty/1/extra")) << "mine";
  error = Why(WriteProcDir(s, 0, tmp.File("empty"), true, &stats));
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("holds an earlier export and '1/extra', which no export writes"),
            std::string::npos)
      << error;
  EXPECT_EQ(Slurp(tmp.File("empty/1/extra")), "mine");
  ASSERT_EQ(::unlink(tmp.File("empty/1/extra").c_str()), 0);
  // A pid of an earlier frame the new one does not hold: replaced with it.
  ASSERT_EQ(::mkdir(tmp.File("empty/99999").c_str(), 0755), 0);
  std::ofstream(tmp.File("empty/99999/stat")) << "stale";
  EXPECT_EQ(Why(WriteProcDir(s, 0, tmp.File("empty"), true, &stats)), "");
  struct stat st;
  EXPECT_NE(::lstat(tmp.File("empty/99999").c_str(), &st), 0);
  // Temporaries left by earlier runs (of this version, of an older one)
  // block nothing and are left alone.
  ASSERT_EQ(::mkdir(tmp.File("new.partial").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(tmp.File("new.abc123.partial").c_str(), 0755), 0);
  EXPECT_EQ(Why(WriteProcDir(s, 0, tmp.File("new"), false, &stats)), "");
  EXPECT_EQ(Names(tmp.path()), (std::vector<std::string>{"empty", "file", "home", "link", "new",
                                                         "new.abc123.partial", "new.partial"}));
}

TEST(WriteOutputFileTest, AtomicAndRefusesLinksAndExistingFiles) {
  TempDir tmp;
  std::string error;
  ASSERT_EQ(Why(WriteOutputFile(tmp.File("a.dot"), "one", false)), "");
  EXPECT_EQ(Slurp(tmp.File("a.dot")), "one");
  error = Why(WriteOutputFile(tmp.File("a.dot"), "two", false));
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("exists: refused (use --force"), std::string::npos) << error;
  ASSERT_EQ(Why(WriteOutputFile(tmp.File("a.dot"), "two", true)), "");
  EXPECT_EQ(Slurp(tmp.File("a.dot")), "two");
  ASSERT_EQ(::symlink(tmp.File("a.dot").c_str(), tmp.File("l.dot").c_str()), 0);
  error = Why(WriteOutputFile(tmp.File("l.dot"), "three", true));
  EXPECT_NE(error, "");
  EXPECT_NE(error.find("is a symbolic link: refused"), std::string::npos) << error;
  EXPECT_EQ(Slurp(tmp.File("a.dot")), "two");
  EXPECT_EQ(Names(tmp.path()), (std::vector<std::string>{"a.dot", "l.dot"}));
}

// ---- Reading it back ---------------------------------------------------------

// Every record ScanFrame makes of `dir` read through a ProcDirEvidence.
std::vector<v1::ProcessRecord> ScanDir(const std::string& dir, const ScanOptions& scan,
                                       std::string* error) {
  std::vector<v1::ProcessRecord> out;
  Failure failure;
  auto ev = ProcDirEvidence::Open(dir, &failure);
  if (!ev) {
    *error = failure.message;
    return out;
  }
  FrameCallbacks callbacks;
  callbacks.begin = [](std::int64_t) {};
  callbacks.record = [&out, &ev](v1::ProcessRecord&& r) {
    ev->AddLinkTexts(&r);
    out.push_back(std::move(r));
    return true;
  };
  ScanFrame(
      *ev, scan, [&ev](std::int64_t pid) { return ev->PidNamespace(pid); }, callbacks);
  *error = ev->error();
  return out;
}

TEST(ProcDirEvidenceTest, TheCapturesScannerReadsBackTheRecordedRecords) {
  TempDir tmp;
  const Snapshot s = HostileSnapshot();
  ProcDirStats stats;
  std::string error;
  ASSERT_EQ(Why(WriteProcDir(s, 0, tmp.File("dir"), false, &stats)), "");
  ScanOptions scan;
  scan.kept_entries = {"PROCTAPE_TOKEN=********"};  // as capture --proc-root takes them
  std::vector<v1::ProcessRecord> back = ScanDir(tmp.File("dir"), scan, &error);
  EXPECT_EQ(error, "");
  // Pids in numeric order, as /proc lists them; the two dropped records absent.
  // The records are the recorded ones with the token masked.
  ASSERT_EQ(back.size(), 7u);
  const TokenMask mask = TokenMask::Of(s);
  for (std::size_t i = 0; i < back.size(); ++i) {
    v1::ProcessRecord original = s.frames[0].processes(static_cast<int>(i));
    mask.Mask(&original);
    EXPECT_EQ(back[i].SerializeAsString(), original.SerializeAsString())
        << "pid " << original.pid() << "\n"
        << back[i].DebugString() << "\nexpected\n"
        << original.DebugString();
  }
}

TEST(ProcDirEvidenceTest, AFixtureOfAnotherToolWithoutSideFiles) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  for (const char* pid : {"10", "9", "100"}) {
    ASSERT_TRUE(std::filesystem::create_directories(dir + "/" + pid));
    std::ofstream(dir + "/" + pid + "/stat") << Stat(std::stol(pid), "sh", 'S', 1, 7);
  }
  ASSERT_EQ(::symlink("/bin/sh", (dir + "/9/exe").c_str()), 0);
  Failure failure;
  auto ev = ProcDirEvidence::Open(dir, &failure);
  ASSERT_TRUE(ev) << failure.message;
  EXPECT_FALSE(ev->frame().has_value());
  ListResult list = ev->ListPids(2);
  EXPECT_EQ(list.names, (std::vector<std::string_view>{"9", "10"}));
  EXPECT_TRUE(list.truncated);
  // An exe link is never followed (tests/unit/proc_dir_seal_test.cc): its
  // identity is unknown (ELOOP), its text is kept.
  EXPECT_EQ(ev->ExeIdentity(9), (Identity{ELOOP, 0, 0}));
  v1::ProcessRecord nine;
  nine.set_pid(9);
  nine.mutable_exe()->set_err(ELOOP);
  ev->AddLinkTexts(&nine);
  EXPECT_EQ(nine.exe().link_text(), "/bin/sh");
  EXPECT_EQ(ev->ExeIdentity(10).err, ENOENT);
  EXPECT_EQ(ev->PidNamespace(10).err, ENOENT);
  EXPECT_EQ(ev->ReadFile(10, ProcFile::kCmdline, 100).err, ENOENT);
  ReadResult stat = ev->ReadFile(10, ProcFile::kStat, 4096);
  EXPECT_EQ(stat.err, 0);
  EXPECT_FALSE(stat.truncated);
  EXPECT_EQ(ev->error(), "");
}

TEST(ProcDirEvidenceTest, AMalformedSideFileIsReportedNotGuessedAround) {
  TempDir tmp;
  const std::string dir = tmp.File("proc");
  ASSERT_TRUE(std::filesystem::create_directories(dir + "/5"));
  std::ofstream(dir + "/5/proctape-identity") << "proctape-identity 1\nexe 1:2\nexe 3:4\n";
  Failure failure;
  auto ev = ProcDirEvidence::Open(dir, &failure);
  ASSERT_TRUE(ev) << failure.message;
  EXPECT_EQ(ev->ExeIdentity(5).err, ENOENT);
  EXPECT_NE(ev->error().find("/5/proctape-identity: line 3 (exe): repeated or out of order"),
            std::string::npos)
      << ev->error();
  // A malformed proctape-frame refuses the directory.
  std::ofstream(dir + "/proctape-frame") << "proctape-frame 1\nenviron secret\n";
  EXPECT_FALSE(ProcDirEvidence::Open(dir, &failure));
  EXPECT_EQ(failure.kind, FailureKind::kCorrupt);
  EXPECT_NE(failure.message.find("/proctape-frame: line 2 (environ)"), std::string::npos)
      << failure.message;
}

}  // namespace
}  // namespace proctape
