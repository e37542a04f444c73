"""The experiments of Nordenfors, Ohlsson & Flinth (appendix D), each a preset at two scales.

``build(name, scale, seed, **options)`` returns an ``Experiment``: the group, the layers, the data and the
task.  ``small`` runs in seconds on a 2-core CPU; ``paper`` is the published setting (or the nearest one
that can be generated here: scikit-learn's digits replace MNIST).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import LabError
from ..groups import parse_group
from ..groups.base import Group
from . import data
from .config import EXPERIMENTS, SCALES
from .model import LayerSpec

#: appendix E.2: the Trans architecture and data under four groups acting on the 8 x 8 grid
RELDIM_GROUPS = {"Trans": "Z(8)*Z(8)", "Rot": "C4Grid(8)", "OneDTrans": "Trivial(8)*Z(8)", "TransRot": "P4Grid(8)"}


@dataclass
class Experiment:
    name: str
    group: Group
    specs: list[LayerSpec]
    X: torch.Tensor  # (N, c, n) inputs
    y: torch.Tensor  # binary (N,), class (N,), or equivariant targets (N, c', n')
    task: str  # "binary", "multiclass" or "segmentation"
    in_rep: str  # the rep each input channel lives in (augmentation acts on it)
    out_rep: str | None = None  # the rep of equivariant targets (augmentation acts on them too)
    description: str = ""
    options: dict = field(default_factory=dict)


def _t(a, dtype=torch.float64):
    return torch.as_tensor(np.asarray(a), dtype=dtype)


def perm(scale="small", seed=0, graphs=None, nodes=10, channels=None):
    """D.1: connectivity of SBM graphs; S(n) on adjacency matrices."""
    graphs = graphs or (200 if scale == "small" else 1000)
    c1, c2, c3 = channels or ((8, 16, 8) if scale == "small" else (32, 64, 32))
    A, y = data.sbm_graphs(graphs, nodes, rng=seed)
    specs = [LayerSpec("equivariant T(2)→T(2)", "T(2)", "T(2)", 1, c1),
             LayerSpec("invariant T(2)→T(0)", "T(2)", "Scalar", c1, c2, after="layernorm,leaky_relu"),
             LayerSpec("fc", "Scalar", "Scalar", c2, c3, bias=True),
             LayerSpec("fc out", "Scalar", "Scalar", c3, 1, after="", bias=True)]
    return Experiment("perm", parse_group(f"S({nodes})"), specs, _t(A.reshape(graphs, 1, -1) - 0.5), _t(y),
                      "binary", "T(2)", description=f"connectivity of {graphs} two-block SBM graphs with "
                      f"{nodes} nodes (p = 0.5, q = 0.05); {int(y.sum())} connected")


def trans(scale="small", seed=0, group="Z(8)*Z(8)", images=None, channels=None):
    """D.2 on scikit-learn's 8 x 8 digits: classification invariant to the group acting on the pixels."""
    images = images or (400 if scale == "small" else None)
    c1, c2, c3 = channels or ((4, 8, 16) if scale == "small" else (32, 32, 64))
    X, y = data.digits(images, rng=seed)
    G = parse_group(group)
    if G.d != 64:
        raise LabError(f"the digits are 8 x 8: the group must act on 64 pixels, {G} acts on {G.d}")
    specs = [LayerSpec("equivariant V→V (1)", "V", "V", 1, c1),
             LayerSpec("equivariant V→V (2)", "V", "V", c1, c2),
             LayerSpec("invariant V→T(0)", "V", "Scalar", c2, c3, after="layernorm,leaky_relu"),
             LayerSpec("fc out", "Scalar", "Scalar", c3, 10, after="", bias=True)]
    return Experiment("trans", G, specs, _t(X.reshape(len(X), 1, 64) - 0.5), _t(y, torch.int64), "multiclass",
                      "V", description=f"{len(X)} scikit-learn digits (8 x 8) under {G}")


def rot(scale="small", seed=0, images=None, size=None, channels=None):
    """D.3: segmentation of triangles and pentagons, equivariant to 90-degree rotations."""
    images = images or (200 if scale == "small" else 1000)
    n = size or (10 if scale == "small" else 20)
    c1, c2 = channels or ((4, 4) if scale == "small" else (16, 16))
    X, M = data.shapes(images, n, rng=seed)
    specs = [LayerSpec("equivariant V→V (1)", "V", "V", 1, c1),
             LayerSpec("equivariant V→V (2)", "V", "V", c1, c2, after="layernorm,leaky_relu"),
             LayerSpec("equivariant V→V (out)", "V", "V", c2, 2, after="")]
    return Experiment("rot", parse_group(f"C4Grid({n})"), specs, _t(X.reshape(images, 1, -1) - 0.5),
                      _t(M.reshape(images, 2, -1)), "segmentation", "V", out_rep="V",
                      description=f"{images} {n} x {n} images of one triangle or pentagon, two masks")


def custom(scale="small", seed=0, group="S(6)", rep="V", hidden=None, samples=None, channels=None):
    """A teacher-student task for any real group: a random equivariant teacher labels Gaussian inputs.

    Architecture: ``rep`` → c1·``hidden`` (equivariant) → c2·Scalar (invariant) → LayerNorm → fc → 1.
    The hidden non-linearity must commute with the group: leaky ReLU for permutation groups, tanh (odd)
    for signed permutation groups, none (a linear equivariant part) for other groups.
    """
    from .model import BatchedMLP

    G = parse_group(group)
    if G.is_complex:
        raise LabError(f"{G} is complex; training dynamics need a real group")
    hidden = hidden or rep
    samples = samples or (300 if scale == "small" else 2000)
    c1, c2, c3 = channels or ((6, 8, 8) if scale == "small" else (32, 32, 32))
    if G.is_signed_permutation:
        act = "leaky_relu" if np.all(G.perms[1] > 0) else "tanh"
    else:
        act = ""
    specs = [LayerSpec(f"equivariant {rep}→{hidden}", rep, hidden, 1, c1, after=act),
             LayerSpec(f"invariant {hidden}→T(0)", hidden, "Scalar", c1, c2, after="layernorm,leaky_relu"),
             LayerSpec("fc", "Scalar", "Scalar", c2, c3, bias=True),
             LayerSpec("fc out", "Scalar", "Scalar", c3, 1, after="", bias=True)]
    teacher = BatchedMLP(G, specs)
    rng = np.random.default_rng([seed, 99])
    n_in = teacher.spaces[0].n_in
    X = _t(rng.standard_normal((samples, 1, n_in)))
    params = teacher.init([rng])
    params = [p * 3.0 if i < 2 else p for i, p in enumerate(params)]  # a teacher with some contrast
    with torch.no_grad():
        score = teacher.forward(params, X[None])[0, :, 0, 0]
    y = (score > score.median()).to(torch.float64)
    return Experiment("custom", G, specs, X, y, "binary", rep,
                      description=f"teacher-student on {G}, input {rep}, hidden {hidden} "
                      f"({'no' if not act else act} hidden non-linearity); labels = teacher score > median",
                      options={"group": group, "rep": rep, "hidden": hidden})


BUILDERS = {"perm": perm, "trans": trans, "rot": rot, "custom": custom}


def build(name: str, scale: str = "small", seed: int = 0, **options) -> Experiment:
    if name not in BUILDERS:
        raise LabError(f"unknown experiment {name!r}: choose one of {', '.join(EXPERIMENTS)}")
    if scale not in SCALES:
        raise LabError(f"unknown scale {scale!r}: choose small or paper")
    return BUILDERS[name](scale=scale, seed=seed, **{k: v for k, v in options.items() if v is not None})
