"""EMLP (thesis section 2.5, Figure 2.4) and the baseline MLP.

An EMLP block is an equivariant linear layer to ``gated(rep_out)``, the cheap bilinear layer on its output with a
shortcut (``lin + bilinear(lin)``), and the gated nonlinearity down to ``rep_out``.  ``EMLP`` stacks ``layers``
blocks whose hidden reps are the uniform allocation of ``channels`` (``lab.nn.channels``; or reps given), then one
equivariant linear layer to the output rep.  ``MLP`` is the same width and depth with Swish, dense layers, the
reps used for their sizes only: the thesis's baseline (trained with augmentation it is the MLP-Aug baseline:
``lab.nn.augment``).

>>> import torch
>>> from lab.groups import SO
>>> model = EMLP("2*V", "Scalar", SO(3), channels=32, layers=2)
>>> model(torch.randn(4, 6)).shape
torch.Size([4, 1])
"""
from __future__ import annotations

from torch import nn

from .bilinear import BiLinear
from .channels import uniform_rep
from .gated import GatedNonlinearity, gated
from .linear import EquivariantLinear, bind, param_dtype


class EMLPBlock(nn.Module):
    """Equivariant linear -> bilinear with a shortcut -> gated nonlinearity (``rep_in -> rep_out``)."""

    def __init__(self, rep_in, rep_out, group=None, dtype=None, device=None):
        super().__init__()
        rep_in, rep_out = bind(rep_in, group), bind(rep_out, group)
        wide = gated(rep_out)
        self.linear = EquivariantLinear(rep_in, wide, dtype=dtype, device=device)
        self.bilinear = BiLinear(wide, wide, dtype=dtype, device=device)
        self.nonlinearity = GatedNonlinearity(rep_out)

    def forward(self, x):
        lin = self.linear(x)
        return self.nonlinearity(lin + self.bilinear(lin))


def hidden_reps(channels, layers: int, group) -> list:
    """The hidden reps: ``channels`` an int (the uniform allocation, every layer), a rep (every layer), or a list of
    ints/reps (one per layer; then ``layers`` is its length)."""
    if isinstance(channels, (list, tuple)):
        return [uniform_rep(c, group) if isinstance(c, int) else bind(c, group) for c in channels]
    one = uniform_rep(channels, group) if isinstance(channels, int) else bind(channels, group)
    return [one] * layers


class EMLP(nn.Module):
    """Equivariant multilayer perceptron ``rep_in -> rep_out`` under ``group`` (reps as ``Rep`` or text)."""

    def __init__(self, rep_in, rep_out, group, channels=384, layers: int = 3, dtype=None, device=None):
        super().__init__()
        self.group = group
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        reps = [self.rep_in, *hidden_reps(channels, layers, group)]
        self.hidden = reps[1:]
        self.network = nn.Sequential(
            *[EMLPBlock(a, b, dtype=dtype, device=device) for a, b in zip(reps, reps[1:])],
            EquivariantLinear(reps[-1], self.rep_out, dtype=dtype, device=device))

    def forward(self, x):
        return self.network(x)


class MLP(nn.Module):
    """The baseline: ``layers`` dense layers of ``channels`` with Swish, then a dense output layer; the reps give the
    sizes only (complex groups: complex features, so that it takes the same inputs)."""

    def __init__(self, rep_in, rep_out, group, channels: int = 384, layers: int = 3, dtype=None, device=None):
        super().__init__()
        self.group = group
        self.rep_in, self.rep_out = bind(rep_in, group), bind(rep_out, group)
        self.dtype = param_dtype(group, dtype)
        sizes = [self.rep_in.size] + [int(channels)] * layers
        blocks = []
        for a, b in zip(sizes, sizes[1:]):
            blocks += [nn.Linear(a, b, dtype=self.dtype, device=device), _Swish()]
        self.network = nn.Sequential(*blocks, nn.Linear(sizes[-1], self.rep_out.size, dtype=self.dtype,
                                                        device=device))

    def forward(self, x):
        return self.network(x.to(self.dtype))


class _Swish(nn.Module):
    """x * sigmoid(x) (of the real part for complex features)."""

    def forward(self, x):
        import torch

        return x * torch.sigmoid(x.real if x.is_complex() else x)
