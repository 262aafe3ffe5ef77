// SPDX-License-Identifier: Apache-2.0
// Text wrapped as proctape's help and reports print it: words within 80
// columns, each further line indented, one newline at the end.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace proctape {

// `lead` (already on the line: a label, a padded name) then the words of
// `text` (runs of whitespace are one space), a word that would pass column
// `width` beginning a new line indented by `indent` spaces; ends with "\n".
// A word longer than a line is kept whole on its own line.
std::string WrapHanging(std::string lead, std::string_view text, std::size_t indent,
                        std::size_t width = 80);

}  // namespace proctape
