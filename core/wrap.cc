// SPDX-License-Identifier: Apache-2.0
#include "core/wrap.h"

#include <sstream>

namespace proctape {

std::string WrapHanging(std::string lead, std::string_view text, std::size_t indent,
                        std::size_t width) {
  std::string out = std::move(lead);
  std::size_t column = out.size();
  bool first = true;
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) {
    if (!first && column + 1 + word.size() > width) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out + "\n";
}

}  // namespace proctape
