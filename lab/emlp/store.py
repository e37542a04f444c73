"""Saving and reloading ``emlp`` runs: ``config.json`` + ``results.csv`` + ``curves.csv``.

The writing, naming, listing and checking live in ``lab.runstore``; this module says what an emlp run holds.
``config.json`` has ``config``, ``status`` and ``summary`` (the ``--json`` object); ``results.csv`` one row per
(model, size, seed) with its final numbers; ``curves.csv`` the train/test curves (one row per recorded epoch).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
              status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``emlp_dir(directory)``; returns its directory."""
    files = {"results.csv": lambda p: pd.DataFrame(rows).to_csv(p, index=False),
             "curves.csv": lambda p: pd.DataFrame(curves).to_csv(p, index=False)}
    meta = {"config": config, "status": status, "summary": summary}
    return runstore.write_run(emlp_dir(directory), config.get("task", "emlp"), KIND, meta, files)


@dataclass
class SavedEMLP:
    path: Path
    meta: dict
    results: pd.DataFrame
    curves: pd.DataFrame


def load_emlp(path, root=None) -> SavedEMLP:
    """Read a run written by ``save_emlp``; ``RunFileError`` names the file and field when it is not one.  With
    ``root``, only a run inside that directory."""
    path = runstore.resolve_run(path, root) if root is not None else Path(path)
    meta = runstore.read_meta(path, KIND, FIELDS)
    return SavedEMLP(path, meta, runstore.read_csv(path, "results.csv"), runstore.read_csv(path, "curves.csv"))
