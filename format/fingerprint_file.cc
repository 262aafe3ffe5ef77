// SPDX-License-Identifier: Apache-2.0
#include "format/fingerprint_file.h"

#include <memory>
#include <string_view>

#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/reader.h"
#include "format/writer.h"

namespace proctape {

namespace {

MaybeFailure WriteWith(SnapshotWriter* writer, const v1::Header& header,
                       const v1::RootFingerprint& fingerprint) {
  v1::Footer footer;
  footer.set_capture_end_mono_ns(fingerprint.taken_mono_ns());
  if (writer->WriteHeader(header) && writer->WriteFingerprint(fingerprint) &&
      writer->Finish(footer)) {
    return std::nullopt;
  }
  return Failure(FailureKind::kIo, writer->error());
}

}  // namespace

MaybeFailure WriteFingerprintFile(std::unique_ptr<OutputFile> output, const v1::Header& header,
                                  const v1::RootFingerprint& fingerprint) {
  return WriteWith(SnapshotWriter::Create(std::move(output), {}).get(), header, fingerprint);
}

MaybeFailure WriteFingerprintFile(const std::string& path, bool force, const v1::Header& header,
                                  const v1::RootFingerprint& fingerprint) {
  SnapshotWriter::Options options;
  options.force = force;
  Failure refused;
  std::unique_ptr<SnapshotWriter> writer = SnapshotWriter::Create(path, options, &refused);
  if (!writer) return refused;
  return WriteWith(writer.get(), header, fingerprint);
}

std::string FingerprintProblem(const v1::RootFingerprint& fp) {
  if (fp.root_pid() < 2 || static_cast<std::uint64_t>(fp.root_pid()) > kMaxPid) {
    return "its root pid " + std::to_string(fp.root_pid()) + " is outside 2..2147483647";
  }
  if (fp.boot_id().empty()) return "it names no boot (boot_id is empty)";
  if (!fp.has_exe_identity() || fp.exe_identity().err() != 0 || fp.exe_identity().ino() == 0) {
    return "its executable has no attested identity";
  }
  return "";
}

std::string OtherBoot(std::string_view boot, const std::string& boot_id) {
  if (!boot_id.empty() && boot == boot_id) return "";
  auto line = [](std::string_view id) {
    if (!id.empty() && id.back() == '\n') id.remove_suffix(1);
    return id.empty() ? std::string("an unknown boot") : EscapeBytes(id, 64);
  };
  return "in boot " + line(boot) + ", not in " + line(boot_id);
}

std::string OtherBoot(const v1::RootFingerprint& fp, const std::string& boot_id) {
  const std::string other = OtherBoot(fp.boot_id(), boot_id);
  return other.empty() ? "" : "taken " + other;
}

FingerprintFile ReadFingerprintFile(const std::string& path) {
  FingerprintFile out;
  Snapshot snapshot;
  ReadKeep keep;  // the header, fingerprints and resolutions: no frame, no tape
  keep.frames.emplace();
  keep.observations = false;
  out.format = ReadSnapshot(path, &snapshot, keep);
  auto fail = [&out](FingerprintFile::Problem problem, std::string error) {
    out.problem = problem;
    out.error = std::move(error);
    return out;
  };
  if (!out.format.ok()) return fail(FingerprintFile::Problem::kFormat, out.format.message);
  out.header = snapshot.header;
  if (snapshot.fingerprints.empty()) {
    // A recording is not a fingerprint file, even one whose request holds
    // the fingerprint it was resolved against: that one is replayed with it.
    bool recorded_one = false;
    for (const v1::Resolution& r : snapshot.resolutions) {
      if (r.has_resolve() && r.resolve().has_fingerprint()) recorded_one = true;
    }
    // What it is; the caller says once how to take a fingerprint.
    return fail(FingerprintFile::Problem::kNotAFingerprint,
                "is not a fingerprint file: it is " + FileHolds(snapshot) +
                    (recorded_one ? ", whose recorded request holds the fingerprint it was "
                                    "resolved against ('proctape replay' uses it)"
                                  : ""));
  }
  if (snapshot.fingerprints.size() > 1 || !snapshot.frames.empty() ||
      !snapshot.observations.empty() || !snapshot.resolutions.empty()) {
    return fail(FingerprintFile::Problem::kInvalid,
                "is not a fingerprint file: " +
                    Plural(snapshot.fingerprints.size(), "fingerprint", "fingerprints") +
                    " beside " + Plural(snapshot.frames.size(), "frame", "frames") + ", " +
                    Plural(snapshot.observations.size(), "observation", "observations") + " and " +
                    Plural(snapshot.resolutions.size(), "resolution", "resolutions") +
                    " (a fingerprint file holds one fingerprint and nothing else)");
  }
  out.fingerprint = snapshot.fingerprints[0];
  if (std::string problem = FingerprintProblem(out.fingerprint); !problem.empty()) {
    return fail(FingerprintFile::Problem::kInvalid, "holds an unusable fingerprint: " + problem);
  }
  if (out.fingerprint.boot_id() != out.header.host().boot_id()) {
    return fail(FingerprintFile::Problem::kInvalid,
                "holds a fingerprint of boot " + EscapeBytes(out.fingerprint.boot_id()) +
                    " in a file written in boot " + EscapeBytes(out.header.host().boot_id()));
  }
  return out;
}

std::optional<v1::RootFingerprint> ReadFingerprintOfBoot(const std::string& path,
                                                         const std::string& boot_id,
                                                         const std::string& whose,
                                                         const std::string& remedy,
                                                         Failure* failure) {
  FingerprintFile file = ReadFingerprintFile(path);
  switch (file.problem) {
    case FingerprintFile::Problem::kNone: break;
    case FingerprintFile::Problem::kFormat:
      *failure = Failure(FailureKindOf(file.format.kind).value_or(FailureKind::kInternal),
                         EscapeBytes(file.error, 1024));
      return std::nullopt;
    case FingerprintFile::Problem::kNotAFingerprint:
      // file.error says what the file is; the hint is said here, once.
      *failure =
          Failure(FailureKind::kUsage, file.error +
                                           "; take one before the turn with 'proctape fingerprint "
                                           "--root PID -o FILE'");
      return std::nullopt;
    case FingerprintFile::Problem::kInvalid:
      *failure = Failure(FailureKind::kCorrupt, EscapeBytes(file.error, 1024));
      return std::nullopt;
  }
  if (std::string other = OtherBoot(file.fingerprint, boot_id); !other.empty()) {
    *failure = Failure(FailureKind::kOtherBoot,
                       "was " + other + " (" + whose +
                           "): its start tick counts from another boot and names no process of "
                           "this one; " +
                           remedy);
    return std::nullopt;
  }
  return file.fingerprint;
}

}  // namespace proctape
