"""Saving and reloading training runs: ``config.json`` + ``metrics.csv`` (open formats) in one directory.

``RUNS`` declares them; the writing, naming, listing and checking live in ``lab.runstore`` (one store for every
kind of run), so a run is written atomically under a unique name and checked field by field when read.
``metrics.csv`` has one row per (strategy, run, step, layer) with the columns ``strategy, run, step, layer,
dist_from_init, dist_from_E, loss, accuracy, diverged``; ``layer == "total"`` combines the layers that have an
equivariant subspace.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import runstore

KIND = "dynamics"
COLUMNS = ["strategy", "run", "step", "layer", "dist_from_init", "dist_from_E", "loss", "accuracy", "diverged"]
#: what ``save_run`` writes: ``COLUMNS`` and ``free_fraction`` (``rpp``'s ‖A_free‖/‖A‖, empty for the other strategies;
#: not required when read), ``diverged`` kept last (a truncated last row is then caught by its check)
WRITTEN = COLUMNS[:-1] + ["free_fraction", "diverged"]
#: config.json's fields this code or the dashboard relies on: name -> (type, required)
FIELDS = {"config": ("object", True), "status": ("string", True), "steps_done": ("integer", True),
          "experiment": ("object", False), "layers": ("list", False), "dim_E_over_dim_L": ("number?", False),
          "seconds": ("number?", False), "steps_per_second": ("number?", False), "device": ("string", False),
          "diverged_at": ("object", False), "summary": ("object", False)}


RUNS = runstore.RunKind(KIND, FIELDS, env_sub=None, tables=(
    runstore.Table("metrics.csv", tuple(COLUMNS), integer=("run", "step"),
                   numeric=("dist_from_init", "dist_from_E", "loss", "accuracy"), boolean=("diverged",),
                   written=tuple(WRITTEN)),))


def results_dir(path=None) -> Path:
    """``path``, else ``LAB_RESULTS_DIR``, else the per-user data directory's ``dynamics``."""
    return RUNS.directory(path)


def save_run(trainer, directory=None, status: str = "finished", name: str | None = None) -> Path:
    """Write the trainer's config and metrics atomically; returns the run directory.

    ``name`` replaces the experiment's name in the directory's name (which stays unique: it is stamped and
    never overwrites another run)."""
    meta = {
        "config": trainer.config.to_dict(), "status": status, "steps_done": trainer.step,
        "experiment": {"name": trainer.exp.name, "group": str(trainer.exp.group), "description": trainer.exp.description},
        "layers": [{"name": n, "dim_E": e, "dim_L": l, "equivariant_subspace": q}
                   for n, (e, l), q in zip(trainer.layer_names, trainer.layer_dims, trainer.equivariant_layers)],
        "dim_E_over_dim_L": trainer.dim_ratio, "seconds": trainer.seconds,
        "steps_per_second": trainer.steps_per_second, "device": str(trainer.device),
        "diverged_at": {s: v for s, v in trainer.diverged_at.items()}, "summary": trainer.summary(),
    }
    return RUNS.save(meta, {"metrics.csv": trainer.records}, directory=directory,
                     label=name or trainer.config.experiment)


@dataclass
class SavedRun:
    path: Path
    meta: dict
    metrics: pd.DataFrame

    @property
    def config(self) -> dict:
        return self.meta["config"]


def load_run(path, root=None) -> SavedRun:
    """Read a run directory written by ``save_run``; ``RunFileError`` (a ``LabError``) names the file and the
    field when it is not one.  With ``root`` (what a dashboard passes: its runs directory), ``path`` may be a
    run's name and anything outside ``root`` is refused (``runstore.resolve_run``)."""
    run = RUNS.read(path, root)
    return SavedRun(run.path, run.meta, run.tables["metrics.csv"])


def list_runs(directory=None, trained_only: bool = False) -> list[Path]:
    """Saved run directories, newest first (never a half-written one).  ``trained_only``: leave out runs stopped
    before their first step (``steps_done`` 0: nothing to draw; what the panes list).  A run whose record cannot
    be read stays listed, so that loading it says what is wrong."""
    runs = RUNS.list(directory)
    return [p for p in runs if not trained_only or runstore.meta_number(p, "steps_done") != 0]
