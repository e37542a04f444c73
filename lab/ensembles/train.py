"""Training every member of an ensemble at once, under data augmentation (the poster's experiment).

Each member ``m`` is trained by plain SGD (the authors': learning rate 0.01, batch 32) on the *projected* gradient
(the poster's flow ``A' = -pi_L grad R^aug(A)``: the filters' gradients masked to their support, so the members stay
in ``L``).  Its mini-batches and augmentations come from its own random stream (``seeds[m]``), so a member follows
the same trajectory whether it trains alone or with others.  Augmentation (``AUGMENTS``):

* ``sampled`` (default, the poster's): every sample of a batch rotated by its own uniformly drawn element of C4;
* ``orbit``: every sample in all four rotations, the loss averaged over them -- the expected augmented loss
  ``E_g R(rho_L(g) A)`` on that batch, exactly; its gradient is equivariant, ``grad(rho_L(g) A) = rho_L(g) grad(A)``
  for the same batch, so a member started at ``rho_L(g) A0`` and fed the same batches stays at ``rho_L(g) A(t)``
  (the theorem's mechanism, to float rounding);
* ``none``: no augmentation (a baseline: the theorem's hypothesis is the augmented risk).

The members are one batched computation: ``torch.func.vmap`` of the member function over stacked parameters, one
loss summed over members (their gradients do not mix), one ``autograd.grad``.  ``loop_step`` is the same step member
by member (the benchmark's baseline and the test that batching changes nothing).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from .network import ORDER, EnsembleError, masks, member_logits, rotate_images

AUGMENTS = ("sampled", "orbit", "none")
#: on a CPU batching the members pays while their convolutions are thin and costs once they are wide (the step is
#: bound by arithmetic, and the batched grouped convolution is the slower kernel there): measured with
#: bench/ensembles.py on 2 cores, batch 32, batched / loop 1.7x (M = 10) and 2.8x (M = 100) at 8 channels, 1.6x at 16,
#: 1.3x at 32, 0.8x (M = 10) and 0.7x (M = 100) at 64.  Wider than this, ``train`` loops over the members on a CPU;
#: on a GPU, where a member's step is a few kernel launches, it always batches.
CPU_BATCHED_MAX_CHANNELS = 32


def step_kind(channels: int, device) -> str:
    """``batched`` or ``loop``: the faster way to step members of ``channels`` channels on ``device`` (see
    ``CPU_BATCHED_MAX_CHANNELS``).

    >>> step_kind(8, "cpu"), step_kind(64, "cpu"), step_kind(64, "cuda")
    ('batched', 'loop', 'batched')
    """
    if torch.device(device).type != "cpu":
        return "batched"
    return "batched" if channels <= CPU_BATCHED_MAX_CHANNELS else "loop"


@dataclass(frozen=True)
class TrainSettings:
    steps: int = 200
    batch: int = 32
    lr: float = 0.01
    augment: str = "sampled"

    def __post_init__(self):
        if self.augment not in AUGMENTS:
            raise EnsembleError(f"unknown augmentation {self.augment!r}: choose one of {', '.join(AUGMENTS)}")
        for name in ("steps", "batch"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise EnsembleError(f"{name} must be a positive integer, got {v!r}")
        if not self.lr > 0:
            raise EnsembleError(f"lr must be positive, got {self.lr!r}")


class Streams:
    """Each member's batches and rotations from its own generator (``numpy.random.default_rng([seed, 1])``)."""

    def __init__(self, seeds, n: int, batch: int):
        self.rngs = [np.random.default_rng([int(s), 1]) for s in seeds]
        self.n, self.batch = n, batch

    def draw(self) -> tuple[np.ndarray, np.ndarray]:
        """(indices, rotations), each (members, batch)."""
        idx = np.stack([r.integers(0, self.n, self.batch) for r in self.rngs])
        rot = np.stack([r.integers(0, ORDER, self.batch) for r in self.rngs])
        return idx, rot


def _batch(orbit_x, y, idx, rot, augment: str):
    """Members' inputs (M, B', 1, H, W) and labels (M, B') for one step."""
    idx_t, rot_t = torch.as_tensor(idx, device=orbit_x.device), torch.as_tensor(rot, device=orbit_x.device)
    if augment == "sampled":
        return orbit_x[rot_t, idx_t], y[idx_t]
    if augment == "none":
        return orbit_x[0][idx_t], y[idx_t]
    xb = orbit_x[:, idx_t]  # (ORDER, M, B, ...)
    m, b = idx.shape
    return xb.transpose(0, 1).reshape(m, ORDER * b, *xb.shape[3:]), y[idx_t].repeat(1, ORDER)


def _loss(params, xb, yb):
    logits = torch.func.vmap(member_logits, in_dims=(0, 0))(params, xb)
    m = logits.shape[0]
    per = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), yb.reshape(-1), reduction="none")
    return per.reshape(m, -1).mean(1)  # (M,): each member's own loss


def sgd_step(params: dict, xb, yb, lr: float, mask) -> torch.Tensor:
    """One projected SGD step of every member, batched; returns each member's loss before the step."""
    leaves = {k: v.detach().requires_grad_(True) for k, v in params.items()}
    losses = _loss(leaves, xb, yb)
    grads = torch.autograd.grad(losses.sum(), list(leaves.values()))
    with torch.no_grad():
        for (k, v), g in zip(leaves.items(), grads):
            params[k] = v.detach() - lr * (g * mask if k.startswith("conv") else g)
    return losses.detach()


def loop_step(params: dict, xb, yb, lr: float, mask) -> torch.Tensor:
    """``sgd_step`` member by member (a Python loop): the baseline of the batched step."""
    members = xb.shape[0]
    losses = []
    new = {k: [] for k in params}
    for m in range(members):
        leaves = {k: v[m].detach().requires_grad_(True) for k, v in params.items()}
        loss = F.cross_entropy(member_logits(leaves, xb[m]), yb[m])
        grads = torch.autograd.grad(loss, list(leaves.values()))
        for (k, v), g in zip(leaves.items(), grads):
            new[k].append(v.detach() - lr * (g * mask if k.startswith("conv") else g))
        losses.append(loss.detach())
    params.update({k: torch.stack(v) for k, v in new.items()})
    return torch.stack(losses)


def train(params: dict, x: torch.Tensor, y: torch.Tensor, settings: TrainSettings, seeds, setting: str,
          control=None, on_step=None, batched: bool | str = "auto") -> dict:
    """Train the stacked ``params`` (changed in place and returned) on images ``x`` (N, 1, H, W), labels ``y``.
    ``seeds``: one per member (its batches and rotations).  ``batched``: True (``sgd_step``), False (``loop_step``,
    the same trajectories to float rounding) or ``"auto"``: ``step_kind`` of the members' width and device.
    ``on_step(step, losses)`` after every step (records, progress); ``control`` is checked before every step (a
    stop raises ``lab.control.Stopped``)."""
    from ..control import checkpoint

    members = next(iter(params.values())).shape[0]
    seeds = list(seeds)
    if len(seeds) != members:
        raise EnsembleError(f"{members} members need {members} seeds, got {len(seeds)}")
    dtype, device = params["fc"].dtype, params["fc"].device
    x = x.to(dtype=dtype, device=device)
    y = y.to(device=device)
    orbit_x = torch.stack([rotate_images(x, k) for k in range(ORDER)])
    mask = masks(setting, dtype, device)
    streams = Streams(seeds, len(x), settings.batch)
    if batched == "auto":
        batched = step_kind(params["conv0"].shape[1], device) == "batched"
    step_fn = sgd_step if batched else loop_step
    for step in range(1, settings.steps + 1):
        checkpoint(control)
        idx, rot = streams.draw()
        xb, yb = _batch(orbit_x, y, idx, rot, settings.augment)
        losses = step_fn(params, xb, yb, settings.lr, mask)
        if on_step is not None:
            on_step(step, losses)
    return params
