// SPDX-License-Identifier: Apache-2.0
// A recorded resolution made by the real code on an in-memory host, for the
// shapes that need one (docs/format.md section 2: "a whole-host frame taken
// just before, the observation batches, the resolution, a frame taken just
// after"): the frames are ScanFrame's records, the tape RecordingEvidence's
// observations of the real resolver, so replay, explain, explore and minimize
// have a real check to run. The shapes then write it with FileBuilder, and
// may change any part of it first (a clock, a request, a copy count).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/resolver.h"
#include "proctape.pb.h"
#include "tests/hostile/file_builder.h"

namespace proctape::hostile {

// The token of every hostile recording: 32 characters, as `resolve
// --record` makes one, so that a 12-character piece of it in an output is
// never a coincidence (tests/hostile/README.md, "The shapes": token pieces).
inline constexpr char kToken[] = "7c1f0e9a4b3d2c58e6a1f0b9d8c7e6a5";
inline constexpr char kTokenVar[] = "PROCTAPE_TOKEN";

// The identities of the hosts below: the root, the sandboxed sleep.
inline constexpr std::int64_t kRootPid = 1000;
inline constexpr std::uint64_t kRootStart = 50'000;
inline const Identity kSleepExe{0, 0x803, 1311};
inline const Identity kShellExe{0, 0x803, 4};

// The header of every hostile file: a capture of the host "hostile" (one
// boot, 100 ticks per second) by root in the initial pid namespace, its
// environ redacted with the token kept (no token when `token` is empty).
v1::Header HostileHeader(const std::string& token = kToken);

struct Recording {
  v1::Header header;
  v1::Frame before;  // the host as ScanFrame saw it just before
  std::vector<v1::Observation> tape;
  v1::Resolution resolution;
  v1::Frame after;
};

struct RecordOptions {
  std::string token = kToken;  // the request's token, kept verbatim in environ reads
  bool keep_environ = false;   // --env keep: environ values stored as read
};

// A host of init (pid 1) and the root (kRootPid, "shell"), to which the
// shapes add processes.
void AddRoot(MemoryEvidence& host);
// `n` processes beneath the root: a star (each a child of the root) or a
// chain (each the child of the one before), the last one the sandboxed sleep
// that holds `token`; the others are shells without it. All started in the
// tick after the root (kRootStart + 1).
void AddStar(MemoryEvidence& host, std::uint32_t n, const std::string& token);
void AddChain(MemoryEvidence& host, std::uint32_t n, const std::string& token);
// The pid of the k-th process (from 1) that AddStar or AddChain adds.
inline std::int64_t HostPid(std::uint32_t k) { return kRootPid + k; }

// The request `resolve --record` makes for the sleep beneath the root.
Request SleepRequest(const std::string& token = kToken);

// `host` scanned once, as `capture` scans it (records in listing order).
v1::Frame Scan(MemoryEvidence& host, const RecordOptions& options);

// The real resolver run on `host` for `request`, recorded with the clock of
// the host (MemoryEvidence::now_ns), between two scans.
Recording Record(MemoryEvidence& host, const Request& request, const RecordOptions& options = {});

// How a recording is written.
struct WriteOptions {
  std::uint32_t copies = 1;  // the resolution, each the same span of the tape
  bool frames = true;        // false: the tape alone (explain and replay need no frame)
  // Of a frame part or an observation batch, serialized: the writer's 1 MiB,
  // or up to a chunk's 16 MiB (zstd then finds the repeats of more records).
  std::uint64_t chunk_bytes = kTargetChunkContent;
  // Version 2's tape: a result equal to its call's last is written "the
  // same as" it (docs/format.md 9a), as format/writer.h chooses it.
  bool same_as = false;
};

// The recording written: header, frame, batches, the resolution, frame,
// footer.
void WriteRecording(const Recording& recording, FileBuilder* file,
                    const WriteOptions& options = {});
// The same without the header, for a shape that writes its own.
void WriteRecordingBody(const Recording& recording, FileBuilder* file,
                        const WriteOptions& options = {});

}  // namespace proctape::hostile
