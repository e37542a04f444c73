"""Saving and reloading ``lab ensembles`` runs: ``config.json`` (``config``, ``status``, ``summary``: the ``--json``
object) + ``records.csv`` (every recorded step, input set and ensemble size: the metrics with their standard
deviations over the resamples).  Writing, naming, listing and checking live in ``lab.runstore``."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import runstore
from ..errors import RunFileError

KIND = "ensembles"
FIELDS = {"config": ("object", True), "status": ("string", True), "summary": ("object", True)}
#: the columns of ``records.csv``
COLUMNS = ("step", "inputs", "size", "resamples", "equivariance_error", "equivariance_error_std", "divergence",
           "divergence_std", "orbit_same_prediction", "orbit_same_prediction_std")


def ensembles_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/ensembles``, else the per-user data directory's ``ensembles``."""
    return runstore.runs_root(directory, env_sub="ensembles", user_sub="ensembles")


def list_ensembles(directory=None) -> list[Path]:
    return runstore.list_run_dirs(ensembles_dir(directory))


def save_ensembles(config: dict, summary: dict, records: list[dict], directory=None, status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``ensembles_dir(directory)``; returns its directory."""
    frame = pd.DataFrame(records, columns=list(COLUMNS))
    meta = {"config": config, "status": status, "summary": summary}
    label = f"{config.get('task', 'digits')}-{config.get('setting', '')}-M{config.get('members', '')}"
    return runstore.write_run(ensembles_dir(directory), label, KIND, meta,
                              {"records.csv": lambda p: frame.to_csv(p, index=False)})


@dataclass
class SavedEnsembles:
    path: Path
    meta: dict
    records: pd.DataFrame


def load_ensembles(path, root=None) -> SavedEnsembles:
    """Read a run written by ``save_ensembles``; ``RunFileError`` names the file and field when it is not one."""
    path = runstore.resolve_run(path, root) if root is not None else Path(path)
    if not path.is_dir():
        raise RunFileError(path, None, "no such saved run")
    from ..limits import check_load

    check_load(path)
    meta = runstore.read_meta(path, KIND, FIELDS)
    records = runstore.read_csv(path, "records.csv", columns=COLUMNS, integer=("step", "size", "resamples"),
                                numeric=tuple(c for c in COLUMNS if c not in ("step", "inputs", "size", "resamples")))
    return SavedEnsembles(path, meta, records)
