// SPDX-License-Identifier: Apache-2.0
// The one rule for every file (and directory) proctape writes: `capture -o`,
// `fingerprint -o`, `export -o`, `--record`, `--junit`, a lab's recording, a
// corpus's files (docs/cli/outputs.md).
//
//   1. Checked before any work, when the output is opened: the path is not
//      empty; "-" is standard output where the command allows it (a binary
//      file never to a terminal); its
//      directory exists and is a directory; the path is not a symbolic link
//      (dangling or not), not a directory (of a file output), not a device,
//      pipe or socket; and it does not exist, unless `force` (a regular file)
//      -- whatever the options, a link's target is never written.
//   2. Written to a temporary beside it, created at once (so an unwritable
//      directory is found before any work too): NAME.XXXXXX.partial, six
//      random letters or digits, O_EXCL | O_NOFOLLOW. The name is new for each
//      run, so one left by a run that was killed never blocks the next.
//      Its mode is one rule, decided by what the file holds, not by which
//      command writes it: a file that keeps environment values (a header
//      whose redaction is ENVIRON_KEPT or lists kept entries -- a
//      recording's token entry; format/file_holds.h KeepsEnvironValues) is
//      0600, umask or not; any other is 0644 less the umask. The temporary
//      is created 0600, so no byte is ever readable by others while it is
//      written (an open descriptor outlives a later chmod); its writer says
//      KeepOwnerOnly() once it knows (the .ptape writer at the header,
//      export and corpus add from their input's header), and Commit makes
//      any other file 0644 less the umask before the rename.
//   3. Commit: fsync, close, rename to NAME -- renameat2 with RENAME_NOREPLACE
//      unless `force`, so a NAME that appeared meanwhile is not replaced
//      (link + unlink where the file system has no RENAME_NOREPLACE).
//   4. Not committed (any failure, the object destroyed), or interrupted by
//      SIGINT, SIGTERM or SIGHUP (fs/interrupt.h): the temporary is
//      removed. Nothing is left behind -- except by SIGKILL, which no handler
//      sees: a capture killed so leaves its NAME.XXXXXX.partial, whose complete
//      chunks read back (docs/format.md, section 11).
//
// A directory output (export --format proc-dir) follows the same rule as a
// directory: a temporary directory beside it, renamed. An existing empty
// directory is replaced without `force` (it holds nothing to lose); a
// non-empty one only with `force`, and only when it holds the regular file
// `directory_marker` and nothing at its top that `directory_entry` refuses
// (an earlier output of the same kind, and only that): it is then swapped
// with the new one in one rename (RENAME_EXCHANGE) and removed.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/failure.h"
#include "fs/temporary_names.h"  // IsTemporaryOf, for users of this rule

namespace proctape {

struct OutputRequest {
  std::string path;
  bool force = false;           // replace an existing regular file (or earlier export)
  bool stdout_allowed = false;  // "-" is standard output
  bool binary = false;          // a .ptape: "-" refused when standard output is a terminal
  bool directory = false;       // a directory output
  // A file: its temporary is opened for reading too (a SQLite database is
  // made in it page by page: analyze/sql/fd_vfs.h). Only before a jail: one
  // that allows making files (explore --out) allows writing them, not reading.
  bool readable = false;
  std::string directory_marker;  // directory: what makes an existing one replaceable
  // directory: what an earlier output holds, (path relative to it, "1" or
  // "1/stat"; is a directory) -> true; every entry is asked, a directory's
  // only once it is accepted. One entry it refuses (a file of the user's,
  // anywhere) and the directory is not replaced, --force or not. Unset: only
  // the marker is asked for.
  std::function<bool(std::string_view path, bool is_directory)> directory_entry;
  // Rule 4's interrupt: register the temporary with fs/interrupt.h (which
  // installs its handler). The library (api/) does not: a program that uses it
  // keeps its own signal dispositions, and a temporary outlives an interrupt
  // of that program as it outlives SIGKILL.
  bool remove_on_interrupt = true;
};

class OutputFile {
 public:
  // Checks `request` (rule 1) and creates the temporary (rule 2). Null with
  // *failure when the output is refused or the temporary cannot be made:
  // kUsage when the request itself is wrong ("" or a "-" not allowed), kIo
  // for every other refusal; the message names the path, escaped.
  static std::unique_ptr<OutputFile> Open(const OutputRequest& request, Failure* failure);
  ~OutputFile();  // not committed: the temporary is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The temporary file's descriptor (standard output for "-"), or, for a
  // directory output, the temporary directory's (O_RDONLY | O_DIRECTORY).
  int fd() const { return fd_; }
  bool is_stdout() const { return stdout_; }
  bool is_directory() const { return directory_; }
  // A file whose temporary was opened for reading too (OutputRequest::readable).
  bool readable() const { return readable_; }
  // The O_PATH descriptor of the output's directory (-1 for "-"): where the
  // temporary is renamed (the CLI's jail grants that directory, cli/jail.h).
  int directory_fd() const { return parent_fd_; }
  const std::string& path() const { return path_; }
  // The temporary's path as given ("DIR/NAME.XXXXXX.partial"); empty for "-".
  const std::string& temporary() const { return temporary_; }
  // For messages: "standard output", or the path escaped.
  std::string shown() const;

  // Writes all of `data` to fd() (short writes and EINTR retried); the
  // failure (kIo) names what failed.
  [[nodiscard]] MaybeFailure Write(std::string_view data);
  // The file keeps environment values (rule 2): it stays 0600 when
  // committed. Nothing for standard output or a directory output (a
  // proc-dir sets each of its files' modes, procdir/writer.h).
  void KeepOwnerOnly() { owner_only_ = true; }
  bool owner_only() const { return owner_only_; }
  // Rule 3. On failure (kIo) the temporary is removed. Standard output is
  // neither synced nor closed.
  [[nodiscard]] MaybeFailure Commit();
  // Write(data), then Commit(): the first failure.
  [[nodiscard]] MaybeFailure WriteAndCommit(std::string_view data);
  // What SIGKILL would leave: the temporary stays (unregistered, closed) and
  // its path is returned. For tests of crash safety and of the reader.
  std::string Abandon();

 private:
  enum class Replaces { kNothing, kEmptyDirectory, kEarlierOutput };  // a directory output's
  OutputFile() = default;
  void Discard();

  std::string path_;
  std::string temporary_;
  std::string base_;       // NAME, in parent_fd_
  std::string temp_name_;  // NAME.XXXXXX.partial, in parent_fd_
  std::string marker_;
  Replaces replaces_ = Replaces::kNothing;
  int parent_fd_ = -1;  // O_PATH descriptor of the directory
  bool readable_ = false;
  int fd_ = -1;
  int slot_ = -1;  // fs/interrupt.h
  bool stdout_ = false;
  bool force_ = false;
  bool directory_ = false;
  bool done_ = false;          // committed, discarded or abandoned
  bool owner_only_ = false;    // KeepOwnerOnly(): stays 0600
  mode_t shared_mode_ = 0644;  // otherwise, at Commit: 0644 less the umask
};

// Writes all of `data` to `fd`, retrying short writes and EINTR; false with
// errno set on the first failure.
bool WriteAll(int fd, std::string_view data);

// `data` as the whole of the file at `path`, under the rule above ("-":
// standard output): Open's failure, or Write's, or Commit's.
[[nodiscard]] MaybeFailure WriteOutputFile(const std::string& path, std::string_view data,
                                           bool force);

}  // namespace proctape
