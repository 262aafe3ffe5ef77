// `corpus add`: a recording checked, replayed and copied into the corpus,
// its entry written to the MANIFEST under the directory's lock.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "core/proc_parse.h"
#include "corpus/beside_file.h"
#include "corpus/corpus.h"
#include "corpus/corpus_internal.h"
#include "corpus/expect.h"
#include "corpus/sha256.h"
#include "format/file_holds.h"
#include "fs/output_file.h"
#include "format/reader.h"
#include "replay/replay.h"
#include "replay/token_mask.h"

namespace proctape {
namespace {

using corpus_internal::Errno;
using corpus_internal::Escaped;
using corpus_internal::Fd;

// Copies `src` into DIR/<sha256 prefix>.ptape without ever replacing a file:
// an existing file of the same content is kept, one of other content (or
// anything but a regular file) is refused. The copy is written under the one
// output rule (fs/output_file.h: a temporary beside it, synced, renamed
// without replacing), hashed as it is made, and must be `sha256`: a source
// changed since it was checked is refused too. Every refusal names the file
// added as `shown` (its name on the command line: `src` may be stdin's copy).
//
// The copy holds what the recording holds: owner only when its header (read
// from the same bytes: `sha256` is checked) keeps environment values, as a
// recording's token entry (fs/output_file.h, rule 2).
bool CopyIntoCorpus(const std::string& src, const std::string& shown, const std::string& dir,
                    const std::string& sha256, bool owner_only, std::string* error) {
  const std::string target = dir + "/" + CorpusFileName(sha256);
  auto same_content = [&] {
    Failure why;
    Fd existing{OpenFileBeside(target, &why)};  // the corpus's file: corpus/beside_file.h
    if (existing.fd >= 0 && Sha256Fd(existing.fd, &why) == sha256) return true;
    *error = shown + ": " + Escaped(target) + " exists with other content: not replaced";
    return false;
  };
  struct stat st;
  if (::lstat(target.c_str(), &st) == 0) return same_content();
  Fd in{::open(src.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) {
    *error = shown + ": " + Errno("cannot open");
    return false;
  }
  OutputRequest request;
  request.path = target;
  Failure refused;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &refused);
  if (!out) {
    *error = shown + ": " + refused.message;
    return false;
  }
  if (owner_only) out->KeepOwnerOnly();
  Sha256 hash;
  std::vector<char> buf(64 * 1024);
  for (;;) {
    ssize_t n = ::read(in.fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = shown + ": " + Errno("cannot read");
      return false;
    }
    if (n == 0) break;
    std::string_view piece(buf.data(), static_cast<std::size_t>(n));
    hash.Update(piece);
    if (MaybeFailure failed = out->Write(piece)) {
      *error = shown + ": " + failed->message;
      return false;
    }
  }
  if (hash.Hex() != sha256) {
    *error = shown + " changed while it was being added: not added";
    return false;
  }
  MaybeFailure failed = out->Commit();
  if (!failed) return true;
  // Made meanwhile (by another add, outside the lock): the same content is fine.
  if (::lstat(target.c_str(), &st) == 0) return same_content();
  *error = shown + ": " + failed->message;
  return false;
}

// The recording as one entry, its expectations aside.
ManifestEntry EntryFor(const Snapshot& snapshot, const AddRequest& request,
                       const std::string& sha256) {
  ManifestEntry e;
  const std::string& shown = request.shown.empty() ? request.file : request.shown;
  e.name = request.name.empty() ? DefaultEntryName(snapshot.header, shown) : request.name;
  e.file = CorpusFileName(sha256);
  e.sha256 = sha256;
  e.shows = request.note;
  // A lab recording added without a note says what its scenario shows.
  const LabRecording lab = LabRecordingOf(snapshot.header);
  if (e.shows.empty() && !lab.scenario.empty() && request.scenario_note) {
    e.shows = request.scenario_note(lab.scenario);
  }
  e.kernel = snapshot.header.host().kernel_release();
  e.captured = CapturedUtc(snapshot.header.capture_start_realtime_ns());
  // The command line that recorded it may name the token (`--token VALUE`):
  // a MANIFEST is committed and printed, so the token is masked there as in
  // every view (replay/token_mask.h).
  e.scenario = TokenMask::Of(snapshot).Masked(ScenarioOf(snapshot.header));
  return e;
}

AddOutcome Failed(AddOutcome::Kind kind, std::string message) {
  AddOutcome out;
  out.kind = kind;
  out.message = std::move(message);
  return out;
}

// kAlreadyPresent when `manifest` holds `sha256`; a usage failure naming
// `file` when the entry's name is taken by other content; otherwise kAdded.
AddOutcome Place(const Manifest& manifest, const std::string& sha256, const std::string& name,
                 const std::string& file) {
  for (const ManifestEntry& e : manifest.entries) {
    if (e.sha256 == sha256) {
      AddOutcome out;
      out.kind = AddOutcome::Kind::kAlreadyPresent;
      out.entry = e;
      return out;
    }
  }
  for (const ManifestEntry& e : manifest.entries) {
    if (e.name == name) {
      return Failed(AddOutcome::Kind::kUsage, file + ": the name " + name +
                                                  " is taken by other content (" + e.file +
                                                  "): pass --name with another name");
    }
  }
  return AddOutcome{};
}

// Content already in the corpus, added again with --name or --expect: the
// entry is never changed by an add (a MANIFEST line is rewritten only by
// `corpus rm` and a new add). The same name and expectations are the entry
// found (kAlreadyPresent); a differing one is refused, saying what the entry
// holds, so that nothing given is ignored without a word.
AddOutcome Duplicate(const ManifestEntry& existing, const AddRequest& request,
                     const std::vector<std::string>& expects, const std::string& file) {
  auto list = [](const std::vector<std::string>& v) {
    std::string out;
    for (const std::string& x : v) out += (out.empty() ? "" : ", ") + Escaped(x);
    return out;
  };
  const std::string held = file + " is already in the corpus as " + existing.name + " (" +
                           existing.file + ", expect " + list(existing.expects) + "): ";
  const std::string again = "; an add never changes an entry ('proctape corpus rm " +
                            existing.name + "' first to add it again)";
  if (!request.name.empty() && request.name != existing.name) {
    return Failed(AddOutcome::Kind::kUsage, held + "--name " + request.name + " differs" + again);
  }
  if (!request.expects.empty() && expects != existing.expects) {
    return Failed(AddOutcome::Kind::kUsage,
                  held + "--expect " + list(expects) + " differs" + again);
  }
  AddOutcome out;
  out.kind = AddOutcome::Kind::kAlreadyPresent;
  out.entry = existing;
  return out;
}

// The expect line of every resolution: the replayed verdict, or the --expect
// given for it. Refuses a divergence always, and a changed verdict unless
// --expect names what is wanted.
AddOutcome Expectations(const AddRequest& request, const std::vector<v1::ReplayResult>& replays,
                        std::vector<std::string>* expects) {
  const std::string file = Escaped(request.shown.empty() ? request.file : request.shown);
  for (const v1::ReplayResult& r : replays) {
    if (r.outcome() == v1::ReplayResult::DIVERGED) {
      return Failed(AddOutcome::Kind::kDiverged,
                    file + ": resolution " + std::to_string(r.resolution_index()) + " " +
                        ReplayPhrase(r) + ": the corpus holds files whose tape replays");
    }
  }
  AddOutcome out;
  for (const v1::ReplayResult& r : replays) {
    if (request.expects.empty()) {
      if (r.outcome() != v1::ReplayResult::REPRODUCED) {
        return Failed(AddOutcome::Kind::kVerdictChanged,
                      file + ": resolution " + std::to_string(r.resolution_index()) +
                          ": VERDICT CHANGED: recorded " + RecordedExpect(r) + ", replayed " +
                          ReplayedExpect(r) + " (pass --expect with the intended verdict)");
      }
      expects->push_back(ReplayedExpect(r));
      continue;
    }
    Failure why;
    std::optional<std::string> given =
        ExpectFromOption(request.expects[r.resolution_index()], r, &why);
    if (!given) return Failed(AddOutcome::Kind::kUsage, file + ": " + why.message);
    const std::string expect = std::move(*given);
    if (expect != ReplayedExpect(r)) {
      out.warnings.push_back("resolution " + std::to_string(r.resolution_index()) +
                             " is expected to give " + expect + " but replays to " +
                             ReplayedExpect(r) +
                             ": the entry will drift until the resolver gives " + expect);
    }
    expects->push_back(expect);
  }
  return out;
}

}  // namespace

std::string CorpusDirProblem(const std::string& dir) {
  const std::string shown = Escaped(dir);
  if (dir.empty()) return "the corpus directory is empty: name one";
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return "the corpus " + shown + " is not a directory: refused";
    if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
      return "cannot write in the corpus " + shown + ": " + std::strerror(errno);
    }
    const std::string manifest = ManifestPath(dir);
    if (::lstat(manifest.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      return Escaped(manifest) + (S_ISLNK(st.st_mode) ? " is a symbolic link" : " is not a file") +
             ": refused (a corpus's MANIFEST is a regular file)";
    }
    return "";
  }
  if (errno != ENOENT) return "the corpus " + shown + ": " + std::strerror(errno);
  std::filesystem::path p(dir);
  while (p.has_relative_path() && p.filename().empty()) p = p.parent_path();  // "a/b/"
  const std::string parent = p.has_parent_path() ? p.parent_path().string() : ".";
  if (::stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return "cannot create the corpus " + shown + ": its directory " + Escaped(parent) +
           " does not exist";
  }
  if (::faccessat(AT_FDCWD, parent.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    return "cannot create the corpus " + shown + " in " + Escaped(parent) + ": " +
           std::strerror(errno);
  }
  return "";
}

AddOutcome AddToCorpus(const AddRequest& request) {
  using Kind = AddOutcome::Kind;
  const std::string file = Escaped(request.shown.empty() ? request.file : request.shown);
  if (!request.name.empty() && !IsEntryName(request.name)) {
    return Failed(Kind::kUsage, "--name " + EscapeBytes(request.name) +
                                    ": 1 to 64 of [A-Za-z0-9._-], beginning with a letter or "
                                    "digit");
  }
  // Every --expect is well formed, whatever the file holds (a duplicate
  // included): a bare RESOLVED or ERROR takes the rest from the replay.
  for (const std::string& e : request.expects) {
    if (e == "RESOLVED" || e == "ERROR") continue;
    if (std::string why = ExpectSyntaxError(e); !why.empty()) {
      return Failed(Kind::kUsage, "--expect " + EscapeBytes(e) + ": " + why);
    }
  }
  // Where it goes, before any work: a corpus that cannot be written is found
  // before the recording is replayed.
  if (std::string problem = CorpusDirProblem(request.dir); !problem.empty()) {
    return Failed(Kind::kIo, problem);
  }
  // Already there? Without --name or --expect nothing else matters; with
  // them, the entry is checked against what they say (Duplicate).
  std::string error, sha256;
  Failure failure;
  std::optional<Manifest> loaded = LoadManifest(request.dir, true, &failure);
  if (!loaded) return Failed(Kind::kManifest, failure.message);
  Manifest manifest = std::move(*loaded);
  if (std::optional<std::string> hex = Sha256File(request.file, &failure)) {
    sha256 = std::move(*hex);
  } else {
    return Failed(Kind::kIo, file + ": " + failure.message);
  }
  AddOutcome placed = Place(manifest, sha256, "", file);
  const bool duplicate = placed.kind == Kind::kAlreadyPresent;
  if (duplicate && request.name.empty() && request.expects.empty()) return placed;

  // Its resolutions replay against their tape: no frame's processes kept.
  Snapshot snapshot;
  ReadKeep keep;
  keep.frames.emplace();
  keep.compact_tape = true;  // the tape as replay keeps it (format/tape.h)
  FormatError damage = ReadSnapshot(request.file, &snapshot, keep);
  if (!damage.ok()) {
    AddOutcome out = Failed(Kind::kFile, file + ": " + damage.message);
    out.file_error = damage.kind;
    return out;
  }
  const std::size_t n = snapshot.resolutions.size();
  if (n == 0) {
    return Failed(Kind::kUsage, file +
                                    " holds no recorded resolution: the corpus holds "
                                    "recordings ('proctape resolve ... --record FILE')");
  }
  if (!request.expects.empty() && request.expects.size() != n) {
    return Failed(Kind::kUsage, file + " records " + Plural(n, "resolution", "resolutions") +
                                    ": give --expect once per resolution, in order (" +
                                    std::to_string(request.expects.size()) + " given)");
  }
  std::vector<v1::ReplayResult> replays;
  for (std::size_t i = 0; i < n; ++i) replays.push_back(ReplayResolution(snapshot, i, {}));
  ManifestEntry entry = EntryFor(snapshot, request, sha256);
  AddOutcome out = Expectations(request, replays, &entry.expects);
  if (out.kind != Kind::kAdded) return out;
  if (duplicate) return Duplicate(placed.entry, request, entry.expects, file);

  // Write under the directory's lock, against the manifest as it is now. A
  // missing corpus is made here, one level (its directory was checked).
  if (::mkdir(request.dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Failed(Kind::kIo,
                  "cannot create the corpus " + Escaped(request.dir) + ": " + std::strerror(errno));
  }
  Fd lock{::open(request.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (lock.fd < 0 || ::flock(lock.fd, LOCK_EX) != 0) {
    return Failed(Kind::kIo,
                  "cannot lock the corpus " + Escaped(request.dir) + ": " + std::strerror(errno));
  }
  loaded = LoadManifest(request.dir, true, &failure);
  if (!loaded) return Failed(Kind::kManifest, failure.message);
  manifest = std::move(*loaded);
  placed = Place(manifest, sha256, entry.name, file);
  if (placed.kind != Kind::kAdded) return placed;
  manifest.entries.push_back(entry);
  std::stable_sort(manifest.entries.begin(), manifest.entries.end(),
                   [](const ManifestEntry& a, const ManifestEntry& b) { return a.name < b.name; });
  // Never a MANIFEST that every reader refuses (corpus/beside_file.h), and
  // so no copy either.
  const std::string text = FormatManifest(manifest);
  if (text.size() > kMaxManifestBytes) {
    return Failed(Kind::kManifest, Escaped(ManifestPath(request.dir)) + ": would hold more than " +
                                       std::to_string(kMaxManifestBytes) +
                                       " bytes (the limit) with this entry: not added");
  }
  if (!CopyIntoCorpus(request.file, file, request.dir, sha256, KeepsEnvironValues(snapshot.header),
                      &error)) {
    return Failed(Kind::kIo, error);
  }
  if (MaybeFailure failed = WriteFileAtomic(ManifestPath(request.dir), text)) {
    return Failed(Kind::kIo, failed->message);
  }
  out.entry = entry;
  return out;
}

}  // namespace proctape
