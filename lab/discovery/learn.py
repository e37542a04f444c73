"""Learning Lie-algebra generators from data through the Lie derivative of a fitted model (issue 33).

1. ``fit`` -- an MLP with SiLU (smooth, so its Jacobian means something) regressed on (x, y); the targets and the
   inputs are each divided by one global scale (no per-coordinate scaling or centring: either would break a
   symmetry).
2. The symmetry loss of a generator pair v = (A, B) -- A acting on the inputs, B on the outputs (B = 0 for a scalar,
   invariant output) -- is the mean squared Lie derivative of the fitted model along it,
   ``E_x |J_f(x) A x - B f(x)|^2``: zero exactly when f is equivariant to first order along (A, B).  It is a
   quadratic form v^T C v (``symmetry_form``), divided by the size of the same flow v^T D v (a Rayleigh quotient:
   for an invariant output the mean squared cosine between the model's gradient and the flow) and reported
   *relative* to chance (the mean generalized eigenvalue), so that 1 means "no better than an arbitrary direction"
   and the threshold ``TAU`` has one meaning on every task.  Measured (the family's fits, L-BFGS): the rotated
   plane's symmetry 0.0005 at 1 000 points, the no-symmetry task's best direction 0.012, O(5)'s ten at
   0.0001-0.0003 at 3 000 points with its partial symmetries (rotating x1 or x2 alone, broken only by the small
   cosine term: 0.0017 for the true function) from 0.002 -- a gap of six.  With Adam's fit (relative test MSE 1.2e-3
   against L-BFGS's 1.3e-4) the same O(5) data shows no gap at all.
3. Two ways to minimise it over k normalised, mutually orthogonal generators:
   * ``gradient`` (the default, the issue's recipe): k generators trained by L-BFGS on the relative loss plus
     regularisers -- (v_i . v_j)^2 between normalised generators (orthogonality), ||v_i||_1 / sqrt(m) (sparsity) --
     from ``restarts`` random starts, the best kept; snapshots of the generators are recorded for the pane;
   * ``spectral`` (the lab's improvement, a named option): the k eigenvectors of C with the smallest eigenvalues --
     the exact minimisers of the loss under orthonormality, in one symmetric eigensolve.
   Either way the generators whose relative loss is not below ``TAU`` are dropped: the method reports the symmetry
   it finds, and none when the loss never falls below the threshold.  Below it, the count is cut at the spectrum's
   gap (``choose_count``): the k candidates' losses and the lowest loss of a direction outside their span, cut where
   one loss is at least ``GAP`` times the one before -- a fixed threshold alone cannot do it, since O(5)'s partial
   symmetries (0.0017 for the true function) sit below any threshold that the fitted so(5) (0.0001-0.0003) passes.

The fitted-model route was chosen over a LieGAN discriminator by measurement (``bench/discovery_liegan.py``: LieGAN as
its authors' code runs it, in the same generator space, on the same samples, six seeds): on the rotated plane
(4 000 points) LieGAN came within 5 degrees at two seeds of six (the others 35-73 degrees), 40 s each; this method at
all six (0.03-1.9 degrees), 11 s each.  Even with the samples drawn from a distribution that shares the symmetry --
a discriminator compares distributions of (x, y), so it finds the joint distribution's symmetry, not the
function's -- LieGAN missed at one seed of six (80 degrees).  On O(5) (ten generators in gl(10)) it found nothing
(88 degrees, two seeds) where this method kept so(5)'s ten within 4 degrees.  A discriminator also has no "none":
it returns k generators whatever the data.  And once the model is fitted this loss is a fixed quadratic form, so
convergence is checked against its exact (spectral) minimum, with no adversarial training.
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
#: the count kept is cut at a gap when the next loss is at least this many times the last kept one
GAP = 3.0
METHODS = ("gradient", "spectral")


#: how the model is fitted: full-batch L-BFGS (the default: measured on O(5) at 3 000 points, relative test MSE
#: 1.3e-4 against Adam's 1.2e-3 in comparable time, and only then does the gap between so(5) and the partial
#: symmetries open) or minibatch Adam
OPTIMIZERS = ("lbfgs", "adam")


@dataclass(frozen=True)
class FitSettings:
    hidden: int = 128
    layers: int = 3
    steps: int = 1500  # L-BFGS iterations, or Adam steps
    lr: float = 3e-3  # Adam's
    batch: int = 256  # Adam's
    optimizer: str = "lbfgs"


def _lbfgs(params, steps: int, max_eval: int | None = None):
    """L-BFGS with a strong-Wolfe line search, ``steps`` iterations; the tolerances are set below float64's noise so
    that the iteration budget, not an early stop, decides (the fit, the gradient method and the closure step)."""
    return torch.optim.LBFGS(params, lr=1.0, max_iter=steps,
                             max_eval=int(steps * 1.25) + 1 if max_eval is None else max_eval, history_size=50,
                             line_search_fn="strong_wolfe", tolerance_grad=1e-12, tolerance_change=1e-15)


def _quotients(U, C, D):
    """Each row of U's Rayleigh quotient u^T C u / u^T D u (torch; ``relative_losses`` is the numpy one)."""
    return torch.einsum("im,mk,ik->i", U, C, U) / torch.einsum("im,mk,ik->i", U, D, U)


class _InputScaled(torch.nn.Module):
    """``net(x / s)``: the MLP sees inputs of unit size while the model stays a function of the data's x.  One global
    s, like the targets' scale: it commutes with every linear generator (J_f(x) A x is the same along A whatever s),
    where a per-coordinate scaling or centring would not.  Measured on the Lorentz task (momenta ~ N(0, 1) / 4), 16 000
    samples: relative test MSE 0.0017 and seven symmetric directions below 0.0015 of chance, a gap of 7.7 to the next;
    unscaled, 8 000 samples fit to 0.05 and no direction stood out."""

    def __init__(self, net: torch.nn.Module, s: float):
        super().__init__()
        self.net = net
        self.register_buffer("s", torch.tensor(float(s), dtype=torch.float64))

    def forward(self, x):
        return self.net(x / self.s)


def _model(X: np.ndarray, Y: np.ndarray, settings: FitSettings, seed: int, device):
    """The MLP ``fit`` trains, at its seeded initialisation (``torch.manual_seed(seed)``, as ``fit`` leaves it)."""
    torch.manual_seed(int(seed))
    dims = [X.shape[1]] + [settings.hidden] * settings.layers
    layers = []
    for a, b in zip(dims, dims[1:]):
        layers += [torch.nn.Linear(a, b), torch.nn.SiLU()]
    net = torch.nn.Sequential(*layers, torch.nn.Linear(dims[-1], Y.shape[1]))
    return _InputScaled(net, float(np.sqrt(np.mean(np.asarray(X, dtype=np.float64) ** 2))) or 1.0).to(
        device=device, dtype=torch.float64)


def fit(X: np.ndarray, Y: np.ndarray, settings: FitSettings = FitSettings(), seed: int = 0, device="cpu",
        control=None, on_step=None):
    """``(model, scale, losses)``: an MLP fitted to Y / scale on X (float64; it divides X by one global scale itself,
    ``_InputScaled``), and its training losses (one per Adam step or L-BFGS function evaluation); ``on_step(step,
    loss)`` as it goes.

    With ``LAB_FIT_CACHE`` set (``lab.fitcache``: the test suite sets it) a fit of the same X, Y, settings, seed and
    device made by another process of the session is read back instead of computed again; ``on_step`` then receives
    its losses in order, and the global torch seed is left as a fresh fit leaves it."""
    from .. import fitcache

    X, Y = np.asarray(X), np.asarray(Y)
    if settings.optimizer not in OPTIMIZERS:
        raise LabError(f"unknown optimizer {settings.optimizer!r}: choose one of {', '.join(OPTIMIZERS)}")
    fresh = []

    def compute():
        fresh.append(True)
        return _fit(X, Y, settings, seed, device, control, on_step)

    def dump(out):
        model, scale, losses = out
        return {"state": {k: v.detach().cpu() for k, v in model.state_dict().items()}, "scale": float(scale),
                "losses": [float(v) for v in losses]}

    def load(state):
        model = _model(X, Y, settings, seed, device)
        model.load_state_dict(state["state"])
        return model, state["scale"], list(state["losses"])

    model, scale, losses = fitcache.cached("discovery-fit", (X, Y, settings, int(seed), str(torch.device(device))),
                                           compute, dump, load)
    if not fresh and on_step:  # read back: its progress, as the fit reported it
        for step, loss in enumerate(losses, 1):
            on_step(step, loss)
    return model, scale, losses


def _fit(X, Y, settings: FitSettings, seed: int, device, control, on_step):
    from ..control import checkpoint

    g = torch.Generator().manual_seed(int(seed))
    x = torch.as_tensor(X, dtype=torch.float64, device=device)
    scale = float(np.sqrt(np.mean(np.asarray(Y, dtype=np.float64) ** 2))) or 1.0
    y = torch.as_tensor(Y / scale, dtype=torch.float64, device=device)
    model = _model(X, Y, settings, seed, device)
    losses = []
    n = len(x)
    if settings.optimizer == "lbfgs":
        # full batch (the stop is reported by the losses' length)
        opt = _lbfgs(model.parameters(), settings.steps)

        def closure():
            checkpoint(control)
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            losses.append(float(loss.detach()))
            if on_step:
                on_step(len(losses), losses[-1])
            return loss

        opt.step(closure)
        return model, scale, losses
    opt = torch.optim.Adam(model.parameters(), lr=settings.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, settings.steps)
    for step in range(settings.steps):
        checkpoint(control)
        idx = torch.randint(n, (min(settings.batch, n),), generator=g).to(device)
        loss = ((model(x[idx]) - y[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
        if on_step:
            on_step(step + 1, losses[-1])
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
    next_loss: float | None = None  # the lowest loss of a direction outside the k candidates' span
    gap_ratio: float | None = None  # the loss after the last kept over the last kept's (None when none is kept)


def next_outside(C: np.ndarray, D: np.ndarray, V: np.ndarray, level: float) -> float | None:
    """The lowest relative loss of a direction orthogonal to V's rows (None when they fill the space): what the
    k-th candidate is measured against when the count is chosen."""
    m = C.shape[0]
    if len(V) >= m:
        return None
    Q, _ = np.linalg.qr(np.atleast_2d(V).T, mode="complete")
    P = Q[:, len(V):]
    return float(scipy.linalg.eigh(P.T @ C @ P, P.T @ D @ P, eigvals_only=True, subset_by_index=[0, 0])[0] / level)


def choose_count(losses, next_loss: float | None, tau: float = TAU, gap: float = GAP) -> tuple[int, float | None]:
    """``(kept, ratio)``: how many of the candidates (``losses`` ascending, then ``next_loss`` outside them) are
    kept.  Only those below ``tau`` may be; among those, the cut goes at the largest ratio between consecutive losses
    when it is at least ``gap`` (a symmetry algebra's generators sit together at the fit's noise level and the
    broken directions above them); without such a gap, every candidate below ``tau`` is kept and the ratio reported
    says the count is not sharp.  The ratio is the loss after the cut over the last kept (None when none is kept or
    nothing follows)."""
    seq = list(np.asarray(losses, dtype=float)) + ([next_loss] if next_loss is not None else [])
    below = int(np.sum(np.asarray(losses) < tau))
    if below == 0:
        return 0, None
    ratios = [seq[i + 1] / max(seq[i], 1e-300) for i in range(below) if i + 1 < len(seq)]
    if not ratios:
        return below, None
    best = int(np.argmax(ratios))
    if ratios[best] >= gap:
        return best + 1, float(ratios[best])
    return below, (float(ratios[below - 1]) if below - 1 < len(ratios) else None)


def learn_spectral(C: np.ndarray, D: np.ndarray, k: int, tau: float = TAU) -> Learned:
    """The k generalized eigenvectors of (C, D) with the smallest eigenvalues: the exact minimisers."""
    t0 = time.monotonic()
    evals, evecs = scipy.linalg.eigh(C, D)
    level = float(np.mean(evals))
    rel = evals / level
    V = evecs[:, :k].T
    V = V / np.linalg.norm(V, axis=1, keepdims=True)
    nxt = float(rel[k]) if k < len(rel) else None
    kept, ratio = choose_count(rel[:k], nxt, tau)
    return Learned(V, rel[:k], kept, "spectral", spectrum=rel, seconds=time.monotonic() - t0, next_loss=nxt,
                   gap_ratio=ratio)


def learn_gradient(C: np.ndarray, D: np.ndarray, k: int, steps: int = 500, lr: float = 0.02, restarts: int = 3,
                   orth: float = 1.0, sparse: float = 1e-3, snapshots: int = 40, seed: int = 0, tau: float = TAU,
                   optimizer: str = "lbfgs", control=None, on_step=None, on_snapshot=None) -> Learned:
    """k generators minimising the relative loss (each generator's Rayleigh quotient / chance) + ``orth`` x the
    squared overlaps + ``sparse`` x the l1 norms / sqrt(m), from ``restarts`` random starts (the lowest total loss
    kept), then rotated within their span to (C, D)'s eigenvectors there (``ritz``).  ``optimizer``: L-BFGS with a
    strong-Wolfe line search (``steps`` iterations; the default) or Adam (``steps`` steps at ``lr``, cosine-decayed).
    Measured on O(5)'s form (m = 100, k = 12): L-BFGS reaches the exact minimum (the ten lowest eigenvalues,
    0.0001-0.0003) in 500 iterations, about a second; Adam after 3 000 steps still sits at 0.001-0.004, 88 degrees
    from so(5).  The sparsity weight must stay below the gap it is not to blur: at 0.01 (its l1 term up to 0.01 a
    generator, fifty times so(5)'s losses) it pulled a tenth generator out of the algebra; at 1e-3 it costs nothing.
    ``on_step(restart, step, loss)`` at every evaluation, ``on_snapshot(restart, step, U, losses)`` at each of the
    ``snapshots`` (U: the k unit generators as rows)."""
    from ..control import checkpoint

    if optimizer not in OPTIMIZERS:
        raise LabError(f"unknown optimizer {optimizer!r}: choose one of {', '.join(OPTIMIZERS)}")
    t0 = time.monotonic()
    m = C.shape[0]
    level = chance(C, D)
    Ct = torch.as_tensor(C / level, dtype=torch.float64)
    Dt = torch.as_tensor(D, dtype=torch.float64)
    best, restart_losses = None, []
    every = max(steps // snapshots, 1)

    def objective(V):
        U = V / V.norm(dim=1, keepdim=True)
        sym = _quotients(U, Ct, Dt)
        G = U @ U.T
        off = (G - torch.diag(torch.diag(G))) ** 2
        return sym.sum() + orth * off.sum() / 2 + sparse * U.abs().sum() / math.sqrt(m), U, sym

    for r in range(restarts):
        g = torch.Generator().manual_seed(int(seed) * 1000 + r)
        V = torch.randn(k, m, generator=g, dtype=torch.float64).requires_grad_(True)
        history, count = [], [0]

        def record(loss, U, sym, last=False):
            step = count[0]
            if step % every == 0 or last:
                history.append((step, U.detach().numpy().copy(), sym.detach().numpy().copy()))
                if on_snapshot:
                    on_snapshot(r, step, history[-1][1], history[-1][2])
            if on_step:
                on_step(r, min(step, steps), float(loss.detach()))
            count[0] += 1

        if optimizer == "lbfgs":
            opt = _lbfgs([V], steps)

            def closure():
                checkpoint(control)
                opt.zero_grad()
                loss, U, sym = objective(V)
                record(loss, U, sym)
                loss.backward()
                return loss

            opt.step(closure)
        else:
            opt = torch.optim.Adam([V], lr=lr)
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
            for _ in range(steps):
                checkpoint(control)
                loss, U, sym = objective(V)
                record(loss, U, sym)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
        with torch.no_grad():
            loss, U, sym = objective(V)
        record(loss, U, sym, last=True)
        final = float(loss)
        restart_losses.append(final)
        if best is None or final < best[0]:
            best = (final, U.numpy().copy(), history)
    U = ritz(C, D, best[1])
    rel = relative_losses(C, D, U, level)
    order = np.argsort(rel)
    nxt = next_outside(C, D, U, level)
    kept, ratio = choose_count(rel[order], nxt, tau)
    return Learned(U[order], rel[order], kept, "gradient", history=best[2], restart_losses=restart_losses,
                   seconds=time.monotonic() - t0, next_loss=nxt, gap_ratio=ratio)


def refine_closure(C: np.ndarray, D: np.ndarray, V: np.ndarray, d_in: int, d_out: int, output_action: bool,
                   weight: float = 0.1, steps: int = 300, control=None) -> np.ndarray:
    """The lab's improvement (a named option, off by default): the kept span moved to a nearby one that closes under
    the bracket, by L-BFGS on  sum_i loss(U_i) + ``weight`` x sum_{i<j} |(1 - P_U) [U_i, U_j]|^2  over orthonormal
    frames U (rows; a pair (A, B) brackets blockwise, ([A1, A2], [B1, B2])), started at V.  A Lie algebra's span is
    closed; errors of the fit move the learned span off the closed ones in most of the Grassmannian's directions
    (Gr(10, 100): 900 of them, against 86 for so(5)'s conjugates in gl(10)), and the closure term removes those.
    Measured on O(5)'s form at 3 000 points: 6.6 -> 2.0 degrees from so(5), the closure residual (then the worst
    pair's) 0.24 -> 0.01, the symmetry loss up by 7 %.  Returns unit rows, rotated within their span by ``ritz``."""
    from ..control import checkpoint

    V = np.atleast_2d(V)
    if len(V) < 2 or weight <= 0:
        return V
    level = chance(C, D)
    Ct = torch.as_tensor(C / level, dtype=torch.float64)
    Dt = torch.as_tensor(D, dtype=torch.float64)
    n_a = d_in * d_in
    W = torch.as_tensor(V.copy(), dtype=torch.float64).requires_grad_(True)

    def brackets(U):
        A = U[:, :n_a].reshape(-1, d_in, d_in)
        out = torch.einsum("iab,jbc->ijac", A, A)
        out = (out - out.transpose(0, 1)).reshape(len(U), len(U), n_a)
        if output_action:
            B = U[:, n_a:].reshape(-1, d_out, d_out)
            ob = torch.einsum("iab,jbc->ijac", B, B)
            out = torch.cat([out, (ob - ob.transpose(0, 1)).reshape(len(U), len(U), -1)], 2)
        return out.reshape(-1, U.shape[1])

    def objective():
        Q, _ = torch.linalg.qr(W.T)
        U = Q.T
        sym = _quotients(U, Ct, Dt)
        br = brackets(U)
        res = br - (br @ Q) @ Q.T
        return sym.sum() + weight * (res ** 2).sum() / 2

    opt = _lbfgs([W], steps, max_eval=steps * 5 // 4)

    def closure():
        checkpoint(control)
        opt.zero_grad()
        loss = objective()
        loss.backward()
        return loss

    opt.step(closure)
    with torch.no_grad():
        U = torch.linalg.qr(W.T)[0].T.numpy()
    return ritz(C, D, U)


def split(v: np.ndarray, d_in: int, d_out: int, output_action: bool) -> tuple[np.ndarray, np.ndarray]:
    """(A, B) of a generator vector (B = 0 without an output action)."""
    A = v[:d_in * d_in].reshape(d_in, d_in)
    B = v[d_in * d_in:].reshape(d_out, d_out) if output_action else np.zeros((d_out, d_out))
    return A, B


def output_range(Y: np.ndarray, rel: float = 1e-9) -> np.ndarray:
    """The orthogonal projector (d_out x d_out) onto the span of the outputs' values Y (n, d_out): singular values
    above ``rel`` x the largest.  The inertia task's outputs are symmetric matrices: a 6-dimensional span of R^9."""
    _, s, Vt = np.linalg.svd(np.asarray(Y, dtype=np.float64), full_matrices=False)
    R = Vt[s > rel * s.max()]
    return R.T @ R


def quotient(V: np.ndarray, d_in: int, d_out: int, P: np.ndarray | None) -> np.ndarray:
    """V's rows (vec A, vec B) with B restricted to the outputs' span: (A, B P).  A generator (0, B) with B P = 0 acts
    only on values the function never takes: the data cannot see it, so a learned B there is arbitrary, and angles to
    the truth are measured modulo such generators (the quotient).  ``P`` None (no output action): V unchanged."""
    V = np.atleast_2d(V)
    if P is None or not V.size:
        return V
    B = V[:, d_in * d_in:].reshape(len(V), d_out, d_out) @ P
    return np.concatenate([V[:, :d_in * d_in], B.reshape(len(V), -1)], 1)


def quotient_basis(d_in: int, d_out: int, P: np.ndarray) -> np.ndarray:
    """Orthonormal columns (m x m') spanning the quotient's representatives {(A, B P)}: every A, and B's rows in the
    outputs' span (row-major vec(B) = the rows one after another).  The generators are searched there: outside it
    the form's D is near zero (B f = 0 for every value f), its condition number measured 8e8 on inertia against 150
    inside, and the gradient method then stalled (9 of 14 at 1 500 L-BFGS iterations; 14, at the exact losses,
    inside)."""
    w, V = np.linalg.eigh(P)
    R = V[:, w > 0.5]  # P is a projector: eigenvalues 0 or 1
    Q = np.zeros((d_in * d_in + d_out * d_out, d_in * d_in + d_out * R.shape[1]))
    Q[:d_in * d_in, :d_in * d_in] = np.eye(d_in * d_in)
    Q[d_in * d_in:, d_in * d_in:] = np.kron(np.eye(d_out), R)
    return Q


def truth_vectors(pairs, output_action: bool) -> np.ndarray:
    """The true algebra's (A, B) pairs as rows v = (vec A, vec B)."""
    if not pairs:
        return np.zeros((0, 0))
    return np.stack([np.concatenate([A.ravel(), B.ravel()]) if output_action else A.ravel() for A, B in pairs])


def check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise LabError(f"the number of generators must be a positive integer, got {k!r}")
    return k
