// SPDX-License-Identifier: Apache-2.0
// The sandboxes a lab session starts: which tool (unshare or bwrap) is on
// this host, the environment its processes get, and the scripts they run
// (lab/session.h's Script). Internal to lab/.
#pragma once

#include <string>
#include <vector>

namespace proctape::lab {

// PROGRAM's path in the usual system directories, or "" when it is in none.
std::string FindOnPath(const std::string& program);

// Where the lab stages its files (the session's directory, the sandbox
// probe's log): $TMPDIR, or /tmp when it is unset or empty.
std::string StagingBase();
// "" when StagingBase() is an absolute path to a directory the lab can write
// in; else why not, naming it ("TMPDIR /x: No such file or directory").
// Checked before any process is started.
std::string StagingProblem();

// The whole environment of every process the lab starts (PATH and LC_ALL).
const std::vector<std::string>& BaseEnv();

}  // namespace proctape::lab
