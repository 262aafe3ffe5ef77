# SPDX-License-Identifier: Apache-2.0
"""The Python package over libproctape.so.0 (docs/library.md, "Python").

Run by ctest python/pytest with PROCTAPE_LIBRARY set to the build's library
and PROCTAPE_SOURCE_DIR to the checkout. The live tests start a sandboxed
sleep (unshare, bwrap where installed) and end exactly it, by its pid.
"""
from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import proctape
from proctape import Liveness, ProctapeError, Record, ReplayOutcome, Status

SOURCE = Path(os.environ.get("PROCTAPE_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def manifest() -> list[tuple[str, str, list[str]]]:
    """corpus/MANIFEST's entries: (name, file, expect lines)."""
    entries: list[tuple[str, str, list[str]]] = []
    for line in (SOURCE / "corpus" / "MANIFEST").read_text().splitlines():
        key, _, value = line.partition(" ")
        value = value.strip()
        if key == "entry":
            entries.append((value, "", []))
        elif key == "file" and entries:
            entries[-1] = (entries[-1][0], value, entries[-1][2])
        elif key == "expect" and entries:
            entries[-1][2].append(" ".join(value.split()))
    return entries


def expect_text(check: proctape.RecordedCheck) -> str:
    """A recorded check in the MANIFEST's expect form (docs/corpus.md, "Expect lines")."""
    if check.liveness:
        lv = check.liveness_verdict
        return lv.status.name if lv.status != Liveness.ERROR else f"ERROR {Status(lv.reason).name}"
    v = check.verdict
    return f"RESOLVED pid={v.pid} start={v.start_ticks}" if v.resolved else v.status.name


def test_version_is_the_projects() -> None:
    project = re.search(r"project\(proctape VERSION ([0-9.]+)", (SOURCE / "CMakeLists.txt").read_text())
    assert project is not None
    assert proctape.version() == project.group(1)
    pyproject = (SOURCE / "python" / "pyproject.toml").read_text()
    assert f'version = "{project.group(1)}"' in pyproject


@pytest.mark.parametrize("name,file,expects", manifest(), ids=[e[0] for e in manifest()])
def test_corpus_file_reads_and_replays_as_its_manifest_says(name: str, file: str,
                                                           expects: list[str]) -> None:
    path = str(SOURCE / "corpus" / file)
    summary = proctape.read_file(path)
    assert [expect_text(c) for c in summary.checks] == expects
    assert summary.chunks > 0 and summary.observations > 0
    report = proctape.replay(path)
    assert report.worst == ReplayOutcome.REPRODUCED
    assert [c.outcome for c in report.checks] == [ReplayOutcome.REPRODUCED] * len(expects)
    assert all(c.description.startswith(("resolution ", "liveness ")) for c in report.checks)


def test_damaged_files_are_errors_naming_their_kind(tmp_path: Path) -> None:
    with pytest.raises(ProctapeError) as missing:
        proctape.read_file(str(tmp_path / "missing.ptape"))
    assert missing.value.name == "IO"
    (tmp_path / "text.ptape").write_bytes(b"not a recording\n" * 4)
    with pytest.raises(ProctapeError) as text:
        proctape.replay(str(tmp_path / "text.ptape"))
    assert text.value.name == "NOT_PTAPE"
    whole = (SOURCE / "corpus" / manifest()[0][1]).read_bytes()
    (tmp_path / "cut.ptape").write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ProctapeError) as cut:
        proctape.read_file(str(tmp_path / "cut.ptape"))
    assert cut.value.name in ("TRUNCATED", "CORRUPT", "CHECKSUM")
    assert isinstance(cut.value.result, proctape.FileSummary)  # what was read before it


def test_liveness_of_another_boot_reads_nothing() -> None:
    with pytest.raises(ProctapeError) as other:
        proctape.check_liveness(os.getpid(), 1, "00000000-0000-0000-0000-000000000000")
    assert other.value.name == "OTHER_BOOT"


def test_a_missing_library_is_named() -> None:
    env = dict(os.environ, PROCTAPE_LIBRARY="/nonexistent/libproctape.so.0",
               PYTHONPATH=str(Path(proctape.__file__).parents[1]))
    run = subprocess.run([sys.executable, "-c", "import proctape"], env=env,
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "OSError: PROCTAPE_LIBRARY=/nonexistent/libproctape.so.0:" in run.stderr


def sandbox_argv(tool: str) -> list[str]:
    root = os.geteuid() == 0
    if tool == "unshare":
        return ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc"] + \
               ([] if root else ["--user", "--map-root-user"]) + ["/bin/sleep", "120"]
    return ["bwrap", "--unshare-pid", "--die-with-parent", "--dev-bind", "/", "/",
            "--proc", "/proc"] + ([] if root else ["--unshare-user"]) + ["/bin/sleep", "120"]


def start_sandbox(tool: str, token: str) -> subprocess.Popen[bytes]:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed")
    env = dict(os.environ, PROCTAPE_TOKEN=token)
    return subprocess.Popen(sandbox_argv(tool), env=env)


def wait_dead(pidfd: int) -> proctape.LivenessVerdict:
    """Waits for the event (the sandbox's end reaching the sleep), bounded at 10 s."""
    verdict = proctape.liveness_pidfd(pidfd)
    for _ in range(200):
        if verdict.status == Liveness.DEAD:
            break
        time.sleep(0.05)
        verdict = proctape.liveness_pidfd(pidfd)
    return verdict


@pytest.mark.parametrize("tool", ["unshare", "bwrap"])
def test_resolve_pin_and_end_a_sandboxed_sleep(tool: str) -> None:
    fingerprint = proctape.take_fingerprint(os.getpid())
    assert fingerprint.root_pid == os.getpid() and fingerprint.exe_path == "/bin/sleep"
    token = secrets.token_hex(16)
    sandbox = start_sandbox(tool, token)
    try:
        result = proctape.resolve(fingerprint, token)
        v = result.verdict
        assert result.ran and v.status == Status.RESOLVED, v.detail
        assert result.recording == ""
        stat = Path(f"/proc/{v.pid}/stat").read_text()
        assert int(stat[stat.rindex(")") + 2:].split()[19]) == v.start_ticks
        assert Path(f"/proc/{v.pid}/cmdline").read_bytes() == b"/bin/sleep\x00120\x00"
        assert v.boot_id == fingerprint.boot_id
        assert proctape.check_liveness(v.pid, v.start_ticks, v.boot_id).status == Liveness.ALIVE
        pidfd = proctape.pin(v)
        try:
            assert proctape.liveness_pidfd(pidfd).status == Liveness.ALIVE
            sandbox.kill()  # the sandbox tool, our child, by its pid: it takes the sleep along
            sandbox.wait()
            assert wait_dead(pidfd).status == Liveness.DEAD
        finally:
            os.close(pidfd)
        with pytest.raises(ProctapeError) as gone:
            proctape.pin(v)
        assert gone.value.name == "NOT_PINNED"
    finally:
        sandbox.kill()
        sandbox.wait()


def test_a_failure_is_recorded_and_replays(tmp_path: Path) -> None:
    fingerprint = proctape.take_fingerprint(os.getpid())
    sandbox = start_sandbox("unshare", secrets.token_hex(16))
    try:
        path = tmp_path / "failure.ptape"
        result = proctape.resolve(fingerprint, "another-token", deadline_ms=300,
                                  record=Record.ON_FAILURE, record_path=str(path))
        assert result.ran and not result.verdict.resolved
        assert result.recording == str(path) and path.is_file()
        with pytest.raises(ProctapeError) as refused:  # exists, and no replace
            proctape.resolve(fingerprint, "another-token", deadline_ms=0,
                             record=Record.ON_FAILURE, record_path=str(path))
        assert refused.value.name == "RECORD_REFUSED"
        assert isinstance(refused.value.result, proctape.ResolveResult)
        assert not refused.value.result.ran
    finally:
        sandbox.kill()
        sandbox.wait()
    report = proctape.replay(str(path))
    assert report.worst == ReplayOutcome.REPRODUCED
    assert report.checks[0].recorded.status == result.verdict.status
