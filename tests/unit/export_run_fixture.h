// SPDX-License-Identifier: Apache-2.0
// What the tests of the export and explain pipelines (analyze_export_file,
// analyze_explain_file, proc_dir_export, sql_export) share: a shipped
// recording to read, and an output opened as the CLI opens it, without the
// interrupt handler.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "fs/output_file.h"
#include "tests/unit/source_dir.h"

namespace proctape::test {

// tests/data/replay/NAME.ptape: a recording of one check, with its frames.
inline std::string ShippedRecording(const std::string& name = "resolved") {
  return (SourceDir() / "tests" / "data" / "replay" / (name + ".ptape")).string();
}

// `request` opened (its temporary made), or null with a failed expectation.
inline std::unique_ptr<OutputFile> OpenTestOutput(OutputRequest request) {
  request.remove_on_interrupt = false;
  Failure failure;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &failure);
  EXPECT_TRUE(out) << failure.message;
  return out;
}

// A file output at `path`, or a directory output with `directory`.
inline std::unique_ptr<OutputFile> OpenTestOutput(const std::string& path, bool directory = false) {
  OutputRequest request;
  request.path = path;
  request.directory = directory;
  return OpenTestOutput(std::move(request));
}

}  // namespace proctape::test
