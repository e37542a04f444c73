"""Saving and reloading ``lab ensembles`` runs: ``config.json`` (``config``, ``status``, ``summary``: the ``--json``
object) + ``records.csv`` (every recorded step, input set and ensemble size: the metrics with their standard
deviations over the resamples).  ``RUNS`` declares them; writing, naming, listing and checking are
``lab.runstore``'s."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import runstore

KIND = "ensembles"
FIELDS = runstore.META_FIELDS
#: the columns of ``records.csv``
COLUMNS = ("step", "inputs", "size", "resamples", "equivariance_error", "equivariance_error_std", "divergence",
           "divergence_std", "orbit_same_prediction", "orbit_same_prediction_std")
RUNS = runstore.RunKind(
    KIND, tables=(runstore.Table("records.csv", COLUMNS, integer=("step", "size", "resamples"),
                                 numeric=tuple(c for c in COLUMNS if c not in ("step", "inputs", "size", "resamples")),
                                 written=COLUMNS),),
    label=lambda c: f"{c.get('task', 'digits')}-{c.get('setting', '')}-M{c.get('members', '')}")


def ensembles_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/ensembles``, else the per-user data directory's ``ensembles``."""
    return RUNS.directory(directory)


def list_ensembles(directory=None) -> list[Path]:
    return RUNS.list(directory)


def save_ensembles(config: dict, summary: dict, records: list[dict], directory=None, status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``ensembles_dir(directory)``; returns its directory."""
    return RUNS.save({"config": config, "status": status, "summary": summary}, {"records.csv": records},
                     directory=directory)


@dataclass
class SavedEnsembles:
    path: Path
    meta: dict
    records: pd.DataFrame


def load_ensembles(path, root=None) -> SavedEnsembles:
    """Read a run written by ``save_ensembles``; ``RunFileError`` names the file and field when it is not one."""
    run = RUNS.read(path, root)
    return SavedEnsembles(run.path, run.meta, run.tables["records.csv"])
