// SPDX-License-Identifier: Apache-2.0
// `proctape diff` (analyze/diff.h) on hand-built frames: every kind of
// change, identity by (pid, start tick) only, hostile names, and frames of
// different boots.
#include "analyze/diff.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "views_fixture.h"

namespace proctape {
namespace {

using Change = v1::DiffReport::Change;
using test::MakeFrame;
using test::MakeSnapshot;
using test::Proc;

std::vector<Proc> Before() {
  return {
      Proc(1).Comm("init").Ppid(0).Start(1).Argv({"/sbin/init"}),
      Proc(50).Comm("app-server").Start(500).Argv({"app-server"}),
      Proc(60).Comm("unshare").Ppid(50).Start(600).Argv({"unshare"}),
      Proc(61).Comm("sh").Ppid(60).Start(601).Argv({"sh", "-c", "x"}),
      Proc(70).Start(700),
      Proc(80).Comm("cron").Start(800).Argv({"cron"}),
  };
}

v1::DiffReport Diff(const Snapshot& a, std::size_t fa, const Snapshot& b, std::size_t fb) {
  Failure failure;
  std::optional<v1::DiffReport> r = BuildDiff({&a, "a.ptape", fa}, {&b, "b.ptape", fb}, &failure);
  EXPECT_TRUE(r.has_value()) << failure.message;
  return r ? *r : v1::DiffReport();
}

std::vector<Change::Kind> Kinds(const v1::DiffReport& r) {
  std::vector<Change::Kind> out;
  for (const Change& c : r.changes()) out.push_back(c.kind());
  return out;
}

TEST(DiffTest, IdenticalFramesHaveNoChanges) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Before()), MakeFrame(1, Before())});
  v1::DiffReport r = Diff(s, 0, s, 1);
  EXPECT_EQ(r.changes_size(), 0);
  EXPECT_EQ(r.unchanged(), 6u);
  EXPECT_FALSE(r.different_boots());
  EXPECT_EQ(r.warnings_size(), 0);
}

TEST(DiffTest, EveryKindOfChangeByIdentity) {
  std::vector<Proc> after = Before();
  after.erase(after.begin() + 2);         // 60 (unshare) exited...
  after[2].ppid = 1;                      // ...so 61 was reparented to init
  after[2].argv = {"/bin/sleep", "120"};  // and it exec'd
  after[2].exe_ino = 12;                  // another executable
  after[3].start = 705;                   // pid 70 reused by another process
  after.push_back(Proc(90).Start(900));   // a new process
  Snapshot s = MakeSnapshot({MakeFrame(0, Before()), MakeFrame(1, after)});
  v1::DiffReport r = Diff(s, 0, s, 1);
  EXPECT_EQ(Kinds(r), (std::vector<Change::Kind>{Change::REUSED, Change::EXITED, Change::APPEARED,
                                                 Change::REPARENTED, Change::ARGV_CHANGED,
                                                 Change::EXE_CHANGED}));
  EXPECT_EQ(r.changes(0).pid(), 70);
  EXPECT_EQ(r.changes(0).before().start_ticks(), 700u);
  EXPECT_EQ(r.changes(0).after().start_ticks(), 705u);
  EXPECT_EQ(r.changes(1).pid(), 60);
  EXPECT_FALSE(r.changes(1).has_after());
  EXPECT_EQ(r.changes(2).pid(), 90);
  EXPECT_FALSE(r.changes(2).has_before());
  EXPECT_EQ(r.changes(3).parent_before(), "60@600 \"unshare\"");
  EXPECT_EQ(r.changes(3).parent_after(), "1@1 \"init\"");
  EXPECT_EQ(r.unchanged(), 3u);
  EXPECT_EQ(r.reused(), 1u);
  EXPECT_EQ(r.exited(), 1u);
  EXPECT_EQ(r.appeared(), 1u);
  EXPECT_EQ(r.reparented(), 1u);
  EXPECT_EQ(r.argv_changed(), 1u);
  EXPECT_EQ(r.exe_changed(), 1u);
  EXPECT_EQ(RenderDiff(r),
            "a.ptape frame 0 -> b.ptape frame 1, 6 -> 6 processes\n"
            "reused       70: 70@700 ended, 70@705 took its pid\n"
            "  - 70 \"sleep\" S ppid=1 pgrp=70 sid=70 start=700 (7.00s) uid=1000 nspid=70 "
            "exe=8:11 argv=\"/bin/sleep\" \"120\"\n"
            "  + 70 \"sleep\" S ppid=1 pgrp=70 sid=70 start=705 (7.05s) uid=1000 nspid=70 "
            "exe=8:11 argv=\"/bin/sleep\" \"120\"\n"
            "exited       60 \"unshare\" S ppid=50 pgrp=60 sid=60 start=600 (6.00s) uid=1000 "
            "nspid=60 exe=8:11 argv=\"unshare\"\n"
            "appeared     90 \"sleep\" S ppid=1 pgrp=90 sid=90 start=900 (9.00s) uid=1000 "
            "nspid=90 exe=8:11 argv=\"/bin/sleep\" \"120\"\n"
            "reparented   61@601 \"sh\": parent 60@600 \"unshare\" -> 1@1 \"init\"\n"
            "argv         61@601 \"sh\": \"sh\" \"-c\" \"x\" -> \"/bin/sleep\" \"120\"\n"
            "exe          61@601 \"sh\": 8:11 -> 8:12\n"
            "summary: 1 reused, 1 exited, 1 appeared, 1 reparented, 1 argv changed, 1 exe "
            "changed, 0 without identity; 3 unchanged\n");
}

TEST(DiffTest, ANameNeverMakesOrUnmakesAnIdentity) {
  std::vector<Proc> after = Before();
  after[4].comm = "renamed";  // same (pid, start): the same process, whatever its name
  after[5].comm = "cron";
  after[5].start = 801;  // same name and pid, another start: another process
  Snapshot s = MakeSnapshot({MakeFrame(0, Before()), MakeFrame(1, after)});
  v1::DiffReport r = Diff(s, 0, s, 1);
  EXPECT_EQ(Kinds(r), (std::vector<Change::Kind>{Change::REUSED}));
  EXPECT_EQ(r.changes(0).pid(), 80);
  EXPECT_EQ(r.unchanged(), 5u);
}

TEST(DiffTest, HostileNamesAreEscapedOnOneLine) {
  std::vector<Proc> after = Before();
  after.push_back(Proc(91)
                      .Comm("x) Z 1 1 1\nx")
                      .Start(901)
                      .Argv({"a\nappeared     1 \"init\"", "\x1b]0;owned\x07"}));
  Snapshot s = MakeSnapshot({MakeFrame(0, Before()), MakeFrame(1, after)});
  std::string out = RenderDiff(Diff(s, 0, s, 1));
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 3) << out;
  EXPECT_NE(out.find("appeared     91 \"x) Z 1 1 1\\x0ax\" S ppid=1 "), std::string::npos) << out;
  EXPECT_NE(out.find("argv=\"a\\x0aappeared     1 \\x22init\\x22\" \"\\x1b]0;owned\\x07\"\n"),
            std::string::npos)
      << out;
}

TEST(DiffTest, RecordsWithoutIdentityAreNotCompared) {
  v1::Frame a = MakeFrame(0, Before());
  v1::Frame b = MakeFrame(1, Before());
  b.mutable_processes(4)->mutable_stat()->set_err(ESRCH);  // pid 70 vanished mid-scan
  b.mutable_processes(4)->mutable_stat()->clear_data();
  Snapshot s = MakeSnapshot({a, b});
  v1::DiffReport r = Diff(s, 0, s, 1);
  ASSERT_EQ(Kinds(r), (std::vector<Change::Kind>{Change::UNIDENTIFIED}));
  EXPECT_EQ(r.changes(0).pid(), 70);
  EXPECT_TRUE(r.changes(0).before().identified());
  EXPECT_FALSE(r.changes(0).after().identified());
  std::string out = RenderDiff(r);
  EXPECT_NE(out.find("unidentified 70: A 70@700 \"sleep\"; B no identity (stat unreadable: "),
            std::string::npos)
      << out;
}

TEST(DiffTest, FramesOfDifferentBootsAreFlagged) {
  Snapshot a = MakeSnapshot({MakeFrame(0, Before())}, "boot-one\n");
  Snapshot b = MakeSnapshot({MakeFrame(0, Before())}, "boot-two\n");
  v1::DiffReport r = Diff(a, 0, b, 0);
  EXPECT_TRUE(r.different_boots());
  ASSERT_EQ(r.warnings_size(), 1);
  EXPECT_EQ(r.warnings(0),
            "a.ptape (boot boot-one) and b.ptape (boot boot-two) are of different boots: start "
            "ticks count from each boot, so (pid, start tick) identities cannot be compared");
  Snapshot unknown = MakeSnapshot({MakeFrame(0, Before())}, "");
  r = Diff(a, 0, unknown, 0);
  EXPECT_FALSE(r.different_boots());
  ASSERT_EQ(r.warnings_size(), 1);
  EXPECT_NE(r.warnings(0).find("the boot id of b.ptape is unknown"), std::string::npos);
}

TEST(DiffTest, AMissingFrameIsAnError) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Before())});
  Failure failure;
  EXPECT_FALSE(BuildDiff({&s, "a.ptape", 0}, {&s, "a.ptape", 3}, &failure).has_value());
  EXPECT_EQ(failure.message, "--frame 3: a.ptape has 1 frame (0)");
  EXPECT_EQ(failure.kind, FailureKind::kUsage);
}

TEST(DiffTest, OneFileHeadingNamesItOnce) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Before()), MakeFrame(1, Before())});
  Failure failure;
  std::optional<v1::DiffReport> r = BuildDiff({&s, "f.ptape", 0}, {&s, "f.ptape", 1}, &failure);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(RenderDiff(*r),
            "f.ptape: frame 0 -> frame 1, 6 -> 6 processes\n"
            "summary: 0 reused, 0 exited, 0 appeared, 0 reparented, 0 argv changed, 0 exe "
            "changed, 0 without identity; 6 unchanged\n");
}

// Scope: a `capture --root 50` frame holds 50 and its descendants only. The
// processes of a whole-host frame that are not beneath 50 are outside its
// scope, never "exited"; one beneath 50 that is gone is exited.
std::vector<Proc> Subtree50(const std::vector<Proc>& procs) {
  std::vector<Proc> out;
  for (const Proc& p : procs) {
    if (p.pid == 50 || p.pid == 60 || p.pid == 61) out.push_back(p);
  }
  return out;
}

TEST(DiffScope, ProcessesOutsideARootCaptureAreOutOfScopeNotExited) {
  Snapshot host = MakeSnapshot({MakeFrame(0, Before())});
  std::vector<Proc> sub = Subtree50(Before());
  sub.pop_back();  // 61 (sh, beneath 50) exited
  Snapshot root = MakeSnapshot({MakeFrame(0, sub)});
  root.header.set_scope_root_pid(50);
  v1::DiffReport r = Diff(host, 0, root, 0);
  EXPECT_EQ(Kinds(r), (std::vector<Change::Kind>{Change::EXITED, Change::OUT_OF_SCOPE,
                                                 Change::OUT_OF_SCOPE, Change::OUT_OF_SCOPE}));
  EXPECT_EQ(r.changes(0).pid(), 61);
  EXPECT_EQ(r.changes(1).pid(), 1);
  EXPECT_EQ(r.changes(2).pid(), 70);
  EXPECT_EQ(r.changes(3).pid(), 80);
  EXPECT_EQ(r.changes(3).scope(),
            "not in B: it holds only pid 50 and its descendants, and this process is not "
            "beneath it");
  EXPECT_EQ(r.exited(), 1u);
  EXPECT_EQ(r.out_of_scope(), 3u);
  EXPECT_EQ(r.scope_a(), "the whole host");
  EXPECT_EQ(r.scope_b(), "pid 50 and its descendants");
  ASSERT_EQ(r.warnings_size(), 1);
  EXPECT_EQ(r.warnings(0),
            "A holds the whole host; B holds pid 50 and its descendants: a process absent from "
            "a frame that could not hold it is outside its scope, not exited or appeared");
  const std::string all = RenderDiff(r, true);
  EXPECT_NE(all.find("scope: A holds the whole host; B holds pid 50 and its descendants\n"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("outside B    80 "), std::string::npos) << all;
  EXPECT_EQ(all.find("exited       80"), std::string::npos) << all;
  EXPECT_NE(all.find("; 3 outside the other frame's scope\n"), std::string::npos) << all;
  // By default one line says how many, and why; the exits are still listed.
  const std::string text = RenderDiff(r);
  EXPECT_EQ(text.find("outside B    80 "), std::string::npos) << text;
  EXPECT_NE(text.find("\noutside B    3 processes of A: not in B: it holds only pid 50 and its "
                      "descendants, and this process is not beneath it (--all lists them)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nexited       61 "), std::string::npos) << text;

  // The other way round: the host's processes did not "appear"; a new child
  // of 50 did.
  std::vector<Proc> grown = Before();
  grown.push_back(Proc(95).Ppid(61).Start(950).Comm("sleep"));
  Snapshot later = MakeSnapshot({MakeFrame(0, grown)});
  r = Diff(root, 0, later, 0);
  int appeared = 0, outside = 0;
  for (const Change& c : r.changes()) {
    if (c.kind() == Change::APPEARED) {
      ++appeared;
      EXPECT_TRUE(c.pid() == 61 || c.pid() == 95) << c.pid();
    }
    if (c.kind() == Change::OUT_OF_SCOPE) {
      ++outside;
      EXPECT_FALSE(c.has_before());
      EXPECT_EQ(c.scope().rfind("not in A: ", 0), 0u) << c.scope();
    }
  }
  EXPECT_EQ(appeared, 2);  // 61 (absent from the root frame, beneath 50) and 95
  EXPECT_EQ(outside, 3);   // 1, 70, 80
}

// Both frames of one `capture --root 50` watch: 60 exits, and its child 61,
// orphaned, is reparented out of the subtree: 61 is not "exited" (it may be
// alive), 60 is. One beneath a parent still there (62 under 50) is exited.
TEST(DiffScope, AChildOrphanedOutOfTheSubtreeIsOutOfScopeNotExited) {
  std::vector<Proc> before = Subtree50(Before());
  before.push_back(Proc(62).Ppid(50).Start(620).Comm("sleep"));
  Snapshot a = MakeSnapshot({MakeFrame(0, before)});
  a.header.set_scope_root_pid(50);
  std::vector<Proc> after;
  for (const Proc& p : Subtree50(Before())) {
    if (p.pid == 50) after.push_back(p);  // 60 exited, 61 left with it; 62 exited
  }
  Snapshot b = MakeSnapshot({MakeFrame(0, after)});
  b.header.set_scope_root_pid(50);
  v1::DiffReport r = Diff(a, 0, b, 0);
  std::map<std::int64_t, Change::Kind> kinds;
  for (const Change& c : r.changes()) kinds[c.pid()] = c.kind();
  EXPECT_EQ(kinds[60], Change::EXITED);
  EXPECT_EQ(kinds[62], Change::EXITED);
  ASSERT_EQ(kinds[61], Change::OUT_OF_SCOPE);
  for (const Change& c : r.changes()) {
    if (c.pid() != 61) continue;
    EXPECT_EQ(c.scope(),
              "not in B: it holds only pid 50 and its descendants, and this process's ancestor "
              "60 is gone from it: orphaned, the process left the subtree, alive or not");
  }
  EXPECT_EQ(r.warnings_size(), 0);  // one scope: each line says why
}

// A frame cut by a bound holds a prefix of the listing: what it lacks may
// simply not have been reached.
TEST(DiffScope, AScanCutByABoundCoversNothingItLacks) {
  Snapshot a = MakeSnapshot({MakeFrame(0, Before())});
  const std::vector<Proc> all = Before();
  std::vector<Proc> prefix(all.begin(), all.begin() + 3);
  v1::Frame cut = MakeFrame(0, prefix);
  cut.set_cut_by_bounds(true);
  cut.set_cut_reason("max-processes");
  Snapshot b = MakeSnapshot({cut});
  v1::DiffReport r = Diff(a, 0, b, 0);
  EXPECT_EQ(r.exited(), 0u);
  EXPECT_EQ(r.out_of_scope(), 3u);
  EXPECT_EQ(r.scope_b(), "the whole host (scan cut: max-processes)");
  EXPECT_EQ(r.changes(0).scope(),
            "not in B: the scan was cut by max-processes and may not have reached it");
  EXPECT_EQ(r.warnings_size(), 1);
}

// Files written before Header.scope_root_pid existed say `--root` only in
// their command line.
TEST(DiffScope, AnOlderRootCaptureIsKnownByItsCommandLine) {
  Snapshot host = MakeSnapshot({MakeFrame(0, Before())});
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"proctape", "capture", "--root", "50", "-o", "x.ptape"},
        std::vector<std::string>{"proctape", "capture", "--root=50"}}) {
    Snapshot root = MakeSnapshot({MakeFrame(0, Subtree50(Before()))});
    root.header.clear_command_line();
    for (const std::string& a : args) root.header.add_command_line(a);
    v1::DiffReport r = Diff(host, 0, root, 0);
    EXPECT_EQ(r.exited(), 0u) << args.back();
    EXPECT_EQ(r.out_of_scope(), 3u) << args.back();
  }
}

// Two captures of the same scope compare as before: no warning, no line.
TEST(DiffScope, EqualWholeHostScopesAddNothing) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Before()), MakeFrame(1, Before())});
  v1::DiffReport r = Diff(s, 0, s, 1);
  EXPECT_EQ(r.warnings_size(), 0);
  EXPECT_EQ(RenderDiff(r).find("scope:"), std::string::npos);
}

}  // namespace
}  // namespace proctape
