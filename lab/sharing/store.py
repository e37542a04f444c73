"""Saving and reloading sharing-discovery runs: ``config.json`` + ``history.csv`` + ``A_history.npz``.

``RUNS`` declares what a sharing run holds; writing, naming, listing and checking are ``lab.runstore``'s (one
store for every kind of run).  ``config.json`` has ``config`` (the settings), ``status`` and
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
FIELDS = runstore.META_FIELDS
RUNS = runstore.RunKind(KIND, tables=(runstore.Table("history.csv"),),
                        arrays=(runstore.Arrays("A_history.npz", (("A", 3),)), runstore.Arrays("U.npz", (("U", 2),))),
                        label=lambda c: c.get("task", "run"))


def sharing_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/sharing``, else the per-user data directory's ``sharing``."""
    return RUNS.directory(directory)


def list_sharing(directory=None, trained_only: bool = False) -> list[Path]:
    """Saved sharing runs, newest first (never a half-written one).  ``trained_only``: leave out runs stopped
    before their first recorded step (an empty ``history.csv``: nothing to draw; what the pane lists)."""
    return [p for p in RUNS.list(directory) if not trained_only or runstore.has_rows(p / "history.csv")]


def save_sharing(config: dict, history: list[dict], snapshots: list[np.ndarray], summary: dict,
                 directory=None, status: str = "finished", U: np.ndarray | None = None) -> Path:
    """Write a run atomically under a unique name in ``sharing_dir(directory)``; returns its directory.  ``U``:
    method 2's learned symmetry matrix (``U.npz``), so that a loaded run shows its picture."""
    arrays = {"U.npz": None if U is None else {"U": np.asarray(U, dtype=float)},
              "A_history.npz": {"A": np.stack(snapshots)} if len(snapshots) else None}
    return RUNS.save({"config": config, "status": status, "summary": summary}, {"history.csv": history}, arrays,
                     directory=directory)


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
    run = RUNS.read(path, root)
    history = run.tables["history.csv"]
    config = run.meta.get("config") if isinstance(run.meta.get("config"), dict) else {}
    form = config.get("rank_penalty", "nuclear")
    named = RANK_COLUMNS.get(form) if isinstance(form, str) else None
    if named and named != "nuclear" and "nuclear" in history.columns and named not in history.columns:
        history = history.rename(columns={"nuclear": named})  # written before the column had its own name
    return SavedSharing(run.path, run.meta, history, run.arrays["A"], run.arrays["U"])
