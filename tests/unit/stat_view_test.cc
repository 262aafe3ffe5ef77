// SPDX-License-Identifier: Apache-2.0
// ParseStatView (core/proc_parse.h) against the parser it replaced in the
// resolver: the previous ParseStat, kept here verbatim as the reference (split
// at the final ") " by rfind, the fields after it split into a vector). On
// every shape below both must decide alike: the same fields, or the same
// error text naming the same byte.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/proc_parse.h"

namespace proctape {
namespace {

using namespace std::string_literals;

// The reference: ParseStat as it was before ParseStatView existed.
namespace reference {

std::vector<std::string_view> SplitFields(std::string_view rest) {
  std::vector<std::string_view> out;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= rest.size(); ++i) {
    if (i == rest.size() || rest[i] == ' ') {
      out.push_back(rest.substr(begin, i - begin));
      begin = i + 1;
    }
  }
  return out;
}

std::optional<std::int64_t> ParseSignedDecimal(std::string_view text) {
  bool negative = !text.empty() && text[0] == '-';
  auto magnitude = ParseCanonicalDecimal(negative ? text.substr(1) : text, INT64_MAX);
  if (!magnitude) return std::nullopt;
  auto value = static_cast<std::int64_t>(*magnitude);
  return negative ? -value : value;
}

StatParse ParseStat(std::string_view stat) {
  StatParse result;
  auto fail = [&](std::size_t offset, const std::string& why) {
    result.error = "stat byte " + std::to_string(offset) + ": " + why;
    return result;
  };
  std::size_t open = stat.find(" (");
  if (open == std::string_view::npos) return fail(0, "no ' (' after field 1");
  std::size_t close = stat.rfind(") ");
  if (close == std::string_view::npos || close < open + 1) {
    return fail(stat.size(), "no final ') ' after comm");
  }
  auto pid = ParseCanonicalDecimal(stat.substr(0, open), kMaxPid);
  if (!pid || *pid == 0) return fail(0, "field 1 (pid) is not a canonical decimal pid");
  std::string_view rest = stat.substr(close + 2);
  std::size_t rest_offset = close + 2;
  if (!rest.empty() && rest.back() == '\n') rest.remove_suffix(1);
  std::vector<std::string_view> f = SplitFields(rest);
  if (f.size() < 20) return fail(stat.size(), "fewer than 22 fields");
  if (f[0].size() != 1) return fail(rest_offset, "field 3 (state) is not one character");
  auto offset_of = [&](std::size_t index) {
    return static_cast<std::size_t>(f[index].data() - stat.data());
  };
  auto ppid = ParseCanonicalDecimal(f[1], kMaxPid);
  if (!ppid) return fail(offset_of(1), "field 4 (ppid) is not a canonical decimal");
  auto pgrp = ParseSignedDecimal(f[2]);
  if (!pgrp) return fail(offset_of(2), "field 5 (pgrp) is not a decimal");
  auto session = ParseSignedDecimal(f[3]);
  if (!session) return fail(offset_of(3), "field 6 (session) is not a decimal");
  auto start = ParseCanonicalDecimal(f[19]);
  if (!start) return fail(offset_of(19), "field 22 (start time) is not a canonical decimal");
  StatFields fields;
  fields.pid = static_cast<std::int64_t>(*pid);
  fields.comm = std::string(stat.substr(open + 2, close - open - 2));
  fields.state = f[0][0];
  fields.ppid = static_cast<std::int64_t>(*ppid);
  fields.pgrp = *pgrp;
  fields.session = *session;
  fields.start_ticks = *start;
  result.fields = std::move(fields);
  return result;
}

}  // namespace reference

// Both parsers on `stat`: the same decision, fields and error text; and the
// comm view points into `stat` itself (nothing was copied).
void ExpectSameAsReference(const std::string& stat) {
  SCOPED_TRACE(EscapeBytes(stat, 400));
  StatParse want = reference::ParseStat(stat);
  StatViewParse got = ParseStatView(stat);
  ASSERT_EQ(got.ok(), want.ok()) << "reference: " << want.error << "; view: " << got.Error();
  if (!want.ok()) {
    EXPECT_EQ(got.Error(), want.error);
    // ParseStat, now built on the view, says the same.
    EXPECT_EQ(ParseStat(stat).error, want.error);
    return;
  }
  EXPECT_TRUE(got.Error().empty());
  const StatFields& w = *want.fields;
  const StatView& v = got.fields;
  EXPECT_EQ(v.pid, w.pid);
  EXPECT_EQ(v.comm, w.comm);
  EXPECT_EQ(v.state, w.state);
  EXPECT_EQ(v.ppid, w.ppid);
  EXPECT_EQ(v.pgrp, w.pgrp);
  EXPECT_EQ(v.session, w.session);
  EXPECT_EQ(v.start_ticks, w.start_ticks);
  EXPECT_GE(v.comm.data(), stat.data());
  EXPECT_LE(v.comm.data() + v.comm.size(), stat.data() + stat.size());
}

// A kernel-shaped line of 52 fields with `comm` inside the parentheses.
std::string Line52(const std::string& comm) {
  return "4103 (" + comm +
         ") S 4102 4102 4102 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 510003 8523776 230 "
         "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
}

const std::vector<std::string>& HostileComms() {
  static const std::vector<std::string> comms = {
      "sleep"s,     "x) Z 1 1 1"s, ") "s,
      ")"s,         ") ) "s,       "a\nb"s,
      "\n"s,        ""s,           "("s,
      "a (b"s,      " ("s,         "sleep) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7"s,
      "tab\there"s, "nul\0in"s,    "\xff\xfe\x80"s,
      "x)"s,        "x) "s,        "))))"s};
  return comms;
}

TEST(ParseStatView, ExtractsWhatParseStatDidFromHostileComms) {
  for (const std::string& comm : HostileComms()) ExpectSameAsReference(Line52(comm));
}

// A stat cut at any byte (a bound, a short read) decides as before: every
// prefix of a 52-field line, hostile comms included.
TEST(ParseStatView, ExtractsWhatParseStatDidFromEveryTruncation) {
  for (const std::string& comm : HostileComms()) {
    const std::string line = Line52(comm);
    for (std::size_t n = 0; n <= line.size(); ++n) ExpectSameAsReference(line.substr(0, n));
  }
}

// 52 fields, exactly 22, 21, trailing and doubled spaces, no newline, a
// newline inside the fields, two newlines, signed and non-canonical fields.
TEST(ParseStatView, ExtractsWhatParseStatDidFromEveryFieldCount) {
  const std::string head = "5 (a) S 1 1 1";
  std::string tail;
  for (int i = 7; i <= 52; ++i) {
    tail.push_back(' ');
    tail += std::to_string(i == 22 ? 99 : i);
    const std::string line = head + tail;
    ExpectSameAsReference(line);
    ExpectSameAsReference(line + "\n");
    ExpectSameAsReference(line + " ");
    ExpectSameAsReference(line + " \n");
    ExpectSameAsReference(line + "\n\n");
  }
  const std::string t = " 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 ";
  for (const std::string& line :
       std::vector<std::string>{"5 (a) S  1 1 1" + t + "99",
                                "5 (a) S 1 1 1" + t + " 99",
                                "5 (a) S 1\n1 1" + t + "99",
                                "5 (a) S 012 1 1" + t + "99",
                                "5 (a) S 1 1 1" + t + "099",
                                "5 (a) S +1 1 1" + t + "99",
                                "5 (a) S 1 -1 -0" + t + "99",
                                "5 (a) S 1 x 1" + t + "99",
                                "5 (a) S 1 1 --1" + t + "99",
                                "5 (a) SS 1 1 1" + t + "99",
                                "5 (a)  1 1 1" + t + "99",
                                "5 (a) S 2147483648 1 1" + t + "99",
                                "5 (a) S 1 1 1" + t + "18446744073709551616",
                                "5 (a) S 1 1 1" + t + "18446744073709551615",
                                "0 (a) S 1 1 1" + t + "99",
                                "05 (a) S 1 1 1" + t + "99",
                                " 5 (a) S 1 1 1" + t + "99",
                                "2147483648 (a) S 1 1 1" + t + "99",
                                "5 (a)S 1 1 1" + t + "99",
                                "5 a) S 1 1 1" + t + "99",
                                "5 () S 1 1 1" + t + "99",
                                "5 ( S 1 1 1" + t + "99",
                                "5 ()",
                                "5 () ",
                                "5 (",
                                " (",
                                ") (",
                                "5 (a) ",
                                ""}) {
    ExpectSameAsReference(line);
  }
}

}  // namespace
}  // namespace proctape
