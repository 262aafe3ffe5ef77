// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/export.h"

#include <fcntl.h>

#include <string>
#include <string_view>

namespace proctape::sql {

OutputRequest CsvRequest(const std::string& path, bool force) {
  OutputRequest request;
  request.path = path;
  request.force = force;
  request.directory = true;
  request.directory_marker = "files.csv";  // an earlier csv export holds it
  request.directory_entry = [](std::string_view entry, bool is_directory) {
    for (const char* table : kTables) {
      if (!is_directory && entry == std::string(table) + ".csv") return true;
    }
    return false;  // and nothing else
  };
  return request;
}

int ExportDatabaseFd(bool csv, OutputFile& output) {
  if (!csv) return output.readable() ? output.fd() : -1;
  return ::openat(output.fd(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

TablesExport ExportTables(Database& d, bool csv, OutputFile& output) {
  TablesExport result;
  if (d.keeps_environ()) output.KeepOwnerOnly();
  std::string error;
  std::uint64_t csv_bytes = 0;
  if (csv) {
    error = d.WriteCsv(output.fd(), d.keeps_environ(), &csv_bytes);
  } else {
    error = d.SaveTo(output);
  }
  result.bytes = csv ? csv_bytes : d.ImageBytes();
  if (!error.empty()) {
    result.output_failure = Failure(FailureKind::kIo, error);
    return result;
  }
  if ((result.output_failure = output.Commit())) return result;
  result.processes = d.Count("processes");
  result.observations = d.Count("observations");
  result.files = csv ? d.Tables().size() : 1;
  return result;
}

}  // namespace proctape::sql
