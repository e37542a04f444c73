"""Gated nonlinearities (Weiler et al. 2018, thesis section 2.5): v_a * sigmoid(s_a) for every object a.

A scalar object and an object on which the group acts by permutations (a 'regular' rep: pointwise nonlinearities
commute with it) is its own gate: the nonlinearity is Swish, pointwise.  Every other object gets a scalar gate of
its own, produced by the layer before as an extra output: ``gated(rep)`` is ``rep`` plus one Scalar per such object
(appended at the end, in the objects' order).  The gates are invariant, so any function of them may scale an
object: the result stays equivariant.  For complex groups the gate is sigmoid of the gate's real part.

>>> from lab.groups import SO
>>> from lab.reps import Scalar, V
>>> str(gated((2 * Scalar + 2 * V)(SO(3))))       # two vectors: two gates
'2*Scalar + 2*V + 2*Scalar'
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..reps import Rep, ScalarRep, SumRep
from .linear import bind


def _needs_gate(t) -> bool:
    return not t.is_scalar and not t.is_permutation


def gate_count(rep: Rep) -> int:
    """How many gate scalars ``rep``'s objects need."""
    return sum(_needs_gate(_type(rep, b)) for b in rep.blocks)


def _type(rep, block):
    from .objects import ObjectType, _leaf_key

    return ObjectType(tuple(_leaf_key(f) for f in block.factors), block.size)


def gated(rep: Rep, group=None) -> Rep:
    """``rep`` plus one Scalar per object that needs a gate."""
    rep = bind(rep, group)
    n = gate_count(rep)
    return rep if n == 0 else SumRep([rep] + [ScalarRep(rep.group)] * n)


def gate_indices(rep: Rep) -> np.ndarray:
    """For every entry of ``rep``, the entry of ``gated(rep)`` that gates it (itself for scalars and
    permutation objects)."""
    idx = np.arange(rep.size)
    gate = rep.size
    for b in rep.blocks:
        if _needs_gate(_type(rep, b)):
            idx[b.positions()] = gate
            gate += 1
    return idx


class GatedNonlinearity(nn.Module):
    """``gated(rep)`` -> ``rep``: every entry times sigmoid of its gate (Swish for scalars and permutation objects)."""

    def __init__(self, rep, group=None):
        super().__init__()
        self.rep = bind(rep, group)
        self.register_buffer("gates", torch.as_tensor(gate_indices(self.rep), dtype=torch.long), persistent=False)
        self.size_in = self.rep.size + gate_count(self.rep)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        g = x[..., self.gates]
        if g.is_complex():
            g = g.real
        return torch.sigmoid(g) * x[..., : self.rep.size]

    def extra_repr(self) -> str:
        return f"{self.rep} ({self.size_in - self.rep.size} gates)"
