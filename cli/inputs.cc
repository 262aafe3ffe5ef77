// SPDX-License-Identifier: Apache-2.0
#include "cli/inputs.h"

#include "cli/options.h"

namespace proctape {

MaybeFailure StdinOnce(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& inputs) {
  std::vector<std::string> readers;
  for (const auto& [name, values] : inputs) {
    for (const std::string& v : values) {
      if (v == "-") {
        readers.push_back(name + " '-'");
      } else if (IsStandardInputStream(v)) {
        readers.push_back(name + " " + Quoted(v) + " (standard input)");
      }
    }
  }
  if (readers.size() < 2) return std::nullopt;
  const std::string both = readers[0] == readers[1]
                               ? readers[0] + " names it twice"
                               : readers[0] + " and " + readers[1] + " both name it";
  return Failure(FailureKind::kUsage, "standard input ('-') can be read once: " + both);
}

std::string JsonList(const std::vector<std::string>& reports, bool always_list) {
  if (reports.size() == 1 && !always_list) return reports[0];
  // The shape of VerifyReports, ShowReports, CorpusAddResults: an object,
  // so that every --json document is one object.
  std::string out = "{\"files\":[";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    if (i > 0) out += ",";
    out += reports[i];
  }
  return out + "]}";
}

}  // namespace proctape
