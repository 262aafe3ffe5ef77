# SPDX-License-Identifier: Apache-2.0
"""Arguments checked before they reach ctypes (docs/library.md, "Python").

Internal. ctypes would wrap an integer out of its C type's range (2**64 + pid
is pid) and a char* stops at the first NUL (a path or token cut short), so
every public function passes its arguments through here: a wrong type is
TypeError, a value C cannot hold exactly is ValueError, each naming the
parameter.
"""
import os
from typing import Optional

INT = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)
UINT64 = (0, (1 << 64) - 1)


def integer(name: str, value: object, bounds: "tuple[int, int]") -> int:
    """An int (not a bool) within bounds, inclusive."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    low, high = bounds
    if not low <= value <= high:
        raise ValueError(f"{name} {value} is outside {low}..{high}")
    return value


def flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, not {type(value).__name__}")
    return value


def _no_nul(name: str, raw: bytes) -> bytes:
    if b"\0" in raw:
        raise ValueError(f"{name} contains a NUL byte")
    return raw


def text(name: str, value: object) -> bytes:
    """A str (or bytes) as the C string it is, whole: no NUL inside."""
    if isinstance(value, str):
        return _no_nul(name, os.fsencode(value))
    if isinstance(value, bytes):
        return _no_nul(name, value)
    raise TypeError(f"{name} must be a str, not {type(value).__name__}")


def path(name: str, value: object) -> bytes:
    """A path as open() takes it (str, bytes, os.PathLike): not empty, no NUL."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a str, bytes or os.PathLike path, "
                        f"not {type(value).__name__}")
    raw = os.fsencode(value)
    if not raw:
        raise ValueError(f"{name} is empty")
    return _no_nul(name, raw)


def optional_path(name: str, value: object) -> Optional[bytes]:
    return None if value is None else path(name, value)


def instance(name: str, value: object, kind: type) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be a {kind.__name__}, not {type(value).__name__}")
