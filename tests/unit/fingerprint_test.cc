// SPDX-License-Identifier: Apache-2.0
// `docs/resolver.md`, "The eight steps", step 1: before the turn, the root's
// host pid and its stat start time, and /bin/sleep's device and inode, are
// recorded (`docs/format.md` section 12). The fingerprint taken on the
// in-memory host (capture/fingerprint.h), the file that keeps it until the
// resolution (format/fingerprint_file.h), and what a file that is not one
// gets.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>

#include "capture/fingerprint.h"
#include "format/fingerprint_file.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using google::protobuf::util::MessageDifferencer;
using test::FakeHost;
using test::kAppServer;
using test::kAppServerStart;
using test::kSleepExe;
using test::ReplayTempDir;

const std::string kBoot = "5b1f0c2e-3d4a-4e6f-8a9b-0c1d2e3f4a5b\n";
const std::string kOtherBootId = "00000000-1111-4222-8333-444444444444\n";

v1::Header HeaderOfBoot(const std::string& boot_id) {
  v1::Header h;
  h.set_tool_version("fingerprint-test");
  h.mutable_host()->set_boot_id(boot_id);
  h.mutable_host()->set_clock_ticks_per_second(100);
  return h;
}

v1::RootFingerprint Typical() {
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  EXPECT_TRUE(taken.ok()) << taken.root.detail;
  return taken.fingerprint;
}

// Writes a file of the given chunks (header first), ended by a footer.
std::string WriteChunks(const ReplayTempDir& dir, const std::string& name,
                        const std::vector<v1::Chunk>& body, const v1::Header& header) {
  std::string path = dir.File(name);
  Failure failure;
  auto w = SnapshotWriter::Create(path, SnapshotWriter::Options{}, &failure);
  EXPECT_NE(w, nullptr) << failure.message;
  if (!w) return path;
  EXPECT_TRUE(w->WriteHeader(header));
  for (const v1::Chunk& c : body) EXPECT_TRUE(w->WriteChunk(c));
  EXPECT_TRUE(w->Finish(v1::Footer{})) << w->error();
  return path;
}

v1::Chunk FingerprintChunk(const v1::RootFingerprint& fp) {
  v1::Chunk c;
  *c.mutable_fingerprint() = fp;
  return c;
}

TEST(TakeFingerprint, RecordsTheRootsPidStartTickAndNameAndTheExecutablesIdentity) {
  FakeHost host;
  host.now_ns = 7'000'000'000;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok()) << taken.root.detail;
  const v1::RootFingerprint& fp = taken.fingerprint;
  EXPECT_EQ(fp.root_pid(), kAppServer);
  EXPECT_EQ(fp.root_start_ticks(), kAppServerStart);
  EXPECT_EQ(fp.root_comm(), "codex");
  EXPECT_EQ(fp.boot_id(), kBoot);
  EXPECT_EQ(fp.exe_path(), "/bin/sleep");
  EXPECT_EQ(FromProto(fp.exe_identity()), kSleepExe);
  EXPECT_GE(fp.taken_mono_ns(), 7'000'000'000);
  EXPECT_GT(fp.taken_realtime_ns(), 0);
  // One stat read of the root (bounded as the resolver bounds it), then the
  // executable: nothing else is read.
  std::vector<std::string> reads;
  for (const std::string& line : host.log) {
    if (line.rfind("now", 0) != 0) reads.push_back(line.substr(0, line.find(" -> ")));
  }
  EXPECT_EQ(reads, (std::vector<std::string>{"read 4000 stat 4096", "path /bin/sleep"}));
}

// The command name is for people; it is taken from the same stat split at
// the final ") ", so a hostile name does not move the start tick.
TEST(TakeFingerprint, HostileCommandNameKeepsTheStartTick) {
  FakeHost host;
  host.SetFile(kAppServer, ProcFile::kStat,
               MemoryEvidence::StatLine(kAppServer, "x) Z 1 1 1\nx", 'S', 3900, kAppServerStart));
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok()) << taken.root.detail;
  EXPECT_EQ(taken.fingerprint.root_start_ticks(), kAppServerStart);
  EXPECT_EQ(taken.fingerprint.root_comm(), "x) Z 1 1 1\nx");
}

TEST(TakeFingerprint, RootThatCannotBeFingerprintedSaysWhyAndAttestsNothing) {
  struct Case {
    const char* name;
    std::function<void(FakeHost&)> setup;
    Status status;
  };
  for (const Case& c : std::vector<Case>{
           {"gone", [](FakeHost& h) { h.Remove(kAppServer); }, Status::kMissingRoot},
           {"unreadable", [](FakeHost& h) { h.SetFileError(kAppServer, ProcFile::kStat, EACCES); },
            Status::kUnreadable},
           {"malformed",
            [](FakeHost& h) {
              h.SetFile(kAppServer, ProcFile::kStat,
                        MemoryEvidence::StatLine(4, "codex", 'S', 1, kAppServerStart));
            },
            Status::kMalformedRecord},
           // docs/resolver.md, "When the root is fingerprinted": a dead root
           // (a zombie not yet reaped, X, x) is missing.
           {"zombie",
            [](FakeHost& h) {
              h.SetFile(kAppServer, ProcFile::kStat,
                        MemoryEvidence::StatLine(kAppServer, "codex", 'Z', 1, kAppServerStart));
            },
            Status::kMissingRoot},
           {"dead",
            [](FakeHost& h) {
              h.SetFile(kAppServer, ProcFile::kStat,
                        MemoryEvidence::StatLine(kAppServer, "codex", 'X', 1, kAppServerStart));
            },
            Status::kMissingRoot}}) {
    FakeHost host;
    c.setup(host);
    TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
    EXPECT_FALSE(taken.ok()) << c.name;
    EXPECT_EQ(taken.root.status, c.status) << c.name << ": " << taken.root.detail;
    EXPECT_EQ(taken.root.subject_pid, kAppServer) << c.name;
    EXPECT_EQ(host.log.back().rfind("read 4000 stat", 0), 0u) << c.name << ": " << host.log.back();
  }
}

TEST(TakeFingerprint, ExecutableThatCannotBeAttestedIsNoFingerprint) {
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/no/such/sleep", kBoot);
  EXPECT_FALSE(taken.ok());
  EXPECT_TRUE(taken.root.resolved());
  EXPECT_EQ(taken.exe.err, ENOENT);
}

TEST(FingerprintFile, WrittenAndReadBackWhole) {
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  const v1::RootFingerprint fp = Typical();
  const std::string path = dir.File("root.ptape");
  const MaybeFailure failed = WriteFingerprintFile(path, false, HeaderOfBoot(kBoot), fp);
  ASSERT_FALSE(failed) << failed->message;

  FingerprintFile read = ReadFingerprintFile(path);
  ASSERT_TRUE(read.ok()) << read.error;
  EXPECT_TRUE(MessageDifferencer::Equals(read.fingerprint, fp)) << read.fingerprint.DebugString();
  EXPECT_EQ(read.header.host().boot_id(), kBoot);

  // Header, the fingerprint, the footer: an ordinary intact .ptape file.
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(path, &snap).ok());
  EXPECT_EQ(snap.chunks, 3u);
  ASSERT_EQ(snap.fingerprints.size(), 1u);
  EXPECT_TRUE(snap.frames.empty());
  EXPECT_TRUE(snap.resolutions.empty());
  ASSERT_TRUE(snap.footer.has_value());
  EXPECT_EQ(snap.footer->chunks(), 2u);
}

TEST(FingerprintFile, FollowsTheOutputRules) {
  ReplayTempDir dir;
  const v1::RootFingerprint fp = Typical();
  const std::string path = dir.File("root.ptape");
  MaybeFailure failed = WriteFingerprintFile(path, false, HeaderOfBoot(kBoot), fp);
  ASSERT_FALSE(failed) << failed->message;
  failed = WriteFingerprintFile(path, false, HeaderOfBoot(kBoot), fp);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->kind, FailureKind::kIo);
  EXPECT_NE(failed->message.find("exists"), std::string::npos) << failed->message;
  failed = WriteFingerprintFile(path, true, HeaderOfBoot(kBoot), fp);
  EXPECT_FALSE(failed) << failed->message;

  const std::string link = dir.File("link.ptape");
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  failed = WriteFingerprintFile(link, true, HeaderOfBoot(kBoot), fp);
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->kind, FailureKind::kIo);
  EXPECT_NE(failed->message.find("symbolic link"), std::string::npos) << failed->message;
  EXPECT_FALSE(std::ifstream(dir.File("root.ptape.partial")).good());
}

TEST(FingerprintFile, CaptureOrRecordingIsNotAFingerprint) {
  ReplayTempDir dir;
  v1::Chunk frame;
  frame.mutable_frame()->set_complete(true);
  std::string path = WriteChunks(dir, "capture.ptape", {frame}, HeaderOfBoot(kBoot));
  FingerprintFile read = ReadFingerprintFile(path);
  EXPECT_EQ(read.problem, FingerprintFile::Problem::kNotAFingerprint) << read.error;
  EXPECT_NE(read.error.find("is not a fingerprint file"), std::string::npos) << read.error;
}

TEST(FingerprintFile, FingerprintBesideAnythingElseIsRefused) {
  ReplayTempDir dir;
  const v1::RootFingerprint fp = Typical();
  v1::Chunk resolution;
  resolution.mutable_resolution()->mutable_resolve()->set_root_pid(kAppServer);
  v1::Chunk frame;
  frame.mutable_frame()->set_complete(true);
  // Two fingerprint chunks break a rule of the format itself (docs/format.md:
  // at most one per file): the reader refuses the file as corrupt.
  FingerprintFile two = ReadFingerprintFile(
      WriteChunks(dir, "two", {FingerprintChunk(fp), FingerprintChunk(fp)}, HeaderOfBoot(kBoot)));
  EXPECT_EQ(two.problem, FingerprintFile::Problem::kFormat) << two.error;
  EXPECT_EQ(two.format.kind, FormatErrorKind::kCorrupt) << two.error;
  EXPECT_NE(two.error.find("a second fingerprint"), std::string::npos) << two.error;
  for (const auto& [name, body] : std::vector<std::pair<std::string, std::vector<v1::Chunk>>>{
           {"with-resolution", {FingerprintChunk(fp), resolution}},
           {"with-frame", {frame, FingerprintChunk(fp)}}}) {
    FingerprintFile read = ReadFingerprintFile(WriteChunks(dir, name, body, HeaderOfBoot(kBoot)));
    EXPECT_EQ(read.problem, FingerprintFile::Problem::kInvalid) << name << ": " << read.error;
    EXPECT_NE(read.error.find("nothing else"), std::string::npos) << read.error;
  }
}

TEST(FingerprintFile, UnusableFingerprintIsRefused) {
  ReplayTempDir dir;
  struct Case {
    const char* name;
    std::function<void(v1::RootFingerprint&)> edit;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {"pid-1", [](v1::RootFingerprint& f) { f.set_root_pid(1); }, "outside 2..2147483647"},
           {"pid-2^31", [](v1::RootFingerprint& f) { f.set_root_pid(2147483648); }, "outside"},
           {"no-boot", [](v1::RootFingerprint& f) { f.clear_boot_id(); }, "names no boot"},
           {"no-exe", [](v1::RootFingerprint& f) { f.clear_exe_identity(); },
            "no attested identity"},
           {"exe-errno", [](v1::RootFingerprint& f) { f.mutable_exe_identity()->set_err(ENOENT); },
            "no attested identity"},
           {"other-boot-than-header", [](v1::RootFingerprint& f) { f.set_boot_id(kOtherBootId); },
            "in a file written in boot"}}) {
    v1::RootFingerprint fp = Typical();
    c.edit(fp);
    FingerprintFile read =
        ReadFingerprintFile(WriteChunks(dir, c.name, {FingerprintChunk(fp)}, HeaderOfBoot(kBoot)));
    EXPECT_EQ(read.problem, FingerprintFile::Problem::kInvalid) << c.name << ": " << read.error;
    EXPECT_NE(read.error.find(c.says), std::string::npos) << c.name << ": " << read.error;
  }
}

TEST(FingerprintFile, DamagedOrMissingFileIsAFormatError) {
  ReplayTempDir dir;
  const std::string path = dir.File("root.ptape");
  ASSERT_FALSE(WriteFingerprintFile(path, false, HeaderOfBoot(kBoot), Typical()));
  const std::string whole = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  const std::string cut = dir.File("cut.ptape");
  std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() - 3);
  FingerprintFile read = ReadFingerprintFile(cut);
  EXPECT_EQ(read.problem, FingerprintFile::Problem::kFormat);
  EXPECT_EQ(read.format.kind, FormatErrorKind::kTruncated) << read.error;

  FingerprintFile missing = ReadFingerprintFile(dir.File("absent.ptape"));
  EXPECT_EQ(missing.problem, FingerprintFile::Problem::kFormat);
  EXPECT_EQ(missing.format.kind, FormatErrorKind::kIo) << missing.error;
}

// A start tick counts clock ticks since boot: from another boot it names
// nothing of this one.
TEST(FingerprintBoot, AnotherBootOrAnUnknownOneIsRefused) {
  v1::RootFingerprint fp = Typical();
  EXPECT_EQ(OtherBoot(fp, kBoot), "");
  std::string other = OtherBoot(fp, kOtherBootId);
  EXPECT_EQ(other,
            "taken in boot 5b1f0c2e-3d4a-4e6f-8a9b-0c1d2e3f4a5b, not in "
            "00000000-1111-4222-8333-444444444444");
  EXPECT_NE(OtherBoot(fp, ""), "");
  fp.clear_boot_id();
  EXPECT_NE(OtherBoot(fp, ""), "");
}

TEST(FingerprintRequest, RootAndExecutableComeFromTheFingerprint) {
  v1::RootFingerprint fp = Typical();
  Request request;
  request.root_pid = 77;
  request.root_start_ticks = 1;
  request.exe = Identity{0, 1, 2};
  ApplyFingerprint(fp, &request);
  EXPECT_EQ(request.root_pid, kAppServer);
  EXPECT_EQ(request.root_start_ticks, kAppServerStart);
  EXPECT_EQ(request.exe, kSleepExe);
}

}  // namespace
}  // namespace proctape
