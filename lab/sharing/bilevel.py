"""Method 1 (Yeh et al.): learn a row-stochastic sharing matrix A = softmax(logits) by bi-level optimisation.

Lower level: ψ*(A) in closed form on the training split (``tasks``).  Upper level: the validation loss of
A ψ*(A) plus penalties, minimised over the logits; the hypergradient is autograd through the closed form.

    objective(A) = L_val(A ψ*(A)) + entropy · mean_i H(A_i·) + nuclear · ‖A‖_*

``entropy`` (default 1e-2) pushes every row towards a single 1 (a hard partition), ``nuclear`` (default 1e-2)
towards few columns in use (low rank; the true nuclear norm, ``torch.linalg.matrix_norm(A, "nuc")``).
An objective or logits that stop being finite (a huge learning rate or noise level) end the optimisation there,
with ``diverged`` set; the last finite logits are snapped as usual.
Random restarts run as one batch; the restart with the lowest final validation loss is kept, A is snapped to
argmax per row and ψ refitted on train + validation.

A lab addition, ``merge_tolerance`` (default 0.02, 0 disables): after snapping, blocks are merged greedily
while a merge raises the hard partition's validation loss (ψ fitted on the training split) by at most that
fraction.  Gradient descent reaches partitions *finer* than the truth (two columns holding equal values fit as
well as one) and cannot always cross the soft states between them; the merge pass takes the coarsest
partition the validation data support, which is what the nuclear-norm penalty asks for.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from ..control import Control
from .defaults import DEFAULTS  # noqa: F401 (re-exported: per-task defaults)
from .partition import canonical, partition_distance, selection_matrix


@dataclass
class SharingResult:
    labels: np.ndarray  # snapped partition of the K entries
    A: np.ndarray  # final soft A of the kept restart
    partition_distance: int
    history: list[dict] = field(default_factory=list)  # per recorded step: losses, penalties, PD
    A_history: list[np.ndarray] = field(default_factory=list)  # soft A of the best restart at recorded steps
    seconds: float = 0.0
    steps: int = 0
    mse_gap: float | None = None
    test_loss: float | None = None
    gt_test_loss: float | None = None
    diverged: bool = False  # the objective or the logits stopped being finite: optimisation ended there

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0


def objective(task, logits: torch.Tensor, entropy: float, nuclear: float):
    """(objective, upper loss, lower loss, entropy, nuclear norm), each per restart."""
    A = torch.softmax(logits, -1)
    psi = task.fit(A)
    upper = task.val_loss(A, psi)
    H = -(A * torch.log(A.clamp_min(1e-300))).sum(-1).mean(-1)
    nuc = torch.linalg.matrix_norm(A, "nuc")
    return upper + entropy * H + nuclear * nuc, upper, task.train_loss(A, psi), H, nuc


def hard_val_loss(task, labels) -> float:
    """Validation loss of a 0/1 partition with ψ fitted on the training split."""
    A = torch.as_tensor(selection_matrix(canonical(labels)))
    with torch.no_grad():
        return float(task.val_loss(A, task.fit(A)))


def merge_blocks(task, labels, tolerance: float) -> np.ndarray:
    """Greedily merge the pair of blocks that raises the validation loss least, while it stays within
    ``(1 + tolerance)`` of the current loss."""
    labels = canonical(labels)
    if tolerance <= 0:
        return labels
    current = hard_val_loss(task, labels)
    while labels.max() > 0:
        best = None
        for a in range(labels.max() + 1):
            for b in range(a + 1, labels.max() + 1):
                trial = canonical(np.where(labels == b, a, labels))
                loss = hard_val_loss(task, trial)
                if best is None or loss < best[0]:
                    best = (loss, trial)
        if best[0] > (1 + tolerance) * current + 1e-12:
            break
        current, labels = best
    return labels


def learn_sharing(task, steps: int | None = None, lr: float | None = None, entropy: float = 1e-2,
                  nuclear: float = 1e-2, restarts: int | None = None, seed: int = 0, optimizer: str | None = None,
                  merge_tolerance: float = 0.02,
                  record_every: int = 5, on_step=None, control: Control | None = None) -> SharingResult:
    d = DEFAULTS.get(task.name, DEFAULTS["conv"])
    steps = d["steps"] if steps is None else steps
    lr = d["lr"] if lr is None else lr
    optimizer = d["optimizer"] if optimizer is None else optimizer
    restarts = d["restarts"] if restarts is None else restarts
    K = task.K
    gen = torch.Generator().manual_seed(seed)
    logits = (0.1 * torch.randn(restarts, K, K, generator=gen, dtype=torch.float64)).requires_grad_()
    opt = (torch.optim.RMSprop if optimizer == "rmsprop" else torch.optim.Adam)([logits], lr=lr)
    result = SharingResult(labels=np.zeros(K, dtype=np.int64), A=np.zeros((K, K)), partition_distance=K)
    t0 = time.perf_counter()
    for step in range(steps + 1):
        if control is not None and not control.wait_while_paused():
            break  # stopped: the best restart so far is snapped and reported
        obj, upper, lower, H, nuc = objective(task, logits, entropy, nuclear)
        if step % record_every == 0 or step == steps:
            with torch.no_grad():
                best = int(torch.argmin(upper))
                A = torch.softmax(logits[best], -1).numpy()
                labels = A.argmax(1)
                rec = {"step": step, "upper": float(upper[best]), "lower": float(lower[best]),
                       "entropy": float(H[best]), "nuclear": float(nuc[best]),
                       "partition_distance": partition_distance(labels, task.gt)}
                result.history.append(rec)
                result.A_history.append(A)
                if on_step is not None:
                    on_step(rec, A)
        if step == steps:
            break
        if not bool(torch.isfinite(obj).all()):
            result.diverged = True  # an overflowing loss: its gradient would make the logits NaN
            break
        opt.zero_grad()
        obj.sum().backward()
        previous = logits.detach().clone()
        opt.step()
        if not bool(torch.isfinite(logits).all()):
            with torch.no_grad():
                logits.copy_(previous)  # keep the last finite logits
            result.diverged = True
            break
        result.steps = step + 1
    result.seconds = time.perf_counter() - t0
    with torch.no_grad():
        _, upper, *_ = objective(task, logits, entropy, nuclear)
        best = int(torch.argmin(upper))
        A = torch.softmax(logits[best], -1).numpy()
    result.A = A
    result.labels = merge_blocks(task, canonical(A.argmax(1)), merge_tolerance)
    result.partition_distance = partition_distance(result.labels, task.gt)
    if hasattr(task, "mse_gap"):
        result.mse_gap = task.mse_gap(result.labels)
    if hasattr(task, "refit_loss"):
        result.test_loss = task.refit_loss(result.labels)
        result.gt_test_loss = task.refit_loss(task.gt)
    return result
