"""The cheap bilinear layer (thesis section 2.5): contractions of pairs of objects, one learned weight per pair.

Gated nonlinearities act on each object alone, so a network of them cannot form a dot product between two vectors
(appendix A.1.4).  The bilinear layer can: an input object c whose type is that of a map b -> a (``a (x) b*``) is
read as a matrix and applied to the input objects of type b, giving objects of type a.  Here, as in the EMLP
library: the output is ``scale * W(x) x``, where W(x) is a matrix ``rep_in -> rep_out`` built from the input
itself: its block for every pair (input copy of type b, output copy of type a) is a learned combination of up to
``dim c`` input objects of the matching type c (the first ones; scalars excluded, as the thesis says).  W(x) is an
equivariant function of x, so W(x) x is equivariant.  ``scale`` is the library's 0.1.

Cost: per matching (a, b) pair, per sample, copies(a) x copies(b) x n x (dim a or dim b) multiply-adds for the
weights (a matmul over the batch, shared by the pairs with the same output or input type) plus n x dim a x dim b x
(copies of b or of a) for the maps (a small batched matmul), n = min(copies c, dim c); ``BiLinear`` picks the order.
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


def _bmm_oriented(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` (batched), computed as ``(b^T a^T)^T`` when that puts the longer side last: MKL's batched kernels
    for these small matrices are several times slower when the output's rows are short ((25 x 5) @ (5 x 5): 2x,
    (25 x 25) @ (25 x 5): 3x).  The result may be a transposed view."""
    if b.shape[-1] >= a.shape[-2]:
        return torch.bmm(a, b)
    return torch.bmm(b.transpose(1, 2), a.transpose(1, 2)).transpose(1, 2)


class _BMM(torch.autograd.Function):
    """``torch.bmm`` whose three products (forward, two gradients) are each computed in the better orientation."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _bmm_oriented(a, b)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = _bmm_oriented(g, b.mH) if ctx.needs_input_grad[0] else None
        gb = _bmm_oriented(a.mH, g) if ctx.needs_input_grad[1] else None
        return ga, gb


def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return _BMM.apply(a, b)


class BiLinear(nn.Module):
    """``rep_in -> rep_out``: ``scale * W(x) x`` (see the module docstring); no parameters when no input object can
    act as a map between an input and an output type (then the output is 0).

    Forward: every term (a, b) is one of two contraction orders, whichever takes fewer multiply-adds per sample:

    * ``A`` (maps first): ``T[k, p, j] = sum_q Xc[k, p, q] Xb[j, q]`` (one small bmm), then the weights.  The terms
      of one output type ``a`` share that last step: their T's side by side times their weights stacked, one matmul
      (all the scalar outputs: one matmul over every type's dot products);
    * ``B`` (weights first): ``V[q, i, k] = sum_j w[i, j, k] Xb[j, q]``, then the maps (one small bmm).  The terms of
      one input type ``b`` share the first step: one matmul with their weights side by side (all the scalar
      inputs: one matmul).

    The scale is folded into the (small) weight matrices, and the input is split type by type once."""

    def __init__(self, rep_in, rep_out, group=None, scale: float = 0.1, dtype=None, device=None):
        super().__init__()
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        self.group = self.rep_in.group
        self.scale = scale
        objs_in, objs_out = RepObjects(self.rep_in), RepObjects(self.rep_out)
        self.dtype = param_dtype(self.group, dtype)
        by_key = {t.factors: t for t in objs_in.types if not t.is_scalar}
        in_index = {t: i for i, t in enumerate(objs_in.types)}
        self._terms = []  # (name, a (out type), b (in type), c (map type))
        self._first_maps = {}
        self.weights = nn.ParameterDict()
        for i, b in enumerate(objs_in.types):
            for j, a in enumerate(objs_out.types):
                c = by_key.get(_map_type(a, b))
                if c is None:
                    continue
                n = min(objs_in.count(c), c.dim)
                name = f"p{i}_{j}"
                self._terms.append((name, a, b, c))
                w = torch.randn(objs_out.count(a), objs_in.count(b), n, device=device).to(self.dtype)
                self.weights[name] = nn.Parameter(w)
                # the two orders' multiply-adds per sample (maps x copies of b first, or weights x copies of b)
                m_a, m_b = objs_out.count(a), objs_in.count(b)
                self._first_maps[name] = n * m_b * a.dim * (b.dim + m_a) <= m_a * n * b.dim * (m_b + a.dim)
        self._in_types, self._out_types = list(objs_in.types), list(objs_out.types)
        self._in_counts = [objs_in.count(t) for t in objs_in.types]
        self._out_counts = {t: objs_out.count(t) for t in objs_out.types}
        # per term (name, index of a, index of b, index of c, n, m_a, m_b, dim a, dim b)
        out_index = {t: j for j, t in enumerate(objs_out.types)}
        self._term_info = [(name, out_index[a], in_index[b], in_index[c], *self.weights[name].shape[2:],
                            *self.weights[name].shape[:2], a.dim, b.dim) for name, a, b, c in self._terms]
        self._plan()
        self._in_order = objs_out.in_order
        self._x_in_order = objs_in.in_order
        self.register_buffer("order_in", torch.as_tensor(objs_in.order, device=device), persistent=False)
        self.register_buffer("order_out_inv", torch.as_tensor(np.argsort(objs_out.order), device=device),
                             persistent=False)

    def _plan(self, orders: dict | None = None) -> None:
        """Group the terms: order A by output type, order B by input type (``orders``: {term name: "A" or "B"}
        overrides the multiply-add count, for measuring)."""
        self._a_groups: dict = {}  # index of a -> terms in order A
        self._b_groups: dict = {}  # index of b -> terms in order B
        for term in self._term_info:
            name = term[0]
            first_maps = (orders or {}).get(name, "A" if self._first_maps[name] else "B") == "A"
            if first_maps:
                self._a_groups.setdefault(term[1], []).append(term)
            else:
                self._b_groups.setdefault(term[2], []).append(term)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch = x.shape[:-1]
        x = x.reshape(-1, x.shape[-1]).to(self.dtype)
        B = x.shape[0]
        if not self._terms:
            return x.new_zeros(*batch, self.rep_out.size)
        xs = x if self._x_in_order else x[:, self.order_in]  # type by type
        # one split: every type a view (B, copies, dim); its backward is one cat, not a zero-filled copy per slice
        X = [p.view(B, m, t.dim) for p, m, t in
             zip(xs.split([m * t.dim for m, t in zip(self._in_counts, self._in_types)], 1), self._in_counts,
                 self._in_types)]
        s = self.scale
        per_type: dict = {}  # index of a -> (B, copies of a, dim a)

        def add(j, y):
            per_type[j] = per_type[j] + y if j in per_type else y

        for j, terms in self._a_groups.items():  # maps first, one matmul per output type
            da = terms[0][7]
            Ts, Ws = [], []
            for name, _, ib, ic, n, m_a, m_b, _, db in terms:
                Xc = X[ic][:, :n].reshape(B, n, da, db)
                Xc = Xc.view(B, n, db) if da == 1 else Xc.transpose(1, 2).reshape(B, da * n, db)  # (p, k) rows
                Ts.append(bmm(Xc, X[ib].transpose(1, 2)).reshape(B * da, n * m_b))  # T[(B, p), (k, j)]
                Ws.append(self.weights[name].permute(2, 1, 0).reshape(n * m_b, m_a))  # [(k, j), i]
            if da == 1:  # small T's: side by side, one matmul
                Y = (Ts[0] if len(Ts) == 1 else torch.cat(Ts, 1)) @ \
                    ((Ws[0] if len(Ws) == 1 else torch.cat(Ws, 0)) * s)
            else:  # large T's (n dim a x copies b each): one matmul each, summed (no copy of them side by side)
                Y = Ts[0] @ (Ws[0] * s)
                for T, W in zip(Ts[1:], Ws[1:]):
                    Y = torch.addmm(Y, T, W, alpha=s)
            Y = Y.view(B, da, -1)  # (B, dim a, copies a)
            add(j, Y.transpose(1, 2) if da > 1 else Y.view(B, -1, 1))
        for ib, terms in self._b_groups.items():  # weights first, one matmul per input type
            db = terms[0][8]
            Xb = X[ib]
            Xb = Xb.view(B, -1) if db == 1 else Xb.transpose(1, 2).reshape(B * db, -1)  # [(B, q), j]
            Ws = [self.weights[name].permute(1, 0, 2).reshape(m_b, m_a * n)  # [j, (i, k)]
                  for name, _, _, _, n, m_a, m_b, _, _ in terms]
            V = Xb @ ((Ws[0] if len(Ws) == 1 else torch.cat(Ws, 1)) * s)  # [(B, q), (i, k)]
            Vs = V.split([m_a * n for _, _, _, _, n, m_a, _, _, _ in terms], 1) if len(terms) > 1 else [V]
            for (name, ja, _, ic, n, m_a, _, da, _), V in zip(terms, Vs):
                Xc = X[ic][:, :n]
                if db == 1:
                    U, Xc = V.view(B, m_a, n), Xc.reshape(B, n, da)
                else:
                    U = V.reshape(B, db, m_a, n).permute(0, 2, 3, 1).reshape(B, m_a, n * db)  # [B, i, (k, q)]
                    Xc = Xc.reshape(B, n, da, db).transpose(2, 3).reshape(B, n * db, da)  # [B, (k, q), p]
                add(ja, bmm(U, Xc))
        parts = [per_type[j].reshape(B, -1) if j in per_type else x.new_zeros(B, self._out_counts[t] * t.dim)
                 for j, t in enumerate(self._out_types)]
        out = torch.cat(parts, 1) if len(parts) > 1 else parts[0]
        if not self._in_order:
            out = out[:, self.order_out_inv]
        return out.reshape(*batch, self.rep_out.size)

    def extra_repr(self) -> str:
        n = sum(p.numel() for p in self.parameters())
        return f"{self.rep_in} -> {self.rep_out}, {len(self._terms)} contractions, {n} parameters"
