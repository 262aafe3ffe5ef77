// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/fd_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <string_view>

namespace proctape::sql {
namespace {

constexpr std::string_view kPrefix = "fd:";

struct FdFile {
  sqlite3_file base;  // first: SQLite hands back a sqlite3_file*
  int fd;
};

int FdOf(sqlite3_file* f) { return reinterpret_cast<FdFile*>(f)->fd; }

int Close(sqlite3_file* f) {
  ::close(FdOf(f));
  return SQLITE_OK;
}

// SQLite's contract: a read past the end fills the rest with zeros and says
// SQLITE_IOERR_SHORT_READ.
int Read(sqlite3_file* f, void* buffer, int amount, sqlite3_int64 offset) {
  auto* out = static_cast<char*>(buffer);
  std::size_t done = 0;
  const auto want = static_cast<std::size_t>(amount);
  while (done < want) {
    const ssize_t n = ::pread(FdOf(f), out + done, want - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return SQLITE_IOERR_READ;
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done == want) return SQLITE_OK;
  std::memset(out + done, 0, want - done);
  return SQLITE_IOERR_SHORT_READ;
}

int Write(sqlite3_file* f, const void* buffer, int amount, sqlite3_int64 offset) {
  const auto* in = static_cast<const char*>(buffer);
  std::size_t done = 0;
  const auto want = static_cast<std::size_t>(amount);
  while (done < want) {
    const ssize_t n = ::pwrite(FdOf(f), in + done, want - done, offset + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == ENOSPC ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    done += static_cast<std::size_t>(n);
  }
  return SQLITE_OK;
}

int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  return ::ftruncate(FdOf(f), size) == 0 ? SQLITE_OK : SQLITE_IOERR_TRUNCATE;
}

int Sync(sqlite3_file* f, int) { return ::fsync(FdOf(f)) == 0 ? SQLITE_OK : SQLITE_IOERR_FSYNC; }

int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  struct stat st {};
  if (::fstat(FdOf(f), &st) != 0) return SQLITE_IOERR_FSTAT;
  *size = st.st_size;
  return SQLITE_OK;
}

// One connection of one process: every lock is granted, none is held.
int Lock(sqlite3_file*, int) { return SQLITE_OK; }
int CheckReservedLock(sqlite3_file*, int* held) {
  *held = 0;
  return SQLITE_OK;
}
int FileControl(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int SectorSize(sqlite3_file*) { return 4096; }
int DeviceCharacteristics(sqlite3_file*) { return 0; }

// Version 1: no shared memory, no mmap.
const sqlite3_io_methods kMethods = {.iVersion = 1,
                                     .xClose = Close,
                                     .xRead = Read,
                                     .xWrite = Write,
                                     .xTruncate = Truncate,
                                     .xSync = Sync,
                                     .xFileSize = FileSize,
                                     .xLock = Lock,
                                     .xUnlock = Lock,
                                     .xCheckReservedLock = CheckReservedLock,
                                     .xFileControl = FileControl,
                                     .xSectorSize = SectorSize,
                                     .xDeviceCharacteristics = DeviceCharacteristics,
                                     .xShmMap = nullptr,
                                     .xShmLock = nullptr,
                                     .xShmBarrier = nullptr,
                                     .xShmUnmap = nullptr,
                                     .xFetch = nullptr,
                                     .xUnfetch = nullptr};

sqlite3_vfs* Default() { return sqlite3_vfs_find(nullptr); }

// The main database of a name "fd:N" only: a journal, WAL or temporary
// file is refused (none is asked for: fd_vfs.h).
int Open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  file->pMethods = nullptr;
  if (name == nullptr || (flags & SQLITE_OPEN_MAIN_DB) == 0) return SQLITE_CANTOPEN;
  const std::string_view n(name);
  if (!n.starts_with(kPrefix)) return SQLITE_CANTOPEN;
  int fd = -1;
  const char* end = n.data() + n.size();
  if (auto [p, ec] = std::from_chars(n.data() + kPrefix.size(), end, fd);
      ec != std::errc() || p != end || fd < 0) {
    return SQLITE_CANTOPEN;
  }
  const int own = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (own < 0) return SQLITE_CANTOPEN;
  reinterpret_cast<FdFile*>(file)->fd = own;
  file->pMethods = &kMethods;
  if (out_flags != nullptr) *out_flags = flags;
  return SQLITE_OK;
}

// No file but the database exists, so none is ever deleted.
int Delete(sqlite3_vfs*, const char*, int) { return SQLITE_OK; }
int Access(sqlite3_vfs*, const char*, int, int* result) {
  *result = 0;
  return SQLITE_OK;
}
int FullPathname(sqlite3_vfs*, const char* name, int size, char* out) {
  sqlite3_snprintf(size, out, "%s", name);
  return SQLITE_OK;
}
// The rest is the default VFS's.
void* DlOpen(sqlite3_vfs*, const char*) { return nullptr; }
void DlError(sqlite3_vfs*, int size, char* out) {
  sqlite3_snprintf(size, out, "no extensions are loaded");
}
void (*DlSym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
void DlClose(sqlite3_vfs*, void*) {}
int Randomness(sqlite3_vfs*, int size, char* out) {
  return Default()->xRandomness(Default(), size, out);
}
int Sleep(sqlite3_vfs*, int microseconds) { return Default()->xSleep(Default(), microseconds); }
int CurrentTime(sqlite3_vfs*, double* now) { return Default()->xCurrentTime(Default(), now); }
int LastError(sqlite3_vfs*, int, char*) { return 0; }

sqlite3_vfs kVfs = {.iVersion = 1,
                    .szOsFile = static_cast<int>(sizeof(FdFile)),
                    .mxPathname = 64,
                    .pNext = nullptr,
                    .zName = kFdVfsName,
                    .pAppData = nullptr,
                    .xOpen = Open,
                    .xDelete = Delete,
                    .xAccess = Access,
                    .xFullPathname = FullPathname,
                    .xDlOpen = DlOpen,
                    .xDlError = DlError,
                    .xDlSym = DlSym,
                    .xDlClose = DlClose,
                    .xRandomness = Randomness,
                    .xSleep = Sleep,
                    .xCurrentTime = CurrentTime,
                    .xGetLastError = LastError,
                    .xCurrentTimeInt64 = nullptr,
                    .xSetSystemCall = nullptr,
                    .xGetSystemCall = nullptr,
                    .xNextSystemCall = nullptr};

}  // namespace

std::string FdDatabaseName(int fd) {
  static const bool registered = sqlite3_vfs_register(&kVfs, /*makeDflt=*/0) == SQLITE_OK;
  (void)registered;
  return std::string(kPrefix) + std::to_string(fd);
}

}  // namespace proctape::sql
