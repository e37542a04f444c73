"""The meter family's models: the digits CNN variants it trains and the matrix-group presets it builds (EMLPs and
same-size MLPs), by name.  Torch-free to import (``lab --help`` and ``lab audit``'s help list the presets); torch
loads when ``build_model`` makes one."""
from __future__ import annotations

from dataclasses import dataclass

#: ``lab.meter.cnn.MODELS`` (spelled here so that the list imports no torch; tests/test_meter_family.py checks them)
CNN_MODELS = ("cnn-stride", "cnn-blur", "cnn-smooth", "cnn-blur-smooth")
#: the CNN's channels and training (``lab.meter.cnn.DEFAULT_WIDTH``, ``DEFAULT_EPOCHS``, ``DEFAULT_BATCH``,
#: ``DEFAULT_LR``: the aliasing study's, so that a model trained here is the study's model of that seed)
WIDTH, EPOCHS, BATCH, LR = 16, 100, 64, 3e-3
#: the presets' width and depth: small, so that a measurement takes a second
PRESET_CHANNELS, PRESET_LAYERS = 32, 2


@dataclass(frozen=True)
class Preset:
    """A matrix-group model of the meter: an EMLP (or the same-size MLP) ``rep_in -> rep_out`` over ``group``."""

    kind: str  # "emlp" or "mlp"
    group: str
    rep_in: str
    rep_out: str
    description: str


PRESETS: dict[str, Preset] = {
    "emlp-o3": Preset("emlp", "O(3)", "2*V", "Scalar+V", "EMLP 2*V -> Scalar+V over O(3) (3 generators, a reflection)"),
    "emlp-so2": Preset("emlp", "SO(2)", "2*V", "Scalar+V", "EMLP 2*V -> Scalar+V over SO(2) (1 generator)"),
    "emlp-s4": Preset("emlp", "S(4)", "V", "V", "EMLP V -> V over S(4) (finite: 2 discrete generators)"),
    "mlp-o3": Preset("mlp", "O(3)", "2*V", "Scalar+V", "an MLP with emlp-o3's reps (not equivariant)"),
    "mlp-s4": Preset("mlp", "S(4)", "V", "V", "an MLP with emlp-s4's reps (not equivariant)"),
}
MODELS = (*CNN_MODELS, *PRESETS)


def build_model(name: str, seed: int = 0, classes: int = 9):
    """A ``MODELS`` entry as a torch module: a CNN variant (``lab.meter.cnn.build``, float32, for training) or a
    preset (float64, weights drawn at ``seed``)."""
    import torch

    if name in CNN_MODELS:
        from .cnn import build

        return build(name, WIDTH, classes, seed)
    p = PRESETS[name]
    from ..groups import parse_group
    from ..nn.models import EMLP, MLP

    cls = EMLP if p.kind == "emlp" else MLP
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        return cls(p.rep_in, p.rep_out, parse_group(p.group), channels=PRESET_CHANNELS, layers=PRESET_LAYERS,
                   dtype=torch.float64).eval()
