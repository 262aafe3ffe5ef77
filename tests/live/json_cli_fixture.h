// SPDX-License-Identifier: Apache-2.0
// What the live tests of the JSON contract (json_cli_test.cc,
// json_failures_cli_test.cc; docs/cli/json.md) share: the corpus recordings
// they read, the binary run, a --json output parsed with a real JSON parser
// (protobuf's, into a google.protobuf.Value), the value at a path of keys and
// indexes, and the rules every --json output keeps: one document, counts as
// numbers, escaped ASCII text. In proctape::live::json: its Proctape is not
// files.h's.
#pragma once

#include <google/protobuf/struct.pb.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/json_document.h"
#include "tests/live/sandbox.h"
#include "tests/live/source_dir.h"

namespace proctape::live::json {

using google::protobuf::Value;

// Corpus recordings (corpus/MANIFEST), by the entry they are.
inline const std::string kExitedUnshare = kSource + "/corpus/90f88ffa55b074b2.ptape";  // 3 checks
inline const std::string kHostileComm = kSource + "/corpus/d40fb836ad433348.ptape";
inline const std::string kPlainUnshare = kSource + "/corpus/f46add6575430d19.ptape";
inline const std::string kBaseline = kSource + "/corpus/021e7cdf322033a4.ptape";

inline CommandResult Proctape(std::vector<std::string> args) {
  args.insert(args.begin(), ::proctape::live::TestedBinary());
  return live::RunCommand(args, 120'000);
}

using Document = live::JsonDocument;
inline Document ParseDocument(const std::string& text) { return live::ParseJsonDocument(text); }

// The value at a path of keys and indexes, or a null Value when it is not
// there (the test then fails on its kind).
using Step = std::variant<std::string, int>;
inline Value At(const Value& root, std::initializer_list<Step> path) {
  const Value* v = &root;
  for (const Step& step : path) {
    if (const std::string* key = std::get_if<std::string>(&step)) {
      if (v->kind_case() != Value::kStructValue) return Value();
      auto it = v->struct_value().fields().find(*key);
      if (it == v->struct_value().fields().end()) return Value();
      v = &it->second;
    } else {
      const int i = std::get<int>(step);
      if (v->kind_case() != Value::kListValue || i >= v->list_value().values_size()) return Value();
      v = &v->list_value().values(i);
    }
  }
  return *v;
}

inline bool IsNumber(const Value& v) { return v.kind_case() == Value::kNumberValue; }
inline std::string Text(const Value& v) {
  return v.kind_case() == Value::kStringValue ? v.string_value() : "<not a string>";
}

// Keys whose values protobuf's mapping prints as strings because they need
// 64 bits (the documented list, docs/cli/json.md), and keys of host text,
// which may well be digits ("120" in an argv).
inline bool SixtyFourBit(const std::string& key) {
  static const std::set<std::string> keys = {"start_ticks",
                                             "root_start_ticks",
                                             "scanned_start_ticks",
                                             "subject_start_ticks",
                                             "baseline_start_ticks",
                                             "self_start_ticks",
                                             "expected_ticks",
                                             "dev",
                                             "ino",
                                             "capturer_pid_ns_inode"};
  auto ends = [&key](const std::string& suffix) {
    return key.size() >= suffix.size() &&
           key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return keys.count(key) > 0 || ends("_mono_ns") || ends("_realtime_ns");
}
inline bool HostText(const std::string& key) {
  static const std::set<std::string> keys = {"argv",   "command_line", "comm", "root_comm",
                                             "marker", "hostname",     "name", "file",
                                             "detail", "summary"};
  return keys.count(key) > 0;
}

inline bool DecimalInteger(const std::string& s) {
  std::size_t i = !s.empty() && s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  return true;
}

// The number rule, everywhere in `v`: a decimal integer in a string is a
// documented 64-bit value or host text; never a count.
inline void ExpectNumberRule(const Value& v, const std::string& key, const std::string& where) {
  switch (v.kind_case()) {
    case Value::kStringValue:
      if (DecimalInteger(v.string_value())) {
        EXPECT_TRUE(SixtyFourBit(key) || HostText(key))
            << where << ": \"" << key << "\" is the string \"" << v.string_value()
            << "\": a count or a pid must be a JSON number";
      }
      break;
    case Value::kStructValue:
      for (const auto& [k, child] : v.struct_value().fields()) {
        ExpectNumberRule(child, k, where + "." + k);
      }
      break;
    case Value::kListValue:
      for (int i = 0; i < v.list_value().values_size(); ++i) {
        ExpectNumberRule(v.list_value().values(i), key, where + "[" + std::to_string(i) + "]");
      }
      break;
    default: break;
  }
}

// Escaped text keeps every output byte printable ASCII.
inline void ExpectAscii(const std::string& text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    ASSERT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "byte " << static_cast<int>(u);
  }
}

// A --json success: one document on standard output, keeping the rules, and
// nothing but JSON lines on standard error.
inline Value ExpectJsonOutput(const CommandResult& r, const std::string& what) {
  EXPECT_TRUE(r.started && !r.timed_out) << Describe(r);
  Document d = ParseDocument(r.out);
  EXPECT_TRUE(d.ok) << what << ": standard output is not one JSON document: " << d.why << "\n"
                    << r.out;
  ExpectAscii(r.out);
  ExpectNumberRule(d.value, "", what);
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    EXPECT_TRUE(ParseDocument(line).ok) << what << ": standard error is not JSON: " << line;
  }
  return d.value;
}

}  // namespace proctape::live::json
