"""Run directories shared by the dynamics and sharing stores: atomic creation and listing."""
from __future__ import annotations

import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_dir(root: Path, name: str):
    """Yield a temporary directory inside ``root``; on success it is renamed to ``root/name`` in one step
    (``os.replace``), so readers never see half a run; on failure it is removed."""
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=root))
    try:
        yield tmp
        os.replace(tmp, root / name)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def list_run_dirs(root: Path) -> list[Path]:
    """Finished run directories under ``root`` (those with a config.json), newest first."""
    if not root.exists():
        return []
    runs = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and (p / "config.json").exists()]
    return sorted(runs, key=lambda p: p.stat().st_mtime, reverse=True)
