"""Saving and reloading sharing-discovery runs: ``config.json`` + ``history.csv`` + ``A_history.npz``.

Written under a temporary name and renamed into place (atomic), beside the dynamics runs' format.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import LabError


def sharing_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/sharing``, else the per-user data directory's ``sharing``."""
    if directory:
        return Path(directory)
    if os.environ.get("LAB_RESULTS_DIR"):
        return Path(os.environ["LAB_RESULTS_DIR"]) / "sharing"
    import platformdirs

    return Path(platformdirs.user_data_dir("symmetry-lab")) / "sharing"


def list_sharing(directory=None) -> list[Path]:
    root = sharing_dir(directory)
    if not root.exists():
        return []
    runs = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and (p / "config.json").exists()]
    return sorted(runs, key=lambda p: p.stat().st_mtime, reverse=True)


def save_sharing(config: dict, history: list[dict], snapshots: list[np.ndarray], summary: dict,
                 directory=None, status: str = "finished") -> Path:
    root = sharing_dir(directory)
    root.mkdir(parents=True, exist_ok=True)
    name = f"{time.strftime('%Y%m%d-%H%M%S')}-{config.get('task', 'run')}-{os.getpid()}-{len(history)}"
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=root))
    try:
        (tmp / "config.json").write_text(json.dumps({"config": config, "status": status, "summary": summary},
                                                    indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))
        pd.DataFrame(history).to_csv(tmp / "history.csv", index=False)
        if snapshots:
            np.savez_compressed(tmp / "A_history.npz", A=np.stack(snapshots))
        final = root / name
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


@dataclass
class SavedSharing:
    path: Path
    meta: dict
    history: pd.DataFrame
    snapshots: np.ndarray | None


def load_sharing(path) -> SavedSharing:
    path = Path(path)
    try:
        meta = json.loads((path / "config.json").read_text())
        history = pd.read_csv(path / "history.csv")
        snaps = None
        if (path / "A_history.npz").exists():
            with np.load(path / "A_history.npz", allow_pickle=False) as z:
                snaps = z["A"]
    except (OSError, ValueError, KeyError) as err:
        raise LabError(f"{path} is not a saved sharing run: {err}") from err
    return SavedSharing(path, meta, history, snaps)
