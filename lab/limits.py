"""The lab's size limits, in one place: every request is measured against them *before* anything is built.

A request's cost is computed from its description with exact Python integers (never numpy's wrapping
int64): the length and nesting of a text, the numbers in it, a representation's dimension, tensor order
and number of blocks, a group's base dimension and the bytes of its generators.  A request over a limit is
refused with one line that names the limit, the size asked for and how to raise it::

    >>> check("tensor_order", 40, "T(40)")
    Traceback (most recent call last):
    ...
    lab.limits.LimitError: T(40): tensor order 40 is over the limit of 32 (tensor_order; raise it with LAB_MAX_TENSOR_ORDER=...)

Every limit can be raised (or lowered) by an environment variable ``LAB_MAX_<NAME>`` or, for a block of
code, with ``override(name=value)``; the memory limit (bytes a solve or a training run may allocate) is
``memory_limit()`` below and is set with ``--memory-limit``, ``LAB_MEMORY_LIMIT`` or the
dashboard's setting.  The defaults let every example and preset of the lab run and keep a refused request
cheap to refuse: none of them needs more than a few milliseconds to check.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import re
from dataclasses import dataclass

from .errors import LabError, MemoryLimitError


class LimitError(LabError, ValueError):
    """A request is larger than one of the lab's limits (see ``lab.limits``)."""

    def __init__(self, name: str, value: int, limit: int, what: str):
        self.name, self.value, self.limit = name, value, limit
        lim = LIMITS[name]
        super().__init__(f"{what}: {lim.measure} {_fmt(value, lim)} is over the limit of {_fmt(limit, lim)} "
                         f"({name}; raise it with {lim.env}=...)")


@dataclass(frozen=True)
class Limit:
    """The declaration of one size limit (``LIMITS[name]``): its ``name``, its ``default`` value, how a message
    names the size it bounds (``measure``: "tensor order", "dimension", ...) and what it counts (``help``, for the
    README and ``--help``).  ``env`` is the environment variable that sets it, ``LAB_MAX_<NAME>``; ``get(name)``
    reads the value in force."""

    name: str
    default: int
    measure: str  # how a message names the size: "tensor order", "dimension", ...
    help: str

    @property
    def env(self) -> str:
        return "LAB_MAX_" + self.name.upper()


_MB = 2**20
LIMITS: dict[str, Limit] = {lim.name: lim for lim in (
    Limit("text", 10_000, "length", "characters in one group or representation text"),
    Limit("nesting", 32, "nesting depth", "parentheses nested inside each other in a text"),
    Limit("number", 1_000_000, "number", "the largest number written in or computed by a text"),
    Limit("tensor_order", 32, "tensor order", "tensor factors of one block: p + q of T(p, q), k of V**k"),
    Limit("multiplicity", 10_000, "multiplicity", "copies in a multiplicity such as 3*V"),
    Limit("blocks", 100_000, "blocks", "tensor-product blocks a representation expands into"),
    Limit("rep_size", 2**31 - 1, "dimension", "entries of a representation (its dimension)"),
    Limit("group_dim", 2**22, "base dimension", "the dimension d of the space a group acts on"),
    Limit("group_bytes", 512 * _MB, "memory for the generators", "bytes of a group's generators and Lie algebra"),
    Limit("run_bytes", 512 * _MB, "size", "bytes of a saved run's metrics the dashboard reads to draw it"),
    Limit("sweep_points", 100_000, "number of points", "points of one sweep: the product of its grid axes, zip "
                                                       "groups and seeds"),
)}

_overrides: contextvars.ContextVar[dict] = contextvars.ContextVar("lab_limit_overrides", default={})


def get(name: str) -> int:
    """The limit ``name`` now: an ``override``, else ``$LAB_MAX_<NAME>``, else the default."""
    lim = LIMITS[name]
    if name in _overrides.get():
        return _overrides.get()[name]
    env = os.environ.get(lim.env)
    if env:
        try:
            value = int(env.replace("_", ""))
        except ValueError:
            raise LabError(f"{lim.env}={env!r} is not a whole number") from None
        if value < 1:
            raise LabError(f"{lim.env} must be at least 1, got {value}")
        return value
    return lim.default


@contextlib.contextmanager
def override(**values: int):
    """Change limits for the code inside the ``with`` block (this thread/context only).

    >>> with override(tensor_order=64):
    ...     get("tensor_order")
    64
    """
    unknown = set(values) - set(LIMITS)
    if unknown:
        raise LabError(f"unknown limit {sorted(unknown)[0]!r}: the limits are {', '.join(LIMITS)}")
    token = _overrides.set({**_overrides.get(), **{k: int(v) for k, v in values.items()}})
    try:
        yield
    finally:
        _overrides.reset(token)


def check(name: str, value: int, what: str) -> int:
    """``value`` if it is within the limit ``name``, else ``LimitError`` naming ``what``."""
    limit = get(name)
    if value > limit:
        raise LimitError(name, value, limit, what)
    return value


def check_load(path) -> int:
    """The bytes of a saved run's files (its directory, or the file), refused with ``LimitError`` over the
    ``run_bytes`` limit before anything is read."""
    from pathlib import Path

    path = Path(path)
    files = [f for f in path.rglob("*") if f.is_file()] if path.is_dir() else [path]
    size = sum(f.stat().st_size for f in files)
    return check("run_bytes", size, f"saved run {path.name}")


def table() -> list[tuple[str, int, str, str]]:
    """(name, current value, environment variable, meaning) of every limit, for the README and ``--help``."""
    return [(lim.name, get(lim.name), lim.env, lim.help) for lim in LIMITS.values()]


def _fmt(n: int, lim: Limit | None = None) -> str:
    if lim is not None and lim.name in ("group_bytes", "run_bytes"):
        from .errors import format_bytes

        return format_bytes(n)
    if n >= 10**15:
        if n.bit_length() < 13_000:  # str() of a longer int is refused (4300 digits) and slow
            return f"about 10^{len(str(n)) - 1}"
        return f"about 10^{int((n.bit_length() - 1) * 0.30103)}"
    return f"{n:,}"


# ---------------------------------------------------------------------------------------------- the memory limit
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


def check_memory(what: str, needed: int, limit: int | None = None) -> None:
    """``MemoryLimitError`` when ``needed`` bytes are over ``limit`` (default: ``memory_limit()``)."""
    limit = memory_limit() if limit is None else limit
    if needed > limit:
        raise MemoryLimitError(what, int(needed), int(limit))


