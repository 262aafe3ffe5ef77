// SPDX-License-Identifier: Apache-2.0
// The JSON contract of the command line (`docs/cli/json.md`, "Errors,
// warnings and notes are JSON too")
// when a command fails: under --json, whatever a command says on standard
// error is JSON too, one object a line, the failure's last, with its message
// and exit status, every warning before it (json_cli_fixture.h reads them
// with a real JSON parser).
#include <google/protobuf/struct.pb.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/live/json_cli_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using google::protobuf::Value;
using live::CommandResult;
using live::Describe;
using live::FileBytes;
using live::TempDir;
using live::WriteFile;
using namespace live::json;  // json_cli_fixture.h

// ---- Failures under --json -------------------------------------------------

// Every line of standard error is a JSON object; the last names the failure
// and the exit status the command returned.
void ExpectJsonFailure(const CommandResult& r, int status, const std::string& what) {
  ASSERT_TRUE(r.started && !r.timed_out) << Describe(r);
  EXPECT_EQ(r.exit_code, status) << what << "\n" << Describe(r);
  ASSERT_FALSE(r.err.empty()) << what;
  std::istringstream err(r.err);
  Value last;
  for (std::string line; std::getline(err, line);) {
    Document d = ParseDocument(line);
    ASSERT_TRUE(d.ok) << what << ": standard error is not JSON: " << line;
    last = d.value;
  }
  EXPECT_FALSE(Text(At(last, {"error"})).empty()) << what << ": " << r.err;
  EXPECT_EQ(At(last, {"exit_status"}).number_value(), status) << what << ": " << r.err;
  ExpectAscii(r.err);
}

// A run that fails under --json ends with its failure as the last line of
// standard error, every warning before it, even one given after the failure
// was found: diff of a cut file (the damage, then "the order looks
// reversed"), verify of a cut file and then one that keeps environment
// values (the damage, then the kept values' warning).
TEST(JsonCli, AFailureIsTheLastLineOfStandardErrorItsWarningsBeforeIt) {
  TempDir dir("json");
  const std::string cut = dir.File("cut.ptape");
  const std::string whole = FileBytes(kBaseline);
  WriteFile(cut, whole.substr(0, whole.size() - 100));
  const std::string kept = dir.File("kept.ptape");
  const CommandResult captured =
      Proctape({"capture", "--root", std::to_string(::getpid()), "--env", "keep", "-o", kept});
  ASSERT_EQ(captured.exit_code, 0) << Describe(captured);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"diff", kBaseline, cut, "--json"},
        std::vector<std::string>{"verify", cut, kept, "--json"}}) {
    const CommandResult r = Proctape(args);
    std::string what;
    for (const std::string& a : args) what += a + " ";
    EXPECT_EQ(r.exit_code, 13) << what << "\n" << Describe(r);
    std::istringstream err(r.err);
    std::vector<Value> lines;
    for (std::string line; std::getline(err, line);) {
      Document d = ParseDocument(line);
      ASSERT_TRUE(d.ok) << what << ": standard error is not JSON: " << line;
      lines.push_back(d.value);
    }
    ASSERT_FALSE(lines.empty()) << what;
    std::size_t warnings = 0;
    bool failed = false;
    for (const Value& line : lines) {
      const bool is_warning = !Text(At(line, {"warning"})).empty();
      warnings += is_warning ? 1 : 0;
      EXPECT_FALSE(failed && is_warning) << what << ": a warning after the failure\n" << r.err;
      failed = failed || !Text(At(line, {"error"})).empty();
    }
    EXPECT_GE(warnings, 1u) << what << ": the warning this case is about\n" << r.err;
    EXPECT_FALSE(Text(At(lines.back(), {"error"})).empty()) << what << "\n" << r.err;
    EXPECT_EQ(At(lines.back(), {"exit_status"}).number_value(), 13) << what << "\n" << r.err;
  }
}

TEST(JsonCli, EveryFailureUnderJsonIsAJsonObjectOnStandardError) {
  TempDir dir("json");
  const std::string truncated = dir.File("truncated.ptape");
  const std::string whole = FileBytes(kExitedUnshare);
  WriteFile(truncated, whole.substr(0, whole.size() - 100));
  const std::string missing = dir.File("missing.ptape");

  ExpectJsonFailure(Proctape({"tree", missing, "--json"}), 10, "tree of a missing file");
  ExpectJsonFailure(Proctape({"tree", kPlainUnshare, "--frame", "9", "--json"}), 2,
                    "tree of a frame the file does not hold");
  ExpectJsonFailure(Proctape({"tree", truncated, "--json"}), 13, "tree of a truncated file");
  ExpectJsonFailure(Proctape({"diff", kPlainUnshare, "--frames", "0", "9", "--json"}), 2,
                    "diff of a frame the file does not hold");
  ExpectJsonFailure(Proctape({"diff", missing, kPlainUnshare, "--json"}), 10,
                    "diff of a missing file");
  ExpectJsonFailure(Proctape({"show", missing, "--json"}), 10, "show of a missing file");
  ExpectJsonFailure(Proctape({"show", truncated, "--json"}), 13, "show of a truncated file");
  ExpectJsonFailure(Proctape({"lab", "--record", dir.File("lab.ptape"), "--json"}), 2,
                    "lab without a scenario");
  ExpectJsonFailure(
      Proctape({"lab", "no-such-scenario", "--record", dir.File("lab.ptape"), "--json"}), 2,
      "lab of an unknown scenario");
  ExpectJsonFailure(Proctape({"resolve", "--token", "t", "--json"}), 2, "resolve without a root");
  ExpectJsonFailure(Proctape({"liveness", "--pid", "2147483647", "--start", "1", "--json"}), 2,
                    "liveness of a pid above pid_max");
}

}  // namespace
}  // namespace proctape
