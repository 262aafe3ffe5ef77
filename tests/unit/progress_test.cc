// cli/progress.h: one line on standard error, rewritten in place, only on a
// terminal (docs/cli/commands.md, "Progress").
#include "cli/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

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

}  // namespace
}  // namespace proctape
