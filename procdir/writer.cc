// SPDX-License-Identifier: Apache-2.0
#include "procdir/writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "procdir/facts.h"
#include "replay/token_mask.h"
#include "core/proc_parse.h"
#include "proto/convert.h"

namespace proctape {
namespace {

constexpr const char* kFrameFile = kProcDirFrameFile;
constexpr const char* kIdentityFile = kProcDirIdentityFile;

// Creates NAME in directory `dir_fd` holding `data`; errno on failure.
int WriteFileAt(int dir_fd, const char* name, std::string_view data, mode_t mode) {
  int fd = ::openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return errno;
  int err = WriteAll(fd, data) ? 0 : errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  return err;
}

}  // namespace

OutputRequest ProcDirRequest(const std::string& path, bool force) {
  OutputRequest request;
  request.path = path;
  request.force = force;
  request.directory = true;
  request.directory_marker = kFrameFile;
  // An earlier export holds its frame file and a directory per pid, each
  // holding the files of kProcDirFiles and its identity file, and nothing
  // else.
  request.directory_entry = [](std::string_view entry, bool is_directory) {
    const std::size_t slash = entry.find('/');
    const std::string_view top = entry.substr(0, slash);
    const bool pid = !top.empty() && top.find_first_not_of("0123456789") == std::string_view::npos;
    if (slash == std::string_view::npos) return is_directory ? pid : entry == kFrameFile;
    const std::string_view file = entry.substr(slash + 1);
    if (!pid || is_directory) return false;
    if (file == kIdentityFile) return true;
    for (ProcFile f : kProcDirFiles) {
      if (file == ProcFileName(f)) return true;
    }
    return false;
  };
  return request;
}

MaybeFailure WriteProcDir(const Snapshot& snapshot, std::size_t frame, const std::string& path,
                          bool force, ProcDirStats* stats) {
  *stats = ProcDirStats{};
  Failure refused;
  std::unique_ptr<OutputFile> output = OutputFile::Open(ProcDirRequest(path, force), &refused);
  if (!output) return refused;
  return WriteProcDir(snapshot, frame, std::move(output), stats);
}

MaybeFailure WriteProcDir(const Snapshot& snapshot, std::size_t frame,
                          std::unique_ptr<OutputFile> output, ProcDirStats* stats) {
  *stats = ProcDirStats{};
  const std::string shown = output->shown();
  const int dir_fd = output->fd();
  // The output's temporary is removed when `output` goes, unless committed.
  auto fail = [&](const std::string& what, int err) -> MaybeFailure {
    return IoFailure("cannot write " + shown + ": " + what, err);
  };

  // The token of the file's resolutions is masked in every byte written (a
  // sandbox's argv and environ, the kept entries): stars of its length. The
  // JSON export is the lossless one.
  const TokenMask mask = TokenMask::Of(snapshot);
  FrameFacts facts = FrameFactsOf(snapshot, frame);
  mask.Mask(&facts.host);
  mask.Mask(&facts.cut_reason);
  for (std::string& entry : facts.kept_entries) mask.Mask(&entry);
  std::unordered_set<std::int64_t> written;
  v1::ProcessRecord masked;
  auto write = [&](int fd, const char* name, std::string_view data, mode_t mode) {
    int err = WriteFileAt(fd, name, data, mode);
    if (err == 0) {
      ++stats->files;
      stats->bytes += data.size();
    }
    return err;
  };
  for (const v1::ProcessRecord& recorded : snapshot.frames[frame].processes()) {
    if (!ProcDirPid(recorded.pid()) || !written.insert(recorded.pid()).second) continue;
    const v1::ProcessRecord* record = &recorded;
    if (!mask.empty()) {
      masked = recorded;
      mask.Mask(&masked);
      record = &masked;
    }
    const v1::ProcessRecord& r = *record;
    const std::string pid = std::to_string(r.pid());
    if (::mkdirat(dir_fd, pid.c_str(), 0755) != 0) return fail("mkdir " + pid, errno);
    int pid_fd = ::openat(dir_fd, pid.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (pid_fd < 0) return fail("open " + pid, errno);
    int err = 0;
    std::string failed;
    for (ProcFile file : kProcDirFiles) {
      const v1::FileRead* read = RecordedRead(r, file);
      if (read == nullptr || read->err() != 0) continue;
      const std::string name(ProcFileName(file));
      err = write(pid_fd, name.c_str(), read->data(), file == ProcFile::kEnviron ? 0600 : 0644);
      if (err != 0) {
        failed = pid + "/" + name;
        break;
      }
    }
    if (err == 0) {
      err = write(pid_fd, kIdentityFile, PrintIdentityFacts(IdentityFactsOf(r)), 0644);
      if (err != 0) failed = pid + "/" + kIdentityFile;
    }
    ::close(pid_fd);
    if (err != 0) return fail(failed, err);
    ++stats->processes;
  }
  if (int err = write(dir_fd, kFrameFile, PrintFrameFacts(facts), 0644); err != 0) {
    return fail(kFrameFile, err);
  }
  // An absent PATH must still be absent, an empty one may be replaced; an
  // earlier export is swapped with the new one atomically, then removed.
  return output->Commit();
}

}  // namespace proctape
