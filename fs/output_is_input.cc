// SPDX-License-Identifier: Apache-2.0
#include "fs/output_is_input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <optional>

#include "core/proc_parse.h"

namespace proctape {
namespace {

struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  bool directory = false;
  bool operator==(const FileId& other) const { return dev == other.dev && ino == other.ino; }
};

FileId IdOf(const struct stat& st) { return {st.st_dev, st.st_ino, S_ISDIR(st.st_mode)}; }

// What `path` names, links followed ("-": standard input); nothing when it
// does not exist or cannot be seen.
std::optional<FileId> IdOfPath(const std::string& path) {
  struct stat st {};
  const int got = path == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(path.c_str(), &st);
  if (got != 0) return std::nullopt;
  return IdOf(st);
}

// The directory `path` is in ("a/b" -> "a", "b" -> ".", "/b" -> "/"), a
// trailing '/' not counted.
std::string DirectoryOf(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Whether the directory `start`, or one of the directories above it (by
// "..", so where it really is, whatever links led to it), is `dir`.
bool AtOrBeneath(const std::string& start, const FileId& dir) {
  int fd = ::open(start.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  for (int depth = 0; fd >= 0 && depth < 4096; ++depth) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) break;
    if (IdOf(st) == dir) {
      ::close(fd);
      return true;
    }
    const int up = ::openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct stat above {};
    if (up < 0 || ::fstat(up, &above) != 0 || IdOf(above) == IdOf(st)) {  // "/" is its own ".."
      if (up >= 0) ::close(up);
      break;
    }
    ::close(fd);
    fd = up;
  }
  if (fd >= 0) ::close(fd);
  return false;
}

std::string Named(const InputPath& input) {
  if (input.path == "-") return "standard input";
  return input.option + " '" + EscapeBytes(input.path, 4096) + "'";
}

// What an output is of `inputs` ("the same file as FILE 'x'", "inside the
// corpus 'cj'", "a directory that holds FILE 'x'"), or "": `out` its
// identity when it exists, `where` the directory it is (a directory) or would
// be in ("": not known), `path` its name when it has one; `directory_output`:
// the output is a directory (export --format proc-dir), looked for above each
// input. A file output that names a directory is no input, whatever the
// directory holds: OutputFile refuses it as a directory, as every other.
std::string InputItIs(const std::optional<FileId>& out, const std::string& where,
                      const std::string& path, bool directory_output,
                      const std::vector<InputPath>& inputs) {
  for (const InputPath& input : inputs) {
    if (input.path.empty()) continue;
    const std::optional<FileId> in = IdOfPath(input.path);
    if (!in) continue;
    if (out && *out == *in) return "the same file as " + Named(input);
    if (in->directory && input.tree && !where.empty() && AtOrBeneath(where, *in)) {
      return "inside " + Named(input);
    }
    if (directory_output && out && out->directory && !path.empty() && input.path != "-" &&
        AtOrBeneath(in->directory ? input.path : DirectoryOf(input.path), *out)) {
      return "a directory that holds " + Named(input);
    }
  }
  return "";
}

}  // namespace

MaybeFailure OutputIsAnInput(const std::string& path, bool directory_output,
                             const std::vector<InputPath>& inputs) {
  if (path.empty()) return std::nullopt;
  if (path == "-") return StandardOutputIsAnInput(inputs);
  const std::optional<FileId> out = IdOfPath(path);
  const std::string what = InputItIs(out, out && out->directory ? path : DirectoryOf(path), path,
                                     directory_output, inputs);
  if (what.empty()) return std::nullopt;
  return Failure(FailureKind::kUsage, what + ", an input of this command: refused, --force or not");
}

MaybeFailure StandardOutputIsAnInput(const std::vector<InputPath>& inputs) {
  struct stat st {};
  if (::fstat(STDOUT_FILENO, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const FileId out = IdOf(st);
  // Where it lies is known by the name the kernel keeps for the descriptor
  // (proctape's own), when that name still names it (a deleted or renamed
  // file's does not: then only its identity is compared).
  std::string where;
  char link[4096];
  const ssize_t n = ::readlink("/proc/self/fd/1", link, sizeof link);
  if (n > 0 && static_cast<std::size_t>(n) < sizeof link && link[0] == '/') {
    const std::string name(link, static_cast<std::size_t>(n));
    if (IdOfPath(name) == std::optional<FileId>(out)) where = DirectoryOf(name);
  }
  const std::string what = InputItIs(out, where, "", false, inputs);
  if (what.empty()) return std::nullopt;
  return Failure(FailureKind::kUsage,
                 "standard output is " + what + ", an input of this command: refused");
}

MaybeFailure StandardInputIsATerminal(const std::vector<InputPath>& inputs) {
  for (const InputPath& in : inputs) {
    if (in.dash_is_stdin && in.path == "-" && ::isatty(STDIN_FILENO) == 1) {
      return Failure(FailureKind::kUsage,
                     in.option +
                         " '-' is standard input, which is a terminal: redirect a file into it "
                         "('< FILE') or name the file");
    }
  }
  return std::nullopt;
}

MaybeFailure DirectoryWrittenIntoProblem(const std::string& path) {
  if (path == "-") {
    return Failure(FailureKind::kUsage,
                   "'-' (standard output) cannot be written here: name a directory");
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) {
      return Failure(FailureKind::kIo, "cannot write: no such directory", ENOENT);
    }
    // "f/" or "f/sub" where f is a file: the one wording of a directory that is none.
    if (errno == ENOTDIR) return Failure(FailureKind::kIo, "is not a directory: refused", ENOTDIR);
    return IoFailure("cannot write", errno);
  }
  if (!S_ISDIR(st.st_mode)) return Failure(FailureKind::kIo, "is not a directory: refused");
  if (::faccessat(AT_FDCWD, path.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    return IoFailure("cannot write", errno);
  }
  return std::nullopt;
}

}  // namespace proctape
