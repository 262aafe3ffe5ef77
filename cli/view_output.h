// SPDX-License-Identifier: Apache-2.0
// How `tree` and `diff` say a view they print (analyze/view_read.h
// ViewNotes): each damage, each warning, the view on standard output, then
// a filter that selects nothing (after standard output is flushed).
#pragma once

#include <functional>

#include "analyze/view_read.h"

namespace proctape {

// Says `notes` around `print` (which prints the view); returns the view's
// status: 5 when nothing is selected, else the first damage's (10-16), else 0.
int SayView(const ViewNotes& notes, const std::function<void()>& print);

}  // namespace proctape
