"""Memory estimates made *before* a solve allocates, and the limit they are checked against."""
from __future__ import annotations

import os
import re

from ..errors import LabError, MemoryLimitError

_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "m": 2**20, "mb": 2**20, "g": 2**30, "gb": 2**30,
          "t": 2**40, "tb": 2**40}


def parse_bytes(text) -> int:
    """``"8GB"``, ``"500 MB"``, ``"1e9"`` or an int -> bytes."""
    if isinstance(text, bool):
        raise LabError(f"cannot read memory size {text!r}: write e.g. 8GB, 500MB or a number of bytes")
    if isinstance(text, (int, float)):
        value = text
    else:
        m = re.fullmatch(r"\s*([0-9.eE+]+)\s*([a-zA-Z]*)\s*", str(text))
        if not m or m.group(2).lower() not in _UNITS:
            raise LabError(f"cannot read memory size {text!r}: write e.g. 8GB, 500MB or a number of bytes")
        try:
            value = float(m.group(1)) * _UNITS[m.group(2).lower()]
        except ValueError:
            raise LabError(f"cannot read memory size {text!r}: write e.g. 8GB, 500MB or a number of bytes") from None
    if not (0 <= value <= 2**60):  # 1e999 is inf: refused here, not as an OverflowError in int()
        raise LabError(f"memory size {text!r} is out of range: give a size between 0 and 1EB")
    return int(value)


def available_memory() -> int:
    """Bytes of RAM available now (MemAvailable from /proc/meminfo, else total physical memory)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 8 * 2**30


def memory_limit(override=None) -> int:
    """The limit in bytes: ``override``, else ``$LAB_MEMORY_LIMIT``, else 80% of available RAM."""
    if override is not None:
        return _in_range(parse_bytes(override), override)
    env = os.environ.get("LAB_MEMORY_LIMIT")
    if env:
        return _in_range(parse_bytes(env), f"LAB_MEMORY_LIMIT={env}")
    return int(0.8 * available_memory())


def _in_range(limit: int, given) -> int:
    # a limit above 1 PB is a typo (and 1e999 is infinite)
    if not 1 <= limit <= 2**50:
        raise LabError(f"memory limit {given!r} is out of range: give between 1 byte and 1PB")
    return limit


def check(what: str, needed: int, limit: int) -> None:
    if needed > limit:
        raise MemoryLimitError(what, int(needed), int(limit))


def orbit_bytes(n_entries: int, n_generators: int, signed: bool) -> int:
    nodes = n_entries * (2 if signed else 1)
    # CSR graph (int32 indices + float64 data made by scipy), images, labels and the sparse basis
    return nodes * (max(n_generators, 1) * 12 + 48) + n_entries * 24


def dense_bytes(m: int, n_constraints: int, itemsize: int) -> int:
    # one constraint block, the running R factor, the stacked [R; C_i] and SVD workspace
    return (4 * m * m + 2 * m * m * min(n_constraints, 2)) * itemsize + 64 * m


def krylov_bytes(m: int, r_max: int, itemsize: int) -> int:
    # X, previous X, gradient, two temporaries of size m x r_max, plus the final SVD
    return 7 * m * r_max * itemsize
