"""Training the same MLP several ways from the same equivariant start, R runs batched (Nordenfors et al. §5).

Strategies (full-batch gradient descent: gradients accumulated over mini-batches of the whole data set):

* ``nom``   -- the plain gradient of the nominal risk;
* ``aug``   -- the gradient of the augmented risk: ``aug_passes`` passes over the data, every mini-batch
  transformed by a fresh group element (one per run; drawn uniformly, or as the authors' code draws them with
  ``draws="reference"``), averaged; with ``exact_orbit`` one
  pass per group element instead (the infinite-augmentation limit, small finite groups only);
* ``equi``  -- the nominal gradient projected onto E for every layer;
* ``aug_penalty`` -- ``aug`` plus the gradient of γ‖Π_{E⊥}A‖², i.e. 2γ Π_{E⊥}A (the paper's proposed remedy);
* ``rpp``   -- residual pathway priors (Finzi's thesis, section 3.4): every parameter is A = A_eq + A_free,
  A_eq in E, A_free unconstrained, each pathway with a Gaussian prior (variances ``rpp_prior_eq`` and
  ``rpp_prior_free``; the thesis's 1e5 and 1).  Trained on the nominal data, unaugmented (as the thesis's RPP):
  the loss gradient g at A, computed as ``nom``'s, is Π_E g for A_eq and g for A_free.  The thesis's MAP
  objective is the *summed* NLL + ‖A_eq‖²/(2σ²_eq) + ‖A_free‖²/(2σ²_free); the trainer's loss is the mean over
  the N training samples, so the priors enter divided by N: per pathway k = 1/(σ²N), penalty gradient k·θ
  (``rpp_penalty_gradient``).  The step takes the penalty implicitly, θ ← (θ − lr·g_θ)/(1 + lr·k), i.e.
  θ_new = θ − lr(g_θ + k·θ_new): the fixed points of gradient descent on the MAP objective, the explicit step to
  first order in lr (at the thesis's variances lr·k is of order 1e-3 or less), and stable for every variance, so
  σ²_free → 0 is Equi and no lr × penalty is refused.  ``params["rpp"]`` holds A = A_eq + A_free (every record
  is computed from it), ``pathways["rpp"]`` the two parts; biases (only where E = L) have both pathways, as the
  weights there.  Records add ``free_fraction``, ‖A_free‖/‖A‖ (NaN for strategies without pathways).

All strategies start from the same A0 = Π_E(Gaussian) per run (``rpp``: A_eq = A0, A_free = 0).  After every
step each run records, per layer and in total (layers with E ≠ L, combined as the root of the sum of
squares): ‖A − A0‖ and ‖Π_{E⊥}A‖ (norms, not squares), plus the loss and accuracy of that step's gradient
pass (taken at the weights before the update).  A run whose loss or weights stop being finite is marked diverged and frozen;
the others go on.  Run r draws its A0 and its augmentations from its own random streams, so it follows the
same trajectory whether it trains alone or batched with others.
"""
from __future__ import annotations

import contextlib
import math
import time

import numpy as np
import torch
import torch.nn.functional as F

from ..control import Control, Stopped, checkpoint
from ..device import pick_device
from ..errors import LabError
from ..reps.parse import parse_rep
from ..reps.action import Elements, all_elements, apply, draw_elements
from .config import STRATEGIES, DynamicsConfig  # noqa: F401 (re-exported)
from ..tasks.nordenfors import Experiment, build
from ..nn.batched import BatchedMLP

DTYPES = {"float32": torch.float32, "float64": torch.float64}
#: the largest activation (elements) of one forward pass over a mini-batch; more runs are split into chunks
CHUNK_ELEMENTS = 1 << 20
#: the largest activation (elements) of one run over the mini-batches merged into one forward pass (measured on 2
#: cores, float64, the small defaults' step: Perm 352 -> 270 ms, Trans 646 -> 537, Rot 1001 -> 711, custom 30 -> 30;
#: the paper scale's mini-batches are each over it: one at a time, as before)
MERGE_ELEMENTS = 1 << 18


def training_dtype(config: DynamicsConfig, device) -> torch.dtype:
    """The config's dtype; when left empty (the small scale), float32 on CUDA and float64 on CPU."""
    if config.dtype is not None:
        return DTYPES[config.dtype]
    return torch.float32 if torch.device(device).type == "cuda" else torch.float64


@contextlib.contextmanager
def precise_float32():
    """No TF32 inside (CUDA matmuls and convolutions keep float32's 24-bit mantissa: TF32's 10 bits would put
    Equi 1e-3 away from E), restored on exit: the switch is scoped, never process-wide."""
    matmul, cudnn = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    try:
        yield
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = matmul, cudnn


class Trainer:
    """Holds the experiment, the batched model, the weights of every strategy and the recorded metrics."""

    def __init__(self, config: DynamicsConfig, experiment: Experiment | None = None):
        self.config = config.validate()
        self.device = pick_device(config.device)
        # float32 or float64 (``training_dtype``); TF32 is switched off only around this trainer's own
        # computations (``precise_float32``), never process-wide
        self.dtype = training_dtype(config, self.device)
        options = dict(config.options)
        if config.data is not None:
            options["data_dir"] = config.data
        self.exp = experiment or build(config.experiment, config.scale, config.seed, **options)
        group = self.exp.group
        self.model = BatchedMLP(group, self.exp.specs, dtype=self.dtype, device=self.device, grid=self.exp.grid)
        self.run_ids = tuple(config.run_ids) if config.run_ids is not None else tuple(range(config.runs))
        self.R = len(self.run_ids)
        self.A0 = self.model.init([np.random.default_rng([config.seed, r]) for r in self.run_ids], config.init)
        self.params = {s: [p.clone() for p in self.A0] for s in config.strategies}
        #: per strategy with pathways (``rpp``): (A_eq, A_free), summing to ``params[s]``
        self.pathways = {s: ([p.clone() for p in self.A0], [torch.zeros_like(p) for p in self.A0])
                         for s in config.strategies if s == "rpp"}
        self.alive = {s: torch.ones(self.R, dtype=torch.bool, device=self.device) for s in config.strategies}
        self.diverged_at = {s: [None] * self.R for s in config.strategies}
        self.aug_rngs = [np.random.default_rng([config.seed, r, 7]) for r in self.run_ids]
        X = self.exp.X.to(self.device, self.dtype)
        y = self.exp.y.to(self.device, self.dtype if self.exp.y.is_floating_point() else self.exp.y.dtype)
        train, test = self._split(len(X), config.test_fraction, config.seed)
        self.X, self.y = X[train], y[train]
        self.X_test, self.y_test = X[test], y[test]
        self.N = len(self.X)  # training samples: the priors' penalty per sample is |θ|² / (2 σ² N)
        self._evaluated: tuple | None = None  # (step, {strategy: (loss, accuracy) per run}) on the test split
        self._audited: tuple | None = None  # (step, ``audit()``'s dict)
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

    @staticmethod
    def _split(count: int, fraction: float, seed: int):
        """Indices of the training and the test part: a random ``fraction`` held out (its own stream)."""
        held = int(round(count * fraction))
        if held == 0:
            return torch.arange(count), torch.arange(0)
        if held >= count:
            raise LabError(f"test_fraction {fraction:g} of {count} samples leaves nothing to train on")
        order = torch.as_tensor(np.random.default_rng([seed, 11]).permutation(count))
        return order[held:].sort().values, order[:held].sort().values

    # ------------------------------------------------------------------ group actions on the data
    def _operators(self, els: Elements):
        op_in = els.operator(self.in_rep, dtype=self.dtype, device=self.device)
        op_out = els.operator(self.out_rep, dtype=self.dtype, device=self.device) if self.out_rep is not None \
            else None
        return op_in, op_out

    def _sampled_operators(self):
        """One fresh element per (pass, batch, run), each run from its own stream, drawn as ``config.draws``
        says: operators indexed [pass * n_batches + batch] -> R elements."""
        count = self.config.aug_passes * len(self.batches)
        flat = self.exp.name == "rot"  # the reference's Rotate sees §5 Rot's images flattened
        per_run = [draw_elements(self.exp.group, count, rng, self.config.draws, flattened=flat)
                   for rng in self.aug_rngs]
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
        if task == "multiclass":  # CrossEntropy of the logits (the reference's softmax first: a double softmax)
            logits = out[..., 0]  # (R, B, classes)
            R, B, C = logits.shape
            target = y.expand(R, B)
            loss = F.cross_entropy(logits.reshape(R * B, C), target.reshape(-1), reduction="none").view(R, B).mean(1)
            correct = (logits.argmax(-1) == target).sum(1, dtype=torch.float64)
            return loss, correct, 1
        target = y if y.dim() == out.dim() else y.expand_as(out)
        loss = F.binary_cross_entropy_with_logits(out, target, reduction="none").flatten(1).mean(1)
        if self.exp.mask_loss == "sum":  # D.3 (45): one BCE (a mean over pixels) per mask, summed
            loss = loss * out.shape[-2]
        correct = ((out > 0) == (target > 0.5)).flatten(1).sum(1, dtype=torch.float64)
        return loss, correct, out[0, 0].numel()

    def passes(self, strategy: str) -> int:
        """Passes over the data one gradient of ``strategy`` makes (augmented: one per augmentation)."""
        if strategy not in ("aug", "aug_penalty"):
            return 1
        return self._exact[0] if self._exact is not None else self.config.aug_passes

    @property
    def batches_per_step(self) -> int:
        """Mini-batch passes of one training step, all strategies together (the unit of ``on_batch``)."""
        return sum(self.passes(s) for s in self.config.strategies) * len(self.batches)

    def gradient(self, strategy: str, params=None, alive=None, control: Control | None = None, on_batch=None):
        """(gradient list, per-run loss, per-run accuracy) of ``strategy`` at ``params`` (default: current);
        ``on_batch()`` after every mini-batch."""
        with precise_float32():
            return self._gradient(strategy, params, alive, control, on_batch)

    def _gradient(self, strategy, params, alive, control, on_batch):
        params = self.params[strategy] if params is None else params
        alive = torch.ones(self.R, dtype=torch.bool, device=self.device) if alive is None else alive
        # the leaves are the weights in matmul layout (permuted once per step, not once per mini-batch), one set
        # per chunk of runs: a chunk's activations stay within CHUNK_ELEMENTS (cache-sized buffers instead of
        # hundreds of MB allocated per mini-batch; runs never mix, so chunking changes no number)
        mats = self.model.to_matmul(params)
        chunks = self._run_chunks()
        P = [[m[rs].detach().clone().requires_grad_(True) for m in mats] for rs in chunks]
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
        # the (pass, mini-batch) items, ``merge`` at a time in one forward/backward (their rows side by side): the
        # loss is a mean over rows weighted by the rows' share, so a group gives the items' summed gradient
        items = [(k, b, sl) for k in range(passes) for b, sl in enumerate(self.batches)]
        merge = self._merge_items()
        for first in range(0, len(items), merge):
            group = items[first:first + merge]
            checkpoint(control)  # waits while paused, raises Stopped once stopped
            xs, ys = [], []
            for k, b, sl in group:
                xb, yb = self.X[sl], self.y[sl]
                if augmented:
                    start = k if repeat else (k * nb + b) * self.R
                    op_in = self._rows(ops[0], start, self.R, self.R, repeat)
                    x = apply(op_in, xb)
                    if ops[1] is not None:
                        yb = apply(self._rows(ops[1], start, self.R, self.R, repeat), yb)
                else:
                    x = xb.unsqueeze(0).expand(self.R, *xb.shape)
                xs.append(x)
                ys.append(yb)
            x = xs[0] if len(xs) == 1 else torch.cat(xs, 1)
            per_run_y = ys[0].dim() == x.dim()
            yb = ys[0] if len(ys) == 1 else torch.cat(ys, 1 if per_run_y else 0)
            rows = sum(sl.stop - sl.start for _, _, sl in group)
            w = rows / N / passes
            for rs, Pc in zip(chunks, P):
                xc = x[rs]
                yc = yb[rs] if per_run_y else yb
                out = self.model.forward_matmul(Pc, xc.contiguous())
                loss, right, per_item = self._loss(out, yc)
                torch.where(alive[rs], loss * w, torch.zeros_like(loss)).sum().backward()
                loss_sum[rs] += w * loss.detach().to(torch.float64)
                correct[rs] += right
            seen += per_item * rows
            if on_batch is not None:
                for _ in group:
                    on_batch()
        grads = self.model.from_matmul([torch.cat([Pc[i].grad for Pc in P]) for i in range(len(mats))])
        if strategy == "equi":
            grads = self.model.project(grads)
        elif strategy == "aug_penalty" and self.config.gamma:
            proj = self.model.project(params)
            grads = [g + 2 * self.config.gamma * (p - q) for g, p, q in zip(grads, params, proj)]
        return grads, loss_sum, correct / seen

    def rpp_rates(self) -> tuple[float, float]:
        """(k_eq, k_free) = 1/(σ²_eq N), 1/(σ²_free N): the priors' penalty per training sample is k‖θ‖²/2, the
        summed-NLL MAP objective of the thesis divided by N as the trainer's mean loss is."""
        return 1.0 / (self.config.rpp_prior_eq * self.N), 1.0 / (self.config.rpp_prior_free * self.N)

    def rpp_penalty_gradient(self, eq, free) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """The gradients of the priors' penalty k_eq‖A_eq‖²/2 + k_free‖A_free‖²/2 (``rpp_rates``): (k_eq A_eq,
        k_free A_free)."""
        k_eq, k_free = self.rpp_rates()
        return [k_eq * p for p in eq], [k_free * p for p in free]

    def rpp_step(self, eq, free, grads, lr: float) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """One step of both pathways from the loss gradient ``grads`` at A = A_eq + A_free: A_eq ← Π_E(A_eq −
        lr Π_E g)/(1 + lr k_eq), A_free ← (A_free − lr g)/(1 + lr k_free) (the penalty implicit: see the module
        docstring; the projection only removes float rounding, as Equi's)."""
        k_eq, k_free = self.rpp_rates()
        new_eq = [(p - lr * g) / (1 + lr * k_eq) for p, g in zip(eq, self.model.project(grads))]
        new_free = [(p - lr * g) / (1 + lr * k_free) for p, g in zip(free, grads)]
        return self.model.project(new_eq), new_free

    def _width(self) -> int:
        """The widest activation of one sample (elements)."""
        return max(max(s.c_out * sp.n_out, s.c_in * sp.n_in) for s, sp in zip(self.model.specs, self.model.spaces))

    def _merge_items(self) -> int:
        """(pass, mini-batch) items per forward/backward pass: as many as keep one run's widest activation within
        ``MERGE_ELEMENTS`` (at least one).  Small models' steps are many small ops; merged they are a few larger
        ones.  It depends on the model and the batch size, never on the number of runs, so a run's numbers do not
        depend on how many runs train beside it."""
        return max(1, MERGE_ELEMENTS // max(self._width() * self.config.batch_size, 1))

    def _run_chunks(self) -> list[slice]:
        """Runs per forward/backward pass: as many as keep the widest activation of a merged group of mini-batches
        (``_merge_items``) within ``CHUNK_ELEMENTS`` (at least one)."""
        per_run = self._width() * self.config.batch_size * self._merge_items()
        size = max(1, min(self.R, CHUNK_ELEMENTS // max(per_run, 1)))
        return [slice(i, min(i + size, self.R)) for i in range(0, self.R, size)]

    # ------------------------------------------------------------------ stepping
    def train_step(self, control: Control | None = None, on_batch=None) -> list[dict]:
        """One gradient step for every strategy; returns the step's records (raises Stopped mid-step).
        ``on_batch(trainer, fraction)``: after every mini-batch, with the fraction of the step done."""
        t0 = time.perf_counter()
        lr = self.config.lr
        results = {}
        tick = None
        if on_batch is not None:
            done, total = [0], max(self.batches_per_step, 1)

            def tick():
                done[0] += 1
                on_batch(self, done[0] / total)
        for s in self.config.strategies:
            grads, loss, acc = self.gradient(s, alive=self.alive[s], control=control, on_batch=tick)
            results[s] = (grads, loss, acc)
        self.step += 1
        losses = {}
        with torch.no_grad():
            for s, (grads, loss, acc) in results.items():
                alive = self.alive[s]
                shape = lambda p: (-1,) + (1,) * (p.dim() - 1)  # noqa: E731
                if s in self.pathways:
                    parts = self.rpp_step(*self.pathways[s], grads, lr)
                    self.pathways[s] = tuple([torch.where(alive.view(shape(p)), q, p) for p, q in zip(old, part)]
                                             for old, part in zip(self.pathways[s], parts))
                    new = [e + f for e, f in zip(*parts)]
                else:
                    new = [p - lr * g for p, g in zip(self.params[s], grads)]
                if s == "equi":  # back onto E: in float32 the step's rounding would otherwise accumulate
                    new = self.model.project(new)
                self.params[s] = [torch.where(alive.view(shape(p)), q, p) for p, q in zip(self.params[s], new)]
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
                free = self._free_fractions(s, per_layer, eq)
                loss, acc = losses[s] if losses else (None, None)
                for r, run in enumerate(self.run_ids):
                    dead = self.diverged_at[s][r] is not None
                    common = {"strategy": s, "run": run, "step": self.step,
                              "loss": math.nan if loss is None or dead else float(loss[r]),
                              "accuracy": math.nan if acc is None or dead else float(acc[r]),
                              "diverged": dead}
                    nan = math.nan
                    for (name, di, de), ff in zip([("total", tot_init, tot_E)] + list(zip(self.layer_names, d_init,
                                                                                           d_E)), free):
                        new.append({**common, "layer": name, "dist_from_init": nan if dead else float(di[r]),
                                    "dist_from_E": nan if dead else float(de[r]),
                                    "free_fraction": nan if dead or ff is None else float(ff[r])})
        self.records.extend(new)
        return new

    def _free_fractions(self, strategy: str, per_layer, eq: list[int]) -> list:
        """‖A_free‖/‖A‖ per run: [total (over the layers with E ≠ L, as the distances), then per layer]; Nones
        for a strategy without pathways."""
        if strategy not in self.pathways:
            return [None] * (1 + len(per_layer))
        parts = self.model.layer_params(self.pathways[strategy][1])

        def sq(ts):
            return sum((t ** 2).flatten(1).sum(1) for t in ts)

        num, den = [sq(f) for f in parts], [sq(a) for a in per_layer]
        total = torch.sqrt(sum(num[i] for i in eq) / sum(den[i] for i in eq)) if eq else torch.zeros(self.R)
        return [total] + [torch.sqrt(n / d) for n, d in zip(num, den)]

    def run(self, on_step=None, control: Control | None = None, on_batch=None) -> bool:
        """Train ``config.steps`` steps (or until stopped); ``on_step(trainer, records)`` after each step,
        ``on_batch(trainer, fraction of the step)`` after every mini-batch (see ``train_step``).
        Returns True when all steps ran, False when stopped (a step stopped half-way is not counted)."""
        while self.step < self.config.steps:
            try:
                records = self.train_step(control=control, on_batch=on_batch)
            except Stopped:
                return False
            if on_step is not None:
                on_step(self, records)
            if all(not a.any() for a in self.alive.values()):
                break
        return True

    # ------------------------------------------------------------------ results
    def summary(self) -> dict:
        """Per strategy: medians over runs of the final totals (the CLI's --json object), and the equivariance
        audit of the final models (``audit``)."""
        out = {}
        audits = self.audit()
        for s in self.config.strategies:
            last = [r for r in self.records if r["strategy"] == s and r["layer"] == "total" and r["step"] == self.step]
            live = [r for r in last if not r["diverged"]]

            def med(key):
                vals = [r[key] for r in live if not math.isnan(r[key])]
                return float(np.median(vals)) if vals else math.nan

            test = self.evaluate().get(s)
            live_runs = torch.tensor([not r["diverged"] for r in last], dtype=torch.bool)
            out[s] = {"dist_from_init": med("dist_from_init"), "dist_from_E": med("dist_from_E"),
                      "loss": med("loss"), "accuracy": med("accuracy"), "runs": self.R,
                      "diverged_runs": sum(r["diverged"] for r in last), "steps": self.step,
                      "dim_E_over_dim_L": self.dim_ratio,
                      "test_loss": _median(test[0], live_runs) if test else math.nan,
                      "test_accuracy": _median(test[1], live_runs) if test else math.nan,
                      "test_samples": len(self.X_test)}
            if s in self.pathways:
                out[s]["free_fraction"] = med("free_fraction")
            out[s] |= audits[s]
            if not test:  # null in JSON for want of a test split, not because runs diverged
                out[s]["test_loss_reason"] = out[s]["test_accuracy_reason"] = NO_TEST_REASON
        return out

    def audit(self) -> dict:
        """Per strategy: the equivariance audit of every live run's current model, summarised over runs
        (``lab.dynamics.audit``: ``audit_error`` the median of the runs' worst relative errors under the
        experiment's group, ``audit_ok``, ``audit_runs_ok``, ``audit_tolerance``); computed once per step."""
        if self._audited is None or self._audited[0] != self.step:
            from .audit import audit_trainer

            with precise_float32():  # float32's own precision on CUDA: TF32 would fail Equi's audit
                self._audited = (self.step, audit_trainer(self))
        return self._audited[1]

    def evaluate(self) -> dict:
        """Per strategy: (loss, accuracy) of every run's current model on the held-out test split (empty dict
        without one); computed once per step."""
        if len(self.X_test) == 0:
            return {}
        if self._evaluated is not None and self._evaluated[0] == self.step:
            return self._evaluated[1]
        out = {}
        bs = self.config.batch_size
        with torch.no_grad(), precise_float32():
            for s in self.config.strategies:
                loss = torch.zeros(self.R, dtype=torch.float64, device=self.device)
                correct = torch.zeros_like(loss)
                seen = 0
                for i in range(0, len(self.X_test), bs):
                    xb, yb = self.X_test[i:i + bs], self.y_test[i:i + bs]
                    out_b = self.model.forward(self.params[s], xb.unsqueeze(0).expand(self.R, *xb.shape))
                    l, right, per_item = self._loss(out_b, yb)
                    loss += l.to(torch.float64) * len(xb)
                    correct += right
                    seen += per_item * len(xb)
                out[s] = ((loss / len(self.X_test)).cpu().numpy(), (correct / seen).cpu().numpy())
        self._evaluated = (self.step, out)
        return out

    @property
    def steps_per_second(self) -> float:
        return self.step / self.seconds if self.seconds else 0.0


#: why ``test_loss`` / ``test_accuracy`` are NaN (null in JSON) in a run without a held-out split
NO_TEST_REASON = "NaN: no test set (test_fraction is 0: nothing held out)"


def _median(values, live) -> float:
    vals = [float(v) for v, ok in zip(values, live.tolist()) if ok and math.isfinite(float(v))]
    return float(np.median(vals)) if vals else math.nan


def run_dynamics(config: DynamicsConfig, on_step=None, control: Control | None = None) -> Trainer:
    trainer = Trainer(config)
    trainer.run(on_step=on_step, control=control)
    return trainer
