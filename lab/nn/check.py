"""Is a model equivariant?  Measured for sampled group elements, by the EMLP library's own metric.

Elements come from ``group.sample`` (``lab.groups.base``): finite groups uniformly (Schreier-Sims for signed
permutations), Lie groups by exponentials of random Lie-algebra elements times random words in the discrete
generators -- never only the generators.  The error of one element is the EMLP test suite's scale-adjusted relative
error: rms(a - b) / max(rms(a) + rms(b), rms(rho(g) - I), 1e-7) with a = f(rho_in(g) x), b = rho_out(g) f(x);
its tests ask < 1e-4 in float32.

The thesis's own measure (RPP chapter, section 3.5.2, eq. 3.3) is per input: ``EquivErr(f, x) = RelErr(rho_out(g)
f(x), f(rho_in(g) x))`` with ``RelErr(a, b) = |a - b| / (|a| + |b|)`` -- Euclidean norms, no ``rho(g) - I`` term,
so it lies in [0, 1] whatever the scale (``thesis_equivariance_errors``; ``lab.rpp.posterior`` tracks it through
training).  Kept apart from the worst-case metric above: the two answer different questions (is a layer built
right, to float rounding; how equivariant is a learned function, on the data).
"""
from __future__ import annotations

import numpy as np
import torch


def _rms(t: torch.Tensor) -> torch.Tensor:
    return t.abs().pow(2).mean().sqrt()


def scale_adjusted_rel_error(a: torch.Tensor, b: torch.Tensor, g: torch.Tensor) -> float:
    """rms(a - b) / max(rms(a) + rms(b), rms(g - I), 1e-7)."""
    eye = torch.eye(g.shape[-1], dtype=g.dtype, device=g.device)
    scale = torch.maximum(_rms(a) + _rms(b), _rms(g - eye))
    return float(_rms(a - b) / torch.clamp(scale, min=1e-7))


def equivariance_error(model, rep_in=None, rep_out=None, group=None, n: int = 5, batch: int = 16, x=None,
                       seed: int = 0) -> float:
    """The largest scale-adjusted relative error of ``model`` over ``n`` sampled elements (reps and group default
    to the model's ``rep_in``, ``rep_out``, ``group``); ``x``: the inputs (default: standard normal)."""
    rep_in = rep_in if rep_in is not None else model.rep_in
    rep_out = rep_out if rep_out is not None else model.rep_out
    group = group if group is not None else rep_in.group
    rng = np.random.default_rng(seed)
    params = next(iter(model.parameters()), None)
    device = params.device if params is not None else torch.device("cpu")
    dtype = params.dtype if params is not None else torch.get_default_dtype()
    if x is None:
        x = rng.standard_normal((batch, rep_in.size))
        if dtype.is_complex:
            x = x + 1j * rng.standard_normal((batch, rep_in.size))
        x = torch.as_tensor(x, dtype=dtype if dtype.is_complex or dtype.is_floating_point else None, device=device)
    worst = 0.0
    with torch.no_grad():
        fx = model(x)
        for g in group.sample(n, rng):
            Rin = torch.as_tensor(rep_in.rho(g), device=device)
            Rout = torch.as_tensor(rep_out.rho(g), device=device)
            gx = x.to(Rin.dtype) @ Rin.T
            a = model(gx.to(x.dtype) if not gx.is_complex() or x.is_complex() else gx)
            b = fx.to(Rout.dtype) @ Rout.T
            common = torch.promote_types(a.dtype, b.dtype)
            G = torch.as_tensor(g, device=device)
            worst = max(worst, scale_adjusted_rel_error(a.to(common), b.to(common), G))
    return worst


def rel_err(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Eq. 3.3's ``RelErr(a, b) = |a - b| / (|a| + |b|)`` row by row (norms over the last axis).  In [0, 1] by the
    triangle inequality and free of the outputs' scale; 0 where ``a = b`` (also where both are 0)."""
    num = torch.linalg.vector_norm(a - b, dim=-1)
    den = torch.linalg.vector_norm(a, dim=-1) + torch.linalg.vector_norm(b, dim=-1)
    return torch.where(den > 0, num / torch.where(den > 0, den, torch.ones_like(den)), torch.zeros_like(den))


def thesis_equivariance_errors(model, x: torch.Tensor, rho_in: torch.Tensor, rho_out: torch.Tensor) -> torch.Tensor:
    """``EquivErr(f, x_i)`` of thesis eq. 3.3 for every row ``x_i`` of ``x`` (m, d_in), each with its own group
    element: ``rho_in`` (m, d_in, d_in) and ``rho_out`` (m, d_out, d_out) are the stacked ``rho(g_i)`` (built once
    by the caller, so that a curve through training reuses the same inputs and elements).  Returns (m,)."""
    with torch.no_grad():
        a = torch.einsum("nij,nj->ni", rho_out, model(x))  # rho_out(g) f(x)
        b = model(torch.einsum("nij,nj->ni", rho_in, x))  # f(rho_in(g) x)
    return rel_err(a, b)
