// SPDX-License-Identifier: Apache-2.0
// Constants of the .ptape file format (docs/format.md is the prose spec).
//
//   file   := magic version chunk*         (the last chunk is the footer;
//                                           not one byte follows it)
//   magic  := 89 50 54 41 50 45 0D 0A      ("\x89PTAPE\r\n")
//   version:= uint32 little-endian          (kFormatVersion)
//   chunk  := length frame
//   length := uint32 little-endian          (bytes of `frame`, >= 1)
//   frame  := one zstd frame filling `length`: content size present, a
//             checksum (XXH64 seed 0, low 32 bits), no dictionary, a window
//             (if any) of at most kMaxChunkContent; its content is one
//             serialized proctape.v1.Chunk message
//
// The writer and the reader enforce the same limits.
#pragma once

#include <cstddef>
#include <cstdint>

namespace proctape {

inline constexpr unsigned char kMagic[8] = {0x89, 'P', 'T', 'A', 'P', 'E', '\r', '\n'};
// The version the writer writes, and the oldest the reader accepts: it
// reads every version from kOldestFormatVersion to kFormatVersion
// (`proctape --version` says both).
inline constexpr std::uint32_t kFormatVersion = 2;
inline constexpr std::uint32_t kOldestFormatVersion = 1;
inline constexpr std::size_t kPreambleBytes = sizeof(kMagic) + 4;
inline constexpr std::size_t kLengthBytes = 4;

// Largest serialized Chunk message (a chunk's declared decompressed size),
// and largest window a chunk's zstd frame may declare.
inline constexpr std::uint64_t kMaxChunkContent = 16u << 20;
// Largest compressed chunk: ZSTD_compressBound(kMaxChunkContent), the most a
// zstd frame of that content can take.
std::uint64_t MaxChunkFrame();
// Total bytes of blobs (stored-once data) one file may define: 8 times what a
// writer keeps (kWriterBlobBytes). A reader holds them for the whole read.
inline constexpr std::uint64_t kMaxBlobBytes = 64u << 20;
// Counts per file (docs/format.md section 7), checked on a chunk's wire
// bytes before it is parsed: an empty record takes 2 bytes on disk and some
// hundred in memory, so without them a 1.5 KB file of 8 M empty records took
// gigabytes. Past one, a reader stops with too-large.
inline constexpr std::uint64_t kMaxChunks = 1u << 20;          // chunks, the footer's included
inline constexpr std::uint64_t kMaxProcessRecords = 1u << 20;  // ProcessRecords, all frames
inline constexpr std::uint64_t kMaxObservations = 1u << 20;    // Observations, all batches
inline constexpr std::uint64_t kMaxResolutions = 1u << 16;     // Resolution chunks
// Bytes a reader copies out of blobs into the records that refer to them
// (each reference counts the blob's size): 200 references to one 15 MiB blob
// in a 633-byte file would otherwise materialize 3 GB. With kMaxBlobBytes, a
// file's blob data costs a reader at most 64 + 256 MiB.
inline constexpr std::uint64_t kMaxBlobCopyBytes = 256u << 20;
// Version 2 (docs/format.md 9a, "Frames: only what changed"): a frame
// remembers its records, in file order, while their serialized sizes total at
// most this; only a remembered record may be referred to by the next frame.
// A reader holds at most two frames' worth (the previous one and the one
// being read).
inline constexpr std::uint64_t kMaxPreviousFrameBytes = 64u << 20;
// Bytes a reader copies out of the previous frame's records into the records
// that refer to them (a whole record: its reads' data; a read: its data; stat
// fields: the rebuilt stat), all frames together.
inline constexpr std::uint64_t kMaxPreviousCopyBytes = 4ull << 30;
// Version 2's "same as observation K" (docs/format.md section 9a, "Tapes:
// only what changed"). A reader keeps, to resolve it, the latest result of
// each distinct call of the tape: their sizes (format/tape_calls.h
// ResultSize) total at most kMaxTapeTableBytes, and the bytes it copies out
// of them into the observations that refer to them at most
// kMaxSameAsCopyBytes (each reference counts its result's size; a compact
// reader copies nothing, but the limit is the file's, whoever reads it).
inline constexpr std::uint64_t kMaxTapeTableBytes = 256u << 20;
inline constexpr std::uint64_t kMaxSameAsCopyBytes = 1u << 30;
// The reader's budget (docs/format.md section 7, "The reader's budget";
// format/read_budget.h): what one reader materializes (chunks as parsed, and
// every copy out of a reference) totals at most kReaderBaseBytes plus
// kReaderBytesPerFileByte per byte of the file read so far. A file of a few
// KB costs a reader at most some 128 MiB; one of 1 MiB is bounded by the
// limits above and kMaxChunkMaterialized. A real capture of version 2
// materializes up to some 2,700 bytes per byte of its file as it grows by
// unchanged frames (an unchanged record of a CI host: 2 bytes on disk, 4.5 KB
// resolved): 10 frames of 10,000 such processes 456, 40 frames some 1,200;
// the corpus 4 to 20 (docs/format.md section 7 has the measurements).
inline constexpr std::uint64_t kReaderBaseBytes = 128u << 20;
inline constexpr std::uint64_t kReaderBytesPerFileByte = 8192;
// And what one chunk makes (its message as parsed and every copy into it) is
// at most kMaxChunkMaterialized, whatever the file's size: the most a reader
// holds at once of one item, so that a file padded to 1 MiB (which raises
// the budget above to 1.1 GiB) cannot make one item of gigabytes.
inline constexpr std::uint64_t kMaxChunkMaterialized = 192u << 20;
// The writer's bound on the result bytes it keeps to compare a call's new
// result with its last one: past it, a call not yet kept is written whole.
inline constexpr std::uint64_t kWriterTapeBytes = 16u << 20;
// The writer closes a frame part once it holds this many serialized bytes.
inline constexpr std::uint64_t kTargetChunkContent = 1u << 20;
// Data of at least this size, seen twice, is stored once per file (see Blob).
inline constexpr std::size_t kMinBlobBytes = 32;
// The writer's bounds on its stored-once tables: blob bytes it keeps, and
// hashes of data seen once. Past them data is written inline.
inline constexpr std::uint64_t kWriterBlobBytes = 8u << 20;
inline constexpr std::size_t kWriterSeen = 1u << 16;

}  // namespace proctape
