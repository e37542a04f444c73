"""Training the chapter-2 models on a regression task: EMLP, MLP and MLP with augmentation (thesis appendix A.1.9).

The thesis's settings (the paper preset): Adam, learning rate 3e-3, batch 500, 3 layers of 384 channels, and
min(900 000 / N, 1000) epochs for N training points; test sets of 5 000 points.  Inputs and targets are scaled by one
number each (the rms over the training set), never per coordinate and never shifted: a per-coordinate scale or a
shift would break the symmetry the EMLP is built to respect (``rho(g)`` does not commute with a diagonal rescaling).
The test error is reported in the task's own units.

Augmentation (MLP-Aug) draws, for every training point of every batch, a group element from a pool of ``POOL``
elements sampled once (``group.sample``: uniform for finite groups, exponentials of the Lie algebra times words of
the discrete generators otherwise) and transforms both the input and, for equivariant outputs, the target:
(rho_in(g) x, rho_out(g) y).

Every trained model is also audited (``audit_model``, ``lab.equivariance``; issue 29): under the data's group, on
``AUDIT_INPUTS`` test inputs, the worst relative equivariance error over the Lie-algebra generators, the discrete
generators and ``AUDIT_SAMPLES`` sampled elements, with the verdict against the audit's tolerance for the model's
dtype (float32: 1000 eps = 1.2e-4, times cond(rho(g)) per element).  ``equivariance_error`` (the EMLP test suite's
metric, 5 sampled elements) stays beside it: it is a public JSON key.  Measured at the fast defaults (384 channels,
3 layers, CPU): EMLP 1e-7 to 6e-7 (passes), the MLPs 0.9 to 1.8 (fail), 0.02-0.2 s a model.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch

from ..control import checkpoint
from . import EMLP, MLP, adam, equivariance_error

MODELS = ("mlp", "mlp-aug", "emlp")
POOL = 2048  # group elements sampled once for augmentation
#: the audit of a trained model (``audit_model``): few inputs and elements, so that it costs well under a second
AUDIT_INPUTS = 8
AUDIT_SAMPLES = 4


@dataclass(frozen=True)
class Schedule:
    """How one model trains: epochs for ``n`` points, batch, learning rate, width and depth."""

    lr: float = 3e-3
    batch: int = 500
    channels: int = 384
    layers: int = 3
    epoch_budget: int = 900_000  # epochs = min(epoch_budget / n, max_epochs)
    max_epochs: int = 1000

    def epochs(self, n: int) -> int:
        return max(1, min(self.epoch_budget // max(n, 1), self.max_epochs))

    def steps(self, n: int) -> int:
        return self.epochs(n) * math.ceil(n / min(self.batch, n))


PAPER = Schedule()
#: the fast defaults: the thesis's width (a narrower EMLP cannot fit inertia: 128 channels of O(3) hold a single
#: T3 object, and the bilinear layer needs T3 objects to turn vectors into x x^T -- measured: train MSE stuck at
#: 5.5 of 25.9 at 64 channels, 0.08 at 384), fewer epochs: 300 optimiser steps at N = 100 and N = 1000
SMALL = Schedule(channels=384, layers=3, epoch_budget=150_000, max_epochs=300)


def build(model: str, task, group, schedule: Schedule, device="cpu"):
    """The model named ``model`` for ``task`` (``group``: the EMLP's group, a bound ``Group``)."""
    rep_in, rep_out = task.reps(group)
    if model == "emlp":
        net = EMLP(rep_in, rep_out, group, channels=schedule.channels, layers=schedule.layers)
    else:
        net = MLP(rep_in, rep_out, group, channels=schedule.channels, layers=schedule.layers)
    return net.to(device)


class Augmenter:
    """Random (rho_in(g), rho_out(g)) pairs from a pool sampled once (see the module docstring)."""

    def __init__(self, rep_in, rep_out, group, seed: int, device, dtype=torch.float32):
        gs = group.sample(POOL, np.random.default_rng(seed))
        self.Rin = torch.as_tensor(np.stack([rep_in.rho(g) for g in gs]), dtype=dtype, device=device)
        self.Rout = torch.as_tensor(np.stack([rep_out.rho(g) for g in gs]), dtype=dtype, device=device)
        self.gen = torch.Generator(device="cpu").manual_seed(seed)

    def __call__(self, x, y):
        k = torch.randint(len(self.Rin), (len(x),), generator=self.gen).to(x.device)
        return (torch.bmm(self.Rin[k], x[:, :, None])[:, :, 0], torch.bmm(self.Rout[k], y[:, :, None])[:, :, 0])


def audit_model(net, rep_in, rep_out, group, x) -> dict:
    """``lab.equivariance.audit`` of a trained ``net`` as ``rep_in -> rep_out`` under ``group`` (the data's), on the inputs
    ``x`` (the first ``AUDIT_INPUTS`` are used), ``AUDIT_SAMPLES`` sampled elements, no layer walk (the verdict is
    the model's; ``lab audit`` names layers): ``{"audit_error": the worst relative error, "audit_ok": within the
    tolerance, "audit_tolerance": the dtype's}``.  A model the audit cannot measure (``AuditError``) gets Nones and
    ``audit_note`` (its one line) instead of losing its training run."""
    from ..equivariance import AuditError, audit

    try:
        res = audit(net, group, rep_in, rep_out, x=x[:AUDIT_INPUTS], samples=AUDIT_SAMPLES, layers=False,
                    warn=False)
    except AuditError as err:
        return {"audit_error": None, "audit_ok": None, "audit_tolerance": None, "audit_note": str(err)}
    return {"audit_error": float(res.worst), "audit_ok": bool(res.ok), "audit_tolerance": float(res.tolerance)}


def _rms(a: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(a)))) or 1.0


#: eager steps before a run's full batches are recorded as a CUDA graph (allocations and lazy inits happen in them)
GRAPH_WARMUP = 3


def _eager_step(net, opt, xb, yb) -> None:
    """One Adam step on the batch.  A function, so that no reference to the step's autograd graph (its loss)
    outlives it: a CUDA graph recorded later must create its own gradient-accumulation nodes on its stream."""
    opt.zero_grad(set_to_none=True)
    (net(xb) - yb).abs().pow(2).mean().backward()
    opt.step()


def train_one(model: str, task, group, data, schedule: Schedule, seed: int = 0, device="cpu", progress=None,
              control=None, record_every: int = 1, label: str = "", symmetry=None, cuda_graph: bool = True) -> dict:
    """Train ``model`` on ``data`` = (X_train, Y_train, X_test, Y_test); returns its curves and final numbers:
    ``train_mse``/``test_mse`` (task units), ``equivariance_error`` (``lab.nn.check``, on test inputs, under
    ``symmetry``: the data's group, default ``group``), ``audit_model``'s ``audit_error``, ``audit_ok`` and
    ``audit_tolerance`` (the same inputs and group), ``seconds`` (training; the audit not counted), ``mean_mse``
    (the test MSE of predicting the training targets' mean) and ``target_ms`` (the test targets' mean square).
    ``group``: the EMLP's group (for the MLPs: the group whose reps give the sizes and, for MLP-Aug, the
    augmentation).  ``progress`` gets
    ``{"kind": "epoch", ...}`` records every ``record_every`` epochs.

    ``cuda_graph`` (CUDA only): after ``GRAPH_WARMUP`` eager steps, the steps on full batches replay one recorded
    CUDA graph (``lab.nn.GraphedStep``: on a GPU an eager EMLP step is bound by kernel launches); a last, shorter
    batch stays eager.  The same steps in the same order on the same batches: the optimiser is the same Adam, built
    ``capturable`` (its step count kept on the GPU)."""
    torch.manual_seed(seed)
    net = build(model, task, group, schedule, device)
    dev = next(net.parameters()).device
    aug = Augmenter(net.rep_in, net.rep_out, group, seed, dev) if model == "mlp-aug" else None
    return fit(net, task, group, data, schedule, seed=seed, progress=progress, control=control,
               record_every=record_every, label=label or model, symmetry=symmetry, aug=aug, cuda_graph=cuda_graph)


def fit(net, task, group, data, schedule: Schedule, seed: int = 0, progress=None, control=None,
        record_every: int = 1, label: str = "", symmetry=None, aug=None, cuda_graph: bool = True, step=None,
        record=None) -> dict:
    """Train the built ``net`` as ``train_one`` does (the rms scaling, the seed's batches, the epoch records, the
    equivariance error under ``symmetry``) and return ``train_one``'s keys.  ``aug``: an ``Augmenter`` for each
    batch.  ``step(net, opt, xb, yb, n)``: the model's own optimiser step (another objective, e.g. a prior's:
    ``lab.rpp.train``; then no CUDA graph); default the MSE step.  ``record(net)``: extra keys for each epoch
    record."""
    Xtr, Ytr, Xte, Yte = data
    sx, sy = _rms(Xtr), _rms(Ytr)
    dev = next(net.parameters()).device
    xtr = torch.as_tensor(Xtr / sx, dtype=torch.float32, device=dev)
    ytr = torch.as_tensor(Ytr / sy, dtype=torch.float32, device=dev)
    xte = torch.as_tensor(Xte / sx, dtype=torch.float32, device=dev)
    use_graph = bool(cuda_graph) and dev.type == "cuda" and step is None
    opt = adam(net.parameters(), lr=schedule.lr, capturable=use_graph)
    graphed, taken = None, 0
    n = len(xtr)
    batch = min(schedule.batch, n)
    epochs = schedule.epochs(n)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    curve = []
    t0 = time.monotonic()

    def evaluate():
        with torch.no_grad():
            pred = net(xte).real.cpu().numpy() * sy
            fit = net(xtr).real.cpu().numpy() * sy
        return float(np.mean((fit - Ytr) ** 2)), float(np.mean((pred - Yte) ** 2))

    for epoch in range(1, epochs + 1):
        order = torch.randperm(n, generator=gen).to(dev)
        for i in range(0, n, batch):
            checkpoint(control)
            idx = order[i:i + batch]
            xb, yb = xtr[idx], ytr[idx]
            if aug is not None:
                xb, yb = aug(xb, yb)
            if step is not None:
                step(net, opt, xb, yb, n)
            elif use_graph and len(xb) == batch and taken >= GRAPH_WARMUP:
                if graphed is None:
                    from .graphs import GraphedStep

                    graphed = GraphedStep(net, xb, yb, optimizer=opt, warmup=0)
                graphed(xb, yb)
            else:
                _eager_step(net, opt, xb, yb)
            taken += 1
        if epoch % record_every == 0 or epoch == epochs:
            tr, te = evaluate()
            row = {"kind": "epoch", "model": label, "size": n, "epoch": epoch, "epochs": epochs,
                   "train_mse": tr, "test_mse": te}
            if record is not None:
                row |= record(net)
            curve.append(row)
            if progress is not None:
                progress(row)
    train_mse, test_mse = curve[-1]["train_mse"], curve[-1]["test_mse"]
    symmetry = group if symmetry is None else symmetry
    s_in, s_out = task.reps(symmetry)
    err = equivariance_error(net, s_in, s_out, symmetry, n=5, x=xte[:64])
    seconds = time.monotonic() - t0
    # the trivial baseline on the same scale: the test MSE of predicting the training targets' mean
    mean_mse = float(np.mean((np.asarray(Yte) - np.asarray(Ytr).mean(axis=0)) ** 2))
    return {"model": label, "size": n, "train_mse": train_mse, "test_mse": test_mse, "mean_mse": mean_mse,
            "target_ms": float(np.mean(np.asarray(Yte) ** 2)), "equivariance_error": err,
            **audit_model(net, s_in, s_out, symmetry, xte), "seconds": seconds,
            "curve": curve, "net": net}
