// SPDX-License-Identifier: Apache-2.0
// explore/events.h and explore/host_model.h on a hand-made frame: each kernel
// event changes exactly the bytes the kernel was seen to change.
#include <gtest/gtest.h>

#include <cerrno>

#include "core/memory_evidence.h"
#include "explore/events.h"
#include "explore/host_model.h"
#include "tests/unit/explore_fixture.h"

namespace proctape::explore {
namespace {

using test::ExploreHost;

TEST(ExploreEvents, ExitMakesAZombieAndReparentsItsChildrenInStatAndStatus) {
  ExploreHost h;
  HostModel m = h.model;
  std::int64_t clock = 0;
  ASSERT_TRUE(Apply({EventKind::kExit, ExploreHost::kShell}, h.Context(), &m, &clock));
  std::optional<StatFields> s = m.Stat(ExploreHost::kShell);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state, 'Z');
  EXPECT_EQ(s->start_ticks, ExploreHost::kShellStart);  // a zombie keeps its start tick
  const ModelProcess* p = m.Find(ExploreHost::kShell);
  EXPECT_EQ(p->cmdline->data, "");
  EXPECT_EQ(p->environ->err, ESRCH);
  EXPECT_EQ(p->exe->err, ENOENT);
  EXPECT_NE(p->status->data.find("State:\tZ (zombie)\n"), std::string::npos);
  // Its child, the sleep, now has init as its parent, in both files.
  EXPECT_EQ(m.Stat(ExploreHost::kSleep)->ppid, 1);
  EXPECT_NE(m.Find(ExploreHost::kSleep)->status->data.find("PPid:\t1\n"), std::string::npos);
  // Exiting twice cannot happen; the hash moved.
  EXPECT_FALSE(Apply({EventKind::kExit, ExploreHost::kShell}, h.Context(), &m, &clock));
  EXPECT_NE(m.hash(), h.model.hash());
}

TEST(ExploreEvents, GoneRemovesTheEntryAndReparents) {
  ExploreHost h;
  HostModel m = h.model;
  std::int64_t clock = 0;
  ASSERT_TRUE(Apply({EventKind::kGone, ExploreHost::kShell}, h.Context(), &m, &clock));
  EXPECT_EQ(m.Find(ExploreHost::kShell), nullptr);
  EXPECT_EQ(std::count(m.listing().begin(), m.listing().end(), ExploreHost::kShell), 0);
  EXPECT_EQ(m.Stat(ExploreHost::kSleep)->ppid, 1);
}

TEST(ExploreEvents, PidReuseStartsLaterWithTheKindsArgvTokenAndExe) {
  ExploreHost h;
  const EventContext& ctx = h.Context();
  for (EventKind kind :
       {EventKind::kReuseUnrelated, EventKind::kReuseArgv, EventKind::kReuseToken}) {
    HostModel m = h.model;
    std::int64_t clock = 0;
    ASSERT_TRUE(Apply({kind, ExploreHost::kSleep}, ctx, &m, &clock)) << KindName(kind);
    std::optional<StatFields> s = m.Stat(ExploreHost::kSleep);
    ASSERT_TRUE(s);
    EXPECT_GT(s->start_ticks, h.model.MaxStartTicks()) << KindName(kind);
    EXPECT_EQ(s->state, 'S');
    const ModelProcess* p = m.Find(ExploreHost::kSleep);
    bool carries = false;  // the token entry itself
    bool stale = false;    // another run's: the token with "-2" after it
    for (std::string_view e : SplitNul(p->environ->data)) {
      carries = carries || e == ctx.token_entry;
      stale = stale || e == ctx.token_entry + "-2";
    }
    if (kind == EventKind::kReuseUnrelated) {
      EXPECT_EQ(s->ppid, 1);
      EXPECT_EQ(p->cmdline->data, std::string("/usr/bin/cat\0", 13));
      EXPECT_FALSE(carries);
      EXPECT_FALSE(stale);
    } else {
      EXPECT_EQ(s->ppid, ExploreHost::kShell);
      EXPECT_EQ(p->cmdline->data, JoinNul(ctx.argv));
      EXPECT_EQ(carries, kind == EventKind::kReuseToken);
      EXPECT_EQ(stale, kind == EventKind::kReuseArgv);
      EXPECT_EQ(*p->exe == ctx.exe, kind == EventKind::kReuseArgv);
    }
  }
}

// A new process never takes the start tick (or the pid) of one reaped
// before it: the kernel starts later processes at later ticks and
// allocates pids past the last one. (Once one did: a second match, after
// the process of the highest pid was reaped, came back as that very process.)
TEST(ExploreEvents, ANewProcessGoesPastEveryProcessTheModelHeld) {
  ExploreHost h;
  const EventContext& ctx = h.Context();
  HostModel m = h.model;
  std::int64_t clock = 0;
  ASSERT_TRUE(Apply({EventKind::kSecondMatch, ExploreHost::kSleep}, ctx, &m, &clock));
  const std::int64_t first = m.listing().back();
  ASSERT_TRUE(m.Stat(first));
  const std::uint64_t first_start = m.Stat(first)->start_ticks;
  ASSERT_TRUE(Apply({EventKind::kGone, first}, ctx, &m, &clock));
  ASSERT_TRUE(Apply({EventKind::kSecondMatch, ExploreHost::kSleep}, ctx, &m, &clock));
  const std::int64_t second = m.listing().back();
  EXPECT_EQ(second, first + 1);
  ASSERT_TRUE(m.Stat(second));
  EXPECT_EQ(m.Stat(second)->start_ticks, first_start + 1);
}

TEST(ExploreEvents, ExecShowsItsEarlierStateUntilItsPointThenTheFramesBytes) {
  ExploreHost h;
  const EventContext& ctx = h.Context();
  for (EventKind kind : {EventKind::kExecShell, EventKind::kExecEmpty, EventKind::kExecOldArgv}) {
    HostModel m = h.model;
    std::int64_t clock = 0;
    ASSERT_TRUE(ApplyExecBegin({kind, ExploreHost::kSleep}, ctx, &m));
    const ModelProcess* p = m.Find(ExploreHost::kSleep);
    EXPECT_NE(p->cmdline->data, JoinNul(ctx.argv)) << KindName(kind);
    EXPECT_EQ(p->cmdline->data.empty(), kind == EventKind::kExecEmpty);
    EXPECT_EQ(*p->exe == ctx.exe, kind != EventKind::kExecShell) << KindName(kind);
    ASSERT_TRUE(Apply({kind, ExploreHost::kSleep}, ctx, &m, &clock));
    EXPECT_EQ(m.hash(), h.model.hash()) << KindName(kind);  // exactly the frame again
  }
}

TEST(ExploreEvents, SecondMatchAndRootRestartAndClockJumps) {
  ExploreHost h;
  const EventContext& ctx = h.Context();
  HostModel m = h.model;
  std::int64_t clock = ctx.start_ns;
  ASSERT_TRUE(Apply({EventKind::kSecondMatch, ExploreHost::kSleep}, ctx, &m, &clock));
  const std::int64_t twin = h.model.MaxPid() + 1;
  ASSERT_TRUE(m.Stat(twin));
  EXPECT_EQ(m.Stat(twin)->ppid, ExploreHost::kShell);
  EXPECT_EQ(m.Find(twin)->cmdline->data, JoinNul(ctx.argv));
  EXPECT_EQ(m.listing().back(), twin);

  HostModel r = h.model;
  ASSERT_TRUE(Apply({EventKind::kRootRestart, ExploreHost::kRoot}, ctx, &r, &clock));
  EXPECT_GT(r.Stat(ExploreHost::kRoot)->start_ticks, ExploreHost::kRootStart);
  EXPECT_EQ(r.Stat(ExploreHost::kShell)->ppid, 1);

  ASSERT_TRUE(Apply({EventKind::kTimeRetry, 0}, ctx, &r, &clock));
  EXPECT_EQ(clock, ctx.start_ns + ctx.bounds.retry_ns);
  ASSERT_TRUE(Apply({EventKind::kTimeDeadline, 0}, ctx, &r, &clock));
  EXPECT_EQ(clock, ctx.start_ns + ctx.bounds.deadline_ns + 1);
  EXPECT_FALSE(Apply({EventKind::kTimeDeadline, 0}, ctx, &r, &clock));
}

TEST(ExploreEvents, ApplicableListsTargetsBeneathTheRootOnly) {
  ExploreHost h;
  for (const Event& e : Applicable(h.model, h.Context(), 0)) {
    EXPECT_NE(e.pid, ExploreHost::kOutsider) << KindName(e.kind);
  }
}

// The one-pass index MakeContext walks the tree by (linear in the host, for
// minimize's every candidate) gives each parent the children Children()
// gives it, a pid listed twice included, and the targets are the root's
// descendants breadth first, listing order per level.
TEST(ExploreEvents, TheTreeIndexIsChildrenOfEveryParentAndTheTargetsFollowIt) {
  ExploreHost h;
  h.Add(103, ExploreHost::kShell, 5012, "sh", {"/bin/sh"}, {}, Identity{0, 8, 11});
  h.Add(104, ExploreHost::kRoot, 5013, "sh", {"/bin/sh"}, {}, Identity{0, 8, 11});
  h.Add(105, 104, 5014, "sh", {"/bin/sh"}, {}, Identity{0, 8, 11});
  *h.frame.add_processes() = h.frame.processes(2);  // the shell listed again, last
  h.model = HostModel::FromFrame(h.frame);
  const auto index = h.model.ChildrenByParent();
  for (std::int64_t pid :
       {std::int64_t{1}, ExploreHost::kOutsider, ExploreHost::kRoot, ExploreHost::kShell,
        ExploreHost::kSleep, std::int64_t{104}, std::int64_t{105}}) {
    auto it = index.find(pid);
    EXPECT_EQ(it == index.end() ? std::vector<std::int64_t>{} : it->second, h.model.Children(pid))
        << pid;
  }
  EXPECT_EQ(h.model.Children(ExploreHost::kRoot),
            (std::vector<std::int64_t>{ExploreHost::kShell, 104, ExploreHost::kShell}));
  EXPECT_EQ(h.Context().targets, (std::vector<std::int64_t>{ExploreHost::kRoot, ExploreHost::kShell,
                                                            104, ExploreHost::kSleep, 103, 105}));
}

}  // namespace
}  // namespace proctape::explore
