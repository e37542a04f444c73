"""The layer space L of one MLP layer, its equivariant subspace E and the orthogonal projection Π_E.

A layer maps ``c_in`` copies of ``rep_in`` to ``c_out`` copies of ``rep_out``: its weight is a
(c_out, c_in, n_out, n_in) array and E is "every (o, i) block equivariant".  Π_E acts block by block with
the engine's basis of ``rep_in >> rep_out`` (Lemma 2 of Nordenfors et al.: the group average of the lifted
representation, which the tests check against the brute-force average):

* orbit bases (signed-permutation groups): exact and sparse -- the signed mean over every orbit of
  weight entries, entries forced to zero set to zero;
* dense bases (Lie groups): ``Q Q^T vec(W)`` with the orthonormal basis Q.
"""
from __future__ import annotations

import numpy as np
import torch

from ..groups.base import Group
from ..reps.parse import parse_rep


class LayerSpace:
    """Π_E for the blocks ``rep_in >> rep_out`` of one layer (see the module docstring)."""

    def __init__(self, group: Group, rep_in: str, rep_out: str, dtype=torch.float64, device="cpu"):
        self.group = group
        self.rep_in = parse_rep(rep_in, group)
        self.rep_out = parse_rep(rep_out, group)
        self.n_in, self.n_out = self.rep_in.size, self.rep_out.size
        sol = (self.rep_in >> self.rep_out).solve()
        self.rank, self.size = sol.rank, sol.dim
        self.trivial = self.rank == self.size  # E = L: every map is equivariant, Π_E = identity
        self._dense = None
        if self.trivial:
            return
        if sol.labels is not None:
            valid = sol.labels >= 0
            self._valid = torch.as_tensor(np.flatnonzero(valid), device=device)
            self._labels = torch.as_tensor(sol.labels[valid].astype(np.int64), device=device)
            self._signs = torch.as_tensor(sol.signs[valid], dtype=dtype, device=device)
            counts = np.bincount(sol.labels[valid], minlength=self.rank)
            self._counts = torch.as_tensor(counts, dtype=dtype, device=device)
        else:
            Q = np.asarray(sol.Q)
            if np.iscomplexobj(Q):
                raise ValueError(f"{group} is complex: training dynamics need a real group")
            self._dense = torch.as_tensor(Q, dtype=dtype, device=device)

    def project(self, W: torch.Tensor) -> torch.Tensor:
        """Π_E of weights shaped (..., n_out, n_in)."""
        if self.trivial:
            return W
        lead = W.shape[:-2]
        v = W.reshape(*lead, self.size)
        if self._dense is not None:
            out = (v @ self._dense) @ self._dense.T
            return out.reshape(W.shape)
        t = v[..., self._valid] * self._signs
        sums = torch.zeros(*lead, self.rank, dtype=W.dtype, device=W.device)
        sums.index_add_(len(lead), self._labels, t)
        means = sums / self._counts
        out = torch.zeros_like(v)
        out[..., self._valid] = means[..., self._labels] * self._signs
        return out.reshape(W.shape)

    def dims(self, c_in: int, c_out: int) -> tuple[int, int]:
        """(dim E, dim L) of a layer with these channel counts."""
        return c_in * c_out * self.rank, c_in * c_out * self.size
