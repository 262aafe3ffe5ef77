// SPDX-License-Identifier: Apache-2.0
// The input of the proc_root target: a small tree of directories and files,
// written under a fresh directory per input, that `capture --proc-root`
// imports. Binary, entry after entry, until the input ends:
//
//   kind (1 byte) | path length (1 byte) | path | content length (2 bytes,
//   little-endian) | content
//
//   kind 'd' a directory, 'f' a regular file (content: its bytes), 'l' a
//   symbolic link (content: its target, written as given: it may point
//   anywhere, which the import must never follow), 'p' a FIFO (the import
//   must not block on it); any other kind is skipped.
//
// A path is relative: its components split at '/', with "", "." and ".."
// dropped; at most kMaxDepth of them. Parents are made as needed; an entry
// that cannot be made (its parent is a file) is skipped. An entry cut by the
// end of the input is dropped. So every input is some tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace proctape::fuzz {

inline constexpr std::size_t kMaxDepth = 4;
inline constexpr std::size_t kMaxEntries = 256;

struct TreeEntry {
  char kind = 'f';
  std::string path;     // relative, components joined with '/'
  std::string content;  // file bytes, or a link's target
};

std::vector<TreeEntry> ParseTree(const std::uint8_t* data, std::size_t size);

// Makes the entries under `root` (which must exist).
void MakeTree(const std::vector<TreeEntry>& entries, const std::string& root);

// The entries of an existing directory (its files, links and directories,
// sorted), packed in the input form; at most `max_bytes` (entries that do not
// fit are left out). For seeds from exported proc-dirs.
std::string PackTree(const std::string& root, std::size_t max_bytes);

}  // namespace proctape::fuzz
