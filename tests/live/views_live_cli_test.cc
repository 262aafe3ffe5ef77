// SPDX-License-Identifier: Apache-2.0
// `proctape show`, `tree` and `diff` with the built binary (`docs/views.md`)
// on fresh captures of this host.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/live/views_cli_fixture.h"
#include "views.pb.h"

namespace proctape::live::views {
namespace {

// ---- A fresh capture of this host ------------------------------------------

TEST(ViewsLiveTest, FreshCapturesOfThisHost) {
  TempDir dir("views");
  const pid_t self = ::getpid();
  std::optional<live::ProcStat> me = live::ReadStat(self);
  ASSERT_TRUE(me.has_value());
  CommandResult r = ProctapeIn(dir.path(), {"capture", "-o", "a.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  std::string error;
  std::unique_ptr<live::Child> child = live::Child::Start({"/bin/sleep", "120"}, &error);
  ASSERT_NE(child, nullptr) << error;
  ASSERT_TRUE(child->WaitForCmdline(std::string("/bin/sleep\0"
                                                "120\0",
                                                15),
                                    5000));
  std::optional<live::ProcStat> sleep = live::ReadStat(child->pid());
  ASSERT_TRUE(sleep.has_value());
  r = ProctapeIn(dir.path(), {"capture", "-o", "b.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  const pid_t sleep_pid = child->pid();
  child.reset();  // SIGKILL by pid and reaped: gone
  r = ProctapeIn(dir.path(), {"capture", "-o", "c.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  r = ProctapeIn(dir.path(), {"show", "a.ptape"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nframes: 1 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\ndamage: none ("), std::string::npos) << r.out;
  ExpectPlainAscii(r.out);

  // This test process, in the tree, with its own start tick.
  r = ProctapeIn(dir.path(), {"tree", "a.ptape"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  ExpectPlainAscii(r.out);
  const std::string me_line = std::to_string(self) + " \"";
  std::size_t at = r.out.find("-" + me_line);
  if (at == std::string::npos) at = r.out.find("\n" + me_line);
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string line = r.out.substr(at, r.out.find('\n', at + 1) - at);
  EXPECT_NE(line.find(" ppid=" + std::to_string(me->ppid) + " "), std::string::npos) << line;
  EXPECT_NE(line.find(" start=" + std::to_string(me->start_ticks) + " ("), std::string::npos)
      << line;

  // The sleep, beneath this process, in b only.
  r = ProctapeIn(dir.path(), {"tree", "b.ptape", "--root", std::to_string(self)});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("-" + std::to_string(sleep_pid) + " \"sleep\" "), std::string::npos)
      << r.out;

  r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto appeared = ParseJson<v1::DiffReport>(r.out);
  bool found = false;
  for (const auto& c : appeared.changes()) {
    if (c.pid() != sleep_pid) continue;
    found = true;
    EXPECT_EQ(c.kind(), v1::DiffReport::Change::APPEARED);
    EXPECT_EQ(c.after().start_ticks(), sleep->start_ticks);
    EXPECT_EQ(c.after().ppid(), self);
  }
  EXPECT_TRUE(found) << r.out;

  r = ProctapeIn(dir.path(), {"diff", "b.ptape", "c.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nexited       " + std::to_string(sleep_pid) + " \"sleep\" "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" start=" + std::to_string(sleep->start_ticks) + " "), std::string::npos);
}

// A `capture --root` of this test's subtree beside a whole-host capture: the
// host's other processes are outside the subtree's scope, never "exited";
// the sleep that ended beneath this process is exited.
TEST(ViewsLiveTest, DiffOfAWholeHostAndARootCaptureTellsScopeFromExit) {
  TempDir dir("views-scope");
  const pid_t self = ::getpid();
  std::string error;
  std::unique_ptr<live::Child> child = live::Child::Start({"/bin/sleep", "120"}, &error);
  ASSERT_NE(child, nullptr) << error;
  ASSERT_TRUE(child->WaitForCmdline(std::string("/bin/sleep\0"
                                                "120\0",
                                                15),
                                    5000));
  const pid_t sleep_pid = child->pid();
  CommandResult r = ProctapeIn(dir.path(), {"capture", "-o", "host.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  child.reset();  // SIGKILL by pid and reaped: gone
  r = ProctapeIn(dir.path(), {"capture", "--root", std::to_string(self), "-o", "mine.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);

  r = ProctapeIn(dir.path(), {"diff", "host.ptape", "mine.ptape"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nscope: A holds the whole host; B holds pid " + std::to_string(self) +
                       " and its descendants\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nexited       " + std::to_string(sleep_pid) + " \"sleep\" "),
            std::string::npos)
      << r.out;
  // Init (pid 1) is not beneath this process: outside B's scope, counted
  // (--all lists it).
  EXPECT_NE(r.out.find("\noutside B    "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" processes of A: not in B: it holds only pid " + std::to_string(self)),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("\nexited       1 "), std::string::npos) << r.out;
  CommandResult all = ProctapeIn(dir.path(), {"diff", "host.ptape", "mine.ptape", "--all"});
  EXPECT_NE(all.out.find("\noutside B    1 "), std::string::npos) << all.out;
  EXPECT_NE(r.err.find("B holds pid " + std::to_string(self) + " and its descendants"),
            std::string::npos)
      << r.err;

  r = ProctapeIn(dir.path(), {"diff", "host.ptape", "mine.ptape", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto report = ParseJson<v1::DiffReport>(r.out);
  EXPECT_GT(report.out_of_scope(), 0u);
  // Exited: the sleep, and the first capture's own process; both were this
  // test's children. Nothing else of the host is said to have exited.
  bool sleep_exited = false;
  for (const auto& c : report.changes()) {
    if (c.kind() != v1::DiffReport::Change::EXITED) continue;
    EXPECT_EQ(c.before().ppid(), self) << c.pid();
    if (c.pid() == sleep_pid) sleep_exited = true;
  }
  EXPECT_TRUE(sleep_exited) << r.out;
}

}  // namespace
}  // namespace proctape::live::views
