// SPDX-License-Identifier: Apache-2.0
#include "core/redact.h"

#include <algorithm>

namespace proctape {

std::string RedactEnviron(std::string_view environ, const std::vector<std::string>& kept_entries) {
  std::string out(environ);  // same size; NULs and kept bytes already in place
  std::size_t begin = 0;
  while (begin < environ.size()) {  // the entries of SplitNul, by offset
    std::size_t end = environ.find('\0', begin);
    if (end == std::string_view::npos) end = environ.size();
    std::string_view entry = environ.substr(begin, end - begin);
    bool kept = std::any_of(kept_entries.begin(), kept_entries.end(),
                            [&](const std::string& k) { return entry == k; });
    if (!kept) {
      std::size_t eq = entry.find('=');
      std::size_t hide_from = eq == std::string_view::npos ? 0 : eq + 1;
      std::fill(out.begin() + static_cast<std::ptrdiff_t>(begin + hide_from),
                out.begin() + static_cast<std::ptrdiff_t>(end), '*');
    }
    begin = end + 1;
  }
  return out;
}

}  // namespace proctape
