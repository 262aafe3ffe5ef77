// SPDX-License-Identifier: Apache-2.0
#include "tests/fuzz/fuzz_support.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace proctape::fuzz {
namespace {

std::string MakeScratch() {
  std::string base;
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && *tmp != '\0') {
    base = tmp;
  } else {
    struct stat st;
    base = ::stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
  }
  std::string templ = base + "/proctape-fuzz.XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) Broken("cannot make a scratch directory in " + base);
  return templ;
}

}  // namespace

const std::string& ScratchDir() {
  // Never destroyed: the exit handler that removes it runs after the
  // destructors of statics made before it was registered.
  static const std::string* dir = [] {
    auto* made = new std::string(MakeScratch());
    std::atexit([] { RemoveTree(ScratchDir()); });
    return made;
  }();
  return *dir;
}

std::string InputAsFile(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("proctape-fuzz-input", MFD_CLOEXEC);
  if (fd < 0) Broken("memfd_create failed");
  if (::ftruncate(fd, 0) != 0) Broken("ftruncate of the input memfd failed");
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) Broken("write of the input memfd failed");
    done += static_cast<std::size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

void RemoveTree(const std::string& path) {
  std::error_code ec;
  // remove_all removes a link itself, never what it names.
  std::filesystem::remove_all(path, ec);
}

volatile std::size_t kept = 0;
void Keep(std::size_t n) { kept = kept + n; }

void Broken(const std::string& what) {
  std::fprintf(stderr, "proctape fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace proctape::fuzz
