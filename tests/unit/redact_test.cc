// SPDX-License-Identifier: Apache-2.0
// Environ redaction (`docs/format.md` section 6): by default each environ
// value is replaced by a placeholder that keeps the key and the value's
// length; the only values kept verbatim are entries that carry the token of
// a resolution being recorded, so a replay sees the same token evidence.
#include "core/redact.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/proc_parse.h"

namespace proctape {
namespace {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs

const std::vector<std::string> kNone;

TEST(RedactEnviron, StarsEveryValueKeepingKeysAndLengths) {
  EXPECT_EQ(RedactEnviron("HOME=/root\0PATH=/usr/bin:/bin\0"s, kNone),
            "HOME=*****\0PATH=*************\0"s);
}

TEST(RedactEnviron, KeepsTotalSizeAndEntryStructure) {
  std::string in = "A=1\0BB=22\0\0=x\0NOEQ\0C=\0D==e=\0"s;
  std::string out = RedactEnviron(in, kNone);
  ASSERT_EQ(out.size(), in.size());
  std::vector<std::string_view> a = SplitNul(in), b = SplitNul(out);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].size(), b[i].size()) << i;
  // Only the first '=' separates the key; later ones are part of the value.
  EXPECT_EQ(out, "A=*\0BB=**\0\0=*\0****\0C=\0D=***\0"s);
}

TEST(RedactEnviron, KeptEntriesStayVerbatimOnlyOnExactMatch) {
  std::vector<std::string> kept = {"PROCTAPE_TOKEN=abc"};
  EXPECT_EQ(RedactEnviron("HOME=/root\0PROCTAPE_TOKEN=abc\0PWD=/tmp\0"s, kept),
            "HOME=*****\0PROCTAPE_TOKEN=abc\0PWD=****\0"s);
  // Another invocation's token, a prefix, an extension: all redacted; the key
  // stays, so a replay still counts the entries named PROCTAPE_TOKEN.
  EXPECT_EQ(RedactEnviron("PROCTAPE_TOKEN=abd\0PROCTAPE_TOKEN=ab\0PROCTAPE_TOKEN=abcd\0"s, kept),
            "PROCTAPE_TOKEN=***\0PROCTAPE_TOKEN=**\0PROCTAPE_TOKEN=****\0"s);
  // Appearing twice, it is kept twice (the resolver's "exactly once" check
  // must replay identically).
  EXPECT_EQ(RedactEnviron("PROCTAPE_TOKEN=abc\0PROCTAPE_TOKEN=abc"s, kept),
            "PROCTAPE_TOKEN=abc\0PROCTAPE_TOKEN=abc"s);
}

TEST(RedactEnviron, MissingFinalNulStaysMissing) {
  EXPECT_EQ(RedactEnviron("A=1\0B=secret"s, kNone), "A=*\0B=******"s);
  EXPECT_EQ(RedactEnviron("B=secret"s, kNone), "B=******"s);
  // A truncated read may cut the token entry: it no longer matches and is hidden.
  EXPECT_EQ(RedactEnviron("PROCTAPE_TOKEN=ab"s, {"PROCTAPE_TOKEN=abc"}), "PROCTAPE_TOKEN=**"s);
}

TEST(RedactEnviron, EmptyInputAndEmptyEntries) {
  EXPECT_EQ(RedactEnviron("", kNone), "");
  EXPECT_EQ(RedactEnviron("\0"s, kNone), "\0"s);
  EXPECT_EQ(RedactEnviron("\0\0\0"s, kNone), "\0\0\0"s);
  EXPECT_EQ(RedactEnviron("A=1\0\0B=2\0\0"s, kNone), "A=*\0\0B=*\0\0"s);
  // An empty kept entry never unhides anything (empty entries are empty anyway).
  EXPECT_EQ(RedactEnviron("\0A=1\0"s, {""}), "\0A=*\0"s);
}

// An entry without '=' has no key to keep and may itself be the secret.
TEST(RedactEnviron, EntriesWithoutEqualsAreHiddenWhole) {
  EXPECT_EQ(RedactEnviron("hunter2\0A=b\0"s, kNone), "*******\0A=*\0"s);
  EXPECT_EQ(RedactEnviron("ghp_0123456789"s, kNone), "**************"s);
  // Unless it is a kept entry.
  EXPECT_EQ(RedactEnviron("MARKER\0"s, {"MARKER"}), "MARKER\0"s);
}

TEST(RedactEnviron, HostileBytesInKeysAndValues) {
  std::string in = "K\xff\n\x01=\xfe\x80\n\x1b[31m\0\xc3\x28=\xe2\x82\0"s;
  EXPECT_EQ(RedactEnviron(in, kNone), "K\xff\n\x01=********\0\xc3\x28=**\0"s);
  // A kept entry with non-UTF-8 bytes is matched byte for byte.
  EXPECT_EQ(RedactEnviron("T=\xff\x00T=\xfe"s, {"T=\xff"}), "T=\xff\0T=*"s);
}

// The proof of redaction at the unit level: no byte of any secret value
// survives. The secrets use only bytes absent from keys, '=', '*' and NUL.
TEST(RedactEnviron, NoByteOfASecretValueSurvives) {
  const std::string secret = "s3cr3t-v@lue/\xf0\x9f\x94\x91\x7f";
  std::string in;
  in.append("HOME=/root").push_back('\0');
  in.append("AWS_SECRET_ACCESS_KEY=").append(secret).push_back('\0');
  in.append(secret).push_back('\0');                     // without '='
  in.append("CI_TOKEN=").append(secret).append(secret);  // no final NUL
  std::string out = RedactEnviron(in, {"PROCTAPE_TOKEN=abc"});
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out.find(secret), std::string::npos);
  for (char c : secret) {
    EXPECT_EQ(out.find(c), std::string::npos) << "byte 0x" << std::hex << (c & 0xff);
  }
  // Every byte is a NUL, a '*', or part of a key with its '='.
  std::string stars(secret.size(), '*');
  std::string expected;
  expected.append("HOME=*****").push_back('\0');
  expected.append("AWS_SECRET_ACCESS_KEY=").append(stars).push_back('\0');
  expected.append(stars).push_back('\0');
  expected.append("CI_TOKEN=").append(stars).append(stars);
  EXPECT_EQ(out, expected);
}

TEST(RedactEnviron, LargeBlockKeepsSizeAndHidesEverything) {
  std::string in;
  for (int i = 0; i < 2000; ++i) {
    in.append("VAR").append(std::to_string(i)).append("=value-").append(std::to_string(i));
    in.push_back('\0');
  }
  std::string out = RedactEnviron(in, kNone);
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(out.find("value"), std::string::npos);
  EXPECT_EQ(SplitNul(out).size(), 2000u);
}

}  // namespace
}  // namespace proctape
