"""Saving and reloading ``lab bound`` runs: ``config.json`` (``config``, ``status``, ``summary``: the ``--json``
object) + ``dims.csv`` (one row per subspace dimension).  Writing, naming, listing and checking live in
``lab.runstore``."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import runstore
from ..errors import RunFileError

KIND = "bounds"
FIELDS = {"config": ("object", True), "status": ("string", True), "summary": ("object", True)}
#: the columns of ``dims.csv``
COLUMNS = ("d", "train_error", "train_error_float", "test_error", "coded_bits", "ideal_bits", "compressed_bits",
           "kl", "bound", "levels", "levels_used", "seconds")


def bounds_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/bounds``, else the per-user data directory's ``bounds``."""
    return runstore.runs_root(directory, env_sub="bounds", user_sub="bounds")


def list_bounds(directory=None) -> list[Path]:
    return runstore.list_run_dirs(bounds_dir(directory))


def save_bounds(config: dict, summary: dict, rows: list[dict], directory=None, status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``bounds_dir(directory)``; returns its directory."""
    frame = pd.DataFrame([{c: r.get(c) for c in COLUMNS} for r in rows], columns=list(COLUMNS))
    meta = {"config": config, "status": status, "summary": summary}
    label = f"{config.get('data', 'digits')}-{config.get('model', '')}"
    return runstore.write_run(bounds_dir(directory), label, KIND, meta,
                              {"dims.csv": lambda p: frame.to_csv(p, index=False)})


@dataclass
class SavedBounds:
    path: Path
    meta: dict
    dims: pd.DataFrame


def load_bounds(path, root=None) -> SavedBounds:
    """Read a run written by ``save_bounds``; ``RunFileError`` names the file and field when it is not one."""
    path = runstore.resolve_run(path, root) if root is not None else Path(path)
    if not path.is_dir():
        raise RunFileError(path, None, "no such saved run")
    from ..limits import check_load

    check_load(path)
    meta = runstore.read_meta(path, KIND, FIELDS)
    dims = runstore.read_csv(path, "dims.csv", columns=COLUMNS, integer=("d", "coded_bits", "ideal_bits", "levels",
                                                                        "levels_used"),
                             numeric=tuple(c for c in COLUMNS if c not in ("d", "coded_bits", "ideal_bits", "levels",
                                                                           "levels_used")))
    return SavedBounds(path, meta, dims)
