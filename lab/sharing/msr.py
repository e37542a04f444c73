"""Method 2: meta-learning the symmetry matrix U of vec(W) = U v (Zhou et al.), with proximal sparsity (MSR).

Tasks (the MSR report's synthetic locally connected layers): input x ∈ R^n, output o = 0..n−s uses the filter
at its own position, ``filter_o = M[o] @ B_task`` with a mixing M (n_out × rank, softmax rows) shared by all
tasks and a per-task basis B_task (rank × s); rank 1 makes every filter equal: a convolution.  20 samples per
task, half to adapt on, half to evaluate.

Meta-learning (MAML): U and the initial v0 (and the inner learning rate) are outer parameters; each task adapts
v by ``inner_steps`` gradient steps on its adaptation samples; the outer loss is the evaluation-sample MSE after
adaptation (second order).  After every outer Adam step a proximal step on U: ``exclusive`` sparsity
(½ Σ_g ‖w_g‖₁², exact closed form) or ``group`` sparsity (Σ_g ‖w_g‖₂), groups = the weights that multiply one
input feature.  The baseline ``fc`` meta-learns W itself (U = identity, no sharing).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import LabError


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


def exclusive_penalty(w: torch.Tensor) -> torch.Tensor:
    return 0.5 * (w.abs().sum(-1) ** 2).sum()


def group_penalty(w: torch.Tensor) -> torch.Tensor:
    return torch.linalg.vector_norm(w, dim=-1).sum()


# ---------------------------------------------------------------------------------------------- tasks
@dataclass
class LocallyConnected:
    """A family of locally connected regression tasks sharing the mixing M."""

    n_in: int = 12
    kernel: int = 3
    rank: int = 1
    samples: int = 20
    noise: float = 0.0
    seed: int = 0
    M: np.ndarray = field(init=False)

    def __post_init__(self):
        if self.kernel > self.n_in:
            raise LabError(f"a filter of size {self.kernel} does not fit {self.n_in} inputs")
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
        """Tasks as (x_adapt, y_adapt, x_eval, y_eval), each (count, samples/2, ·)."""
        W = self.weights(count, rng)
        X = rng.standard_normal((count, self.samples, self.n_in))
        Y = np.einsum("toi,tni->tno", W, X) + self.noise * rng.standard_normal((count, self.samples, self.n_out))
        h = self.samples // 2
        t = lambda a: torch.as_tensor(a, dtype=torch.float64)  # noqa: E731
        return t(X[:, :h]), t(Y[:, :h]), t(X[:, h:]), t(Y[:, h:])


# ---------------------------------------------------------------------------------------------- meta-learning
@dataclass
class MSRResult:
    U: np.ndarray  # (n_out * n_in, latent)
    test_loss: float
    history: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    steps: int = 0

    def max_abs(self, n_out: int, n_in: int) -> np.ndarray:
        """max_k |U| over the latent axis as an (n_out, n_in) picture (the report's Fig. 2)."""
        return np.abs(self.U).reshape(n_out, n_in, -1).max(-1)


def meta_learn(family: LocallyConnected, tasks: int = 100, model: str = "msr", sparsity: str = "none",
               lam: float = 1e-3, latent: int | None = None, steps: int = 600, meta_batch: int = 16,
               outer_lr: float = 1e-2, inner_lr: float = 0.1, inner_steps: int = 1, test_tasks: int = 100,
               seed: int = 0, on_step=None, control=None) -> MSRResult:
    """Meta-train on ``tasks`` tasks, then report the post-adaptation MSE on ``test_tasks`` new tasks."""
    if model not in ("msr", "fc"):
        raise LabError(f"unknown model {model!r}: msr or fc")
    if sparsity not in ("none", "exclusive", "group"):
        raise LabError(f"unknown sparsity {sparsity!r}: none, exclusive or group")
    rng = np.random.default_rng([seed, 1])
    gen = torch.Generator().manual_seed(seed)
    n_out, n_in = family.n_out, family.n_in
    D = n_out * n_in
    L = latent or family.kernel * family.rank
    train = family.sample(tasks, rng)
    if model == "msr":
        U = (0.1 * torch.randn(D, L, generator=gen, dtype=torch.float64)).requires_grad_()
        v0 = (torch.randn(L, generator=gen, dtype=torch.float64) / np.sqrt(n_out)).requires_grad_()
    else:
        U = None
        v0 = torch.zeros(D, dtype=torch.float64, requires_grad=True)
    log_alpha = torch.tensor(np.log(inner_lr), dtype=torch.float64, requires_grad=True)
    params = [p for p in (U, v0, log_alpha) if p is not None]
    opt = torch.optim.Adam(params, lr=outer_lr)

    def layer(v):  # (B, latent) -> (B, n_out, n_in)
        W = v @ U.T if U is not None else v
        return W.reshape(-1, n_out, n_in)

    def loss(v, X, Y):
        pred = torch.einsum("boi,bni->bno", layer(v), X)
        return ((pred - Y) ** 2).mean((1, 2))

    def adapt(xa, ya, create_graph):
        v = v0.expand(xa.shape[0], -1)
        for _ in range(inner_steps):
            (g,) = torch.autograd.grad(loss(v, xa, ya).sum(), v, create_graph=create_graph)
            v = v - torch.exp(log_alpha) * g
        return v

    result = MSRResult(U=np.zeros((D, L)), test_loss=float("nan"))
    t0 = time.perf_counter()
    for step in range(steps):
        if control is not None and not control.wait_while_paused():
            break  # stopped: test the U learned so far
        idx = torch.as_tensor(rng.choice(tasks, size=min(meta_batch, tasks), replace=False))
        xa, ya, xe, ye = (a[idx] for a in train)
        v = adapt(xa, ya, create_graph=True)
        outer = loss(v, xe, ye).mean()
        opt.zero_grad()
        outer.backward()
        opt.step()
        if U is not None and sparsity != "none":
            with torch.no_grad():
                groups = U.reshape(n_out, n_in, L).transpose(0, 1).reshape(n_in, n_out * L)
                prox = prox_exclusive if sparsity == "exclusive" else prox_group
                new = prox(groups, lam * outer_lr).reshape(n_in, n_out, L).transpose(0, 1).reshape(D, L)
                U.copy_(new)
        result.steps = step + 1
        if step % 10 == 0 or step == steps - 1:
            rec = {"step": step, "outer_loss": outer.item()}
            result.history.append(rec)
            if on_step is not None:
                on_step(rec, U.detach().numpy() if U is not None else None)
    result.seconds = time.perf_counter() - t0
    test = family.sample(test_tasks, np.random.default_rng([seed, 2]))
    v = adapt(test[0], test[1], create_graph=False)
    with torch.no_grad():
        result.test_loss = float(loss(v, test[2], test[3]).mean())
    result.U = U.detach().numpy() if U is not None else np.eye(D)
    return result


def sparsity_table(ranks=(1, 2, 5), kernels=(3, 5), task_counts=(20, 50, 100, 1000), lam: float = 1e-3,
                   n_in: int = 12, steps: int = 300, seed: int = 0, on_row=None):
    """The report's Table I: test loss without and with exclusive sparsity for every (rank, kernel, tasks)."""
    import pandas as pd

    rows = []
    for kernel in kernels:
        for rank in ranks:
            if rank > kernel:
                continue
            family = LocallyConnected(n_in=n_in, kernel=kernel, rank=rank, seed=seed)
            for count in task_counts:
                base = meta_learn(family, tasks=count, sparsity="none", steps=steps, seed=seed)
                sparse = meta_learn(family, tasks=count, sparsity="exclusive", lam=lam, steps=steps, seed=seed)
                rows.append({"rank": rank, "kernel": kernel, "tasks": count, "base": base.test_loss,
                             "exclusive": sparse.test_loss})
                if on_row is not None:
                    on_row(rows[-1])
    return pd.DataFrame(rows)
