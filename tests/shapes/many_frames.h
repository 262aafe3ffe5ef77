// SPDX-License-Identifier: Apache-2.0
// Files of many frames for the streaming readers (BENCHMARKS.md, "Streaming
// readers"; `docs/format.md`, "What a command holds"): a
// quiet host of `processes` process records, each record a few hundred bytes
// of /proc text plus a kilobyte environ, captured `frames` times. Every
// string is distinct (pid and frame are in each file), so the blob table
// shares nothing and the whole file as a Snapshot is as large as the records.
// Written by the real writer (header, frames, footer; no resolution).
//
// Generated, never checked in (tens of MB): tests/live/stream_memory_cli_test.cc
// writes one into a temporary directory, bench/stream_rss.sh through the
// `many_frames` tool (tests/shapes/many_frames_main.cc).
#pragma once

#include <string>

namespace proctape::shapes {

// Writes the file to `path` (replaced if there): frame f at f*1000 ns, its
// records pids 1000..1000+processes-1. False with *error on failure.
bool WriteManyFrames(const std::string& path, int frames, int processes, std::string* error);

// The same frames with a real capture's bytes (`many_frames --host`): the
// host of bench/replay_bench_host.h (an init, a shell, a spawner and
// `processes` idle workers beneath it, each file as the kernel shapes it: a
// 52-field stat, the worker's argv, a CI job's environment of ~1.3 KB in four
// variants, a ~1.8 KB status, a cgroup line, exe and pid-namespace
// identities: ~3.4 KB a record) captured `frames` times, the way idle workers
// change between frames: in each frame after the first, one worker in 50 has
// a stat field (minflt) and a status line (voluntary_ctxt_switches) moved,
// everything else as in the frame before. A version 2 writer stores the
// unchanged records as references to the previous frame (within its 64 MiB
// remembered-frame bound: ~19,000 of these records) and the environments as
// blobs, as it does a live capture of idle workers (BENCHMARKS.md, "30,000
// processes"); files of 30,000 processes without starting 30,000.
bool WriteHostFrames(const std::string& path, int frames, int processes, std::string* error);

// A recording whose one resolution's tape is long: `observations` reads of
// a kilobyte environ, each distinct (its index in it), and the resolution
// that claims them (root pid 1000, recorded NO_MATCH). A reader that keeps
// the tape (explain, replay, corpus add, corpus check) holds them all: at
// 100,000 the tape is over 100 MB in memory, a few MB on disk. The verdict
// is what a replay of it gives or not (the tape is no resolver's calls):
// it is for the memory a reader needs, not for a verdict.
bool WriteLongTape(const std::string& path, int observations, std::string* error);

}  // namespace proctape::shapes
