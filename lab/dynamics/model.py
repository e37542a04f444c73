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
    equivariant non-linearity), ``leaky_relu``, ``tanh`` (pointwise; equivariant for permutation and, being
    odd, signed-permutation actions), or empty for the output layer.  ``bias`` only where E = L.
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

    def __init__(self, group, specs: list[LayerSpec], dtype=torch.float64, device="cpu"):
        self.group, self.specs, self.dtype, self.device = group, specs, dtype, device
        self.spaces = [LayerSpace(group, s.rep_in, s.rep_out, dtype=dtype, device=device) for s in specs]
        for s, sp in zip(specs, self.spaces):
            if s.bias and not sp.trivial:
                raise ValueError(f"layer {s.name}: a bias is only supported where every map is equivariant")

    # ------------------------------------------------------------------ parameters
    def init(self, rngs: list[np.random.Generator]) -> list[torch.Tensor]:
        """A0 for every run: Gaussian N(0, 1/fan_in) projected onto E; one numpy stream per run, so a run's
        A0 is the same whether it trains alone or batched with others.  Biases start at zero."""
        params = []
        for s, sp in zip(self.specs, self.spaces):
            shape = (s.c_out, s.c_in, sp.n_out, sp.n_in)
            std = 1.0 / np.sqrt(s.c_in * sp.n_in)
            W = torch.as_tensor(np.stack([rng.normal(0.0, std, shape) for rng in rngs]),
                                dtype=self.dtype, device=self.device)
            params.append(sp.project(W))
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
        for s, group in zip(self.specs, self.layer_params(params)):
            x = torch.einsum("roiac,rbic->rboa", group[0], x)
            if s.bias:
                x = x + group[1][:, None]
            for op in filter(None, (a.strip() for a in s.after.split(","))):
                if op == "layernorm":
                    x = F.layer_norm(x, x.shape[-2:])
                elif op == "leaky_relu":
                    x = F.leaky_relu(x, 0.01)
                elif op == "tanh":
                    x = torch.tanh(x)
                else:
                    raise ValueError(f"unknown operation {op!r} after layer {s.name}")
        return x
