// SPDX-License-Identifier: Apache-2.0
#include "tests/live/readme_examples.h"

#include <cctype>
#include <sstream>

namespace proctape::live {
namespace {

std::string TrimLeft(const std::string& s) {
  const std::size_t at = s.find_first_not_of(" \t");
  return at == std::string::npos ? "" : s.substr(at);
}

std::string Trim(const std::string& s) {
  std::string out = TrimLeft(s);
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  return out;
}

bool WordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A word without the punctuation around it in a sentence: "(1", "48213,".
std::string Bare(std::string w) {
  while (!w.empty() && std::string("(\"'").find(w.front()) != std::string::npos) w.erase(0, 1);
  while (!w.empty() && std::string(",:;)\"'").find(w.back()) != std::string::npos) w.pop_back();
  return w;
}

// The trailing comment of a command: from a '#' that starts a word outside
// quotes to the end of its line.
std::string CommentOf(const std::string& command) {
  char quote = 0;
  for (std::size_t i = 0; i < command.size(); ++i) {
    const char c = command[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || command[i - 1] == ' ' || command[i - 1] == '\t')) {
      return command.substr(i, command.find('\n', i) - i);
    }
  }
  return "";
}

// Plain string scanning, not <regex>: GCC 12's sanitizer build warns (as an
// error) inside std::regex's own headers.
std::set<int> StatusesOf(const std::string& command) {
  std::set<int> out = {0};
  const std::string comment = CommentOf(command);
  for (std::size_t at = comment.find("exit "); at != std::string::npos;
       at = comment.find("exit ", at + 1)) {
    std::size_t end = at + 5;
    while (end < comment.size() && comment[end] >= '0' && comment[end] <= '9') ++end;
    if (end > at + 5 && end - at - 5 <= 3)
      out.insert(std::stoi(comment.substr(at + 5, end - at - 5)));
  }
  return out;
}

// "<!-- not run: WHY -->" -> WHY; "" for any other line.
std::string NotRun(const std::string& line) {
  const std::string open = "<!-- not run: ", close = " -->";
  if (line.size() <= open.size() + close.size() || line.compare(0, open.size(), open) != 0 ||
      line.compare(line.size() - close.size(), close.size(), close) != 0) {
    return "";
  }
  std::string why = line.substr(open.size(), line.size() - open.size() - close.size());
  while (!why.empty() && (why.back() == ' ' || why.back() == '\t')) why.pop_back();
  return why;
}

}  // namespace

std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<ReadmeBlock> ReadmeBlocks(const std::string& markdown) {
  std::vector<ReadmeBlock> out;
  std::istringstream in(markdown);
  std::string heading, above;
  bool in_block = false, sh = false, continued = false;
  std::size_t indent = 0;
  ReadmeBlock block;
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::string trimmed = Trim(line);
    if (!in_block) {
      if (trimmed.rfind("```", 0) == 0) {
        in_block = true;
        sh = trimmed == "```sh";
        indent = line.find('`');
        block = ReadmeBlock{number, heading, NotRun(above), {}};
        continued = false;
      } else if (line.rfind("#", 0) == 0) {
        heading = Trim(line.substr(line.find_first_not_of('#')));
      }
      if (!trimmed.empty()) above = trimmed;
      continue;
    }
    if (trimmed.rfind("```", 0) == 0) {
      in_block = false;
      if (sh) out.push_back(block);
      above.clear();
      continue;
    }
    if (!sh) continue;
    const std::string body = line.substr(std::min(indent, line.find_first_not_of(' ')));
    if (continued) {
      block.commands.back().text += "\n" + body;
    } else if (trimmed.empty()) {
      continue;
    } else if (trimmed[0] == '#') {
      // "#   output" under a command is what it prints; "# words" is a remark.
      if (trimmed.rfind("#   ", 0) == 0 && !block.commands.empty()) {
        block.commands.back().shapes.push_back(Trim(trimmed.substr(1)));
      }
      continue;
    } else {
      block.commands.push_back({number, body, {}, {}});
    }
    continued = !trimmed.empty() && trimmed.back() == '\\';
    if (!continued) block.commands.back().statuses = StatusesOf(block.commands.back().text);
  }
  return out;
}

std::string ReplaceWord(const std::string& text, const std::string& from, const std::string& to) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t at = text.find(from, i);
    if (at == std::string::npos) break;
    const std::size_t end = at + from.size();
    const bool whole =
        (at == 0 || !WordChar(text[at - 1])) && (end == text.size() || !WordChar(text[end]));
    out += text.substr(i, at - i) + (whole ? to : from);
    i = end;
  }
  return out + text.substr(std::min(i, text.size()));
}

std::string FirstWord(const std::string& line) {
  const std::vector<std::string> words = Words(line);
  return words.empty() ? "" : words.front();
}

std::map<std::string, std::string> PlaceholdersOf(const std::string& shape,
                                                  const std::string& actual) {
  std::map<std::string, std::string> out;
  const std::vector<std::string> a = Words(shape), b = Words(actual);
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const std::string from = Bare(a[i]), to = Bare(b[i]);
    if (from.size() >= 4 && AllDigits(from) && AllDigits(to) && from != to) out[from] = to;
  }
  return out;
}

std::set<std::string> WrittenBy(const std::string& command) {
  static const std::set<std::string> options = {"-o",       "--output", "--out",
                                                "--record", "--junit",  ">"};
  std::set<std::string> out;
  const std::vector<std::string> words = Words(command);
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (options.count(words[i - 1]) > 0) out.insert(words[i]);
  }
  return out;
}

std::string CamelCase(const std::string& text) {
  std::string out;
  bool upper = true;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0) {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

}  // namespace proctape::live
