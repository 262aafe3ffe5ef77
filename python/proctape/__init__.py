# SPDX-License-Identifier: Apache-2.0
"""proctape from Python: a launcher's child's host identity, over libproctape.so.0.

Before the turn, :func:`take_fingerprint` of the root the sandbox starts
beneath; after it, :func:`resolve` the sandboxed process (recording the
evidence on failure, if asked); later, :func:`check_liveness` of the identity,
or :func:`pin` it to a pidfd and ask :func:`liveness_pidfd`. Recordings are
read with :func:`read_file` and replayed with :func:`replay`.

Errors raise :class:`ProctapeError` (the C status and its message); a verdict
other than RESOLVED is not an error; a value a call did not produce is None.
Arguments are checked first: a wrong type raises TypeError, a value the C
call cannot take whole (an integer out of its C type's range, a string with
a NUL, an empty path) ValueError, each naming the parameter. Paths are str,
bytes or os.PathLike, as open() takes them.

The library is found, in order: the environment variable
``PROCTAPE_LIBRARY``, ``libproctape.so.0`` beside this package, the library
``cmake --install`` put beside the installed package (``_installed.py``),
then its soname through the dynamic loader. The contracts are
docs/library.md's.
"""
import ctypes as _ctypes
import enum as _enum
import os as _os
from dataclasses import dataclass as _dataclass, field as _field
from typing import Optional as _Optional, Sequence as _Sequence, Union as _Union

from proctape import _args, _ffi

_Path = _Union[str, bytes, _os.PathLike]  # a path as open() takes it

_lib = _ffi.load()

__all__ = ["ProctapeError", "Status", "Liveness", "Record", "ReplayOutcome", "Fingerprint",
           "Verdict", "LivenessVerdict", "ResolveResult", "RecordedCheck", "FileSummary",
           "ReplayedCheck", "ReplayReport", "version", "take_fingerprint", "resolve",
           "check_liveness", "pin", "liveness_pidfd", "read_file", "replay"]


class _Named(_enum.IntEnum):
    """Prints as its name ("ALIVE"), as the C *_name functions and the CLI do."""

    def __str__(self) -> str:
        return self.name

    def __format__(self, spec: str) -> str:
        return format(self.name, spec)


class Status(_Named):
    """The resolver's verdicts (docs/resolver.md), the file format's values."""
    RESOLVED = 1; MISSING_ROOT = 2; ROOT_RESTARTED = 3; NO_MATCH = 4  # noqa: E702
    MULTIPLE_MATCHES = 5; DUPLICATE_RECORD = 6; MALFORMED_RECORD = 7; CYCLE = 8  # noqa: E702
    ENTRY_BOUND = 9; NODE_BOUND = 10; DEPTH_BOUND = 11; FILE_BOUND = 12  # noqa: E702
    BYTE_BUDGET = 13; DEADLINE = 14; UNREADABLE = 15; TOKEN_MISMATCH = 16  # noqa: E702
    EXE_MISMATCH = 17; ANCESTRY_CHANGED = 18; PID_REUSED = 19; INVALID_REQUEST = 20  # noqa: E702


class Liveness(_Named):
    ALIVE = 1
    DEAD = 2
    ERROR = 3


class Record(_Named):
    """When :func:`resolve` writes its recording."""
    NEVER = 0
    ON_FAILURE = 1
    ALWAYS = 2


class ReplayOutcome(_Named):
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


def _text(raw: _Optional[bytes]) -> str:
    return (raw or b"").decode("utf-8", "backslashreplace")


def _check(status: int, err: _ffi.Error, result: object = None) -> None:
    if status != 0:
        raise ProctapeError(status, _text(err.message), result)


def _options(proc_root: object) -> _Optional[_ffi.Options]:
    if proc_root is None:
        return None
    return _ffi.Options(proc_root=_args.path("proc_root", proc_root), scan_threads=0)


def _status(value: int) -> "Status | int | None":
    """A verdict status: None for the C's NONE (0), the raw int if unnamed."""
    if value == 0:
        return None
    return Status(value) if value in Status._value2member_map_ else value


@_dataclass(frozen=True)
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
        a = _args
        return _ffi.Fingerprint(
            a.integer("fingerprint.root_pid", self.root_pid, a.INT64),
            a.integer("fingerprint.root_start_ticks", self.root_start_ticks, a.UINT64),
            a.text("fingerprint.root_comm", self.root_comm),
            a.text("fingerprint.exe_path", self.exe_path),
            a.integer("fingerprint.exe_dev", self.exe_dev, a.UINT64),
            a.integer("fingerprint.exe_ino", self.exe_ino, a.UINT64),
            a.text("fingerprint.boot_id", self.boot_id),
            a.integer("fingerprint.taken_mono_ns", self.taken_mono_ns, a.INT64),
            a.integer("fingerprint.taken_realtime_ns", self.taken_realtime_ns, a.INT64))


@_dataclass(frozen=True)
class Verdict:
    """The resolver's verdict; only RESOLVED has an identity (pid, start_ticks, boot_id)."""
    status: Status
    pid: int
    start_ticks: int
    subject_pid: int
    subject_start_ticks: _Optional[int]
    expected_ticks: _Optional[int]
    file: str
    err: int
    evidence: bytes  # raw bytes: escape before printing
    detail: str
    attempts: int
    bytes_read: int
    matches: list[int]  # MULTIPLE_MATCHES: the first 16 of match_count
    match_count: int
    boot_id: str
    _c: _ffi.Verdict = _field(repr=False, compare=False)

    @property
    def resolved(self) -> bool:
        return self.status == Status.RESOLVED

    @staticmethod
    def _from(c: _ffi.Verdict) -> "Verdict":
        copy = _ffi.Verdict.from_buffer_copy(c)
        return Verdict(_status(c.status), c.pid, c.start_ticks, c.subject_pid,
                       c.subject_start_ticks if c.has_subject_start_ticks else None,
                       c.expected_ticks if c.has_expected_ticks else None, _text(c.file), c.err,
                       bytes(c.evidence[:c.evidence_len]), _text(c.detail), c.attempts,
                       c.bytes_read, list(c.matches[:min(c.match_count, _ffi.MATCHES_MAX)]),
                       c.match_count, _text(c.boot_id), copy)


@_dataclass(frozen=True)
class LivenessVerdict:
    """ALIVE, DEAD, or ERROR with its ``reason`` (docs/resolver.md, "Liveness");
    ``reason`` is None unless ERROR."""
    status: Liveness
    reason: _Optional[Status]
    state: str
    detail: str
    err: int
    boot_unchecked: bool

    @staticmethod
    def _from(c: _ffi.LivenessVerdict) -> "LivenessVerdict":
        return LivenessVerdict(Liveness(c.status), _status(c.reason), _text(c.state),
                               _text(c.detail), c.err, bool(c.boot_unchecked))

    @staticmethod
    def _from_set(c: _ffi.LivenessVerdict) -> "_Optional[LivenessVerdict]":
        return LivenessVerdict._from(c) if c.status != 0 else None


@_dataclass(frozen=True)
class ResolveResult:
    ran: bool            # the resolver ran: ``verdict`` is its verdict
    verdict: _Optional[Verdict]  # None when it did not run
    recording: str       # the path written, or ""


@_dataclass(frozen=True)
class RecordedCheck:
    liveness: bool       # a liveness check; otherwise a resolution
    verdict: _Optional[Verdict]                    # a resolution's; None for a liveness check
    liveness_verdict: _Optional[LivenessVerdict]   # a liveness check's; None for a resolution
    observations: int


@_dataclass(frozen=True)
class FileSummary:
    chunks: int
    frames: int
    processes: int
    observations: int
    environ_kept: bool
    checks: list[RecordedCheck]
    fingerprints: list[Fingerprint]


@_dataclass(frozen=True)
class ReplayedCheck:
    index: int
    outcome: ReplayOutcome
    liveness: bool
    # A resolution's verdicts, or a liveness check's (the other kind's: None);
    # a replayed one is None too when the tape could not answer a call.
    recorded: _Optional[Verdict]
    replayed: _Optional[Verdict]
    recorded_liveness: _Optional[LivenessVerdict]
    replayed_liveness: _Optional[LivenessVerdict]
    description: str


@_dataclass(frozen=True)
class ReplayReport:
    worst: ReplayOutcome
    checks: list[ReplayedCheck]


def version() -> str:
    """The version of proctape the library ships with ("0.1.0")."""
    return _text(_lib.proctape_version())


def take_fingerprint(root_pid: int, exe_path: _Path = "/bin/sleep",
                     proc_root: _Optional[_Path] = None) -> Fingerprint:
    """Fingerprints the root the sandbox is started beneath, before the turn.
    A ROOT error's ``result`` is the Status saying why; other errors' None."""
    pid = _args.integer("root_pid", root_pid, _args.INT64)
    exe, options = _args.path("exe_path", exe_path), _options(proc_root)
    out, err, root_status = _ffi.Fingerprint(), _ffi.Error(), _ctypes.c_int(0)
    status = _lib.proctape_fingerprint_take(pid, exe, options, _ctypes.byref(out),
                                            _ctypes.byref(root_status), _ctypes.byref(err))
    _check(status, err, _status(root_status.value))
    return Fingerprint._from(out)


def resolve(fingerprint: Fingerprint, token: str, argv: _Sequence[str] = ("/bin/sleep", "120"),
            token_var: str = "PROCTAPE_TOKEN", deadline_ms: int = 5000,
            byte_budget: int = 256 << 20, record: Record = Record.NEVER,
            record_path: _Optional[_Path] = None, replace: bool = False,
            proc_root: _Optional[_Path] = None) -> ResolveResult:
    """The resolver on the live host, after the turn: the unique descendant of
    the fingerprinted root with exactly ``argv`` and ``token_var=token``."""
    _args.instance("fingerprint", fingerprint, Fingerprint)
    if isinstance(argv, (str, bytes)) or not isinstance(argv, _Sequence):
        raise TypeError(f"argv must be a sequence of str, not {type(argv).__name__}")
    args = [_args.text(f"argv[{i}]", a) for i, a in enumerate(argv)]
    if isinstance(record, bool) or not isinstance(record, int):
        raise TypeError(f"record must be a Record, not {type(record).__name__}")
    if record not in Record._value2member_map_:
        raise ValueError(f"record {int(record)} is not a Record (0..2)")
    c_argv = (_ctypes.c_char_p * len(args))(*args)
    request = _ffi.Request(token=_args.text("token", token),
                           token_var=_args.text("token_var", token_var), argv=c_argv,
                           argc=len(args),
                           deadline_ms=_args.integer("deadline_ms", deadline_ms, _args.INT64),
                           byte_budget=_args.integer("byte_budget", byte_budget, _args.UINT64))
    policy = _ffi.RecordPolicy(when=int(record),
                               path=_args.optional_path("record_path", record_path),
                               replace=int(_args.flag("replace", replace)))
    fp, options = fingerprint._to(), _options(proc_root)
    out, err = _ffi.ResolveResult(), _ffi.Error()
    status = _lib.proctape_resolve(_ctypes.byref(request), _ctypes.byref(fp),
                                   _ctypes.byref(policy), options, _ctypes.byref(out),
                                   _ctypes.byref(err))
    result = ResolveResult(bool(out.ran), Verdict._from(out.verdict) if out.ran else None,
                           _text(out.recording))
    _check(status, err, result)
    return result


def check_liveness(pid: int, start_ticks: int, boot_id: str = "",
                   proc_root: _Optional[_Path] = None) -> LivenessVerdict:
    """Is the identity (pid, start tick, in the boot ``boot_id``) still alive? One stat read."""
    identity = _ffi.Identity(_args.integer("pid", pid, _args.INT64),
                             _args.integer("start_ticks", start_ticks, _args.UINT64),
                             _args.text("boot_id", boot_id))
    options, out, err = _options(proc_root), _ffi.LivenessVerdict(), _ffi.Error()
    _check(_lib.proctape_liveness_check(_ctypes.byref(identity), options,
                                        _ctypes.byref(out), _ctypes.byref(err)), err)
    return LivenessVerdict._from(out)


def pin(verdict: Verdict, proc_root: _Optional[_Path] = None) -> int:
    """A pidfd on a RESOLVED verdict's process, checked after opening against
    its start tick (fails closed: NOT_PINNED). The caller closes it (os.close)."""
    _args.instance("verdict", verdict, Verdict)
    options, fd, err = _options(proc_root), _ctypes.c_int(-1), _ffi.Error()
    _check(_lib.proctape_pin(_ctypes.byref(verdict._c), options, _ctypes.byref(fd),
                             _ctypes.byref(err)), err)
    return fd.value


def liveness_pidfd(pidfd: int, proc_root: _Optional[_Path] = None) -> LivenessVerdict:
    """Liveness of a pinned process by its pidfd: a reaped one is DEAD, even
    when its pid has been reused. A descriptor that is not a pidfd is
    INVALID_ARGUMENT."""
    fd = _args.integer("pidfd", pidfd, _args.INT)
    options, out, err = _options(proc_root), _ffi.LivenessVerdict(), _ffi.Error()
    _check(_lib.proctape_liveness_pidfd(fd, options, _ctypes.byref(out), _ctypes.byref(err)),
           err)
    return LivenessVerdict._from(out)


def read_file(path: _Path) -> FileSummary:
    """Reads and checks a whole .ptape. Damage raises ProctapeError whose
    ``result`` is the summary of what was read before it."""
    raw = _args.path("path", path)
    out, err = _ctypes.POINTER(_ffi.FileSummary)(), _ffi.Error()
    status = _lib.proctape_read_file(raw, _ctypes.byref(out), _ctypes.byref(err))
    summary = None
    if out:
        try:
            s = out.contents
            summary = FileSummary(
                s.chunks, s.frames, s.processes, s.observations, bool(s.environ_kept),
                [RecordedCheck(bool(c.liveness),
                               None if c.liveness else Verdict._from(c.verdict),
                               LivenessVerdict._from_set(c.liveness_verdict), c.observations)
                 for c in s.checks[:s.check_count]],
                [Fingerprint._from(f) for f in s.fingerprints[:s.fingerprint_count]])
        finally:
            _lib.proctape_file_summary_free(out)
    _check(status, err, summary)
    assert summary is not None
    return summary


def replay(path: _Path) -> ReplayReport:
    """Replays every check of a recording against its tape (as ``proctape replay``)."""
    raw = _args.path("path", path)
    out, err = _ctypes.POINTER(_ffi.ReplayReport)(), _ffi.Error()
    status = _lib.proctape_replay(raw, _ctypes.byref(out), _ctypes.byref(err))
    _check(status, err)
    try:
        r = out.contents
        checks = [ReplayedCheck(
            c.index, ReplayOutcome(c.outcome), bool(c.liveness),
            None if c.liveness else Verdict._from(c.recorded),
            Verdict._from(c.replayed) if c.has_replayed and not c.liveness else None,
            LivenessVerdict._from_set(c.recorded_liveness),
            LivenessVerdict._from_set(c.replayed_liveness) if c.has_replayed else None,
            _text(c.description)) for c in r.checks[:r.check_count]]
        return ReplayReport(ReplayOutcome(r.worst), checks)
    finally:
        _lib.proctape_replay_report_free(out)
