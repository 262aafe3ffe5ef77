// SPDX-License-Identifier: Apache-2.0
// `capture --proc-root DIR` before its frame (procdir/import.h): DIR opened
// and refused when it holds no process, and an export made a capture's
// source, its recorded frame's facts given back, refused when --env keep
// asks for the values it holds redacted.
#include "procdir/import.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "procdir/writer.h"
#include "tests/unit/analyze_export_fixture.h"
#include "tests/unit/failure_text.h"
#include "tests/unit/format_bytes.h"

namespace proctape {
namespace {

using namespace test;  // HostileSnapshot, TempDirTest

class ProcDirImportTest : public TempDirTest {
 protected:
  // HostileSnapshot's frame exported as a proc-dir at Path("export").
  std::string Export() {
    ProcDirStats stats;
    EXPECT_EQ(Why(WriteProcDir(HostileSnapshot(), 0, Path("export"), false, &stats)), "");
    return Path("export");
  }
};

TEST_F(ProcDirImportTest, ADirectoryHoldingNoProcessIsAUsageError) {
  std::filesystem::create_directory(Path("empty"));
  Failure failure;
  EXPECT_EQ(OpenImportDir(Path("empty"), &failure), nullptr);
  EXPECT_EQ(failure.kind, FailureKind::kUsage);
  EXPECT_EQ(failure.message.rfind("holds no process: ", 0), 0u) << failure.message;
}

TEST_F(ProcDirImportTest, AMissingDirectoryIsAnInputError) {
  Failure failure;
  EXPECT_EQ(OpenImportDir(Path("missing"), &failure), nullptr);
  EXPECT_EQ(failure.kind, FailureKind::kIo);
}

TEST_F(ProcDirImportTest, AnExportIsASourceWithItsRecordedFrame) {
  Failure failure;
  std::unique_ptr<ProcDirEvidence> dir = OpenImportDir(Export(), &failure);
  ASSERT_NE(dir, nullptr) << failure.message;
  ScanOptions scan;
  capture::EvidenceSource source;
  ASSERT_EQ(Why(ImportSource(std::move(dir), "export", {"proctape", "capture"}, &scan, &source)),
            "");
  ASSERT_NE(source.evidence, nullptr);
  EXPECT_EQ(source.hooks.evidence, source.evidence.get());
  EXPECT_TRUE(source.hooks.recorded);
  EXPECT_EQ(source.hooks.recorded_begin_ns, 1'500'000'000);
  EXPECT_EQ(source.hooks.recorded_end_ns, 1'600'000'000);
  EXPECT_EQ(source.header.host().hostname(), "ci\nhost");
  EXPECT_EQ(source.header.capture_start_mono_ns(), 1'500'000'000);
  ASSERT_EQ(scan.kept_entries.size(), 1u);
  EXPECT_EQ(scan.kept_entries[0], "PROCTAPE_TOKEN=********");  // the export masks the token
  EXPECT_TRUE(source.hooks.failed().empty());
  EXPECT_FALSE(source.open_workers);
}

TEST_F(ProcDirImportTest, KeepingRedactedEnvironValuesIsRefused) {
  Failure failure;
  std::unique_ptr<ProcDirEvidence> dir = OpenImportDir(Export(), &failure);
  ASSERT_NE(dir, nullptr) << failure.message;
  ScanOptions scan;
  scan.keep_environ = true;
  capture::EvidenceSource source;
  const MaybeFailure refused = ImportSource(std::move(dir), "ex\nport", {}, &scan, &source);
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->kind, FailureKind::kUsage);
  EXPECT_EQ(refused->message,
            "--env keep: ex\\x0aport holds redacted environ values: they cannot be kept");
  EXPECT_EQ(source.evidence, nullptr);
}

}  // namespace
}  // namespace proctape
