// The one way proctape opens a file it reads because of where it lies, not
// because the command line named it: the MANIFEST beside a FILE (`sql`,
// `export --format sqlite|csv`, every `corpus` command) and a corpus's
// entries (`corpus check`, `corpus add`'s copy already there).
// docs/security.md, "Files read beside a FILE":
//
//   - a regular file, and only that: a symbolic link is not followed (the
//     last component is opened O_NOFOLLOW), a FIFO, socket or device is
//     refused without waiting (O_NONBLOCK: a FIFO with no writer cannot
//     hang the command), a file of /proc or /sys is refused (its size says
//     nothing of what a read returns);
//   - of bounded size: ReadFileBeside refuses one larger than its limit
//     before reading it, and one that grows past it while it is read.
//
// A FILE the command line names is read as given (a pipe, `<(...)`, a link
// the user made): the user chose it. A file beside it was chosen by whoever
// wrote the directory.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/failure.h"

namespace proctape {

// The most bytes a MANIFEST may hold (docs/corpus.md, "The MANIFEST"):
// some 30,000 entries; `corpus add` writes none larger.
inline constexpr std::size_t kMaxManifestBytes = 16 * 1024 * 1024;

// Opens `path` for reading under the rule above: a descriptor (O_CLOEXEC),
// or -1 with *failure of kind kIo, its sys_errno the failure's errno
// (ENOENT: there is none; errno is left the same), its message one line
// without the path ("is a symbolic link: not followed", "is a FIFO, not a
// regular file", "cannot open: No such file or directory").
int OpenFileBeside(const std::string& path, Failure* failure);

// The whole of `path`, opened by OpenFileBeside; nullopt with *failure as
// OpenFileBeside fills it (kIo, sys_errno and errno the failure's, one line
// without the path), also for a file of more than `max_bytes` ("holds more
// than 16777216 bytes (the limit)", EFBIG).
std::optional<std::string> ReadFileBeside(const std::string& path, std::size_t max_bytes,
                                          Failure* failure);

}  // namespace proctape
