"""An MLP of equivariant-able linear layers, trained as R independent runs in one batched computation.

Weights carry a leading run axis: layer k is a tensor (R, c_out, c_in, n_out, n_in) and activations are
(R, B, c, n).  One ``einsum`` per layer serves all runs at once; runs never mix (each run's loss depends
only on its own weights), so summing the runs' losses gives every run its own gradient.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from .projection import LayerSpace


@dataclass(frozen=True)
class LayerSpec:
    """One linear layer: ``c_in`` copies of ``rep_in`` to ``c_out`` copies of ``rep_out``, then ``after``.

    ``after`` is a comma list applied in order: ``layernorm`` (over channels and entries, no affine: an
    equivariant non-linearity), ``channel_norm`` (LayerNorm over the channels of each entry, no affine: the
    Rot head's), ``leaky_relu``, ``tanh`` (pointwise; equivariant for permutation and, being odd,
    signed-permutation actions), or empty.  ``bias`` only where E = L.
    """

    name: str
    rep_in: str
    rep_out: str
    c_in: int
    c_out: int
    after: str = "leaky_relu"
    bias: bool = False


class BatchedMLP:
    """Layer spaces and the forward pass for R runs; weights are plain tensors owned by the caller."""

    def __init__(self, group, specs: list[LayerSpec], dtype=torch.float64, device="cpu", grid: int | None = None):
        self.group, self.specs, self.dtype, self.device, self.grid = group, specs, dtype, device, grid
        self.spaces = [LayerSpace(group, s.rep_in, s.rep_out, dtype=dtype, device=device) for s in specs]
        for s, sp in zip(specs, self.spaces):
            if s.bias and not sp.trivial:
                raise ValueError(f"layer {s.name}: a bias is only supported where every map is equivariant")

    # ------------------------------------------------------------------ parameters
    def init(self, rngs: list[np.random.Generator], scheme: str = "fan_in") -> list[torch.Tensor]:
        """A0 for every run, projected onto E; one numpy stream per run, so a run's A0 is the same whether it
        trains alone or batched with others.  Biases start at zero.  Schemes (before the projection):

        * ``fan_in``: N(0, 1/fan_in) with fan_in = c_in · n_in;
        * ``standard``: N(0, 1), the paper's text ("a standard Gaussian projected onto E");
        * ``reference``: the authors' code (models.py ``reset``), with n = ``grid`` (image side or nodes):
          layers with E != L and a non-scalar output N(0, (1/(n·sqrt(c_in)))²), or (1/(n·sqrt(c_in·c_out)))²
          for a T(2) input (Perm); the pooling layer (scalar output) one N(0, 1/c_out) value per channel pair,
          constant over its entries; the fully connected layers N(0, (n/c_in)²).
        """
        params = []
        n = self.grid or 1
        for s, sp in zip(self.specs, self.spaces):
            shape = (s.c_out, s.c_in, sp.n_out, sp.n_in)
            const = False
            if scheme == "standard":
                std = 1.0
            elif scheme == "reference":
                if sp.trivial and sp.n_in == sp.n_out == 1:
                    std = n / s.c_in
                elif sp.n_out == 1:
                    std, const = 1.0 / np.sqrt(s.c_out), True
                elif s.rep_in == "T(2)":
                    std = 1.0 / (n * np.sqrt(s.c_in * s.c_out))
                else:
                    std = 1.0 / (n * np.sqrt(s.c_in))
            elif scheme == "fan_in":
                std = 1.0 / np.sqrt(s.c_in * sp.n_in)
            else:
                raise ValueError(f"unknown init {scheme!r}")
            if const:
                W = np.stack([np.broadcast_to(rng.normal(0.0, std, shape[:2] + (1, 1)), shape) for rng in rngs])
            else:
                W = np.stack([rng.normal(0.0, std, shape) for rng in rngs])
            params.append(sp.project(torch.as_tensor(W, dtype=self.dtype, device=self.device)))
            if s.bias:
                params.append(torch.zeros(len(rngs), s.c_out, sp.n_out, dtype=self.dtype, device=self.device))
        return params

    def layer_params(self, params: list[torch.Tensor]) -> list[list[torch.Tensor]]:
        """Group a flat parameter list per layer: [[W], [W, b], ...]."""
        out, i = [], 0
        for s in self.specs:
            k = 2 if s.bias else 1
            out.append(params[i:i + k])
            i += k
        return out

    def project(self, params: list[torch.Tensor]) -> list[torch.Tensor]:
        """Π_E of every parameter (biases live where E = L: unchanged)."""
        out = []
        for sp, group in zip(self.spaces, self.layer_params(params)):
            out.append(sp.project(group[0]))
            out.extend(group[1:])
        return out

    def dims(self) -> list[tuple[int, int]]:
        return [sp.dims(s.c_in, s.c_out) for s, sp in zip(self.specs, self.spaces)]

    # ------------------------------------------------------------------ forward
    def forward(self, params: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        """x: (R, B, c, n) -> output (R, B, c_out, n_out) of the last layer."""
        return self.forward_matmul(self.to_matmul(params), x)

    def to_matmul(self, params: list[torch.Tensor]) -> list[torch.Tensor]:
        """Weights (R, c_out, c_in, n_out, n_in) laid out as (R, c_in·n_in, c_out·n_out) (biases unchanged):
        one batched matmul per layer, with no copy of the weights per mini-batch.  Training makes these the
        leaves of its gradient pass, so a step permutes every weight once, not once per mini-batch."""
        out = []
        for s, group in zip(self.specs, self.layer_params(params)):
            W = group[0]
            R, O, I, A, C = W.shape
            out.append(W.permute(0, 2, 4, 1, 3).reshape(R, I * C, O * A).contiguous())
            out.extend(group[1:])
        return out

    def from_matmul(self, mats: list[torch.Tensor]) -> list[torch.Tensor]:
        """The inverse of ``to_matmul`` (gradients back to the weights' layout)."""
        out, i = [], 0
        for s, sp in zip(self.specs, self.spaces):
            M = mats[i]
            R = M.shape[0]
            out.append(M.reshape(R, s.c_in, sp.n_in, s.c_out, sp.n_out).permute(0, 3, 1, 4, 2).contiguous())
            i += 1
            if s.bias:
                out.append(mats[i])
                i += 1
        return out

    def forward_matmul(self, mats: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
        """``forward`` with weights from ``to_matmul``."""
        i = 0
        for s, sp in zip(self.specs, self.spaces):
            R, B = x.shape[:2]
            x = torch.bmm(x.reshape(R, B, -1), mats[i]).view(R, B, s.c_out, sp.n_out)
            i += 1
            if s.bias:
                x = x + mats[i][:, None]
                i += 1
            for op in filter(None, (a.strip() for a in s.after.split(","))):
                if op == "layernorm":
                    x = F.layer_norm(x, x.shape[-2:])
                elif op == "channel_norm":
                    x = F.layer_norm(x.transpose(-1, -2), x.shape[-2:-1]).transpose(-1, -2)
                elif op == "leaky_relu":
                    x = F.leaky_relu(x, 0.01)
                elif op == "tanh":
                    x = torch.tanh(x)
                else:
                    raise ValueError(f"unknown operation {op!r} after layer {s.name}")
        return x
