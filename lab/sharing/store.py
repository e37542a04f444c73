"""Saving and reloading sharing-discovery runs: ``config.json`` + ``history.csv`` + ``A_history.npz``.

The writing, naming, listing and checking live in ``lab.runstore`` (one store for every kind of run); this
module says only what a sharing run holds.  ``config.json`` has ``config`` (the settings), ``status`` and
``summary``; ``history.csv`` one row per outer step (empty for a run stopped before its first);
``A_history.npz`` the snapshots of A as one array ``A`` (steps, K, blocks), when there are any.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import runstore
from .defaults import RANK_COLUMNS

KIND = "sharing"
#: config.json's fields this code relies on: name -> (type, required)
FIELDS = {"config": ("object", True), "status": ("string", True), "summary": ("object", True)}


def sharing_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/sharing``, else the per-user data directory's ``sharing``."""
    return runstore.runs_root(directory, env_sub="sharing", user_sub="sharing")


def list_sharing(directory=None, trained_only: bool = False) -> list[Path]:
    """Saved sharing runs, newest first (never a half-written one).  ``trained_only``: leave out runs stopped
    before their first recorded step (an empty ``history.csv``: nothing to draw; what the pane lists)."""
    runs = runstore.list_run_dirs(sharing_dir(directory))
    return [p for p in runs if not trained_only or runstore.has_rows(p / "history.csv")]


def save_sharing(config: dict, history: list[dict], snapshots: list[np.ndarray], summary: dict,
                 directory=None, status: str = "finished", U: np.ndarray | None = None) -> Path:
    """Write a run atomically under a unique name in ``sharing_dir(directory)``; returns its directory.  ``U``:
    method 2's learned symmetry matrix (``U.npz``), so that a loaded run shows its picture."""
    files = {"history.csv": lambda p: pd.DataFrame(history).to_csv(p, index=False)}
    if U is not None:
        files["U.npz"] = lambda p: np.savez_compressed(p, U=np.asarray(U, dtype=float))
    if len(snapshots):
        files["A_history.npz"] = lambda p: np.savez_compressed(p, A=np.stack(snapshots))
    meta = {"config": config, "status": status, "summary": summary}
    return runstore.write_run(sharing_dir(directory), config.get("task", "run"), KIND, meta, files)


@dataclass
class SavedSharing:
    path: Path
    meta: dict
    history: pd.DataFrame
    snapshots: np.ndarray | None
    U: np.ndarray | None = None  # method 2's learned U (runs saved before it was: None)


def load_sharing(path, root=None) -> SavedSharing:
    """Read a run written by ``save_sharing``; ``RunFileError`` (a ``LabError``) names the file and field when
    it is not one.  With ``root`` (what a dashboard passes: its runs directory), ``path`` may be a run's name
    and anything outside ``root`` is refused (``runstore.resolve_run``)."""
    path = runstore.resolve_run(path, root) if root is not None else Path(path)
    meta = runstore.read_meta(path, KIND, FIELDS)
    history = runstore.read_csv(path, "history.csv")
    config = meta.get("config") if isinstance(meta.get("config"), dict) else {}
    form = config.get("rank_penalty", "nuclear")
    named = RANK_COLUMNS.get(form) if isinstance(form, str) else None
    if named and named != "nuclear" and "nuclear" in history.columns and named not in history.columns:
        history = history.rename(columns={"nuclear": named})  # written before the column had its own name
    snaps = runstore.read_npz(path, "A_history.npz", "A", ndim=3)
    U = runstore.read_npz(path, "U.npz", "U", ndim=2)
    return SavedSharing(path, meta, history, snaps, U)
