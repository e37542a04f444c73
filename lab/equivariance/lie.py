"""Lie derivatives of any torch model and the local equivariance error (thesis section 4.4, eqs. 4.3-4.4).

For a one-parameter group acting on inputs by ``rho_in(g_t)`` and on outputs by ``rho_out(g_t)``, the Lie derivative
of ``f`` at ``x`` is ``L_X f(x) = d/dt rho_out(g_{-t}) f(rho_in(g_t) x)|_{t=0} = J_f(x) X_in x - X_out f(x)``, with
``X = d/dt rho(g_t)|_0`` the generator.  It is zero for every ``x`` exactly when ``f`` is equivariant along the flow
(appendix A.3.1.1), and ``LEE(f) = E_x |L_X f(x)|^2 / dim(out)`` (eq. 4.4) summarises it.

* Images: ``lie_derivative(model, x, transform)`` with a ``lab.equivariance.transforms.ImageTransform``.  An output of
  shape (N, C, h, w) is read as an image and moved back (``rho_out`` = the same geometric transformation at its size);
  any other output is read as invariant (``rho_out`` = identity, as for class scores); ``output=`` overrides.
* Matrix groups: ``generator_lie_derivatives(model, x, rep_in, rep_out, group)``: ``L_A f(x) = J_f(x) drho_in(A) x -
  drho_out(A) f(x)`` for every Lie-algebra basis element ``A`` of the group, and ``generator_lee``, one LEE each.
* Finite groups and discrete generators: ``discrete_equivariance_errors``, the relative error
  ``|f(rho_in(g) x) - rho_out(g) f(x)| / |f(x)|`` per sampled element and input (a Lie derivative needs a flow).

Autodiff.  ``J_f(x) v`` is a Jacobian-vector product by forward mode, ``torch.func.jvp`` (``method="forward"``;
the default ``"auto"`` tries it first): one forward pass carries the tangent, whatever the output size.  The image
transformations are written so that forward mode goes through them (``grid_sample`` has no forward-mode rule in
this torch).  A model whose own operations lack forward-mode rules (EMLP's bilinear layer: a custom
``autograd.Function`` without ``jvp``) goes, under ``"auto"`` or always with ``method="double-backward"``, by
``J v = d/du <u, vjp(u)> v``: two reverse passes, the trick the thesis's code uses (Figure 4.3,
``torch.autograd.functional.jvp``); both agree to rounding (tested).  Models are evaluated in whatever mode they
are in (``model.eval()`` first for BatchNorm and dropout).

>>> import torch
>>> from lab.equivariance.transforms import ImageTransform
>>> mean = lambda x: x.mean(dim=(1, 2, 3))[:, None]   # invariant under periodic translation
>>> x = torch.randn(2, 1, 6, 6, dtype=torch.float64)
>>> float(lie_derivative(mean, x, ImageTransform("translate-x")).abs().max()) < 1e-12
True
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from .transforms import ImageTransform, MeterError

METHODS = ("auto", "forward", "double-backward")
OUTPUTS = ("auto", "invariant", "image")


def _no_forward_rule(err: RuntimeError) -> bool:
    msg = str(err)
    return any(s in msg for s in ("forward AD", "forward-mode", "functorch", "setup_context", "jvp"))


def jvp(f: Callable, x: torch.Tensor, v: torch.Tensor, method: str = "auto") -> tuple[torch.Tensor, torch.Tensor]:
    """``(f(x), J_f(x) v)``; ``method``: ``"forward"`` (``torch.func.jvp``), ``"double-backward"`` (two reverse
    passes: ``u -> u^T J`` is linear in ``u``, and its gradient along ``v`` is ``J v``) or ``"auto"``: forward, and
    double-backward when an operation of ``f`` has no forward-mode rule (torch raises; e.g. a custom
    ``autograd.Function`` without ``jvp``, as ``lab.nn.bilinear``'s batched product in EMLP)."""
    if method == "auto":
        try:
            return torch.func.jvp(f, (x,), (v,))
        except RuntimeError as err:
            if not _no_forward_rule(err):
                raise
            method = "double-backward"
    if method == "forward":
        return torch.func.jvp(f, (x,), (v,))
    if method != "double-backward":
        raise MeterError(f"unknown autodiff method {method!r}: choose one of {', '.join(METHODS)}")
    with torch.enable_grad():
        xx = x.detach().requires_grad_(True)
        y = f(xx)
        u = torch.zeros_like(y, requires_grad=True)
        (uJ,) = torch.autograd.grad(y, xx, u, create_graph=True)
        (Jv,) = torch.autograd.grad(uJ, u, v)
    return y.detach(), Jv


def is_image(t: torch.Tensor) -> bool:
    """An (N, C, h, w) tensor with more than one pixel: read as an image that the transformation moves."""
    return t.dim() == 4 and tuple(t.shape[-2:]) != (1, 1)


def _output_is_image(y: torch.Tensor, output: str) -> bool:
    if output not in OUTPUTS:
        raise MeterError(f"unknown output reading {output!r}: choose one of {', '.join(OUTPUTS)}")
    if output == "image" and y.dim() != 4:
        raise MeterError(f"output='image' needs an (N, C, H, W) output, the model gave shape {tuple(y.shape)}")
    return output == "image" or (output == "auto" and is_image(y))


def _check_images(x):
    if not isinstance(x, torch.Tensor) or x.dim() != 4:
        raise MeterError(f"the inputs must be images (N, C, H, W), got {getattr(x, 'shape', type(x).__name__)}")
    if not x.is_floating_point():
        raise MeterError(f"the inputs must be floating point, got {x.dtype}")


def lie_derivative(model: Callable, x: torch.Tensor, transform: ImageTransform, output: str = "auto",
                   method: str = "auto") -> torch.Tensor:
    """``L_X f(x)`` for each input, shape of ``model(x)``: ``J_f(x) X x`` for an invariant output, minus the output's
    own tangent ``X f(x)`` for an image output (``output``: ``"auto"``, ``"invariant"``, ``"image"``)."""
    _check_images(x)
    if not isinstance(transform, ImageTransform):
        raise MeterError(f"transform must be an ImageTransform, got {type(transform).__name__}")
    transform = transform.at(x.shape[-2:])
    y, Jv = jvp(model, x, transform.tangent(x), method)
    if _output_is_image(y, output):
        return Jv - transform.tangent(y)
    return Jv


def lee_per_input(model, x, transform, output: str = "auto", method: str = "auto") -> torch.Tensor:
    """``|L_X f(x_n)|^2 / dim(out)`` for each input (N,): eq. 4.4 before the average over the data."""
    L = lie_derivative(model, x, transform, output, method)
    return L.reshape(L.shape[0], -1).pow(2).mean(dim=1)


def lee(model, x, transform, output: str = "auto", method: str = "auto") -> float:
    """``LEE(f) = E_x |L_X f(x)|^2 / dim(out)`` (eq. 4.4), the expectation over the batch ``x``; its standard error
    over inputs (the thesis's error bars) is ``lee_per_input(...).std() / sqrt(N)``."""
    return float(lee_per_input(model, x, transform, output, method).detach().mean())


# ---------------------------------------------------------------------------------------------- matrix groups
def _reps(model, rep_in, rep_out, group):
    rep_in = rep_in if rep_in is not None else getattr(model, "rep_in", None)
    rep_out = rep_out if rep_out is not None else getattr(model, "rep_out", None)
    if rep_in is None or rep_out is None:
        raise MeterError("give rep_in and rep_out (the model has no rep_in / rep_out of its own)")
    group = group if group is not None else getattr(rep_in, "group", None)
    if group is None:
        raise MeterError("give the group (the input rep is not bound to one)")
    return rep_in, rep_out, group


def _matrix(m, like: torch.Tensor) -> torch.Tensor:
    m = np.array(m)  # a writable copy (group matrices are read-only views)
    if np.iscomplexobj(m) and not like.is_complex():
        if np.abs(m.imag).max(initial=0.0) > 1e-12:
            raise MeterError("the group acts by complex matrices: give complex inputs")
        m = m.real
    return torch.as_tensor(m, dtype=like.dtype, device=like.device)


def _vectors(x):
    if not isinstance(x, torch.Tensor) or x.dim() != 2:
        raise MeterError(f"the inputs must be a batch of vectors (N, d), got {getattr(x, 'shape', type(x).__name__)}")


def _sizes(x, rep_in):
    if x.shape[1] != rep_in.size:
        raise MeterError(f"the inputs have {x.shape[1]} features, the input rep {rep_in} has size {rep_in.size}")


def generator_lie_derivatives(model, x, rep_in=None, rep_out=None, group=None,
                              method: str = "auto") -> torch.Tensor:
    """``L_A f(x) = J_f(x) drho_in(A) x - drho_out(A) f(x)`` for every Lie-algebra basis element ``A`` of ``group``:
    (D, N, d_out), D = ``group.num_lie`` (0 for a finite group).  Reps and group default to the model's ``rep_in``,
    ``rep_out`` and its input rep's group (EMLP, RPP-EMLP)."""
    _vectors(x)
    rep_in, rep_out, group = _reps(model, rep_in, rep_out, group)
    _sizes(x, rep_in)
    out = []
    for A in group.lie:
        din, dout = _matrix(rep_in.drho(A), x), None
        y, Jv = jvp(model, x, x @ din.T, method)
        dout = _matrix(rep_out.drho(A), y)
        out.append(Jv - y @ dout.T)
    if not out:
        with torch.no_grad():
            y = model(x)
        return y.new_zeros((0, *y.shape))
    return torch.stack(out)


def generator_lee(model, x, rep_in=None, rep_out=None, group=None, method: str = "auto") -> list[float]:
    """One LEE per Lie-algebra generator: ``E_x |L_A f(x)|^2 / d_out`` (eq. 4.4 along each basis element)."""
    L = generator_lie_derivatives(model, x, rep_in, rep_out, group, method)
    return [float(Li.detach().abs().pow(2).mean()) for Li in L]


def discrete_equivariance_errors(model, x, rep_in=None, rep_out=None, group=None, n: int = 8, seed: int = 0,
                                 generators: bool = True) -> torch.Tensor:
    """``|f(rho_in(g) x) - rho_out(g) f(x)| / |f(x)|`` (Euclidean norms per input) for ``n`` elements sampled by
    ``group.sample`` (uniform for finite groups), preceded by the group's discrete generators when ``generators``:
    (elements, N).  0 where ``f(x) = 0`` and the two sides agree; the thesis's symmetric ``|a - b| / (|a| + |b|)``
    is ``lab.nn.check.rel_err``."""
    _vectors(x)
    rep_in, rep_out, group = _reps(model, rep_in, rep_out, group)
    _sizes(x, rep_in)
    if n < 0:
        raise MeterError(f"n must be >= 0, got {n}")
    elements = list(group.discrete) if generators else []
    if n:
        elements += list(group.sample(n, np.random.default_rng(seed)))
    if not elements:
        raise MeterError(f"no group elements to test: {group} has no discrete generators and n = 0")
    rows = []
    with torch.no_grad():
        fx = model(x)
        for g in elements:
            a = model(x @ _matrix(rep_in.rho(g), x).T)
            b = fx @ _matrix(rep_out.rho(g), fx).T
            num = torch.linalg.vector_norm(a - b, dim=-1)
            den = torch.linalg.vector_norm(fx, dim=-1)
            rows.append(torch.where(den > 0, num / torch.where(den > 0, den, torch.ones_like(den)),
                                    torch.where(num > 0, torch.full_like(num, float("inf")), torch.zeros_like(num))))
    return torch.stack(rows)
