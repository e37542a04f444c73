"""Fitted models shared between the processes of one session: a fit is computed once per configuration.

Off unless ``LAB_FIT_CACHE`` names a directory.  The test suite sets it (``conftest.py``) to one directory shared by
its xdist workers and every process they start (notebook kernels, ``panel serve``, the background
``lab reproduce --quick``), so that the same fit asked for by a test's fixture, a notebook and a claim -- the O(5)
symmetry-discovery MLP, for one -- runs once.  A user may set it for a notebook session or a series of scripts.

* **Keyed by everything the fit reads** (``key``): the arrays' dtype, shape and bytes, the settings, the seed, the
  device and the torch version.  Two calls share an entry only when their inputs are identical, so a hit returns
  what the fit would have computed (to the float rounding of the process that computed it).
* **One computation per key**: a per-key lock file (``fcntl.flock``) makes a second process asking for a fit that is
  under way wait for it rather than compute it again; the lock dies with its process.  Without ``fcntl``
  (Windows) each process computes, and the last write wins.
* **Files are tensors only**: written atomically (a temporary name, then ``os.replace``) with ``torch.save``, read with
  ``torch.load(weights_only=True)``, which rebuilds tensors and plain containers and runs no code.
* A fit that raises (stopped by its ``control``, out of memory) is not kept.

>>> import os, tempfile, torch
>>> calls = []
>>> def compute():
...     calls.append(1)
...     return torch.arange(3.0)
>>> with tempfile.TemporaryDirectory() as d:
...     os.environ[ENV] = d
...     try:
...         a = cached("demo", ("x", 1), compute, lambda t: {"t": t}, lambda s: s["t"])
...         b = cached("demo", ("x", 1), compute, lambda t: {"t": t}, lambda s: s["t"])
...         c = cached("demo", ("x", 2), compute, lambda t: {"t": t}, lambda s: s["t"])
...     finally:
...         del os.environ[ENV]
>>> len(calls), bool((a == b).all())
(2, True)
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from pathlib import Path
from typing import Callable

ENV = "LAB_FIT_CACHE"


def directory() -> Path | None:
    """The cache's directory (``LAB_FIT_CACHE``), created if missing; None when the cache is off."""
    value = os.environ.get(ENV, "").strip()
    if not value:
        return None
    path = Path(value)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _feed(h, part) -> None:
    import numpy as np

    if isinstance(part, np.ndarray):
        a = np.ascontiguousarray(part)
        h.update(f"ndarray {a.dtype.str} {a.shape}".encode())
        h.update(a.tobytes())
    elif dataclasses.is_dataclass(part) and not isinstance(part, type):
        h.update(f"{type(part).__module__}.{type(part).__qualname__}".encode())
        _feed(h, dataclasses.asdict(part))
    elif isinstance(part, dict):
        h.update(b"dict")
        for k in sorted(part, key=repr):
            _feed(h, k)
            _feed(h, part[k])
    elif isinstance(part, (list, tuple)):
        h.update(f"{type(part).__name__} {len(part)}".encode())
        for p in part:
            _feed(h, p)
    elif part is None or isinstance(part, (bool, int, float, str)):
        h.update(f"{type(part).__name__}:{part!r}".encode())
    else:
        raise TypeError(f"fitcache.key cannot key a {type(part).__name__}")
    h.update(b";")


def key(*parts) -> str:
    """A hex digest of ``parts`` (numpy arrays, dataclasses, dicts, sequences and scalars) and the torch version.

    >>> import numpy as np
    >>> key(np.zeros(3), {"steps": 5}) == key(np.zeros(3), {"steps": 5})
    True
    >>> key(np.zeros(3), {"steps": 5}) == key(np.zeros(3, dtype=np.float32), {"steps": 5})
    False
    """
    import torch

    h = hashlib.sha256(f"torch {torch.__version__}".encode())
    for part in parts:
        _feed(h, part)
    return h.hexdigest()[:32]


class _Lock:
    """An exclusive lock on ``path`` held by this process (``fcntl.flock``); a no-op where fcntl is missing."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        try:
            import fcntl
        except ImportError:  # pragma: no cover  (Windows)
            self.file = None
            return self
        self.file = open(self.path, "a")
        fcntl.flock(self.file, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.file is not None:
            self.file.close()  # closing releases the lock


def cached(kind: str, parts: tuple, compute: Callable, dump: Callable, load: Callable):
    """``compute()``, or the value kept for (``kind``, ``parts``) when the cache is on and holds it.

    ``dump(value)`` -> a dict of tensors, numbers, strings and lists of them (what ``torch.save`` keeps);
    ``load(state)`` rebuilds the value from it.  Off (``LAB_FIT_CACHE`` unset): ``compute()``, nothing written."""
    root = directory()
    if root is None:
        return compute()
    import torch

    path = root / f"{kind}-{key(kind, *parts)}.pt"
    with _Lock(path.with_suffix(".lock")):
        if path.is_file():
            return load(torch.load(path, weights_only=True))
        value = compute()
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        torch.save(dump(value), tmp)
        os.replace(tmp, path)
        return value
