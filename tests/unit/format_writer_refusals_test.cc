// SPDX-License-Identifier: Apache-2.0
// format/writer.h refuses what would break a rule of docs/format.md: a call
// that would break one fails, names it, and writes nothing that breaks it (the
// file reads as a capture that did not finish); on standard output nothing is
// written after the footer. What the writer does write is checked rule by
// rule in format_writer_rules_test.cc.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <string>

#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_writer_rules_fixture.h"

namespace proctape {
namespace {

using namespace std::string_literals;
using namespace proctape::test;

// Each call that would break a rule fails, names what it would break, and
// leaves a file whose every chunk is valid (it reads as a capture that did
// not finish).
TEST_F(FormatWriterRulesTest, CallsThatWouldBreakARuleFail) {
  auto observation = [](std::uint64_t index) {
    v1::Observation o;
    o.set_index(index);
    o.mutable_now()->set_result_ns(1);
    return o;
  };
  struct Case {
    const char* breaks;
    std::function<bool(SnapshotWriter&)> calls;  // the last call breaks the rule
    const char* says;
  } cases[] = {
      {"a second header",
       [](SnapshotWriter& w) { return w.WriteHeader(v1::Header()) && w.WriteHeader(v1::Header()); },
       "WriteHeader after chunk 0"},
      {"a frame before the header",
       [](SnapshotWriter& w) {
         w.BeginFrame(0, 0);
         return w.error().empty();
       },
       "BeginFrame before the header"},
      {"a first frame with index 1",
       [](SnapshotWriter& w) {
         w.WriteHeader(v1::Header());
         w.BeginFrame(1, 0);
         return w.error().empty();
       },
       "BeginFrame index 1, expected 0"},
      {"a frame begun inside an open one",
       [](SnapshotWriter& w) {
         w.WriteHeader(v1::Header());
         w.BeginFrame(0, 0);
         w.BeginFrame(1, 0);
         return w.error().empty();
       },
       "BeginFrame inside an open frame"},
      {"a record that refers to a blob",
       [](SnapshotWriter& w) {
         w.WriteHeader(v1::Header());
         w.BeginFrame(0, 0);
         v1::ProcessRecord p;
         p.mutable_stat()->set_blob(1);
         return w.AddProcess(std::move(p));
       },
       "AddProcess: a record that refers to a blob"},
      {"an observation index out of order",
       [&](SnapshotWriter& w) {
         return w.WriteHeader(v1::Header()) && w.AddObservation(observation(0)) &&
                w.AddObservation(observation(2));
       },
       "AddObservation index 2, expected 1"},
      {"an observation whose read refers to a blob",
       [&](SnapshotWriter& w) {
         v1::Observation o = observation(0);
         o.mutable_read_file()->mutable_result()->set_blob(1);
         return w.WriteHeader(v1::Header()) && w.AddObservation(std::move(o));
       },
       "AddObservation: a read that refers to a blob"},
      {"a resolution past the observations",
       [&](SnapshotWriter& w) {
         v1::Resolution r;
         r.set_first_observation(1);
         r.set_observation_count(1);
         return w.WriteHeader(v1::Header()) && w.AddObservation(observation(0)) &&
                w.WriteResolution(r);
       },
       "WriteResolution: observations 1 + 1 past the 1 written"},
      {"a second fingerprint",
       [](SnapshotWriter& w) {
         return w.WriteHeader(v1::Header()) && w.WriteFingerprint(v1::RootFingerprint()) &&
                w.WriteFingerprint(v1::RootFingerprint());
       },
       "WriteFingerprint: a second fingerprint"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.breaks);
    const std::string path = Path("broken.ptape");
    Failure failure;
    auto w = SnapshotWriter::Create(path, {.force = true}, &failure);
    ASSERT_TRUE(w) << failure.message;
    EXPECT_FALSE(c.calls(*w));
    EXPECT_EQ(w->error(), c.says);
    EXPECT_FALSE(w->Finish({}));
    // What a writer killed now would leave holds the valid chunks only.
    const std::string partial = w->Abandon();
    w.reset();
    Snapshot s;
    FormatError e = ReadSnapshot(partial, &s);
    EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
    ::unlink(partial.c_str());
  }
}

TEST_F(FormatWriterRulesTest, NothingIsWrittenAfterTheFooterOnStandardOutput) {
  // Standard output stays open after Finish: the writer itself refuses.
  const std::string out = Path("stdout.ptape");
  Spit(out, "");
  const int fd = ::open(out.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const int saved = ::dup(STDOUT_FILENO);
  ASSERT_GE(saved, 0);
  ASSERT_EQ(::dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
  Failure failure;
  std::string error;
  bool finished = false, after = true;
  std::uint64_t written = 0;
  {
    auto w = SnapshotWriter::Create("-", {}, &failure);
    if (w) {
      finished = w->WriteHeader(v1::Header()) && w->Finish({});
      written = w->bytes_written();
      v1::Resolution r;
      after = w->WriteResolution(r) || w->WriteFingerprint(v1::RootFingerprint()) ||
              w->WriteHeader(v1::Header());
      error = w->error();
      EXPECT_EQ(w->bytes_written(), written);
    }
  }
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ::close(fd);
  ASSERT_TRUE(finished) << error;
  EXPECT_FALSE(after);
  EXPECT_EQ(error, "WriteResolution after Finish");
  EXPECT_EQ(Slurp(out).size(), written);
  Snapshot s;
  FormatError e = ReadSnapshot(out, &s);
  EXPECT_TRUE(e.ok()) << e.message;
}

}  // namespace
}  // namespace proctape
