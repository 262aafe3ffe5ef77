// SPDX-License-Identifier: Apache-2.0
// Opening the live /proc for a command (resolve, liveness, fingerprint,
// capture): a --proc that is not there, not a directory, or not the root of
// a procfs mount is a usage error (exit 2, "--proc DIR: ..."); a procfs that
// cannot be opened is proctape's own failure (exit 1). One line either way
// (cli/errors.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "capture/procfs_evidence.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace proctape {

// The one --proc option of the live commands (its help says the rule
// above), bound to `proc`, default shown.
CLI::Option* AddProcOption(CLI::App* app, std::string& proc);

// The evidence, or null with *exit_code set after the message was printed.
std::unique_ptr<ProcfsEvidence> OpenLiveProc(const std::string& proc, int* exit_code);

// A PID option (--root, --pid) on the live host must name a pid this host
// can have: the kernel hands out pids below PROC/sys/kernel/pid_max (the
// option itself already holds step 2's 2..2147483647: `docs/resolver.md`,
// "The eight steps"). False after a usage
// error naming the option and pid_max (exit 2), or proctape's own failure
// when pid_max cannot be read (exit 1); *exit_code is then set.
bool PidBelowPidMax(const std::string& option, std::int64_t pid, const std::string& proc,
                    int* exit_code);

// Whether `dir` is on a procfs (statfs): `capture --proc-root` takes a copy
// of /proc, never /proc itself.
bool IsProcfs(const std::string& dir);

// Why `path`, given as --exe (fingerprint, resolve), cannot be the
// executable attested by device and inode, or "" when it can: a regular file
// (a link followed, as exec follows it). A directory or a device is never
// what a process executes, and would only make every candidate fail later.
// The caller refuses the request (exit 2), naming the option.
std::string ExeFileError(const std::string& path);

}  // namespace proctape
