"""The ensemble members: the poster's small CNN as a pure function of its parameters, batched over members.

Architecture (the authors' ``ensemble_experiment``, scaled to scikit-learn's 8 x 8 digits): ``LAYERS`` bias-free 3 x 3
convolutions of ``channels`` channels with zero "same" padding, each followed by tanh; 2 x 2 average pooling; a
LayerNorm without affine parameters over (channels, 4, 4); a bias-free linear layer to the 10 classes.  Every
convolution filter is restricted to a *support* (``SUPPORTS``): the set of the 3 x 3 taps it may use.  The layer
space ``L`` is the product of those supports (times the full linear layer).

The group: C4, rotations of the image by multiples of 90 degrees (``torch.rot90``), acting trivially on the labels.
Its lifted representation on parameters (Nordenfors et al., section 3), ``rho_L(g)``, rotates every filter by ``g``
and the linear layer's weights over their spatial index by ``g``; then, for every input,
``phi_{rho_L(g) A}(rho_X(g) x) = phi_A(x)``: a zero-padded cross-correlation commutes with rotating image and filter
together, tanh is pointwise, 2 x 2 pooling on an even side maps 2 x 2 blocks to 2 x 2 blocks, the LayerNorm is
invariant under permuting its inputs and ``<rot W, rot h> = <W, h>`` (tested to rounding).

The theorem's two assumptions, and how they are checked here (``check_assumptions``):

* (ii) ``L`` is invariant, ``rho_L(g) L = L``: each support is mapped to itself by a rotation of the 3 x 3 grid
  (``support_invariant``: the support's mask against its rotated mask -- ``L`` is a coordinate subspace, so
  ``rho_L(g) L = L`` is exactly that);
* (i) the initial distribution is invariant, ``rho_L(g) A ~ A``: the init is Gaussian, independent per tap, with a
  per-tap mean and standard deviation; a Gaussian is fixed by its first two moments, so it is invariant iff the
  mean pattern and the deviation pattern are (``init_invariant`` compares them with their rotations).

``SETTINGS`` are the poster's three: (i) ``invariant`` -- the cross support ``+`` and a centred Gaussian; (ii)
``noninvariant-init`` -- the same invariant support but a Gaussian whose mean is a fixed asymmetric pattern (a
positive mean on each filter's top row: every member starts leaning the same way); (iii) ``noninvariant-space`` --
an asymmetric support (the top-left 2 x 2 corner), which no rotation maps to itself, with a centred Gaussian.
Weights are N(mean, 1) scaled by ``1/sqrt(fan_in)`` (the authors draw N(0, 1); unscaled, tanh saturates at
initialisation on these sizes -- a labelled change of scale, not of shape).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from ..errors import LabError


class EnsembleError(LabError, ValueError):
    """A setting, support, group element or shape the ensembles cannot use."""


#: the 3 x 3 taps a filter may use, as (row, column) lists
SUPPORTS = {
    "full": [(r, c) for r in range(3) for c in range(3)],
    "cross": [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)],
    "corner": [(0, 0), (0, 1), (1, 0), (1, 1)],
}
#: the initial distributions: a per-tap mean pattern of the 3 x 3 filter ("centred": 0 everywhere)
INITS = {"centred": np.zeros((3, 3)), "top-row": np.array([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])}


@dataclass(frozen=True)
class Setting:
    name: str
    support: str
    init: str
    description: str


SETTINGS = {
    "invariant": Setting("invariant", "cross", "centred",
                         "(i) invariant layer space (cross support) and invariant initialisation: the theorem applies"),
    "noninvariant-init": Setting("noninvariant-init", "cross", "top-row",
                                 "(ii) invariant layer space, initial mean leaning one way (filters' top rows)"),
    "noninvariant-space": Setting("noninvariant-space", "corner", "centred",
                                  "(iii) layer space not invariant (filters on the top-left 2 x 2 corner)"),
}
LAYERS = 3
CLASSES = 10
#: the group: rotations by k * 90 degrees, k = 0..3
ORDER = 4
POOL = 2


def support_mask(support: str) -> torch.Tensor:
    if support not in SUPPORTS:
        raise EnsembleError(f"unknown support {support!r}: choose one of {', '.join(SUPPORTS)}")
    m = torch.zeros(3, 3, dtype=torch.float64)
    for r, c in SUPPORTS[support]:
        m[r, c] = 1.0
    return m


def support_invariant(support: str) -> bool:
    """``rho_L(g) L = L`` for every rotation: the support's mask equals its rotations."""
    m = support_mask(support)
    return all(torch.equal(torch.rot90(m, k, (0, 1)), m) for k in range(1, ORDER))


def init_invariant(init: str) -> bool:
    """The initial Gaussian is invariant: its mean pattern equals its rotations (its deviation is 1 everywhere)."""
    if init not in INITS:
        raise EnsembleError(f"unknown initialisation {init!r}: choose one of {', '.join(INITS)}")
    mu = torch.as_tensor(INITS[init])
    return all(torch.equal(torch.rot90(mu, k, (0, 1)), mu) for k in range(1, ORDER))


def check_assumptions(setting: str) -> dict:
    """The theorem's assumptions for ``setting``: ``{"space_invariant", "init_invariant", "theorem_applies"}``."""
    s = get_setting(setting)
    space, init = support_invariant(s.support), init_invariant(s.init)
    return {"space_invariant": space, "init_invariant": init, "theorem_applies": space and init}


def get_setting(name: str) -> Setting:
    if name not in SETTINGS:
        raise EnsembleError(f"unknown setting {name!r}: choose one of {', '.join(SETTINGS)}")
    return SETTINGS[name]


def feature_side(side: int) -> int:
    if side % POOL:
        raise EnsembleError(f"images must have an even side (2 x 2 pooling commutes with rotation), got {side}")
    return side // POOL


def shapes(channels: int, side: int = 8) -> dict[str, tuple]:
    """Parameter name -> shape of one member."""
    out = {}
    cin = 1
    for i in range(LAYERS):
        out[f"conv{i}"] = (channels, cin, 3, 3)
        cin = channels
    s = feature_side(side)
    out["fc"] = (CLASSES, channels * s * s)
    return out


def parameter_count(channels: int, support: str, side: int = 8) -> int:
    """Free parameters of one member (the support's taps only)."""
    taps = len(SUPPORTS[support])
    n = 0
    for name, shp in shapes(channels, side).items():
        n += shp[0] * shp[1] * taps if name.startswith("conv") else shp[0] * shp[1]
    return n


def init_members(members: int, channels: int, setting: str, seeds, side: int = 8,
                 dtype=torch.float32, device="cpu") -> dict[str, torch.Tensor]:
    """Stacked parameters (members, *shape) of ``members`` independent draws, member ``m`` from ``seeds[m]`` (so a
    member's start does not depend on how many others are drawn with it)."""
    s = get_setting(setting)
    mask = support_mask(s.support)
    mu = torch.as_tensor(INITS[s.init], dtype=torch.float64) * mask
    seeds = list(seeds)
    if len(seeds) != members:
        raise EnsembleError(f"{members} members need {members} seeds, got {len(seeds)}")
    out = {k: [] for k in shapes(channels, side)}
    for seed in seeds:
        g = torch.Generator().manual_seed(int(seed))
        for name, shp in shapes(channels, side).items():
            w = torch.randn(shp, generator=g, dtype=torch.float64)
            if name.startswith("conv"):
                fan_in = shp[1] * len(SUPPORTS[s.support])
                w = (w + mu) * mask / math.sqrt(fan_in)
            else:
                w = w / math.sqrt(shp[1])
            out[name].append(w)
    return {k: torch.stack(v).to(dtype=dtype, device=device) for k, v in out.items()}


def masks(setting: str, dtype=torch.float32, device="cpu") -> torch.Tensor:
    return support_mask(get_setting(setting).support).to(dtype=dtype, device=device)


def member_logits(p: dict[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """One member's class scores (N, 10) for images ``x`` (N, 1, H, W); ``p`` one member's parameters."""
    h = x
    for i in range(LAYERS):
        h = torch.tanh(F.conv2d(h, p[f"conv{i}"], padding=1))
    h = F.avg_pool2d(h, POOL)
    h = F.layer_norm(h, h.shape[1:])
    return h.flatten(1) @ p["fc"].T


def ensemble_logits(params: dict[str, torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """Every member's scores (members, N, 10) for the same images ``x`` (one batched computation: ``vmap``)."""
    return torch.func.vmap(member_logits, in_dims=(0, None))(params, x)


def rotate_images(x: torch.Tensor, k) -> torch.Tensor:
    """``rho_X(g_k) x``: images (..., H, W) rotated by ``k`` quarter turns (counter-clockwise as printed)."""
    return torch.rot90(x, int(k) % ORDER, (-2, -1))


def rotate_parameters(p: dict[str, torch.Tensor], k) -> dict[str, torch.Tensor]:
    """``rho_L(g_k) A`` for stacked (or single) parameters: filters rotated by ``k``, the linear layer's weights
    rotated over their spatial index (so that ``phi_{rho_L(g) A}(rho_X(g) x) = phi_A(x)``)."""
    k = int(k) % ORDER
    out = {}
    for name, w in p.items():
        if name.startswith("conv"):
            out[name] = torch.rot90(w, k, (-2, -1))
        else:
            *lead, classes, n = w.shape
            side = int(round(math.sqrt(n // _channels_of(p))))
            c = n // (side * side)
            out[name] = torch.rot90(w.reshape(*lead, classes, c, side, side), k, (-2, -1)).reshape(w.shape)
    return out


def _channels_of(p) -> int:
    return p[f"conv{LAYERS - 1}"].shape[-4]


def group_average_members(p: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The group-averaged ensemble of the theorem's mechanism: for each member ``A`` of ``p``, its orbit
    ``rho_L(g) A`` for every g -- members (ORDER x members), ordered (g, member)."""
    rotated = [rotate_parameters(p, k) for k in range(ORDER)]
    return {name: torch.cat([r[name] for r in rotated]) for name in p}
