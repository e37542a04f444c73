"""Equivariant networks for any group the engine solves: EMLP in torch (thesis chapter 2).

* ``EquivariantLinear`` -- ``rep_in -> rep_out`` with W in the solved bases, an equivariant bias (``lab.nn.linear``);
* ``BiLinear`` -- the cheap bilinear layer (``lab.nn.bilinear``);
* ``gated``, ``GatedNonlinearity`` -- gated nonlinearities (``lab.nn.gated``);
* ``uniform_rep`` -- the thesis's channel allocation (``lab.nn.channels``);
* ``EMLP``, ``EMLPBlock``, ``MLP`` -- the networks (``lab.nn.models``);
* ``equivariance_error`` -- the EMLP test suite's metric for sampled elements (``lab.nn.check``);
* ``adam`` -- Adam with its batched (``foreach``) update on the CPU too (``lab.nn.optim``);
* ``GraphedStep`` -- a training step recorded once as a CUDA graph and replayed (``lab.nn.graphs``): on a GPU an
  EMLP step is bound by kernel launches, and a replay is one launch;

Residual pathway priors (thesis chapter 3), used by the rpp family alone, live in it: ``lab.rpp.nn``.

Reps are ``lab.reps`` values or text (``"5*Scalar+5*V"``), bound to the group given.  A science package: torch
modules, no UI.
"""
from .bilinear import BiLinear
from .channels import uniform_rep
from .check import equivariance_error, scale_adjusted_rel_error
from .gated import GatedNonlinearity, gate_indices, gated
from .graphs import GraphedStep
from .linear import EquivariantLinear
from .models import EMLP, MLP, EMLPBlock
from .objects import ObjectType, RepObjects
from .optim import adam

__all__ = ["EquivariantLinear", "BiLinear", "GatedNonlinearity", "gated", "gate_indices", "uniform_rep", "EMLP",
           "EMLPBlock", "MLP", "equivariance_error", "scale_adjusted_rel_error", "RepObjects", "ObjectType",
           "GraphedStep", "adam"]
