// SPDX-License-Identifier: Apache-2.0
// ProcfsEvidence against the real /proc: listing bounds, bound+1 reads,
// errno mapping, exe identity through the magic link, zombies, the clock.
#include "capture/procfs_evidence.h"

#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

const std::string kSleepCmdline(
    "/bin/sleep\0"
    "120\0",
    15);

class ProcfsEvidenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Failure failure;
    evidence_ = ProcfsEvidence::Open("/proc", &failure);
    ASSERT_NE(evidence_, nullptr) << failure.message;
  }

  // A direct child running /bin/sleep 120, exec completed.
  std::unique_ptr<live::Child> StartSleep() {
    std::string error;
    auto child = live::Child::Start({"/bin/sleep", "120"}, &error);
    EXPECT_NE(child, nullptr) << error;
    if (child && !child->WaitForCmdline(kSleepCmdline, 5000)) {
      ADD_FAILURE() << "sleep " << child->pid() << " did not exec within 5 s";
      return nullptr;
    }
    return child;
  }

  std::unique_ptr<ProcfsEvidence> evidence_;
};

TEST_F(ProcfsEvidenceTest, OpenOfAMissingDirectoryFailsWithOneLine) {
  Failure failure;
  EXPECT_EQ(ProcfsEvidence::Open("/nonexistent-proctape-proc", &failure), nullptr);
  EXPECT_NE(failure.message.find("/nonexistent-proctape-proc"), std::string::npos)
      << failure.message;
  EXPECT_EQ(failure.message.find('\n'), std::string::npos) << failure.message;
  EXPECT_EQ(failure.sys_errno, ENOENT);
}

// A live source is the root of a procfs mount, checked once at Open: any
// other directory (tmpfs, a copy of /proc, a per-process directory of /proc)
// is refused, and says so, instead of being read as a host without processes.
TEST_F(ProcfsEvidenceTest, OpenRefusesWhatIsNotTheRootOfAProcfsMount) {
  for (const std::string& dir : {std::string("/tmp"), std::string("/"), std::string("/proc/self"),
                                 std::string("/proc/sys")}) {
    Failure failure;
    EXPECT_EQ(ProcfsEvidence::Open(dir, &failure), nullptr) << dir;
    EXPECT_EQ(failure.kind, FailureKind::kUsage) << dir;
    EXPECT_EQ(failure.message.rfind(dir + ": not the root of a procfs mount", 0), 0u)
        << failure.message;
    EXPECT_EQ(failure.message.find('\n'), std::string::npos) << failure.message;
  }
  Failure failure;
  EXPECT_NE(ProcfsEvidence::Open("/proc/", &failure), nullptr) << failure.message;
  EXPECT_EQ(ProcfsEvidence::Open("/nonexistent-proctape-proc", &failure), nullptr);
  EXPECT_EQ(failure.kind, FailureKind::kInternal);
}

TEST_F(ProcfsEvidenceTest, ListPidsHoldsOurOwnPidAndOnlyDigits) {
  ListResult list = evidence_->ListPids(65536);
  ASSERT_TRUE(list.ok()) << "errno " << list.err;
  EXPECT_FALSE(list.truncated);
  EXPECT_NE(std::find(list.names.begin(), list.names.end(), std::to_string(::getpid())),
            list.names.end());
  for (std::string_view name : list.names) {
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(name.find_first_not_of("0123456789"), std::string::npos) << name;
  }
}

TEST_F(ProcfsEvidenceTest, ListPidsRespectsTheBound) {
  ListResult one = evidence_->ListPids(1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one.names.size(), 1u);
  EXPECT_TRUE(one.truncated);

  ListResult none = evidence_->ListPids(0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none.names.empty());
  EXPECT_TRUE(none.truncated);

  // Exactly as many as exist is not truncated (a short-lived process may
  // come or go between the listings: allow a few tries).
  bool exact_seen = false;
  for (int i = 0; i < 20 && !exact_seen; ++i) {
    std::uint64_t n = evidence_->ListPids(65536).names.size();
    ListResult exact = evidence_->ListPids(n);
    exact_seen = exact.ok() && !exact.truncated && exact.names.size() == n;
  }
  EXPECT_TRUE(exact_seen);
}

// docs/resolver.md, "Retries, deadline and budget": the listing costs the
// directory entries getdents handed over (every one, numeric or not), and
// stops while it is read as soon as they pass the budget left or its clock
// passes the deadline: never the whole directory past either.
TEST_F(ProcfsEvidenceTest, ListingStopsAtTheBytesAndTheDeadlineItIsGiven) {
  ListResult all = evidence_->ListPidsWithin(ListLimits{65536});
  ASSERT_TRUE(all.ok());
  ASSERT_GT(all.names.size(), 2u);
  EXPECT_EQ(all.stopped, ListStop::kNone);
  // Every name, and "." and ".." and the non-numeric entries, with their
  // record headers (19 bytes each at least).
  std::uint64_t names = 0;
  for (std::string_view n : all.names) names += n.size();
  EXPECT_GT(all.bytes, names + 19 * all.names.size());

  ListResult bytes = evidence_->ListPidsWithin(ListLimits{65536, 200});
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes.stopped, ListStop::kBytes);
  EXPECT_GT(bytes.bytes, 200u);
  EXPECT_LT(bytes.bytes, 200u + 300u);  // the one entry that passed it (a name is < 256 bytes)
  EXPECT_LT(bytes.names.size(), all.names.size());
  EXPECT_FALSE(bytes.truncated);

  ListResult late = evidence_->ListPidsWithin(ListLimits{65536, UINT64_MAX, 0});
  ASSERT_TRUE(late.ok());
  EXPECT_EQ(late.stopped, ListStop::kDeadline);
  EXPECT_TRUE(late.names.empty());

  ListResult in_time =
      evidence_->ListPidsWithin(ListLimits{65536, UINT64_MAX, evidence_->NowNs() + 60'000'000'000});
  EXPECT_EQ(in_time.stopped, ListStop::kNone);
  EXPECT_GT(in_time.names.size(), 2u);
}

TEST_F(ProcfsEvidenceTest, ReadFileAtExactlyTheBoundIsWholeAndOneShortIsTruncated) {
  auto child = StartSleep();
  ASSERT_NE(child, nullptr);
  const std::int64_t pid = child->pid();

  ReadResult whole = evidence_->ReadFile(pid, ProcFile::kCmdline, 65536);
  ASSERT_TRUE(whole.ok()) << "errno " << whole.err;
  ASSERT_EQ(whole.data, kSleepCmdline);
  EXPECT_FALSE(whole.truncated);
  const std::uint64_t size = whole.data.size();

  ReadResult exact = evidence_->ReadFile(pid, ProcFile::kCmdline, size);
  ASSERT_TRUE(exact.ok());
  EXPECT_FALSE(exact.truncated);
  EXPECT_EQ(exact.data, kSleepCmdline);

  ReadResult short_by_one = evidence_->ReadFile(pid, ProcFile::kCmdline, size - 1);
  ASSERT_TRUE(short_by_one.ok());
  EXPECT_TRUE(short_by_one.truncated);
  EXPECT_EQ(short_by_one.data.size(), size - 1);
  EXPECT_EQ(short_by_one.data, kSleepCmdline.substr(0, size - 1));

  ReadResult zero = evidence_->ReadFile(pid, ProcFile::kCmdline, 0);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero.truncated);
  EXPECT_TRUE(zero.data.empty());

  // A large read after a small one: the reused buffer grows, nothing stale.
  ReadResult stat = evidence_->ReadFile(pid, ProcFile::kStat, 4096);
  ASSERT_TRUE(stat.ok());
  EXPECT_FALSE(stat.truncated);
  StatParse parsed = ParseStat(stat.data);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.fields->pid, pid);
  EXPECT_EQ(parsed.fields->ppid, ::getpid());
  EXPECT_EQ(parsed.fields->comm, "sleep");
}

// A bound is a limit, not an allocation size: any bound up to the largest
// reads the whole small file, and never throws.
TEST_F(ProcfsEvidenceTest, ReadFileWithAHugeBoundReadsTheWholeFile) {
  auto child = StartSleep();
  ASSERT_NE(child, nullptr);
  for (std::uint64_t bound : {std::uint64_t{1} << 40, UINT64_MAX - 1, UINT64_MAX}) {
    ReadResult r = evidence_->ReadFile(child->pid(), ProcFile::kCmdline, bound);
    ASSERT_TRUE(r.ok()) << "bound " << bound << ": errno " << r.err;
    EXPECT_EQ(r.data, kSleepCmdline) << "bound " << bound;
    EXPECT_FALSE(r.truncated) << "bound " << bound;
  }
}

// A cmdline of several pages: read whole, and cut exactly at bounds that
// fall inside a later chunk of the read.
TEST_F(ProcfsEvidenceTest, ReadFileOfSeveralPagesHonoursTheBoundExactly) {
  std::vector<std::string> argv = {"/bin/sleep", "120"};
  argv.resize(argv.size() + 6000, "0");  // GNU sleep sums its operands
  std::string expected;
  for (const std::string& a : argv) expected += a + '\0';
  ASSERT_GT(expected.size(), 12000u);
  std::string error;
  auto child = live::Child::Start(argv, &error);
  ASSERT_NE(child, nullptr) << error;
  ASSERT_TRUE(child->WaitForCmdline(expected, 5000));

  // A small read first, so that the reused buffer has to grow afterwards.
  EXPECT_TRUE(evidence_->ReadFile(child->pid(), ProcFile::kCmdline, 3).truncated);
  for (std::uint64_t bound : {UINT64_MAX, std::uint64_t{65536}, std::uint64_t{expected.size()}}) {
    ReadResult r = evidence_->ReadFile(child->pid(), ProcFile::kCmdline, bound);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.truncated) << bound;
    EXPECT_EQ(r.data, expected) << bound;
  }
  for (std::uint64_t bound : {expected.size() - 1, std::uint64_t{4096}, std::uint64_t{9000}}) {
    ReadResult r = evidence_->ReadFile(child->pid(), ProcFile::kCmdline, bound);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.truncated) << bound;
    EXPECT_EQ(r.data, expected.substr(0, bound)) << bound;
  }
}

TEST_F(ProcfsEvidenceTest, ReadFileOfAMissingPidIsEnoent) {
  for (ProcFile file :
       {ProcFile::kStat, ProcFile::kCmdline, ProcFile::kEnviron, ProcFile::kStatus}) {
    ReadResult r = evidence_->ReadFile(999999999, file, 4096);
    EXPECT_EQ(r.err, ENOENT) << ProcFileName(file);
    EXPECT_TRUE(r.data.empty());
    EXPECT_FALSE(r.truncated);
  }
  EXPECT_EQ(evidence_->ExeIdentity(999999999).err, ENOENT);
}

TEST_F(ProcfsEvidenceTest, ExeIdentityOfSleepIsThatOfBinSleepAndUsrBinSleep) {
  auto child = StartSleep();
  ASSERT_NE(child, nullptr);
  Identity exe = evidence_->ExeIdentity(child->pid());
  ASSERT_TRUE(exe.ok()) << "errno " << exe.err;
  Identity bin = evidence_->PathIdentity("/bin/sleep");
  Identity usr_bin = evidence_->PathIdentity("/usr/bin/sleep");
  ASSERT_TRUE(bin.ok());
  ASSERT_TRUE(usr_bin.ok());
  EXPECT_EQ(exe, bin);
  EXPECT_EQ(exe, usr_bin);  // /bin is a link to usr/bin: one inode
  EXPECT_FALSE(exe == evidence_->PathIdentity("/bin/sh"));
  EXPECT_EQ(evidence_->PathIdentity("/nonexistent/proctape/sleep").err, ENOENT);
}

TEST_F(ProcfsEvidenceTest, ZombieHasNoExeEmptyCmdlineAndStateZ) {
  std::string error;
  auto zombie = live::Child::StartZombie(&error);
  ASSERT_NE(zombie, nullptr) << error;
  const std::int64_t pid = zombie->pid();

  EXPECT_EQ(evidence_->ExeIdentity(pid).err, ENOENT);

  ReadResult stat = evidence_->ReadFile(pid, ProcFile::kStat, 4096);
  ASSERT_TRUE(stat.ok()) << "errno " << stat.err;
  StatParse parsed = ParseStat(stat.data);
  ASSERT_TRUE(parsed.ok()) << parsed.error;
  EXPECT_EQ(parsed.fields->state, 'Z');
  EXPECT_EQ(parsed.fields->pid, pid);

  ReadResult cmdline = evidence_->ReadFile(pid, ProcFile::kCmdline, 4096);
  ASSERT_TRUE(cmdline.ok()) << "errno " << cmdline.err;
  EXPECT_TRUE(cmdline.data.empty());
  EXPECT_FALSE(cmdline.truncated);

  ReadResult environ = evidence_->ReadFile(pid, ProcFile::kEnviron, 4096);
  EXPECT_FALSE(environ.ok());
  if (::geteuid() == 0) {
    EXPECT_EQ(environ.err, ESRCH);
  }
}

TEST_F(ProcfsEvidenceTest, NowNsIsMonotonicClock) {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  std::int64_t before = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  std::int64_t prev = evidence_->NowNs();
  EXPECT_GE(prev, before);
  for (int i = 0; i < 1000; ++i) {
    std::int64_t now = evidence_->NowNs();
    ASSERT_GE(now, prev);
    prev = now;
  }
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  EXPECT_LE(prev, static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec);
}

TEST_F(ProcfsEvidenceTest, SleepUntilWaitsAtLeastUntilTheTarget) {
  for (std::int64_t delay_ns : {1'000'000LL, 20'000'000LL, 50'000'000LL}) {
    std::int64_t target = evidence_->NowNs() + delay_ns;
    evidence_->SleepUntil(target);
    std::int64_t now = evidence_->NowNs();
    EXPECT_GE(now, target);
    EXPECT_LT(now, target + 2'000'000'000LL);  // and not absurdly long
  }
  // A target in the past returns at once.
  std::int64_t start = evidence_->NowNs();
  evidence_->SleepUntil(start - 1'000'000'000);
  EXPECT_LT(evidence_->NowNs() - start, 500'000'000);
}

}  // namespace
}  // namespace proctape
