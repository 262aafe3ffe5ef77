// SPDX-License-Identifier: Apache-2.0
// cli/help.h Reflow: command descriptions wrapped to 80 columns, paragraphs
// filled, list items hanging under their text (docs/cli/commands.md, "Help").
#include <gtest/gtest.h>

#include <string>

#include "cli/help.h"

namespace proctape {
namespace {

TEST(Reflow, LinesOfAParagraphAreFilledToTheWidth) {
  EXPECT_EQ(Reflow("one two three\nfour five six seven", 14),
            "one two three\nfour five six\nseven\n");
}

TEST(Reflow, ABlankLineSeparatesParagraphs) { EXPECT_EQ(Reflow("a b\n\nc d", 80), "a b\n\nc d\n"); }

// "  json      the whole file ..." goes on under "the", its label's spacing
// kept; the source's own continuation lines join it.
TEST(Reflow, AListItemHangsUnderItsText) {
  EXPECT_EQ(
      Reflow("Formats:\n  json      one two three four\n            five\n  dot       six", 28),
      "Formats:\n  json      one two three\n            four five\n  dot       six\n");
}

// An item with no label column hangs under its continuation, or two columns in.
TEST(Reflow, ADashedItemHangsUnderItsContinuation) {
  EXPECT_EQ(Reflow("  - aaa bbb ccc\n    ddd\n  - eee fff ggg", 12),
            "  - aaa bbb\n    ccc ddd\n  - eee fff\n    ggg\n");
}

// A one-line item that fits is kept as written: a table's spacing survives.
TEST(Reflow, AnItemThatFitsIsKeptAsWritten) {
  EXPECT_EQ(Reflow("  KEEP   verifier  --self\n  REMOVE new       the rest", 80),
            "  KEEP   verifier  --self\n  REMOVE new       the rest\n");
}

// A word longer than the width is not cut: it stands on its own line.
TEST(Reflow, AWordIsNeverCut) {
  EXPECT_EQ(Reflow("a averyveryverylongword b", 10), "a\naveryveryverylongword\nb\n");
}

}  // namespace
}  // namespace proctape
