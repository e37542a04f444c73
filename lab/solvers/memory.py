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


# Upper bounds of the bytes each solver path allocates at its peak (measured as RSS growth in a fresh process;
# see lab.solvers.cost for the calibration).  glibc hands freed blocks below 32 MB back to its heap rather than
# to the system, so temporaries of a loop can add up: the constants include that.
SLACK = 8 * 2**20  # small arrays, Python objects, BLAS buffers


def orbit_bytes(n_entries: int, n_generators: int, signed: bool) -> int:
    """The orbit solver: image arrays, the CSR graph scipy converts (float64 data, int32 indices, its
    transpose for weak components), the labels and relabelling, and the sparse basis assembled from them."""
    nodes = n_entries * (2 if signed else 1)
    return nodes * (max(n_generators, 1) * 40 + 64) + n_entries * 48 + SLACK


def dense_bytes(m: int, n_constraints: int, itemsize: int, rank: int | None = None) -> int:
    """The dense solver: a constraint with its Kronecker temporaries, the running R, the stacked [R; C] and its
    Fortran copy, then the SVD's copies and workspace; plus the basis and its assembled copy."""
    r = m if rank is None else rank
    per = 14 if n_constraints else 1
    return per * m * m * itemsize + 3 * m * r * itemsize + SLACK


def subgroup_bytes(m: int, n_generators: int, r_h: int, rank: int, itemsize: int, chunk: int = 64) -> int:
    """The subgroup solver: the orbit basis of H (signed), a chunk of rows with the structured products'
    temporaries, the r_h x r_h Gram matrix with its eigenvectors and workspace, and the basis (m x rank) with
    its assembled copy."""
    rows = subgroup_chunk(m, itemsize, chunk)
    return (orbit_bytes(m, n_generators, True) + 20 * rows * m * itemsize + 5 * r_h * r_h * itemsize
            + 2 * m * rank * itemsize + 24 * m + SLACK)


def subgroup_chunk(m: int, itemsize: int, chunk: int = 64) -> int:
    """Rows of the subgroup solver's Gram pass at a time: ``chunk``, fewer when a row is large (at most 32 MB
    a block, the size up to which glibc keeps freed blocks on its heap)."""
    return max(1, min(chunk, (32 * 2**20) // max(m * itemsize, 1)))


def krylov_bytes(m: int, r_max: int, itemsize: int, rank: int | None = None) -> int:
    """The Krylov solver with r_max rows: X, the previous X, C^H C X with its temporaries, the residual's C_i X,
    the SVD (U, V^H, workspace), the basis and its assembled copy."""
    r = r_max if rank is None else min(rank, r_max)
    return 16 * m * r_max * itemsize + 3 * m * r * itemsize + SLACK
