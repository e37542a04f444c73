"""Gated nonlinearities (Weiler et al. 2018, thesis section 2.5): v_a * sigmoid(s_a) for every object a.

A scalar object and an object on which the group acts by permutations (a 'regular' rep: pointwise nonlinearities
commute with it) is its own gate: the nonlinearity is Swish, pointwise.  Every other object gets a scalar gate of
its own, produced by the layer before as an extra output: ``gated(rep)`` is ``rep`` plus one Scalar per such object
(in the objects' order, right after the rep's leading scalars).  The gates are invariant, so any function of them may scale an
object: the result stays equivariant.  For complex groups the gate is sigmoid of the gate's real part.

>>> from lab.groups import SO
>>> from lab.reps import Scalar, V
>>> str(gated((2 * Scalar + 2 * V)(SO(3))))       # two vectors: two gates
'4*Scalar + 2*V'
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
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


def _split(rep: Rep) -> tuple[list, int]:
    """``rep``'s summands and how many of them lead as single scalars (where the gates go)."""
    children = list(rep.children) if isinstance(rep, SumRep) else [rep]
    k = 0
    while k < len(children) and children[k].size == 1 and not children[k].blocks[0].factors:
        k += 1
    return children, k


def gated(rep: Rep, group=None) -> Rep:
    """``rep`` plus one Scalar per object that needs a gate.  The gates sit right after ``rep``'s leading scalars
    (the EMLP library appends them at the end: the same function, another layout), so that a rep laid out type by
    type stays so and no layer has to reorder its features."""
    rep = bind(rep, group)
    n = gate_count(rep)
    if n == 0:
        return rep
    children, k = _split(rep)
    return SumRep(children[:k] + [ScalarRep(rep.group)] * n + children[k:])


def gate_layout(rep: Rep) -> tuple[np.ndarray, np.ndarray]:
    """(where each entry of ``rep`` sits in ``gated(rep)``, the entry of ``gated(rep)`` that gates it): itself for
    scalars and permutation objects."""
    rep = bind(rep)
    n = gate_count(rep)
    s = _split(rep)[1] if n else rep.size  # the gates follow the leading scalars
    value = np.arange(rep.size)
    value[value >= s] += n
    gate = value.copy()
    j = s
    for b in rep.blocks:
        if _needs_gate(_type(rep, b)):
            gate[b.positions()] = j
            j += 1
    return value, gate


def gate_indices(rep: Rep) -> np.ndarray:
    """For every entry of ``rep``, the entry of ``gated(rep)`` that gates it."""
    return gate_layout(rep)[1]


class GatedNonlinearity(nn.Module):
    """``gated(rep)`` -> ``rep``: every entry times sigmoid of its gate (Swish for scalars and permutation objects).

    For a rep laid out type by type (the hidden reps of ``EMLP``) each type is one broadcast product of slices;
    otherwise the values and gates are gathered."""

    def __init__(self, rep, group=None):
        super().__init__()
        from .objects import RepObjects

        self.rep = bind(rep, group)
        value, gate = gate_layout(self.rep)
        self.size_in = self.rep.size + gate_count(self.rep)
        objs = RepObjects(self.rep)
        self._plan = None
        if objs.in_order:  # (value start, copies, dim, gate start or None) per type, all slices
            self._plan, offsets = [], objs.offsets()
            g = int(gate[value != gate][0]) if self.size_in > self.rep.size else None  # the first gate
            for t in objs.types:
                start = int(value[offsets[t]])
                m = objs.count(t)
                if _needs_gate(t):
                    self._plan.append((start, m, t.dim, g))
                    g += m
                else:
                    self._plan.append((start, m, t.dim, None))
            # the input cut into its runs of values and of gates: one ``split`` (views; its backward one cat, where
            # slices would each give back a zero-filled copy of the whole input)
            runs = sorted([(start, m * d) for start, m, d, _ in self._plan] +
                          [(g0, m) for _, m, _, g0 in self._plan if g0 is not None])
            ends = [start + size for start, size in runs]
            if [start for start, _ in runs] != [0] + ends[:-1] or ends[-1:] != [self.size_in]:
                self._plan = None  # the runs do not tile the input (not expected): gather instead
            else:
                at = {start: i for i, (start, _) in enumerate(runs)}
                self._sizes = [size for _, size in runs]
                self._pieces = [(at[start], None if g0 is None else at[g0], m, d) for start, m, d, g0 in self._plan]
        self.register_buffer("values", torch.as_tensor(value, dtype=torch.long), persistent=False)
        self.register_buffer("gates", torch.as_tensor(gate, dtype=torch.long), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self._plan is None:
            g = x[..., self.gates]
            return torch.sigmoid(g.real if g.is_complex() else g) * x[..., self.values]
        lead = x.shape[:-1]
        pieces = x.split(self._sizes, -1)
        parts = []
        for iv, ig, m, d in self._pieces:
            v = pieces[iv]
            if ig is None:  # its own gate: Swish
                parts.append(v * torch.sigmoid(v.real) if v.is_complex() else F.silu(v))
            else:
                g = pieces[ig]
                s = torch.sigmoid(g.real if g.is_complex() else g)
                parts.append((v.reshape(*lead, m, d) * s[..., None]).reshape(*lead, m * d))
        return torch.cat(parts, -1) if len(parts) > 1 else parts[0]

    def extra_repr(self) -> str:
        return f"{self.rep} ({self.size_in - self.rep.size} gates)"
