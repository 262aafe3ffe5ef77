#include "core/proc_parse.h"

#include <gtest/gtest.h>

namespace proctape {
namespace {

TEST(ParseCanonicalDecimal, AcceptsOnlyCanonicalForms) {
  EXPECT_EQ(ParseCanonicalDecimal("0"), 0u);
  EXPECT_EQ(ParseCanonicalDecimal("2147483647", kMaxPid), 2147483647u);
  EXPECT_FALSE(ParseCanonicalDecimal("2147483648", kMaxPid));
  EXPECT_FALSE(ParseCanonicalDecimal("012"));
  EXPECT_FALSE(ParseCanonicalDecimal(""));
  EXPECT_FALSE(ParseCanonicalDecimal("+1"));
  EXPECT_FALSE(ParseCanonicalDecimal(" 1"));
  EXPECT_FALSE(ParseCanonicalDecimal("18446744073709551616"));
}

}  // namespace
}  // namespace proctape
