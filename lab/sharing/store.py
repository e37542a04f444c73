"""Saving and reloading sharing-discovery runs: ``config.json`` + ``history.csv`` + ``A_history.npz``.

Written under a temporary name and renamed into place (atomic), beside the dynamics runs' format.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import LabError
from ..runstore import atomic_dir, list_run_dirs


def sharing_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/sharing``, else the per-user data directory's ``sharing``."""
    if directory:
        return Path(directory)
    if os.environ.get("LAB_RESULTS_DIR"):
        return Path(os.environ["LAB_RESULTS_DIR"]) / "sharing"
    import platformdirs

    return Path(platformdirs.user_data_dir("symmetry-lab")) / "sharing"


def list_sharing(directory=None) -> list[Path]:
    """Saved sharing runs, newest first."""
    return list_run_dirs(sharing_dir(directory))


def save_sharing(config: dict, history: list[dict], snapshots: list[np.ndarray], summary: dict,
                 directory=None, status: str = "finished") -> Path:
    root = sharing_dir(directory)
    name = f"{time.strftime('%Y%m%d-%H%M%S')}-{config.get('task', 'run')}-{os.getpid()}-{len(history)}"
    with atomic_dir(root, name) as tmp:
        (tmp / "config.json").write_text(json.dumps({"config": config, "status": status, "summary": summary},
                                                    indent=1, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))
        pd.DataFrame(history).to_csv(tmp / "history.csv", index=False)
        if snapshots:
            np.savez_compressed(tmp / "A_history.npz", A=np.stack(snapshots))
    return root / name


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
