"""What a task's data costs, from its sizes alone (exact Python integers), checked before anything is built."""
from __future__ import annotations

import numbers

import numpy as np

from .. import limits
from ..errors import LabError


def check_count(n, what: str) -> int:
    """``n`` as an int when it is a whole number >= 0 (a bool, float or negative number is a ``LabError``)."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise LabError(f"{what} must be a whole number, got {n!r}")
    n = int(n)
    if n < 0:
        raise LabError(f"{what} must be at least 0, got {n}")
    return n


def check_dtype(dtype) -> np.dtype:
    """float32 or float64 (what the tasks generate); anything else is a ``LabError``."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise LabError(f"dtype must be float32 or float64, got {dtype!r}") from None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise LabError(f"dtype must be float32 or float64, got {dt}")
    return dt


def check_bytes(what: str, needed: int) -> int:
    """``needed`` (bytes) when within the lab's memory limit, else ``MemoryLimitError`` naming ``what``."""
    limits.check_memory(what, needed)
    return needed
