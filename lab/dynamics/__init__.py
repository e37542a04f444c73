"""Training dynamics of nominal, augmented and equivariant models (Nordenfors, Ohlsson & Flinth).

``experiments`` builds the tasks, ``model`` the batched MLP, ``projection`` Π_E, ``action`` the group acting
on data, ``train`` the four strategies, ``store`` saving and loading runs.
"""
from .experiments import EXPERIMENTS, RELDIM_GROUPS, build
from .train import STRATEGIES, DynamicsConfig, Trainer, run_dynamics

__all__ = ["EXPERIMENTS", "RELDIM_GROUPS", "STRATEGIES", "DynamicsConfig", "Trainer", "build", "run_dynamics"]
