"""The experiments of Nordenfors, Ohlsson & Flinth (appendix D), each a preset at two scales.

``build(name, scale, seed, **options)`` returns an ``Experiment``: the group, the layers, the data and the
task, all read from ``lab.tasks.nordenfors_paper`` (the paper's settings with their sources).  ``small`` runs in
seconds on a 2-core CPU (the same architectures, fewer channels and data); ``paper`` is the published setting
(MNIST needs ``data_dir``: the IDX files the user has; without them scikit-learn's 8 x 8 digits replace it).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import LabError
from ..groups import parse_group
from ..groups.base import Group
from ..data import digits as digits_module, synthetic
from .nordenfors_paper import EXPERIMENTS, SCALES, setting
from ..nn.batched import BatchedMLP, LayerSpec

#: appendix E.2: the Trans architecture and data under four groups acting on the 8 x 8 grid (the digits)
RELDIM_GROUPS = {"Trans": "Z(8)*Z(8)", "Rot": "C4Grid(8)", "OneDTrans": "Trivial(8)*Z(8)", "TransRot": "P4Grid(8)"}


def reldim_groups(n: int = 8) -> dict[str, str]:
    """Appendix E.2's four groups acting on the n x n grid (n = 14 for the paper's MNIST)."""
    return {name: group.replace("(n)", f"({n})") for name, group in setting("e2", "paper", "groups")}


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
    grid: int | None = None  # n: the side of the image or the number of nodes (the reference init's scale)
    mask_loss: str = "mean"  # segmentation: "mean" over masks and pixels, or "sum" over masks of their means


def _t(a, dtype=torch.float64):
    return torch.as_tensor(np.asarray(a), dtype=dtype)


def _specs(experiment: str, channels) -> list[LayerSpec]:
    """The paper's layers (lab.tasks.nordenfors_paper) with these channel counts."""
    layers = setting(experiment, "paper", "layers")
    return [LayerSpec(name, rep_in, rep_out, channels[i], channels[o], after=after, bias=bias)
            for name, rep_in, rep_out, i, o, after, bias in layers]


def _channels(experiment, scale, channels):
    """The experiment's channel counts: given (the hidden ones, as before), or the table's."""
    full = tuple(setting(experiment, scale, "channels"))
    if channels is None:
        return full
    channels = tuple(channels)
    return (full[0],) + channels + (full[-1],) if len(channels) == len(full) - 2 else channels


def perm(scale="small", seed=0, graphs=None, nodes=None, channels=None):
    """D.1: connectivity of SBM graphs; S(n) on adjacency matrices."""
    graphs = graphs or setting("perm", scale, "data_size")
    nodes = nodes or setting("perm", scale, "nodes")
    ch = _channels("perm", scale, channels)
    A, y = synthetic.sbm_graphs(graphs, nodes, p=setting("perm", scale, "sbm_p"), q=setting("perm", scale, "sbm_q"),
                           rng=seed)
    return Experiment("perm", parse_group(f"S({nodes})"), _specs("perm", ch), _t(A.reshape(graphs, 1, -1) - 0.5),
                      _t(y), "binary", "T(2)", grid=nodes, description=f"connectivity of {graphs} two-block SBM "
                      f"graphs with {nodes} nodes (p = 0.5, q = 0.05); {int(y.sum())} connected")


def trans(scale="small", seed=0, group=None, images=None, channels=None, data_dir=None, size=None):
    """D.2: classification invariant to the group acting on the pixels.  MNIST's test set resized to 14 x 14
    from the IDX files in ``data_dir`` (the paper's data), else scikit-learn's 8 x 8 digits."""
    images = images or (setting("trans", scale, "data_size") if scale != "paper" or data_dir else None)
    ch = _channels("trans", scale, channels)
    if data_dir is not None:
        from ..data.mnist import load_mnist

        side = size or setting("trans", "paper", "image_size")
        X, y = load_mnist(data_dir, "t10k", size=side)
        if images is not None and images < len(X):
            idx = np.random.default_rng(seed).choice(len(X), size=images, replace=False)
            X, y = X[idx], y[idx]
        what = f"{len(X)} MNIST test images ({side} x {side})"
    else:
        if size not in (None, 8):
            raise LabError(f"the digits are 8 x 8 (size {size} needs MNIST: --data DIR)")
        side = 8
        X, y = digits_module.digits(images, rng=seed)
        what = f"{len(X)} scikit-learn digits (8 x 8)"
    G = parse_group(group or f"Z({side})*Z({side})")
    if G.d != side * side:
        raise LabError(f"the images are {side} x {side}: the group must act on {side * side} pixels, {G} acts on "
                       f"{G.d}")
    return Experiment("trans", G, _specs("trans", ch), _t(X.reshape(len(X), 1, side * side) - 0.5),
                      _t(y, torch.int64), "multiclass", "V", grid=side, description=f"{what} under {G}")


def rot(scale="small", seed=0, images=None, size=None, channels=None):
    """D.3: segmentation of triangles and pentagons, equivariant to 90-degree rotations."""
    images = images or setting("rot", scale, "data_size")
    n = size or setting("rot", scale, "image_size")
    ch = _channels("rot", scale, channels)
    X, M = synthetic.shapes(images, n, rng=seed)
    return Experiment("rot", parse_group(f"C4Grid({n})"), _specs("rot", ch), _t(X.reshape(images, 1, -1) - 0.5),
                      _t(M.reshape(images, 2, -1)), "segmentation", "V", out_rep="V", grid=n, mask_loss="sum",
                      description=f"{images} {n} x {n} images of one triangle or pentagon, two masks")


def custom(scale="small", seed=0, group="S(6)", rep="V", hidden=None, samples=None, channels=None):
    """A teacher-student task for any real group: a random equivariant teacher labels Gaussian inputs.

    Architecture: ``rep`` → c1·``hidden`` (equivariant) → c2·Scalar (invariant) → LayerNorm → fc → 1.
    The hidden non-linearity must commute with the group: leaky ReLU for permutation groups, tanh (odd)
    for signed permutation groups, none (a linear equivariant part) for other groups.
    """
    G = parse_group(group)
    if G.is_complex:
        raise LabError(f"{G} is complex; training dynamics need a real group")
    hidden = hidden or rep
    samples = samples or (2000 if scale == "paper" else 300)
    c1, c2, c3 = channels or ((32, 32, 32) if scale == "paper" else (6, 8, 8))
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
#: the group an experiment acts with when none is given (what the pane shows)
DEFAULT_GROUPS = {"trans": "Z(8)*Z(8)", "custom": "S(6)"}


def build(name: str, scale: str = "small", seed: int = 0, **options) -> Experiment:
    if name not in BUILDERS:
        raise LabError(f"unknown experiment {name!r}: choose one of {', '.join(EXPERIMENTS)}")
    if scale not in SCALES:
        raise LabError(f"unknown scale {scale!r}: choose small or paper")
    return BUILDERS[name](scale=scale, seed=seed, **{k: v for k, v in options.items() if v is not None})
