// SPDX-License-Identifier: Apache-2.0
// The resolver's rules that `docs/resolver.md`, "One attempt" and "Retries,
// deadline and budget" state beyond the eight steps, against the
// in-memory host of fake_host.h: the root's parent re-read (step 7), the
// exact cmdline bytes (step 5), the /proc listing charged like every read,
// and a dead root being a missing root. A candidate whose environ reads empty
// because it exited, and the diagnosis a deadline keeps, are in
// resolver_diagnosis_test.cc. Each test quotes the rule it proves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "core/resolver.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// ---------------------------------------------------------------------------
// Step 7: the root's parent pid is re-read too

// `docs/resolver.md`, "The eight steps", step 7: after the inspection, stat
// is re-read for the match and every ancestor up to the root; every pid,
// parent pid and start time must be those of the snapshot. The root is one
// of those ancestors: its parent (the user's shell) exits between the
// snapshot and the re-read, and the root is reparented to init.
TEST(ResolverRootReRead, RootReparentedBeforeItsReReadIsAncestryChanged) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) {
      h.Remove(kUserShell);
      h.AddProcess(kAppServer, 1, kAppServerStart, "codex", {"codex", "app-server"}, {"HOME=/root"},
                   Identity{0, 0x803, 500});
    }
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kAncestryChanged) << v.detail;
  EXPECT_EQ(v.subject_pid, kAppServer);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kStat));
  EXPECT_EQ(v.attempts, 1u);
  EXPECT_EQ(v.pid, 0);
}

// The same rule on the unchanged host: the root's re-read parent equals the
// snapshot's, and the sleep resolves (the check is of the root's own parent,
// not of whether that parent is still listed).
TEST(ResolverRootReRead, RootWithItsSnapshotParentResolves) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) h.Remove(kMcpServer);
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
}

// ---------------------------------------------------------------------------
// Step 5: the exact argv is the exact cmdline bytes

// `docs/resolver.md`, "The eight steps", step 5: a match has argv exactly
// ["/bin/sleep", "120"], compared byte for byte (no trimming, no
// normalisation). The kernel writes
// argv as NUL-terminated strings, so the cmdline of that argv is
// "/bin/sleep\0" "120\0", byte for byte: the same bytes without the final
// NUL are not that argv (a process that rewrote its argument area), and are
// never a match; its environ is not even read.
TEST(ResolverExactArgv, CmdlineWithoutItsFinalNulIsNotAMatch) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kCmdline,
               std::string("/bin/sleep\0"
                           "120",
                           14));
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(host.Reads(kSleep, ProcFile::kEnviron), 0);
}

// The other way: the expected argv joined with NUL and NUL-terminated is a
// match, and resolves.
TEST(ResolverExactArgv, CmdlineOfTheArgvNulTerminatedIsAMatch) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kCmdline,
               std::string("/bin/sleep\0"
                           "120\0",
                           15));
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
  EXPECT_EQ(host.Reads(kSleep, ProcFile::kEnviron), 1);
}

// An expected argv element holding a NUL can never be one element of a real
// argv, and its joined bytes would equal those of another argv
// ({"/bin/sleep\0120"} joins to the cmdline of {"/bin/sleep", "120"}): the
// request is refused before anything is read.
TEST(ResolverExactArgv, ExpectedArgvElementHoldingNulIsAnInvalidRequest) {
  Request r = FakeHost::TypicalRequest();
  r.argv = {
      std::string("/bin/sleep\0"
                  "120",
                  14)};
  FakeHost host;
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kInvalidRequest) << v.detail;
  EXPECT_EQ(host.calls, 0u);
}

// An empty argv element is a valid request (`docs/resolver.md`, "The eight
// steps", step 5 compares the NUL-delimited cmdline byte for byte, no
// trimming, no normalisation; `exec -a
// ''` makes one): the request words pass CheckRequestWords, the CLI's check
// too, and match only the process whose cmdline holds it.
TEST(ResolverExactArgv, AnEmptyArgvElementIsValidAndMatchedExactly) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kCmdline,
               std::string("\0"
                           "120\0",
                           5));
  Request r = FakeHost::TypicalRequest();
  r.argv = {"", "120"};
  EXPECT_EQ(CheckRequestWords(&r.token, &r.token_var, &r.argv, r.bounds.cmdline_bytes).field, "");
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
}

// ---------------------------------------------------------------------------
// The /proc listing is part of the scan

// The bytes a listing of `host` costs: the bytes of the names it returns.
std::uint64_t ListingBytes(FakeHost& host) {
  std::uint64_t n = 0;
  for (std::string_view name : host.ListPids(UINT64_MAX).names) n += name.size();
  return n;
}

// `docs/resolver.md`, "Retries, deadline and budget": one cumulative byte
// budget, checked while the listing is read, after it and after every
// read. The listing is the first read
// of every attempt: the names it returns count, and a budget smaller than
// they are ends the resolution before any stat is read.
TEST(ResolverListing, ListingBytesCountAgainstTheByteBudget) {
  FakeHost probe;
  const std::uint64_t listing = ListingBytes(probe);
  ASSERT_GT(listing, 0u);

  Request r = FakeHost::TypicalRequest();
  r.bounds.byte_budget = listing - 1;
  FakeHost host;
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kByteBudget) << v.detail;
  EXPECT_EQ(v.bytes_read, listing);
  EXPECT_EQ(host.ReadsOf(ProcFile::kStat), 0);

  // At exactly the listing's bytes the listing passes; the first stat does not.
  r.bounds.byte_budget = listing;
  FakeHost at;
  Verdict first_stat = Resolve(at, r);
  EXPECT_EQ(first_stat.status, Status::kByteBudget) << first_stat.detail;
  EXPECT_EQ(at.ReadsOf(ProcFile::kStat), 1);
}

// The same host listed with two more entries that vanish before their stat
// (no stat bytes): the verdict's bytes_read grows by exactly their names.
TEST(ResolverListing, ListedNamesCountInBytesRead) {
  FakeHost plain;
  Verdict a = Resolve(plain, FakeHost::TypicalRequest());
  ASSERT_EQ(a.status, Status::kResolved) << a.detail;

  FakeHost longer;
  const std::vector<std::string_view> names = longer.ListPids(UINT64_MAX).names;
  longer.listing = std::vector<std::string>(names.begin(), names.end());
  longer.listing->push_back("70001");
  longer.listing->push_back("70002");
  Verdict b = Resolve(longer, FakeHost::TypicalRequest());
  ASSERT_EQ(b.status, Status::kResolved) << b.detail;
  EXPECT_EQ(b.bytes_read, a.bytes_read + 10);
}

// `docs/resolver.md`, "Retries, deadline and budget": the deadline is
// checked while the listing is read: a deadline that passes
// while the directory is read stops the listing there (at its first name
// read after it: "1"), and no stat is read.
TEST(ResolverListing, DeadlinePassingDuringTheListingEndsBeforeAnyStat) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "list") h.now_ns += 6'000'000'000;
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDeadline) << v.detail;
  EXPECT_EQ(host.ReadsOf(ProcFile::kStat), 0);
  EXPECT_EQ(v.bytes_read, 1u);
  EXPECT_LT(v.bytes_read, ListingBytes(host));
}

// docs/resolver.md, "Retries, deadline and budget": the budget is checked
// while the listing is read, not after: a /proc of thousands of entries and
// a budget of 40 bytes stops the listing at the entry that passes it, and
// the resolution has read (and charged) that much only.
TEST(ResolverListing, TheListingStopsAtTheBudgetWhileItIsRead) {
  FakeHost host;
  const std::vector<std::string_view> names = host.ListPids(UINT64_MAX).names;
  host.listing = std::vector<std::string>(names.begin(), names.end());
  for (int pid = 20000; pid < 22000; ++pid) host.listing->push_back(std::to_string(pid));
  Request r = FakeHost::TypicalRequest();
  r.bounds.byte_budget = 40;
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kByteBudget) << v.detail;
  EXPECT_GT(v.bytes_read, 40u);
  EXPECT_LE(v.bytes_read, 40u + 5u);  // the name that passed it, 5 bytes at most
  EXPECT_EQ(host.ReadsOf(ProcFile::kStat), 0);
}

// The deadline the same way: a listing that would take 10 s (1 ms an entry)
// stops when it passes the 5 s deadline, and its later entries are not read.
TEST(ResolverListing, TheListingStopsAtTheDeadlineWhileItIsRead) {
  FakeHost host;
  host.list_entry_cost_ns = 1'000'000;
  const std::vector<std::string_view> names = host.ListPids(UINT64_MAX).names;
  host.listing = std::vector<std::string>(names.begin(), names.end());
  for (int pid = 20000; pid < 30000; ++pid) host.listing->push_back(std::to_string(pid));
  const std::int64_t start = host.now_ns;
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDeadline) << v.detail;
  EXPECT_LE(host.now_ns - start, 5'000'000'000 + 2'000'000);  // stopped at the deadline
  EXPECT_LT(v.bytes_read, 5u * 5001u);                        // about 5,000 names read
  EXPECT_EQ(host.ReadsOf(ProcFile::kStat), 0);
}

// A read costs what it read: a cmdline one byte over its bound read that
// byte (how a truncated read is told), and the budget is charged it.
TEST(ResolverListing, ATruncatedReadCostsTheBytePastItsBound) {
  auto bytes_read = [](std::size_t cmdline_size) {
    FakeHost host;
    host.SetFile(kMcpServer, ProcFile::kCmdline, std::string(cmdline_size, 'a'));
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kResolved) << v.detail;
    return v.bytes_read;
  };
  EXPECT_EQ(bytes_read(65537), bytes_read(65536) + 1);
}

// ---------------------------------------------------------------------------
// A dead root is a missing root

// `docs/resolver.md`, "One attempt", step 2: a missing root stops the
// resolution (MISSING_ROOT). A
// root that died (a zombie not yet reaped, state Z; or X) with its start time
// unchanged is missing: its children are reparented away, so waiting out the
// deadline would only end in NO_MATCH five seconds later. It fails at once.
TEST(ResolverDeadRoot, ADeadRootIsMissingAtOnce) {
  for (char state : {'Z', 'X', 'x'}) {
    FakeHost host;
    host.AddProcess(kAppServer, kUserShell, kAppServerStart, "codex", {}, {},
                    Identity{ENOENT, 0, 0}, state);
    host.Remove(kMcpServer);
    host.Remove(kBwrap);
    host.Remove(kSandboxInit);
    host.Remove(kSandboxShell);
    host.Remove(kSleep);
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kMissingRoot) << state << ": " << v.detail;
    EXPECT_EQ(v.attempts, 1u) << state;
    EXPECT_EQ(v.subject_pid, kAppServer);
    EXPECT_NE(v.detail.find(std::string("is dead (state ") + state + ")"), std::string::npos)
        << v.detail;
  }
}

// The root dies between the snapshot and its re-read (step 7): the re-read
// shows Z, and the resolution fails closed as MISSING_ROOT, not RESOLVED.
TEST(ResolverDeadRoot, ARootThatDiesBeforeItsReReadIsMissing) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) {
      h.AddProcess(kAppServer, kUserShell, kAppServerStart, "codex", {}, {}, Identity{ENOENT, 0, 0},
                   'Z');
    }
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kMissingRoot) << v.detail;
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kStat));
  EXPECT_NE(v.detail.find("died during inspection (state Z)"), std::string::npos) << v.detail;
  EXPECT_EQ(v.pid, 0);
}

}  // namespace
}  // namespace proctape