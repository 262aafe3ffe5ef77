// SPDX-License-Identifier: Apache-2.0
// The names of rule 2's temporaries (fs/output_file.h):
// NAME.XXXXXX.partial beside NAME, six random letters or digits, the name
// new for each run so that one left by a killed run never blocks the next.
#pragma once

#include <string>
#include <string_view>

namespace proctape {

// A new temporary's name for the output NAME `base` (NAME cut to 240 bytes,
// so that the whole stays within NAME_MAX).
std::string TemporaryName(const std::string& base);

// Is `name` a temporary of the output NAME `base` (NAME.XXXXXX.partial)?
// For tests and for people looking for what a killed capture left.
bool IsTemporaryOf(std::string_view name, std::string_view base);

}  // namespace proctape
