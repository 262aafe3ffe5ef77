// SPDX-License-Identifier: Apache-2.0
// `capture --proc-root DIR`: opening the directory to import, or refusing it
// with the contract's status (docs/cli/commands.md): a procfs mount or a
// directory holding no process is a usage error (2), one that cannot be
// opened an input error (10), a damaged proctape-frame a damaged input (15),
// a host that cannot read it sealed proctape's own failure (1).
#pragma once

#include <memory>
#include <string>

#include "procdir/evidence.h"

namespace proctape {

// kExitOk with *dir set, or the exit status after the one-line message.
int OpenProcRoot(const std::string& proc_root, std::unique_ptr<ProcDirEvidence>* dir);

}  // namespace proctape
