// SPDX-License-Identifier: Apache-2.0
// `proctape tree` (analyze/tree.h) on hand-built frames: the forest's shape
// and drawing, the marks (resolved process, root, marker, a reused pid),
// hostile names, kernel-thread folding, loops of parent links.
#include "analyze/tree.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "views_fixture.h"

namespace proctape {
namespace {

using test::MakeFrame;
using test::MakeSnapshot;
using test::Proc;

// init(1) -> app-server(50) -> unshare(60) -> sleep(61), and an orphan whose
// parent 999 is not in the frame.
std::vector<Proc> Host() {
  return {
      Proc(1).Comm("init").Ppid(0).Start(1).Argv({"/sbin/init"}).Uid(0),
      Proc(50).Comm("app-server").Start(500).Argv({"app-server"}),
      Proc(60).Comm("unshare").Ppid(50).Start(600).Argv(
          {"unshare", "--pid", "--fork", "sh", "-c", "echo $$ > m; exec /bin/sleep 120"}),
      Proc(61).Ppid(60).Start(601).Nspid({61, 1}),
      Proc(70).Comm("cron").Start(700).Argv({"cron"}),
      Proc(80).Comm("orphan").Ppid(999).Start(800).Argv({}),
  };
}

TreeOptions Options(std::int64_t root, std::optional<std::int64_t> marker = std::nullopt,
                    bool kernel = false, std::size_t frame = 0) {
  TreeOptions o;
  o.root = root;
  o.marker = marker;
  o.kernel = kernel;
  o.frame = frame;
  return o;
}

std::string Render(const Snapshot& s, const TreeOptions& options = {}) {
  Failure failure;
  std::optional<v1::TreeReport> report = BuildTree(s, "host.ptape", options, &failure);
  EXPECT_TRUE(report.has_value()) << failure.message;
  return report ? RenderTree(*report) : "";
}

TEST(TreeTest, DrawsTheForestDepthFirstInPidOrderWithAsciiConnectors) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Host())});
  EXPECT_EQ(Render(s),
            "host.ptape: frame 0 of 1, 6 processes\n"
            "1 \"init\" S ppid=0 pgrp=1 sid=1 start=1 (0.01s) uid=0 nspid=1 exe=8:11 "
            "argv=\"/sbin/init\"\n"
            "|-50 \"app-server\" S ppid=1 pgrp=50 sid=50 start=500 (5.00s) uid=1000 nspid=50 "
            "exe=8:11 argv=\"app-server\"\n"
            "| `-60 \"unshare\" S ppid=50 pgrp=60 sid=60 start=600 (6.00s) uid=1000 nspid=60 "
            "exe=8:11 argv=\"unshare\" \"--pid\" \"--fork\" \"sh\" \"-c\" \"echo $$ > m; exec "
            "/bin/sleep 120\"\n"
            "|   `-61 \"sleep\" S ppid=60 pgrp=61 sid=61 start=601 (6.01s) uid=1000 nspid=61,1 "
            "exe=8:11 argv=\"/bin/sleep\" \"120\"\n"
            "`-70 \"cron\" S ppid=1 pgrp=70 sid=70 start=700 (7.00s) uid=1000 nspid=70 exe=8:11 "
            "argv=\"cron\"\n"
            "80 \"orphan\" S ppid=999 pgrp=80 sid=80 start=800 (8.00s) uid=1000 nspid=80 "
            "exe=8:11 argv=empty\n");
}

TEST(TreeTest, ReportHoldsDepthsAndParentLinks) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Host())});
  Failure failure;
  std::optional<v1::TreeReport> r = BuildTree(s, "host.ptape", {}, &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  ASSERT_EQ(r->nodes_size(), 6);
  std::vector<std::int64_t> pids;
  for (const auto& n : r->nodes()) pids.push_back(n.process().pid());
  EXPECT_EQ(pids, (std::vector<std::int64_t>{1, 50, 60, 61, 70, 80}));
  EXPECT_EQ(r->nodes(3).depth(), 3u);
  EXPECT_EQ(r->nodes(3).parent(), 60);
  EXPECT_EQ(r->nodes(3).process().start_ticks(), 601u);
  EXPECT_DOUBLE_EQ(r->nodes(3).process().start_seconds(), 6.01);
  EXPECT_EQ(r->nodes(5).depth(), 0u);  // its parent is not in the frame
  EXPECT_EQ(r->nodes(5).parent(), 0);
}

TEST(TreeTest, RootShowsOnlyThatSubtreeAndAnAbsentRootIsAnError) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Host())});
  std::string out = Render(s, Options(60));
  EXPECT_EQ(out.substr(0, out.find('\n')),
            "host.ptape: frame 0 of 1, 6 processes, the subtree of 60");
  EXPECT_EQ(out.find("\n60 \"unshare\""), out.find('\n'));
  EXPECT_NE(out.find("\n`-61 \"sleep\""), std::string::npos);
  EXPECT_EQ(out.find("cron"), std::string::npos);
  Failure failure;
  EXPECT_FALSE(BuildTree(s, "host.ptape", Options(4242), &failure).has_value());
  EXPECT_EQ(failure.message, "host.ptape frame 0: --root 4242: no process has that pid");
  EXPECT_EQ(failure.kind, FailureKind::kNotFound);
  EXPECT_FALSE(
      BuildTree(s, "host.ptape", Options(0, std::nullopt, false, 1), &failure).has_value());
  EXPECT_EQ(failure.message, "--frame 1: host.ptape has 1 frame (0)");
  EXPECT_EQ(failure.kind, FailureKind::kUsage);
}

TEST(TreeTest, HostileNamesCannotForgeLinesOrTerminalEscapes) {
  std::vector<Proc> procs = Host();
  procs[3].comm = "x) Z 1 1 1\nx\x1b[2J";
  procs[3].argv = {"/bin/sleep\n1 \"init\" S", "a\"b\\c", std::string("\x9b\x07", 2)};
  Snapshot s = MakeSnapshot({MakeFrame(0, procs)});
  std::string out = Render(s);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.find('\x9b'), std::string::npos);
  EXPECT_EQ(out.find('\x07'), std::string::npos);
  // Seven lines: a heading and six processes, whatever the names hold.
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 7);
  EXPECT_NE(out.find("`-61 \"x) Z 1 1 1\\x0ax\\x1b[2J\" S ppid=60"), std::string::npos) << out;
  EXPECT_NE(out.find("argv=\"/bin/sleep\\x0a1 \\x22init\\x22 S\" \"a\\x22b\\x5cc\" \"\\x9b\\x07\""),
            std::string::npos)
      << out;
}

TEST(TreeTest, MarksTheResolvedProcessItsRootAndTheMarkersHostPid) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Host())});
  s.resolutions.push_back(test::Resolved(50, 500, 61, 601, 2'000'000'000));
  Failure failure;
  std::optional<v1::TreeReport> r = BuildTree(s, "host.ptape", Options(0, 1), &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  EXPECT_EQ(r->marker(), 1);
  EXPECT_EQ(r->marker_source(), "--marker");
  EXPECT_TRUE(r->marker_shown());
  std::string out = RenderTree(*r);
  EXPECT_NE(out.find("argv=\"/sbin/init\"  <= marker 1 names this host pid\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("argv=\"app-server\"  <= root of resolution 0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("argv=\"/bin/sleep\" \"120\"  <= resolved by resolution 0\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\nmarker 1 (--marker) names host pid 1, marked above\n"), std::string::npos);
}

TEST(TreeTest, AReusedPidIsMarkedAsNotTheResolvedProcess) {
  std::vector<Proc> procs = Host();
  procs[3].start = 777;  // pid 61 now names another process
  Snapshot s = MakeSnapshot({MakeFrame(0, procs)});
  s.resolutions.push_back(test::Resolved(50, 500, 61, 601, 2'000'000'000));
  std::string out = Render(s);
  EXPECT_NE(out.find("<= not the process resolution 0 resolved (that one started at tick 601)"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("resolved by"), std::string::npos);
}

TEST(TreeTest, LabRecordingsDeriveTheMarkerFromTheInnermostNspid) {
  Snapshot s = MakeSnapshot({MakeFrame(0, Host())});
  s.resolutions.push_back(test::Resolved(50, 500, 61, 601, 2'000'000'000));
  std::string source;
  EXPECT_FALSE(DerivedMarker(s, &source).has_value()) << "not a lab recording";
  s.header.set_command_line(1, "lab");
  std::optional<std::int64_t> marker = DerivedMarker(s, &source);
  ASSERT_TRUE(marker.has_value());
  EXPECT_EQ(*marker, 1);
  EXPECT_NE(source.find("innermost NSpid of 61@601"), std::string::npos) << source;
  std::string out = Render(s);
  EXPECT_NE(out.find("<= marker 1 names this host pid"), std::string::npos) << out;
  // --marker wins over the derived value.
  out = Render(s, Options(0, 4242));
  EXPECT_NE(out.find("marker 4242 (--marker): no process has host pid 4242 in this frame"),
            std::string::npos)
      << out;
  out = Render(s, Options(60, 1));
  EXPECT_NE(out.find("marker 1 (--marker) names host pid 1, outside the subtree shown"),
            std::string::npos)
      << out;
}

TEST(TreeTest, KernelThreadsAreFoldedUnlessAsked) {
  std::vector<Proc> procs = Host();
  procs.push_back(
      Proc(2).Comm("kthreadd").Ppid(0).Start(1).Argv({}).ExeIno(0).Flags(test::kKthreadFlags));
  for (std::int64_t pid = 3; pid < 6; ++pid) {
    procs.push_back(Proc(pid)
                        .Comm("kworker/0:" + std::to_string(pid))
                        .Ppid(2)
                        .Start(2)
                        .Argv({})
                        .ExeIno(0)
                        .Flags(test::kKthreadFlags));
  }
  Snapshot s = MakeSnapshot({MakeFrame(0, procs)});
  std::string out = Render(s);
  EXPECT_NE(out.find("\n2 \"kthreadd\" S kthread ppid=0 pgrp=2 sid=2 start=1 (0.01s) uid=1000 "
                     "nspid=2 exe=unreadable(ENOENT) argv=empty [+3 kernel threads folded]\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("kworker"), std::string::npos);
  EXPECT_NE(out.find("\n(3 kernel threads folded; --kernel shows them)\n"), std::string::npos);
  out = Render(s, Options(0, std::nullopt, true));
  EXPECT_NE(out.find("|-3 \"kworker/0:3\" S kthread"), std::string::npos) << out;
  EXPECT_NE(out.find("`-5 \"kworker/0:5\" S kthread"), std::string::npos) << out;
  EXPECT_EQ(out.find("folded"), std::string::npos);
}

TEST(TreeTest, ALoopOfParentLinksIsStillShownOnce) {
  Snapshot s = MakeSnapshot({MakeFrame(
      0, {Proc(10).Ppid(12).Start(1), Proc(11).Ppid(10).Start(1), Proc(12).Ppid(11).Start(1)})});
  std::string out = Render(s);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4) << out;
  EXPECT_NE(out.find("\n10 \"sleep\""), std::string::npos) << out;
  EXPECT_NE(out.find("<= its parent links loop back to it"), std::string::npos) << out;
  EXPECT_NE(out.find("\n  `-12 \"sleep\""), std::string::npos) << out;
}

TEST(TreeTest, AVeryDeepChainIsWalkedWithoutRecursionAndIndentIsCapped) {
  std::vector<Proc> procs;
  for (std::int64_t pid = 1; pid <= 5000; ++pid) procs.push_back(Proc(pid).Ppid(pid - 1));
  Snapshot s = MakeSnapshot({MakeFrame(0, procs)});
  Failure failure;
  std::optional<v1::TreeReport> r = BuildTree(s, "deep.ptape", {}, &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  ASSERT_EQ(r->nodes_size(), 5000);
  EXPECT_EQ(r->nodes(4999).depth(), 4999u);
  std::string out = RenderTree(*r);
  EXPECT_NE(out.find("[depth 4999] `-5000 \"sleep\""), std::string::npos);
  EXPECT_LT(out.size(), 5000u * 400u);
}

TEST(TreeTest, UnidentifiedRecordsAreRootsThatSayWhy) {
  v1::Frame f = MakeFrame(0, Host());
  f.mutable_processes(3)->mutable_stat()->set_data("61 (sleep");
  Snapshot s = MakeSnapshot({f});
  std::string out = Render(s);
  EXPECT_NE(out.find("\n61 no identity (stat malformed: "), std::string::npos) << out;
  EXPECT_NE(out.find(" uid=1000 nspid=61,1 exe=8:11 argv=\"/bin/sleep\" \"120\"\n"),
            std::string::npos)
      << out;
}

TEST(TreeTest, StartSecondsNeedAKnownClock) {
  Snapshot s = MakeSnapshot({MakeFrame(0, {Proc(5).Ppid(0).Start(1310656)})});
  Failure failure;
  EXPECT_DOUBLE_EQ(BuildTree(s, "f", {}, &failure)->nodes(0).process().start_seconds(), 13106.56);
  EXPECT_NE(RenderTree(*BuildTree(s, "f", {}, &failure)).find(" start=1310656 (13106.56s) uid="),
            std::string::npos);
  s.header.mutable_host()->set_clock_ticks_per_second(0);
  EXPECT_FALSE(BuildTree(s, "f", {}, &failure)->nodes(0).process().has_start_seconds());
  EXPECT_NE(RenderTree(*BuildTree(s, "f", {}, &failure)).find(" start=1310656 uid="),
            std::string::npos);
}

// Filters: a loop of parent links ends the walk up to the ancestors and the
// walk down a --pid subtree; kernel threads are not folded under a filter.
TEST(TreeFilterTest, ALoopOfParentLinksEndsTheAncestorsOfASelection) {
  Snapshot s = MakeSnapshot(
      {MakeFrame(0, {Proc(10).Ppid(12).Start(1).Comm("a"), Proc(11).Ppid(10).Start(1).Comm("b"),
                     Proc(12).Ppid(11).Start(1).Comm("c")})});
  TreeOptions by_comm;
  by_comm.filter.comm = "c";
  Failure failure;
  std::optional<v1::TreeReport> r = BuildTree(s, "f", by_comm, &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  ASSERT_EQ(r->nodes_size(), 3);  // 12 and the two ancestors the loop gives it
  EXPECT_EQ(r->selected(), 1u);
  EXPECT_FALSE(r->nodes(2).context());
  EXPECT_TRUE(r->nodes(0).context());

  TreeOptions by_pid;
  by_pid.filter.pid = 11;
  r = BuildTree(s, "f", by_pid, &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  EXPECT_EQ(r->selected(), 3u);  // 11's descendants loop back to 11 and its parent
}

TEST(TreeFilterTest, AFilterUnfoldsKernelThreadsItSelects) {
  Snapshot s = MakeSnapshot(
      {MakeFrame(0, {Proc(2).Comm("kthreadd").Ppid(0).Flags(test::kKthreadFlags),
                     Proc(3).Comm("kworker/0:3").Ppid(2).Flags(test::kKthreadFlags)})});
  TreeOptions o;
  o.filter.comm = "kworker/0:3";
  Failure failure;
  std::optional<v1::TreeReport> r = BuildTree(s, "f", o, &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  ASSERT_EQ(r->nodes_size(), 2);
  EXPECT_EQ(r->nodes(1).process().pid(), 3);
  EXPECT_EQ(r->folded_kernel_threads(), 0u);
}

TEST(TreeFilterTest, AProcessWithoutTheFactAskedForIsNotSelected) {
  Snapshot s = MakeSnapshot({MakeFrame(0, {Proc(5).Start(1), Proc(6).Start(1)})});
  // 6's status has no Uid line, 5's stat does not parse.
  s.frames[0].mutable_processes(1)->mutable_status()->set_data("Name:\tsleep\n");
  s.frames[0].mutable_processes(0)->mutable_stat()->set_data("5 (sleep");
  TreeOptions by_uid;
  by_uid.filter.uid = 1000;
  Failure failure;
  std::optional<v1::TreeReport> r = BuildTree(s, "f", by_uid, &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  EXPECT_EQ(r->selected(), 1u);  // 5: its uid is known, its stat is not needed
  TreeOptions by_comm;
  by_comm.filter.comm = "sleep";
  r = BuildTree(s, "f", by_comm, &failure);
  ASSERT_TRUE(r.has_value()) << failure.message;
  EXPECT_EQ(r->selected(), 1u);  // 6: 5 has no comm
  ASSERT_EQ(r->nodes_size(), 1);
  EXPECT_EQ(r->nodes(0).process().pid(), 6);
}

}  // namespace
}  // namespace proctape
