"""Saving and reloading ``rpp`` runs: ``config.json`` + ``results.csv`` + ``curves.csv``.

The writing, naming, listing and checking live in ``lab.runstore``; this module says what an rpp run holds.
``config.json`` has ``config``, ``status`` and ``summary`` (the ``lab rpp --json`` object); ``results.csv`` one row
per (model, seed) with its final numbers (RPP-EMLP's ``free_fractions`` as a space-separated list); ``curves.csv``
the train/test curves (one row per recorded epoch and seed).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import runstore

KIND = "rpp"
FIELDS = {"config": ("object", True), "status": ("string", True), "summary": ("object", True)}


def rpp_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/rpp``, else the per-user data directory's ``rpp``."""
    return runstore.runs_root(directory, env_sub="rpp", user_sub="rpp")


def list_rpp(directory=None) -> list[Path]:
    return runstore.list_run_dirs(rpp_dir(directory))


def save_rpp(config: dict, rows: list[dict], curves: list[dict], summary: dict, directory=None,
             status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``rpp_dir(directory)``; returns its directory."""
    flat = [{k: (" ".join(f"{x:.6g}" for x in v) if isinstance(v, (list, tuple)) else v) for k, v in r.items()}
            for r in rows]
    files = {"results.csv": lambda p: pd.DataFrame(flat).to_csv(p, index=False),
             "curves.csv": lambda p: pd.DataFrame(curves).to_csv(p, index=False)}
    meta = {"config": config, "status": status, "summary": summary}
    label = f"{config.get('task', 'rpp')}-{config.get('symmetry', '')}"
    return runstore.write_run(rpp_dir(directory), label, KIND, meta, files)


@dataclass
class SavedRPP:
    path: Path
    meta: dict
    results: pd.DataFrame
    curves: pd.DataFrame


def load_rpp(path, root=None) -> SavedRPP:
    """Read a run written by ``save_rpp``; ``RunFileError`` names the file and field when it is not one.  With
    ``root``, only a run inside that directory."""
    path = runstore.resolve_run(path, root) if root is not None else Path(path)
    meta = runstore.read_meta(path, KIND, FIELDS)
    results = runstore.read_csv(path, "results.csv", columns=("model", "seed", "test_mse"), integer=("seed",),
                                numeric=("test_mse",))
    return SavedRPP(path, meta, results, runstore.read_csv(path, "curves.csv"))
