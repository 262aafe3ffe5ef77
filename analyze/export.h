// SPDX-License-Identifier: Apache-2.0
// `proctape export`: a snapshot file as one JSON document, or one of its
// frames as a Graphviz DOT process tree (the third format, a /proc-like
// directory, is procdir/writer.h). Pure functions of a read snapshot;
// the output is written under the one rule of fs/output_file.h.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "core/failure.h"
#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape {

// The whole snapshot, as ReadSnapshot returns it (blobs resolved, frame parts
// joined). Printed with ToJson, `bytes` fields are base64.
v1::SnapshotExport ToExport(const Snapshot& snapshot);

// ToExport(snapshot) printed as ToJsonChecked prints it, byte for byte, without
// the copy: the header, footer and fingerprints are copied, the frames,
// observations and resolutions printed from the snapshot one at a time (the
// memory is the output's). A failure when the document is over protobuf's
// 2 GiB (kTooLarge: kMaxSerializedBytes, as ToJsonChecked refuses it) or the
// printer fails (kInternal); *out is then empty.
// With `drain`, *out is handed to it (and emptied) whenever it holds a MiB or
// more between two elements: the caller writes it out, and a failure from
// drain stops the export (its kind kept, its message after "cannot print
// JSON: "). The caller drains what is left.
MaybeFailure ExportJson(const Snapshot& snapshot, std::string* out,
                        const std::function<MaybeFailure(std::string* out)>& drain = {});

// The content of a DOT double-quoted string showing raw bytes exactly as
// EscapeBytes prints them (printable ASCII as is; backslash, newline, ESC,
// every other byte as \xNN; cut at `max` bytes with "..."), with '"' and '\'
// escaped for DOT. Pure ASCII; graphviz renders it as the EscapeBytes text:
//   DotEscape("x) Z\n\"")  ->  x) Z\\x0a\"     (rendered: x) Z\x0a")
std::string DotEscape(std::string_view raw, std::size_t max = 256);

// The process tree of snapshot.frames[frame] (frame < frames.size()) as a DOT
// digraph. One node per pid (ProcessTable: the first record of a pid),
// labelled "PID start TICK STATE" and the escaped comm; node ids are
// p<PID>_<TICK> (p<PID> when stat is unreadable or malformed: the label then
// says why). An edge parent -> child for every process whose stat ppid is a
// pid of the frame; dashed when that parent started after the child (the
// ppid cannot name that process: a frame is not read at one instant). A
// process found by a RESOLVED recorded resolution, matched by (pid, start
// tick), is filled and says "RESOLVED (resolution K)"; the root of a recorded
// resolution request, matched by (pid, start tick), has a double border and
// says "root of resolution K". Resolved processes absent from the frame are
// named in the graph's label. Nodes and edges in pid order: the output is a
// function of the file alone. *drawn, when given, is how many processes
// (nodes) the graph draws.
std::string FrameDot(const Snapshot& snapshot, std::size_t frame, std::size_t* drawn = nullptr);

}  // namespace proctape
