// SPDX-License-Identifier: Apache-2.0
// Files read because of where they lie (corpus/beside_file.h,
// docs/security.md "Files read beside a FILE"): the MANIFEST and a corpus's
// entries are regular files of bounded size, never a link followed, never a
// file of /proc. The FIFO and the link to /dev/zero, which hung or took all
// memory, are run from the binary with a hang guard in
// tests/live/beside_files_cli_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#include "corpus/beside_file.h"
#include "corpus/corpus.h"
#include "corpus/sha256.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using test::ReplayTempDir;

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string Recording() {
  return (test::SourceDir() / "tests" / "data" / "replay" / "resolved.ptape").string();
}

// A MANIFEST of exactly `bytes` bytes: the header, then comment lines.
std::string ManifestOfSize(std::size_t bytes) {
  std::string text = std::string(kManifestHeader) + "\n";
  const std::string line = "# " + std::string(1021, 'x') + "\n";  // 1,024 bytes
  while (text.size() + line.size() <= bytes) text += line;
  const std::size_t rest = bytes - text.size();  // 0 to 1,023
  if (rest >= 2) text.append("#").append(rest - 2, 'y');
  if (rest >= 1) text.append("\n");  // alone: a blank line
  return text;
}

TEST(BesideFile, AManifestThatIsASymbolicLinkIsNotFollowed) {
  ReplayTempDir tmp;
  ASSERT_TRUE(tmp.ok());
  WriteText(tmp.File("elsewhere"), std::string(kManifestHeader) + "\n");
  std::filesystem::create_directory(tmp.File("c"));
  std::filesystem::create_symlink(tmp.File("elsewhere"), tmp.File("c/MANIFEST"));
  Failure failure;
  EXPECT_FALSE(LoadManifest(tmp.File("c"), true, &failure));
  EXPECT_EQ(failure.message, tmp.File("c/MANIFEST") + ": is a symbolic link: not followed");
  EXPECT_EQ(failure.kind, FailureKind::kManifest);
}

TEST(BesideFile, AManifestPastItsLimitIsRefusedAndOneAtItIsRead) {
  ReplayTempDir tmp;
  ASSERT_TRUE(tmp.ok());
  std::filesystem::create_directory(tmp.File("c"));
  Failure failure;
  WriteText(tmp.File("c/MANIFEST"), ManifestOfSize(kMaxManifestBytes));
  EXPECT_TRUE(LoadManifest(tmp.File("c"), false, &failure)) << failure.message;
  WriteText(tmp.File("c/MANIFEST"), ManifestOfSize(kMaxManifestBytes + 1));
  EXPECT_FALSE(LoadManifest(tmp.File("c"), false, &failure));
  EXPECT_EQ(failure.message,
            tmp.File("c/MANIFEST") + ": holds more than 16777216 bytes (the limit)");
  EXPECT_EQ(failure.kind, FailureKind::kManifest);
}

TEST(BesideFile, AMissingManifestIsAnEmptyCorpusOnlyWhereThatIsAsked) {
  ReplayTempDir tmp;
  ASSERT_TRUE(tmp.ok());
  Failure failure;
  std::optional<Manifest> m = LoadManifest(tmp.File(""), true, &failure);
  EXPECT_TRUE(m) << failure.message;
  EXPECT_TRUE(m && m->entries.empty());
  EXPECT_FALSE(LoadManifest(tmp.File(""), false, &failure));
  EXPECT_NE(failure.message.find("cannot open: No such file or directory (not a corpus"),
            std::string::npos)
      << failure.message;
  EXPECT_EQ(failure.kind, FailureKind::kManifest);
  EXPECT_EQ(failure.sys_errno, ENOENT);
}

TEST(BesideFile, OnlyARegularFileOutsideProcIsOpened) {
  Failure failure;
  errno = 0;
  EXPECT_LT(OpenFileBeside("/proc/self/environ", &failure), 0);
  EXPECT_EQ(failure.message, "is a file of /proc or /sys, not a regular file");
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  EXPECT_LT(OpenFileBeside("/dev/zero", &failure), 0);
  EXPECT_EQ(failure.message, "is a character device, not a regular file");
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  EXPECT_LT(OpenFileBeside("/", &failure), 0);
  EXPECT_EQ(failure.message, "is a directory, not a regular file");
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  EXPECT_LT(OpenFileBeside("/nonexistent-proctape-file", &failure), 0);
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(failure.sys_errno, ENOENT);
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  const int fd = OpenFileBeside(Recording(), &failure);
  EXPECT_GE(fd, 0) << failure.message;
  if (fd >= 0) ::close(fd);
}

TEST(BesideFile, AFileOfMoreThanItsLimitIsRefused) {
  ReplayTempDir tmp;
  ASSERT_TRUE(tmp.ok());
  WriteText(tmp.File("f"), std::string(100, 'a'));
  Failure failure;
  std::optional<std::string> bytes = ReadFileBeside(tmp.File("f"), 100, &failure);
  EXPECT_TRUE(bytes) << failure.message;
  EXPECT_EQ(bytes.value_or("").size(), 100u);
  bytes = ReadFileBeside(tmp.File("f"), 99, &failure);
  EXPECT_FALSE(bytes);
  EXPECT_EQ(failure.message, "holds more than 99 bytes (the limit)");
  EXPECT_EQ(failure.kind, FailureKind::kIo);
  EXPECT_EQ(failure.sys_errno, EFBIG);
}

TEST(BesideFile, ACorpusEntryThatIsASymbolicLinkIsUnreadable) {
  ReplayTempDir tmp;
  ASSERT_TRUE(tmp.ok());
  AddRequest add;
  add.file = Recording();
  add.dir = tmp.File("c");
  const AddOutcome added = AddToCorpus(add);
  ASSERT_EQ(added.kind, AddOutcome::Kind::kAdded) << added.message;
  const std::string entry = tmp.File("c/" + added.entry.file);
  std::filesystem::rename(entry, tmp.File("real.ptape"));
  std::filesystem::create_symlink(tmp.File("real.ptape"), entry);
  const v1::CorpusEntryResult r = CheckEntry(tmp.File("c"), added.entry);
  EXPECT_EQ(r.state(), v1::CorpusEntryResult::UNREADABLE);
  EXPECT_EQ(r.detail(), added.entry.file + ": is a symbolic link: not followed");
}

TEST(BesideFile, AnEntryThatWouldTakeTheManifestPastItsLimitIsNotAdded) {
  ReplayTempDir tmp;
  ASSERT_TRUE(tmp.ok());
  std::filesystem::create_directory(tmp.File("c"));
  WriteText(tmp.File("c/MANIFEST"), ManifestOfSize(kMaxManifestBytes - 100));
  AddRequest add;
  add.file = Recording();
  add.dir = tmp.File("c");
  const AddOutcome out = AddToCorpus(add);
  EXPECT_EQ(out.kind, AddOutcome::Kind::kManifest) << out.message;
  EXPECT_NE(out.message.find("would hold more than 16777216 bytes (the limit)"), std::string::npos)
      << out.message;
  // Neither the copy nor a MANIFEST no reader takes.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.File("c"))) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1u);
  EXPECT_EQ(std::filesystem::file_size(tmp.File("c/MANIFEST")), kMaxManifestBytes - 100);
}

}  // namespace
}  // namespace proctape
