"""Cache of solved blocks: in memory, and on disk under the user cache directory.

The in-memory cache is bounded: least recently used entries are dropped once the arrays held exceed
``LAB_CACHE_MEMORY`` (default 256 MB; ``"1GB"``, ``"0"`` for none), and a lock makes it safe to share
between threads.  Disk entries are ``.npz`` files written atomically (temporary file + ``os.replace``)
with a metadata record holding a SHA-256 of the arrays.  A missing, truncated or tampered entry is recomputed, never
trusted, and so is one whose basis fails the caller's equivariance check (``get(..., verify=)``).  Keys are
hashes of the whole request (``lab.solvers.cache_key``).  ``LAB_CACHE_DIR`` overrides the directory; ``LAB_CACHE_DIR=off`` disables the disk cache.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from .memory import parse_bytes

FORMAT = 1
DEFAULT_MEMORY = 256 * 2**20
_memory: OrderedDict[str, tuple[dict[str, np.ndarray], int]] = OrderedDict()
_held = 0  # bytes of the arrays in _memory
_lock = threading.RLock()


def memory_budget() -> int:
    """Bytes the in-memory cache may hold: ``$LAB_CACHE_MEMORY`` or 256 MB."""
    env = os.environ.get("LAB_CACHE_MEMORY")
    return parse_bytes(env) if env else DEFAULT_MEMORY


def memory_usage() -> tuple[int, int]:
    """(entries, bytes) held in memory now."""
    with _lock:
        return len(_memory), _held


def _remember(key: str, arrays: dict[str, np.ndarray]) -> None:
    global _held
    size = sum(np.asarray(a).nbytes for a in arrays.values())
    budget = memory_budget()
    with _lock:
        old = _memory.pop(key, None)
        if old is not None:
            _held -= old[1]
        if size > budget:
            return
        _memory[key] = (arrays, size)
        _held += size
        while _held > budget:
            _, (_, dropped) = _memory.popitem(last=False)
            _held -= dropped


def _recall(key: str):
    with _lock:
        entry = _memory.get(key)
        if entry is None:
            return None
        _memory.move_to_end(key)
        return entry[0]


def cache_dir() -> Path | None:
    env = os.environ.get("LAB_CACHE_DIR")
    if env and env.lower() == "off":
        return None
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("symmetry-lab")) / "bases"


def _digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}|{a.dtype.str}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def get(key: str, use_disk: bool = True, verify=None) -> dict[str, np.ndarray] | None:
    """The arrays cached under ``key``, or ``None``.  An entry read from disk must match its format, key and
    SHA-256 and then pass ``verify(arrays)`` (the solvers' equivariance check), else it counts as missing and
    is recomputed.  Entries in memory were computed or verified by this process and are not checked again."""
    hit = _recall(key)
    if hit is not None:
        return hit
    directory = cache_dir() if use_disk else None
    if directory is None:
        return None
    path = directory / f"{key}.npz"
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["__meta__"]))
            arrays = {name: f[name] for name in f.files if name != "__meta__"}
        if meta.get("format") != FORMAT or meta.get("key") != key or meta.get("sha256") != _digest(arrays):
            return None
    except Exception:  # corrupt or foreign file: recompute
        return None
    if verify is not None and not verify(arrays):
        return None
    _remember(key, arrays)
    return arrays


STALE_SECONDS = 15 * 60


def _remove_stale(directory: Path) -> None:
    """Delete ``.tmp-*`` files that a killed process left mid-write (untouched for ``STALE_SECONDS``; a
    younger one may be a write in progress).  They are never read: ``get`` only opens ``KEY.npz``."""
    now = time.time()
    for p in directory.glob(".tmp-*"):
        try:
            if now - p.stat().st_mtime > STALE_SECONDS:
                p.unlink()
        except OSError:
            pass


def put(key: str, arrays: dict[str, np.ndarray], use_disk: bool = True) -> None:
    _remember(key, arrays)
    directory = cache_dir() if use_disk else None
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _remove_stale(directory)
        meta = json.dumps({"format": FORMAT, "key": key, "sha256": _digest(arrays)})
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npz", dir=directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, __meta__=np.array(meta), **arrays)
                fh.flush()
                os.fsync(fh.fileno())  # on disk before it gets its name: a crash leaves old or new, never half
            os.replace(tmp, directory / f"{key}.npz")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a read-only or full cache directory only costs the speed-up


def clear_memory() -> None:
    global _held
    with _lock:
        _memory.clear()
        _held = 0
