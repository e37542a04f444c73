"""Saving and reloading ``lab bound`` runs: ``config.json`` (``config``, ``status``, ``summary``: the ``--json``
object) + ``dims.csv`` (one row per subspace dimension).  ``RUNS`` declares them; writing, naming, listing and
checking are ``lab.runstore``'s."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import runstore

KIND = "bounds"
FIELDS = runstore.META_FIELDS
#: the columns of ``dims.csv``
COLUMNS = ("d", "train_error", "train_error_float", "test_error", "coded_bits", "ideal_bits", "compressed_bits",
           "kl", "bound", "levels", "levels_used", "seconds")
_INTEGER = ("d", "coded_bits", "ideal_bits", "levels", "levels_used")
RUNS = runstore.RunKind(
    KIND, tables=(runstore.Table("dims.csv", COLUMNS, integer=_INTEGER,
                                 numeric=tuple(c for c in COLUMNS if c not in _INTEGER), written=COLUMNS),),
    label=lambda c: f"{c.get('data', 'digits')}-{c.get('model', '')}")


def bounds_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/bounds``, else the per-user data directory's ``bounds``."""
    return RUNS.directory(directory)


def list_bounds(directory=None) -> list[Path]:
    return RUNS.list(directory)


def save_bounds(config: dict, summary: dict, rows: list[dict], directory=None, status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``bounds_dir(directory)``; returns its directory."""
    return RUNS.save({"config": config, "status": status, "summary": summary}, {"dims.csv": rows}, directory=directory)


@dataclass
class SavedBounds:
    path: Path
    meta: dict
    dims: pd.DataFrame


def load_bounds(path, root=None) -> SavedBounds:
    """Read a run written by ``save_bounds``; ``RunFileError`` names the file and field when it is not one."""
    run = RUNS.read(path, root)
    return SavedBounds(run.path, run.meta, run.tables["dims.csv"])
