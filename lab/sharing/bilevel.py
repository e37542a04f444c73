"""Method 1 (Yeh et al.): learn a row-stochastic sharing matrix A = softmax(logits) by bi-level optimisation.

    objective(A) = L_val(A ψ*(A)) + entropy · mean_i H(A_i·) + nuclear · R(A),    ψ*(A) = argmin_ψ L_train(A ψ)

Which step comes from where:

* **the poster** -- the bi-level problem above; A relaxed to [0, 1] and optimised by gradient methods; the two
  penalties: the entropy H(A) (pushes every row towards a single 1, a hard partition) and the nuclear norm
  ‖A‖_* (low rank: few shared parameters), ``rank_penalty="nuclear"`` (the default);
  the snapped A is scored by the partition distance to A_gt.
* **the reference code** (raymondyeh07/equivariance_discovery; used where the poster gives no number):
  A = softmax of free K×K logits initialised N(0, 0.1); both penalties weighted 1e-2; the Gaussian task's
  lower level in closed form, RMSprop lr 2e-2 (weight decay 1e-4) for 1000 outer iterations; 3 random
  restarts, the one with the lowest final objective (validation loss plus penalties) kept; A snapped to its
  argmax per row and ψ refitted on train + validation.  Its low-rank penalty is not the nuclear norm but the
  sum of A's column norms Σ_j ‖A_:j‖₂ (``trace(sqrt(AᵀA))``), ``rank_penalty="columns"``.  The two agree on a
  0/1 A (both Σ_j √n_j) but not on a soft one: the nuclear norm of a row spread over two columns that hold the
  same block is 1/√2 of the hard choice's, so the true nuclear norm *rewards* splitting a block across duplicate
  columns (argmax then snaps it into a finer partition), while the column norms are indifferent to it.
* **the lab** -- the hypergradient is autograd through the closed forms (``tasks``: exact for the Gaussian task,
  the expected-loss closed form of ``LinearTask`` for conv / group / sum, where the reference trains a network
  with a Neumann-series implicit hypergradient); restarts run as one batch; float64.  And, only when asked
  (``merge=True``; not in the poster or the reference code), a **merge pass** after snapping: blocks are merged
  greedily while a merge raises the hard partition's validation loss (ψ fitted on the training split) by at
  most ``merge_tolerance`` (a fraction, default 0.02).  Gradient descent reaches partitions *finer* than the
  truth (two columns holding equal values fit as well as one) and cannot always cross the soft states between
  them; the merge pass takes the coarsest partition the validation data support.  It makes the Gaussian
  experiment's partition distance 0 in nearly every setting, so it is off by default: the faithful method is
  the one the claims of the poster are measured with.

An objective or logits that stop being finite (a huge learning rate or noise level) end the optimisation there,
with ``diverged`` set; the last finite logits are snapped as usual.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from ..control import Control
from ..errors import LabError
from .defaults import DEFAULTS, RANK_COLUMNS, RANK_PENALTIES  # noqa: F401 (re-exported: per-task defaults)
from .partition import canonical, partition_distance, selection_matrix, stability


@dataclass
class SharingResult:
    labels: np.ndarray  # the scored partition of the K entries: the snapped A, merged when ``merged``
    A: np.ndarray  # final soft A of the kept restart
    partition_distance: int  # of ``labels`` to the truth
    history: list[dict] = field(default_factory=list)  # per recorded step: losses, penalties, PD
    A_history: list[np.ndarray] = field(default_factory=list)  # soft A of the best restart at recorded steps
    seconds: float = 0.0
    steps: int = 0
    mse_gap: float | None = None
    test_loss: float | None = None
    gt_test_loss: float | None = None
    diverged: bool = False  # the objective or the logits stopped being finite: optimisation ended there
    snapped: np.ndarray | None = None  # argmax of A per row (canonical), before any merge pass
    snapped_distance: int | None = None  # partition distance of ``snapped``
    merged: bool = False  # the lab's merge pass ran (``merge=True``)
    #: ``partition.stability`` of the recorded snapshots of A (the last ``STABLE_WINDOW``); None without a history
    stability: object | None = None

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    @property
    def selection(self) -> np.ndarray:
        """The 0/1 K x K matrix the partition distance is computed from (``partition.snapped_matrix``): A's
        argmax per row, after the merge pass when it ran, in the columns of the soft A."""
        from .partition import snapped_matrix

        return snapped_matrix(self.A, self.labels)


def rank_term(A: torch.Tensor, form: str = "nuclear") -> torch.Tensor:
    """The low-rank penalty per restart: ‖A‖_* (``nuclear``, the poster) or Σ_j ‖A_:j‖₂ (``columns``, the
    reference code's surrogate)."""
    if form == "nuclear":
        return torch.linalg.matrix_norm(A, "nuc")
    if form == "columns":
        return torch.linalg.vector_norm(A, dim=-2).sum(-1)
    raise LabError(f"unknown rank penalty {form!r}: {' or '.join(RANK_PENALTIES)}")


def objective(task, logits: torch.Tensor, entropy: float, nuclear: float, rank_penalty: str = "nuclear"):
    """(objective, upper loss, lower loss, entropy, low-rank penalty), each per restart."""
    A = torch.softmax(logits, -1)
    psi = task.fit(A)
    upper = task.val_loss(A, psi)
    H = -(A * torch.log(A.clamp_min(1e-300))).sum(-1).mean(-1)
    rank = rank_term(A, rank_penalty)
    return upper + entropy * H + nuclear * rank, upper, task.train_loss(A, psi), H, rank


def hard_val_loss(task, labels) -> float:
    """Validation loss of a 0/1 partition with ψ fitted on the training split."""
    A = torch.as_tensor(selection_matrix(canonical(labels)))
    with torch.no_grad():
        return float(task.val_loss(A, task.fit(A)))


def merge_blocks(task, labels, tolerance: float) -> np.ndarray:
    """The lab's merge pass (not in the poster): greedily merge the pair of blocks that raises the validation
    loss least, while it stays within ``(1 + tolerance)`` of the current loss."""
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


def _filled(defaults: dict, steps, lr, optimizer, restarts, weight_decay) -> tuple:
    """The outer-loop settings with those left as None taken from a task's ``defaults``."""
    given = dict(steps=steps, lr=lr, optimizer=optimizer, restarts=restarts, weight_decay=weight_decay)
    return tuple(defaults[k] if v is None else v for k, v in given.items())


def _optimiser(logits: torch.Tensor, optimizer: str, lr: float, weight_decay: float):
    return (torch.optim.RMSprop if optimizer == "rmsprop" else torch.optim.Adam)([logits], lr=lr,
                                                                                 weight_decay=weight_decay)


def _finite_step(opt, logits: torch.Tensor, obj: torch.Tensor) -> bool:
    """One optimiser step on ``obj``; False (nothing changed) when the objective is not finite (its gradient
    would make the logits NaN) or the step made the logits non-finite (the last finite logits are kept)."""
    if not bool(torch.isfinite(obj).all()):
        return False
    opt.zero_grad()
    obj.sum().backward()
    previous = logits.detach().clone()
    opt.step()
    if not bool(torch.isfinite(logits).all()):
        with torch.no_grad():
            logits.copy_(previous)
        return False
    return True


def learn_sharing(task, steps: int | None = None, lr: float | None = None, entropy: float = 1e-2,
                  nuclear: float = 1e-2, restarts: int | None = None, seed: int = 0, optimizer: str | None = None,
                  weight_decay: float | None = None, rank_penalty: str = "nuclear", merge: bool = False,
                  merge_tolerance: float = 0.02, record_every: int = 5, on_step=None,
                  control: Control | None = None) -> SharingResult:
    """Learn the sharing of ``task`` (settings left as None: the task's defaults, ``defaults.DEFAULTS``).

    ``merge``: run the lab's merge pass after snapping (off by default: not in the poster); ``merge_tolerance``
    is its tolerance (the fraction the validation loss may rise by one merge)."""
    steps, lr, optimizer, restarts, weight_decay = _filled(DEFAULTS.get(task.name, DEFAULTS["conv"]), steps, lr,
                                                           optimizer, restarts, weight_decay)
    rank_term(torch.eye(1, dtype=torch.float64), rank_penalty)  # an unknown form fails before any work
    K = task.K
    gen = torch.Generator().manual_seed(seed)
    logits = (0.1 * torch.randn(restarts, K, K, generator=gen, dtype=torch.float64)).requires_grad_()
    opt = _optimiser(logits, optimizer, lr, weight_decay)
    result = SharingResult(labels=np.zeros(K, dtype=np.int64), A=np.zeros((K, K)), partition_distance=K)
    t0 = time.perf_counter()
    for step in range(steps + 1):
        if control is not None and not control.wait_while_paused():
            break  # stopped: the best restart so far is snapped and reported
        obj, upper, lower, H, rank = objective(task, logits, entropy, nuclear, rank_penalty)
        if step % record_every == 0 or step == steps:
            with torch.no_grad():
                best = int(torch.argmin(torch.nan_to_num(upper, nan=np.inf)))
                A = torch.softmax(logits[best], -1).numpy()
                labels = A.argmax(1)
                rec = {"step": step, "upper": float(upper[best]), "lower": float(lower[best]),
                       "entropy": float(H[best]), RANK_COLUMNS[rank_penalty]: float(rank[best]),
                       "partition_distance": partition_distance(labels, task.gt)}
                result.history.append(rec)
                result.A_history.append(A)
                if on_step is not None:
                    on_step(rec, A)
        if step == steps:
            break
        if not _finite_step(opt, logits, obj):
            result.diverged = True
            break
        result.steps = step + 1
    result.seconds = time.perf_counter() - t0
    with torch.no_grad():  # the restart kept: the lowest final validation loss
        _, upper, *_ = objective(task, logits, entropy, nuclear, rank_penalty)
        best = int(torch.argmin(torch.nan_to_num(upper, nan=np.inf)))
        A = torch.softmax(logits[best], -1).numpy()
    result.A = A
    result.snapped = canonical(A.argmax(1))
    result.snapped_distance = partition_distance(result.snapped, task.gt)
    result.merged = bool(merge)
    result.labels = merge_blocks(task, result.snapped, merge_tolerance) if merge else result.snapped
    result.partition_distance = partition_distance(result.labels, task.gt)
    if result.A_history:  # whether argmax snapping settled: the partition over the last snapshots
        result.stability = stability(result.A_history, [h["step"] for h in result.history])
    if hasattr(task, "mse_gap"):
        result.mse_gap = task.mse_gap(result.labels)
    if hasattr(task, "refit_loss"):
        result.test_loss = task.refit_loss(result.labels)
        result.gt_test_loss = task.refit_loss(task.gt)
    return result


def learn_sharing_batch(tasks, seeds, steps: int | None = None, lr: float | None = None, entropy: float = 1e-2,
                        nuclear: float = 1e-2, restarts: int | None = None, optimizer: str | None = None,
                        weight_decay: float | None = None, rank_penalty: str = "nuclear", merge: bool = False,
                        merge_tolerance: float = 0.02, control: Control | None = None,
                        progress=None) -> list[SharingResult]:
    """``learn_sharing(tasks[t], seed=seeds[t], ...)`` for Gaussian tasks of one shape, all trials and restarts in
    one batch (the optimisers act elementwise and each trial's objective depends on its own logits only, so
    every trial gets the same result as alone, up to rounding).  No history is recorded; ``progress(done, total)``
    is called every 50 steps."""
    from .tasks import GaussianStack

    stack = GaussianStack(tasks)
    if len(seeds) != len(stack.tasks):
        raise LabError(f"{len(stack.tasks)} tasks need as many seeds, got {len(seeds)}")
    steps, lr, optimizer, restarts, weight_decay = _filled(DEFAULTS["gaussian"], steps, lr, optimizer, restarts,
                                                           weight_decay)
    K = stack.K
    init = [0.1 * torch.randn(restarts, K, K, generator=torch.Generator().manual_seed(s), dtype=torch.float64)
            for s in seeds]
    logits = torch.stack(init).requires_grad_()
    opt = _optimiser(logits, optimizer, lr, weight_decay)
    diverged, done = False, 0
    t0 = time.perf_counter()
    for step in range(steps):
        if control is not None and not control.wait_while_paused():
            break
        obj, *_ = objective(stack, logits, entropy, nuclear, rank_penalty)
        if not _finite_step(opt, logits, obj):
            diverged = True
            break
        done = step + 1
        if progress is not None and done % 50 == 0:
            progress(done, steps)
    seconds = time.perf_counter() - t0
    with torch.no_grad():
        _, upper, *_ = objective(stack, logits, entropy, nuclear, rank_penalty)
        best = torch.argmin(torch.nan_to_num(upper, nan=np.inf), -1)
        A_all = torch.softmax(logits, -1)
    out = []
    for t, task in enumerate(stack.tasks):
        A = A_all[t, int(best[t])].numpy()
        snapped = canonical(A.argmax(1))
        labels = merge_blocks(task, snapped, merge_tolerance) if merge else snapped
        out.append(SharingResult(labels=labels, A=A, partition_distance=partition_distance(labels, task.gt),
                                 seconds=seconds / len(stack.tasks), steps=done, mse_gap=task.mse_gap(labels),
                                 diverged=diverged, snapped=snapped,
                                 snapped_distance=partition_distance(snapped, task.gt), merged=bool(merge)))
    return out
