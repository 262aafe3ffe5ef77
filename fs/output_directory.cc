// SPDX-License-Identifier: Apache-2.0
#include "fs/output_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace proctape {

bool HoldsAnything(int dir_fd, const std::string& name, int* err) {
  *err = 0;
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return false;
  }
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    *err = errno;
    ::close(fd);
    return false;
  }
  bool any = false;
  while (struct dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      any = true;
      break;
    }
  }
  ::closedir(d);
  return any;
}

bool HoldsMarker(int dir_fd, const std::string& name, const std::string& marker) {
  if (marker.empty()) return false;
  int fd = ::openat(dir_fd, name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool regular =
      ::fstatat(fd, marker.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
  ::close(fd);
  return regular;
}

std::string ForeignEntry(int dir_fd, const std::string& name, const std::string& prefix,
                         const std::function<bool(std::string_view, bool)>& accepts, int* err) {
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    *err = errno;
    return "";
  }
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    *err = errno;
    ::close(fd);
    return "";
  }
  std::string foreign;
  while (struct dirent* e = ::readdir(d)) {
    const std::string entry = e->d_name;
    if (entry == "." || entry == "..") continue;
    const std::string path = prefix + entry;
    struct stat st;
    const bool known = ::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    const bool is_dir = known && S_ISDIR(st.st_mode);
    // A link, a device, what cannot be told: never an export's.
    if (!(is_dir || (known && S_ISREG(st.st_mode))) || !accepts(path, is_dir)) {
      foreign = path;
      break;
    }
    if (is_dir) {
      foreign = ForeignEntry(::dirfd(d), entry, path + "/", accepts, err);
      if (!foreign.empty() || *err != 0) break;
    }
  }
  ::closedir(d);
  return foreign;
}

}  // namespace proctape
