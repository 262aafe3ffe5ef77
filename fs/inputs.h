// SPDX-License-Identifier: Apache-2.0
// The files a command reads, as the operating system sees them
// (docs/cli/commands.md, "Inputs"; docs/cli/outputs.md, "An output is never
// an input"): how each is named, whether a path is standard input, and a
// copy of one that cannot be read twice. The wording of a usage error about
// them is the CLI's (cli/inputs.h).
#pragma once

#include <string>
#include <vector>

#include "core/failure.h"

namespace proctape {

// One file or directory a command reads, as its output is checked against
// it: `option` names it in messages ("--fingerprint", "FILE", "the corpus");
// `path` is as given ("-": standard input; "": none). A live --proc is none:
// a procfs holds no file to replace, and a --proc that is no procfs is
// refused as such (cli/live_proc.h).
struct InputPath {
  std::string option;
  std::string path;
  bool dash_is_stdin = true;  // false where '-' is not standard input (--exe, --proc-root)
  // A directory the command reads beneath (--proc-root, a corpus): an output
  // inside it is one of its inputs. Any other input that is a directory (a
  // FILE given as '.') is no input the command can read: the read says so,
  // not a refusal of where the output lies.
  bool tree = false;
};

// Each of `paths` as an input `option` names ("FILE" of show a.ptape b.ptape).
std::vector<InputPath> InputsNamed(const std::string& option,
                                   const std::vector<std::string>& paths);

// Whether `path` is standard input when that is a stream (a pipe, a
// terminal, a socket): the same file as descriptor 0 by st_dev and st_ino
// (/dev/stdin, /proc/self/fd/0, the FIFO it was redirected from). A regular
// file is read again by its name, from its start: never.
bool IsStandardInputStream(const std::string& path);

// Run first by main: a standard descriptor (0, 1, 2) the caller closed is
// held on /dev/null opened for the other direction, so that no file
// proctape opens becomes it (a copy of standard input read as standard
// input, a directory read as '-', an output written to standard output),
// and using it fails as a closed one does: a read of '-' is "read failed
// at byte 0: Bad file descriptor" (10), a write to standard output
// "standard output: cannot write: Bad file descriptor".
void HoldClosedStandardDescriptors();

// A FILE a command reads more than once (corpus add hashes, replays and
// copies it; diff and export json read it twice), made re-readable: standard
// input ('-'), or a path that is no regular file (a pipe such as <(...) or
// /dev/stdin, a FIFO, a character device), copied whole into an anonymous
// memory file; a regular file is read where it is. A second read of a pipe
// would find it at its end ("truncated at byte 0").
class InputCopy {
 public:
  InputCopy() = default;
  ~InputCopy();
  InputCopy(const InputCopy&) = delete;
  InputCopy& operator=(const InputCopy&) = delete;
  // Copies `file` when it needs a copy. The failure (kIo) when it cannot be
  // read is the line every reader gives ("FILE: read failed at byte N: WHY";
  // a missing path is left to the reader, which says so).
  [[nodiscard]] MaybeFailure Open(const std::string& file);
  bool copied() const { return fd_ >= 0; }
  // The copy's path while the object lives, or `file` itself (not copied).
  std::string path() const;
  int fd() const { return fd_; }  // the copy (-1: none), for a reader that dups it

 private:
  MaybeFailure Copy(int from, const std::string& shown);
  std::string file_;
  int fd_ = -1;
};

}  // namespace proctape
