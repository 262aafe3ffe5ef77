// The regression corpus (docs/corpus.md): a directory holding a MANIFEST and
// the snapshot files it names (<first 16 hex of sha256>.ptape, flat). `add`
// puts a recording in after replaying it; `check` replays every entry and
// compares each verdict with the manifest's expect lines; `list` shows them;
// `rm` takes entries out.
// This library does the work and returns what happened; the CLI
// (cli/corpus_*command.cc) prints it and picks the exit status.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "corpus/manifest.h"
#include "format/format_error.h"
#include "proctape.pb.h"

namespace proctape {

// ---- Facts of a recording, for its manifest entry ---------------------------

// "2026-12-01T03:12:44Z" for CLOCK_REALTIME nanoseconds; "" for <= 0.
std::string CapturedUtc(std::int64_t realtime_ns);
// How it was captured: Header.command_line without argv[0], each argument
// that is empty or holds a byte outside [A-Za-z0-9_./:=,+@%-] single-quoted.
std::string ScenarioOf(const v1::Header& header);
// Any text made an entry name: bytes outside the name alphabet become '-',
// leading bytes that are not a letter or digit go, at most 64 are kept;
// nothing left gives "entry".
std::string SanitizeName(std::string_view text);
// What `proctape lab SCENARIO [--sandbox X] ...` recorded, read from a
// file's Header.command_line (options in any order; X defaults to unshare);
// an empty scenario when the file was not recorded by the lab.
struct LabRecording {
  std::string scenario;
  std::string sandbox;
};
LabRecording LabRecordingOf(const v1::Header& header);
// The name `corpus add` gives without --name: SCENARIO-SANDBOX for a lab
// recording, else `path`'s base name without ".ptape" ("stdin" for "-",
// standard input); sanitized.
std::string DefaultEntryName(const v1::Header& header, const std::string& path);

// ---- The manifest on disk ---------------------------------------------------

std::string ManifestPath(const std::string& dir);
// Reads and parses DIR/MANIFEST. A missing file is an empty manifest when
// `missing_ok`. On failure nullopt, with *failure of kind kManifest (the
// read's errno, if any) and one line: "DIR/MANIFEST:LINE: what" (the
// ManifestError's line) or "DIR/MANIFEST: what" for the file as a whole,
// paths escaped. With `sha256`, also the SHA-256 (hex) of the bytes parsed.
std::optional<Manifest> LoadManifest(const std::string& dir, bool missing_ok, Failure* failure,
                                     std::string* sha256 = nullptr);
// Writes `data` to a temporary file beside `path` and renames it over `path`
// (fs/output_file.h, forced: the corpus's own file): readers see the old
// or the new file, never a part. Mode 0644 (the umask applies). A `path` that
// is a symbolic link or a directory is refused. A failure is of kind kIo.
MaybeFailure WriteFileAtomic(const std::string& path, const std::string& data);
// Why `corpus add` cannot write into the corpus `dir`, or "" when it can:
// an existing `dir` must be a directory (a link to one is followed: the
// corpus is where files go, not a file written) that this process may write
// in, whose MANIFEST, if any, is a regular file; a missing one is created
// (one level) in a directory that exists and may be written in. Checked
// before any work.
std::string CorpusDirProblem(const std::string& dir);

// ---- corpus add -------------------------------------------------------------

struct AddRequest {
  std::string file;   // the recording; copied, never moved
  std::string shown;  // FILE in messages and DefaultEntryName ("" = file)
  std::string dir;    // the corpus; created when missing
  std::string name;   // "" = DefaultEntryName
  std::string note;   // the entry's `shows`
  // Without a note: what a lab scenario shows, by its name (the lab's own
  // description; lab/ is not a layer the corpus may use), "" when unknown.
  std::function<std::string(const std::string& scenario)> scenario_note;
  std::vector<std::string> expects;  // --expect: none, or one per resolution
};

struct AddOutcome {
  enum class Kind {
    kAdded,           // entry and file written
    kAlreadyPresent,  // the same content is in the corpus (entry says as what)
    kUsage,           // bad name, name taken, --expect wrong, no resolution
    kFile,            // the recording is not intact: file_error says how
    kVerdictChanged,  // a replay gives another verdict and no --expect says so
    kDiverged,        // a replay diverged from the tape
    kManifest,        // DIR/MANIFEST does not parse
    kIo,              // reading, copying or writing failed
  };
  Kind kind = Kind::kAdded;
  FormatErrorKind file_error = FormatErrorKind::kNone;
  std::string message;                // failures: one line, no "proctape: "
  ManifestEntry entry;                // kAdded, kAlreadyPresent
  std::vector<std::string> warnings;  // kAdded: expectations the replay does not meet yet
};

// Validates, replays and adds one recording (see AddOutcome). The corpus
// directory is locked (flock) while its MANIFEST is read and rewritten.
AddOutcome AddToCorpus(const AddRequest& request);

// ---- corpus rm --------------------------------------------------------------

struct RemoveOutcome {
  enum class Kind {
    kRemoved,   // every named entry left the MANIFEST, its file deleted
    kUsage,     // a name is not an entry: nothing was removed
    kManifest,  // DIR/MANIFEST is missing or does not parse
    kIo,        // the MANIFEST could not be rewritten, or a file not deleted
  };
  Kind kind = Kind::kRemoved;
  std::string message;                 // failures: one line, no "proctape: "
  std::vector<ManifestEntry> removed;  // in manifest order (kRemoved; kIo after the rewrite)
  std::vector<std::string> warnings;   // a removed entry whose file was already missing
};

// Removes the entries `names` from DIR/MANIFEST, then deletes their files,
// under the directory's lock (flock, as add takes it). All the names or
// none: one that is not an entry refuses the whole request. Each entry's file
// belongs to it alone (the MANIFEST holds a content once).
RemoveOutcome RemoveFromCorpus(const std::string& dir, const std::vector<std::string>& names);

// ---- corpus check -----------------------------------------------------------

// Fills expected/got/state/detail of `result` from an entry's expect lines
// and the replay of each of its recorded resolutions. REPRODUCED when every
// replayed verdict, in ExpectText form, equals its line and none DIVERGED;
// else DRIFTED with detail "expected A, B; got C, D".
void CompareWithExpects(const std::vector<std::string>& expects,
                        const std::vector<v1::ReplayResult>& replays,
                        v1::CorpusEntryResult* result);

// One entry: its file present, its sha256 the manifest's, intact, holding at
// least one resolution (else UNREADABLE, detail saying which), then replayed.
// An entry that needs more memory than proctape may use is UNREADABLE too
// ("FILE: out of memory (std::bad_alloc)"): it never throws.
v1::CorpusEntryResult CheckEntry(const std::string& dir, const ManifestEntry& entry);

struct CheckOptions {
  unsigned jobs = 1;  // entries replayed at once
  // Called once per finished entry, from the worker that finished it, one
  // call at a time: entries done so far, all of them, the one just done.
  std::function<void(std::size_t done, std::size_t total, const std::string& name)> progress;
};

// Checks `entries` (of the manifest of `dir`) on `jobs` threads. The results
// are in the order of `entries`, whatever the threads did. No entry's
// failure escapes (CheckEntry); anything else that escapes a worker is
// rethrown here once every worker has stopped, never left to abort.
v1::CorpusReport CheckCorpus(const std::string& dir, const std::vector<ManifestEntry>& entries,
                             const CheckOptions& options);

// "DRIFT NAME: expected X; got Y" or "UNREADABLE NAME: why"; "" when reproduced.
std::string CheckLine(const v1::CorpusEntryResult& result);
// "corpus DIR: N entries, P reproduced, D drifted, U unreadable (T s)"; a
// shard's report says "corpus DIR, shard K/N: ..." (its entries alone).
std::string SummaryLine(const v1::CorpusReport& report);

// JUnit XML: one testsuite "proctape-corpus", one testcase per entry, a
// <failure> for a drift, an <error> for an unreadable entry.
std::string JUnitXml(const v1::CorpusReport& report);
// Text for XML content and attribute values: & < > " ' as entities, tab and
// newline as character references, any other byte outside printable ASCII
// (control bytes are not XML characters at all) as the text \xNN.
std::string XmlEscape(std::string_view text);

// ---- corpus list ------------------------------------------------------------

v1::CorpusEntry ToProto(const ManifestEntry& entry);
// One line per entry, "NAME  EXPECT[, EXPECT]  kernel K  captured C  shows S",
// in columns: each column but the last is padded to its widest cell over all
// the entries, whatever their lengths (nothing is cut: a line longer than the
// terminal wraps); an absent fact is an empty cell; values escaped.
std::vector<std::string> ListLines(const std::vector<ManifestEntry>& entries);

}  // namespace proctape
