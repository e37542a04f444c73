"""A pruning baseline for the subspace compression bound (the thesis's Table A.18 compares "ID + Quant + Arith" with
"Pruning + Quant + Arith"): the same network, the same data, the same quantization, arithmetic coding and bound, with
the random subspace replaced by magnitude pruning.

``pruned_bound``: train w in the random d-dimensional subspace as ``compute_bound`` does (theta = theta_0 + P w), keep
the ``k`` coordinates of the update P w largest in magnitude (the rest of theta stays at its initialisation theta_0,
which the decoder regenerates from the seed, as for the subspace), fine-tune those k coordinates from their pruned
values, then quantize, code and bound them exactly as ``compute_bound`` does.  The description pays, beside the coded
values and the codebook, the positions of the kept coordinates: log2 C(D, k) bits (``index_bits``).  With ``k = d``
the baseline keeps as many free numbers as the subspace description (matched sparsity).
"""
from __future__ import annotations

import math

import torch

from .errors import BoundsError
from .projectors import Projector


class CoordinateProjector(Projector):
    """P w placing w's entries at fixed coordinates of R^D (zero elsewhere): a subspace of chosen axes."""

    kind = "coordinates"

    def __init__(self, D: int, index, dtype=torch.float32, device="cpu"):
        index = torch.as_tensor(index, dtype=torch.long, device=device).reshape(-1)
        super().__init__(D, int(index.numel()))
        if index.numel() and (int(index.min()) < 0 or int(index.max()) >= D or len(set(index.tolist())) != len(index)):
            raise BoundsError("coordinates must be distinct and lie in 0 .. D - 1")
        self.register_buffer("index", index)
        self._float = dtype

    def forward(self, w):
        return torch.zeros(self.D, dtype=w.dtype, device=w.device).index_add(0, self.index, w)

    def numbers(self) -> int:
        return 0  # nothing random: the positions are part of the description (``index_bits``)

    def _dtype(self):
        return self._float


def index_bits(D: int, k: int) -> float:
    """log2 C(D, k): the bits that name which k of D coordinates are kept."""
    if not 0 <= k <= D:
        raise BoundsError(f"cannot keep {k} of {D} coordinates")
    return (math.lgamma(D + 1) - math.lgamma(k + 1) - math.lgamma(D - k + 1)) / math.log(2)


def pruned_bound(model_fn, data, d: int, k: int, settings, seed: int = 0, extra_bits: float = 0.0, device="cpu",
                 control=None) -> dict:
    """The pruning baseline's ``compute_bound`` row (plus ``kept``, ``index_bits`` and ``subspace_d``):
    ``model_fn()`` builds the model at its initialisation theta_0 (called twice: the subspace run, the pruned run);
    the update of the d-dimensional subspace run (``settings``' steps, no quantization) is pruned to its ``k``
    largest coordinates, which are fine-tuned, quantized, coded and bounded with ``settings``."""
    from dataclasses import replace

    from .subspace import Subspace, compute_bound

    if not 1 <= k:
        raise BoundsError(f"the pruned baseline keeps at least one coordinate, got k = {k}")
    dense = compute_bound(model_fn(), data, d, replace(settings, quant_steps=0), seed=seed, device=device,
                          control=control, keep=True)
    net = Subspace(model_fn(), d, settings.projector, seed=seed)
    with torch.no_grad():
        update = net.P(torch.as_tensor(dense["weights"]["w"], dtype=net.theta0.dtype))
    k = min(int(k), net.D)
    index = torch.sort(torch.topk(update.abs(), k).indices).values
    P = CoordinateProjector(net.D, index, dtype=net.theta0.dtype)
    bits = index_bits(net.D, k)
    row = compute_bound(model_fn(), data, k, settings, seed=seed, extra_bits=extra_bits + bits, device=device,
                        control=control, P=P, w_start=update[index])
    return {**row, "kept": k, "index_bits": bits, "subspace_d": int(d)}
