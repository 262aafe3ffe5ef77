// SPDX-License-Identifier: Apache-2.0
// Declared outputs in the cleanup plan (`docs/ownership.md`, "Declared
// outputs"): git clean -fdX may have removed the ignored .venv directory
// before cleanup looks for the declared .venv/bin/python output, whose
// missing parent must not be taken for a verification failure. Missing
// parents mean that the output is already absent;
// existing symlink and non-directory parents still fail closed."
//
// A declared output is planned by looking up each component of its path
// without following links (lstat), parents first, stopping at the first that
// decides:
//   a parent missing (ENOENT)        ABSENT: the output is already absent
//   a parent that is a symbolic link FAIL_CLOSED: cleanup would follow it
//   a parent that is not a directory FAIL_CLOSED
//   a lookup failing otherwise       FAIL_CLOSED (its errno)
//   the output itself missing        ABSENT
//   the output itself present        PRESENT, with what it is (a link is not
//                                    followed: cleanup removes the link)
// Empty components ("a//b", a trailing "/") are skipped; "." and ".." are
// looked up like any name. A relative path is relative to the lookup's
// directory (the current one for the live filesystem); an absolute one is
// looked up from "/", every component included. proctape only plans: it
// never deletes anything.
#pragma once

#include <string>

#include "ownership.pb.h"

namespace proctape {

// What lstat(2) says of one path.
struct PathEntry {
  int err = 0;  // 0: it exists, `kind` says what it is; ENOENT: missing; else the lookup failed
  v1::DeclaredOutput::Kind kind = v1::DeclaredOutput::MISSING;
};

// The filesystem as the planner sees it: lstat of a path, links in its last
// component not followed. Never throws.
class PathLookup {
 public:
  virtual ~PathLookup() = default;
  virtual PathEntry Lstat(const std::string& path) = 0;
};

// The live filesystem (lstat(2), relative paths from the current directory).
class LivePathLookup final : public PathLookup {
 public:
  PathEntry Lstat(const std::string& path) override;
};

// The plan for one declared output `path` (not empty).
v1::DeclaredOutput PlanDeclaredOutput(const std::string& path, PathLookup& fs);

}  // namespace proctape
