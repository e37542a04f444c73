"""The equivariant linear layer: W in the solved basis, an equivariant bias, at the cost of a dense layer.

Weights are coefficients of the solved bases (``lab.nn.basis``), one small array per pair of object types:
``w[a, b]`` of shape (r_ab, copies of b, copies of a).  A forward pass forms the dense W once -- per pair of types
``W_ba = sum_k w_k (x) B_k`` (an einsum over tiny arrays: the cost is r times the block's entries, far below the
matmul) -- and then costs what a dense layer of the same width costs: one ``x @ W.T``.  Inputs and outputs whose
objects are not laid out type by type are gathered into that order and back (``RepObjects.order``).

Equivariant by construction: every block is a combination of solved maps ``a >> b``, every bias a combination of
invariant vectors of its type; ``tests/test_nn.py`` checks it for sampled group elements of every group.

>>> import torch
>>> from lab.groups import SO
>>> layer = EquivariantLinear("2*V", "Scalar + V", SO(3))
>>> layer.weight().shape, layer(torch.randn(5, 6)).shape
(torch.Size([4, 6]), torch.Size([5, 4]))
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from ..errors import RepError
from ..reps import Rep, parse_rep
from .basis import invariant_basis, map_basis
from .objects import RepObjects


def bind(rep, group=None) -> Rep:
    """A bound ``Rep`` from a rep, an unbound rep and a group, or rep text and a group."""
    if isinstance(rep, str):
        if group is None:
            raise RepError(f"the rep {rep!r} needs a group")
        return parse_rep(rep, group)
    if getattr(rep, "group", None) is None:
        if group is None:
            raise RepError(f"the rep {rep} is not bound to a group: give the group")
        return rep(group)
    if group is not None and rep.group != group:
        raise RepError(f"the rep {rep} is over {rep.group}, not {group}")
    return rep


def real_dtype(dtype=None) -> torch.dtype:
    return dtype or torch.get_default_dtype()


def param_dtype(group, dtype=None) -> torch.dtype:
    """float32 (the default dtype) for real groups, its complex counterpart for complex ones (SU(n), U(n))."""
    real = real_dtype(dtype)
    if np.issubdtype(np.dtype(group.dtype), np.complexfloating):
        return torch.complex64 if real == torch.float32 else torch.complex128
    return real


def _index(order: np.ndarray, device=None):
    return torch.as_tensor(order, dtype=torch.long, device=device)


class EquivariantLinear(nn.Module):
    """``rep_in -> rep_out`` equivariant under ``group`` (reps as ``Rep`` or text; bound, or bound here).

    ``bias``: an equivariant bias (invariant vectors of every output type).  ``dtype``: float32 by default (complex64
    for complex groups).  ``weight()`` is the dense (out x in) matrix, ``bias_vector()`` the bias, both in the reps'
    own layouts."""

    def __init__(self, rep_in, rep_out, group=None, bias: bool = True, dtype=None, device=None):
        super().__init__()
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        self.group = self.rep_in.group
        if self.rep_out.group != self.group:
            raise RepError(f"the input rep is over {self.group} and the output rep over {self.rep_out.group}")
        self.objs_in, self.objs_out = RepObjects(self.rep_in), RepObjects(self.rep_out)
        self.dtype = param_dtype(self.group, dtype)
        fan_in = max(1, self.rep_in.size)
        self._pairs = []  # (name, type in, type out)
        self.weights = nn.ParameterDict()
        for i, a in enumerate(self.objs_in.types):
            for j, b in enumerate(self.objs_out.types):
                B = map_basis(a, b, self.group)
                if len(B) == 0:
                    continue
                name = f"w{i}_{j}"
                self._pairs.append((name, a, b))
                self.register_buffer(f"B{i}_{j}", torch.as_tensor(B, dtype=self.dtype, device=device),
                                     persistent=False)
                w = torch.randn(len(B), self.objs_out.count(b), self.objs_in.count(a), dtype=self.dtype,
                                device=device) / math.sqrt(fan_in)
                self.weights[name] = nn.Parameter(w)
        self.biases = nn.ParameterDict()
        self._bias_types = []
        if bias:
            for j, b in enumerate(self.objs_out.types):
                Bb = invariant_basis(b, self.group)
                if len(Bb) == 0:
                    continue
                self._bias_types.append((f"b{j}", b))
                self.register_buffer(f"Bb{j}", torch.as_tensor(Bb, dtype=self.dtype, device=device), persistent=False)
                bound = 1 / math.sqrt(fan_in)
                c = (torch.rand(len(Bb), self.objs_out.count(b), device=device) * 2 - 1) * bound
                self.biases[f"b{j}"] = nn.Parameter(c.to(self.dtype))
        self._in_offsets, self._out_offsets = self.objs_in.offsets(), self.objs_out.offsets()
        self.register_buffer("order_in", _index(self.objs_in.order, device), persistent=False)
        self.register_buffer("order_out_inv", _index(np.argsort(self.objs_out.order), device), persistent=False)

    # ------------------------------------------------------------------ the dense matrices, in type order
    def _sorted_weight(self) -> torch.Tensor:
        """W with rows and columns type by type: each pair's block formed, the rest zeros, joined by ``cat``."""
        blocks = {}
        for name, a, b in self._pairs:
            w, B = self.weights[name], getattr(self, "B" + name[1:])
            blocks[a, b] = torch.einsum("kij,kpq->ipjq", w, B).reshape(w.shape[1] * b.dim, w.shape[2] * a.dim)
        ref = self.order_in
        rows = []
        for b in self.objs_out.types:
            n_b = self.objs_out.count(b) * b.dim
            strip = [blocks[a, b] if (a, b) in blocks else
                     torch.zeros(n_b, self.objs_in.count(a) * a.dim, dtype=self.dtype, device=ref.device)
                     for a in self.objs_in.types]
            rows.append(torch.cat(strip, 1) if strip else torch.zeros(n_b, 0, dtype=self.dtype, device=ref.device))
        if not rows:
            return torch.zeros(0, self.rep_in.size, dtype=self.dtype, device=ref.device)
        return torch.cat(rows, 0)

    def _sorted_bias(self) -> torch.Tensor | None:
        if not self._bias_types:
            return None
        parts = []
        for j, b in enumerate(self.objs_out.types):
            name = f"b{j}"
            if name in self.biases:
                parts.append(torch.einsum("ki,kp->ip", self.biases[name], getattr(self, f"Bb{j}")).reshape(-1))
            else:
                parts.append(self.biases[self._bias_types[0][0]].new_zeros(self.objs_out.count(b) * b.dim))
        return torch.cat(parts)

    def weight(self) -> torch.Tensor:
        """W (out x in) in the reps' own layouts."""
        W = self._sorted_weight()
        if not self.objs_out.in_order:
            W = W[self.order_out_inv]
        if not self.objs_in.in_order:
            W = W[:, torch.argsort(self.order_in)]
        return W

    def bias_vector(self) -> torch.Tensor:
        b = self._sorted_bias()
        if b is None:
            return torch.zeros(self.rep_out.size, dtype=self.dtype, device=self.order_in.device)
        return b if self.objs_out.in_order else b[self.order_out_inv]

    # ------------------------------------------------------------------ forward
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.rep_in.size:
            raise RepError(f"{type(self).__name__}: the input has {x.shape[-1]} features but {self.rep_in} has "
                           f"{self.rep_in.size}")
        if not self.objs_in.in_order:
            x = x[..., self.order_in]
        y = x.to(self.dtype) @ self._sorted_weight().T
        b = self._sorted_bias()
        if b is not None:
            y = y + b
        return y if self.objs_out.in_order else y[..., self.order_out_inv]

    def extra_repr(self) -> str:
        n = sum(p.numel() for p in self.parameters())
        return f"{self.rep_in} -> {self.rep_out}, {n} parameters (dense {self.rep_out.size} x {self.rep_in.size})"
