"""Saving and reloading ``emlp`` runs: ``config.json`` + ``results.csv`` + ``curves.csv``.

The writing, naming, listing and checking live in ``lab.runstore``; this module says what an emlp run holds.
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
FIELDS = {"config": ("object", True), "status": ("string", True), "summary": ("object", True)}


def emlp_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/emlp``, else the per-user data directory's ``emlp``."""
    return runstore.runs_root(directory, env_sub="emlp", user_sub="emlp")


def list_emlp(directory=None) -> list[Path]:
    return runstore.list_run_dirs(emlp_dir(directory))


def save_emlp(config: dict, rows: list[dict], curves: list[dict], summary: dict, directory=None,
              status: str = "finished", rollouts: dict | None = None) -> Path:
    """Write a run atomically under a unique name in ``emlp_dir(directory)``; returns its directory.
    ``rollouts``: ``{"rows", "times", "states", "lz"}`` arrays (the module docstring), or None."""
    files = {"results.csv": lambda p: pd.DataFrame(rows).to_csv(p, index=False),
             "curves.csv": lambda p: pd.DataFrame(curves).to_csv(p, index=False)}
    if rollouts is not None:
        files["rollouts.npz"] = lambda p: np.savez_compressed(p, **{k: np.asarray(v) for k, v in rollouts.items()})
    meta = {"config": config, "status": status, "summary": summary}
    return runstore.write_run(emlp_dir(directory), config.get("task", "emlp"), KIND, meta, files)


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
    path = runstore.resolve_run(path, root) if root is not None else Path(path)
    meta = runstore.read_meta(path, KIND, FIELDS)
    results = runstore.read_csv(path, "results.csv")
    return SavedEMLP(path, meta, results, runstore.read_csv(path, "curves.csv"), _rollouts(path, len(results)))


def _rollouts(path: Path, n_rows: int) -> dict | None:
    """``rollouts.npz`` checked: shapes that agree with each other and row indices inside ``results.csv``."""
    rows = runstore.read_npz(path, "rollouts.npz", "rows", ndim=1)
    if rows is None:
        return None
    out = {"rows": rows, "times": runstore.read_npz(path, "rollouts.npz", "times", ndim=1),
           "states": runstore.read_npz(path, "rollouts.npz", "states", ndim=4),
           "lz": runstore.read_npz(path, "rollouts.npz", "lz", ndim=3)}
    n, T = len(rows), len(out["times"])
    file = Path(path) / "rollouts.npz"
    if out["states"].shape != (n, 2, T, 12) or out["lz"].shape != (n, 2, T):
        raise runstore.RunFileError(file, "states", f"shapes {out['states'].shape} and {out['lz'].shape} do not "
                                                    f"fit {n} rows of {T} times")
    if not np.issubdtype(rows.dtype, np.integer) or (n and (rows.min() < 0 or rows.max() >= n_rows)):
        raise runstore.RunFileError(file, "rows", f"should be row numbers of results.csv (0 … {n_rows - 1})")
    return out
