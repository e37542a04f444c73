"""Training dynamics of nominal, augmented and equivariant models (Nordenfors, Ohlsson & Flinth).

``experiments`` builds the tasks, ``model`` the batched MLP, ``projection`` Π_E, ``action`` the group acting
on data, ``train`` the four strategies, ``store`` saving and loading runs.

The names below are loaded on first use (``from lab.dynamics import Trainer`` works as always): the torch-free
``config`` module is what the command line and the panes read first, and importing it must not import torch.
"""
from __future__ import annotations

from ..lazy import lazy_exports

#: public name -> the submodule that defines it
_LAZY = {"EXPERIMENTS": "experiments", "RELDIM_GROUPS": "experiments", "build": "experiments",
         "STRATEGIES": "config", "DynamicsConfig": "config", "Trainer": "train", "run_dynamics": "train"}

__all__ = ["EXPERIMENTS", "RELDIM_GROUPS", "STRATEGIES", "DynamicsConfig", "Trainer", "build", "run_dynamics"]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
