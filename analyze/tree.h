// SPDX-License-Identifier: Apache-2.0
// `proctape tree`: the process forest of one frame, like `pstree -p`, with
// each process's identity (host pid, start tick) and the facts that tell
// processes apart (analyze/process_text.h: the one-line process description
// the views share). Every byte a host controls is escaped before it is
// printed (EscapeBytes), so a hostile name cannot forge lines or terminal
// escapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "analyze/filter.h"
#include "core/failure.h"
#include "analyze/process_table.h"
#include "analyze/process_text.h"
#include "format/reader.h"
#include "views.pb.h"

namespace proctape {

// The marker value a `proctape lab` recording implies: the innermost NSpid of
// the process its first RESOLVED resolution found (what the lab's shell wrote
// with `echo $$` before it exec'd the sleep). nullopt for other files or when
// no frame holds that process's NSpid. *source says how it was derived.
std::optional<std::int64_t> DerivedMarker(const Snapshot& snapshot, std::string* source);
// Whether DerivedMarker looks at the frames of a file of this header (a
// `proctape lab` recording's): a reader keeping one frame keeps them all.
bool DerivesMarker(const v1::Header& header);

struct TreeOptions {
  std::size_t frame = 0;               // position of the frame in the file
  std::int64_t root = 0;               // show only this pid's subtree; 0: all
  std::optional<std::int64_t> marker;  // the marker's value; nullopt: derive
  bool kernel = false;                 // show kernel threads instead of folding them
  // --pid (its subtree), --uid, --comm: only the processes it selects are
  // drawn, beneath their ancestors as context lines; with a filter, kernel
  // threads are not folded (the filter narrows the tree).
  ProcessFilter filter;
};

// The tree of one frame; nullopt with *failure (one line) when the frame or
// the root pid is not in the file. `name` is the file as the user gave it.
// A frame the file does not have is kUsage; a root pid in no process of the
// frame kNotFound (an empty selection, as a --pid that selects nothing).
std::optional<v1::TreeReport> BuildTree(const Snapshot& snapshot, const std::string& name,
                                        const TreeOptions& options, Failure* failure);

// The text form: a heading, one line per process drawn with ASCII connectors
// ("|-", "`-"), the marks after "<=" (a context line: its pid and comm,
// "(context)"), the selection line of a filter, then the marker line. With a
// `width` (a terminal's columns), a longer line is cut to it and ends with
// '>'; 0 never cuts.
std::string RenderTree(const v1::TreeReport& report, std::size_t width = 0);

}  // namespace proctape
