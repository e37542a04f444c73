"""Random subspaces theta = theta_0 + P w (thesis eq. 5.3): the projectors P in R^{D x d} of section 5.4.1.

All three are approximately orthonormal (P^T P ~ I_d) and drawn from a seed, so that the prior -- which conditions on
the seed -- can regenerate them.  Only ``DenseProjector`` ever holds D x d numbers:

* ``dense`` -- P ~ N(0, 1)^{D x d} / sqrt(D) (Li et al. 2018); D d numbers, matvec O(dD).  P^T P = I + O(D^{-1/2}).
* ``kron-sum`` -- P = (1 (x) R1 + R2 (x) 1) / sqrt(2D), R1, R2 ~ N(0, 1)^{sqrt(D) x d}: (P w) reshaped to a
  sqrt(D) x sqrt(D) matrix is M[a, b] = (R2 w)[a] + (R1 w)[b]; 2 d sqrt(D) numbers, matvec O(d sqrt(D) + D).  The
  thesis states P^T P = I + O(D^{-1/2}); its diagonal |R1 e_j|^2 / 2 sqrt(D) + ... spreads by O(D^{-1/4}), which is
  what ``tests/test_bounds.py`` measures.  A row pattern plus a column pattern: whatever d, P spans at most
  2 sqrt(D) - 1 directions (plus the pad's), which is why it trains worse than the others (``bench/bounds.py``).
* ``kron-product`` -- P = Q1 (x) Q2 / sqrt(D), Q1, Q2 ~ N(0, 1)^{sqrt(D) x sqrt(d)}: P w = vec(Q1 W Q2^T) with W the
  sqrt(d) x sqrt(d) reshaping of w; 2 sqrt(dD) numbers, matvec O(sqrt(d) D); P^T P = I + O(D^{-1/4}).

The thesis gives the matvec costs as O(d sqrt(D)) and O(sqrt(dD)): those are the numbers the projectors hold; a
matvec writes D numbers, so its time grows at least like D -- what the Kronecker structure saves is the factor d
(dense) against about sqrt(d) (product) or a constant (sum).

Neither D nor d is a perfect square in general (footnote 2): with s = floor(sqrt(D)) and k = floor(sqrt(d)) the
Kronecker part covers the first s^2 coordinates of theta and the first k (kron-product: k^2; kron-sum: all d)
coordinates of w, and dense N(0, 1)/sqrt(D) blocks pad the rest (the last D - s^2 < 2s + 1 rows, and for
kron-product the last d - k^2 < 2k + 1 columns).  Every column keeps unit expected norm.
"""
from __future__ import annotations

import math

import torch

from .errors import BoundsError

#: the projector kinds, in the order the thesis introduces them (``dense`` is Li et al.'s)
PROJECTORS = ("dense", "kron-sum", "kron-product")


def _gaussian(shape, generator, dtype, device) -> torch.Tensor:
    # drawn on the CPU from the seeded generator, then moved: the same P on every device
    return torch.randn(shape, generator=generator, dtype=torch.float64).to(dtype=dtype, device=device)


class Projector(torch.nn.Module):
    """P as a linear map R^d -> R^D: ``forward(w)`` is P w (differentiable in w); ``transpose(v)`` is P^T v."""

    kind = ""

    def __init__(self, D: int, d: int):
        super().__init__()
        if D < 1 or d < 0:
            raise BoundsError(f"a projector needs D >= 1 and d >= 0, got D={D}, d={d}")
        self.D, self.d = int(D), int(d)

    def dense(self) -> torch.Tensor:
        """P itself (D x d), column by column through ``forward``: for tests and small cases only."""
        eye = torch.eye(self.d, dtype=self._dtype(), device=self._device())
        cols = [self.forward(eye[j]) for j in range(self.d)]
        return torch.stack(cols, 1) if cols else torch.zeros(self.D, 0, dtype=self._dtype())

    def gram(self) -> torch.Tensor:
        """P^T P (d x d): the identity up to the projector's order (small cases: it builds P column by column)."""
        P = self.dense()
        return P.T @ P

    def transpose(self, v: torch.Tensor) -> torch.Tensor:
        w = torch.zeros(self.d, dtype=v.dtype, device=v.device, requires_grad=True)
        (g,) = torch.autograd.grad(self.forward(w), w, grad_outputs=v)
        return g

    def numbers(self) -> int:
        """How many random numbers this projector holds (D x d for dense; O(d sqrt(D)) or O(sqrt(dD)) otherwise)."""
        return sum(b.numel() for b in self.buffers())

    def _dtype(self):
        return next(self.buffers()).dtype if list(self.buffers()) else torch.float32

    def _device(self):
        return next(self.buffers()).device if list(self.buffers()) else torch.device("cpu")


class DenseProjector(Projector):
    kind = "dense"

    def __init__(self, D, d, seed=0, dtype=torch.float32, device="cpu"):
        super().__init__(D, d)
        g = torch.Generator().manual_seed(int(seed))
        self.register_buffer("P", _gaussian((self.D, self.d), g, dtype, device) / math.sqrt(self.D))

    def forward(self, w):
        return self.P @ w

    def dense(self):
        return self.P


class KronSumProjector(Projector):
    kind = "kron-sum"

    def __init__(self, D, d, seed=0, dtype=torch.float32, device="cpu"):
        super().__init__(D, d)
        g = torch.Generator().manual_seed(int(seed))
        self.s = math.isqrt(self.D)
        self.register_buffer("R1", _gaussian((self.s, self.d), g, dtype, device))
        self.register_buffer("R2", _gaussian((self.s, self.d), g, dtype, device))
        # the last D - s^2 coordinates: a dense pad (fewer than 2 s + 1 rows)
        self.register_buffer("rows", _gaussian((self.D - self.s * self.s, self.d), g, dtype, device)
                             / math.sqrt(self.D))

    def forward(self, w):
        a, b = self.R2 @ w, self.R1 @ w  # (R2 (x) 1) w and (1 (x) R1) w, each s numbers
        square = (a[:, None] + b[None, :]).reshape(-1) / math.sqrt(2 * self.s * self.s)
        return torch.cat([square * math.sqrt(self.s * self.s / self.D), self.rows @ w])


class KronProductProjector(Projector):
    kind = "kron-product"

    def __init__(self, D, d, seed=0, dtype=torch.float32, device="cpu"):
        super().__init__(D, d)
        g = torch.Generator().manual_seed(int(seed))
        self.s, self.k = math.isqrt(self.D), math.isqrt(self.d)
        self.register_buffer("Q1", _gaussian((self.s, self.k), g, dtype, device))
        self.register_buffer("Q2", _gaussian((self.s, self.k), g, dtype, device))
        pad_rows, pad_cols = self.D - self.s * self.s, self.d - self.k * self.k
        self.register_buffer("rows", _gaussian((pad_rows, self.d), g, dtype, device) / math.sqrt(self.D))
        self.register_buffer("cols", _gaussian((self.s * self.s, pad_cols), g, dtype, device) / math.sqrt(self.D))

    def forward(self, w):
        kk = self.k * self.k
        W = w[:kk].reshape(self.k, self.k)
        # (Q1 (x) Q2) vec(W) = vec(Q1 W Q2^T) for row-major vec
        square = (self.Q1 @ W @ self.Q2.T).reshape(-1) / math.sqrt(self.D)
        if self.d > kk:
            square = square + self.cols @ w[kk:]
        return torch.cat([square, self.rows @ w])


_KINDS = {"dense": DenseProjector, "kron-sum": KronSumProjector, "kron-product": KronProductProjector}


def make_projector(kind: str, D: int, d: int, seed: int = 0, dtype=torch.float32, device="cpu") -> Projector:
    """The projector ``kind`` (one of ``PROJECTORS``) from R^d to R^D drawn from ``seed``."""
    if kind not in _KINDS:
        raise BoundsError(f"unknown projector {kind!r}: choose one of {', '.join(PROJECTORS)}")
    return _KINDS[kind](D, d, seed=seed, dtype=dtype, device=device)


def projector_numbers(kind: str, D: int, d: int) -> int:
    """The random numbers ``make_projector(kind, D, d)`` holds, from the sizes alone (exact integers; the cost)."""
    s, k = math.isqrt(D), math.isqrt(d)
    if kind == "dense":
        return D * d
    if kind == "kron-sum":
        return 2 * s * d + (D - s * s) * d
    if kind == "kron-product":
        return 2 * s * k + (D - s * s) * d + s * s * (d - k * k)
    raise BoundsError(f"unknown projector {kind!r}: choose one of {', '.join(PROJECTORS)}")
