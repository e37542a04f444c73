"""The equivariant linear layer: W in the solved basis, an equivariant bias, at the cost of a dense layer.

Weights are coefficients of the solved bases (``lab.nn.basis``), one small array per pair of object types:
``w[a, b]`` of shape (r_ab, copies of b, copies of a); the layer's matrix is ``W_ba = sum_k w_k (x) B_k`` per pair
(``weight()`` forms it densely).  The forward pass does not: it applies every pair's Kronecker structure, the solved
maps and the weights one after the other, in whichever order costs fewer multiply-adds (``_plan_forward``), pairs
sharing an operand in one matmul.  Zero blocks cost nothing and a block of maps that are multiples of the identity
(scalars to scalars, V to V) costs a product by the small weight matrix: for the thesis's 384 channels of O(5) about a
quarter of the dense layer's multiply-adds.  Inputs and outputs whose objects are not laid out type by type are
gathered into that order and back (``RepObjects.order``).

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


_SHORT = 32  # a matmul dimension shorter than this runs about as slow as one this long (MKL, small sizes)
_OP = 2000  # what one more small op (and its backward) costs, in multiply-adds per sample at batch ~500
_COPY = 2  # a reordering copy, per element


def _mm_cost(rows: int, inner: int, cols: int) -> int:
    return _OP + rows * max(inner, _SHORT) * max(cols, _SHORT)


def _mode_costs(r: int, m_a: int, m_b: int, d_a: int, d_b: int, scalar: bool) -> tuple[int, int, int]:
    """Estimated cost per sample of one pair's three ways (``EquivariantLinear._plan_forward``): multiply-adds with
    short matmul dimensions counted as ``_SHORT``, plus ``_OP`` per op and ``_COPY`` per element reordered -- so that
    a few wide matmuls beat many thin ones, as measured (bench/emlp.py)."""
    if scalar:
        cost_p = _mm_cost(d_b, m_a, m_b) - _OP + (_OP + _COPY * m_a * d_a if d_a > 1 else 0)
    else:
        cost_p = _mm_cost(m_a, d_a, r * d_b) + _OP + _COPY * m_a * r * d_b + _mm_cost(d_b, m_a * r, m_b) - _OP
        # (the last product is shared with the output type's other pairs: its op counted once, with theirs)
    cost_m = (_OP + _COPY * m_a * d_a if d_a > 1 else 0) + _mm_cost(d_a, m_a, r * m_b) + _OP + \
        _COPY * r * m_b * d_a + _mm_cost(m_b, r * d_a, d_b)
    cost_d = 3 * _OP + m_a * d_a * m_b * d_b
    return cost_p, cost_m, cost_d


#: the ways ``EquivariantLinear`` applies W: per pair of types (``structured``), the dense W formed once per call
#: and applied in one matmul (``dense``), or whichever its cost model says is cheaper at the batch's size (``auto``)
PATHS = ("auto", "structured", "dense")
_FORM = 3  # forming W (each pair's einsum, the zero blocks, the cat) and its backward, per entry of a block's terms


class EquivariantLinear(nn.Module):
    """``rep_in -> rep_out`` equivariant under ``group`` (reps as ``Rep`` or text; bound, or bound here).

    ``bias``: an equivariant bias (invariant vectors of every output type).  ``dtype``: float32 by default (complex64
    for complex groups).  ``weight()`` is the dense (out x in) matrix, ``bias_vector()`` the bias, both in the reps'
    own layouts.

    ``path`` (one of ``PATHS``): how the forward applies W -- pair by pair in the solved bases (``structured``), or W
    formed densely once per call and one matmul (``dense``: forming W costs the same at any batch, so it pays at
    large batches and for layers whose structured products are thin), or whichever ``_path_costs`` estimates is
    cheaper for the call's batch (``auto``, the default).  Both give the same ``W x + b`` up to rounding.  Without
    gradients (``torch.no_grad``, evaluation) the dense W is formed once and kept until a weight changes (an
    optimizer step, ``load_state_dict``): an evaluation is one matmul per layer."""

    def __init__(self, rep_in, rep_out, group=None, bias: bool = True, dtype=None, device=None, path: str = "auto"):
        super().__init__()
        if path not in PATHS:
            raise RepError(f"path must be one of {', '.join(PATHS)}, not {path!r}")
        self.path = path
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
        self._plan_forward(device)
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
    def _plan_forward(self, device=None, modes: dict | None = None) -> None:
        """How each pair of types is applied (m: copies, d: dims, r: basis size), whichever is estimated cheapest
        (``_mode_costs``; ``modes``: {pair name: "P", "M" or "D"} overrides, for measuring):

        * ``P`` (basis first): ``P[p, (i, k)] = sum_q B_k[p, q] x_i[q]``, then the weights; the pairs into one output
          type share that last product (their P's side by side): r m_a d_b (d_a + m_b) multiply-adds, or m_a m_b d
          when every ``B_k`` is a multiple of the identity (scalars to scalars, V to V: no basis product at all);
        * ``M`` (weights first): ``Z[q, (k, j)] = sum_i w_k[j, i] x_i[q]``, the pairs out of one input type sharing
          that product, then the basis: r m_b d_a (m_a + d_b);
        * ``D`` (dense block, the solved maps formed into W_ab): m_a d_a m_b d_b -- high ranks with many maps, and
          pairs whose structured products would be thin.

        The result is the same ``W x`` as the dense W (``weight()``); only the order of the sums differs."""
        in_index = {t: i for i, t in enumerate(self.objs_in.types)}
        out_index = {t: j for j, t in enumerate(self.objs_out.types)}
        self._p_groups: dict = {}  # index of b -> [(name, index of a, mode)]
        self._m_groups: dict = {}  # index of a -> [(name, index of b)]
        self._d_pairs: list = []  # (name, index of a, index of b)
        self._cost_structured = 0  # per sample: the chosen ways' estimates (``_mode_costs``)
        self._cost_form = _OP * (2 + len(self._pairs) + len(self.objs_out.types))  # forming the dense W, per call
        for name, a, b in self._pairs:
            Bk = getattr(self, "B" + name[1:])
            r, m_a, m_b, d_a, d_b = Bk.shape[0], self.objs_in.count(a), self.objs_out.count(b), a.dim, b.dim
            eye = torch.eye(d_a, dtype=Bk.dtype, device=Bk.device)
            scalar = d_a == d_b and bool(torch.allclose(Bk, Bk[:, :1, :1] * eye, atol=1e-6 * float(Bk.abs().max())))
            cost_p, cost_m, cost_d = _mode_costs(r, m_a, m_b, d_a, d_b, scalar)
            ia, ib = in_index[a], out_index[b]
            tag = name[1:]
            if scalar:  # sum_k w_k c_k: the identity's coefficients
                if not hasattr(self, f"Bc{tag}"):
                    self.register_buffer(f"Bc{tag}", Bk[:, 0, 0].clone(), persistent=False)
            mode = (modes or {}).get(name) or \
                ("P" if cost_p <= min(cost_m, cost_d) else "M" if cost_m <= cost_d else "D")
            self._cost_structured += {"P": cost_p, "M": cost_m, "D": cost_d}[mode]
            self._cost_form += _FORM * r * m_a * m_b * d_a * d_b
            if mode == "P":
                self._p_groups.setdefault(ib, []).append((name, ia, "scalar" if scalar else "basis"))
                if not scalar and not hasattr(self, f"BP{tag}"):  # [q, (k, p)]
                    self.register_buffer(f"BP{tag}", Bk.permute(2, 0, 1).reshape(d_a, r * d_b).contiguous(),
                                         persistent=False)
            elif mode == "M":
                self._m_groups.setdefault(ia, []).append((name, ib))
                if not hasattr(self, f"BM{tag}"):
                    self.register_buffer(f"BM{tag}", Bk.permute(0, 2, 1).reshape(r * d_a, d_b).contiguous(),
                                         persistent=False)  # [(k, q), p]
            else:
                self._d_pairs.append((name, ia, ib))
        self._in_sizes = [self.objs_in.count(t) * t.dim for t in self.objs_in.types]
        self._cost_form += _COPY * self.rep_out.size * self.rep_in.size
        self._cost_structured += _OP * len(self.objs_out.types)  # the outputs joined
        self._dense_cache = None

    def _path_costs(self, n: int) -> tuple[int, int]:
        """(structured, dense) estimated cost of a call on ``n`` samples, forward and backward alike: the structured
        ways' per-sample costs, against forming W once (``_FORM`` per term of every block, a copy per entry) plus one
        (out x in) matmul per sample."""
        return n * self._cost_structured, self._cost_form + n * (_OP + self.rep_out.size * self.rep_in.size)

    def chosen_path(self, n: int) -> str:
        """``structured`` or ``dense``: the way a call on ``n`` samples takes now (``auto`` without gradients: always
        the kept dense W; with gradients: the cheaper by ``_path_costs``)."""
        if self.path != "auto":
            return self.path
        if not torch.is_grad_enabled():
            return "dense"
        structured, dense = self._path_costs(n)
        return "dense" if dense < structured else "structured"

    def _dense(self) -> tuple[torch.Tensor, torch.Tensor | None]:
        """The dense W and bias in type order; without gradients, kept until a weight changes: the same parameter
        tensors (held, so that a new tensor cannot take an old one's place) at the same version counters (which every
        in-place change bumps: an optimizer's step, ``load_state_dict``)."""
        if torch.is_grad_enabled():
            self._dense_cache = None
            return self._sorted_weight(), self._sorted_bias()
        params = list(self.parameters())
        try:
            versions = [p._version for p in params]
        except RuntimeError:  # a tensor of a transform (vmap) has no version counter: nothing is kept
            return self._sorted_weight(), self._sorted_bias()
        kept = self._dense_cache
        if kept is None or len(kept[0]) != len(params) or \
                any(a is not b or v != u for a, b, v, u in zip(kept[0], params, kept[1], versions)):
            kept = self._dense_cache = (params, versions, self._sorted_weight(), self._sorted_bias())
        return kept[2], kept[3]

    def _apply(self, fn, *args, **kwargs):  # .to(), .cuda(), .double(): a kept W is of the old device and dtype
        self._dense_cache = None
        return super()._apply(fn, *args, **kwargs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.rep_in.size:
            raise RepError(f"{type(self).__name__}: the input has {x.shape[-1]} features but {self.rep_in} has "
                           f"{self.rep_in.size}")
        lead = x.shape[:-1]
        x = x.reshape(-1, x.shape[-1]).to(self.dtype)
        if not self.objs_in.in_order:
            x = x[:, self.order_in]
        n = x.shape[0]
        if self.chosen_path(n) == "dense":
            W, b = self._dense()
            y = x @ W.T if b is None else torch.addmm(b, x, W.T)
            if not self.objs_out.in_order:
                y = y[:, self.order_out_inv]
            return y.reshape(*lead, self.rep_out.size)
        t_in, t_out = self.objs_in.types, self.objs_out.types
        X = x.split(self._in_sizes, 1)  # type by type: views (n, copies * dim)
        XT: dict = {}  # index of a -> (n dim a, copies a): the copies' components as rows

        def rows(ia):
            if ia not in XT:
                a, m = t_in[ia], self.objs_in.count(t_in[ia])
                XT[ia] = X[ia] if a.dim == 1 else X[ia].view(n, m, a.dim).transpose(1, 2).reshape(n * a.dim, m)
            return XT[ia]

        Y: dict = {}  # index of b -> (n, copies b, dim b)
        bias = {int(name[1:]): torch.einsum("ki,kp->ip", self.biases[name], getattr(self, "Bb" + name[1:]))
                for name, _ in self._bias_types}  # index of b -> (copies b, dim b)

        def add(ib, y):
            Y[ib] = Y[ib] + y if ib in Y else y

        for ib, pairs in self._p_groups.items():  # basis first, one product per output type
            d_b = t_out[ib].dim
            left, right = [], []
            for name, ia, mode in pairs:
                w = self.weights[name]  # (r, copies b, copies a)
                if mode == "scalar":
                    left.append(rows(ia))
                    right.append(torch.einsum("kji,k->ij", w, getattr(self, "Bc" + name[1:])))
                else:
                    a, m = t_in[ia], w.shape[2]
                    P = X[ia].reshape(n * m, a.dim) @ getattr(self, "BP" + name[1:])  # (n m_a, r d_b)
                    left.append(P.view(n, m, -1, d_b).permute(0, 3, 1, 2).reshape(n * d_b, -1))  # [(n, p), (i, k)]
                    right.append(w.permute(2, 0, 1).reshape(-1, w.shape[1]))  # [(i, k), j]
            left = left[0] if len(left) == 1 else torch.cat(left, 1)
            right = right[0] if len(right) == 1 else torch.cat(right, 0)
            if d_b == 1 and ib in bias:  # the bias in the same op
                add(ib, torch.addmm(bias.pop(ib).view(-1), left, right).view(n, -1, 1))
                continue
            y = left @ right  # [(n, p), j]
            add(ib, y.view(n, d_b, -1).transpose(1, 2) if d_b > 1 else y.view(n, -1, 1))
        for ia, pairs in self._m_groups.items():  # weights first, one product per input type
            d_a = t_in[ia].dim
            ws = [self.weights[name] for name, _ in pairs]
            W = [w.permute(2, 0, 1).reshape(w.shape[2], -1) for w in ws]  # [i, (k, j)]
            Z = rows(ia) @ (W[0] if len(W) == 1 else torch.cat(W, 1))  # [(n, q), (k, j)]
            Zs = Z.split([w.shape[0] * w.shape[1] for w in ws], 1) if len(ws) > 1 else [Z]
            for (name, ib), w, z in zip(pairs, ws, Zs):
                r, m_b = w.shape[0], w.shape[1]
                z = z.reshape(n, d_a, r, m_b).permute(0, 3, 2, 1).reshape(n * m_b, r * d_a)  # [(n, j), (k, q)]
                add(ib, (z @ getattr(self, "BM" + name[1:])).view(n, m_b, -1))
        for name, ia, ib in self._d_pairs:  # dense blocks
            w, Bk = self.weights[name], getattr(self, "B" + name[1:])
            Wab = torch.einsum("kji,kpq->jpiq", w, Bk).reshape(w.shape[1] * Bk.shape[1], w.shape[2] * Bk.shape[2])
            add(ib, (X[ia] @ Wab.T).view(n, w.shape[1], -1))
        for ib, c in bias.items():  # the biases not yet added: broadcast over the batch
            Y[ib] = Y[ib] + c if ib in Y else c.expand(n, *c.shape)
        parts = [Y[j].reshape(n, -1) if j in Y else x.new_zeros(n, self.objs_out.count(t) * t.dim)
                 for j, t in enumerate(t_out)]
        y = torch.cat(parts, 1) if len(parts) > 1 else parts[0]
        if not self.objs_out.in_order:
            y = y[:, self.order_out_inv]
        return y.reshape(*lead, self.rep_out.size)

    def extra_repr(self) -> str:
        n = sum(p.numel() for p in self.parameters())
        return f"{self.rep_in} -> {self.rep_out}, {n} parameters (dense {self.rep_out.size} x {self.rep_in.size})"
