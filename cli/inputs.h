// SPDX-License-Identifier: Apache-2.0
// The files a command reads (docs/cli/commands.md, "Inputs"): every option
// or argument that names a file to read takes '-' for standard input, and
// standard input can be read once per command line. A command that takes
// several FILEs handles each in the order given.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace proctape {

// Whether `path` is standard input when that is a stream (a pipe, a
// terminal, a socket): the same file as descriptor 0 by st_dev and st_ino
// (/dev/stdin, /proc/self/fd/0, the FIFO it was redirected from). A regular
// file is read again by its name, from its start: never.
bool IsStandardInputStream(const std::string& path);

// The usage error when standard input is named more than once among
// `inputs` (each: how the input is named in help, "FILE" or "--baseline",
// and the values given to it) -- as '-', or by a path that
// IsStandardInputStream -- else "". A second read of standard input would
// find it at its end.
std::string StdinOnce(const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs);

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
  // Copies `file` when it needs a copy. False, with *error one line, when it
  // cannot be read: the line every reader gives ("FILE: read failed at byte
  // N: WHY", 10; a missing path is left to the reader, which says so).
  bool Open(const std::string& file, std::string* error);
  bool copied() const { return fd_ >= 0; }
  // The copy's path while the object lives, or `file` itself (not copied).
  std::string path() const;
  int fd() const { return fd_; }  // the copy (-1: none), for a reader that dups it

 private:
  bool Copy(int from, const std::string& shown, std::string* error);
  std::string file_;
  int fd_ = -1;
};

// One JSON document for the reports of several inputs: the one report
// itself when there is one, else {"files": [...]} of them in order
// (VerifyReports, ShowReports, CorpusAddResults).
std::string JsonList(const std::vector<std::string>& reports);

// The larger of two exit statuses: several files give the largest of theirs
// (0 only when every file gave 0).
inline int Worst(int a, int b) { return a > b ? a : b; }

}  // namespace proctape
