"""Algorithm 2 of the thesis: train in a random subspace, quantize with learned levels, code, bound.

``Subspace`` re-parametrizes any torch model as theta = theta_0 + P w (eq. 5.3): theta_0 is the model's
initialisation and P a projector of ``lab.bounds.projectors``, both regenerated from the seed by whoever decodes the
description (the prior conditions on the seed); only w in R^d is trained.  ``compute_bound`` then runs the rest of
Algorithm 2 for one d: quantization-aware training of w and its L levels (``lab.bounds.quantize``), the codebook
rounded to half precision, the quantized model's 0-1 training error, the weights' level indices arithmetic-coded
(``lab.bounds.coding``), and Catoni's bound on the description's length (``lab.bounds.bound``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .bound import DELTA, bound_from_bits, description_bits
from .coding import coded_bits, ideal_bits
from .errors import BoundsError
from .projectors import make_projector
from .quantize import assign, half_precision, initial_levels, quantize

#: "auto" picks ``dense`` while D x d is at most this many numbers, else ``kron-product``
DENSE_NUMBERS = 2**22
#: quantization-aware training measures the quantized training error every this many steps
CHECK_EVERY = 10


def auto_projector(D: int, d: int) -> str:
    return "dense" if D * d <= DENSE_NUMBERS else "kron-product"


@dataclass(frozen=True)
class BoundSettings:
    """One bound evaluation's training: Adam on w (``steps``, ``lr``, ``batch``), then ``quant_steps`` of
    quantization-aware training at ``quant_lr`` with ``levels`` levels started by ``level_init``."""

    steps: int = 600
    lr: float = 0.02
    batch: int = 128
    levels: int = 7
    level_init: str = "uniform"
    quant_steps: int = 150
    quant_lr: float = 0.003
    projector: str = "auto"
    delta: float = DELTA


class Subspace(nn.Module):
    """``model`` with its parameters theta_0 + P w; ``forward(x, w)`` evaluates it at any w (default: ``self.w``)."""

    def __init__(self, model: nn.Module, d: int, projector: str = "auto", seed: int = 0, P=None):
        super().__init__()
        self.model = model
        self.names = [n for n, _ in model.named_parameters()]
        self.shapes = [p.shape for _, p in model.named_parameters()]
        theta0 = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
        self.D, self.d = int(theta0.numel()), int(d)
        self.register_buffer("theta0", theta0)
        if P is None:  # ``P``: a projector built by the caller (``lab.bounds.prune``'s coordinates), else drawn here
            kind = auto_projector(self.D, self.d) if projector == "auto" else projector
            P = make_projector(kind, self.D, self.d, seed=seed + 104729, dtype=theta0.dtype, device=theta0.device)
        elif (P.D, P.d) != (self.D, self.d):
            raise BoundsError(f"a projector from R^{P.d} to R^{P.D} given for d = {self.d}, D = {self.D}")
        self.P = P.to(theta0.device)
        self.w = nn.Parameter(torch.zeros(self.d, dtype=theta0.dtype, device=theta0.device))
        for p in model.parameters():
            p.requires_grad_(False)

    @property
    def projector_kind(self) -> str:
        return self.P.kind

    def parameters_at(self, w: torch.Tensor) -> dict:
        theta = self.theta0 + self.P(w) if self.d else self.theta0
        out, i = {}, 0
        for name, shape in zip(self.names, self.shapes):
            k = math.prod(shape)
            out[name] = theta[i:i + k].reshape(shape)
            i += k
        return out

    def forward(self, x, w=None):
        return torch.func.functional_call(self.model, self.parameters_at(self.w if w is None else w), (x,))


def error_rate(net: Subspace, x, y, w=None, batch: int = 2048) -> float:
    """The 0-1 error of ``net`` at ``w`` on (x, y)."""
    wrong = 0
    with torch.no_grad():
        for i in range(0, len(y), batch):
            wrong += int((net(x[i:i + batch], w).argmax(-1) != y[i:i + batch]).sum())
    return wrong / max(len(y), 1)


def _batches(n: int, batch: int, steps: int, seed: int):
    g = torch.Generator().manual_seed(int(seed))
    order, k = torch.randperm(n, generator=g), 0
    for _ in range(steps):
        if k + batch > n:
            order, k = torch.randperm(n, generator=g), 0
        yield order[k:k + batch]
        k += batch


def compute_bound(model: nn.Module, data, d: int, settings: BoundSettings = BoundSettings(), seed: int = 0,
                  extra_bits: float = 0.0, device="cpu", control=None, on_step=None, keep: bool = False,
                  P=None, w_start=None) -> dict:
    """Algorithm 2 for one subspace dimension ``d``: returns ``d``, ``D``, ``projector``, ``train_error`` (of the
    quantized model, what the bound uses), ``train_error_float`` (before quantization), ``test_error`` (quantized),
    ``coded_bits`` (arithmetic coding), ``ideal_bits`` (ceil(d H) + 2), ``compressed_bits`` (the whole
    description: coded weights + codebook + counts + ``extra_bits``), ``kl``, ``bound``, ``levels_used``,
    ``seconds``.  ``on_step(phase, step, total, loss)`` is called every step ("train" then "quantize").  ``keep``:
    also ``weights`` -- numpy arrays ``w`` (after subspace training), ``w_quantized`` (before rounding: the
    quantization-aware training's kept iterate), ``w_hat`` (the coded weights), ``levels_start``, ``levels`` (float16
    codebook) and ``symbols`` (each weight's level) -- for figures of the pieces.  ``P``, ``w_start``: a projector
    built by the caller and w's starting point (default: one drawn from the seed, and zero) -- the pruned baseline
    of ``lab.bounds.prune``."""
    from ..control import checkpoint

    if d < 0:
        raise BoundsError(f"the subspace dimension must be non-negative, got {d}")
    t0 = time.monotonic()
    device = torch.device(device)
    model = model.to(device)
    net = Subspace(model, d, settings.projector, seed=seed, P=P).to(device)
    if w_start is not None:
        with torch.no_grad():
            net.w.copy_(torch.as_tensor(w_start, dtype=net.w.dtype, device=net.w.device))
    x, y = data.x_train.to(device), data.y_train.to(device)
    n, loss_fn = len(y), nn.CrossEntropyLoss()
    if d > 0:
        opt = torch.optim.Adam([net.w], lr=settings.lr)
        for step, idx in enumerate(_batches(n, settings.batch, settings.steps, seed + 1), 1):
            checkpoint(control)
            idx = idx.to(device)
            loss = loss_fn(net(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if on_step:
                on_step("train", step, settings.steps, float(loss.detach()))
    float_error = error_rate(net, x, y)
    levels = min(settings.levels, d)
    if d > 0:
        c = nn.Parameter(initial_levels(net.w, levels, settings.level_init, seed))
        start = c.detach().clone()
        w = nn.Parameter(net.w.detach().clone())
        opt = torch.optim.Adam([w, c], lr=settings.quant_lr)

        def quantized(w_, c_):
            c16_ = half_precision(c_)
            return c16_[assign(w_, c16_)].detach()

        # the iterate with the lowest quantized training error is kept: any training procedure may choose its
        # output after seeing the data -- the prior (the description's format) does not depend on it
        best = (error_rate(net, x, y, quantized(w, c)), w.detach().clone(), c.detach().clone())
        for step, idx in enumerate(_batches(n, settings.batch, settings.quant_steps, seed + 2), 1):
            checkpoint(control)
            idx = idx.to(device)
            loss = loss_fn(net(x[idx], quantize(w, c)), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % CHECK_EVERY == 0 or step == settings.quant_steps:
                err = error_rate(net, x, y, quantized(w, c))
                if err < best[0]:
                    best = (err, w.detach().clone(), c.detach().clone())
            if on_step:
                on_step("quantize", step, settings.quant_steps, float(loss.detach()))
        c16 = half_precision(best[2])
        q = assign(best[1], c16)
        w_hat = c16[q].detach()
        symbols = q.cpu().numpy()
        bits, ideal = coded_bits(symbols, levels), ideal_bits(symbols)
        used = int(len(set(symbols.tolist())))
    else:
        w_hat, bits, ideal, used = net.w.detach(), 0, 0, 0
        start = c16 = torch.zeros(0)
        symbols, best = None, (None, net.w.detach(), None)
    train_error = error_rate(net, x, y, w_hat)
    test_error = error_rate(net, data.x_test.to(device), data.y_test.to(device), w_hat)
    total = description_bits(bits, levels, d, extra_bits)
    b = bound_from_bits(train_error, total, n, settings.delta)
    return {"d": int(d), "D": net.D, "projector": net.projector_kind if d else "none", "train_error": train_error,
            "train_error_float": float_error, "test_error": test_error, "coded_bits": int(bits),
            "ideal_bits": int(ideal), "compressed_bits": float(total), "kl": b["kl"], "bound": b["bound"],
            "levels": int(levels), "levels_used": used, "n": n, "seconds": time.monotonic() - t0,
            **({"weights": {"w": net.w.detach().cpu().numpy(), "w_quantized": best[1].cpu().numpy(),
                            "w_hat": w_hat.cpu().numpy(), "levels_start": start.cpu().numpy(),
                            "levels": c16.detach().cpu().numpy(),
                            "symbols": symbols if symbols is not None else np.zeros(0, dtype=np.int64)}}
               if keep else {})}
