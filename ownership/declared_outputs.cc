// SPDX-License-Identifier: Apache-2.0
#include "ownership/declared_outputs.h"

#include <sys/stat.h>

#include <cerrno>
#include <string>
#include <vector>

#include "ownership/frames.h"
#include "proto/summary.h"

namespace proctape {
namespace {

using Out = v1::DeclaredOutput;
using ownership::Quote;

std::string KindText(Out::Kind kind) {
  switch (kind) {
    case Out::REGULAR: return "a regular file";
    case Out::DIRECTORY: return "a directory";
    case Out::SYMLINK: return "a symbolic link";
    case Out::OTHER: return "a device, fifo or socket";
    case Out::MISSING: return "missing";
    default: return "unknown";
  }
}

// The paths to look up, parents first: "a//b/c/" -> "a", "a/b", "a/b/c";
// "/w/r" -> "/w", "/w/r".
std::vector<std::string> Prefixes(const std::string& path) {
  std::vector<std::string> out;
  std::string prefix = !path.empty() && path[0] == '/' ? "/" : "";
  std::size_t pos = 0;
  while (pos < path.size()) {
    std::size_t end = path.find('/', pos);
    if (end == std::string::npos) end = path.size();
    if (end > pos) {
      if (!prefix.empty() && prefix.back() != '/') prefix.push_back('/');
      prefix.append(path, pos, end - pos);
      out.push_back(prefix);
    }
    pos = end + 1;
  }
  return out;
}

Out Decided(const std::string& path, const std::string& at, Out::State state, const PathEntry& e,
            std::string detail) {
  Out o;
  o.set_path(EscapedText(path));
  o.set_decided_at(EscapedText(at));
  o.set_state(state);
  // Absent when the lookup failed (never KIND_UNSPECIFIED in an output).
  const Out::Kind kind = e.err == ENOENT ? Out::MISSING
                         : e.err != 0    ? Out::KIND_UNSPECIFIED
                                         : e.kind;
  if (kind != Out::KIND_UNSPECIFIED) o.set_kind(kind);
  o.set_err(e.err == ENOENT ? 0 : e.err);
  o.set_detail(std::move(detail));
  return o;
}

}  // namespace

PathEntry LivePathLookup::Lstat(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return PathEntry{errno, Out::KIND_UNSPECIFIED};
  Out::Kind kind = S_ISREG(st.st_mode)   ? Out::REGULAR
                   : S_ISDIR(st.st_mode) ? Out::DIRECTORY
                   : S_ISLNK(st.st_mode) ? Out::SYMLINK
                                         : Out::OTHER;
  return PathEntry{0, kind};
}

v1::DeclaredOutput PlanDeclaredOutput(const std::string& path, PathLookup& fs) {
  const std::vector<std::string> prefixes = Prefixes(path);
  if (prefixes.empty()) {
    return Decided(path, path, Out::FAIL_CLOSED, PathEntry{EINVAL, Out::KIND_UNSPECIFIED},
                   "names no file; the plan fails closed");
  }
  const std::string fails = "; the plan fails closed";
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    const std::string& at = prefixes[i];
    const bool output = i + 1 == prefixes.size();
    const PathEntry e = fs.Lstat(at);
    if (e.err == ENOENT) {
      // A missing parent means the output is already absent (docs/ownership.md,
      // "Declared outputs").
      return Decided(path, at, Out::ABSENT, e,
                     output ? "already absent: missing"
                            : "already absent: its parent " + Quote(at) + " is missing");
    }
    if (e.err != 0) {
      return Decided(
          path, at, Out::FAIL_CLOSED, e,
          Quote(at) + " cannot be looked up (errno " + std::to_string(e.err) + ")" + fails);
    }
    if (output) {
      return Decided(
          path, at, Out::PRESENT, e,
          "present: " + KindText(e.kind) +
              (e.kind == Out::SYMLINK ? " (not followed: cleanup removes the link)" : ""));
    }
    // A parent that is a symbolic link or not a directory fails closed
    // (docs/ownership.md, "Declared outputs").
    if (e.kind == Out::SYMLINK) {
      return Decided(
          path, at, Out::FAIL_CLOSED, e,
          "its parent " + Quote(at) + " is a symbolic link: cleanup would follow it" + fails);
    }
    if (e.kind != Out::DIRECTORY) {
      return Decided(
          path, at, Out::FAIL_CLOSED, e,
          "its parent " + Quote(at) + " is " + KindText(e.kind) + ", not a directory" + fails);
    }
  }
  return Out{};  // not reached: the last prefix is the output
}

}  // namespace proctape
