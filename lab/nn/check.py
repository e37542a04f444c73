"""Is a model equivariant?  Measured for sampled group elements, by the EMLP library's own metric.

Elements come from ``group.sample`` (``lab.groups.base``): finite groups uniformly (Schreier-Sims for signed
permutations), Lie groups by exponentials of random Lie-algebra elements times random words in the discrete
generators -- never only the generators.  The error of one element is the EMLP test suite's scale-adjusted relative
error: rms(a - b) / max(rms(a) + rms(b), rms(rho(g) - I), 1e-7) with a = f(rho_in(g) x), b = rho_out(g) f(x);
its tests ask < 1e-4 in float32.
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
