"""Cache of solved blocks: in memory, and on disk under the user cache directory.

Disk entries are ``.npz`` files written atomically (temporary file + ``os.replace``) with a metadata
record holding a SHA-256 of the arrays.  A missing, truncated or tampered entry is recomputed, never
trusted.  ``LAB_CACHE_DIR`` overrides the directory; ``LAB_CACHE_DIR=off`` disables the disk cache.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

FORMAT = 1
_memory: dict[str, dict[str, np.ndarray]] = {}


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


def get(key: str, use_disk: bool = True) -> dict[str, np.ndarray] | None:
    if key in _memory:
        return _memory[key]
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
    _memory[key] = arrays
    return arrays


def put(key: str, arrays: dict[str, np.ndarray], use_disk: bool = True) -> None:
    _memory[key] = arrays
    directory = cache_dir() if use_disk else None
    if directory is None:
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        meta = json.dumps({"format": FORMAT, "key": key, "sha256": _digest(arrays)})
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npz", dir=directory)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, __meta__=np.array(meta), **arrays)
            os.replace(tmp, directory / f"{key}.npz")
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        pass  # a read-only or full cache directory only costs the speed-up


def clear_memory() -> None:
    _memory.clear()
