// SPDX-License-Identifier: Apache-2.0
#include "analyze/export_file.h"

#include <utility>

#include "analyze/export.h"
#include "analyze/export_json.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/reader.h"
#include "fs/inputs.h"

namespace proctape {
namespace {

// The input as json and dot read it, without holding the file: json streams
// it (a first read checks it whole, then each list is printed as it is read
// again, from a copy when it is no regular file); dot keeps the one frame it
// draws, the shells of the others and the resolutions, no observation.
struct ExportInput {
  Snapshot snapshot;
  JsonExport json;
  InputCopy copy;
  const v1::Header& header(bool is_json) const { return is_json ? json.header() : snapshot.header; }
};

// Reads the input; false with the failure in *result.
bool ReadInput(const FileExportRequest& r, ExportInput* in, FileExport* result) {
  FormatError read;
  if (r.json) {
    if (MaybeFailure failed = in->copy.Open(r.file)) {
      result->failure = Failure(FailureKind::kIo, EscapeBytes(failed->message));
      return false;
    }
    read = in->json.Survey(StreamSource{r.file, in->copy.fd()});
  } else {
    ReadKeep keep;
    keep.frames = std::vector<std::uint64_t>{r.frame};
    keep.observations = false;
    read = ReadSnapshot(r.file, &in->snapshot, keep);
  }
  result->input_failure = ToFailure(read);
  return !result->input_failure;
}

// json as it is printed, a MiB at a time (the document of a large file is
// tens of MB): past protobuf's 2 GiB a failure, never an empty document; a
// failed write, the output's. `done` ends the progress line before either.
void WriteJson(const JsonExport& json, OutputFile& output, const std::string& name,
               const std::function<void()>& done, FileExport* result) {
  std::string data, write_error;
  auto drain = [&](std::string* piece) -> MaybeFailure {
    if (MaybeFailure failed = output.Write(*piece)) {
      write_error = failed->message;
      return failed;
    }
    result->bytes += piece->size();
    piece->clear();
    return std::nullopt;
  };
  const MaybeFailure unwritten = json.Write(&data, drain);
  const bool complete = !unwritten;
  if (complete) data.push_back('\n');
  MaybeFailure failed = complete ? output.WriteAndCommit(data) : std::nullopt;
  done();
  if (!complete) {
    if (!write_error.empty()) {
      result->output_failure = Failure(FailureKind::kIo, write_error);
    } else {
      result->failure = Failure(FailureKind::kTooLarge, name + ": " + unwritten->message);
    }
    return;
  }
  result->output_failure = std::move(failed);
  result->bytes += data.size();
  result->processes = json.records();
}

}  // namespace

FileExport ExportFile(const FileExportRequest& r, OutputFile& output) {
  const auto progress = [&r](const std::string& step) {
    if (r.progress) r.progress(step);
  };
  FileExport result;
  ExportInput in;
  // A file of many frames takes seconds to read: where it is, on a terminal.
  progress("export: reading " + EscapeBytes(r.file, 4096));
  const bool read = ReadInput(r, &in, &result);
  progress("");
  if (!read) return result;
  // What is said names the input and output masked with the input's tokens.
  result.mask = r.json ? TokenMask::Of(in.json.header(), {}) : TokenMask::Of(in.snapshot);
  const std::string name = result.mask.Shown(r.file);
  if (!r.json && r.frame >= in.snapshot.frames.size()) {
    result.failure =
        Failure(FailureKind::kUsage, NoSuchFrameIn(r.frame_option, r.frame, name, in.snapshot));
    return result;
  }
  const std::string shown = result.mask.Shown(r.out);
  // What is exported from a file that keeps environment values (capture
  // --env keep, a --record's token entry) is the owner's only, as that file.
  if (KeepOwnerOnly(in.header(r.json), output) && r.out != "-") {
    result.warnings.push_back(name + " keeps environment values: " + shown +
                              " is created with mode 0600");
  }
  // Standard output may be this terminal: its data never shares the line.
  if (r.out != "-") progress("export: writing " + shown);
  if (r.json) {
    WriteJson(
        in.json, output, name, [&] { progress(""); }, &result);
    return result;
  }
  std::size_t drawn = 0;
  const std::string data = FrameDot(in.snapshot, static_cast<std::size_t>(r.frame), &drawn);
  result.output_failure = output.WriteAndCommit(data);
  progress("");
  if (!result.output_failure) {
    result.bytes = data.size();
    result.processes = drawn;
  }
  return result;
}

}  // namespace proctape
