"""Small CNNs on scikit-learn's 8 x 8 digits for the aliasing story (thesis sections 4.2, 4.5; Zhang 2019).

The thesis finds (Figure 4.4) that in CNNs "much of the equivariance error comes from downsampling and
non-linearities" -- both alias -- and (Figure 4.6) that Blur-Pool [Zhang 2019] lowers it.  To test that on models the
lab trains in seconds, ``MODELS`` holds the *same* small CNN in variants that differ only where the thesis says
aliasing enters:

* ``cnn-stride``: the usual design, a 3 x 3 convolution with stride 2 to halve the resolution, then ReLU (what a
  ResNet does).  Subsampling without a low-pass filter folds the upper half of the spectrum down (eq. 4.2).
* ``cnn-blur``: Zhang's (2019) anti-aliased replacement of ``Conv(stride 2) -> ReLU``: ``Conv(stride 1) -> ReLU ->
  BlurPool``, where BlurPool is a fixed depthwise binomial low-pass filter followed by subsampling by 2.  The
  filter is ``[1, 2, 1] / 4`` in each direction by default (size 3, "Tri-3"): it keeps the strided convolution's
  sampling grid (output ``j`` centred on input ``2 j``), so the two models differ by the filter alone.  (Zhang's
  default is size 4; an even filter moves the grid half a pixel.)
* ``cnn-smooth``: ``cnn-stride`` with ReLU replaced by SiLU (Swish, ``x sigmoid(x)``): a smooth (analytic)
  activation makes harmonics that decay exponentially instead of ReLU's ``1/k^2`` from its kink (Figure 4.2;
  Karras et al. 2021 choose smoother non-linearities for this reason).
* ``cnn-blur-smooth``: both changes.

All share the same layers and parameter count (BlurPool's filter is a buffer, not a parameter): ``conv1 -> act1 ->
[conv2 -> act2 -> down2] -> [conv3 -> act3 -> down3] -> pool -> flatten -> fc``, widths ``w, 2w, 2w`` (``w = 16``
by default), 8 x 8 -> 4 x 4 -> 2 x 2, then a global average pool, so that translation invariance is possible at
all (a flatten of the feature map would not be), and a linear classifier.  In the strided variants the stride
sits in ``conv2``/``conv3`` and there is no ``down`` module.  Every layer is a named leaf of an ``nn.Sequential``,
so ``lab.meter.layerwise`` attributes the whole computation (nothing unattributed).  Convolutions pad circularly
(``padding=`` changes it): under the meter's default periodic translation a stride-1 circular convolution commutes
exactly, so every translation error the meter finds is aliasing (downsampling and activations), the thesis's claim
made measurable.

``layer_kind`` sorts modules into ``LAYER_KINDS`` for the "which layers carry the error" summary: a convolution
with stride > 1 counts as *downsampling* (the thesis counts the ViT's patch embedding, a strided convolution, as
such).

Training (``train``): Adam on a fixed, seeded split (``digits_data``), exact step count before any work
(``TrainSettings.steps``), ``lab.control.checkpoint`` between steps; a few seconds on a CPU.
"""
from __future__ import annotations

import copy
import math
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..data.digits import CLASSES, DigitsData, digits_data  # noqa: F401  (digits_data: re-exported)
from ..equivariance.transforms import MeterError

#: the activations a variant may use; ``relu`` has a kink, the others are smooth
ACTIVATIONS = {"relu": nn.ReLU, "silu": nn.SiLU, "gelu": nn.GELU, "softplus": nn.Softplus, "tanh": nn.Tanh}
#: how a variant halves the resolution
DOWNSAMPLINGS = ("stride", "blur")
#: convolution padding modes (circular: translation is an exact symmetry of a stride-1 convolution)
CONV_PADDINGS = ("circular", "zeros", "reflect")
DEFAULT_WIDTH = 16
DEFAULT_BLUR = 3
#: training defaults (100 epochs: every variant within a few points of test accuracy, 0.94-0.97 over 3 seeds; at
#: 30 the blurred variants still underfit, 0.85-0.91, which confounds the comparison)
DEFAULT_EPOCHS, DEFAULT_BATCH, DEFAULT_LR = 100, 64, 3e-3
#: the kinds of layer in the layer-wise summary, in the order they are reported
LAYER_KINDS = ("conv", "downsampling", "nonlinearity", "pooling", "linear", "other")


@dataclass(frozen=True)
class CNNSpec:
    """One variant of the small CNN: how it downsamples and which activation it uses."""

    name: str
    downsample: str
    activation: str
    description: str


MODELS: dict[str, CNNSpec] = {s.name: s for s in (
    CNNSpec("cnn-stride", "stride", "relu", "strided 3x3 convolutions + ReLU (no anti-aliasing)"),
    CNNSpec("cnn-blur", "blur", "relu", "stride-1 convolutions + ReLU + BlurPool (Zhang 2019)"),
    CNNSpec("cnn-smooth", "stride", "silu", "strided 3x3 convolutions + SiLU (a smooth activation)"),
    CNNSpec("cnn-blur-smooth", "blur", "silu", "stride-1 convolutions + SiLU + BlurPool"),
)}
MODEL_NAMES = tuple(MODELS)


def binomial_filter(size: int) -> torch.Tensor:
    """The ``size x size`` binomial low-pass filter (outer product of a row of Pascal's triangle), summing to 1."""
    if not isinstance(size, (int, np.integer)) or not 1 <= size <= 7:
        raise MeterError(f"blur filter size must be an integer from 1 to 7, got {size!r}")
    row = torch.tensor([math.comb(size - 1, k) for k in range(size)], dtype=torch.float64)
    k = torch.outer(row, row)
    return k / k.sum()


class BlurPool(nn.Module):
    """Anti-aliased downsampling (Zhang 2019): a fixed depthwise binomial blur, then keep every ``stride``-th pixel.

    Padding is circular, as the convolutions', so a constant image stays exactly constant and the map commutes with
    translation by whole multiples of ``stride`` pixels.  With an odd ``size`` output ``j`` is centred on input
    ``stride * j`` (the grid of a strided 3 x 3 convolution with padding 1)."""

    def __init__(self, channels: int, stride: int = 2, size: int = DEFAULT_BLUR, padding: str = "circular"):
        super().__init__()
        if padding not in CONV_PADDINGS:
            raise MeterError(f"unknown padding {padding!r}: choose one of {', '.join(CONV_PADDINGS)}")
        self.channels, self.stride, self.size, self.padding = int(channels), int(stride), int(size), padding
        k = binomial_filter(size).to(torch.get_default_dtype())
        self.register_buffer("kernel", k[None, None].repeat(self.channels, 1, 1, 1))

    def forward(self, x):
        lo, hi = (self.size - 1) // 2, self.size // 2
        mode = {"zeros": "constant"}.get(self.padding, self.padding)
        x = F.pad(x, (lo, hi, lo, hi), mode=mode)
        return F.conv2d(x, self.kernel.to(x.dtype), stride=self.stride, groups=self.channels)

    def extra_repr(self):
        return f"{self.channels}, stride={self.stride}, size={self.size}, padding={self.padding!r}"


def _spec(name) -> CNNSpec:
    if isinstance(name, CNNSpec):
        return name
    if name not in MODELS:
        raise MeterError(f"unknown model {name!r}: choose one of {', '.join(MODELS)}")
    return MODELS[name]


def build(name: str, width: int = DEFAULT_WIDTH, classes: int = CLASSES, seed: int = 0, padding: str = "circular",
          blur: int = DEFAULT_BLUR) -> nn.Sequential:
    """The variant ``name`` of ``MODELS``, weights drawn from ``torch.manual_seed``-independent generator ``seed``
    (the same seed gives every variant the same convolution and classifier weights: same shapes, drawn in the same
    order)."""
    spec = _spec(name)
    if not isinstance(width, (int, np.integer)) or not 1 <= width <= 1024:
        raise MeterError(f"width must be an integer from 1 to 1024, got {width!r}")
    if not isinstance(classes, (int, np.integer)) or classes < 2:
        raise MeterError(f"classes must be an integer of at least 2, got {classes!r}")
    if padding not in CONV_PADDINGS:
        raise MeterError(f"unknown padding {padding!r}: choose one of {', '.join(CONV_PADDINGS)}")
    act = ACTIVATIONS[spec.activation]
    s = 2 if spec.downsample == "stride" else 1
    w = int(width)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        layers = [("conv1", nn.Conv2d(1, w, 3, padding=1, padding_mode=padding)), ("act1", act())]
        layers += [("conv2", nn.Conv2d(w, 2 * w, 3, stride=s, padding=1, padding_mode=padding)), ("act2", act())]
        if s == 1:
            layers.append(("down2", BlurPool(2 * w, 2, blur, padding)))
        layers += [("conv3", nn.Conv2d(2 * w, 2 * w, 3, stride=s, padding=1, padding_mode=padding)), ("act3", act())]
        if s == 1:
            layers.append(("down3", BlurPool(2 * w, 2, blur, padding)))
        layers += [("pool", nn.AdaptiveAvgPool2d(1)), ("flatten", nn.Flatten()), ("fc", nn.Linear(2 * w, classes))]
    net = nn.Sequential(OrderedDict(layers))
    net.spec = spec
    return net


def parameter_count(model: nn.Module) -> int:
    """Trainable parameters (BlurPool's filter is a buffer and does not count)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def layer_kind(module: nn.Module) -> str:
    """The kind (``LAYER_KINDS``) of a leaf module, for the layer-wise summary."""
    if isinstance(module, nn.Conv2d):
        return "downsampling" if max(module.stride) > 1 else "conv"
    if isinstance(module, BlurPool):
        return "downsampling"
    if isinstance(module, (nn.MaxPool2d, nn.AvgPool2d)):
        stride = module.stride if isinstance(module.stride, tuple) else (module.stride,)
        return "downsampling" if max(stride) > 1 else "nonlinearity" if isinstance(module, nn.MaxPool2d) else "conv"
    if isinstance(module, (nn.AdaptiveAvgPool2d, nn.AdaptiveMaxPool2d)):
        return "pooling"
    if isinstance(module, (*ACTIVATIONS.values(), nn.Softmax, nn.LogSoftmax, nn.Sigmoid, nn.LeakyReLU, nn.ELU)):
        return "nonlinearity"
    if isinstance(module, nn.Linear):
        return "linear"
    return "other"


# ---------------------------------------------------------------------------------------------- training
@dataclass(frozen=True)
class TrainSettings:
    """Adam on cross-entropy, mini-batches reshuffled each epoch; ``steps`` is exact."""

    epochs: int = DEFAULT_EPOCHS
    batch: int = DEFAULT_BATCH
    lr: float = DEFAULT_LR

    def __post_init__(self):
        for name, low in (("epochs", 1), ("batch", 1)):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < low:
                raise MeterError(f"{name} must be an integer of at least {low}, got {v!r}")
        if not isinstance(self.lr, (int, float)) or not math.isfinite(self.lr) or self.lr <= 0:
            raise MeterError(f"lr must be a positive number, got {self.lr!r}")

    def steps(self, n: int) -> int:
        """Optimiser steps on ``n`` training images: ``epochs * ceil(n / batch)``."""
        return int(self.epochs) * -(-int(n) // int(self.batch))


@dataclass
class Trained:
    """A trained model (on the CPU, in eval mode) and what training gave."""

    name: str
    model: nn.Module
    seed: int
    steps: int
    train_accuracy: float
    test_accuracy: float
    losses: list = field(default_factory=list)  # mean training loss per epoch
    status: str = "finished"


def accuracy(model: nn.Module, x: torch.Tensor, y: torch.Tensor, batch: int = 1024) -> float:
    """Top-1 accuracy of ``model`` on ``(x, y)`` (evaluated where the model's parameters are)."""
    if len(x) == 0:
        return float("nan")
    dev = next(model.parameters()).device
    with torch.no_grad():
        hits = sum(int((model(x[i:i + batch].to(dev)).argmax(1).cpu() == y[i:i + batch]).sum())
                   for i in range(0, len(x), batch))
    return hits / len(x)


def train(name, data: DigitsData, settings: TrainSettings = TrainSettings(), seed: int = 0, width: int = DEFAULT_WIDTH,
          device="auto", control=None, progress=None, padding: str = "circular") -> Trained:
    """Train ``name`` (a ``MODELS`` name, or an ``nn.Module`` mapping (N, 1, 8, 8) to class scores) on
    ``data``; weights and batch order from ``seed``.  ``progress`` receives ``{"kind": "epoch", ...}`` records;
    ``control`` (``lab.control.Control``) is checked before every step: a stop returns what was trained so far
    with ``status="stopped"``."""
    from ..control import Stopped, checkpoint
    from ..device import pick_device

    if not isinstance(data, DigitsData):
        raise MeterError(f"data must be a DigitsData (lab.data.digits.digits_data), got {type(data).__name__}")
    label = name if isinstance(name, str) else type(name).__name__
    model = build(name, width, data.classes, seed, padding) if isinstance(name, str) else copy.deepcopy(name)
    dev = pick_device(device) if not isinstance(device, torch.device) else device
    model = model.to(dev).float().train()
    opt = torch.optim.Adam(model.parameters(), lr=settings.lr)
    g = torch.Generator().manual_seed(int(seed) + 1)
    n = len(data.x_train)
    total, done, losses, status = settings.steps(n), 0, [], "finished"
    x_all, y_all = data.x_train.to(dev), data.y_train.to(dev)
    try:
        for epoch in range(settings.epochs):
            order = torch.randperm(n, generator=g).to(dev)
            run = 0.0
            for i in range(0, n, settings.batch):
                checkpoint(control)
                idx = order[i:i + settings.batch]
                loss = F.cross_entropy(model(x_all[idx]), y_all[idx])
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                done += 1
                run += float(loss.detach()) * len(idx)
            losses.append(run / n)
            if progress is not None:
                progress({"kind": "epoch", "model": label, "seed": int(seed), "epoch": epoch + 1,
                          "epochs": settings.epochs, "loss": losses[-1], "done": done, "total": total})
    except Stopped:
        status = "stopped"
    model.eval()
    out = Trained(label, model, int(seed), done, accuracy(model, data.x_train, data.y_train),
                  accuracy(model, data.x_test, data.y_test), losses, status)
    out.model = model.cpu()
    return out
