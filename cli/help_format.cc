// SPDX-License-Identifier: Apache-2.0
// The help's layout (cli/help.h): the Formatter every command's --help
// goes through, and Reflow, which fits a description to 80 columns.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cli/help.h"
#include "core/wrap.h"

namespace proctape {
namespace {

std::size_t Indent(const std::string& line) {
  const std::size_t n = line.find_first_not_of(' ');
  return n == std::string::npos ? line.size() : n;
}

}  // namespace

namespace {

// The text being filled: words put on the current line until `width`,
// then on a new line at the block's hanging indent.
struct Filler {
  explicit Filler(std::size_t line_width) : width(line_width) {}

  std::size_t width;
  std::string out;
  std::size_t column = 0;      // of the output line being filled
  std::size_t hanging = 0;     // where the block's wrapped lines start
  bool words_on_line = false;  // a word was put since the line (or label) began

  void Put(const std::string& w) {
    if (words_on_line && column + 1 + w.size() > width) {
      out += "\n" + std::string(hanging, ' ');
      column = hanging;
      words_on_line = false;
    }
    if (words_on_line) {
      out += ' ';
      ++column;
    }
    out += w;
    column += w.size();
    words_on_line = true;
  }
  void PutWords(const std::string& part) {
    std::istringstream words(part);
    for (std::string w; words >> w;) Put(w);
  }
};

}  // namespace

std::string Reflow(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  Filler f(width);
  std::size_t start = 0;  // the indent of the block's first line
  bool open = false;      // a block is being filled
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    const std::size_t indent = Indent(line);
    if (indent == line.size()) {  // a blank line ends the block
      f.out += open ? "\n\n" : "\n";
      open = false;
      continue;
    }
    if (open && indent == f.hanging && (indent == 0 || f.hanging > start)) {
      f.PutWords(line.substr(indent));  // the block continues
      continue;
    }
    if (open) f.out += "\n";
    open = true;
    start = f.column = f.hanging = indent;
    f.words_on_line = false;
    if (indent == 0) {
      f.PutWords(line);
      continue;
    }
    // An item: "  json      the whole file" hangs where its text starts,
    // after the label's run of spaces; "  - each attempt: ..." under its
    // next line's deeper indent, or two columns in.
    const std::size_t label_end = line.find("  ", indent);
    const std::size_t text_at =
        label_end == std::string::npos ? std::string::npos : line.find_first_not_of(' ', label_end);
    const std::size_t next = i + 1 < lines.size() ? Indent(lines[i + 1]) : 0;
    const bool deeper = next > indent && next < lines[i + 1].size();
    f.hanging = text_at != std::string::npos ? text_at : deeper ? next : indent + 2;
    // An item of one line that fits is kept as written (a table's spacing).
    if (line.size() <= width && !(deeper && next == f.hanging)) {
      f.out += line + "\n";
      open = false;
      continue;
    }
    f.out += std::string(indent, ' ');
    if (text_at != std::string::npos) {
      f.out += line.substr(indent, text_at - indent);
      f.column = text_at;
      f.PutWords(line.substr(text_at));
      continue;
    }
    f.PutWords(line.substr(indent));
  }
  if (open) f.out += "\n";
  return f.out;
}

std::string ValueName(const CLI::Option* opt) {
  if (opt->get_type_size() == 0 || opt->get_positional()) return "";
  std::string type = opt->get_type_name();
  if (std::size_t brace = type.find(":{"); brace != std::string::npos && type.back() == '}') {
    type = type.substr(brace + 2, type.size() - brace - 3);
    std::replace(type.begin(), type.end(), ',', '|');
  }
  if (type == "TEXT") type = "VALUE";
  if (type == "INT" || type == "UINT" || type == "INT64" || type == "UINT64") type = "N";
  return type;
}

namespace {

class Formatter : public CLI::Formatter {
 public:
  Formatter() {
    column_width(28);
    label("REQUIRED", "(required)");
  }
  // The description wrapped to fit 80 columns beside the option column.
  std::string make_option_desc(const CLI::Option* opt) const override {
    const std::size_t width = 80 - get_column_width();
    std::string out;
    std::size_t line = 0;
    std::string word;
    auto flush = [&] {
      if (word.empty()) return;
      if (line > 0 && line + 1 + word.size() > width) {
        out += "\n";
        line = 0;
      } else if (line > 0) {
        out += " ";
        ++line;
      }
      out += word;
      line += word.size();
      word.clear();
    };
    for (char c : opt->get_description()) {
      if (c == ' ' || c == '\n') {
        flush();
        if (c == '\n') {
          out += "\n";
          line = 0;
        }
      } else {
        word += c;
      }
    }
    flush();
    return out;
  }
  // " NAME", "=DEFAULT", " ...", " (required)": CLI11's generic type names
  // (TEXT, INT, UINT) become VALUE and N; a set of choices ("TEXT:{a,b}")
  // is shown as "a|b". A positional is named by itself: no type after it.
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string out;
    if (opt->get_type_size() != 0) {
      const std::string type = ValueName(opt);
      if (!type.empty()) out += " " + type;
      if (!opt->get_default_str().empty()) out += "=" + opt->get_default_str();
      if (opt->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
      if (opt->get_required()) out += " (required)";
    }
    return out;
  }
  // A positional in the usage line: "FILE", "FILE...", "FILE [FILE]",
  // "[DIR]" (never CLI11's "FILES(1x)").
  std::string make_option_usage(const CLI::Option* opt) const override {
    const std::string name = opt->get_name(true, false);
    std::string out = name;
    const int min = std::max(opt->get_expected_min(), 1);
    if (opt->get_expected_max() >= CLI::detail::expected_max_vector_size) {
      out += "...";
    } else {
      for (int i = 1; i < min; ++i) out += " " + name;
      for (int i = min; i < opt->get_expected_max(); ++i) out += " [" + name + "]";
    }
    return opt->get_required() ? out : "[" + out + "]";
  }
  // The description, reflowed to 80 columns, then a blank line before "Usage:".
  std::string make_description(const CLI::App* app) const override {
    const std::string desc = app->get_description();
    return desc.empty() ? "" : Reflow(desc, 80) + "\n";
  }
  // A subcommand in its parent's list: its name and the first sentence of
  // its description, wrapped to 80 columns.
  std::string make_subcommand(const CLI::App* sub) const override {
    std::string desc = sub->get_description();
    for (char& c : desc) {
      if (c == '\n') c = ' ';
    }
    if (std::size_t end = desc.find(". "); end != std::string::npos) desc.resize(end + 1);
    std::string out = "  " + sub->get_name();
    out.resize(std::max<std::size_t>(out.size() + 1, get_column_width()), ' ');
    return WrapHanging(std::move(out), desc, get_column_width());
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> MakeFormatter() { return std::make_shared<Formatter>(); }

}  // namespace proctape
