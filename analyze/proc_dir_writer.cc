#include "analyze/proc_dir_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unordered_set>

#include "analyze/export.h"
#include "analyze/proc_dir_facts.h"
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

bool WriteProcDir(const Snapshot& snapshot, std::size_t frame, const std::string& path, bool force,
                  ProcDirStats* stats, std::string* error) {
  const std::string shown = EscapeBytes(path, 4096);
  *stats = ProcDirStats{};
  enum { kAbsent, kEmpty, kEarlierExport } target = kAbsent;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      *error = shown + " is a symbolic link: refused";
      return false;
    }
    if (!S_ISDIR(st.st_mode)) {
      *error = shown + " exists and is not a directory: refused";
      return false;
    }
    std::error_code ec;
    const bool empty = std::filesystem::is_empty(path, ec);
    if (ec) {
      *error = "cannot read " + shown + ": " + ec.message();
      return false;
    }
    target = empty ? kEmpty : kEarlierExport;
    if (!empty && !force) {
      *error = shown + " is not empty: refused (use --force to replace an earlier export)";
      return false;
    }
    if (!empty && (::lstat((path + "/" + kFrameFile).c_str(), &st) != 0 || !S_ISREG(st.st_mode))) {
      *error = shown + " is not empty and holds no " + kFrameFile +
               ": refused, even with --force (it is not an export)";
      return false;
    }
  }
  const std::string partial = path + ".partial";
  if (::lstat(partial.c_str(), &st) == 0) {
    if (!force) {
      *error = shown + ".partial exists (left by an export that did not finish?): remove it or "
                       "use --force";
      return false;
    }
    std::error_code ec;
    std::filesystem::remove_all(partial, ec);
  }
  if (::mkdir(partial.c_str(), 0755) != 0) {
    *error = "cannot create " + shown + ".partial: " + std::strerror(errno);
    return false;
  }
  int dir_fd = ::open(partial.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  auto fail = [&](const std::string& what, int err) {
    if (dir_fd >= 0) ::close(dir_fd);
    std::error_code ec;
    std::filesystem::remove_all(partial, ec);
    *error = "cannot write " + shown + ": " + what + ": " + std::strerror(err);
    return false;
  };
  if (dir_fd < 0) return fail("open .partial", errno);

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
  ::close(dir_fd);
  dir_fd = -1;
  // An absent PATH must still be absent, an empty one may be replaced; an
  // earlier export is swapped with the new one atomically, then removed.
  unsigned flags = target == kAbsent ? RENAME_NOREPLACE
                   : target == kEarlierExport ? RENAME_EXCHANGE
                                              : 0;
  if (::renameat2(AT_FDCWD, partial.c_str(), AT_FDCWD, path.c_str(), flags) != 0) {
    return fail("rename .partial", errno);
  }
  if (target == kEarlierExport) {
    std::error_code ec;
    std::filesystem::remove_all(partial, ec);
  }
  return true;
}

}  // namespace proctape
