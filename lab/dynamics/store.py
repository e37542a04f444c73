"""Saving and reloading training runs: ``config.json`` + ``metrics.csv`` (open formats) in one directory.

A run directory is written under a temporary name and renamed into place, so a reader never sees half a
run.  ``metrics.csv`` has one row per (strategy, run, step, layer) with the columns ``strategy, run,
step, layer, dist_from_init, dist_from_E, loss, accuracy, diverged``; ``layer == "total"`` combines the
layers that have an equivariant subspace.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import LabError
from ..runstore import atomic_dir, list_run_dirs

COLUMNS = ["strategy", "run", "step", "layer", "dist_from_init", "dist_from_E", "loss", "accuracy", "diverged"]


def results_dir(path=None) -> Path:
    """``path``, else ``LAB_RESULTS_DIR``, else the per-user data directory."""
    if path:
        return Path(path)
    if os.environ.get("LAB_RESULTS_DIR"):
        return Path(os.environ["LAB_RESULTS_DIR"])
    import platformdirs

    return Path(platformdirs.user_data_dir("symmetry-lab")) / "dynamics"


def save_run(trainer, directory=None, status: str = "finished", name: str | None = None) -> Path:
    """Write the trainer's config and metrics atomically; returns the run directory."""
    root = results_dir(directory)
    name = name or f"{time.strftime('%Y%m%d-%H%M%S')}-{trainer.config.experiment}-{os.getpid()}-{id(trainer) % 10000}"
    meta = {
        "config": trainer.config.to_dict(), "status": status, "steps_done": trainer.step,
        "experiment": {"name": trainer.exp.name, "group": str(trainer.exp.group), "description": trainer.exp.description},
        "layers": [{"name": n, "dim_E": e, "dim_L": l, "equivariant_subspace": q}
                   for n, (e, l), q in zip(trainer.layer_names, trainer.layer_dims, trainer.equivariant_layers)],
        "dim_E_over_dim_L": trainer.dim_ratio, "seconds": trainer.seconds,
        "steps_per_second": trainer.steps_per_second, "device": str(trainer.device),
        "diverged_at": {s: v for s, v in trainer.diverged_at.items()}, "summary": trainer.summary(),
    }
    with atomic_dir(root, name) as tmp:
        (tmp / "config.json").write_text(json.dumps(meta, indent=1, default=str))
        pd.DataFrame(trainer.records, columns=COLUMNS).to_csv(tmp / "metrics.csv", index=False)
    return root / name


@dataclass
class SavedRun:
    path: Path
    meta: dict
    metrics: pd.DataFrame

    @property
    def config(self) -> dict:
        return self.meta["config"]


def load_run(path) -> SavedRun:
    """Read a run directory written by ``save_run`` (``LabError`` when it is not one)."""
    path = Path(path)
    try:
        meta = json.loads((path / "config.json").read_text())
        metrics = pd.read_csv(path / "metrics.csv")
    except (OSError, ValueError) as err:
        raise LabError(f"{path} is not a saved dynamics run: {err}") from err
    missing = set(COLUMNS) - set(metrics.columns)
    if missing:
        raise LabError(f"{path}/metrics.csv lacks the columns {', '.join(sorted(missing))}")
    return SavedRun(path, meta, metrics)


def list_runs(directory=None) -> list[Path]:
    """Saved run directories, newest first."""
    return list_run_dirs(results_dir(directory))
