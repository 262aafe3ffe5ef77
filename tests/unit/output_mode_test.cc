// SPDX-License-Identifier: Apache-2.0
// Rule 2's mode (fs/output_file.h, docs/cli/outputs.md): one rule,
// decided by what a file holds. Every temporary is 0600 while it is written;
// a file that keeps environment values (ENVIRON_KEPT, or kept entries: a
// recording's token entry) is committed 0600, umask or not; any other 0644
// less the umask. The .ptape writer decides it from the header it writes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "format/file_holds.h"
#include "format/writer.h"
#include "tests/unit/output_file_fixture.h"
#include "tests/unit/failure_text.h"

namespace proctape::test {
namespace {

mode_t ModeOf(const std::string& path) {
  struct stat st;
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// The test's umask for one test, restored after.
class WithUmask {
 public:
  explicit WithUmask(mode_t mask) : old_(::umask(mask)) {}
  ~WithUmask() { ::umask(old_); }

 private:
  mode_t old_;
};

class OutputModeTest : public OutputFileTest {};

TEST_F(OutputModeTest, TheTemporaryIsOwnerOnlyWhileItIsWritten) {
  WithUmask shared(022);
  Failure error;
  auto out = Open(Path("out"), false, &error);
  ASSERT_NE(out, nullptr) << error.message;
  EXPECT_EQ(ModeOf(out->temporary()), 0600u);
}

TEST_F(OutputModeTest, AFileKeepingNoEnvironmentValueIsCommitted0644LessTheUmask) {
  for (mode_t mask : {022u, 027u, 0u}) {
    WithUmask shared(mask);
    const std::string path = Path("out" + std::to_string(mask));
    Failure error;
    auto out = Open(path, false, &error);
    ASSERT_NE(out, nullptr) << error.message;
    ASSERT_EQ(Why(out->WriteAndCommit("plain")), "");
    EXPECT_EQ(ModeOf(path), 0644u & ~mask) << std::oct << mask;
  }
}

TEST_F(OutputModeTest, AFileKeptOwnerOnlyIsCommitted0600UmaskOrNot) {
  WithUmask open(0);
  Failure error;
  auto out = Open(Path("out"), false, &error);
  ASSERT_NE(out, nullptr) << error.message;
  out->KeepOwnerOnly();
  ASSERT_EQ(Why(out->Commit()), "");
  EXPECT_EQ(ModeOf(Path("out")), 0600u);
}

// The writer of a .ptape decides from its header: a token entry kept
// (any recording: resolve, liveness with a token, lab) or --env keep is
// 0600; a redacted header with no kept entry is shared.
TEST_F(OutputModeTest, TheWriterDecidesTheModeFromTheHeaderItWrites) {
  WithUmask shared(022);
  v1::Header token;
  token.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  token.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=abc");
  v1::Header kept;
  kept.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_KEPT);
  v1::Header redacted;
  redacted.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  struct Case {
    const char* name;
    const v1::Header* header;
    mode_t mode;
  } cases[] = {{"token.ptape", &token, 0600},
               {"kept.ptape", &kept, 0600},
               {"redacted.ptape", &redacted, 0644}};
  for (const Case& c : cases) {
    EXPECT_EQ(KeepsEnvironValues(*c.header), c.mode == 0600) << c.name;
    Failure failure;
    auto writer = SnapshotWriter::Create(Path(c.name), {}, &failure);
    ASSERT_NE(writer, nullptr) << failure.message;
    ASSERT_TRUE(writer->WriteHeader(*c.header)) << writer->error();
    ASSERT_TRUE(writer->Finish({})) << writer->error();
    EXPECT_EQ(ModeOf(Path(c.name)), c.mode) << c.name;
  }
}

}  // namespace
}  // namespace proctape::test
