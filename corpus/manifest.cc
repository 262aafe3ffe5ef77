#include "corpus/manifest.h"

#include <map>

#include "core/proc_parse.h"
#include "corpus/expect.h"

namespace proctape {
namespace {

constexpr std::size_t kKeyWidth = 9;  // "captured" and one space

bool IsLowerHex(std::string_view s, std::size_t n) {
  if (s.size() != n) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Undoes EscapeValue: \xNN is the byte NN; any other backslash is an error.
bool Unescape(std::string_view in, std::string* out, std::string* error) {
  out->clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '\\') {
      out->push_back(in[i]);
      continue;
    }
    int hi = i + 3 < in.size() && in[i + 1] == 'x' ? HexDigit(in[i + 2]) : -1;
    int lo = hi >= 0 ? HexDigit(in[i + 3]) : -1;
    if (lo < 0) {
      *error = "bad escape (a value writes a backslash as \\x5c, other bytes as \\xNN)";
      return false;
    }
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 3;
  }
  return true;
}

bool IsBlank(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

struct Parser {
  Parser(Manifest* m, ManifestError* e) : out(m), error(e) {}
  Manifest* out;
  ManifestError* error;
  std::vector<std::string> pending;             // comment lines not yet placed
  ManifestEntry* open = nullptr;                // the entry whose block is open
  std::map<std::string, int> names;             // name -> line
  std::map<std::string, std::string> contents;  // sha256 -> name

  bool Fail(int line, std::string message) {
    *error = ManifestError{line, std::move(message)};
    return false;
  }

  // Closes the open block: its required keys, its file name, its content.
  bool Close() {
    if (open == nullptr) return true;
    ManifestEntry& e = *open;
    open = nullptr;
    for (auto [key, present] : {std::pair{"file", !e.file.empty()},
                                {"sha256", !e.sha256.empty()},
                                {"expect", !e.expects.empty()}}) {
      if (!present) return Fail(e.line, "entry " + e.name + " has no " + key + " line");
    }
    if (e.file != CorpusFileName(e.sha256)) {
      return Fail(e.line, "entry " + e.name + ": file " + EscapeValue(e.file) +
                              " is not named by its sha256 (" + CorpusFileName(e.sha256) + ")");
    }
    auto [it, added] = contents.emplace(e.sha256, e.name);
    if (!added) {
      return Fail(e.line, "entry " + e.name + " has the content (sha256) of entry " + it->second);
    }
    return true;
  }

  bool Key(int n, const std::string& key, const std::string& value) {
    if (key == "entry") {
      if (!Close()) return false;
      if (!IsEntryName(value)) {
        return Fail(n, "entry name " + EscapeValue(value) +
                           " is not 1 to 64 of [A-Za-z0-9._-] beginning with a letter or digit");
      }
      auto [it, added] = names.emplace(value, n);
      if (!added) {
        return Fail(n,
                    "entry " + value + " is already defined at line " + std::to_string(it->second));
      }
      out->entries.emplace_back();
      open = &out->entries.back();
      open->name = value;
      open->line = n;
      open->comments = std::move(pending);
      pending.clear();
      return true;
    }
    if (open == nullptr) {
      return Fail(n, key + " outside an entry (a block begins with 'entry NAME')");
    }
    for (std::string& c : pending) open->comments.push_back(std::move(c));
    pending.clear();
    ManifestEntry& e = *open;
    if (key == "expect") {
      std::string why = ExpectSyntaxError(value);
      if (!why.empty()) return Fail(n, "expect " + EscapeValue(value) + ": " + why);
      e.expects.push_back(value);
      return true;
    }
    std::string* field = key == "file"       ? &e.file
                         : key == "sha256"   ? &e.sha256
                         : key == "shows"    ? &e.shows
                         : key == "kernel"   ? &e.kernel
                         : key == "captured" ? &e.captured
                         : key == "scenario" ? &e.scenario
                                             : nullptr;
    if (field == nullptr) {
      return Fail(n, "unknown key '" + EscapeValue(key) +
                         "' (keys: entry file sha256 expect shows kernel captured scenario)");
    }
    if (!field->empty()) return Fail(n, "entry " + e.name + " has a second " + key + " line");
    if (key == "sha256" && !IsLowerHex(value, 64)) {
      return Fail(n, "sha256 " + EscapeValue(value) + " is not 64 lowercase hex digits");
    }
    *field = value;
    return true;
  }

  bool Line(int n, std::string_view line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      auto c = static_cast<unsigned char>(line[i]);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return Fail(n, "control byte " + EscapeBytes(line.substr(i, 1)) + " at column " +
                           std::to_string(i + 1) + " (values are written with \\xNN escapes)");
      }
    }
    if (IsBlank(line)) {
      for (std::string& c : pending) out->comments.push_back(std::move(c));
      pending.clear();
      return Close();
    }
    std::size_t start = line.find_first_not_of(" \t");
    if (line[start] == '#') {
      pending.emplace_back(line);
      return true;
    }
    if (start != 0) return Fail(n, "a key begins its line (no leading space)");
    std::size_t key_end = line.find_first_of(" \t");
    std::string key(line.substr(0, key_end));
    std::size_t value_start =
        key_end == std::string_view::npos ? line.size() : line.find_first_not_of(" \t", key_end);
    std::size_t value_end = line.find_last_not_of(" \t") + 1;
    if (value_start == std::string_view::npos || value_start >= value_end) {
      return Fail(n, EscapeValue(key) + " has no value");
    }
    std::string value, why;
    if (!Unescape(line.substr(value_start, value_end - value_start), &value, &why)) {
      return Fail(n, why);
    }
    return Key(n, key, value);
  }
};

}  // namespace

bool IsEntryName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool alnum = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '.' && c != '_' && c != '-'))) return false;
  }
  return true;
}

std::string CorpusFileName(std::string_view sha256) {
  return std::string(sha256.substr(0, 16)) + ".ptape";
}

bool ParseManifest(std::string_view text, Manifest* out, ManifestError* error) {
  *out = Manifest{};
  Parser p(out, error);
  std::size_t end = text.find('\n');
  if (text.substr(0, end) != kManifestHeader) {
    return p.Fail(
        1, std::string("not a corpus manifest: the first line must be '") + kManifestHeader + "'");
  }
  int n = 1;
  for (std::size_t at = end; at != std::string_view::npos && at + 1 < text.size();) {
    std::size_t next = text.find('\n', at + 1);
    std::string_view line = text.substr(
        at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1);
    if (!p.Line(++n, line)) return false;
    at = next;
  }
  if (!p.Close()) return false;
  for (std::string& c : p.pending) out->comments.push_back(std::move(c));
  return true;
}

std::string EscapeValue(std::string_view value) {
  std::string out = EscapeBytes(value, value.size());
  if (!out.empty() && out.front() == ' ') out.replace(0, 1, "\\x20");
  if (!out.empty() && out.back() == ' ') out.replace(out.size() - 1, 1, "\\x20");
  return out;
}

std::string FormatManifest(const Manifest& m) {
  std::string out = std::string(kManifestHeader) + "\n";
  for (const std::string& c : m.comments) out += c + "\n";
  auto key = [&out](std::string_view k, std::string_view value) {
    if (value.empty()) return;
    out.append(k).append(kKeyWidth - k.size(), ' ').append(EscapeValue(value)).append("\n");
  };
  for (const ManifestEntry& e : m.entries) {
    out += "\n";
    for (const std::string& c : e.comments) out += c + "\n";
    key("entry", e.name);
    key("file", e.file);
    key("sha256", e.sha256);
    for (const std::string& x : e.expects) key("expect", x);
    key("shows", e.shows);
    key("kernel", e.kernel);
    key("captured", e.captured);
    key("scenario", e.scenario);
  }
  return out;
}

}  // namespace proctape
