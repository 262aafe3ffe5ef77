// The sandboxes a lab session starts: which tool (unshare or bwrap) is on
// this host, the environment its processes get, and the scripts they run
// (lab/session.h's Script). Internal to lab/.
#pragma once

#include <string>
#include <vector>

namespace proctape::lab {

// PROGRAM's path in the usual system directories, or "" when it is in none.
std::string FindOnPath(const std::string& program);

// The whole environment of every process the lab starts (PATH and LC_ALL).
const std::vector<std::string>& BaseEnv();

}  // namespace proctape::lab
