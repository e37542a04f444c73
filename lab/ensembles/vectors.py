"""Ensembles of the dynamics models on vectors: the Perm graph task and the teacher-student task for any finite group
(``lab ensembles --task perm|custom``).

The members are ``lab.dynamics``'s networks (``BatchedMLP``: layers ``c_in x rep_in -> c_out x rep_out`` with
pointwise nonlinearities that commute with the group, pooling to scalars, fully connected scalar layers), on the data
of ``lab.tasks.nordenfors`` (``perm``: connectivity of SBM graphs under S(n) acting on adjacency matrices,
T(2); ``custom``: a random invariant teacher labels Gaussian inputs of any signed-permutation group's rep).  The
group acts on the data by signed permutations (``lab.reps.action``), and on the parameters by the lifted action
``rho_L(g) W = rho_out(g) W rho_in(g)^T`` per layer (biases sit on scalar layers, where it is the identity); the
output is an invariant score, so ``phi_{rho_L(g) A}(rho_X(g) x) = phi_A(x)`` (tested to rounding).

The three settings, on the first layer (the one that reads the input):

* ``invariant`` -- every weight free (``L`` is all of Hom, invariant) and an i.i.d. centred Gaussian (invariant: the
  action is orthogonal);
* ``noninvariant-init`` -- the same ``L``, the first layer's weights on input coordinate 0 drawn with mean
  ``INIT_MEAN`` (a distribution the group moves: coordinate 0 is sent elsewhere);
* ``noninvariant-space`` -- the first layer restricted to the first half of the input coordinates (a coordinate
  subspace no element moving a coordinate across the halves keeps).

``check_assumptions_vectors`` verifies them with the engine: the first layer's support pattern and mean pattern
against their images under the group's discrete generators and sampled elements.  The groups here are large (S(8)
has 40 320 elements), so the ensemble's equivariance is measured on ``ORBIT_SAMPLES`` sampled elements besides the
identity (``orbit_elements``, fixed by the seed); exact orbit averaging is not offered for them.
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from .network import EnsembleError, get_setting

VECTOR_TASKS = ("perm", "custom")
#: sampled group elements the ensemble is compared on, besides the identity (so 4 inputs per orbit, as C4's)
ORBIT_SAMPLES = 3
#: the mean of the noninvariant initialisation on input coordinate 0 (in units of the layer's standard deviation)
INIT_MEAN = 2.0


def build_task(task: str, seed: int = 0, group: str | None = None):
    """``(experiment, model)``: ``lab.tasks.nordenfors.build(task, "small", seed)`` and its ``BatchedMLP``."""
    from ..tasks.nordenfors import build
    from ..nn.batched import BatchedMLP

    if task not in VECTOR_TASKS:
        raise EnsembleError(f"unknown vector task {task!r}: choose one of {', '.join(VECTOR_TASKS)}")
    options = {"group": group} if task == "custom" and group else {}
    exp = build(task, "small", seed, **options)
    if not exp.group.is_signed_permutation:
        raise EnsembleError(f"{exp.group} does not act by signed permutations: the ensembles' vector tasks need a "
                            f"finite signed-permutation group")
    if exp.task != "binary":
        raise EnsembleError(f"the {task} task is {exp.task}: the ensembles need an invariant (binary) output")
    return exp, BatchedMLP(exp.group, exp.specs, grid=exp.grid)


def first_layer_patterns(model, setting: str) -> tuple[np.ndarray, np.ndarray]:
    """(support, mean) of the first layer over its (n_out, n_in) entries: which weights are free (1) and their
    initial mean pattern (in units of the layer's standard deviation)."""
    s = get_setting(setting)
    sp = model.spaces[0]
    support = np.ones((sp.n_out, sp.n_in))
    mean = np.zeros((sp.n_out, sp.n_in))
    if s.name == "noninvariant-space":
        support[:, sp.n_in // 2:] = 0.0
    if s.name == "noninvariant-init":
        mean[:, 0] = INIT_MEAN
    return support, mean


def _operators(model, elements):
    """(P_in, P_out): the elements' signed permutation matrices on the first layer's input and output reps."""
    sp = model.spaces[0]
    return ([e for e in _dense(sp.rep_in, elements)], [e for e in _dense(sp.rep_out, elements)])


def _dense(rep, elements) -> np.ndarray:
    from ..reps.action import rep_signed_perm

    dest, sign = rep_signed_perm(rep, elements.perms, elements.signs)
    n = rep.size
    mats = np.zeros((len(dest), n, n))
    for k in range(len(dest)):
        mats[k, dest[k], np.arange(n)] = sign[k]
    return mats


def check_assumptions_vectors(model, setting: str, seed: int = 0) -> dict:
    """The theorem's assumptions on the first layer, checked under the group's discrete generators and 8 sampled
    elements: the support pattern (``L``) and the initial mean pattern mapped to themselves by ``rho_L(g)``."""
    from ..reps.action import Elements, sample_elements

    group = model.group
    gens = group.discrete_generators_signed() if hasattr(group, "discrete_generators_signed") else None
    elements = sample_elements(group, 8, np.random.default_rng([seed, 7]))
    if gens is not None:
        elements = Elements(group, np.concatenate([gens[0], elements.perms]),
                            np.concatenate([gens[1], elements.signs]))
    support, mean = first_layer_patterns(model, setting)
    P_in, P_out = _dense(model.spaces[0].rep_in, elements), _dense(model.spaces[0].rep_out, elements)

    def fixed(pattern, absolute):
        for a, b in zip(P_out, P_in):
            moved = a @ pattern @ b.T
            if not np.allclose(np.abs(moved) if absolute else moved, pattern):
                return False
        return True

    space, init = fixed(support, True), fixed(mean, False)
    return {"space_invariant": space, "init_invariant": init, "theorem_applies": space and init}


def init_vector_members(model, members: int, setting: str, seeds, dtype=torch.float32, device="cpu") -> list:
    """Stacked parameters of ``members`` draws (member m from ``seeds[m]``): N(0, 1/fan_in) per weight, not projected
    (an i.i.d. Gaussian is invariant under the orthogonal lifted action), the first layer's mean and support per
    ``setting``; biases zero."""
    seeds = list(seeds)
    if len(seeds) != members:
        raise EnsembleError(f"{members} members need {members} seeds, got {len(seeds)}")
    support, mean = first_layer_patterns(model, setting)
    params = []
    rngs = [np.random.default_rng([int(s), 3]) for s in seeds]
    for i, (s, sp) in enumerate(zip(model.specs, model.spaces)):
        shape = (s.c_out, s.c_in, sp.n_out, sp.n_in)
        std = 1.0 / np.sqrt(s.c_in * sp.n_in)
        W = np.stack([r.normal(0.0, std, shape) for r in rngs])
        if i == 0:
            W = (W + std * mean) * support
        params.append(torch.as_tensor(W, dtype=dtype, device=device))
        if s.bias:
            params.append(torch.zeros(members, s.c_out, sp.n_out, dtype=dtype, device=device))
    return params


def first_layer_mask(model, setting: str, dtype=torch.float32, device="cpu") -> torch.Tensor:
    support, _ = first_layer_patterns(model, setting)
    return torch.as_tensor(support, dtype=dtype, device=device)


def lift_parameters(model, params: list, elements) -> list:
    """``rho_L(g_m) A_m`` for member m and the m-th of ``elements`` (one element per member)."""
    out, i = [], 0
    for s, sp in zip(model.specs, model.spaces):
        W = params[i]
        P_out = torch.as_tensor(_dense(sp.rep_out, elements), dtype=W.dtype, device=W.device)
        P_in = torch.as_tensor(_dense(sp.rep_in, elements), dtype=W.dtype, device=W.device)
        out.append(torch.einsum("mab,mocbd,med->mocae", P_out, W, P_in))
        i += 1
        if s.bias:
            out.append(params[i])
            i += 1
    return out


def scores(model, params: list, x: torch.Tensor) -> torch.Tensor:
    """Members' two-class logits (members, N, 2) for inputs ``x`` (N, c, n) shared by all members: ``[0, s]`` for the
    network's score ``s`` (softmax of it is the sigmoid the task trains)."""
    members = params[0].shape[0]
    s = model.forward(params, x.unsqueeze(0).expand(members, *x.shape))[:, :, 0, 0]
    return torch.stack([torch.zeros_like(s), s], -1)


def orbit_elements(group, seed: int = 0):
    """The identity and ``ORBIT_SAMPLES`` elements drawn at ``seed`` (the orbit the metrics compare on)."""
    from ..reps.action import Elements, sample_elements

    drawn = sample_elements(group, ORBIT_SAMPLES, np.random.default_rng([seed, 11]))
    d = drawn.perms.shape[1]
    return Elements(group, np.concatenate([np.arange(d)[None], drawn.perms]),
                    np.concatenate([np.ones((1, d), dtype=drawn.signs.dtype), drawn.signs]))


def orbit_scores(model, params: list, x: torch.Tensor, elements, in_rep: str, chunk: int = 64) -> torch.Tensor:
    """Members' logits on ``x`` moved by each of ``elements``: (members, len(elements), N, 2), row 0 the identity
    when ``orbit_elements`` made them."""
    from ..reps.action import apply
    from ..reps.parse import parse_rep

    op = elements.operator(parse_rep(in_rep, model.group), x.dtype, x.device)
    moved = apply(op, x)  # (E, N, c, n)
    members = params[0].shape[0]
    out = []
    with torch.no_grad():
        for i in range(0, members, chunk):
            part = [p[i:i + chunk] for p in params]
            out.append(torch.stack([scores(model, part, moved[e]) for e in range(len(elements))], 1))
    return torch.cat(out)


def train_vectors(model, params: list, X: torch.Tensor, y: torch.Tensor, settings, seeds, setting: str, in_rep: str,
                  control=None, on_step=None) -> list:
    """Projected SGD of every member at once on the binary task, each sample of each member's mini-batch moved by
    its own random group element (``settings.augment`` "sampled") or not ("none"); the first layer's gradient
    masked to its support.  Changes ``params`` in place and returns them."""
    from ..control import checkpoint
    from ..reps.action import Elements, apply, sample_elements
    from ..reps.parse import parse_rep

    if settings.augment == "orbit":
        raise EnsembleError("exact orbit averaging enumerates the group; the vector tasks' groups are too large: "
                            "use sampled augmentation")
    members = params[0].shape[0]
    seeds = list(seeds)
    rngs = [np.random.default_rng([int(s), 1]) for s in seeds]
    rep = parse_rep(in_rep, model.group)
    mask = first_layer_mask(model, setting, params[0].dtype, params[0].device)
    X = X.to(dtype=params[0].dtype, device=params[0].device)
    y = y.to(dtype=params[0].dtype, device=params[0].device)
    n, b = len(X), settings.batch
    for step in range(1, settings.steps + 1):
        checkpoint(control)
        idx = torch.as_tensor(np.stack([r.integers(0, n, b) for r in rngs]), device=X.device)
        xb = X[idx]  # (M, B, c, n)
        if settings.augment == "sampled":
            drawn = [sample_elements(model.group, b, r) for r in rngs]
            els = Elements(model.group, np.concatenate([d.perms for d in drawn]),
                           np.concatenate([d.signs for d in drawn]))
            op = els.operator(rep, xb.dtype, xb.device)
            xb = apply(op, xb.reshape(members * b, 1, *xb.shape[2:]), per_run=True).reshape(xb.shape)
        leaves = [p.detach().requires_grad_(True) for p in params]
        out = model.forward(leaves, xb)[:, :, 0, 0]
        losses = F.binary_cross_entropy_with_logits(out, y[idx], reduction="none").mean(1)
        grads = torch.autograd.grad(losses.sum(), leaves)
        with torch.no_grad():
            for k, (p, g) in enumerate(zip(leaves, grads)):
                params[k] = p.detach() - settings.lr * (g * mask if k == 0 else g)
        if on_step is not None:
            on_step(step, losses.detach())
    return params
