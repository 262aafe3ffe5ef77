// SPDX-License-Identifier: Apache-2.0
// `proctape liveness` bound to the identity's boot (docs/resolver.md,
// "Liveness"), with the built binary on this kernel, of the test's own
// process: an identity of another boot is refused with exit 9 naming both
// boots, whether the boot comes from --boot-id, --fingerprint or
// --from-recording; this host's boot checks quietly; without one the check
// runs and says so on standard error, in --json (boot_unchecked) and in a
// recording.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/fingerprint_fixture.h"
#include "tests/live/output_writers.h"
#include "tests/live/sandbox.h"
#include "tests/unit/views_fixture.h"

namespace proctape::live {
namespace {

const std::string kOtherBoot = "00000000-1111-4222-8333-444444444444";

std::string HostBootText() {
  std::string boot = HostBootId();
  if (!boot.empty() && boot.back() == '\n') boot.pop_back();
  return boot;
}

// A recording whose one resolution RESOLVED the test's own process, in the
// boot `boot_id`.
std::string RecordingOfSelf(const TempDir& dir, const std::string& name,
                            const std::string& boot_id) {
  Snapshot s = test::MakeSnapshot({}, boot_id);
  s.resolutions.push_back(test::Resolved(1, 1, ::getpid(), std::stoull(SelfStart()), 1'000'000));
  const std::string path = dir.File(name);
  std::string error;
  EXPECT_TRUE(WriteSnapshotFile(path, s, &error)) << error;
  return path;
}

// The one line of a refusal of another boot: exit 9, nothing on standard
// output, both boots named.
void ExpectOtherBootRefused(const CommandResult& r) {
  EXPECT_EQ(r.exit_code, 9) << Describe(r);
  EXPECT_TRUE(r.out.empty()) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_NE(r.err.find(kOtherBoot), std::string::npos) << Describe(r);
  EXPECT_NE(r.err.find(HostBootText()), std::string::npos) << Describe(r);
  EXPECT_NE(r.err.find("another boot"), std::string::npos) << Describe(r);
}

TEST(LivenessBootCli, AnIdentityOfAnotherBootIsRefusedNamingBothBoots) {
  ASSERT_NE(HostBootText(), kOtherBoot);
  TempDir dir("liveness-boot");
  ExpectOtherBootRefused(
      Proctape({"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--boot-id", kOtherBoot}));
  const std::string fp = WriteEdited(dir, "other.ptape", [](v1::Header& h, v1::RootFingerprint& f) {
    h.mutable_host()->set_boot_id(kOtherBoot + "\n");
    f.set_boot_id(kOtherBoot + "\n");
  });
  ExpectOtherBootRefused(
      Proctape({"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--fingerprint", fp}));
  ExpectOtherBootRefused(Proctape(
      {"liveness", "--from-recording", RecordingOfSelf(dir, "r.ptape", kOtherBoot + "\n")}));
  // Refused before any work: no recording is left.
  const std::string record = dir.File("refused.ptape");
  ExpectOtherBootRefused(Proctape({"liveness", "--pid", SelfPid(), "--start", SelfStart(),
                                   "--boot-id", kOtherBoot, "--record", record}));
  EXPECT_FALSE(std::filesystem::exists(record));
}

TEST(LivenessBootCli, ThisHostsBootIsCheckedQuietlyAndRecorded) {
  TempDir dir("liveness-boot");
  const std::string fp = dir.File("root.ptape");
  ASSERT_EQ(Proctape({"fingerprint", "--root", SelfPid(), "-o", fp}).exit_code, 0);
  const std::string record = dir.File("l.ptape");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--boot-id", HostBootText()},
           {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--fingerprint", fp},
           {"liveness", "--from-recording", RecordingOfSelf(dir, "r.ptape", HostBootId())},
           {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--fingerprint", fp, "--json",
            "--record", record}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_TRUE(r.err.empty()) << Describe(r);
    EXPECT_TRUE(StartsWith(r.out, "ALIVE: ") ||
                r.out.find("\"status\":\"ALIVE\"") != std::string::npos)
        << Describe(r);
  }
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(record, &snap).ok());
  ASSERT_EQ(snap.resolutions.size(), 1u);
  EXPECT_EQ(snap.resolutions[0].liveness().boot_id(), HostBootId());
  EXPECT_FALSE(snap.resolutions[0].liveness_verdict().boot_unchecked());
}

// A boot id is read as the value it is, not as the bytes typed: this host's
// boot in capitals or with blanks around it is this host's boot; a value that
// is no boot id is a usage error naming the option, not "another boot".
TEST(LivenessBootCli, ABootIdIsReadInEitherCaseAndAValueThatIsNoneIsAUsageError) {
  std::string upper = HostBootText();
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const std::string& given : {upper, " " + HostBootText(), HostBootText() + " \n"}) {
    CommandResult r =
        Proctape({"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--boot-id", given});
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_TRUE(r.err.empty()) << Describe(r);
  }
  for (const std::string& given : std::vector<std::string>{
           "not-a-uuid", HostBootText().substr(1), HostBootText() + "0",
           "0000000-01111-4222-8333-444444444444", "g0000000-1111-4222-8333-444444444444"}) {
    CommandResult r =
        Proctape({"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--boot-id", given});
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("--boot-id"), std::string::npos) << Describe(r);
    EXPECT_NE(r.err.find("not a boot id"), std::string::npos) << Describe(r);
  }
}

TEST(LivenessBootCli, WithoutABootTheCheckRunsAndSaysSo) {
  TempDir dir("liveness-boot");
  CommandResult text = Proctape({"liveness", "--pid", SelfPid(), "--start", SelfStart()});
  EXPECT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_TRUE(StartsWith(text.out, "ALIVE: ")) << Describe(text);
  EXPECT_TRUE(StartsWith(text.err, "proctape: warning: the boot of pid " + SelfPid() +
                                       ", start tick " + SelfStart() + " is not known"))
      << Describe(text);
  EXPECT_TRUE(OneLine(text.err)) << Describe(text);
  const std::string record = dir.File("l.ptape");
  CommandResult json = Proctape(
      {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--json", "--record", record});
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  EXPECT_NE(json.out.find("\"boot_unchecked\":true"), std::string::npos) << Describe(json);
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(record, &snap).ok());
  ASSERT_EQ(snap.resolutions.size(), 1u);
  EXPECT_EQ(snap.resolutions[0].liveness().boot_id(), "");
  EXPECT_TRUE(snap.resolutions[0].liveness_verdict().boot_unchecked());
  // Its replay says the same, and reproduces.
  CommandResult replay = Proctape({"replay", record, "--json"});
  EXPECT_EQ(replay.exit_code, 0) << Describe(replay);
  EXPECT_NE(replay.out.find("\"boot_unchecked\":true"), std::string::npos) << Describe(replay);
}

TEST(LivenessBootCli, ARecordingWithoutOneResolvedIdentityIsAUsageError) {
  TempDir dir("liveness-boot");
  Snapshot s = test::MakeSnapshot({}, HostBootId());
  const std::string path = dir.File("none.ptape");
  std::string error;
  ASSERT_TRUE(WriteSnapshotFile(path, s, &error)) << error;
  CommandResult r = Proctape({"liveness", "--from-recording", path});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_NE(r.err.find("holds no RESOLVED resolution"), std::string::npos) << Describe(r);
  CommandResult both =
      Proctape({"liveness", "--from-recording", path, "--pid", SelfPid(), "--start", SelfStart()});
  EXPECT_EQ(both.exit_code, 2) << Describe(both);
  CommandResult neither = Proctape({"liveness", "--start", SelfStart()});
  EXPECT_EQ(neither.exit_code, 2) << Describe(neither);
  EXPECT_TRUE(StartsWith(neither.err,
                         "proctape: liveness: missing --pid PID (host pid, as "
                         "resolve printed it), or --from-recording FILE"))
      << Describe(neither);
}

}  // namespace
}  // namespace proctape::live
