"""The three models the bounds compare, of comparable parameter count (``build_model``):

* ``mlp`` -- three hidden ReLU layers on the flattened image (appendix A.4.5.4's MLP), its width chosen so that its
  parameter count matches the CNN's at the same ``width`` (``mlp_hidden``);
* ``cnn`` -- three 3 x 3 convolutions (``width`` channels, zero "same" padding, ReLU), global average pooling and a
  linear read-out: translation-equivariant features, nothing about rotations;
* ``gcnn`` -- the same three layers as a p4 group convolution: ``width // 2`` fields of 4 orientation channels.  Its
  filters are built from the engine's C4 group, not written by hand: ``C4Grid(3)`` rotates a 3 x 3 patch and
  ``regular_rep`` is C4's 4 orientations, and the solver gives the bases of the lifting filters (V >> Reg, 9 per
  field pair) and of the group-convolution filters (Reg * V >> Reg, 36 per field pair); each layer's free
  parameters are coefficients in that basis.  Orientation pooling and global average pooling make the logits
  invariant under 90-degree rotations of the image (exactly: zero padding of a square image commutes with them),
  which ``tests/test_bounds_models.py`` checks.  About the CNN's parameter count at the same ``width`` (36 w^2/4 =
  9 w^2 per hidden layer).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import torch
from torch import nn

from .errors import BoundsError

#: the model names, for the command line and the pane
MODELS = ("mlp", "cnn", "gcnn")


def _init(module: nn.Module, seed: int) -> None:
    """He-normal weights and zero biases, from ``seed``, for every model alike."""
    g = torch.Generator().manual_seed(int(seed))
    for name, p in sorted(module.named_parameters()):
        with torch.no_grad():
            if name.endswith("bias"):
                p.zero_()
            else:
                fan_in = getattr(module, "_fan_in", {}).get(name) or (p[0].numel() if p.dim() > 1 else p.numel())
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64).to(p.dtype) * math.sqrt(2 / fan_in))


class MLP(nn.Module):
    def __init__(self, side: int, classes: int, hidden: int):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(side * side, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, classes))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self, classes: int, width: int, side: int = 8):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, width, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2),
                                 nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
                                 nn.Flatten(), nn.Linear(width * (side // 2) ** 2, classes))

    def forward(self, x):
        return self.net(x)


@functools.lru_cache(maxsize=None)
def c4_filter_bases() -> tuple[np.ndarray, np.ndarray]:
    """``(lift, group)``: the engine's bases of C4-equivariant 3 x 3 filters, as arrays (4, 9, 9) -- (output
    orientation, patch pixel, basis element) -- and (4, 36, 36) -- (output orientation, input orientation x patch
    pixel, basis element)."""
    from ..groups import C4Grid
    from ..reps import V, regular_rep

    G = C4Grid(3)
    R = regular_rep(G)
    lift = np.asarray((V(G) >> R).solve().basis(), dtype=np.float64)
    group = np.asarray(((R * V(G)) >> R).solve().basis(), dtype=np.float64)
    return lift.reshape(4, 9, lift.shape[1]), group.reshape(4, 36, group.shape[1])


@functools.lru_cache(maxsize=None)
def c4_head_basis(side: int) -> np.ndarray:
    """The engine's basis of C4-invariant linear maps from 4 orientations x a side x side grid to a scalar:
    (4 * side^2, basis) -- one element per orbit of C4 on (orientation, pixel)."""
    from ..groups import C4Grid
    from ..reps import Scalar, V, regular_rep

    G = C4Grid(side)
    B = np.asarray(((regular_rep(G) * V(G)) >> Scalar).solve().basis(), dtype=np.float64)
    return B.reshape(4 * side * side, B.shape[1])


class P4Conv(nn.Module):
    """A p4 group convolution (or the lifting layer when ``lift``) with the engine's filter basis: weight
    coefficients (out fields, in fields, basis) assembled into an ordinary conv2d weight of shape
    (4 out, 4 in or 1, 3, 3) per field pair; one bias per output field."""

    def __init__(self, c_in: int, c_out: int, lift: bool):
        super().__init__()
        basis = c4_filter_bases()[0 if lift else 1]
        self.lift, self.c_in, self.c_out = lift, c_in, c_out
        self.register_buffer("basis", torch.as_tensor(basis, dtype=torch.float32))
        self.weight = nn.Parameter(torch.zeros(c_out, c_in, basis.shape[2]))
        self.bias = nn.Parameter(torch.zeros(c_out))

    def conv_weight(self) -> torch.Tensor:
        # basis (r_out, r_in * 9 + pixel, b): W[o, r_out, i, r_in, pixel]
        w = torch.einsum("oib,rpb->orip", self.weight, self.basis.to(self.weight.dtype))
        r_in = 1 if self.lift else 4
        return w.reshape(self.c_out * 4, self.c_in * r_in, 3, 3)

    def forward(self, x):
        return nn.functional.conv2d(x, self.conv_weight(), self.bias.repeat_interleave(4), padding=1)


class InvariantHead(nn.Module):
    """The read-out of the GCNN: for each class, a C4-invariant linear map of every field's 4 orientations x grid
    (the engine's ``c4_head_basis``), plus a bias."""

    def __init__(self, fields: int, side: int, classes: int):
        super().__init__()
        basis = c4_head_basis(side)
        self.register_buffer("basis", torch.as_tensor(basis, dtype=torch.float32))
        self.weight = nn.Parameter(torch.zeros(classes, fields, basis.shape[1]))
        self.bias = nn.Parameter(torch.zeros(classes))

    def forward(self, x):
        b = x.shape[0]
        w = torch.einsum("kfb,pb->kfp", self.weight, self.basis.to(self.weight.dtype))  # (classes, fields, 4 s^2)
        return x.reshape(b, -1) @ w.reshape(w.shape[0], -1).T + self.bias


class GCNN(nn.Module):
    def __init__(self, classes: int, fields: int, side: int = 8):
        super().__init__()
        self.fields = fields
        self.layers = nn.ModuleList([P4Conv(1, fields, True), P4Conv(fields, fields, False),
                                     P4Conv(fields, fields, False)])
        self.head = InvariantHead(fields, side // 2, classes)
        # He fan-in of a coefficient: the filter entries it feeds (orientations x input fields x 9)
        self._fan_in = {"layers.0.weight": 9, "layers.1.weight": 36 * fields, "layers.2.weight": 36 * fields,
                        "head.weight": 4 * fields * (side // 2) ** 2}

    def forward(self, x):
        x = torch.relu(self.layers[0](x))
        x = nn.functional.avg_pool2d(torch.relu(self.layers[1](x)), 2)
        x = torch.relu(self.layers[2](x))
        return self.head(x)


def parameter_count(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def cnn_parameters(width: int, classes: int, side: int = 8) -> int:
    return 10 * width + 2 * (9 * width * width + width) + width * (side // 2) ** 2 * classes + classes


def gcnn_parameters(width: int, classes: int, side: int = 8) -> int:
    f = max(width // 2, 1)
    return 10 * f + 2 * (36 * f * f + f) + f * (side // 2) ** 2 * classes + classes


def mlp_parameters(hidden: int, side: int, classes: int) -> int:
    n = side * side
    return n * hidden + hidden + 2 * (hidden * hidden + hidden) + hidden * classes + classes


def mlp_hidden(width: int, side: int, classes: int) -> int:
    """The MLP's hidden width whose parameter count is closest to the CNN's at ``width``."""
    target = cnn_parameters(width, classes, side)
    h = 1
    while mlp_parameters(h + 1, side, classes) <= target:
        h += 1
    return h if abs(mlp_parameters(h, side, classes) - target) <= abs(mlp_parameters(h + 1, side, classes)
                                                                       - target) else h + 1


def model_parameters(name: str, width: int, side: int, classes: int) -> int:
    """D of ``build_model(name, width, side, classes)`` from the sizes alone (exact integers)."""
    if name == "mlp":
        return mlp_parameters(mlp_hidden(width, side, classes), side, classes)
    if name == "cnn":
        return cnn_parameters(width, classes, side)
    if name == "gcnn":
        return gcnn_parameters(width, classes, side)
    raise BoundsError(f"unknown model {name!r}: choose one of {', '.join(MODELS)}")


def build_model(name: str, width: int = 16, side: int = 8, classes: int = 10, seed: int = 0) -> nn.Module:
    """One of ``MODELS`` at ``width`` (CNN channels; GCNN fields = width // 2; the MLP matched in parameters)."""
    if width < 2:
        raise BoundsError(f"the models need a width of at least 2, got {width}")
    if name == "mlp":
        model = MLP(side, classes, mlp_hidden(width, side, classes))
    elif name == "cnn":
        model = CNN(classes, width, side)
    elif name == "gcnn":
        model = GCNN(classes, max(width // 2, 1), side)
    else:
        raise BoundsError(f"unknown model {name!r}: choose one of {', '.join(MODELS)}")
    _init(model, seed)
    return model
