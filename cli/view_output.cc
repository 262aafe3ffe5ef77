// SPDX-License-Identifier: Apache-2.0
#include "cli/view_output.h"

#include <cstdio>
#include <string>

#include "cli/errors.h"
#include "cli/exit_codes.h"

namespace proctape {

int SayView(const ViewNotes& notes, const std::function<void()>& print) {
  for (const Failure& damage : notes.damages) Fail(damage);
  for (const std::string& warning : notes.warnings) Warn(warning);
  print();
  if (notes.nothing_selected) {
    std::fflush(stdout);
    return Fail(*notes.nothing_selected);
  }
  return notes.damages.empty() ? kExitOk : ExitCodeFor(notes.damages.front().kind);
}

}  // namespace proctape
