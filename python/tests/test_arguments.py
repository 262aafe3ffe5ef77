# SPDX-License-Identifier: Apache-2.0
"""What the Python package takes and gives out (docs/library.md, "Python"):
arguments checked before ctypes, boot ids without their newline, absent
values None, enums printed by name, the module's surface. Starts no process.
"""
import os
import re
from pathlib import Path
from typing import Any, Callable

import pytest

import proctape
from proctape import Liveness, ProctapeError, Record, Status

SOURCE = Path(os.environ.get("PROCTAPE_SOURCE_DIR", Path(__file__).resolve().parents[2]))
CORPUS = SOURCE / "corpus" / "051df0283b135a91.ptape"
BOOT = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def ticks_of_self() -> int:
    stat = Path("/proc/self/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[19])


@pytest.mark.parametrize("call,name", [
    (lambda: proctape.take_fingerprint(2**64 + os.getpid()), "root_pid"),
    (lambda: proctape.take_fingerprint(2**70), "root_pid"),
    (lambda: proctape.take_fingerprint(-2**63 - 1), "root_pid"),
    (lambda: proctape.check_liveness(2**64 + os.getpid(), ticks_of_self()), "pid"),
    (lambda: proctape.check_liveness(os.getpid(), 2**64 + ticks_of_self()), "start_ticks"),
    (lambda: proctape.check_liveness(os.getpid(), -1), "start_ticks"),
    (lambda: proctape.liveness_pidfd(2**32), "pidfd"),
    (lambda: proctape.resolve(proctape.take_fingerprint(os.getpid()), "t", deadline_ms=2**64),
     "deadline_ms"),
    (lambda: proctape.resolve(proctape.take_fingerprint(os.getpid()), "t", byte_budget=-1),
     "byte_budget"),
])
def test_integers_out_of_their_c_range_are_refused(call: Callable[[], Any], name: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name} -?[0-9]+ is outside -?[0-9]+\.\.[0-9]+$"):
        call()


def test_paths_are_whole_and_as_open_takes_them(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="^path contains a NUL byte$"):
        proctape.read_file(str(CORPUS) + "\0junk")
    with pytest.raises(ValueError, match="^path contains a NUL byte$"):
        proctape.replay(os.fsencode(CORPUS) + b"\0junk")
    with pytest.raises(ValueError, match="^exe_path contains a NUL byte$"):
        proctape.take_fingerprint(os.getpid(), "/bin/sleep\0junk")
    with pytest.raises(ValueError, match="^path is empty$"):
        proctape.read_file("")
    expected = proctape.read_file(str(CORPUS))
    assert proctape.read_file(CORPUS) == expected             # os.PathLike
    assert proctape.read_file(os.fsencode(CORPUS)) == expected  # bytes
    assert len(proctape.replay(CORPUS).checks) == len(expected.checks)


@pytest.mark.parametrize("call,name", [
    (lambda: proctape.resolve(None, "x"), "fingerprint"),  # type: ignore[arg-type]
    (lambda: proctape.resolve(proctape.take_fingerprint(os.getpid()), None), "token"),
    (lambda: proctape.resolve(proctape.take_fingerprint(os.getpid()), "t", argv="/bin/sleep"),
     "argv"),
    (lambda: proctape.resolve(proctape.take_fingerprint(os.getpid()), "t", record="always"),
     "record"),
    (lambda: proctape.pin(None), "verdict"),  # type: ignore[arg-type]
    (lambda: proctape.read_file(None), "path"),  # type: ignore[arg-type]
    (lambda: proctape.read_file(42), "path"),  # type: ignore[arg-type]
    (lambda: proctape.replay(None), "path"),  # type: ignore[arg-type]
    (lambda: proctape.take_fingerprint("abc"), "root_pid"),  # type: ignore[arg-type]
    (lambda: proctape.take_fingerprint(True), "root_pid"),
    (lambda: proctape.liveness_pidfd("a"), "pidfd"),  # type: ignore[arg-type]
    (lambda: proctape.check_liveness(os.getpid(), 1, None), "boot_id"),  # type: ignore[arg-type]
    (lambda: proctape.check_liveness(os.getpid(), 1, proc_root=3), "proc_root"),
])
def test_wrong_types_are_type_errors_naming_the_parameter(call: Callable[[], Any],
                                                          name: str) -> None:
    with pytest.raises(TypeError, match=rf"^{re.escape(name)} must be "):
        call()


def test_a_descriptor_that_is_not_a_pidfd_is_refused() -> None:
    with open(CORPUS, "rb") as f:
        for fd in (0, f.fileno()):
            with pytest.raises(ProctapeError) as refused:
                proctape.liveness_pidfd(fd)
            assert refused.value.name == "INVALID_ARGUMENT"
            assert refused.value.message == f"fd {fd} is not a pidfd"


def test_boot_ids_come_without_their_newline() -> None:
    fingerprint = proctape.take_fingerprint(os.getpid())
    assert BOOT.match(fingerprint.boot_id), repr(fingerprint.boot_id)
    assert Path("/proc/sys/kernel/random/boot_id").read_text().strip() == fingerprint.boot_id
    # and goes back in as it came: this boot
    alive = proctape.check_liveness(os.getpid(), ticks_of_self(), fingerprint.boot_id)
    assert alive.status == Liveness.ALIVE
    summary = proctape.read_file(CORPUS)
    resolutions = [c.verdict for c in summary.checks if c.verdict is not None]
    assert resolutions and all(BOOT.match(v.boot_id) for v in resolutions)
    assert all(BOOT.match(f.boot_id) for f in summary.fingerprints)


def test_absent_values_are_none() -> None:
    with pytest.raises(ProctapeError) as invalid:
        proctape.take_fingerprint(0)
    assert invalid.value.name == "INVALID_ARGUMENT" and invalid.value.result is None
    alive = proctape.check_liveness(os.getpid(), ticks_of_self())
    assert alive.status == Liveness.ALIVE and alive.reason is None
    for check in proctape.read_file(CORPUS).checks:
        if check.liveness:
            assert check.verdict is None and check.liveness_verdict is not None
            lv = check.liveness_verdict
            assert (lv.reason is None) == (lv.status != Liveness.ERROR)
        else:
            assert check.liveness_verdict is None and check.verdict is not None
    with pytest.raises(ProctapeError) as no_path:
        proctape.resolve(proctape.take_fingerprint(os.getpid()), "t", record=Record.ALWAYS)
    result = no_path.value.result
    assert isinstance(result, proctape.ResolveResult)
    assert not result.ran and result.verdict is None


def test_enums_print_their_names() -> None:
    assert str(Liveness.ALIVE) == "ALIVE" and f"{Status.NO_MATCH}" == "NO_MATCH"
    assert str(Record.ON_FAILURE) == "ON_FAILURE"
    assert str(proctape.ReplayOutcome.VERDICT_CHANGED) == "VERDICT_CHANGED"
    assert Liveness.ALIVE == 1  # still the C values


def test_the_readme_python_example_says_what_it_prints() -> None:
    readme = (SOURCE / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", readme, re.S)
    assert block is not None
    printed = re.findall(r"^\s*print\((.*)\)\s+# (.*)$", block.group(1), re.M)
    assert printed == [("proctape.liveness_pidfd(pidfd).status", str(Liveness.ALIVE))]


def test_the_module_shows_its_api_alone() -> None:
    public = {n for n in dir(proctape) if not n.startswith("_")}
    assert public == set(proctape.__all__)
    for leak in ("ctypes", "enum", "dataclass", "field", "Optional"):
        assert leak not in public
    doc = proctape.__doc__ or ""
    order = [doc.find(s) for s in ("PROCTAPE_LIBRARY", "beside this package", "_installed.py",
                                   "soname")]
    assert -1 not in order and order == sorted(order), order
