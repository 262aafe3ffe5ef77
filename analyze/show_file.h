// SPDX-License-Identifier: Apache-2.0
// `proctape show` of one file as a whole: the file read item by item, one
// frame held at a time (analyze/show.h ShowBuilder), its report built, and
// what is said after it. The CLI prints what ShowFile returns, file after
// file; nothing here prints.
#pragma once

#include <memory>
#include <string>

#include "analyze/filter.h"
#include "analyze/show.h"
#include "core/failure.h"
#include "views.pb.h"

namespace proctape {

struct ShowOutcome {
  // The file cannot be read at all (not one chunk): `report` holds only its
  // file, error kind and error ("intact" false), as --json shows it, and
  // text shows nothing; `damage` says why.
  bool unread = false;
  v1::ShowReport report;
  // Each frame's selection, read back from the builder that holds them
  // (empty without a filter; none when unread).
  std::unique_ptr<ShowBuilder> builder;
  ShowSelections selections;
  // Said after the report, in this order: a filter that selects no process
  // in any frame (kNotFound) is said after the damage and is the status;
  // else the damage ("NAME: DAMAGE", of its kind) is.
  MaybeFailure damage;
  MaybeFailure nothing_selected;
};

// `file` ('-': standard input) shown up to its damage; with a `filter`
// (--pid, --uid, --comm), each frame's selection.
ShowOutcome ShowFile(const std::string& file, const ProcessFilter& filter);

}  // namespace proctape
