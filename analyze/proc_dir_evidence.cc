#include "analyze/proc_dir_evidence.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/proc_parse.h"

namespace proctape {
namespace {

constexpr const char* kFrameFile = kProcDirFrameFile;
constexpr const char* kIdentityFile = kProcDirIdentityFile;
constexpr std::size_t kIdentityFileBound = 4096;
constexpr std::size_t kFrameFileBound = 16u << 20;
constexpr std::uint64_t kPidMaxLimit = 4194304;

// At most `bound` bytes of NAME in `dir_fd`; errno, or EFBIG when larger.
int ReadFileAt(int dir_fd, const std::string& name, std::size_t bound, std::string* out) {
  int fd;
  do {
    fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) return errno;
  out->clear();
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return err;
    }
    if (n == 0) break;
    out->append(buf, static_cast<std::size_t>(n));
    if (out->size() > bound) {
      ::close(fd);
      return EFBIG;
    }
  }
  ::close(fd);
  return 0;
}

}  // namespace

std::unique_ptr<ProcDirEvidence> ProcDirEvidence::Open(const std::string& dir, Evidence& inner,
                                                       PidNamespaceFn inner_pid_ns,
                                                       std::string* error) {
  const std::string shown = EscapeBytes(dir, 4096);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open " + shown + ": " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<ProcDirEvidence> ev(
      new ProcDirEvidence(fd, dir, inner, std::move(inner_pid_ns)));
  std::string text;
  int err = ReadFileAt(fd, kFrameFile, kFrameFileBound, &text);
  if (err == ENOENT) return ev;
  std::string why;
  if (err != 0) {
    why = std::strerror(err);
  } else {
    FrameFacts facts;
    if (ParseFrameFacts(text, &facts, &why)) {
      ev->frame_ = std::move(facts);
      return ev;
    }
  }
  *error = shown + "/" + kFrameFile + ": " + why;
  return nullptr;
}

ProcDirEvidence::~ProcDirEvidence() { ::close(dir_fd_); }

const IdentityFacts& ProcDirEvidence::Facts(std::int64_t pid) {
  if (pid == cached_pid_) return cached_;
  cached_pid_ = pid;
  cached_ = IdentityFacts{};
  const std::string name = std::to_string(pid) + "/" + kIdentityFile;
  std::string text;
  int err = ReadFileAt(dir_fd_, name, kIdentityFileBound, &text);
  if (err == ENOENT || err == ENOTDIR) return cached_;
  std::string why;
  if (err == EFBIG) {
    why = "over " + std::to_string(kIdentityFileBound) + " bytes";
  } else if (err != 0) {
    why = std::strerror(err);
  } else if (ParseIdentityFacts(text, &cached_, &why)) {
    return cached_;
  }
  cached_ = IdentityFacts{};
  if (error_.empty()) error_ = EscapeBytes(dir_, 4096) + "/" + name + ": " + why;
  return cached_;
}

ListResult ProcDirEvidence::ListPids(std::uint64_t bound) {
  ListResult out = inner_.ListPids(kPidMaxLimit);
  std::sort(out.names.begin(), out.names.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  if (out.names.size() > bound) {
    out.names.resize(static_cast<std::size_t>(bound));
    out.truncated = true;
  }
  return out;
}

ReadResult ProcDirEvidence::ReadFile(std::int64_t pid, ProcFile file, std::uint64_t bound) {
  const IdentityFacts& facts = Facts(pid);
  if (auto it = facts.errors.find(file); it != facts.errors.end()) {
    ReadResult out;
    out.err = it->second;
    return out;
  }
  const bool truncated = facts.truncated.count(file) != 0;
  ReadResult out = inner_.ReadFile(pid, file, bound);
  if (out.ok() && truncated) out.truncated = true;
  return out;
}

Identity ProcDirEvidence::ExeIdentity(std::int64_t pid) {
  const IdentityFacts& facts = Facts(pid);
  return facts.exe ? *facts.exe : inner_.ExeIdentity(pid);
}

Identity ProcDirEvidence::PidNamespace(std::int64_t pid) {
  const IdentityFacts& facts = Facts(pid);
  if (facts.pid_ns) return *facts.pid_ns;
  return inner_pid_ns_ ? inner_pid_ns_(pid) : Identity{ENOENT, 0, 0};
}

Identity ProcDirEvidence::PathIdentity(const std::string& path) {
  return inner_.PathIdentity(path);
}

std::int64_t ProcDirEvidence::NowNs() { return inner_.NowNs(); }

void ProcDirEvidence::SleepUntil(std::int64_t mono_ns) { inner_.SleepUntil(mono_ns); }

}  // namespace proctape
