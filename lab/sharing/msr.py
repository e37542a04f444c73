"""Method 2: meta-learning the symmetry matrix U of vec(W) = U v (Zhou et al.), with proximal sparsity (MSR).

Tasks (Zhou et al.'s synthetic locally connected layers, which the MSR report reuses): input x ∈ R^n (n = 70),
output o = 0..n−s uses the filter at its own position, ``filter_o = M[o] @ B_task`` with a mixing
M = softmax(randn(n_out, rank)) (rows) shared by all tasks and a per-task basis B_task = randn(rank, s); rank 1
makes every filter equal: a convolution.  20 samples per task; no bias, no noise.

Meta-learning (MAML, as ``train_synthetic.py`` of AllanYangZhou/metalearning-symmetries): U (init N(0, 0.01²)),
the initial filter parameters v0 (init N(0, (1/n_out)²)) and the inner learning rate (one per layer, starting
at 0.1, learned as is) are outer parameters; every meta-batch draws ``meta_batch`` (32) training tasks and, per
task, ``support`` (1) random samples to adapt v on by ``inner_steps`` (1) SGD steps and the other 19 to score
the adapted v (MSE averaged over samples and outputs); the per-task query losses are summed and Adam (lr 1e-3)
takes one outer step, 1000 steps in all, second order.  After every outer step the report's proximal step on U
(its Algorithm 1, eq. 5: prox of λ·s·Ω with s the outer learning rate): ``exclusive`` sparsity
Ω = ½ Σ_g ‖u_g‖₁² or ``group`` sparsity Ω = Σ_g ‖u_g‖₂, groups = the entries of U that build the weights
multiplying one input feature (all outputs and latent dimensions of that input).  The exclusive prox is, by
default, the report's eq. 7 (Yoon & Hwang's one-shot form sign(u)(|u| − λs‖u_g‖₁)_+); ``prox="exact"`` is the
exact proximal map (a lab option).  The baseline ``fc`` meta-learns W itself (nn.Linear's init, no sharing).

Test and validation tasks are new tasks from the same family (the same M), drawn from their own random
streams: meta-validation tasks choose λ (``choose_lambda``), meta-test tasks only report.  Each is adapted on
its first ``support`` samples and scored on the rest.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import LabError

#: Zhou et al.'s latent sizes L for the kernel-3 problems (``train_synthetic.py``: rank1 3, rank2 6, rank5 30)
ZHOU_LATENT = {(1, 3): 3, (2, 3): 6, (5, 3): 30}
PROX = ("report", "exact")


def latent_size(rank: int, kernel: int) -> int:
    """Zhou et al.'s L where their code gives one (kernel 3, ranks 1, 2, 5), else rank·kernel, the dimension of
    the task family (the report's kernel-5 sizes are not stated).

    >>> [latent_size(r, 3) for r in (1, 2, 5)], [latent_size(r, 5) for r in (1, 2, 5)]
    ([3, 6, 30], [5, 10, 25])
    """
    return ZHOU_LATENT.get((rank, kernel), rank * kernel)


# ---------------------------------------------------------------------------------------------- proximal maps
def prox_group(w: torch.Tensor, lam: float) -> torch.Tensor:
    """argmin_x ½‖x − w‖² + lam Σ_g ‖x_g‖₂ with groups along the last axis: (1 − lam/‖w_g‖)_+ w_g."""
    norm = torch.linalg.vector_norm(w, dim=-1, keepdim=True)
    return w * torch.clamp(1 - lam / norm.clamp_min(1e-300), min=0)


def prox_exclusive(w: torch.Tensor, lam: float) -> torch.Tensor:
    """argmin_x ½‖x − w‖² + (lam/2) Σ_g ‖x_g‖₁² with groups along the last axis (exact).

    KKT: |x_i| = (|w_i| − lam·s)_+ with s = ‖x_g‖₁; on the active set (the k largest |w_i|),
    s = S_k / (1 + lam·k) where S_k is their sum, and k is the largest index with |w_(k)| > lam·S_k/(1 + lam·k).
    """
    a = w.abs()
    srt, _ = torch.sort(a, dim=-1, descending=True)
    k = torch.arange(1, a.shape[-1] + 1, dtype=w.dtype, device=w.device)
    csum = torch.cumsum(srt, -1)
    tau = lam * csum / (1 + lam * k)
    active = srt > tau
    kstar = active.sum(-1, keepdim=True).clamp_min(1)
    threshold = torch.gather(tau, -1, kstar - 1)
    threshold = torch.where(active.any(-1, keepdim=True), threshold, a.max(-1, keepdim=True).values)
    return torch.sign(w) * torch.clamp(a - threshold, min=0)


def prox_exclusive_report(w: torch.Tensor, lam: float) -> torch.Tensor:
    """The report's eq. 7 (Yoon & Hwang 2017): sign(w_{g,i}) (|w_{g,i}| − lam ‖w_g‖₁)_+, groups along the last axis.

    A one-shot shrinkage by the group's ℓ1 norm before shrinking; it agrees with the exact map
    (``prox_exclusive``) to first order in lam and shrinks more for large lam·(group size)."""
    a = w.abs()
    return torch.sign(w) * torch.clamp(a - lam * a.sum(-1, keepdim=True), min=0)


def exclusive_penalty(w: torch.Tensor) -> torch.Tensor:
    return 0.5 * (w.abs().sum(-1) ** 2).sum()


def group_penalty(w: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(w, dim=-1).sum()


def by_input(U: torch.Tensor, n_out: int, n_in: int) -> torch.Tensor:
    """U (n_out·n_in, L) as (n_in, n_out·L): row i holds every entry of U that builds a weight W[o, i] multiplying
    input feature i (the report's grouping); ``from_input`` undoes it."""
    L = U.shape[1]
    return U.reshape(n_out, n_in, L).transpose(0, 1).reshape(n_in, n_out * L)


def from_input(G: torch.Tensor, n_out: int, n_in: int) -> torch.Tensor:
    L = G.shape[1] // n_out
    return G.reshape(n_in, n_out, L).transpose(0, 1).reshape(n_out * n_in, L)


def prox_step(U: torch.Tensor, n_out: int, n_in: int, sparsity: str, lam_step: float,
              prox: str = "report") -> torch.Tensor:
    """The proximal step on U with parameter ``lam_step`` (= λ·s), grouped by input feature."""
    if sparsity == "none" or lam_step == 0:
        return U
    if sparsity == "group":
        fn = prox_group
    else:
        fn = prox_exclusive_report if prox == "report" else prox_exclusive
    return from_input(fn(by_input(U, n_out, n_in), lam_step), n_out, n_in)


# ---------------------------------------------------------------------------------------------- sparsity measures
def hoyer(values) -> float:
    """Hoyer's sparsity (√n − ‖x‖₁/‖x‖₂)/(√n − 1) of the entries: 0 for all equal magnitudes, 1 for one nonzero.

    >>> hoyer([1, 0, 0, 0]), hoyer([1, -1, 1, 1])
    (1.0, 0.0)
    """
    x = np.abs(np.asarray(values, dtype=float)).ravel()
    n = x.size
    l2 = np.sqrt((x ** 2).sum())
    if n < 2 or l2 == 0:
        return float("nan")
    return float((np.sqrt(n) - x.sum() / l2) / (np.sqrt(n) - 1))


def band_fraction(picture, kernel: int) -> float:
    """The share of a (n_out, n_in) picture's total that lies on a locally connected layer's band
    (W[o, o:o + kernel]): 1 when U builds only weights a locally connected layer can have."""
    pic = np.abs(np.asarray(picture, dtype=float))
    band = np.zeros(pic.shape, dtype=bool)
    for o in range(pic.shape[0]):
        band[o, o:o + kernel] = True
    total = pic.sum()
    return float(pic[band].sum() / total) if total > 0 else float("nan")


def small_fraction(values, relative: float = 1e-3) -> float:
    """The fraction of entries whose magnitude is below ``relative`` times the largest."""
    x = np.abs(np.asarray(values, dtype=float)).ravel()
    top = x.max() if x.size else 0.0
    return float((x < relative * top).mean()) if top > 0 else 1.0


# ---------------------------------------------------------------------------------------------- tasks
@dataclass
class LocallyConnected:
    """A family of locally connected regression tasks sharing the mixing M (defaults: Zhou et al.'s sizes)."""

    n_in: int = 70
    kernel: int = 3
    rank: int = 1
    samples: int = 20
    noise: float = 0.0
    seed: int = 0
    M: np.ndarray = field(init=False)

    def __post_init__(self):
        if self.kernel > self.n_in:
            raise LabError(f"a filter of size {self.kernel} does not fit {self.n_in} inputs")
        if self.samples < 2:
            raise LabError(f"a task needs at least 2 samples (one to adapt on, one to score), not {self.samples}")
        rng = np.random.default_rng([self.seed, 0])
        self.n_out = self.n_in - self.kernel + 1
        logits = rng.standard_normal((self.n_out, self.rank))
        self.M = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)

    def weights(self, count: int, rng) -> np.ndarray:
        """(count, n_out, n_in) true layers of ``count`` new tasks."""
        B = rng.standard_normal((count, self.rank, self.kernel))
        filters = np.einsum("or,trk->tok", self.M, B)
        W = np.zeros((count, self.n_out, self.n_in))
        for o in range(self.n_out):
            W[:, o, o:o + self.kernel] = filters[:, o]
        return W

    def sample(self, count: int, rng):
        """``count`` new tasks as numpy arrays X (count, samples, n_in) and Y (count, samples, n_out)."""
        W = self.weights(count, rng)
        X = rng.standard_normal((count, self.samples, self.n_in))
        Y = np.einsum("toi,tni->tno", W, X) + self.noise * rng.standard_normal((count, self.samples, self.n_out))
        return X, Y


def zero_prediction_loss(settings: dict) -> float:
    """The trivial baseline of a run's test loss: predicting 0, the targets' mean (they are linear in zero-mean
    inputs), on the same test tasks and query samples the run was tested on (``MSRResult.settings``).

    >>> s = {"n_in": 8, "kernel": 3, "rank": 1, "samples": 20, "seed": 0, "test_tasks": 50, "support": 1}
    >>> zero_prediction_loss(s) == zero_prediction_loss(dict(s)) > 0  # the run's own test tasks, drawn again
    True
    """
    family = LocallyConnected(n_in=settings["n_in"], kernel=settings["kernel"], rank=settings["rank"],
                              samples=settings["samples"], seed=settings["seed"])
    _, Y = family.sample(settings["test_tasks"], np.random.default_rng([settings["seed"], 2]))
    return float((Y[:, settings.get("support", 1):] ** 2).mean())


# ---------------------------------------------------------------------------------------------- meta-learning
@dataclass
class MSRResult:
    U: np.ndarray  # (n_out * n_in, latent); the identity for the fc baseline
    test_loss: float
    val_loss: float | None = None
    history: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    steps: int = 0
    inner_lr: float = float("nan")
    settings: dict = field(default_factory=dict)

    def max_abs(self, n_out: int, n_in: int) -> np.ndarray:
        """max_k |U| over the latent axis as an (n_out, n_in) picture (the report's Fig. 2)."""
        return np.abs(self.U).reshape(n_out, n_in, -1).max(-1)


def _torch_dtype(dtype):
    """None / "float32" (Zhou et al.'s) or "float64" (also accepts the torch dtypes)."""
    table = {None: torch.float32, "float32": torch.float32, "float64": torch.float64,
             torch.float32: torch.float32, torch.float64: torch.float64}
    if dtype not in table:
        raise LabError(f"unknown dtype {dtype!r}: float32 or float64")
    return table[dtype]


def meta_learn(family: LocallyConnected, tasks: int = 100, model: str = "msr", sparsity: str = "none",
               lam: float = 0.0, latent: int | None = None, steps: int = 1000, meta_batch: int = 32,
               outer_lr: float = 1e-3, inner_lr: float = 0.1, inner_steps: int = 1, support: int = 1,
               prox: str = "report", test_tasks: int = 300, val_tasks: int = 0, seed: int = 0,
               device=None, dtype="float32", on_step=None, control=None) -> MSRResult:
    """Meta-train on ``tasks`` tasks, then report the post-adaptation MSE on ``test_tasks`` new tasks (and on
    ``val_tasks`` meta-validation tasks, drawn from another stream, when asked).  Defaults: Zhou et al.'s
    (float32 like their code; ``dtype="float64"`` for a double-precision run)."""
    if model not in ("msr", "fc"):
        raise LabError(f"unknown model {model!r}: msr or fc")
    if sparsity not in ("none", "exclusive", "group"):
        raise LabError(f"unknown sparsity {sparsity!r}: none, exclusive or group")
    if prox not in PROX:
        raise LabError(f"unknown prox {prox!r}: report or exact")
    if not 1 <= support < family.samples:
        raise LabError(f"support must be 1 .. {family.samples - 1} of a task's {family.samples} samples, not {support}")
    if not (lam >= 0 and np.isfinite(lam)):
        raise LabError(f"the sparsity weight must be a finite number >= 0, not {lam}")
    if tasks < 1 or steps < 0 or meta_batch < 1:
        raise LabError("tasks and meta_batch must be >= 1 and steps >= 0")
    from ..device import pick_device

    dev = pick_device(device or "cpu") if not isinstance(device, torch.device) else device
    dt = _torch_dtype(dtype)
    rng = np.random.default_rng([seed, 1])
    gen = torch.Generator().manual_seed(seed)
    n_out, n_in = family.n_out, family.n_in
    D = n_out * n_in
    L = latent or latent_size(family.rank, family.kernel)
    tensor = lambda a: torch.as_tensor(a, dtype=dt, device=dev)  # noqa: E731
    Xtr, Ytr = (tensor(a) for a in family.sample(tasks, rng))
    if model == "msr":
        U = (0.01 * torch.randn(D, L, generator=gen, dtype=torch.float64)).to(dev, dt).requires_grad_()
        v0 = (torch.randn(L, generator=gen, dtype=torch.float64) / n_out).to(dev, dt).requires_grad_()
    else:  # nn.Linear(n_in, n_out, bias=False)'s init: U(−1/√n_in, 1/√n_in)
        U = None
        v0 = ((torch.rand(D, generator=gen, dtype=torch.float64) * 2 - 1) / np.sqrt(n_in)).to(dev, dt)
        v0.requires_grad_()
    alpha = torch.tensor(inner_lr, dtype=dt, device=dev, requires_grad=True)
    params = [p for p in (U, v0, alpha) if p is not None]
    opt = torch.optim.Adam(params, lr=outer_lr)

    def layer(v):  # (B, latent) -> (B, n_out, n_in)
        W = v @ U.T if U is not None else v
        return W.reshape(-1, n_out, n_in)

    def loss(v, X, Y):  # per task: mean over samples and outputs (F.mse_loss of one task)
        pred = torch.einsum("boi,bni->bno", layer(v), X)
        return ((pred - Y) ** 2).mean((1, 2))

    def adapt(xs, ys, create_graph):
        v = v0.expand(xs.shape[0], -1)
        for _ in range(inner_steps):
            (g,) = torch.autograd.grad(loss(v, xs, ys).sum(), v, create_graph=create_graph)
            v = v - alpha * g
        return v

    def evaluate(X, Y, chunk=100):
        total = 0.0
        for i in range(0, X.shape[0], chunk):
            xs, ys, xq, yq = X[i:i + chunk, :support], Y[i:i + chunk, :support], X[i:i + chunk, support:], Y[
                i:i + chunk, support:]
            v = adapt(xs, ys, create_graph=False)
            with torch.no_grad():
                total += float(loss(v, xq, yq).sum())
        return total / X.shape[0]

    batch = min(meta_batch, tasks)
    settings = {"tasks": tasks, "model": model, "sparsity": sparsity, "lam": lam, "latent": L, "steps": steps,
                "meta_batch": batch, "outer_lr": outer_lr, "inner_lr": inner_lr, "inner_steps": inner_steps,
                "support": support, "query": family.samples - support, "prox": prox, "test_tasks": test_tasks,
                "val_tasks": val_tasks, "seed": seed, "n_in": n_in, "n_out": n_out, "kernel": family.kernel,
                "rank": family.rank, "samples": family.samples, "dtype": str(dt).replace("torch.", ""),
                "device": str(dev)}
    result = MSRResult(U=np.zeros((D, L)), test_loss=float("nan"), settings=settings)
    t0 = time.perf_counter()
    lam_step = lam * outer_lr
    for step in range(steps):
        if control is not None and not control.wait_while_paused():
            break  # stopped: test the U learned so far
        idx = torch.as_tensor(rng.choice(tasks, size=batch, replace=False), device=dev)
        order = torch.as_tensor(np.argsort(rng.random((batch, family.samples)), axis=1), device=dev)
        X, Y = Xtr[idx[:, None], order], Ytr[idx[:, None], order]  # each task's samples in a fresh random order
        v = adapt(X[:, :support], Y[:, :support], create_graph=True)
        outer = loss(v, X[:, support:], Y[:, support:]).sum()  # Zhou et al. sum the tasks' query losses
        opt.zero_grad()
        outer.backward()
        opt.step()
        if U is not None:
            with torch.no_grad():
                U.copy_(prox_step(U, n_out, n_in, sparsity, lam_step, prox))
        result.steps = step + 1
        if step % 10 == 0 or step == steps - 1:
            rec = {"step": step, "outer_loss": outer.item() / batch}
            result.history.append(rec)
            if on_step is not None:
                on_step(rec, U.detach().cpu().numpy() if U is not None else None)
    result.seconds = time.perf_counter() - t0
    result.test_loss = evaluate(*(tensor(a) for a in family.sample(test_tasks, np.random.default_rng([seed, 2]))))
    if val_tasks:
        result.val_loss = evaluate(*(tensor(a) for a in family.sample(val_tasks, np.random.default_rng([seed, 3]))))
    result.U = U.detach().cpu().double().numpy() if U is not None else np.eye(D)
    result.inner_lr = float(alpha.detach())
    return result


# ---------------------------------------------------------------------------------------------- lambda on validation
#: the λ grid ``choose_lambda`` searches by default (0 = no sparsity; the report's λ is not stated)
LAMBDA_GRID = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0)


@dataclass
class LambdaChoice:
    """One setting trained at every λ of a grid; λ picked by the meta-validation loss."""

    grid: list
    val: list  # validation-task loss per λ
    test: list  # test-task loss per λ
    picked: float  # argmin of val over the grid (0 included)
    picked_sparse: float  # argmin of val over the grid without 0
    results: dict = field(default_factory=dict)  # λ -> MSRResult

    @property
    def base_test(self) -> float:
        return self.test[self.grid.index(0.0)]

    @property
    def picked_test(self) -> float:
        return self.test[self.grid.index(self.picked)]

    @property
    def relative_change(self) -> float:
        """(test loss at the picked λ − test loss at λ = 0) / test loss at λ = 0."""
        return self.picked_test / self.base_test - 1


def choose_lambda(family: LocallyConnected, tasks: int, grid=LAMBDA_GRID, sparsity: str = "exclusive",
                  val_tasks: int = 300, test_tasks: int = 300, seed: int = 0, on_run=None, control=None,
                  **kwargs) -> LambdaChoice:
    """Train ``family`` on ``tasks`` tasks at every λ in ``grid`` (0 added when missing; same training tasks,
    inits and batches for every λ), pick λ by the loss on ``val_tasks`` meta-validation tasks and report the
    test-task losses beside it.  The test tasks never take part in the choice.  ``kwargs`` go to ``meta_learn``;
    ``on_run(i, n, lam, result)`` after each run."""
    from ..control import checkpoint

    grid = sorted({float(g) for g in grid} | {0.0})
    if val_tasks < 1:
        raise LabError("choosing λ needs at least one validation task")
    results = {}
    for i, lam in enumerate(grid):
        checkpoint(control)
        res = meta_learn(family, tasks=tasks, sparsity=sparsity if lam > 0 else "none", lam=lam,
                         val_tasks=val_tasks, test_tasks=test_tasks, seed=seed, control=control, **kwargs)
        results[lam] = res
        if on_run is not None:
            on_run(i, len(grid), lam, res)
    checkpoint(control)
    val = [results[g].val_loss for g in grid]
    test = [results[g].test_loss for g in grid]
    picked = grid[int(np.nanargmin(val))]
    sparse = [g for g in grid if g > 0]
    picked_sparse = sparse[int(np.nanargmin([results[g].val_loss for g in sparse]))] if sparse else 0.0
    return LambdaChoice(grid, val, test, picked, picked_sparse, results)


def sparsity_table(ranks=(1, 2, 5), kernels=(3, 5), task_counts=(20, 50, 100, 1000), grid=LAMBDA_GRID,
                   n_in: int = 70, seed: int = 0, on_row=None, control=None, **kwargs):
    """The report's Table I with λ chosen on validation tasks: per (rank, kernel, tasks) the test loss at λ = 0
    and at the λ picked on validation tasks.  ``kwargs`` go to ``choose_lambda`` / ``meta_learn``."""
    import pandas as pd

    rows = []
    for kernel in kernels:
        for rank in ranks:
            if rank > kernel:
                continue
            family = LocallyConnected(n_in=n_in, kernel=kernel, rank=rank, seed=seed)
            for count in task_counts:
                ch = choose_lambda(family, count, grid=grid, seed=seed, control=control, **kwargs)
                rows.append({"rank": rank, "kernel": kernel, "tasks": count, "lam": ch.picked,
                             "base": ch.base_test, "exclusive": ch.picked_test,
                             "change": ch.relative_change})
                if on_row is not None:
                    on_row(rows[-1])
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------- many runs at once
def _prox_runs(U: torch.Tensor, n_out: int, n_in: int, exclusive: torch.Tensor, group: torch.Tensor,
               lam_steps: torch.Tensor, prox: str) -> torch.Tensor:
    """``prox_step`` on each run's slice of a stacked U (R, n_out * n_in, L): exclusive sparsity where
    ``exclusive[i]``, group sparsity where ``group[i]``, step ``lam_steps[i]`` (R, 1, 1), the rest unchanged."""
    R, _, L = U.shape
    G = U.reshape(R, n_out, n_in, L).transpose(1, 2).reshape(R, n_in, n_out * L)  # by input feature, per run
    out = G
    if bool(exclusive.any()):
        if prox == "report":
            a = G.abs()
            ex = torch.sign(G) * torch.clamp(a - lam_steps * a.sum(-1, keepdim=True), min=0)
        else:
            ex = torch.stack([prox_exclusive(G[i], float(lam_steps[i])) for i in range(R)])
        out = torch.where(exclusive[:, None, None], ex, out)
    if bool(group.any()):
        norm = torch.linalg.vector_norm(G, dim=-1, keepdim=True)
        gr = G * torch.clamp(1 - lam_steps / norm.clamp_min(1e-300), min=0)
        out = torch.where(group[:, None, None], gr, out)
    return out.reshape(R, n_in, n_out, L).transpose(1, 2).reshape(R, n_out * n_in, L)


def meta_learn_batch(families, seeds, sparsities, lams, tasks: int = 100, latent: int | None = None,
                     steps: int = 1000, meta_batch: int = 32, outer_lr: float = 1e-3, inner_lr: float = 0.1,
                     inner_steps: int = 1, support: int = 1, prox: str = "report", test_tasks: int = 300,
                     val_tasks: int = 0, device=None, dtype="float32", control=None) -> list[MSRResult]:
    """``meta_learn(families[i], tasks, sparsity=sparsities[i], lam=lams[i], seed=seeds[i], ...)`` for every i, run
    side by side as one stacked optimisation (model ``msr``): run i draws its training tasks, meta-batches,
    sample orders, initialisation, validation and test tasks from exactly the streams ``meta_learn`` gives seed
    ``seeds[i]``, and Adam (elementwise) updates each run's slice as it would alone, so every run is the
    ``meta_learn`` run up to float rounding of the batched products.  The families must share their shape
    (``n_in``, ``kernel``, ``rank``, ``samples``); the runs' U, v0 and inner learning rates are separate.  One
    stacked step costs little more than one run's (the runs are small), which is what makes replicate seeds and
    λ grids affordable (``lab reproduce``)."""
    families, seeds, sparsities, lams = list(families), [int(s) for s in seeds], list(sparsities), list(lams)
    R = len(families)
    if not (R and len(seeds) == len(sparsities) == len(lams) == R):
        raise LabError("meta_learn_batch needs one seed, sparsity and lambda per family (and at least one run)")
    f0 = families[0]
    if any((f.n_in, f.kernel, f.rank, f.samples) != (f0.n_in, f0.kernel, f0.rank, f0.samples) for f in families):
        raise LabError("meta_learn_batch runs families of one shape (n_in, kernel, rank, samples) together")
    for sp, lam in zip(sparsities, lams):
        if sp not in ("none", "exclusive", "group"):
            raise LabError(f"unknown sparsity {sp!r}: none, exclusive or group")
        if not (lam >= 0 and np.isfinite(lam)):
            raise LabError(f"the sparsity weight must be a finite number >= 0, not {lam}")
    if prox not in PROX:
        raise LabError(f"unknown prox {prox!r}: report or exact")
    if not 1 <= support < f0.samples:
        raise LabError(f"support must be 1 .. {f0.samples - 1} of a task's {f0.samples} samples, not {support}")
    if tasks < 1 or steps < 0 or meta_batch < 1:
        raise LabError("tasks and meta_batch must be >= 1 and steps >= 0")
    from ..device import pick_device

    dev = pick_device(device or "cpu") if not isinstance(device, torch.device) else device
    dt = _torch_dtype(dtype)
    n_out, n_in, samples = f0.n_out, f0.n_in, f0.samples
    D = n_out * n_in
    L = latent or latent_size(f0.rank, f0.kernel)
    tensor = lambda a: torch.as_tensor(a, dtype=dt, device=dev)  # noqa: E731
    rngs = [np.random.default_rng([s, 1]) for s in seeds]
    data = [f.sample(tasks, rng) for f, rng in zip(families, rngs)]
    Xtr, Ytr = tensor(np.stack([d[0] for d in data])), tensor(np.stack([d[1] for d in data]))
    U0, V0 = [], []
    for s in seeds:  # the order meta_learn draws them in: U, then v0, from the run's own generator
        gen = torch.Generator().manual_seed(s)
        U0.append(0.01 * torch.randn(D, L, generator=gen, dtype=torch.float64))
        V0.append(torch.randn(L, generator=gen, dtype=torch.float64) / n_out)
    U = torch.stack(U0).to(dev, dt).requires_grad_()
    v0 = torch.stack(V0).to(dev, dt).requires_grad_()
    alpha = torch.full((R,), inner_lr, dtype=dt, device=dev, requires_grad=True)
    opt = torch.optim.Adam([U, v0, alpha], lr=outer_lr)

    def loss(Us, v, X, Y):  # (R', B, L) -> (R', B): per task, mean over samples and outputs
        W = torch.einsum("rbl,rdl->rbd", v, Us).reshape(v.shape[0], v.shape[1], n_out, n_in)
        pred = torch.einsum("rboi,rbni->rbno", W, X)
        return ((pred - Y) ** 2).mean((2, 3))

    def adapt(Us, v0s, alphas, xs, ys, create_graph):
        v = v0s[:, None, :].expand(-1, xs.shape[1], -1)
        for _ in range(inner_steps):
            (g,) = torch.autograd.grad(loss(Us, v, xs, ys).sum(), v, create_graph=create_graph)
            v = v - alphas[:, None, None] * g
        return v

    batch = min(meta_batch, tasks)
    results = []
    for f, s, sp, lam in zip(families, seeds, sparsities, lams):
        settings = {"tasks": tasks, "model": "msr", "sparsity": sp, "lam": lam, "latent": L, "steps": steps,
                    "meta_batch": batch, "outer_lr": outer_lr, "inner_lr": inner_lr, "inner_steps": inner_steps,
                    "support": support, "query": samples - support, "prox": prox, "test_tasks": test_tasks,
                    "val_tasks": val_tasks, "seed": s, "n_in": n_in, "n_out": n_out, "kernel": f.kernel,
                    "rank": f.rank, "samples": samples, "dtype": str(dt).replace("torch.", ""), "device": str(dev),
                    "batched_with": R}
        results.append(MSRResult(U=np.zeros((D, L)), test_loss=float("nan"), settings=settings))
    lam_steps = torch.tensor([lam * outer_lr for lam in lams], dtype=dt, device=dev)[:, None, None]
    exclusive = torch.tensor([sp == "exclusive" and lam > 0 for sp, lam in zip(sparsities, lams)], device=dev)
    group = torch.tensor([sp == "group" and lam > 0 for sp, lam in zip(sparsities, lams)], device=dev)
    any_prox = bool(exclusive.any() or group.any())
    t0 = time.perf_counter()
    run_index = torch.arange(R, device=dev)[:, None, None]
    for step in range(steps):
        if control is not None and not control.wait_while_paused():
            break
        idx = np.stack([rng.choice(tasks, size=batch, replace=False) for rng in rngs])
        order = np.stack([np.argsort(rng.random((batch, samples)), axis=1) for rng in rngs])
        idx_t, order_t = torch.as_tensor(idx, device=dev), torch.as_tensor(order, device=dev)
        X = Xtr[run_index, idx_t[:, :, None], order_t]
        Y = Ytr[run_index, idx_t[:, :, None], order_t]
        v = adapt(U, v0, alpha, X[:, :, :support], Y[:, :, :support], create_graph=True)
        outer = loss(U, v, X[:, :, support:], Y[:, :, support:]).sum(1)  # per run: the tasks' query losses summed
        opt.zero_grad()
        outer.sum().backward()
        opt.step()
        if any_prox:
            with torch.no_grad():
                U.copy_(_prox_runs(U, n_out, n_in, exclusive, group, lam_steps, prox))
        for res in results:
            res.steps = step + 1
        if step % 10 == 0 or step == steps - 1:
            values = (outer.detach() / batch).tolist()
            for res, value in zip(results, values):
                res.history.append({"step": step, "outer_loss": value})
    seconds = time.perf_counter() - t0

    def evaluate(i, X, Y, chunk=100):
        total = 0.0
        for j in range(0, X.shape[0], chunk):
            xs, ys = X[None, j:j + chunk, :support], Y[None, j:j + chunk, :support]
            xq, yq = X[None, j:j + chunk, support:], Y[None, j:j + chunk, support:]
            v = adapt(U[i:i + 1], v0[i:i + 1], alpha[i:i + 1], xs, ys, create_graph=False)
            with torch.no_grad():
                total += float(loss(U[i:i + 1], v, xq, yq).sum())
        return total / X.shape[0]

    for i, (f, s, res) in enumerate(zip(families, seeds, results)):
        res.seconds = seconds / R
        res.test_loss = evaluate(i, *(tensor(a) for a in f.sample(test_tasks, np.random.default_rng([s, 2]))))
        if val_tasks:
            res.val_loss = evaluate(i, *(tensor(a) for a in f.sample(val_tasks, np.random.default_rng([s, 3]))))
        res.U = U[i].detach().cpu().double().numpy()
        res.inner_lr = float(alpha[i].detach())
    return results
