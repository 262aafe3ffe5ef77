// SPDX-License-Identifier: Apache-2.0
// cli/progress.h: one line on standard error, rewritten in place, only on a
// terminal (docs/cli/commands.md, "Progress").
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace proctape {
namespace {

// What a Progress wrote into memory.
class Captured {
 public:
  Captured() : file_(::open_memstream(&data_, &size_)) {}
  ~Captured() {
    if (file_ != nullptr) std::fclose(file_);
    std::free(data_);
  }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(data_, size_);
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

TEST(Progress, WritesNothingWhenNotATerminal) {
  Captured out;
  {
    Progress p(out.file(), false, 80);
    EXPECT_FALSE(p.active());
    p.Show("frame 1/2");
    p.Update("frame 2/2");
    p.Done();
  }
  EXPECT_EQ(out.text(), "");
}

TEST(Progress, EachLineReplacesTheLastAndDoneClearsIt) {
  Captured out;
  Progress p(out.file(), true, 80);
  p.Show("[1/2] a");
  p.Show("[2/2] b");
  p.Done();
  EXPECT_EQ(out.text(), "\r\033[K[1/2] a\r\033[K[2/2] b\r\033[K");
}

TEST(Progress, TheDestructorClearsALineLeftShown) {
  Captured out;
  { Progress(out.file(), true, 80).Show("x"); }
  EXPECT_EQ(out.text(), "\r\033[Kx\r\033[K");
}

TEST(Progress, DoneWithNothingShownWritesNothing) {
  Captured out;
  Progress(out.file(), true, 80).Done();
  EXPECT_EQ(out.text(), "");
}

// A line that wrapped could not be rewritten: it is cut to one column less
// than the terminal's width, and stays one line.
TEST(Progress, ALineIsCutToTheTerminalWidthAndKeptOnOneLine) {
  Captured out;
  Progress p(out.file(), true, 10);
  p.Show("abcdefghijklmnop");
  p.Show("a\nb\rc");
  EXPECT_EQ(out.text(), "\r\033[Kabcdefghi\r\033[Ka b c");
}

// A fast command prints no line: one given before the delay is up and done
// with before it waits, and is never written.
TEST(Progress, ALineDoneWithBeforeTheDelayIsNeverShown) {
  Captured out;
  {
    Progress p(out.file(), true, 80, std::chrono::hours(1));
    EXPECT_TRUE(p.active());
    p.Show("export: reading a.ptape");
    p.Update("export: writing b");
    p.Done();
  }
  EXPECT_EQ(out.text(), "");
}

// A line given once the delay is up is shown at once.
TEST(Progress, ALineGivenAfterTheDelayIsShownAtOnce) {
  Captured out;
  Progress p(out.file(), true, 80, std::chrono::milliseconds(1));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  p.Show("frame 2/2");
  p.Done();
  EXPECT_EQ(out.text(), "\r\033[Kframe 2/2\r\033[K");
}

// One long step: the line given before it is shown when the delay is up,
// without another call (the timer shows it).
TEST(Progress, ALineWaitingForTheDelayIsShownWhenItIsUp) {
  Captured out;
  Progress p(out.file(), true, 80, std::chrono::milliseconds(1));
  p.Show("export: reading a.ptape");
  std::string seen;
  for (int i = 0; i < 1000 && seen.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen = out.text();
  }
  EXPECT_EQ(seen, "\r\033[Kexport: reading a.ptape");
  p.Done();
}

}  // namespace
}  // namespace proctape
