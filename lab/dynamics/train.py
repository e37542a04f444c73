"""Training the same MLP four ways from the same equivariant start, R runs batched (Nordenfors et al. §5).

Strategies (full-batch gradient descent: gradients accumulated over mini-batches of the whole data set):

* ``nom``   -- the plain gradient of the nominal risk;
* ``aug``   -- the gradient of the augmented risk: ``aug_passes`` passes over the data, every mini-batch
  transformed by a fresh uniformly sampled group element (one per run), averaged; with ``exact_orbit`` one
  pass per group element instead (the infinite-augmentation limit, small finite groups only);
* ``equi``  -- the nominal gradient projected onto E for every layer;
* ``aug_penalty`` -- ``aug`` plus the gradient of γ‖Π_{E⊥}A‖², i.e. 2γ Π_{E⊥}A (the paper's proposed remedy).

All strategies start from the same A0 = Π_E(Gaussian) per run.  After every step each run records, per
layer and in total (layers with E ≠ L, combined as the root of the sum of squares): ‖A − A0‖ and
‖Π_{E⊥}A‖ (norms, not squares), plus the loss and accuracy of that step's gradient pass (taken at the
weights before the update).  A run whose loss or weights stop being finite is marked diverged and frozen;
the others go on.  Run r draws its A0 and its augmentations from its own random streams, so it follows the
same trajectory whether it trains alone or batched with others.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from ..device import pick_device
from ..errors import LabError
from ..reps.parse import parse_rep
from .action import Elements, all_elements, apply, sample_elements
from .experiments import Experiment, build
from .model import BatchedMLP

STRATEGIES = ("nom", "aug", "equi", "aug_penalty")
#: per-experiment defaults for settings left as None: small enough to run in seconds on a 2-core CPU
DEFAULTS = {
    "perm": dict(steps=40, lr=0.01, aug_passes=10, batch_size=50),
    "trans": dict(steps=30, lr=0.5, aug_passes=5, batch_size=100),
    "rot": dict(steps=30, lr=0.5, aug_passes=4, batch_size=50),
    "custom": dict(steps=30, lr=0.5, aug_passes=5, batch_size=100),
}
#: the published setting (Nordenfors et al. §5 and appendix D): 30 runs, 50 steps, 25 passes
PAPER = dict(runs=30, steps=50, aug_passes=25)


class Stopped(Exception):
    """Training was stopped from outside (``stop`` event) in the middle of a step."""


@dataclass
class DynamicsConfig:
    experiment: str = "perm"
    scale: str = "small"
    runs: int = 5
    steps: int | None = None  # None: the experiment's default (DEFAULTS)
    strategies: tuple[str, ...] = ("nom", "aug", "equi")
    lr: float | None = None
    seed: int = 0
    aug_passes: int | None = None
    exact_orbit: bool = False
    gamma: float = 1.0
    device: str = "auto"
    batch_size: int | None = None
    options: dict = field(default_factory=dict)  # experiment options (e.g. group, rep for custom)
    run_ids: tuple[int, ...] | None = None  # which runs (default 0..runs-1): lets runs train one by one

    def validate(self) -> "DynamicsConfig":
        """Fill the experiment's defaults and check every setting (``LabError`` with a one-line reason)."""
        if self.experiment not in DEFAULTS:
            raise LabError(f"unknown experiment {self.experiment!r}: choose one of {', '.join(DEFAULTS)}")
        for key, value in DEFAULTS[self.experiment].items():
            if getattr(self, key) is None:
                setattr(self, key, value)
        self.strategies = tuple(self.strategies)
        bad = [s for s in self.strategies if s not in STRATEGIES]
        if bad or not self.strategies:
            raise LabError(f"unknown strategy {bad[0] if bad else '(none)'!r}: choose from {', '.join(STRATEGIES)}")
        for name in ("runs", "steps", "aug_passes", "batch_size"):
            if int(getattr(self, name)) < 1:
                raise LabError(f"{name.replace('_', ' ')} must be at least 1, got {getattr(self, name)}")
        if self.lr is not None and not (self.lr > 0 and math.isfinite(self.lr)):
            raise LabError(f"the learning rate must be a positive number, got {self.lr}")
        if not (self.gamma >= 0 and math.isfinite(self.gamma)):
            raise LabError(f"gamma must be a non-negative number, got {self.gamma}")
        if "aug_penalty" in self.strategies and self.gamma * self.lr >= 1:
            raise LabError(f"gamma x lr = {self.gamma * self.lr:g} >= 1 makes the penalty step unstable (it "
                           f"multiplies the part outside E by 1 - 2 gamma lr); choose gamma < {1 / self.lr:g}")
        return self

    def to_dict(self) -> dict:
        d = asdict(self)
        d["strategies"] = list(self.strategies)
        d["run_ids"] = None if self.run_ids is None else list(self.run_ids)
        return d


class Trainer:
    """Holds the experiment, the batched model, the weights of every strategy and the recorded metrics."""

    def __init__(self, config: DynamicsConfig, experiment: Experiment | None = None):
        self.config = config.validate()
        self.device = pick_device(config.device)
        if self.device.type == "cuda":  # TF32 spoils projections at the 1e-7 level
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        self.exp = experiment or build(config.experiment, config.scale, config.seed, **config.options)
        group = self.exp.group
        self.model = BatchedMLP(group, self.exp.specs, device=self.device)
        self.run_ids = tuple(config.run_ids) if config.run_ids is not None else tuple(range(config.runs))
        self.R = len(self.run_ids)
        self.A0 = self.model.init([np.random.default_rng([config.seed, r]) for r in self.run_ids])
        self.params = {s: [p.clone() for p in self.A0] for s in config.strategies}
        self.alive = {s: torch.ones(self.R, dtype=torch.bool, device=self.device) for s in config.strategies}
        self.diverged_at = {s: [None] * self.R for s in config.strategies}
        self.aug_rngs = [np.random.default_rng([config.seed, r, 7]) for r in self.run_ids]
        self.X = self.exp.X.to(self.device)
        self.y = self.exp.y.to(self.device)
        N = len(self.X)
        self.batches = [slice(i, min(i + config.batch_size, N)) for i in range(0, N, config.batch_size)]
        self.in_rep = parse_rep(self.exp.in_rep, group)
        self.out_rep = parse_rep(self.exp.out_rep, group) if self.exp.out_rep else None
        self._exact = None
        if config.exact_orbit and any(s.startswith("aug") for s in config.strategies):
            els = all_elements(group)
            self._exact = (len(els), self._operators(els))
        self.layer_names = [s.name for s in self.exp.specs]
        self.equivariant_layers = [not sp.trivial for sp in self.model.spaces]
        dims = self.model.dims()
        eq = [d for d, e in zip(dims, self.equivariant_layers) if e]
        self.dim_ratio = sum(d[0] for d in eq) / sum(d[1] for d in eq) if eq else 1.0
        self.layer_dims = dims
        self.step = 0
        self.records: list[dict] = []
        self.seconds = 0.0
        self._record_all(losses=None)

    # ------------------------------------------------------------------ group actions on the data
    def _operators(self, els: Elements):
        op_in = els.operator(self.in_rep, device=self.device)
        op_out = els.operator(self.out_rep, device=self.device) if self.out_rep is not None else None
        return op_in, op_out

    def _sampled_operators(self):
        """One fresh element per (pass, batch, run), each run from its own stream: operators indexed
        [pass * n_batches + batch] -> R elements."""
        count = self.config.aug_passes * len(self.batches)
        per_run = [sample_elements(self.exp.group, count, rng) for rng in self.aug_rngs]
        if per_run[0].perms is not None:
            els = Elements(self.exp.group, np.stack([e.perms for e in per_run], 1).reshape(-1, self.exp.group.d),
                           np.stack([e.signs for e in per_run], 1).reshape(-1, self.exp.group.d))
        else:
            els = Elements(self.exp.group, matrices=np.stack([e.matrices for e in per_run], 1).reshape(
                -1, self.exp.group.d, self.exp.group.d))
        return self._operators(els)

    @staticmethod
    def _rows(op, start: int, count: int, R: int, repeat: bool):
        """Slice R elements out of an operator (or repeat one element R times for exact orbits)."""
        if op is None:
            return None
        if repeat:
            return (op[0],) + tuple(t[start:start + 1].expand(R, *t.shape[1:]) for t in op[1:])
        return (op[0],) + tuple(t[start:start + count] for t in op[1:])

    # ------------------------------------------------------------------ losses and gradients
    def _loss(self, out: torch.Tensor, y: torch.Tensor):
        """Per-run mean loss over the batch, per-run number correct, and the items per sample (1, or the
        pixels of both masks for segmentation)."""
        task = self.exp.task
        if task == "binary":
            logits = out[..., 0, 0]
            target = y.expand_as(logits)
            loss = F.binary_cross_entropy_with_logits(logits, target, reduction="none").mean(1)
            correct = ((logits > 0) == (target > 0.5)).sum(1, dtype=torch.float64)
            return loss, correct, 1
        if task == "multiclass":
            logits = out[..., 0]  # (R, B, classes)
            R, B, C = logits.shape
            target = y.expand(R, B)
            loss = F.cross_entropy(logits.reshape(R * B, C), target.reshape(-1), reduction="none").view(R, B).mean(1)
            correct = (logits.argmax(-1) == target).sum(1, dtype=torch.float64)
            return loss, correct, 1
        target = y if y.dim() == out.dim() else y.expand_as(out)
        loss = F.binary_cross_entropy_with_logits(out, target, reduction="none").flatten(1).mean(1)
        correct = ((out > 0) == (target > 0.5)).flatten(1).sum(1, dtype=torch.float64)
        return loss, correct, out[0, 0].numel()

    def gradient(self, strategy: str, params=None, alive=None, stop: threading.Event | None = None):
        """(gradient list, per-run loss, per-run accuracy) of ``strategy`` at ``params`` (default: current)."""
        params = self.params[strategy] if params is None else params
        alive = torch.ones(self.R, dtype=torch.bool, device=self.device) if alive is None else alive
        P = [p.detach().clone().requires_grad_(True) for p in params]
        augmented = strategy in ("aug", "aug_penalty")
        nb, N = len(self.batches), len(self.X)
        if not augmented:
            passes, ops, repeat = 1, None, False
        elif self._exact is not None:
            passes, ops, repeat = self._exact[0], self._exact[1], True
        else:
            passes, ops, repeat = self.config.aug_passes, self._sampled_operators(), False
        loss_sum = torch.zeros(self.R, dtype=torch.float64, device=self.device)
        correct = torch.zeros_like(loss_sum)
        seen = 0
        for k in range(passes):
            for b, sl in enumerate(self.batches):
                if stop is not None and stop.is_set():
                    raise Stopped()
                xb, yb = self.X[sl], self.y[sl]
                if augmented:
                    start = k if repeat else (k * nb + b) * self.R
                    op_in = self._rows(ops[0], start, self.R, self.R, repeat)
                    x = apply(op_in, xb)
                    if ops[1] is not None:
                        yb = apply(self._rows(ops[1], start, self.R, self.R, repeat), yb)
                else:
                    x = xb.unsqueeze(0).expand(self.R, *xb.shape)
                out = self.model.forward(P, x)
                loss, right, per_item = self._loss(out, yb)
                w = (sl.stop - sl.start) / N / passes
                torch.where(alive, loss * w, torch.zeros_like(loss)).sum().backward()
                loss_sum += w * loss.detach()
                correct += right
                seen += per_item * (sl.stop - sl.start)
        grads = [p.grad for p in P]
        if strategy == "equi":
            grads = self.model.project(grads)
        elif strategy == "aug_penalty" and self.config.gamma:
            proj = self.model.project(params)
            grads = [g + 2 * self.config.gamma * (p - q) for g, p, q in zip(grads, params, proj)]
        return grads, loss_sum, correct / seen

    # ------------------------------------------------------------------ stepping
    def train_step(self, stop: threading.Event | None = None) -> list[dict]:
        """One gradient step for every strategy; returns the step's records (raises Stopped mid-step)."""
        t0 = time.perf_counter()
        lr = self.config.lr
        results = {}
        for s in self.config.strategies:
            grads, loss, acc = self.gradient(s, alive=self.alive[s], stop=stop)
            results[s] = (grads, loss, acc)
        self.step += 1
        losses = {}
        with torch.no_grad():
            for s, (grads, loss, acc) in results.items():
                alive = self.alive[s]
                shape = lambda p: (-1,) + (1,) * (p.dim() - 1)  # noqa: E731
                self.params[s] = [torch.where(alive.view(shape(p)), p - lr * g, p) for p, g in zip(self.params[s], grads)]
                finite = torch.isfinite(loss)
                for p in self.params[s]:
                    finite &= torch.isfinite(p.flatten(1)).all(1)
                for r in torch.nonzero(alive & ~finite).flatten().tolist():
                    self.diverged_at[s][r] = self.step
                self.alive[s] = alive & finite
                losses[s] = (loss, acc)
        self.seconds += time.perf_counter() - t0
        return self._record_all(losses)

    def _record_all(self, losses) -> list[dict]:
        new = []
        with torch.no_grad():
            for s in self.config.strategies:
                per_layer = self.model.layer_params(self.params[s])
                base = self.model.layer_params(self.A0)
                d_init, d_E = [], []
                for sp, cur, start in zip(self.model.spaces, per_layer, base):
                    d_init.append(torch.sqrt(sum(((c - a) ** 2).flatten(1).sum(1) for c, a in zip(cur, start))))
                    d_E.append(torch.linalg.vector_norm((cur[0] - sp.project(cur[0])).flatten(1), dim=1))
                eq = [i for i, e in enumerate(self.equivariant_layers) if e]
                tot_init = torch.sqrt(sum(d_init[i] ** 2 for i in eq)) if eq else torch.zeros(self.R)
                tot_E = torch.sqrt(sum(d_E[i] ** 2 for i in eq)) if eq else torch.zeros(self.R)
                loss, acc = losses[s] if losses else (None, None)
                for r, run in enumerate(self.run_ids):
                    dead = self.diverged_at[s][r] is not None
                    common = {"strategy": s, "run": run, "step": self.step,
                              "loss": math.nan if loss is None or dead else float(loss[r]),
                              "accuracy": math.nan if acc is None or dead else float(acc[r]),
                              "diverged": dead}
                    nan = math.nan
                    for name, di, de in [("total", tot_init, tot_E)] + list(zip(self.layer_names, d_init, d_E)):
                        new.append({**common, "layer": name, "dist_from_init": nan if dead else float(di[r]),
                                    "dist_from_E": nan if dead else float(de[r])})
        self.records.extend(new)
        return new

    def run(self, on_step=None, stop: threading.Event | None = None, pause: threading.Event | None = None):
        """Train ``config.steps`` steps (or until ``stop``); ``on_step(trainer, records)`` after each step.
        Returns True when all steps ran, False when stopped."""
        while self.step < self.config.steps:
            while pause is not None and pause.is_set():
                if stop is not None and stop.is_set():
                    return False
                time.sleep(0.05)
            try:
                records = self.train_step(stop=stop)
            except Stopped:
                return False
            if on_step is not None:
                on_step(self, records)
            if all(not a.any() for a in self.alive.values()):
                break
        return True

    # ------------------------------------------------------------------ results
    def summary(self) -> dict:
        """Per strategy: medians over runs of the final totals (the CLI's --json object)."""
        out = {}
        for s in self.config.strategies:
            last = [r for r in self.records if r["strategy"] == s and r["layer"] == "total" and r["step"] == self.step]
            live = [r for r in last if not r["diverged"]]

            def med(key):
                vals = [r[key] for r in live if not math.isnan(r[key])]
                return float(np.median(vals)) if vals else math.nan

            out[s] = {"dist_from_init": med("dist_from_init"), "dist_from_E": med("dist_from_E"),
                      "loss": med("loss"), "accuracy": med("accuracy"), "runs": self.R,
                      "diverged_runs": sum(r["diverged"] for r in last), "steps": self.step,
                      "dim_E_over_dim_L": self.dim_ratio}
        return out

    @property
    def steps_per_second(self) -> float:
        return self.step / self.seconds if self.seconds else 0.0


def run_dynamics(config: DynamicsConfig, on_step=None, stop=None, pause=None) -> Trainer:
    trainer = Trainer(config)
    trainer.run(on_step=on_step, stop=stop, pause=pause)
    return trainer
