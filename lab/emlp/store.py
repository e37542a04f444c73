"""Saving and reloading ``emlp`` runs: ``config.json`` + ``results.csv`` + ``curves.csv``.

``RUNS`` declares what an emlp run holds; writing, naming, listing and checking are ``lab.runstore``'s.
``config.json`` has ``config``, ``status`` and ``summary`` (the ``--json`` object); ``results.csv`` one row per
(model, size, seed) with its final numbers; ``curves.csv`` the train/test curves (one row per recorded epoch);
for the pendulum ``rollouts.npz``, one held-out rollout per row: ``rows`` (their indices in ``results.csv``),
``times`` (T,), ``states`` (rows, 2, T, 12: the true and the model's) and ``lz`` (rows, 2, T: L_z along both).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .. import runstore

KIND = "emlp"
FIELDS = runstore.META_FIELDS
ROLLOUTS = "rollouts.npz"
RUNS = runstore.RunKind(KIND, tables=(runstore.Table("results.csv"), runstore.Table("curves.csv")),
                        arrays=(runstore.Arrays(ROLLOUTS, (("rows", 1), ("times", 1), ("states", 4), ("lz", 3))),),
                        label=lambda c: c.get("task", "emlp"))


def emlp_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/emlp``, else the per-user data directory's ``emlp``."""
    return RUNS.directory(directory)


def list_emlp(directory=None) -> list[Path]:
    return RUNS.list(directory)


def save_emlp(config: dict, rows: list[dict], curves: list[dict], summary: dict, directory=None,
              status: str = "finished", rollouts: dict | None = None) -> Path:
    """Write a run atomically under a unique name in ``emlp_dir(directory)``; returns its directory.
    ``rollouts``: ``{"rows", "times", "states", "lz"}`` arrays (the module docstring), or None."""
    return RUNS.save({"config": config, "status": status, "summary": summary},
                     {"results.csv": rows, "curves.csv": curves}, {ROLLOUTS: rollouts}, directory=directory)


@dataclass
class SavedEMLP:
    path: Path
    meta: dict
    results: pd.DataFrame
    curves: pd.DataFrame
    rollouts: dict | None = None  # the pendulum's (``save_emlp``), checked


def load_emlp(path, root=None) -> SavedEMLP:
    """Read a run written by ``save_emlp``; ``RunFileError`` names the file and field when it is not one.  With
    ``root``, only a run inside that directory."""
    run = RUNS.read(path, root)
    results = run.tables["results.csv"]
    return SavedEMLP(run.path, run.meta, results, run.tables["curves.csv"], _rollouts(run, len(results)))


def _rollouts(run: runstore.SavedRun, n_rows: int) -> dict | None:
    """``rollouts.npz`` checked: shapes that agree with each other and row indices inside ``results.csv``."""
    out = {k: run.arrays[k] for k in ("rows", "times", "states", "lz")}
    rows = out["rows"]
    if rows is None:
        return None
    n, T = len(rows), len(out["times"])
    file = run.path / ROLLOUTS
    if out["states"].shape != (n, 2, T, 12) or out["lz"].shape != (n, 2, T):
        raise runstore.RunFileError(file, "states", f"shapes {out['states'].shape} and {out['lz'].shape} do not "
                                                    f"fit {n} rows of {T} times")
    if not np.issubdtype(rows.dtype, np.integer) or (n and (rows.min() < 0 or rows.max() >= n_rows)):
        raise runstore.RunFileError(file, "rows", f"should be row numbers of results.csv (0 … {n_rows - 1})")
    return out
