// SPDX-License-Identifier: Apache-2.0
// corpus add over several FILEs: each copied when it cannot be read three
// times, added (AddToCorpus), and its line and JSON entry built.
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "corpus/pipelines.h"
#include "fs/inputs.h"
#include "proto/summary.h"

namespace proctape {
namespace {

std::string Expects(const ManifestEntry& e) {
  std::string out;
  for (const std::string& x : e.expects) out += (out.empty() ? "" : ", ") + EscapeValue(x);
  return out;
}

// The usage failure of options that name one entry given with several files.
MaybeFailure OneFileOptions(const AddFilesRequest& request) {
  const std::string given = " (" + std::to_string(request.files.size()) + " given)";
  if (request.files.size() > 1 && !request.request.name.empty()) {
    return Failure(FailureKind::kUsage, "--name names one entry: give one FILE with it" + given);
  }
  if (request.files.size() > 1 && !request.request.expects.empty()) {
    return Failure(FailureKind::kUsage,
                   "--expect states the verdicts of one FILE's resolutions: give one FILE with "
                   "it" +
                       given);
  }
  return std::nullopt;
}

// `outcome` of `file` as its AddedFile.
void Describe(const AddFilesRequest& request, const std::string& file, AddOutcome outcome,
              AddedFile* added) {
  v1::CorpusAddResult& result = added->result;
  result.set_file(EscapedText(file));
  added->failure = FailureOf(outcome);
  if (added->failure) {
    // Its entry in the document too (with several FILEs every input has
    // one); the line on standard error is the failure's.
    result.set_outcome("refused");
    result.set_error(outcome.message);  // proctape's line, its host bytes escaped already
    return;
  }
  const bool is_new = outcome.kind == AddOutcome::Kind::kAdded;
  result.set_added(is_new);
  result.set_outcome(is_new ? "added" : "duplicate");
  *result.mutable_entry() = ToProto(outcome.entry);
  for (const std::string& w : outcome.warnings) result.add_warnings(w);
  const ManifestEntry& e = outcome.entry;
  added->line = is_new ? "added " + e.name + " as " + EscapeBytes(request.request.dir, 4096) + "/" +
                             e.file + ": expect " + Expects(e)
                       : EscapeBytes(file, 4096) + " is already in the corpus as " + e.name + " (" +
                             e.file + ", expect " + Expects(e) + "): not added again";
  added->warnings = std::move(outcome.warnings);
}

AddedFile AddOne(const AddFilesRequest& request, const std::string& file) {
  AddedFile added;
  added.file = file;
  AddRequest one = request.request;
  one.file = file;
  // Read three times (hashed, replayed, copied): standard input or a pipe
  // is copied once.
  InputCopy input_copy;
  if (MaybeFailure failed = input_copy.Open(file)) {
    added.failure = Failure(FailureKind::kIo, EscapeBytes(failed->message));
    added.listed = false;
    return added;
  }
  if (input_copy.copied()) {
    one.file = input_copy.path();
    one.shown = file;
  }
  Describe(request, file, AddToCorpus(one), &added);
  return added;
}

}  // namespace

MaybeFailure FailureOf(const AddOutcome& outcome) {
  switch (outcome.kind) {
    case AddOutcome::Kind::kAdded:
    case AddOutcome::Kind::kAlreadyPresent: return std::nullopt;
    case AddOutcome::Kind::kUsage: return Failure(FailureKind::kUsage, outcome.message);
    case AddOutcome::Kind::kFile:
      return Failure(FailureKindOf(outcome.file_error).value_or(FailureKind::kInternal),
                     outcome.message);
    case AddOutcome::Kind::kVerdictChanged:
      return Failure(FailureKind::kVerdictChanged, outcome.message);
    case AddOutcome::Kind::kDiverged: return Failure(FailureKind::kDiverged, outcome.message);
    case AddOutcome::Kind::kManifest: return Failure(FailureKind::kManifest, outcome.message);
    case AddOutcome::Kind::kIo: return Failure(FailureKind::kIo, outcome.message);
  }
  return Failure(FailureKind::kInternal, outcome.message);
}

MaybeFailure AddFilesToCorpus(const AddFilesRequest& request,
                              const std::function<void(AddedFile&)>& each_file) {
  if (MaybeFailure usage = OneFileOptions(request)) return usage;
  for (const std::string& file : request.files) {
    AddedFile added = AddOne(request, file);
    each_file(added);
  }
  return std::nullopt;
}

}  // namespace proctape
