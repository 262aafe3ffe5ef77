// SPDX-License-Identifier: Apache-2.0
// README.md's examples, as readme_test.cc runs them: every ```sh block, its
// commands (a line, with the lines its trailing '\' continues onto), the
// output each is said to print (the "#   ..." lines under it), the exit
// statuses its comment names, and the "<!-- not run: WHY -->" that marks a
// block not to run. Pure text functions: nothing here runs anything.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace proctape::live {

struct ReadmeCommand {
  int line = 0;                     // of README.md, from 1
  std::string text;                 // as written, continuation lines included
  std::vector<std::string> shapes;  // "#   RESOLVED host pid 48213, ..." without "#"
  std::set<int> statuses;           // 0, and each "exit N" its comment names
};

struct ReadmeBlock {
  int line = 0;         // of its opening fence
  std::string heading;  // the section it is in
  std::string not_run;  // why it is not run, from "<!-- not run: WHY -->" above it
  std::vector<ReadmeCommand> commands;
};

// Every ```sh block of `markdown`, in order.
std::vector<ReadmeBlock> ReadmeBlocks(const std::string& markdown);

// `text` with every whole-word `from` (not next to a letter, digit or '_')
// replaced by `to`.
std::string ReplaceWord(const std::string& text, const std::string& from, const std::string& to);

// The whitespace-separated words of `text`.
std::vector<std::string> Words(const std::string& text);

// The first whitespace-separated word of `line`, or "".
std::string FirstWord(const std::string& line);

// The numbers an example output stands for: where `shape` has a number of 4
// digits or more ("pid 48213,") and `actual` a number at the same word, the
// example's number -> the actual one. README uses them as placeholders in
// the commands that follow ("liveness --pid 48213").
std::map<std::string, std::string> PlaceholdersOf(const std::string& shape,
                                                  const std::string& actual);

// The words of `command` that it writes (after -o, --output, --out,
// --record, --junit or '>').
std::set<std::string> WrittenBy(const std::string& command);

// A name for a test: the words of `text`, capitalized and joined
// ("Using it by hand" -> "UsingItByHand").
std::string CamelCase(const std::string& text);

}  // namespace proctape::live
