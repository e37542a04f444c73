"""Saving and reloading ``rpp`` runs: ``config.json`` + ``results.csv`` + ``curves.csv``.

``RUNS`` declares what an rpp run holds; writing, naming, listing and checking are ``lab.runstore``'s.
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
FIELDS = runstore.META_FIELDS
RUNS = runstore.RunKind(
    KIND, tables=(runstore.Table("results.csv", ("model", "seed", "test_mse"), integer=("seed",),
                                 numeric=("test_mse",)),
                  runstore.Table("curves.csv")),
    label=lambda c: f"{c.get('task', 'rpp')}-{c.get('symmetry', '')}")


def rpp_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/rpp``, else the per-user data directory's ``rpp``."""
    return RUNS.directory(directory)


def list_rpp(directory=None) -> list[Path]:
    return RUNS.list(directory)


def save_rpp(config: dict, rows: list[dict], curves: list[dict], summary: dict, directory=None,
             status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``rpp_dir(directory)``; returns its directory."""
    flat = [{k: (" ".join(f"{x:.6g}" for x in v) if isinstance(v, (list, tuple)) else v) for k, v in r.items()}
            for r in rows]
    return RUNS.save({"config": config, "status": status, "summary": summary},
                     {"results.csv": flat, "curves.csv": curves}, directory=directory)


@dataclass
class SavedRPP:
    path: Path
    meta: dict
    results: pd.DataFrame
    curves: pd.DataFrame


def load_rpp(path, root=None) -> SavedRPP:
    """Read a run written by ``save_rpp``; ``RunFileError`` names the file and field when it is not one.  With
    ``root``, only a run inside that directory."""
    run = RUNS.read(path, root)
    return SavedRPP(run.path, run.meta, run.tables["results.csv"], run.tables["curves.csv"])
