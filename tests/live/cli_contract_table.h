// SPDX-License-Identifier: Apache-2.0
// What the contract tests need to know of each command that its --help
// cannot say: how to give it an input path, what it answers when that path is
// missing or of the wrong kind, and a cheap --json run that succeeds
// (docs/cli.md). The tests fail when the binary lists a command this table
// does not hold, or a path option or --json a row does not account for.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tests/live/cli_contract.h"

namespace proctape::live {

// What a command line of the table is built from.
struct Fixture {
  std::string dir;       // a fresh temporary directory, empty
  std::string self_pid;  // this test process, alive
  std::string self_start;
  std::string root;   // a sandbox's app-server and token, when a row asks
  std::string token;  //   for one (Row::json_needs_sandbox)
};
// The Fixture of a test without a sandbox: `dir`, and this test process.
Fixture FixtureIn(const std::string& dir);
using Args = std::vector<std::string>;

// A path a command reads, and what the contract says of it.
struct Input {
  std::string option;  // as --help names it: "FILE" (the positional), "--fingerprint"
  // A command line that reads `path` there and is otherwise valid.
  std::function<Args(const Fixture&, const std::string& path)> args;
  int missing = 10;            // the status when `path` does not exist
  int wrong_kind = 10;         // ... when it is a directory (or, for a directory input, a file)
  bool directory = false;      // it names a directory
  bool dash_is_stdin = false;  // '-' reads standard input (empty: truncated, 13)
};

struct Row {
  CommandWords command = {};
  std::vector<Input> inputs = {};
  // Path options of its help that are no input read, each with why (outputs
  // are held against outputs_cli_test.cc's writers instead).
  std::vector<std::pair<std::string, std::string>> not_inputs = {};
  // Options named like an output (-o/--output, --record, --junit) that write
  // no file, each with why.
  std::vector<std::pair<std::string, std::string>> not_written = {};
  // A --json run that succeeds (exit 0), or empty when --help lists no --json.
  std::function<Args(const Fixture&)> json = {};
  // A --json run whose finding is a failure (a verdict, a damaged file, a
  // refused plan: the report on standard output, a status neither 0 nor 2),
  // or empty when the command has none that runs cheaply here.
  std::function<Args(const Fixture&)> json_finding = {};
  bool json_needs_sandbox = false;  // json reads Fixture::root and ::token
  // A file it cannot read is its finding, reported on standard output
  // (verify, show: docs/cli/json.md, "Several files").
  bool failure_is_report = false;
};

const std::vector<Row>& ContractTable();
// Named in test output by its command ("corpus add").
void PrintTo(const Row& row, std::ostream* os);
// The row of `command`, or null.
const Row* FindRow(const CommandWords& command);

}  // namespace proctape::live
