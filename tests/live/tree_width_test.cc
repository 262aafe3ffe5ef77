// SPDX-License-Identifier: Apache-2.0
// `proctape tree` fits the terminal (`docs/cli/views.md`, "tree fits the
// terminal"), from the built
// binary on a pseudo-terminal: when standard output is a terminal, each line
// is cut to its width (TIOCGWINSZ, else $COLUMNS) and ends with '>'; --wide
// never cuts; output that is not a terminal is never cut.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

const std::string kHostileComm =
    std::string(PROCTAPE_SOURCE_DIR) + "/corpus/d40fb836ad433348.ptape";

// Runs argv with its standard output on a new pseudo-terminal of `columns`
// columns (0: the terminal does not say), and returns what it printed
// (carriage returns of the terminal's line discipline removed).
std::string OnTerminal(const std::vector<std::string>& argv, unsigned short columns) {
  int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  EXPECT_GE(master, 0) << errno;
  if (master < 0 || ::grantpt(master) != 0 || ::unlockpt(master) != 0) return "<no pty>";
  int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  EXPECT_GE(slave, 0) << errno;
  struct winsize size = {};
  size.ws_row = 24;
  size.ws_col = columns;
  EXPECT_EQ(::ioctl(master, TIOCSWINSZ, &size), 0) << errno;
  std::string error;
  pid_t child = live::SpawnChild(argv, slave, -1, &error);
  ::close(slave);
  EXPECT_GT(child, 0) << error;
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(master, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: every end of the terminal is closed
    }
  }
  ::close(master);
  int status = 0;
  if (child > 0) ::waitpid(child, &status, 0);  // our own child, reaped
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  std::string plain;
  for (char c : out) {
    if (c != '\r') plain.push_back(c);
  }
  return plain;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t Widest(const std::string& text) {
  std::size_t w = 0;
  for (const std::string& line : Lines(text)) w = std::max(w, line.size());
  return w;
}

TEST(TreeWidth, OnATerminalEachLineIsCutToItsWidthWithAMarker) {
  const std::string out = OnTerminal(
      {"/usr/bin/env", "-u", "COLUMNS", ::proctape::live::TestedBinary(), "tree", kHostileComm},
      60);
  ASSERT_FALSE(out.empty());
  bool cut = false;
  for (const std::string& line : Lines(out)) {
    EXPECT_LE(line.size(), 60u) << line;
    if (line.size() == 60 && line.back() == '>') cut = true;
  }
  EXPECT_TRUE(cut) << out;
  // The lines keep their start: the tree's shape and the pids.
  EXPECT_NE(out.find("\n      `-271 \"x) Z 1 1 1\\x0ax\" S ppid=270 "), std::string::npos) << out;
}

TEST(TreeWidth, WideNeverCuts) {
  const std::string out =
      OnTerminal({"/usr/bin/env", "-u", "COLUMNS", ::proctape::live::TestedBinary(), "tree",
                  kHostileComm, "--wide"},
                 60);
  EXPECT_GT(Widest(out), 60u) << out;
  EXPECT_NE(out.find("<= resolved by resolution 0\n"), std::string::npos) << out;
}

TEST(TreeWidth, ColumnsIsTheWidthWhenTheTerminalDoesNotSay) {
  const std::string out = OnTerminal(
      {"/usr/bin/env", "COLUMNS=50", ::proctape::live::TestedBinary(), "tree", kHostileComm}, 0);
  EXPECT_EQ(Widest(out), 50u) << out;
}

TEST(TreeWidth, OutputThatIsNotATerminalIsNeverCut) {
  live::CommandResult r = live::RunCommand(
      {"/usr/bin/env", "COLUMNS=50", ::proctape::live::TestedBinary(), "tree", kHostileComm},
      60'000);
  ASSERT_EQ(r.exit_code, 0) << live::Describe(r);
  EXPECT_GT(Widest(r.out), 50u) << r.out;
}

}  // namespace
}  // namespace proctape
