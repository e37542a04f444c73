"""Training dynamics of nominal, augmented and equivariant models (Nordenfors, Ohlsson & Flinth).

``train`` runs the four strategies, ``store`` saves and loads runs.  What the ensembles family uses too is shared:
the experiments (``lab.tasks.nordenfors``, with the paper's settings in ``lab.tasks.nordenfors_paper``), the batched
MLP (``lab.nn.batched``), the projection Π_E (``lab.nn.projection``) and the group acting on data
(``lab.reps.action``).

The names below are loaded on first use (``from lab.dynamics import Trainer`` works as always): the torch-free
``config`` module is what the command line and the panes read first, and importing it must not import torch.
"""
from __future__ import annotations

from ..lazy import lazy_exports

#: public name -> the submodule that defines it
_LAZY = {"EXPERIMENTS": "config", "RELDIM_GROUPS": "reldim", "build": "train",
         "STRATEGIES": "config", "DynamicsConfig": "config", "Trainer": "train", "run_dynamics": "train"}

__all__ = ["EXPERIMENTS", "RELDIM_GROUPS", "STRATEGIES", "DynamicsConfig", "Trainer", "build", "run_dynamics"]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
