"""Learning Lie-algebra generators from data through the Lie derivative of a fitted model (issue 33).

1. ``fit`` -- an MLP with SiLU (smooth, so its Jacobian means something) regressed on (x, y); the targets are
   divided by one global scale (no per-coordinate scaling or centring: either would break an equivariant output's
   symmetry).
2. The symmetry loss of a generator pair v = (A, B) -- A acting on the inputs, B on the outputs (B = 0 for a scalar,
   invariant output) -- is the mean squared Lie derivative of the fitted model along it,
   ``E_x |J_f(x) A x - B f(x)|^2``: zero exactly when f is equivariant to first order along (A, B).  It is a
   quadratic form v^T C v (``symmetry_form``), divided by the size of the same flow v^T D v (a Rayleigh quotient:
   for an invariant output the mean squared cosine between the model's gradient and the flow) and reported
   *relative* to chance (the mean generalized eigenvalue), so that 1 means "no better than an arbitrary direction"
   and the threshold ``TAU`` has one meaning on every task.  Measured (fitted MLP, 1 000 points): the rotated
   plane's symmetry 0.0009, the no-symmetry task's best direction 0.012, O(5)'s ten at 0.0002-0.0004 with its
   partial symmetries (rotating x1 or x2 alone, broken only by the small cosine term) from 0.002 -- O(5) needs 8 000
   points and a wider model before the gap at ten opens (0.0004 -> 0.002); choosing the count by the spectrum's gap
   is the next step.
3. Two ways to minimise it over k normalised, mutually orthogonal generators:
   * ``gradient`` (the default, the issue's recipe): k generators trained by Adam on the relative loss plus
     regularisers -- (v_i . v_j)^2 between normalised generators (orthogonality), ||v_i||_1 / sqrt(m) (sparsity) --
     from ``restarts`` random starts, the best kept; snapshots of the generators are recorded for the pane;
   * ``spectral`` (the lab's improvement, a named option): the k eigenvectors of C with the smallest eigenvalues --
     the exact minimisers of the loss under orthonormality, in one symmetric eigensolve.
   Either way the generators whose relative loss is not below ``TAU`` are dropped: the method reports the symmetry
   it finds, and none when the loss never falls below the threshold.

The fitted-model route was chosen over a LieGAN discriminator because its loss is a fixed quadratic form once the
model is fitted: convergence can be checked against the exact (spectral) minimum, with no adversarial training.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import torch

from ..errors import LabError

#: a generator is kept when its relative symmetry loss is below this
TAU = 0.005
METHODS = ("gradient", "spectral")


@dataclass(frozen=True)
class FitSettings:
    hidden: int = 128
    layers: int = 3
    steps: int = 1500
    lr: float = 3e-3
    batch: int = 256


def fit(X: np.ndarray, Y: np.ndarray, settings: FitSettings = FitSettings(), seed: int = 0, device="cpu",
        control=None):
    """``(model, scale, losses)``: an MLP fitted to Y / scale on X (float64), and its training losses."""
    from ..control import checkpoint

    g = torch.Generator().manual_seed(int(seed))
    torch.manual_seed(int(seed))
    x = torch.as_tensor(X, dtype=torch.float64, device=device)
    scale = float(np.sqrt(np.mean(np.asarray(Y, dtype=np.float64) ** 2))) or 1.0
    y = torch.as_tensor(Y / scale, dtype=torch.float64, device=device)
    dims = [x.shape[1]] + [settings.hidden] * settings.layers
    layers = []
    for a, b in zip(dims, dims[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.SiLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(dims[-1], y.shape[1])).to(device=device,
                                                                                     dtype=torch.float64)
    opt = torch.optim.Adam(model.parameters(), lr=settings.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, settings.steps)
    losses = []
    n = len(x)
    for step in range(settings.steps):
        checkpoint(control)
        idx = torch.randint(n, (min(settings.batch, n),), generator=g).to(device)
        loss = ((model(x[idx]) - y[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    return model, scale, losses


def symmetry_form(model, X: np.ndarray, output_action: bool, chunk: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """``(C, D)`` (m x m): v^T C v = mean_x |J_f(x) A x - B f(x)|^2 for v = (vec A, vec B) (row-major; B left out when
    ``output_action`` is False), and v^T D v = mean_x (|J_f(x)|_F^2 |A x|^2 + |B f(x)|^2), the size of the same
    flow: by Cauchy-Schwarz v^T C v <= 2 v^T D v, and for an invariant output v^T C v / v^T D v is the mean squared
    cosine between the model's gradient and the flow Ax -- 0 along a symmetry, about 1 / d_in at random."""
    from torch.func import jacrev, vmap

    x_all = torch.as_tensor(X, dtype=torch.float64, device=next(model.parameters()).device)
    d_in = x_all.shape[1]
    C = D = None
    for i in range(0, len(x_all), chunk):
        x = x_all[i:i + chunk]
        with torch.no_grad():
            fx = model(x)
        J = vmap(jacrev(model))(x).detach()  # (n, d_out, d_in)
        MA = torch.einsum("noi,nj->noij", J, x).reshape(len(x), J.shape[1], d_in * d_in)
        jn = (J ** 2).sum((1, 2))  # |J|_F^2 per sample
        # |A x|^2 = vec(A)^T (I (x) x x^T) vec(A)
        xx = torch.einsum("n,ni,nj->ij", jn, x, x)
        DA = torch.kron(torch.eye(d_in, dtype=x.dtype, device=x.device), xx)
        if output_action:
            d_out = fx.shape[1]
            eye = torch.eye(d_out, dtype=x.dtype, device=x.device)
            MB = -torch.einsum("oq,np->noqp", eye, fx).reshape(len(x), d_out, d_out * d_out)
            M = torch.cat([MA, MB], 2)
            DB = torch.kron(eye, torch.einsum("np,nq->pq", fx, fx))
            Dpart = torch.block_diag(DA, DB)
        else:
            M, Dpart = MA, DA
        part = torch.einsum("nom,nok->mk", M, M)
        C = part if C is None else C + part
        D = Dpart if D is None else D + Dpart
    n = len(x_all)
    return (C / n).cpu().numpy(), (D / n).cpu().numpy()


def chance(C: np.ndarray, D: np.ndarray) -> float:
    """The loss of an arbitrary direction: the mean of the generalized eigenvalues of (C, D)."""
    return float(np.mean(scipy.linalg.eigh(C, D, eigvals_only=True)))


def relative_losses(C: np.ndarray, D: np.ndarray, V: np.ndarray, level: float | None = None) -> np.ndarray:
    """Each row of V's Rayleigh quotient v^T C v / v^T D v, relative to ``chance`` (1: no better than an arbitrary
    direction; 0: a symmetry)."""
    V = np.atleast_2d(V)
    q = np.einsum("im,mk,ik->i", V, C, V) / np.einsum("im,mk,ik->i", V, D, V)
    return q / (chance(C, D) if level is None else level)


def ritz(C: np.ndarray, D: np.ndarray, V: np.ndarray) -> np.ndarray:
    """The span of V's rows rotated to the generalized eigenvectors of (C, D) within it (Rayleigh-Ritz): each row
    then has its own loss, lowest first, instead of a mixture of the span's (a sum over an orthonormal frame does not
    see rotations inside its span).  Rows of unit length."""
    Q, _ = np.linalg.qr(np.atleast_2d(V).T)
    w, Y = scipy.linalg.eigh(Q.T @ C @ Q, Q.T @ D @ Q)
    U = (Q @ Y).T
    return U / np.linalg.norm(U, axis=1, keepdims=True)


@dataclass
class Learned:
    vectors: np.ndarray  # (k, m) unit generators (rows), kept ones first, by loss
    losses: np.ndarray  # relative losses of every candidate
    kept: int  # how many are below TAU
    method: str
    history: list = field(default_factory=list)  # gradient: (step, vectors (k, m), losses) snapshots
    restart_losses: list = field(default_factory=list)
    spectrum: np.ndarray | None = None  # spectral: every eigenvalue, relative
    seconds: float = 0.0


def learn_spectral(C: np.ndarray, D: np.ndarray, k: int, tau: float = TAU) -> Learned:
    """The k generalized eigenvectors of (C, D) with the smallest eigenvalues: the exact minimisers."""
    t0 = time.monotonic()
    evals, evecs = scipy.linalg.eigh(C, D)
    level = float(np.mean(evals))
    rel = evals / level
    V = evecs[:, :k].T
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    kept = int(np.sum(rel[:k] < tau))
    return Learned(V, rel[:k], kept, "spectral", spectrum=rel, seconds=time.monotonic() - t0)


def learn_gradient(C: np.ndarray, D: np.ndarray, k: int, steps: int = 2000, lr: float = 0.02, restarts: int = 3,
                   orth: float = 1.0, sparse: float = 0.01, snapshots: int = 40, seed: int = 0, tau: float = TAU,
                   control=None, on_step=None, on_snapshot=None) -> Learned:
    """k generators by Adam on the relative loss (each generator's Rayleigh quotient / chance) + orthogonality +
    sparsity, from ``restarts`` random starts (the lowest total loss kept), then rotated within their span to
    (C, D)'s eigenvectors there (``ritz``); ``on_step(restart, step, loss)`` every step, ``on_snapshot(restart,
    step, U, losses)`` at each of the ``snapshots`` (U: the k unit generators as rows)."""
    from ..control import checkpoint

    t0 = time.monotonic()
    m = C.shape[0]
    level = chance(C, D)
    Ct = torch.as_tensor(C / level, dtype=torch.float64)
    Dt = torch.as_tensor(D, dtype=torch.float64)
    best, restart_losses = None, []
    every = max(steps // snapshots, 1)
    for r in range(restarts):
        g = torch.Generator().manual_seed(int(seed) * 1000 + r)
        V = torch.randn(k, m, generator=g, dtype=torch.float64).requires_grad_(True)
        opt = torch.optim.Adam([V], lr=lr)
        history = []
        for step in range(steps + 1):
            checkpoint(control)
            U = V / V.norm(dim=1, keepdim=True)
            sym = torch.einsum("im,mk,ik->i", U, Ct, U) / torch.einsum("im,mk,ik->i", U, Dt, U)
            G = U @ U.T
            off = (G - torch.diag(torch.diag(G))) ** 2
            loss = sym.sum() + orth * off.sum() / 2 + sparse * U.abs().sum() / math.sqrt(m)
            if step % every == 0 or step == steps:
                history.append((step, U.detach().numpy().copy(), sym.detach().numpy().copy()))
                if on_snapshot:
                    on_snapshot(r, step, history[-1][1], history[-1][2])
            if on_step:
                on_step(r, step, float(loss.detach()))
            if step == steps:
                break
            opt.zero_grad()
            loss.backward()
            opt.step()
        final = float(loss.detach())
        restart_losses.append(final)
        if best is None or final < best[0]:
            best = (final, U.detach().numpy().copy(), history)
    U = ritz(C, D, best[1])
    rel = relative_losses(C, D, U, level)
    order = np.argsort(rel)
    return Learned(U[order], rel[order], int(np.sum(rel < tau)), "gradient", history=best[2],
                   restart_losses=restart_losses, seconds=time.monotonic() - t0)


def split(v: np.ndarray, d_in: int, d_out: int, output_action: bool) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) of a generator vector (B = 0 without an output action)."""
    A = v[:d_in * d_in].reshape(d_in, d_in)
    B = v[d_in * d_in:].reshape(d_out, d_out) if output_action else np.zeros((d_out, d_out))
    return A, B


def truth_vectors(pairs, output_action: bool) -> np.ndarray:
    """The true algebra's (A, B) pairs as rows v = (vec A, vec B)."""
    if not pairs:
        return np.zeros((0, 0))
    return np.stack([np.concatenate([A.ravel(), B.ravel()]) if output_action else A.ravel() for A, B in pairs])


def check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise LabError(f"the number of generators must be a positive integer, got {k!r}")
    return k
