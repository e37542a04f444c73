"""Saving and reloading ``lab lie-derivative`` runs, the measured model's weights included: ``config.json`` +
``layers.csv`` + ``generators.csv`` + ``weights.npz``.

``RUNS`` declares what a meter run holds; writing, naming, listing and checking are ``lab.runstore``'s.
``config.json`` has ``config``, ``status``, ``summary`` (the ``--json`` object), ``model_kind`` (cnn, emlp, mlp) and
``preset`` (the ``lab.meter.family.MODELS`` entry the model was built as); ``layers.csv`` the layer-wise rows
(``--layerwise``; else no rows), ``generators.csv`` the presets' per-generator rows; ``weights.npz`` the model's
``state_dict`` as plain arrays (``numpy.savez``, read with ``allow_pickle=False``: loading a run never runs code).
A saved model is rebuilt from its preset and seed, then its weights are loaded strictly: a missing, extra or
misshapen array is a ``RunFileError`` naming ``weights.npz`` and the array.  That is what ``--model PATH`` measures.
"""
from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .. import runstore
from ..errors import RunFileError

KIND = "meter"
FIELDS = {**runstore.META_FIELDS, "model_kind": ("string", True), "preset": ("string", True)}
WEIGHTS = "weights.npz"
RUNS = runstore.RunKind(KIND, FIELDS, tables=(
    runstore.Table("layers.csv", ("name", "contribution"), numeric=("contribution",)),
    runstore.Table("generators.csv", ("index", "lee"), integer=("index",), numeric=("lee",))))


def meter_dir(directory=None) -> Path:
    """``directory``, else ``$LAB_RESULTS_DIR/meter``, else the per-user data directory's ``meter``."""
    return RUNS.directory(directory)


def list_meter(directory=None) -> list[Path]:
    return RUNS.list(directory)


def save_meter(config: dict, summary: dict, model_kind: str, preset: str, net=None, directory=None,
               status: str = "finished") -> Path:
    """Write a run atomically under a unique name in ``meter_dir(directory)``; returns its directory.  ``net`` (a
    torch module, or None when the run stopped before it had one): its weights go to ``weights.npz``."""
    layers = [{k: v for k, v in r.items()} for r in summary.get("layers", [])]
    generators = list(summary.get("generators", []))
    tables = {"layers.csv": pd.DataFrame(layers, columns=None if layers else ["name", "contribution"]),
              "generators.csv": pd.DataFrame(generators, columns=None if generators else ["index", "lee"])}
    files = {}
    if net is not None:
        arrays = {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}
        files[WEIGHTS] = lambda p: np.savez(p, **arrays)  # uncompressed, any names: not a declared Arrays file
    meta = {"config": config, "status": status, "summary": summary, "model_kind": model_kind, "preset": preset}
    label = f"{config.get('model', 'meter') if preset == config.get('model') else preset}-{config.get('transform', '')}"
    return RUNS.save(meta, tables, directory=directory, label=label, files=files)


@dataclass
class SavedMeter:
    path: Path
    meta: dict
    layers: pd.DataFrame
    generators: pd.DataFrame
    weights: dict | None = field(default=None, repr=False)  # name -> array (with ``weights=True``)
    module: object = field(default=None, repr=False)  # the rebuilt torch module, once ``model_module`` made it

    @property
    def kind(self) -> str:
        return self.meta["model_kind"]

    @property
    def model(self) -> str:
        """The preset the saved model was built as."""
        return self.meta["preset"]

    @property
    def seed(self) -> int:
        """The seed of its data split (and weights)."""
        return int(self.meta["config"].get("seed", 0))

    def model_module(self, build):
        """The saved model as a torch module: ``build(preset, seed)`` makes it afresh (the experiments layer knows
        the presets), then its weights are loaded strictly."""
        import torch

        if self.weights is None:
            raise RunFileError(self.path / WEIGHTS, None, "missing: this run kept no model (it stopped before one)")
        net = build(self.model, self.seed)
        own = net.state_dict()
        file = self.path / WEIGHTS
        for k in own:
            if k not in self.weights:
                raise RunFileError(file, k, "array missing")
        for k, v in self.weights.items():
            if k not in own:
                raise RunFileError(file, k, f"is not a weight of {self.model}")
            if tuple(v.shape) != tuple(own[k].shape):
                raise RunFileError(file, k, f"has shape {tuple(v.shape)}, {self.model} needs {tuple(own[k].shape)}")
        net.load_state_dict({k: torch.as_tensor(v).to(own[k].dtype) for k, v in self.weights.items()})
        return net.eval()


def _read_weights(path: Path) -> dict | None:
    file = path / WEIGHTS
    if not file.exists():
        return None
    try:
        with np.load(file, allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise RunFileError(file, None, f"is not a readable npz file, truncated? ({err})") from err
    for k, v in out.items():
        if not np.issubdtype(v.dtype, np.number):
            raise RunFileError(file, k, f"should hold numbers, holds {v.dtype}")
    return out


def load_meter(path, root=None, weights: bool = False) -> SavedMeter:
    """Read a run written by ``save_meter``; ``RunFileError`` names the file and field when it is not one.  With
    ``root``, only a run inside that directory; with ``weights``, the model's arrays too."""
    run = RUNS.read(path, root)
    path, meta = run.path, run.meta
    if meta["model_kind"] not in ("cnn", "emlp", "mlp"):
        raise RunFileError(path / runstore.META, "model_kind", f"is {meta['model_kind']!r}: expected cnn, emlp or mlp")
    return SavedMeter(path, meta, run.tables["layers.csv"], run.tables["generators.csv"],
                      _read_weights(path) if weights else None)
