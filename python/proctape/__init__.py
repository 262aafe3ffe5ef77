# SPDX-License-Identifier: Apache-2.0
"""proctape from Python: a launcher's child's host identity, over libproctape.so.0.

Before the turn, :func:`take_fingerprint` of the root the sandbox starts
beneath; after it, :func:`resolve` the sandboxed process (recording the
evidence on failure, if asked); later, :func:`check_liveness` of the identity,
or :func:`pin` it to a pidfd and ask :func:`liveness_pidfd`. Recordings are
read with :func:`read_file` and replayed with :func:`replay`.

Errors raise :class:`ProctapeError` (the C status and its message); a verdict
other than RESOLVED is not an error. The library is found by the environment
variable ``PROCTAPE_LIBRARY``, then beside this package, then by its soname.
The contracts are docs/library.md's.
"""
from __future__ import annotations

import ctypes
import enum
from dataclasses import dataclass, field
from typing import Optional, Sequence

from proctape import _ffi

_lib = _ffi.load()

__all__ = ["ProctapeError", "Status", "Liveness", "Record", "ReplayOutcome", "Fingerprint",
           "Verdict", "LivenessVerdict", "ResolveResult", "RecordedCheck", "FileSummary",
           "ReplayedCheck", "ReplayReport", "version", "take_fingerprint", "resolve",
           "check_liveness", "pin", "liveness_pidfd", "read_file", "replay"]


class Status(enum.IntEnum):
    """The resolver's verdicts (docs/resolver.md), the file format's values."""
    RESOLVED = 1; MISSING_ROOT = 2; ROOT_RESTARTED = 3; NO_MATCH = 4  # noqa: E702
    MULTIPLE_MATCHES = 5; DUPLICATE_RECORD = 6; MALFORMED_RECORD = 7; CYCLE = 8  # noqa: E702
    ENTRY_BOUND = 9; NODE_BOUND = 10; DEPTH_BOUND = 11; FILE_BOUND = 12  # noqa: E702
    BYTE_BUDGET = 13; DEADLINE = 14; UNREADABLE = 15; TOKEN_MISMATCH = 16  # noqa: E702
    EXE_MISMATCH = 17; ANCESTRY_CHANGED = 18; PID_REUSED = 19; INVALID_REQUEST = 20  # noqa: E702


class Liveness(enum.IntEnum):
    ALIVE = 1
    DEAD = 2
    ERROR = 3


class Record(enum.IntEnum):
    """When :func:`resolve` writes its recording."""
    NEVER = 0
    ON_FAILURE = 1
    ALWAYS = 2


class ReplayOutcome(enum.IntEnum):
    REPRODUCED = 1
    VERDICT_CHANGED = 2
    DIVERGED = 3


class ProctapeError(Exception):
    """A call stopped before (or after) the resolver decided: never a verdict.

    ``status`` is the C status (``name`` its name: "PROC", "OTHER_BOOT", ...);
    ``result`` is what the call produced regardless (RECORD_FAILED: the
    :class:`ResolveResult` whose verdict stands; a damaged file: its summary).
    """

    def __init__(self, status: int, message: str, result: object = None) -> None:
        self.status = status
        self.name = _text(_lib.proctape_status_name(status))
        self.message = message
        self.result = result
        super().__init__(f"{self.name}: {message}")


def _text(raw: Optional[bytes]) -> str:
    return (raw or b"").decode("utf-8", "backslashreplace")


def _check(status: int, err: _ffi.Error, result: object = None) -> None:
    if status != 0:
        raise ProctapeError(status, _text(err.message), result)


def _options(proc_root: Optional[str]) -> Optional[_ffi.Options]:
    if proc_root is None:
        return None
    return _ffi.Options(proc_root=proc_root.encode(), scan_threads=0)


@dataclass(frozen=True)
class Fingerprint:
    """Taken before the turn (docs/resolver.md, "The eight steps", step 1)."""
    root_pid: int
    root_start_ticks: int
    root_comm: str
    exe_path: str
    exe_dev: int
    exe_ino: int
    boot_id: str
    taken_mono_ns: int
    taken_realtime_ns: int

    @staticmethod
    def _from(c: _ffi.Fingerprint) -> "Fingerprint":
        return Fingerprint(c.root_pid, c.root_start_ticks, _text(c.root_comm), _text(c.exe_path),
                           c.exe_dev, c.exe_ino, _text(c.boot_id), c.taken_mono_ns,
                           c.taken_realtime_ns)

    def _to(self) -> _ffi.Fingerprint:
        return _ffi.Fingerprint(self.root_pid, self.root_start_ticks, self.root_comm.encode(),
                                self.exe_path.encode(), self.exe_dev, self.exe_ino,
                                self.boot_id.encode(), self.taken_mono_ns, self.taken_realtime_ns)


@dataclass(frozen=True)
class Verdict:
    """The resolver's verdict; only RESOLVED has an identity (pid, start_ticks, boot_id)."""
    status: Status
    pid: int
    start_ticks: int
    subject_pid: int
    subject_start_ticks: Optional[int]
    expected_ticks: Optional[int]
    file: str
    err: int
    evidence: bytes  # raw bytes: escape before printing
    detail: str
    attempts: int
    bytes_read: int
    matches: list[int]  # MULTIPLE_MATCHES: the first 16 of match_count
    match_count: int
    boot_id: str
    _c: _ffi.Verdict = field(repr=False, compare=False)

    @property
    def resolved(self) -> bool:
        return self.status == Status.RESOLVED

    @staticmethod
    def _from(c: _ffi.Verdict) -> "Verdict":
        copy = _ffi.Verdict.from_buffer_copy(c)
        return Verdict(Status(c.status) if c.status in Status._value2member_map_ else c.status,
                       c.pid, c.start_ticks, c.subject_pid,
                       c.subject_start_ticks if c.has_subject_start_ticks else None,
                       c.expected_ticks if c.has_expected_ticks else None, _text(c.file), c.err,
                       bytes(c.evidence[:c.evidence_len]), _text(c.detail), c.attempts,
                       c.bytes_read, list(c.matches[:min(c.match_count, _ffi.MATCHES_MAX)]),
                       c.match_count, _text(c.boot_id), copy)


@dataclass(frozen=True)
class LivenessVerdict:
    """ALIVE, DEAD, or ERROR with its ``reason`` (docs/resolver.md, "Liveness")."""
    status: Liveness
    reason: int
    state: str
    detail: str
    err: int
    boot_unchecked: bool

    @staticmethod
    def _from(c: _ffi.LivenessVerdict) -> "LivenessVerdict":
        return LivenessVerdict(Liveness(c.status), c.reason, _text(c.state), _text(c.detail),
                               c.err, bool(c.boot_unchecked))


@dataclass(frozen=True)
class ResolveResult:
    ran: bool            # the resolver ran: ``verdict`` is its verdict
    verdict: Verdict
    recording: str       # the path written, or ""


@dataclass(frozen=True)
class RecordedCheck:
    liveness: bool       # a liveness check; otherwise a resolution
    verdict: Verdict
    liveness_verdict: LivenessVerdict
    observations: int


@dataclass(frozen=True)
class FileSummary:
    chunks: int
    frames: int
    processes: int
    observations: int
    environ_kept: bool
    checks: list[RecordedCheck]
    fingerprints: list[Fingerprint]


@dataclass(frozen=True)
class ReplayedCheck:
    index: int
    outcome: ReplayOutcome
    liveness: bool
    recorded: Verdict
    replayed: Optional[Verdict]          # None when the tape could not answer a call
    recorded_liveness: LivenessVerdict
    replayed_liveness: Optional[LivenessVerdict]
    description: str


@dataclass(frozen=True)
class ReplayReport:
    worst: ReplayOutcome
    checks: list[ReplayedCheck]


def version() -> str:
    """The version of proctape the library ships with ("0.1.0")."""
    return _text(_lib.proctape_version())


def take_fingerprint(root_pid: int, exe_path: str = "/bin/sleep",
                     proc_root: Optional[str] = None) -> Fingerprint:
    """Fingerprints the root the sandbox is started beneath, before the turn."""
    out, err, root_status = _ffi.Fingerprint(), _ffi.Error(), ctypes.c_int(0)
    status = _lib.proctape_fingerprint_take(root_pid, exe_path.encode(), _options(proc_root),
                                            ctypes.byref(out), ctypes.byref(root_status),
                                            ctypes.byref(err))
    _check(status, err, Status(root_status.value) if root_status.value else None)
    return Fingerprint._from(out)


def resolve(fingerprint: Fingerprint, token: str, argv: Sequence[str] = ("/bin/sleep", "120"),
            token_var: str = "PROCTAPE_TOKEN", deadline_ms: int = 5000,
            byte_budget: int = 256 << 20, record: Record = Record.NEVER,
            record_path: Optional[str] = None, replace: bool = False,
            proc_root: Optional[str] = None) -> ResolveResult:
    """The resolver on the live host, after the turn: the unique descendant of
    the fingerprinted root with exactly ``argv`` and ``token_var=token``."""
    c_argv = (ctypes.c_char_p * len(argv))(*[a.encode() for a in argv])
    request = _ffi.Request(token=token.encode(), token_var=token_var.encode(), argv=c_argv,
                           argc=len(argv), deadline_ms=deadline_ms, byte_budget=byte_budget)
    policy = _ffi.RecordPolicy(when=int(record),
                               path=record_path.encode() if record_path is not None else None,
                               replace=int(replace))
    fp, out, err = fingerprint._to(), _ffi.ResolveResult(), _ffi.Error()
    status = _lib.proctape_resolve(ctypes.byref(request), ctypes.byref(fp), ctypes.byref(policy),
                                   _options(proc_root), ctypes.byref(out), ctypes.byref(err))
    result = ResolveResult(bool(out.ran), Verdict._from(out.verdict), _text(out.recording))
    _check(status, err, result)
    return result


def check_liveness(pid: int, start_ticks: int, boot_id: str = "",
                   proc_root: Optional[str] = None) -> LivenessVerdict:
    """Is the identity (pid, start tick, in the boot ``boot_id``) still alive? One stat read."""
    identity = _ffi.Identity(pid, start_ticks, boot_id.encode())
    out, err = _ffi.LivenessVerdict(), _ffi.Error()
    _check(_lib.proctape_liveness_check(ctypes.byref(identity), _options(proc_root),
                                        ctypes.byref(out), ctypes.byref(err)), err)
    return LivenessVerdict._from(out)


def pin(verdict: Verdict, proc_root: Optional[str] = None) -> int:
    """A pidfd on a RESOLVED verdict's process, checked after opening against
    its start tick (fails closed: NOT_PINNED). The caller closes it (os.close)."""
    fd, err = ctypes.c_int(-1), _ffi.Error()
    _check(_lib.proctape_pin(ctypes.byref(verdict._c), _options(proc_root), ctypes.byref(fd),
                             ctypes.byref(err)), err)
    return fd.value


def liveness_pidfd(pidfd: int, proc_root: Optional[str] = None) -> LivenessVerdict:
    """Liveness of a pinned process by its pidfd: a reaped one is DEAD, even
    when its pid has been reused."""
    out, err = _ffi.LivenessVerdict(), _ffi.Error()
    _check(_lib.proctape_liveness_pidfd(pidfd, _options(proc_root), ctypes.byref(out),
                                        ctypes.byref(err)), err)
    return LivenessVerdict._from(out)


def read_file(path: str) -> FileSummary:
    """Reads and checks a whole .ptape. Damage raises ProctapeError whose
    ``result`` is the summary of what was read before it."""
    out, err = ctypes.POINTER(_ffi.FileSummary)(), _ffi.Error()
    status = _lib.proctape_read_file(path.encode(), ctypes.byref(out), ctypes.byref(err))
    summary = None
    if out:
        try:
            s = out.contents
            summary = FileSummary(
                s.chunks, s.frames, s.processes, s.observations, bool(s.environ_kept),
                [RecordedCheck(bool(c.liveness), Verdict._from(c.verdict),
                               LivenessVerdict._from(c.liveness_verdict), c.observations)
                 for c in s.checks[:s.check_count]],
                [Fingerprint._from(f) for f in s.fingerprints[:s.fingerprint_count]])
        finally:
            _lib.proctape_file_summary_free(out)
    _check(status, err, summary)
    assert summary is not None
    return summary


def replay(path: str) -> ReplayReport:
    """Replays every check of a recording against its tape (as ``proctape replay``)."""
    out, err = ctypes.POINTER(_ffi.ReplayReport)(), _ffi.Error()
    status = _lib.proctape_replay(path.encode(), ctypes.byref(out), ctypes.byref(err))
    _check(status, err)
    try:
        r = out.contents
        checks = [ReplayedCheck(
            c.index, ReplayOutcome(c.outcome), bool(c.liveness), Verdict._from(c.recorded),
            Verdict._from(c.replayed) if c.has_replayed else None,
            LivenessVerdict._from(c.recorded_liveness),
            LivenessVerdict._from(c.replayed_liveness) if c.has_replayed else None,
            _text(c.description)) for c in r.checks[:r.check_count]]
        return ReplayReport(ReplayOutcome(r.worst), checks)
    finally:
        _lib.proctape_replay_report_free(out)
