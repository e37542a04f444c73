"""Learned quantization of the subspace weights (section 5.4.2).

w_hat_i = c_{q(i)} with q(i) = argmin_k |w_i - c_k|; the levels c are learned with w by the straight-through
estimator of eq. 5.4: d w_hat_i / d w_j = delta_ij and d w_hat_i / d c_k = 1[q(i) = k].  In torch that is
``c[q] + w - w.detach()``: the gather sends each weight's gradient to its level, the identity term to w.
The levels start uniformly spaced between w's minimum and maximum (``uniform``, the thesis's Figure 5.3 setting) or
at k-means centres (``kmeans``, scikit-learn's, Choi et al.'s).
"""
from __future__ import annotations

import numpy as np
import torch

from .errors import BoundsError

#: how the levels start
LEVEL_INITS = ("uniform", "kmeans")


def initial_levels(w: torch.Tensor, levels: int, init: str = "uniform", seed: int = 0) -> torch.Tensor:
    """``levels`` starting values for the codebook from the weights ``w``."""
    if levels < 1:
        raise BoundsError(f"quantization needs at least one level, got {levels}")
    if init not in LEVEL_INITS:
        raise BoundsError(f"unknown level initialisation {init!r}: choose one of {', '.join(LEVEL_INITS)}")
    flat = w.detach().reshape(-1).to(torch.float64).cpu()
    if flat.numel() == 0:
        return torch.zeros(levels, dtype=w.dtype, device=w.device)
    lo, hi = float(flat.min()), float(flat.max())
    if init == "uniform" or flat.numel() <= levels or hi == lo:
        c = torch.linspace(lo, hi, levels, dtype=torch.float64) if levels > 1 else flat.mean().reshape(1)
    else:
        from sklearn.cluster import KMeans

        km = KMeans(n_clusters=levels, n_init=4, random_state=int(seed)).fit(flat.numpy()[:, None])
        c = torch.as_tensor(np.sort(km.cluster_centers_[:, 0]), dtype=torch.float64)
    return c.to(dtype=w.dtype, device=w.device)


def assign(w: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """q: the index of the nearest level of each weight."""
    return (w.detach()[:, None] - c.detach()[None, :]).abs().argmin(1)


def quantize(w: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """w_hat with the straight-through gradients of eq. 5.4 (to w and to c)."""
    q = assign(w, c)
    return c[q] + w - w.detach()


def half_precision(c: torch.Tensor) -> torch.Tensor:
    """The codebook as the description stores it (16 bits a level): rounded through float16."""
    return c.detach().to(torch.float16).to(c.dtype)
