// SPDX-License-Identifier: Apache-2.0
// What an existing directory holds, as the rule of directory outputs asks
// it (fs/output_file.h: an earlier export is replaced only when it
// holds its marker and nothing an export does not write).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace proctape {

// Does the directory `name` in `dir_fd` hold anything? errno-style result in
// *err (0 when it could be read).
bool HoldsAnything(int dir_fd, const std::string& name, int* err);

// Is `marker` a regular file in the directory `name` of `dir_fd`?
bool HoldsMarker(int dir_fd, const std::string& name, const std::string& marker);

// The first entry beneath directory `name` (opened at `dir_fd`) that
// `accepts` refuses, as a path relative to the top ("" when none; *err when
// one cannot be listed). `prefix`: the path of `name` below the top. A
// directory's entries are asked once it is accepted; a link, a device or
// what cannot be told is refused.
std::string ForeignEntry(int dir_fd, const std::string& name, const std::string& prefix,
                         const std::function<bool(std::string_view, bool)>& accepts, int* err);

}  // namespace proctape
