"""The cheap bilinear layer (thesis section 2.5): contractions of pairs of objects, one learned weight per pair.

Gated nonlinearities act on each object alone, so a network of them cannot form a dot product between two vectors
(appendix A.1.4).  The bilinear layer can: an input object c whose type is that of a map b -> a (``a (x) b*``) is
read as a matrix and applied to the input objects of type b, giving objects of type a.  Here, as in the EMLP
library: the output is ``scale * W(x) x``, where W(x) is a matrix ``rep_in -> rep_out`` built from the input
itself: its block for every pair (input copy of type b, output copy of type a) is a learned combination of up to
``dim c`` input objects of the matching type c (the first ones; scalars excluded, as the thesis says).  W(x) is an
equivariant function of x, so W(x) x is equivariant.  ``scale`` is the library's 0.1.

Cost: one batched contraction per matching (a, b) pair -- batch x copies(a) x copies(b) x min(copies c, dim c) x
dim a x dim b multiply-adds.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .linear import bind, param_dtype
from .objects import ObjectType, RepObjects, _leaf_key


def _map_type(a: ObjectType, b: ObjectType) -> tuple:
    """The type key of the maps b -> a: a's leaves then the duals of b's (row-major (dim a, dim b) layout)."""
    return tuple(a.factors) + tuple(_leaf_key(f.dual) for f in b.factors)


class BiLinear(nn.Module):
    """``rep_in -> rep_out``: ``scale * W(x) x`` (see the module docstring); no parameters when no input object can
    act as a map between an input and an output type (then the output is 0)."""

    def __init__(self, rep_in, rep_out, group=None, scale: float = 0.1, dtype=None, device=None):
        super().__init__()
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        self.group = self.rep_in.group
        self.scale = scale
        objs_in, objs_out = RepObjects(self.rep_in), RepObjects(self.rep_out)
        self.dtype = param_dtype(self.group, dtype)
        by_key = {t.factors: t for t in objs_in.types if not t.is_scalar}
        self._terms = []  # (name, a (out type), b (in type), c (map type))
        self._first_maps, self._slices = {}, {}
        offsets = objs_in.offsets()
        self.weights = nn.ParameterDict()
        for i, b in enumerate(objs_in.types):
            for j, a in enumerate(objs_out.types):
                c = by_key.get(_map_type(a, b))
                if c is None:
                    continue
                n = min(objs_in.count(c), c.dim)
                name = f"p{i}_{j}"
                self._terms.append((name, a, b, c))
                # slices of the input laid out type by type (``RepObjects.order``): views, no gathers
                self._slices[name] = ((offsets[c], offsets[c] + n * c.dim, n),
                                      (offsets[b], offsets[b] + objs_in.count(b) * b.dim, objs_in.count(b)))
                w = torch.randn(objs_out.count(a), objs_in.count(b), n, device=device).to(self.dtype)
                self.weights[name] = nn.Parameter(w)
                # two orders of the same contraction (per sample): maps x copies of b first, or weights x copies
                # of b first; the cheaper one is kept (scalars in, many copies of b: the second, by far)
                m_a, m_b = objs_out.count(a), objs_in.count(b)
                self._first_maps[name] = n * m_b * a.dim * (b.dim + m_a) <= m_a * n * b.dim * (m_b + a.dim)
        self._out_types = objs_out.types
        self._out_counts = {t: objs_out.count(t) for t in objs_out.types}
        self._in_order = objs_out.in_order
        self._x_in_order = objs_in.in_order
        self.register_buffer("order_in", torch.as_tensor(objs_in.order, device=device), persistent=False)
        self.register_buffer("order_out_inv", torch.as_tensor(np.argsort(objs_out.order), device=device),
                             persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch = x.shape[:-1]
        x = x.reshape(-1, x.shape[-1]).to(self.dtype)
        B = x.shape[0]
        xs = x if self._x_in_order else x[:, self.order_in]  # type by type: every operand below is a view
        per_type: dict = {}
        for name, a, b, c in self._terms:
            (c0, c1, n), (b0, b1, m_b) = self._slices[name]
            Xc = xs[:, c0:c1].view(B, n, a.dim, b.dim)  # the maps b -> a
            Xb = xs[:, b0:b1].view(B, m_b, b.dim)
            w = self.weights[name]  # (copies a, copies b, n)
            m_a = w.shape[0]
            if self._first_maps[name]:  # every map applied to every copy of b, then the weights
                Z = torch.bmm(Xc.reshape(B, n * a.dim, b.dim), Xb.transpose(1, 2))  # (B, n dim a, m_b)
                Z = Z.view(B, n, a.dim, m_b).permute(0, 2, 3, 1).reshape(B * a.dim, m_b * n)
                Y = (Z @ w.permute(1, 2, 0).reshape(m_b * n, m_a)).view(B, a.dim, m_a).transpose(1, 2)
            else:  # the weights mix the copies of b first, then the maps
                U = Xb.transpose(1, 2).reshape(B * b.dim, m_b) @ w.permute(1, 0, 2).reshape(m_b, m_a * n)
                U = U.view(B, b.dim, m_a, n).permute(0, 2, 3, 1).reshape(B, m_a, n * b.dim)
                Y = torch.bmm(U, Xc.permute(0, 1, 3, 2).reshape(B, n * b.dim, a.dim))  # (B, m_a, dim a)
            per_type[a] = per_type[a] + Y if a in per_type else Y
        parts = [per_type[t].reshape(B, -1) if t in per_type else x.new_zeros(B, self._out_counts[t] * t.dim)
                 for t in self._out_types]
        out = torch.cat(parts, 1) if parts else x.new_zeros(B, 0)
        if not self._in_order:
            out = out[:, self.order_out_inv]
        return (self.scale * out).reshape(*batch, self.rep_out.size)

    def extra_repr(self) -> str:
        n = sum(p.numel() for p in self.parameters())
        return f"{self.rep_in} -> {self.rep_out}, {len(self._terms)} contractions, {n} parameters"
