// SPDX-License-Identifier: Apache-2.0
// Each `proctape corpus` command's work whole (docs/corpus.md), on the
// pieces of corpus/corpus.h: what it reads, what it decides and the report
// it prints, built here; the CLI (cli/corpus_*_command.cc) enters its jail,
// makes one call, prints the text or the proto as JSON and says the
// failures. Nothing here prints.
//
// A failure is a core/failure.h Failure: its kind picks the exit status
// (kUsage 2, kIo 10, a damaged file's 11-16, kVerdictChanged 20, kDiverged
// 21, kCorpusDrift 22, kManifest 23), its message is one line without
// "proctape: ", host bytes in it escaped. A message about the corpus
// directory begins with the path as the library names it ("DIR/MANIFEST:
// what"), for the CLI to say it about --corpus or DIR (cli/errors.h
// AboutPath).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "corpus/corpus.h"
#include "corpus/shard.h"
#include "proctape.pb.h"

namespace proctape {

// ---- corpus add -------------------------------------------------------------

// An AddOutcome's refusal as a Failure (nothing for kAdded and
// kAlreadyPresent): kUsage, kIo, kManifest, kVerdictChanged, kDiverged, or
// a damaged file's kind (kFile).
MaybeFailure FailureOf(const AddOutcome& outcome);

struct AddFilesRequest {
  std::vector<std::string> files;  // in the order given; "-" is standard input
  // For every file: the corpus, the note; a name and expectations only with
  // one file (a usage failure otherwise). `file` and `shown` are set per file.
  AddRequest request;
};

// One FILE, added or refused.
struct AddedFile {
  std::string file;  // as given
  // Refused: why. Nothing added for it; the next FILE is still tried.
  MaybeFailure failure;
  // Whether it has an entry in the JSON document: a FILE that cannot even
  // be read (standard input or a pipe that fails while it is copied) has
  // none, and its failure is said before anything printed so far.
  bool listed = true;
  std::vector<std::string> warnings;  // added: expectations the replay does not meet yet
  // Not refused: "added NAME as DIR/FILE: expect X" or "FILE is already in
  // the corpus as NAME (FILE, expect X): not added again" (no newline).
  std::string line;
  // Its entry in the JSON document (CorpusAddResult): outcome added,
  // duplicate or refused (with the error; exit_status is the caller's).
  v1::CorpusAddResult result;
};

// Adds every file in order (AddToCorpus each; standard input or a pipe is
// copied once, as it is read three times), handing each one's AddedFile to
// `each_file` as soon as it is done, before the next is read. Returns the
// usage failure that adds nothing (--name or --expect with several files),
// else nothing: a refused file is in its AddedFile.
MaybeFailure AddFilesToCorpus(const AddFilesRequest& request,
                              const std::function<void(AddedFile&)>& each_file);

// ---- corpus check -----------------------------------------------------------

struct CorpusCheckRequest {
  std::string dir;                // the corpus
  std::vector<std::string> only;  // --entry: these entries only (each must be one); none = all
  unsigned jobs = 0;              // entries replayed at once; 0: one per core
  // As CheckOptions::progress; none = no calls.
  std::function<void(std::size_t done, std::size_t total, const std::string& name)> progress;
  // --shard K/N: of the entries picked (all, or `only`'s), those whose name
  // is in shard K (corpus/shard.h); none given: all of them.
  Shard shard;
};

struct CorpusCheckOutcome {
  // Nothing was checked: kManifest, the MANIFEST is missing or does not
  // parse ("DIR/MANIFEST[:LINE]: what"); kUsage, `unknown_entry` (an
  // --entry) is no entry ("no such entry in DIR/MANIFEST").
  MaybeFailure failure;
  std::string unknown_entry;
  // The entries checked, in manifest order, each with its manifest_index;
  // the MANIFEST's SHA-256, the selection (`selected`, `selection_sha256`:
  // the entries picked before the shard's split) and the shard, for
  // MergeCorpusReports.
  v1::CorpusReport report;
};

// Loads DIR/MANIFEST, picks the entries (all, or those `only` names), keeps
// the shard's and checks them (CheckCorpus).
CorpusCheckOutcome CheckCorpusDir(const CorpusCheckRequest& request);

// The report as text: a line per entry that drifted or is unreadable
// (CheckLine), then the summary line (SummaryLine); each ends in "\n".
std::string CheckReportText(const v1::CorpusReport& report);

// What the report found, as the command's status: kManifest "the manifest
// names a missing file" when an entry's file is missing; else kCorpusDrift
// "N entries drifted, U unreadable" when any entry drifted or is
// unreadable; else nothing (every entry reproduced).
MaybeFailure CheckFinding(const v1::CorpusReport& report);

// ---- corpus report ----------------------------------------------------------

// The report of every shard of one `corpus check --shard K/N --json` run,
// merged into the report one unsharded `corpus check` of the same selection
// gives (docs/corpus.md, "Shards"): the results in manifest order, the
// counts summed, `seconds` the shards' summed, `dir` shard 1's; `shard` and
// `shards` 0. A failure when the files make no whole, kind kShards, one line
// naming the file: a file that cannot be read (kIo) or is no CorpusReport
// JSON; a report of no shard; reports of other corpora (the MANIFEST's
// SHA-256), other selections (--entry) or another N; a shard given twice; a
// shard missing ("shard 2/3 is missing: ..."); counts that do not add up (an
// entry in no shard or in two, a report whose counts are not its results').
struct CorpusMerge {
  MaybeFailure failure;
  v1::CorpusReport report;
};
// `files`: each a path, or "-" for standard input (once).
CorpusMerge MergeCorpusReports(const std::vector<std::string>& files);
// The same on reports already read, each named by `names` (same order).
CorpusMerge MergeCorpusReports(const std::vector<v1::CorpusReport>& reports,
                               const std::vector<std::string>& names);

// ---- corpus list ------------------------------------------------------------

struct CorpusListing {
  // kManifest: DIR/MANIFEST is missing or does not parse ("DIR/MANIFEST
  // [:LINE]: what"); nothing else is filled.
  MaybeFailure failure;
  // The entries (CorpusList: DIR escaped, entries as ToProto), each's
  // values masked with its recording's tokens (docs/security.md "The token
  // in outputs").
  v1::CorpusList list;
  std::string text;  // ListLines of the same masked entries, each ending in "\n"
};

// DIR/MANIFEST's entries, for `corpus list`. A recording is read only for
// its header's tokens: a regular file, no link followed; one that is not
// there or has no header masks nothing.
CorpusListing ListCorpus(const std::string& dir);

// ---- corpus rm --------------------------------------------------------------

struct CorpusRemoval {
  // kUsage: a name is no entry (nothing removed; a message about the names,
  // not the corpus); kManifest: DIR/MANIFEST missing or bad; kIo: the
  // MANIFEST not rewritten or a file not deleted ("DIR/...: what").
  MaybeFailure failure;
  // The entries removed, as `corpus list --json` shows entries; none when
  // nothing was removed (and then no document is printed).
  v1::CorpusList removed;
  // "removed NAME (DIR/FILE) from the corpus", a line each, "\n" ended.
  std::string text;
  std::vector<std::string> warnings;  // a removed entry whose file was already missing
};

// RemoveFromCorpus, its outcome as the command reports it.
CorpusRemoval RemoveCorpusEntries(const std::string& dir, const std::vector<std::string>& names);

}  // namespace proctape
