// SPDX-License-Identifier: Apache-2.0
// Facts about the capturing host and the capturer itself, for the file's
// Header: what a reader needs to interpret the raw /proc bytes elsewhere
// (clock ticks for stat's start times, the boot id that scopes them, pid_max,
// the page size) and to know who looked (pid, uid, pid namespace) and when.
//
// A fact that cannot be read is left empty (0 or no bytes); it never fails
// the capture. Every value is as read: boot_id keeps its newline.
#pragma once

#include <cstdint>
#include <string>

#include "proctape.pb.h"

namespace proctape {

// hostname (uname nodename), kernel release (uname -r), PROC/sys/kernel/
// random/boot_id and PROC/sys/kernel/pid_max, sysconf(_SC_CLK_TCK),
// sysconf(_SC_PAGESIZE). `proc_root` is normally "/proc".
v1::HostFacts CollectHostFacts(const std::string& proc_root);

// Sets header->host and the capturer fields: capturer_pid (getpid),
// capturer_uid (getuid), capturer_pid_ns_inode (PROC/self/ns/pid, 0 if it
// cannot be stat'ed), capture_start_mono_ns and capture_start_realtime_ns
// (read back to back).
void FillCaptureHeader(const std::string& proc_root, v1::Header* header);

// For an import (capture --proc-root), whose host is not this machine: only
// who imported it and when, capturer_pid, capturer_uid,
// capture_start_mono_ns and capture_start_realtime_ns. No host fact and no
// pid namespace of this machine: the directory gives those, or nothing does.
void FillImportCapturer(v1::Header* header);

// "YYYYmmddTHHMMSSZ" for CLOCK_REALTIME nanoseconds, in UTC.
std::string UtcStamp(std::int64_t realtime_ns);

}  // namespace proctape
