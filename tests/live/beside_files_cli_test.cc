// SPDX-License-Identifier: Apache-2.0
// Files read beside a FILE, from the binary (docs/security.md, "Files read
// beside a FILE"; corpus/beside_file.h): a MANIFEST that is a link to
// /proc/self/environ or to /dev/zero, a FIFO or a device, beside the FILE of
// `sql` and `export --format sqlite|csv` or in the corpus of `corpus list`
// and `corpus check`, is refused at once, never read: the link to environ
// was read inside the jail, the one to /dev/zero ran out of memory, the FIFO
// hung. A corpus entry that is a FIFO is unreadable, not a hang. Each runs
// under 512 MiB of address space with a hang guard (not a measure).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "tests/live/corpus_files.h"
#include "tests/live/files.h"

namespace proctape::live {
namespace {

constexpr int kHangGuardMs = 60'000;

// One kind of MANIFEST that is no regular file: how to make it at `path`,
// and the words that refuse it.
struct NotAFile {
  std::string name;
  std::function<bool(const std::string& path)> make;
  std::string said;
};

std::vector<NotAFile> NotFiles() {
  auto link_to = [](const char* target) {
    return [target](const std::string& path) {
      std::error_code ec;
      std::filesystem::create_symlink(target, path, ec);
      return !ec;
    };
  };
  std::vector<NotAFile> kinds = {
      {"a link to /proc/self/environ", link_to("/proc/self/environ"),
       "is a symbolic link: not followed"},
      {"a link to /dev/zero", link_to("/dev/zero"), "is a symbolic link: not followed"},
      {"a FIFO", [](const std::string& path) { return ::mkfifo(path.c_str(), 0600) == 0; },
       "is a FIFO, not a regular file"},
  };
  if (::geteuid() == 0) {  // mknod: root only
    kinds.push_back({"a character device (/dev/zero's)",
                     [](const std::string& path) {
                       return ::mknod(path.c_str(), S_IFCHR | 0600, ::makedev(1, 5)) == 0;
                     },
                     "is a character device, not a regular file"});
  }
  return kinds;
}

TEST(BesideFilesCli, AManifestThatIsNoRegularFileIsRefusedNeverRead) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  const std::string recording = CorpusFile("plain-unshare");
  for (const NotAFile& kind : NotFiles()) {
    SCOPED_TRACE(kind.name);
    TempDir dir("beside");
    const std::string file = dir.File("a.ptape");
    std::filesystem::copy_file(recording, file);
    ASSERT_TRUE(kind.make(dir.File("MANIFEST")));
    const std::string warning = "proctape: warning: " + dir.File("MANIFEST") + ": " + kind.said +
                                ": its entries are not named (files.entry is NULL)\n";
    // sql and export load the FILE all the same, its entry NULL.
    const CommandResult sql =
        ProctapeWithinAddressLimit({"sql", file, "-c", "SELECT entry FROM files"}, kHangGuardMs);
    EXPECT_EQ(sql.exit_code, 0) << Describe(sql);
    EXPECT_EQ(sql.out, "entry\nNULL\n");
    EXPECT_EQ(sql.err, warning);
    const CommandResult csv = ProctapeWithinAddressLimit(
        {"export", file, "--format", "csv", "-o", dir.File("csv")}, kHangGuardMs);
    EXPECT_EQ(csv.exit_code, 0) << Describe(csv);
    EXPECT_NE(csv.err.find(warning), std::string::npos) << csv.err;
    // The corpus commands refuse the corpus: its MANIFEST is not one (23).
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"corpus", "list", dir.path()},
          std::vector<std::string>{"corpus", "check", dir.path()}}) {
      const CommandResult r = ProctapeWithinAddressLimit(args, kHangGuardMs);
      EXPECT_EQ(r.exit_code, 23) << Shown(args) << "\n" << Describe(r);
      EXPECT_EQ(r.err, "proctape: " + dir.File("MANIFEST") + ": " + kind.said + "\n");
    }
  }
}

TEST(BesideFilesCli, ACorpusEntryThatIsAFifoIsUnreadableNotAHang) {
  TempDir dir("beside");
  const std::string corpus = dir.File("c");
  const CommandResult added =
      Proctape({"corpus", "add", CorpusFile("plain-unshare"), "--corpus", corpus});
  ASSERT_EQ(added.exit_code, 0) << Describe(added);
  std::string entry;
  for (const std::string& name : Entries(corpus)) {
    if (name != "MANIFEST") entry = name;
  }
  ASSERT_FALSE(entry.empty());
  std::filesystem::remove(corpus + "/" + entry);
  ASSERT_EQ(::mkfifo((corpus + "/" + entry).c_str(), 0600), 0);
  const CommandResult r = Proctape({"corpus", "check", corpus}, kHangGuardMs);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 22) << Describe(r);
  EXPECT_NE(r.out.find("UNREADABLE plain-unshare: " + entry + ": is a FIFO, not a regular file\n"),
            std::string::npos)
      << Describe(r);
}

}  // namespace
}  // namespace proctape::live
