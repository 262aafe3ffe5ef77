// SPDX-License-Identifier: Apache-2.0
// core/wrap.h: the one word wrap of help lists and reports.
#include "core/wrap.h"

#include <gtest/gtest.h>

#include <string>

namespace proctape::test {
namespace {

TEST(WrapHanging, KeepsALineThatFitsWhole) {
  EXPECT_EQ(WrapHanging("  name  ", "one  two\nthree", 8), "  name  one two three\n");
}

TEST(WrapHanging, BreaksBeforeTheWordThatWouldPassTheWidthAndIndents) {
  // "label: aaaa bbbb" is 16 columns; "cccc" would end at 21 > 20.
  EXPECT_EQ(WrapHanging("label: ", "aaaa bbbb cccc dddd", 7, 20),
            "label: aaaa bbbb\n       cccc dddd\n");
}

TEST(WrapHanging, AWordLongerThanALineStandsAloneAndEmptyTextIsTheLead) {
  EXPECT_EQ(WrapHanging("x ", "a 0123456789abcdef b", 2, 10), "x a\n  0123456789abcdef\n  b\n");
  EXPECT_EQ(WrapHanging("lead", "", 2), "lead\n");
}

}  // namespace
}  // namespace proctape::test
