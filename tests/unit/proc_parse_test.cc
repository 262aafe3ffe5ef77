// SPDX-License-Identifier: Apache-2.0
#include "core/proc_parse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/legacy_marker.h"

namespace proctape {
namespace {

using namespace std::string_literals;

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

TEST(ParseCanonicalDecimal, AcceptsUint64MaxAndRejectsTrailingBytes) {
  EXPECT_EQ(ParseCanonicalDecimal("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(ParseCanonicalDecimal("1\n"));
  EXPECT_FALSE(ParseCanonicalDecimal("1 "));
  EXPECT_FALSE(ParseCanonicalDecimal("1\0"s));
  EXPECT_FALSE(ParseCanonicalDecimal("00"));
  EXPECT_FALSE(ParseCanonicalDecimal("-0"));
}

// A user process's stat as this kernel writes it (52 fields).
constexpr char kCatStat[] =
    "6516 (cat) R 6514 6514 2770 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 78995 3133440 384 "
    "18446744073709551615 94179759972352 94179759992233 140721491280528 0 0 0 0 0 0 0 0 0 17 1 0 "
    "0 0 0 0 94179760008240 94179760009856 94180334112768 140721491282571 140721491282591 "
    "140721491282591 140721491283947 0\n";
// A kernel thread: parent 0, process group and session 0.
constexpr char kKthreaddStat[] =
    "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 14 0 0 18446744073709551615 0 0 0 "
    "0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

TEST(ParseStat, ParsesRealKernelLines) {
  StatParse cat = ParseStat(kCatStat);
  ASSERT_TRUE(cat.ok()) << cat.error;
  EXPECT_EQ(cat.fields->pid, 6516);
  EXPECT_EQ(cat.fields->comm, "cat");
  EXPECT_EQ(cat.fields->state, 'R');
  EXPECT_EQ(cat.fields->ppid, 6514);
  EXPECT_EQ(cat.fields->pgrp, 6514);
  EXPECT_EQ(cat.fields->session, 2770);
  EXPECT_EQ(cat.fields->start_ticks, 78995u);

  StatParse kthreadd = ParseStat(kKthreaddStat);
  ASSERT_TRUE(kthreadd.ok()) << kthreadd.error;
  EXPECT_EQ(kthreadd.fields->pid, 2);
  EXPECT_EQ(kthreadd.fields->ppid, 0);
  EXPECT_EQ(kthreadd.fields->session, 0);
  EXPECT_EQ(kthreadd.fields->start_ticks, 14u);
}

// `docs/resolver.md`, "The eight steps", step 3: stat is split at the final
// ") ". comm may hold
// anything: the fields after the final ") " are the true ones.
TEST(ParseStat, HostileCommSplitsAtTheFinalCloseParenSpace) {
  for (const std::string& comm :
       {"x) Z 1 1 1"s, "a\nb"s, "\xff\xfe\x80"s, ""s, ") "s, "("s, "a (b"s,
        "sleep) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7"s, "tab\there"s, "nul\0in"s}) {
    std::string line = "4103 (" + comm +
                       ") S 4102 4102 4102 0 -1 4194560 100 0 0 0 0 0 0 0 20 "
                       "0 1 0 510003 8523776 230\n";
    StatParse p = ParseStat(line);
    ASSERT_TRUE(p.ok()) << EscapeBytes(comm) << ": " << p.error;
    EXPECT_EQ(p.fields->comm, comm);
    EXPECT_EQ(p.fields->state, 'S') << EscapeBytes(comm);
    EXPECT_EQ(p.fields->ppid, 4102) << EscapeBytes(comm);
    EXPECT_EQ(p.fields->start_ticks, 510003u) << EscapeBytes(comm);
  }
}

// 22 fields are enough (field 22 is the start time); 21 are not.
TEST(ParseStat, NeedsAtLeast22Fields) {
  std::string fields22 = "5 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99";
  StatParse ok = ParseStat(fields22);
  ASSERT_TRUE(ok.ok()) << ok.error;
  EXPECT_EQ(ok.fields->start_ticks, 99u);
  StatParse with_newline = ParseStat(fields22 + "\n");
  ASSERT_TRUE(with_newline.ok()) << with_newline.error;
  EXPECT_EQ(with_newline.fields->start_ticks, 99u);

  StatParse short_line = ParseStat("5 (a) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0\n");
  EXPECT_FALSE(short_line.ok());
  EXPECT_NE(short_line.error.find("fewer than 22 fields"), std::string::npos) << short_line.error;
}

// `docs/resolver.md`, "The eight steps", step 3: the parent pid and start time
// must be canonical decimals; the pid must be a pid. Errors name the byte
// offset.
TEST(ParseStat, RejectsNonCanonicalIdentityFields) {
  const std::string tail = " 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ";
  const std::vector<std::string> bad = {
      "5 (a) S 012 1 1" + tail + "99",         // ppid with a leading zero
      "5 (a) S 1 1 1" + tail + "099",          // start with a leading zero
      "5 (a) S +1 1 1" + tail + "99",          // signed ppid
      "5 (a) S 1 1 1" + tail + "-99",          // negative start
      "5 (a) S 2147483648 1 1" + tail + "99",  // ppid above the pid range
      "5 (a) S 1 1 1" + tail + "18446744073709551616",
      "0 (a) S 1 1 1" + tail + "99",  // pid 0
      "05 (a) S 1 1 1" + tail + "99",
      "2147483648 (a) S 1 1 1" + tail + "99",
      " 5 (a) S 1 1 1" + tail + "99",
      "5 (a) S  1 1 1" + tail + "99",  // two spaces: an empty field
      "5 (a) S 1 x 1" + tail + "99",   // pgrp not a decimal
      "5 (a) SS 1 1 1" + tail + "99",  // state of two bytes
      "5 (a)S 1 1 1" + tail + "99",    // no ") "
      "5 a) S 1 1 1" + tail + "99",    // no " ("
      "",
  };
  for (const std::string& line : bad) {
    StatParse p = ParseStat(line);
    EXPECT_FALSE(p.ok()) << EscapeBytes(line);
    EXPECT_EQ(p.error.rfind("stat byte ", 0), 0u) << p.error;
  }
  std::string start_line = "5 (a) S 1 1 1" + tail + "099";
  StatParse start_error = ParseStat(start_line);
  std::string at = "stat byte " + std::to_string(start_line.size() - 3) + ": field 22";
  EXPECT_EQ(start_error.error.rfind(at, 0), 0u) << start_error.error;
}

// Process group and session may be negative or 0 as the kernel prints them.
TEST(ParseStat, AcceptsSignedProcessGroupAndSession) {
  StatParse p = ParseStat("5 (a) S 0 -1 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7\n");
  ASSERT_TRUE(p.ok()) << p.error;
  EXPECT_EQ(p.fields->pgrp, -1);
  EXPECT_EQ(p.fields->session, 0);
}

// The examples of proc_parse.h, plus the edges of its rule: "One terminating
// NUL ends the last element; bytes after the last NUL form a final element;
// empty input has no elements."
TEST(SplitNul, HeaderExamplesAndEdges) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(SplitNul("/bin/sleep\0"
                     "120\0"s),
            (V{"/bin/sleep", "120"}));
  EXPECT_EQ(SplitNul("a\0\0"s), (V{"a", ""}));
  EXPECT_EQ(SplitNul(""), V{});
  EXPECT_EQ(SplitNul("\0"s), (V{""}));
  EXPECT_EQ(SplitNul("a\0b"s), (V{"a", "b"}));
  EXPECT_EQ(SplitNul(" a \0\xff\n\0"s), (V{" a ", "\xff\n"}));  // no trimming
}

TEST(JoinNul, IsTheInverseOfSplitNul) {
  for (const std::string& bytes : {"/bin/sleep\0"
                                   "120\0"s,
                                   "a\0\0"s, "\0"s, ""s, "x\xff\0 \0"s}) {
    std::vector<std::string> elements;
    for (std::string_view e : SplitNul(bytes)) elements.emplace_back(e);
    EXPECT_EQ(JoinNul(elements), bytes) << EscapeBytes(bytes);
  }
}

TEST(StatusValue, FindsOneKeyLine) {
  const std::string status =
      "Name:\tsleep\nPid:\t8155\nPPid:\t8150\nTracerPid:\t0\nNSpid:\t8155\t3\n";
  EXPECT_EQ(StatusValue(status, "NSpid"), "8155\t3");  // the header's example
  EXPECT_EQ(StatusValue(status, "Name"), "sleep");
  EXPECT_EQ(StatusValue(status, "Pid"), "8155");  // not PPid or TracerPid
  EXPECT_EQ(StatusValue(status, "PPid"), "8150");
  EXPECT_FALSE(StatusValue(status, "Uid"));
  EXPECT_FALSE(StatusValue(status, "NS"));
  EXPECT_EQ(StatusValue("Umask:  0022", "Umask"), "0022");  // last line, no newline
}

// The four ids of a "Uid:" line, each a uid_t: past 2^32-1 the line is
// malformed (nullopt), never wrapped.
TEST(StatusIds, FourCanonicalIdsOfAtMost32BitsElseNone) {
  auto ids = StatusIds("Name:\tx\nUid:\t1000\t1001\t1002\t1003\nGid:\t5\t5\t5\t5\n", "Uid");
  ASSERT_TRUE(ids.has_value());
  EXPECT_EQ((*ids)[0], 1000u);
  EXPECT_EQ((*ids)[3], 1003u);
  EXPECT_EQ((*StatusIds("Uid: 4294967295 0 0 0", "Uid"))[0], 4294967295u);
  EXPECT_FALSE(StatusIds("Uid:\t4294967296\t0\t0\t0\n", "Uid"));
  EXPECT_FALSE(StatusIds("Uid:\t0\t0\t0\n", "Uid"));
  EXPECT_FALSE(StatusIds("Uid:\t0\t0\t0\t0\t0\n", "Uid"));
  EXPECT_FALSE(StatusIds("Uid:\t-1\t0\t0\t0\n", "Uid"));
  EXPECT_FALSE(StatusIds("Uid:\t01\t0\t0\t0\n", "Uid"));
  EXPECT_FALSE(StatusIds("Name:\tx\n", "Uid"));
}

TEST(EscapeBytes, PrintableAsIsEverythingElseHex) {
  EXPECT_EQ(EscapeBytes("sleep 120"), "sleep 120");
  EXPECT_EQ(EscapeBytes("a\\b"), "a\\x5cb");
  EXPECT_EQ(EscapeBytes("\0\n\xff~\x7f"s), "\\x00\\x0a\\xff~\\x7f");
  EXPECT_EQ(EscapeBytes("abcdef", 3), "abc...");
  EXPECT_EQ(EscapeBytes("abc", 3), "abc");
}

// legacy_marker.h: "echo $$ > M writes "N\n". One trailing newline is
// allowed; anything else that is not a canonical pid is nullopt."
TEST(ParseMarker, AcceptsOnlyACanonicalPidWithOneOptionalNewline) {
  EXPECT_EQ(ParseMarker("3\n"), 3);
  EXPECT_EQ(ParseMarker("3"), 3);
  EXPECT_EQ(ParseMarker("2147483647\n"), 2147483647);
  for (const std::string& bad : {""s, "\n"s, "0\n"s, "03\n"s, "3\n\n"s, " 3\n"s, "3 \n"s, "3\r\n"s,
                                 "-3\n"s, "+3\n"s, "2147483648\n"s, "3\0"s, "\n3"s}) {
    EXPECT_FALSE(ParseMarker(bad)) << EscapeBytes(bad);
  }
}

TEST(BootIdLine, DropsTheOneNewlineReadAndNothingElse) {
  EXPECT_EQ(BootIdLine("78ea422b-0000\n"), "78ea422b-0000");
  EXPECT_EQ(BootIdLine("78ea422b-0000"), "78ea422b-0000");
  EXPECT_EQ(BootIdLine("a\n\n"), "a\n");
  EXPECT_EQ(BootIdLine(""), "");
}

}  // namespace
}  // namespace proctape
