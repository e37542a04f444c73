"""Residual Pathway Priors (thesis chapter 3): soft equivariance, every layer an equivariant plus a free pathway.

Hard constraints become a prior: each linear layer is ``W = W_eq + W_free``, the equivariant pathway in the solved
bases (``EquivariantLinear``), the free one a dense layer, and each pathway has its own Gaussian prior, a large
variance on the equivariant coefficients and a small one on the free weights (section 3.4, equation 3.1:
``W ~ N(0, (s_eq^2 + s_free^2) QQ^T + s_free^2 PP^T)``).  MAP training adds the negative log prior,
``|theta_eq|^2 / (2 s_eq^2) + |theta_free|^2 / (2 s_free^2)``, to the *summed* negative log-likelihood of the
data: explanations inside the equivariant subspace are cheaper, and the free pathway only fits what they cannot.

What the prior is on.  ``theta_eq`` are the equivariant pathway's coefficients in the solved bases (the thesis:
``vec(A) = Q beta``, ``A ~ N(0, s_a^2 QQ^T)``, i.e. ``beta ~ N(0, s_a^2 I)``).  The lab's bases are orthonormal
(``lab.nn.basis``), so ``|beta|^2 = |W_eq|_F^2``: the prior on the coefficients is the prior on the matrix.  (The
authors' code decays an unprojected dense matrix whose projection is W_eq, so its penalty also shrinks a part
that never reaches the function; not repeated here.)  The thesis puts priors on the weight matrices and on the
Swish coefficients (its footnote); it is silent on biases and on the bilinear layer.  Here every parameter belongs
to one pathway: the equivariant one holds the solved coefficients, the equivariant biases and the bilinear
weights, the free one the dense weights, their biases and the Swish coefficients -- the split of the authors'
pendulum runner (every parameter not named ``*_basic`` is equivariant).

A variance of 0 removes its pathway (no parameters, an exact zero): ``prior_free=0`` is exactly the EMLP layer's
function space, ``prior_equivariant=0`` exactly a dense layer.  ``math.inf`` is a flat prior (no penalty).

The nonlinearity has a free pathway too: ``gated(x) + w * swish(x)``, ``w`` one coefficient per feature with the
free prior (thesis, section 3.4 footnote: "a more general Swish weighted by a parameter with prior variance
s_b^2"; the form, per feature, from the authors' ``rpp/objax.py`` ``RPPGatedNonlinearity``).  Swish acts entry by
entry, so on a vector it is not equivariant: the free pathway.

Initialisation.  The thesis gives none.  The equivariant pathway is ``EquivariantLinear``'s own; the free one
starts 1e-3 times a dense layer's scale (``N(0, 1/fan_in)`` weights, ``U(+-1/sqrt(fan_in))`` biases) and the Swish
coefficients at 1e-3 (``RPP_SCALE = 1e-3`` in the authors' ``rpp/objax.py`` and ``rpp/flax.py``; drawn
independently, as in ``rpp/flax.py`` -- ``rpp/objax.py`` copies the equivariant draw, correlating the pathways).
So an RPP network starts nearly equivariant: ``free_fraction()`` about 1e-3 to 1e-2.  A free pathway alone
(``prior_equivariant=0``) is an ``nn.Linear`` with torch's default init.

The other regularisation, a named variant: the authors' runners add weight decays ``l_eq |theta_eq|^2 +
l_free |theta_free|^2`` to a *mean* loss (inertia: free 1e2, equivariant 1e-3; pendulum: 1, 1e-4).  Multiplying
through by the N training points, that is a MAP prior of variance ``1 / (2 N l)`` (``WeightDecay.as_prior``):
far tighter than the thesis's text (10^5 and 1).  ``PRIORS`` names both kinds:

>>> import torch
>>> from lab.groups import O
>>> model = RPPEMLP("2*V", "Scalar", O(5), channels=24, layers=2)      # the thesis's variances 1e5 / 1
>>> len(model.free_fractions()), 0 < model.free_fractions()[0] < 0.05  # |W_free| / |W| per linear layer
(3, True)
>>> opt = torch.optim.Adam(model.parameters(), lr=3e-3)
>>> x, y = torch.randn(8, 10), torch.randn(8, 1)
>>> nll = 0.5 * (model(x) - y).pow(2).sum(-1)                          # per example: a unit-variance Gaussian
>>> loss = PRIORS["thesis"].loss(model, nll)      # nll.sum() + |theta_eq|^2 / (2 1e5) + |theta_free|^2 / 2
>>> loss.backward(); opt.step()
>>> opt.zero_grad(); nll = 0.5 * (model(x) - y).pow(2).sum(-1)
>>> nll.sum().backward(); PRIORS["thesis"].add_grad(model); opt.step()  # the same step, the penalty's gradient
>>> runner = PRIORS["runner-inertia"].loss(model, (model(x) - y) ** 2)  # the runners': the mean + the decays
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from ..errors import LabError, RepError
from ..nn.bilinear import BiLinear
from ..nn.check import equivariance_error
from ..nn.gated import GatedNonlinearity, gate_layout, gated
from ..nn.linear import EquivariantLinear, bind, param_dtype
from ..nn.models import hidden_reps

FREE_SCALE = 1e-3  # the free pathway's initial scale, relative to a dense layer (the authors' RPP_SCALE)
#: batch rows from which ``RPPLinear`` forms ``W = W_eq + W_free`` and applies it in one dense matmul instead of the
#: two pathways apart (measured on a 2-core CPU at 384 channels, O(5) and O(3) inertia: one RPP-EMLP Adam step at
#: batch 500 36.5 ms fused against 43.8 apart, 52.8 against 59.2; at 200 rows 18.8 / 20.2; at 64 rows the fused
#: step is 5 % slower, since forming W costs the same at any batch)
FUSE_ROWS = 128
THESIS_EQUIVARIANT, THESIS_FREE = 1e5, 1.0  # the prior variances of thesis section 3.5.1


class PriorError(LabError, ValueError):
    """A prior variance or weight decay that is not a number >= 0, or a prior that leaves a layer no pathway."""


def _variance(value, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise PriorError(f"{what} must be a number >= 0 (0: no such pathway, inf: a flat prior), not {value!r}") \
            from None
    if math.isnan(v) or v < 0:
        raise PriorError(f"{what} must be a number >= 0 (0: no such pathway, inf: a flat prior), not {value!r}")
    return v


class _SumOfSquares(torch.autograd.Function):
    """``sum_p |p|^2`` over many tensors in two foreach calls (forward: their norms; backward: ``2 g p``) where the
    plain sum of ``p.pow(2).sum()`` is three autograd ops per tensor (5 ms a step for the 46 of an O(5) RPP-EMLP)."""

    @staticmethod
    def forward(ctx, *params):
        ctx.save_for_backward(*params)
        return torch.stack(torch._foreach_norm(params)).pow(2).sum()

    @staticmethod
    def backward(ctx, g):  # |z|^2 -> 2 z for complex z too (torch's rule)
        if torch.is_grad_enabled():  # create_graph: plain (differentiable) products
            return tuple(2 * g * p for p in ctx.saved_tensors)
        return tuple(torch._foreach_mul(ctx.saved_tensors, 2 * g))


def _sq(params) -> torch.Tensor | None:
    """sum |p|^2 over ``params`` (complex entries: |re|^2 + |im|^2), or None for no parameters."""
    params = list(params)
    return _SumOfSquares.apply(*params) if params else None


class _Pathways:
    """What the RPP modules share: their parameters split by pathway, the squared norms, the thesis's penalty."""

    prior_equivariant: float
    prior_free: float

    def pathway_parameters(self) -> dict[str, list]:  # pragma: no cover - every module defines it
        raise NotImplementedError

    def squared_norms(self) -> dict[str, torch.Tensor | None]:
        """``{"equivariant": |theta_eq|^2, "free": |theta_free|^2}`` (None for a pathway without parameters)."""
        return {k: _sq(v) for k, v in self.pathway_parameters().items()}

    def prior_penalty(self) -> torch.Tensor:
        """``|theta_eq|^2 / (2 s_eq^2) + |theta_free|^2 / (2 s_free^2)``, with this module's variances: the negative
        log prior up to a constant, to add to the *summed* data negative log-likelihood."""
        return Prior(self.prior_equivariant, self.prior_free).penalty(self)


class RPPLinear(_Pathways, nn.Module):
    """``rep_in -> rep_out``: ``EquivariantLinear`` + a dense ``nn.Linear`` (``free``), summed.

    ``prior_equivariant``, ``prior_free``: the pathways' prior variances (0: the pathway is absent).  ``bias``: both
    pathways have one (the equivariant bias; the dense layer's).  ``free_scale``: the free pathway's initial scale
    relative to a dense layer (when the equivariant pathway is there too).  ``weight()`` / ``bias_vector()``: the
    dense totals; ``free_fraction()``: ``|W_free|_F / |W|_F``; ``equivariance_error()``: for sampled elements."""

    def __init__(self, rep_in, rep_out, group=None, prior_equivariant: float = THESIS_EQUIVARIANT,
                 prior_free: float = THESIS_FREE, bias: bool = True, free_scale: float = FREE_SCALE, dtype=None,
                 device=None):
        super().__init__()
        self.prior_equivariant = _variance(prior_equivariant, "prior_equivariant")
        self.prior_free = _variance(prior_free, "prior_free")
        if self.prior_equivariant == 0 and self.prior_free == 0:
            raise PriorError("prior_equivariant and prior_free are both 0: the layer would have no pathway")
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        self.group = self.rep_in.group
        if self.rep_out.group != self.group:
            raise RepError(f"the input rep is over {self.group} and the output rep over {self.rep_out.group}")
        self.dtype = param_dtype(self.group, dtype)
        n_in, n_out = self.rep_in.size, self.rep_out.size
        self.equivariant = EquivariantLinear(self.rep_in, self.rep_out, bias=bias, dtype=dtype, device=device) \
            if self.prior_equivariant > 0 else None
        self.free = nn.Linear(n_in, n_out, bias=bias, dtype=self.dtype, device=device) \
            if self.prior_free > 0 and n_in > 0 else None
        if self.free is not None and self.equivariant is not None:
            with torch.no_grad():  # 1e-3 of a dense layer, drawn independently (module docstring)
                fan_in = max(1, n_in)
                self.free.weight.copy_(torch.randn_like(self.free.weight) * (free_scale / math.sqrt(fan_in)))
                if bias:
                    u = torch.rand(n_out, device=device) * 2 - 1
                    self.free.bias.copy_((u * (free_scale / math.sqrt(fan_in))).to(self.dtype))

    def pathway_parameters(self) -> dict[str, list]:
        return {"equivariant": list(self.equivariant.parameters()) if self.equivariant is not None else [],
                "free": list(self.free.parameters()) if self.free is not None else []}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != self.rep_in.size:
            raise RepError(f"RPPLinear: the input has {x.shape[-1]} features but {self.rep_in} has "
                           f"{self.rep_in.size}")
        if self.free is None:
            if self.equivariant is None:  # a layer from an empty rep (no free layer to build)
                return x.new_zeros(*x.shape[:-1], self.rep_out.size).to(self.dtype)
            return self.equivariant(x)
        if x.numel() >= FUSE_ROWS * x.shape[-1]:  # a large batch: one matmul by W_eq + W_free (FUSE_ROWS)
            return F.linear(x.to(self.dtype), self.weight(), self.bias_vector())
        free = self.free(x.to(self.dtype))  # one matmul (the bias in it)
        # in place: an out-of-place add would cost a fresh (batch x out) tensor, more than the add itself on CPU
        return free if self.equivariant is None else free.add_(self.equivariant(x))

    # ------------------------------------------------------------------ the split, measured
    def _zeros(self, *shape) -> torch.Tensor:
        ref = next(self.parameters(), None)
        return torch.zeros(*shape, dtype=self.dtype, device=ref.device if ref is not None else None)

    def equivariant_weight(self) -> torch.Tensor:
        return self.equivariant.weight() if self.equivariant is not None else \
            self._zeros(self.rep_out.size, self.rep_in.size)

    def free_weight(self) -> torch.Tensor:
        return self.free.weight if self.free is not None else self._zeros(self.rep_out.size, self.rep_in.size)

    def weight(self) -> torch.Tensor:
        """The dense total ``W = W_eq + W_free`` (out x in), in the reps' own layouts."""
        return self.equivariant_weight() + self.free_weight()

    def bias_vector(self) -> torch.Tensor:
        b = self._zeros(self.rep_out.size)
        if self.equivariant is not None:
            b = b + self.equivariant.bias_vector()
        if self.free is not None and self.free.bias is not None:
            b = b + self.free.bias
        return b

    def free_fraction(self) -> float:
        """``|W_free|_F / |W|_F`` (0 for a zero W): 0 exactly without a free pathway, 1 without an equivariant one."""
        with torch.no_grad():
            total = float(torch.linalg.vector_norm(self.weight()))
            return float(torch.linalg.vector_norm(self.free_weight())) / total if total > 0 else 0.0

    def equivariance_error(self, n: int = 5, seed: int = 0) -> float:
        """The EMLP test suite's metric for ``n`` sampled elements (``lab.nn.check``)."""
        return equivariance_error(self, n=n, seed=seed)

    def extra_repr(self) -> str:
        return f"{self.rep_in} -> {self.rep_out}, prior variances {self.prior_equivariant:g} (equivariant), " \
               f"{self.prior_free:g} (free)"


class _FusedGate(torch.autograd.Function):
    """The RPP nonlinearity on ``x`` (batch, size in) laid out in runs (``sizes``), one piece per type
    ``(values run, gates run or None, copies m, dim d)``: a scalar piece ``(1 + w) swish(v)``, a gated one
    ``v sigmoid(s) + w swish(v)``; each written into its slice of one output, and the backward written by hand
    into one input gradient -- no per-piece outputs to ``cat``, no gradients of the two paths to add up.  Under
    ``create_graph`` (a Hamiltonian network's dH/dx, trained through) the backward is autograd's own through
    ``reference(x, w)``, the module's formula, so that it can be differentiated again."""

    @staticmethod
    def forward(ctx, x, w, pieces, sizes, reference):
        n = x.shape[0]
        runs = x.split(sizes, 1)
        out = x.new_empty(n, w.shape[0])
        saved, at = [], 0
        for iv, ig, m, d in pieces:
            v, o, wk = runs[iv], out[:, at:at + m * d], w[at:at + m * d]
            sv = torch.sigmoid(v)
            swish = v * sv
            if ig is None:  # its own gate: the gated path is Swish too
                torch.mul(swish, wk + 1, out=o)
                saved += [sv, swish]
            else:
                s = torch.sigmoid(runs[ig])
                torch.mul(v.reshape(n, m, d), s[:, :, None], out=o.view(n, m, d))
                o.addcmul_(swish, wk)
                saved += [sv, swish, s]
            at += m * d
        ctx.pieces, ctx.sizes, ctx.reference = pieces, sizes, reference
        ctx.save_for_backward(x, w, *saved)
        return out

    @staticmethod
    def backward(ctx, gy):
        x, w, *saved = ctx.saved_tensors
        need_x, need_w = ctx.needs_input_grad[:2]
        if torch.is_grad_enabled():  # create_graph: a backward that is itself differentiable
            inputs = [t for t, need in ((x, need_x), (w, need_w)) if need]
            if not inputs:
                return None, None, None, None, None
            grads = iter(torch.autograd.grad(ctx.reference(x, w), inputs, gy, create_graph=True))
            return next(grads) if need_x else None, next(grads) if need_w else None, None, None, None
        n = x.shape[0]
        runs = x.split(ctx.sizes, 1)
        gx = gy.new_empty(n, x.shape[1]) if need_x else None
        grads = gx.split(ctx.sizes, 1) if need_x else None
        gw = gy.new_empty(w.shape[0]) if need_w else None
        at, j = 0, 0
        for iv, ig, m, d in ctx.pieces:
            g, wk = gy[:, at:at + m * d], w[at:at + m * d]
            sv, swish = saved[j], saved[j + 1]
            s = saved[j + 2] if ig is not None else None
            j += 2 if ig is None else 3
            if need_w:
                torch.sum(g * swish, 0, out=gw[at:at + m * d])
            if need_x:
                dswish = torch.sub(1, sv).mul_(swish).add_(sv)  # swish'(v) = sv + v sv (1 - sv)
                gv = grads[iv]
                torch.mul(g, wk + 1 if ig is None else wk, out=gv)
                gv.mul_(dswish)
                if ig is not None:
                    g3 = g.reshape(n, m, d)  # (gy may be expanded: reshape, not view)
                    gv.view(n, m, d).addcmul_(g3, s[:, :, None])
                    torch.mul((g3 * runs[iv].reshape(n, m, d)).sum(-1), s * (1 - s), out=grads[ig])
            at += m * d
        return gx, gw.to(w.dtype) if need_w else None, None, None, None


class RPPGatedNonlinearity(_Pathways, nn.Module):
    """``gated(rep) -> rep``: the gated nonlinearity plus ``w * swish(v)`` on every value entry ``v``, one free
    coefficient ``w`` per entry (``prior_free=0``: none, exactly ``GatedNonlinearity``).

    For the hidden reps of ``RPPEMLP`` (laid out type by type) both paths are computed together, type by type on
    the gated nonlinearity's own split of the input (``GatedNonlinearity._pieces``), by ``_FusedGate``: a scalar
    piece is ``(1 + w) swish(v)`` (its gated path is Swish already), a gated one ``v sigmoid(s) + w swish(v)``.
    Otherwise (and for complex features) the two paths are summed as written (``reference``)."""

    def __init__(self, rep, group=None, prior_free: float = THESIS_FREE, free_scale: float = FREE_SCALE,
                 device=None):
        super().__init__()
        self.rep = bind(rep, group)
        self.prior_equivariant = math.inf  # no equivariant parameters: nothing to penalise
        self.prior_free = _variance(prior_free, "prior_free")
        self.gated = GatedNonlinearity(self.rep)
        self.register_parameter("weight", nn.Parameter(torch.full((self.rep.size,), float(free_scale), device=device))
                                if self.prior_free > 0 else None)
        value, _ = gate_layout(self.rep)
        self.register_buffer("values", torch.as_tensor(value, dtype=torch.long), persistent=False)
        g = self.gated
        self._fused = getattr(g, "_plan", None) is not None and hasattr(g, "_pieces") and hasattr(g, "_sizes") \
            and sum(m * d for _, _, m, d in g._pieces) == self.rep.size  # the pieces' values tile the rep in order

    def pathway_parameters(self) -> dict[str, list]:
        return {"equivariant": [], "free": [self.weight] if self.weight is not None else []}

    def reference(self, x: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
        """``gated(x) + w * swish(x[values])``, as written (``weight``: ``w``, by default the module's)."""
        y = self.gated(x)
        w = self.weight if weight is None else weight
        if w is None:
            return y
        v = x[..., self.values]
        swish = v * torch.sigmoid(v.real) if v.is_complex() else F.silu(v)
        return y + w * swish

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.weight is None:
            return self.gated(x)
        if not self._fused or x.is_complex():
            return self.reference(x)
        y = _FusedGate.apply(x.reshape(-1, x.shape[-1]), self.weight, self.gated._pieces, self.gated._sizes,
                             self.reference)
        return y.view(*x.shape[:-1], self.rep.size)

    def extra_repr(self) -> str:
        return f"{self.rep}, free Swish path: {'yes' if self.weight is not None else 'no'}"


class RPPEMLPBlock(_Pathways, nn.Module):
    """``EMLPBlock`` with RPP pathways: RPP linear -> bilinear with a shortcut -> RPP gated nonlinearity.

    The bilinear layer is kept, equivariant only, as in the authors' ``MixedEMLPBlock`` (``rpp/objax.py``, ``rpp/
    flax.py``); its weights take the equivariant prior, so ``prior_equivariant=0`` removes it too."""

    def __init__(self, rep_in, rep_out, group=None, prior_equivariant: float = THESIS_EQUIVARIANT,
                 prior_free: float = THESIS_FREE, free_scale: float = FREE_SCALE, dtype=None, device=None):
        super().__init__()
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        self.prior_equivariant = _variance(prior_equivariant, "prior_equivariant")
        self.prior_free = _variance(prior_free, "prior_free")
        wide = gated(self.rep_out)
        self.linear = RPPLinear(self.rep_in, wide, prior_equivariant=prior_equivariant, prior_free=prior_free,
                                free_scale=free_scale, dtype=dtype, device=device)
        self.bilinear = BiLinear(wide, wide, dtype=dtype, device=device) if self.prior_equivariant > 0 else None
        self.nonlinearity = RPPGatedNonlinearity(self.rep_out, prior_free=prior_free, free_scale=free_scale,
                                                 device=device)

    def pathway_parameters(self) -> dict[str, list]:
        lin, nl = self.linear.pathway_parameters(), self.nonlinearity.pathway_parameters()
        bi = list(self.bilinear.parameters()) if self.bilinear is not None else []
        return {"equivariant": lin["equivariant"] + bi, "free": lin["free"] + nl["free"]}

    def forward(self, x):
        lin = self.linear(x)
        return self.nonlinearity(lin + self.bilinear(lin) if self.bilinear is not None else lin)


class RPPEMLP(_Pathways, nn.Module):
    """RPP-EMLP (thesis section 3.4): ``EMLP`` with every linear layer and nonlinearity given a free pathway; the
    same hidden reps (``hidden_reps``), the same bilinear layers.

    ``free_fractions()``: ``|W_free| / |W|`` of each linear layer (one per block, then the output layer);
    ``layer_equivariance_errors()``: each block's (its linear layer, bilinear and nonlinearity, both free paths
    included), then the output layer's; ``prior_penalty()``: the thesis's MAP penalty (to add to a summed NLL)."""

    def __init__(self, rep_in, rep_out, group, channels=384, layers: int = 3,
                 prior_equivariant: float = THESIS_EQUIVARIANT, prior_free: float = THESIS_FREE,
                 free_scale: float = FREE_SCALE, dtype=None, device=None):
        super().__init__()
        self.prior_equivariant = _variance(prior_equivariant, "prior_equivariant")
        self.prior_free = _variance(prior_free, "prior_free")
        self.group = group
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        reps = [self.rep_in, *hidden_reps(channels, layers, group)]
        self.hidden = reps[1:]
        kw = dict(prior_equivariant=prior_equivariant, prior_free=prior_free, free_scale=free_scale, dtype=dtype,
                  device=device)
        self.network = nn.Sequential(*[RPPEMLPBlock(a, b, **kw) for a, b in zip(reps, reps[1:])],
                                     RPPLinear(reps[-1], self.rep_out, **kw))

    def forward(self, x):
        return self.network(x)

    def pathway_parameters(self) -> dict[str, list]:
        out: dict[str, list] = {"equivariant": [], "free": []}
        for module in self.network:
            for k, v in module.pathway_parameters().items():
                out[k] += v
        return out

    def linear_layers(self) -> list[RPPLinear]:
        return [m.linear for m in self.network[:-1]] + [self.network[-1]]

    def free_fractions(self) -> list[float]:
        return [layer.free_fraction() for layer in self.linear_layers()]

    def layer_equivariance_errors(self, n: int = 5, seed: int = 0) -> list[float]:
        return [equivariance_error(m, n=n, seed=seed) for m in self.network]

    def equivariance_error(self, n: int = 5, seed: int = 0) -> float:
        return equivariance_error(self, n=n, seed=seed)


# ---------------------------------------------------------------------- the two ways to regularise
def _pathways(model) -> dict[str, list]:
    if not hasattr(model, "pathway_parameters"):
        raise PriorError(f"{type(model).__name__} has no RPP pathways (an RPPLinear, RPPEMLP, ... is needed)")
    return model.pathway_parameters()


def _zero(pathways: dict) -> torch.Tensor:
    ref = next(iter(p for v in pathways.values() for p in v), None)
    return torch.zeros((), device=ref.device if ref is not None else None)


def _add_grad(pathways: dict, coefficient: dict) -> None:
    """``p.grad += c p`` for every parameter of each pathway (``.grad = c p`` where there is none yet)."""
    with torch.no_grad():
        for kind, c in coefficient.items():
            params = [q for q in pathways[kind]] if c else []
            have = [q for q in params if q.grad is not None]
            if have:
                torch._foreach_add_([q.grad for q in have], have, alpha=c)
            for q in params:
                if q.grad is None:
                    q.grad = q.detach() * c


@dataclass(frozen=True)
class Prior:
    """The thesis's MAP objective: Gaussian priors of variances ``equivariant`` and ``free`` (section 3.5.1:
    1e5 and 1).  ``loss(model, nll)``: ``nll.sum()`` (per-example negative log-likelihoods) + ``penalty(model)``.
    ``math.inf``: a flat prior on that pathway; 0: the model must not have that pathway."""

    equivariant: float = THESIS_EQUIVARIANT
    free: float = THESIS_FREE

    def __post_init__(self):
        object.__setattr__(self, "equivariant", _variance(self.equivariant, "the equivariant prior variance"))
        object.__setattr__(self, "free", _variance(self.free, "the free prior variance"))

    def penalty(self, model) -> torch.Tensor:
        """``|theta_eq|^2 / (2 s_eq^2) + |theta_free|^2 / (2 s_free^2)`` over ``model``'s pathways."""
        p, total = _pathways(model), None
        for kind, variance in (("equivariant", self.equivariant), ("free", self.free)):
            if not p[kind] or math.isinf(variance):
                continue
            if variance == 0:
                raise PriorError(f"the prior's {kind} variance is 0 but the model has {kind} parameters: build the "
                                 f"model with prior_{kind}=0 instead")
            term = _sq(p[kind]) / (2 * variance)
            total = term if total is None else total + term
        return total if total is not None else _zero(p)

    def loss(self, model, nll: torch.Tensor) -> torch.Tensor:
        return nll.sum() + self.penalty(model)

    def add_grad(self, model) -> None:
        """Add the penalty's gradient ``theta / s^2`` to every parameter's ``.grad`` in place (after
        ``nll.sum().backward()``, before the optimizer's step): the step of ``loss``, without the penalty's autograd
        graph (RPP-EMLP at 384 channels: 0.2 ms, not 1.5 ms, of CPU a step)."""
        p = _pathways(model)
        for kind, variance in (("equivariant", self.equivariant), ("free", self.free)):
            if p[kind] and variance == 0:
                raise PriorError(f"the prior's {kind} variance is 0 but the model has {kind} parameters: build the "
                                 f"model with prior_{kind}=0 instead")
        _add_grad(p, {k: 0.0 if math.isinf(v) else 1 / v for k, v in (("equivariant", self.equivariant),
                                                                      ("free", self.free)) if v > 0})


@dataclass(frozen=True)
class WeightDecay:
    """The authors' runners: ``l_eq |theta_eq|^2 + l_free |theta_free|^2`` added to a *mean* loss.
    ``loss(model, losses)``: ``losses.mean()`` (the per-element losses the runner averages) + ``penalty(model)``;
    ``as_prior(n_data)``: the same objective as a MAP prior on a summed loss (variance ``1 / (2 N l)``)."""

    equivariant: float
    free: float

    def __post_init__(self):
        object.__setattr__(self, "equivariant", _variance(self.equivariant, "the equivariant weight decay"))
        object.__setattr__(self, "free", _variance(self.free, "the free weight decay"))

    def penalty(self, model) -> torch.Tensor:
        """``l_eq |theta_eq|^2 + l_free |theta_free|^2`` over ``model``'s pathways."""
        p, total = _pathways(model), None
        for kind, decay in (("equivariant", self.equivariant), ("free", self.free)):
            if p[kind] and decay > 0:
                term = decay * _sq(p[kind])
                total = term if total is None else total + term
        return total if total is not None else _zero(p)

    def loss(self, model, losses: torch.Tensor) -> torch.Tensor:
        return losses.mean() + self.penalty(model)

    def add_grad(self, model) -> None:
        """Add the decays' gradient ``2 l theta`` to every parameter's ``.grad`` in place (``Prior.add_grad``)."""
        _add_grad(_pathways(model), {"equivariant": 2 * self.equivariant, "free": 2 * self.free})

    def as_prior(self, n_data: int) -> Prior:
        """The same objective as a MAP prior: times ``n_data`` (how many terms the mean averages: examples, or
        examples x outputs for an element-wise mean) it is the summed loss plus ``N l |theta|^2``, a Gaussian prior
        of variance ``1 / (2 N l)`` -- the summed losses read as negative log-likelihoods."""
        if n_data <= 0:
            raise PriorError(f"n_data must be a positive count, not {n_data!r}")
        return Prior(*(math.inf if d == 0 else 1 / (2 * n_data * d) for d in (self.equivariant, self.free)))


PRIORS = {  # the thesis's text (the default) and the authors' runners' defaults (on this module's pathway split:
    # the inertia runner decays only its linear weights and Swish coefficients, the pendulum runner every parameter)
    "thesis": Prior(THESIS_EQUIVARIANT, THESIS_FREE),  # thesis section 3.5.1
    "runner-inertia": WeightDecay(equivariant=1e-3, free=1e2),  # experiments/*/inertia_runner.py
    "runner-pendulum": WeightDecay(equivariant=1e-4, free=1.0),  # experiments/*/pendulum_runner.py
}
