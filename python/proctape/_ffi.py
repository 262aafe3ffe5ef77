# SPDX-License-Identifier: Apache-2.0
"""The C ABI of libproctape.so.0 (include/proctape.h) as ctypes declarations.

Internal: the structs mirror the header field by field; proctape/__init__.py
is the Python API over them.
"""
from __future__ import annotations

import ctypes
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_int, c_int64, c_size_t, c_uint,
                    c_uint32, c_uint64, c_ubyte)
from pathlib import Path

PATH_MAX = 4096
BOOT_ID_MAX = 64
MATCHES_MAX = 16
SONAME = "libproctape.so.0"


class Error(Structure):
    _fields_ = [("status", c_int), ("message", c_char * 512)]


class Options(Structure):
    _fields_ = [("proc_root", c_char_p), ("scan_threads", c_uint),
                ("command_line", POINTER(c_char_p)), ("command_line_len", c_size_t)]


class Identity(Structure):
    _fields_ = [("pid", c_int64), ("start_ticks", c_uint64), ("boot_id", c_char * BOOT_ID_MAX)]


class Fingerprint(Structure):
    _fields_ = [("root_pid", c_int64), ("root_start_ticks", c_uint64),
                ("root_comm", c_char * 64), ("exe_path", c_char * PATH_MAX),
                ("exe_dev", c_uint64), ("exe_ino", c_uint64),
                ("boot_id", c_char * BOOT_ID_MAX),
                ("taken_mono_ns", c_int64), ("taken_realtime_ns", c_int64)]


class Request(Structure):
    _fields_ = [("token", c_char_p), ("token_var", c_char_p), ("argv", POINTER(c_char_p)),
                ("argc", c_size_t), ("deadline_ms", c_int64), ("byte_budget", c_uint64)]


class RecordPolicy(Structure):
    _fields_ = [("when", c_int), ("path", c_char_p), ("replace", c_int)]


class Verdict(Structure):
    _fields_ = [("status", c_int), ("pid", c_int64), ("start_ticks", c_uint64),
                ("subject_pid", c_int64), ("has_subject_start_ticks", c_int),
                ("subject_start_ticks", c_uint64), ("has_expected_ticks", c_int),
                ("expected_ticks", c_uint64), ("file", c_char * 64), ("err", c_int),
                ("evidence", c_ubyte * 256), ("evidence_len", c_size_t),
                ("detail", c_char * 1024), ("attempts", c_uint32), ("bytes_read", c_uint64),
                ("match_count", c_size_t), ("matches", c_int64 * MATCHES_MAX),
                ("boot_id", c_char * BOOT_ID_MAX)]


class LivenessVerdict(Structure):
    _fields_ = [("status", c_int), ("reason", c_int), ("state", c_char * 16),
                ("detail", c_char * 512), ("err", c_int), ("boot_unchecked", c_int)]


class ResolveResult(Structure):
    _fields_ = [("ran", c_int), ("verdict", Verdict), ("recording", c_char * PATH_MAX)]


class RecordedCheck(Structure):
    _fields_ = [("liveness", c_int), ("verdict", Verdict),
                ("liveness_verdict", LivenessVerdict), ("observations", c_uint64)]


class FileSummary(Structure):
    _fields_ = [("chunks", c_uint64), ("frames", c_uint64), ("processes", c_uint64),
                ("observations", c_uint64), ("environ_kept", c_int),
                ("check_count", c_size_t), ("checks", POINTER(RecordedCheck)),
                ("fingerprint_count", c_size_t), ("fingerprints", POINTER(Fingerprint))]


class ReplayedCheck(Structure):
    _fields_ = [("index", c_size_t), ("outcome", c_int), ("liveness", c_int),
                ("recorded", Verdict), ("replayed", Verdict),
                ("recorded_liveness", LivenessVerdict), ("replayed_liveness", LivenessVerdict),
                ("has_replayed", c_int), ("description", c_char_p)]


class ReplayReport(Structure):
    _fields_ = [("worst", c_int), ("check_count", c_size_t), ("checks", POINTER(ReplayedCheck))]


def _candidates() -> list[str]:
    """Where the library is looked for, in order (docs/library.md, "Python")."""
    found = []
    env = os.environ.get("PROCTAPE_LIBRARY")
    if env:
        found.append(env)
    here = Path(__file__).resolve().parent
    found.append(str(here / SONAME))
    try:  # written by `cmake --install`: the installed library, relative to here
        from proctape._installed import LIBDIR_FROM_PACKAGE  # type: ignore[import-not-found]
        found.append(str((here / LIBDIR_FROM_PACKAGE / SONAME).resolve()))
    except ImportError:
        pass
    found.append(SONAME)
    return found


def load() -> ctypes.CDLL:
    """PROCTAPE_LIBRARY, else the first candidate that loads; OSError naming
    every one tried."""
    env = os.environ.get("PROCTAPE_LIBRARY")
    if env:  # asked for by name: that one or an error, never another
        try:
            return _declare(ctypes.CDLL(env))
        except OSError as e:
            raise OSError(f"PROCTAPE_LIBRARY={env}: {e}") from e
    tried = []
    for candidate in _candidates():
        if os.sep in candidate and not os.path.exists(candidate):
            tried.append(f"{candidate}: no such file")
            continue
        try:
            return _declare(ctypes.CDLL(candidate))
        except OSError as e:
            tried.append(str(e))
    raise OSError("libproctape.so.0 not found (set PROCTAPE_LIBRARY): " + "; ".join(tried))


def _declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    err = POINTER(Error)
    signatures = {
        "proctape_version": (c_char_p, []),
        "proctape_status_name": (c_char_p, [c_int]),
        "proctape_verdict_status_name": (c_char_p, [c_int]),
        "proctape_liveness_name": (c_char_p, [c_int]),
        "proctape_replay_outcome_name": (c_char_p, [c_int]),
        "proctape_request_init": (None, [POINTER(Request)]),
        "proctape_fingerprint_take": (c_int, [c_int64, c_char_p, POINTER(Options),
                                              POINTER(Fingerprint), POINTER(c_int), err]),
        "proctape_resolve": (c_int, [POINTER(Request), POINTER(Fingerprint),
                                     POINTER(RecordPolicy), POINTER(Options),
                                     POINTER(ResolveResult), err]),
        "proctape_liveness_check": (c_int, [POINTER(Identity), POINTER(Options),
                                            POINTER(LivenessVerdict), err]),
        "proctape_pin": (c_int, [POINTER(Verdict), POINTER(Options), POINTER(c_int), err]),
        "proctape_liveness_pidfd": (c_int, [c_int, POINTER(Options), POINTER(LivenessVerdict),
                                            err]),
        "proctape_read_file": (c_int, [c_char_p, POINTER(POINTER(FileSummary)), err]),
        "proctape_file_summary_free": (None, [POINTER(FileSummary)]),
        "proctape_replay": (c_int, [c_char_p, POINTER(POINTER(ReplayReport)), err]),
        "proctape_replay_report_free": (None, [POINTER(ReplayReport)]),
    }
    for name, (restype, argtypes) in signatures.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib
