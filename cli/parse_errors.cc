// SPDX-License-Identifier: Apache-2.0
#include "cli/parse_errors.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/help.h"
#include "cli/options.h"

namespace proctape {
namespace {

// Levenshtein distance, for "did you mean".
std::size_t Distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// The command CLI11 was parsing: the deepest subcommand the line selected.
std::vector<const CLI::App*> ParsedChain(const CLI::App& app) {
  std::vector<const CLI::App*> chain = {&app};
  while (!chain.back()->get_subcommands().empty()) {
    chain.push_back(chain.back()->get_subcommands().front());
  }
  return chain;
}

// "-x", "--name", "--name=value"; not "-" (standard input) nor "-5".
bool LooksLikeOption(const std::string& word) {
  if (word.size() < 2 || word[0] != '-') return false;
  return !(word[1] >= '0' && word[1] <= '9');
}

std::vector<std::string> LongNames(const CLI::App* command) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : command->get_options()) {
    for (const std::string& name : opt->get_lnames()) names.push_back("--" + name);
  }
  return names;
}

// A description's first clause, to say what a missing value is. A set of
// choices says itself (json|dot|proc-dir): the first clause of its
// description would be its first choice alone, read as a default.
std::string Gist(const CLI::Option* opt) {
  if (ValueName(opt).find('|') != std::string::npos) return "";
  std::string desc = opt->get_description();
  std::replace(desc.begin(), desc.end(), '\n', ' ');
  std::size_t end = desc.size();
  for (const char* stop : {" (", "; ", ": ", ", ", ". "}) end = std::min(end, desc.find(stop));
  desc.resize(end);
  return desc.empty() ? "" : " (" + desc + ")";
}

// "--token TOKEN", or a positional's own name "FILE".
std::string Named(const CLI::Option* opt) {
  if (opt->get_positional()) return opt->get_name(true, false);
  const std::string value = ValueName(opt);
  return opt->get_name() + (value.empty() ? "" : " " + value);
}

// The subcommands of `command` as "add, check, list, rm".
std::string CommandList(const CLI::App* command) {
  std::string list;
  for (const CLI::App* sub : command->get_subcommands({})) {
    list += (list.empty() ? "" : ", ") + sub->get_name();
  }
  return list;
}

// The option of `command` an error message starts with ("--frame: ..."), or
// that it names after `marker` ("... arguments to --frames, got 1").
const CLI::Option* OptionNamed(const CLI::App* command, const std::string& name) {
  if (name.empty()) return nullptr;
  return command->get_option_no_throw(name);
}

std::string Before(const std::string& text, const std::string& separator) {
  const std::size_t at = text.find(separator);
  return at == std::string::npos ? "" : text.substr(0, at);
}

// A word where a subcommand of `level` was due: "unknown corpus command
// 'chek' (did you mean 'check'?)", else the list of its commands.
std::string UnknownCommand(const CLI::App* level, const std::string& word) {
  std::vector<std::string> names;
  for (const CLI::App* sub : level->get_subcommands({})) names.push_back(sub->get_name());
  std::string hint = DidYouMean(word, names);
  if (hint.empty()) hint = " (one of " + CommandList(level) + ")";
  return "unknown " + level->get_name() + " command " + Quoted(word) + hint;
}

// Whether `level` has subcommands and the line gave it none.
bool AwaitsCommand(const CLI::App* level) {
  return !level->get_subcommands({}).empty() && level->get_subcommands().empty();
}

// What was left over: a word where a command was due (the line went no
// further), else the first unknown option anywhere on the line, else the
// first argument no positional took. "" when nothing was left over.
std::string LeftOver(const std::vector<const CLI::App*>& chain) {
  const CLI::App* command = chain.back();
  for (const std::string& word : command->remaining()) {
    if (AwaitsCommand(command) && !LooksLikeOption(word)) return UnknownCommand(command, word);
  }
  for (const CLI::App* level : chain) {
    for (const std::string& word : level->remaining()) {
      if (!LooksLikeOption(word)) continue;
      const std::string name = word.substr(0, word.find('='));
      return "unknown option " + Quoted(name) + DidYouMean(name, LongNames(command));
    }
  }
  for (const CLI::App* level : chain) {
    for (const std::string& word : level->remaining()) return "unexpected argument " + Quoted(word);
  }
  return "";
}

std::string Missing(const CLI::App* command) {
  for (const CLI::Option* opt : command->get_options()) {
    if (opt->get_required() && opt->count() == 0) return "missing " + Named(opt) + Gist(opt);
  }
  if (command->get_require_subcommand_min() > 0 && command->get_subcommands().empty()) {
    return "missing a " + command->get_name() + " command (one of " + CommandList(command) + ")";
  }
  return "";
}

// "Expected exactly 2 arguments to --frames, got 1", or "".
std::string ValueCount(const CLI::App* command, const std::string& what) {
  if (!StartsWith(what, "Expected ")) return "";
  const std::size_t to = what.find(" arguments to ");
  const std::size_t got = what.find(", got ");
  if (to == std::string::npos || got == std::string::npos) return "";
  const std::string name = what.substr(to + 14, got - to - 14);
  const CLI::Option* opt = OptionNamed(command, name);
  const std::string count = what.substr(what.find_first_of("0123456789"));
  return name + " takes " + (StartsWith(what, "Expected at least") ? "at least " : "") +
         count.substr(0, count.find(' ')) + " values" + (opt ? Gist(opt) : "") + ", " +
         what.substr(got + 6) + " given";
}

// "--frame-a: At Most 1 required but received 2"
std::string TooMany(const CLI::Option* opt, const std::string& name, const std::string& what) {
  const std::string received = what.substr(what.rfind(' ') + 1);
  // A positional that took more than it may: the first word too many is an
  // argument no one takes, as any other.
  const auto max = static_cast<std::size_t>(opt->get_expected_max());
  if (opt->get_positional() && opt->results().size() > max) {
    return "unexpected argument " + Quoted(opt->results()[max]);
  }
  if (opt->get_expected_max() <= 1) {
    return name + " given " + received + " times (it takes one value)";
  }
  return name + " takes at most " + std::to_string(opt->get_expected_max()) + " values, " +
         received + " given";
}

// "--root: 1 required PID missing", "--x: At least 2 required but received 1".
// A set of choices says itself: "missing json|dot|proc-dir after --format".
// An option of several values names each ("--frames I J"): the ones given
// stand for theirs, "missing J after --frames I".
std::string MissingValues(const CLI::Option* opt, const std::string& name,
                          const std::string& what) {
  const std::string value = ValueName(opt);
  const bool choices = value.find('|') != std::string::npos;
  const std::size_t at = what.find("received ");
  const std::size_t received =
      at == std::string::npos ? 0 : std::strtoul(what.c_str() + at + 9, nullptr, 10);
  std::vector<std::string> words;
  for (std::size_t b = 0, e = 0; b < value.size(); b = e + 1) {
    e = value.find(' ', b);
    if (e == std::string::npos) e = value.size();
    words.push_back(value.substr(b, e - b));
  }
  if (opt->get_expected_min() > 1 && words.size() > 1 && received > 0 && received < words.size()) {
    // The values given, as typed (their names when CLI11 kept none).
    const std::vector<std::string>& typed = opt->results();
    std::string given, missing;
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::string& to = i < received ? given : missing;
      if (!to.empty()) to.push_back(' ');
      to += i < received && typed.size() == received ? typed[i] : words[i];
    }
    return "missing " + missing + " after " + name + " " + given + Gist(opt);
  }
  return "missing " + (value.empty() ? "a value" : value) + " after " + name +
         (choices ? "" : Gist(opt));
}

std::string Mismatch(const CLI::App* command, const std::string& what) {
  if (std::string counted = ValueCount(command, what); !counted.empty()) return counted;
  const std::string name = Before(what, ": ");
  const CLI::Option* opt = OptionNamed(command, name);
  if (opt == nullptr) return "";
  if (what.find("At Most ") != std::string::npos) return TooMany(opt, name, what);
  if (what.find(" missing") != std::string::npos || what.find("At least ") != std::string::npos) {
    return MissingValues(opt, name, what);
  }
  if (what.find("flag override") != std::string::npos) return name + " takes no value";
  return "";
}

// "--format: nope not in {json,dot,proc-dir}"
std::string Validation(const std::string& what) {
  const std::size_t not_in = what.find(" not in {");
  const std::size_t colon = what.find(": ");
  if (not_in == std::string::npos || colon == std::string::npos || what.back() != '}') return "";
  std::string choices = what.substr(not_in + 9, what.size() - not_in - 10);
  std::string list;
  for (char c : choices) list += c == ',' ? std::string(", ") : std::string(1, c);
  return what.substr(0, colon) + ": " + Quoted(what.substr(colon + 2, not_in - colon - 2)) +
         " is not one of " + list;
}

std::string Conversion(const std::string& what) {
  // "--json: too many inputs for a flag", "--json: Should be true/false or a number"
  if (what.find("for a flag") != std::string::npos ||
      what.find("Should be true/false") != std::string::npos) {
    return Before(what, ": ") + " takes no value";
  }
  // "Could not convert: --x = abc"
  if (StartsWith(what, "Could not convert: ")) {
    const std::string rest = what.substr(19);
    const std::size_t eq = rest.find(" = ");
    if (eq != std::string::npos) {
      return rest.substr(0, eq) + ": " + Quoted(rest.substr(eq + 3)) + " is not a valid value";
    }
  }
  // "The value abc is not an allowed value for --x"
  if (StartsWith(what, "The value ")) {
    const std::size_t is = what.find(" is not an allowed value for ");
    if (is != std::string::npos) {
      return what.substr(is + 29) + ": " + Quoted(what.substr(10, is - 10)) +
             " is not an allowed value";
    }
  }
  return "";
}

}  // namespace

std::string DidYouMean(const std::string& word, const std::vector<std::string>& names) {
  // Two edits away at most, one for a word of three letters or less ("--no"
  // is not "--env"); the dashes of an option count for nothing, and so does
  // case (SHOW is 'show', --TOKEN '--token': every name is lower case).
  auto bare = [](const std::string& s) {
    std::string out = s.substr(std::min(s.find_first_not_of('-'), s.size()));
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  std::string best;
  std::size_t best_distance = bare(word).size() <= 3 ? 2 : 3;
  for (const std::string& name : names) {
    const std::size_t d = Distance(bare(word), bare(name));
    if (d < best_distance) {
      best_distance = d;
      best = name;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

std::string ParseErrorText(const CLI::App& app, const CLI::ParseError& error) {
  const std::vector<const CLI::App*> chain = ParsedChain(app);
  const CLI::App* command = chain.back();
  const std::string what = error.what();
  std::string text = LeftOver(chain);
  if (text.empty() && dynamic_cast<const CLI::RequiredError*>(&error) != nullptr) {
    text = Missing(command);
  }
  if (text.empty() && dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    text = Mismatch(command, what);
  }
  if (text.empty() && dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) {
    text = Validation(what);
  }
  if (text.empty() && dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) {
    text = Conversion(what);
  }
  if (text.empty() && dynamic_cast<const CLI::ExcludesError*>(&error) != nullptr) {
    // "--fingerprint excludes --root-start"
    const std::size_t at = what.find(" excludes ");
    if (at != std::string::npos) {
      text = what.substr(0, at) + " and " + what.substr(at + 10) + " cannot be given together";
    }
  }
  if (text.empty() && dynamic_cast<const CLI::RequiresError*>(&error) != nullptr) {
    const std::size_t at = what.find(" requires ");
    if (at != std::string::npos) text = what.substr(0, at) + " needs " + what.substr(at + 10);
  }
  // A kind proctape's options cannot raise (CLI11's own validation messages
  // are already "NAME: what"): said as CLI11 says it.
  return text.empty() ? what : text;
}

}  // namespace proctape
