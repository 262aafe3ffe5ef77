// SPDX-License-Identifier: Apache-2.0
// What the output-file tests (output_file_test.cc,
// output_file_interrupt_test.cc) share: a fresh directory per test with the
// names in it and outputs opened in it (OutputFileTest), and a request for a
// file at a path. Slurp and Spit are format_bytes.h's.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fs/output_file.h"
#include "tests/unit/format_bytes.h"

namespace proctape::test {

// A fresh directory per test, removed after it, and outputs opened in it.
class OutputFileTest : public TempDirTest {
 protected:
  std::vector<std::string> Names(const std::string& sub = "") const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(sub.empty() ? dir_ : Path(sub))) {
      out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  // Opens `path` as a file output; the refusal in *error.
  std::unique_ptr<OutputFile> Open(const std::string& path, bool force, Failure* error,
                                   bool stdout_allowed = false) {
    OutputRequest request;
    request.path = path;
    request.force = force;
    request.stdout_allowed = stdout_allowed;
    return OutputFile::Open(request, error);
  }
  std::unique_ptr<OutputFile> OpenDirectory(const std::string& path, bool force, Failure* error) {
    OutputRequest request;
    request.path = path;
    request.force = force;
    request.directory = true;
    request.directory_marker = "marker";
    return OutputFile::Open(request, error);
  }
};

inline OutputRequest FileAt(const std::string& path) {
  OutputRequest request;
  request.path = path;
  return request;
}

inline bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace proctape::test
