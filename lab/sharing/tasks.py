"""Tasks for learning a parameter-sharing matrix A (Yeh et al.): data, ground-truth partition, closed forms.

Every task writes its weights as θ = (A ⊗ I_d) ψ: K weight entries (or K groups of d entries) each choosing a
shared parameter.  Two lower-level closed forms, both differentiable in A (the hypergradient is autograd
through them):

* ``GaussianTask`` -- samples y ~ N(A_gt ψ_gt, σ² I): ψ_c = Σ_i A_ic ȳ_i / Σ_i A_ic, the exact minimiser of the
  relaxed training loss Σ_i Σ_c A_ic (ȳ_i − ψ_c)² (for a 0/1 A, the least-squares fit of shared means);
* ``LinearTask`` -- linear regression y = Φ θ (convolution, group layers, sum of numbers).  A soft A is read as
  "entry k draws its parameter c with probability A_kc, independently"; the lower level minimises the
  *expected* training loss, ‖y − Φ(A⊗I)ψ‖² + Σ_k,e w_ke Var_ke(ψ) with w_ke = Σ_n Φ²_nke and
  Var_ke = Σ_c A_kc ψ²_ce − (Σ_c A_kc ψ_ce)², a quadratic in ψ with the closed form
  ψ = (MᵀM + Q(A) + εI)⁻¹ Mᵀ y.  For a 0/1 A the variance vanishes and this is plain least squares; for a
  soft A it charges the spread between the parameters an entry mixes, which is what makes sharing
  learnable (plain least squares fits the data exactly with any invertible soft A).  The upper level is the
  same expected loss on the validation split.  The Gaussian closed form above is the special case Φ = I.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from ..errors import LabError
from .partition import canonical, selection_matrix, uniform_partition

RIDGE = 1e-6
WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


@dataclass
class GaussianTask:
    """y ~ N(A_gt ψ_gt, σ² I) in R^K, |D| samples split into train (fraction r) and validation.

    As the reference code's Gaussian data: A_gt drawn uniformly from the partitions of the K entries into exactly
    ``blocks`` blocks, block means 0, 3, 6, … (ψ = 3·arange), one draw of |D| samples of which the first r·|D|
    train and the rest validate (float64 here, float32 there)."""

    K: int
    blocks: int
    samples: int = 100
    split: float = 0.3
    sigma: float = 1.0
    seed: int = 0
    name: str = "gaussian"
    d: int = 1
    gt: np.ndarray = field(init=False)

    def __post_init__(self):
        if not 0 < self.split < 1:
            raise LabError(f"the split (training fraction r) must be between 0 and 1, got {self.split}")
        n_train = int(round(self.split * self.samples))
        if n_train < 1 or n_train >= self.samples:
            raise LabError(f"{self.samples} samples with split {self.split} leave an empty train or validation set")
        rng = np.random.default_rng(self.seed)
        self.gt = uniform_partition(self.K, self.blocks, rng)
        self.psi_gt = 3.0 * np.arange(self.blocks)
        self.theta_gt = self.psi_gt[self.gt]
        Y = self.theta_gt + self.sigma * rng.standard_normal((self.samples, self.K))
        self.train, self.val = Y[:n_train], Y[n_train:]
        self._ybar = torch.as_tensor(self.train.mean(0))
        self._train = torch.as_tensor(self.train)
        self._val = torch.as_tensor(self.val)

    def fit(self, A: torch.Tensor) -> torch.Tensor:
        """ψ*(A) for A of shape (..., K, C)."""
        return (A * self._ybar[:, None]).sum(-2) / A.sum(-2).clamp_min(1e-12)

    def val_loss(self, A: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
        theta = (A @ psi.unsqueeze(-1)).squeeze(-1)  # (..., K)
        return ((theta.unsqueeze(-2) - self._val) ** 2).mean((-1, -2))

    def train_loss(self, A: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
        theta = (A @ psi.unsqueeze(-1)).squeeze(-1)
        return ((theta.unsqueeze(-2) - self._train) ** 2).mean((-1, -2))

    def refit(self, labels) -> np.ndarray:
        """θ̂ = A ψ̂ with ψ̂ the block means over train + validation (a hard partition)."""
        Y = np.concatenate([self.train, self.val]).mean(0)
        labels = canonical(labels)
        means = np.bincount(labels, Y) / np.bincount(labels)
        return means[labels]

    def mse(self, theta_hat) -> float:
        with np.errstate(over="ignore", invalid="ignore"):  # a diverged run's estimate: inf or NaN, no warning
            return float(((np.asarray(theta_hat) - self.theta_gt) ** 2).sum())

    def mse_gap(self, labels) -> float:
        """MSE(θ̂_val) − MSE(θ̂_gt): the learned partition against the true one, both refitted on all of D."""
        return self.mse(self.refit(labels)) - self.mse(self.refit(self.gt))

    def gap_bound(self, alpha: float | None = None) -> float:
        """The poster's upper bound on the MSE gap (holds with probability 1 − α, α < exp(−K/10))."""
        alpha = math.exp(-self.K / 10) if alpha is None else alpha
        r, n = self.split, self.samples
        var = self.sigma * self.sigma  # not sigma ** 2: a float power raises OverflowError, a product gives inf
        return var * ((1 - r) / (r * n) * (self.blocks - 1) - 40 * math.log(alpha) / ((1 - r) * n))


class GaussianStack:
    """Several ``GaussianTask``s of one shape (K, train and validation sizes) as one batch: A of shape
    (T, R, K, C), task t's data in row t (what ``learn_sharing_batch`` optimises: T trials x R restarts in one
    computation, each trial's loss depending only on its own logits)."""

    name = "gaussian"

    def __init__(self, tasks):
        tasks = list(tasks)
        if not tasks:
            raise LabError("no tasks to stack")
        shapes = {(t.K, t.train.shape[0], t.val.shape[0]) for t in tasks}
        if len(shapes) != 1:
            raise LabError(f"tasks of different shapes cannot be stacked: {sorted(shapes)}")
        self.tasks = tasks
        self.K = tasks[0].K
        self._ybar = torch.stack([t._ybar for t in tasks])[:, None, :, None]  # (T, 1, K, 1)
        self._train = torch.stack([t._train for t in tasks])[:, None]  # (T, 1, n, K)
        self._val = torch.stack([t._val for t in tasks])[:, None]

    def fit(self, A: torch.Tensor) -> torch.Tensor:
        return (A * self._ybar).sum(-2) / A.sum(-2).clamp_min(1e-12)

    def _loss(self, A, psi, Y):
        theta = (A @ psi.unsqueeze(-1)).squeeze(-1)  # (T, R, K)
        return ((theta.unsqueeze(-2) - Y) ** 2).mean((-1, -2))

    def val_loss(self, A: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
        return self._loss(A, psi, self._val)

    def train_loss(self, A: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
        return self._loss(A, psi, self._train)


@dataclass
class LinearTask:
    """Linear regression y = Φ θ with θ = (A_gt ⊗ I_d) ψ_gt; Φ given per split as (n, out, K, d) arrays."""

    name: str
    gt: np.ndarray  # ground-truth labels of the K entries
    d: int
    phi_train: np.ndarray
    y_train: np.ndarray
    phi_val: np.ndarray
    y_val: np.ndarray
    phi_test: np.ndarray | None = None
    y_test: np.ndarray | None = None
    info: dict = field(default_factory=dict)

    def __post_init__(self):
        self.K = self.gt.size
        t = lambda a: torch.as_tensor(a, dtype=torch.float64)  # noqa: E731
        self._pt, self._yt = t(self.phi_train), t(self.y_train)
        self._pv, self._yv = t(self.phi_val), t(self.y_val)
        self._wt = (self._pt ** 2).sum((0, 1))  # (K, d)
        self._wv = (self._pv ** 2).sum((0, 1))

    def _M(self, phi, A):
        # phi (n, out, K, d), A (..., K, C) -> (..., n*out, C*d)
        M = torch.einsum("nokd,...kc->...nocd", phi, A)
        return M.reshape(*A.shape[:-2], phi.shape[0] * phi.shape[1], A.shape[-1] * self.d)

    def _Q(self, A: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        """The variance term's matrix over ψ (index c·d + e): Σ_k w_ke (diag(A_k) − A_kᵀ A_k) for each e."""
        C, d = A.shape[-1], self.d
        diag = torch.einsum("ke,...kc->...ce", w, A).reshape(*A.shape[:-2], C * d)
        cross = torch.einsum("ke,...kc,...kf->...cef", w, A, A)  # (..., C, d, C) for f = c'
        eye = torch.eye(d, dtype=A.dtype)
        Q = -torch.einsum("...cef,eg->...cefg", cross, eye).reshape(*A.shape[:-2], C * d, C * d)
        return Q + torch.diag_embed(diag)

    def _variance(self, A: torch.Tensor, psi: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        P = psi.reshape(*psi.shape[:-1], A.shape[-1], self.d)
        mean = torch.einsum("...kc,...ce->...ke", A, P)
        second = torch.einsum("...kc,...ce->...ke", A, P ** 2)
        return ((second - mean ** 2) * w).sum((-1, -2))

    def _solve(self, phi, y, w, A: torch.Tensor) -> torch.Tensor:
        """argmin_ψ of the expected loss on (phi, y): (MᵀM + Q(A) + εI)⁻¹ Mᵀ y (Q = 0 for a 0/1 A)."""
        M = self._M(phi, A)
        G = M.transpose(-1, -2) @ M + self._Q(A, w) + RIDGE * torch.eye(M.shape[-1], dtype=M.dtype)
        return torch.linalg.solve(G, (M.transpose(-1, -2) @ y.reshape(-1)).unsqueeze(-1)).squeeze(-1)

    def fit(self, A: torch.Tensor) -> torch.Tensor:
        return self._solve(self._pt, self._yt, self._wt, A)

    def _expected_loss(self, phi, y, w, A, psi):
        pred = (self._M(phi, A) @ psi.unsqueeze(-1)).squeeze(-1)
        return (((pred - y.reshape(-1)) ** 2).sum(-1) + self._variance(A, psi, w)) / y.numel()

    def val_loss(self, A: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
        return self._expected_loss(self._pv, self._yv, self._wv, A, psi)

    def train_loss(self, A: torch.Tensor, psi: torch.Tensor) -> torch.Tensor:
        return self._expected_loss(self._pt, self._yt, self._wt, A, psi)

    def refit_loss(self, labels) -> float:
        """Snap to ``labels``, refit ψ on train + validation, and return the test MSE (validation if no test)."""
        A = torch.as_tensor(selection_matrix(canonical(labels)))
        phi = torch.cat([self._pt, self._pv])
        psi = self._solve(phi, torch.cat([self._yt, self._yv]), self._wt + self._wv, A)
        phi_e = self.phi_test if self.phi_test is not None else self.phi_val
        y_e = self.y_test if self.y_test is not None else self.y_val
        pred = self._M(torch.as_tensor(phi_e), A) @ psi
        return float(((pred - torch.as_tensor(y_e).reshape(-1)) ** 2).mean())


def _regression_phi(X: np.ndarray, out: int) -> np.ndarray:
    """Φ for y = W x with θ = vec(W) (row-major, W is out x in): Φ[n, o, (o', j), 0] = δ_oo' x[n, j]."""
    n, d_in = X.shape
    phi = np.zeros((n, out, out * d_in, 1))
    for o in range(out):
        phi[:, o, o * d_in:(o + 1) * d_in, 0] = X
    return phi


def conv_task(kernel=(2.0, 1.0), length: int = 3, train: int = 50, val: int = 100, noise: float = 0.0,
              seed: int = 0) -> LinearTask:
    """The poster's running example: y = K x with K the (length − k + 1) x length matrix of the kernel; the
    true sharing is Flatten(K)'s pattern, zeros included as their own shared value."""
    kernel = np.asarray(kernel, dtype=float)
    out = length - len(kernel) + 1
    if out < 1:
        raise LabError(f"a kernel of {len(kernel)} taps does not fit an input of length {length}")
    W = np.zeros((out, length))
    for o in range(out):
        W[o, o:o + len(kernel)] = kernel
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((train + val + 200, length))
    Y = X @ W.T + noise * rng.standard_normal((len(X), out))
    phi = _regression_phi(X, out)
    values = W.ravel()
    gt = canonical(np.unique(values, return_inverse=True)[1])
    s1, s2 = train, train + val
    return LinearTask("conv", gt, 1, phi[:s1], Y[:s1], phi[s1:s2], Y[s1:s2], phi[s2:], Y[s2:],
                      info={"W": W, "kernel": kernel.tolist()})


def group_task(group: str = "Z(4)", rep_in: str = "V", rep_out: str = "V", train: int = 60, val: int = 100,
               noise: float = 0.1, seed: int = 0) -> LinearTask:
    """A_gt is the orbit partition of the equivariant layer ``rep_in >> rep_out`` of a permutation group
    (entries forced to zero form one more block); data y = W x + noise with W a random equivariant layer."""
    from ..groups import parse_group
    from ..reps.parse import parse_rep

    G = parse_group(group)
    if not G.is_signed_permutation:
        raise LabError(f"{G} is not a permutation group: its equivariant layers are not a sharing pattern")
    a, b = parse_rep(rep_in, G), parse_rep(rep_out, G)
    sol = (a >> b).solve()
    if np.any(sol.signs[sol.labels >= 0] < 0):
        raise LabError(f"{G} has sign flips on {rep_in} >> {rep_out}: a selection matrix cannot express −ψ")
    labels = np.where(sol.labels >= 0, sol.labels, sol.rank)
    gt = canonical(labels)
    rng = np.random.default_rng(seed)
    psi = rng.standard_normal(sol.rank + 1)
    psi[sol.rank] = 0.0
    W = psi[labels].reshape(b.size, a.size)
    X = rng.standard_normal((train + val + 200, a.size))
    Y = X @ W.T + noise * rng.standard_normal((len(X), b.size))
    phi = _regression_phi(X, b.size)
    s1, s2 = train, train + val
    return LinearTask("group", gt, 1, phi[:s1], Y[:s1], phi[s1:s2], Y[s1:s2], phi[s2:], Y[s2:],
                      info={"group": str(G), "rep_in": rep_in, "rep_out": rep_out, "W": W})


def group_task_bytes(group: str = "Z(4)", rep_in: str = "V", rep_out: str = "V", train: int = 60, val: int = 100,
                     restarts: int = 0) -> int:
    """Bytes the group task allocates (an upper bound, exact Python ints), from the sizes alone: parsing the group
    and the reps builds nothing large.  Building (``group_task``): the orbit solve of ``rep_in >> rep_out`` (K
    entries), the data X, Y and the regression features Φ, (n, out, K) float64, with the squares the task
    sums over each split.  Learning (``restarts`` > 0, ``learn_sharing``): per restart the logits, A, Adam's two
    moments, the gradient and the autograd graph of the closed form: M = Φ(A ⊗ I) for both splits
    ((n_split·out) x K) and the K x K matrices MᵀM, Q(A), the solve's G (each float64); calibrated on
    Z(4)*Z(4) V>>V and C4Grid(3) V>>V with peak RSS in a subprocess."""
    from ..groups import parse_group
    from ..reps.parse import parse_rep
    from ..solvers import memory

    G = parse_group(group)
    a, b = parse_rep(rep_in, G), parse_rep(rep_out, G)
    K, out, n = a.size * b.size, b.size, train + val + 200
    signed = bool(G.num_discrete) and bool(np.any(G.perms[1] < 0))
    solve = memory.orbit_bytes(K, max(G.num_discrete, 1), signed)
    data = 8 * n * (2 * a.size + 3 * out) + 8 * K * 6
    phi = 8 * n * out * K + 8 * max(train, val) * out * K
    build = solve + data + phi
    if restarts <= 0:
        return build
    learn = restarts * (8 * 24 * K * K + 8 * 6 * (train + val) * out * K)
    return build + learn


def number_words(count: int, positions: int, rng, min_length: int | None = None) -> tuple[list[str], np.ndarray]:
    """Sequences of number words ("one, five") and their digit arrays (0 = no word): ``positions`` numbers each
    (the reference code's data: every sequence fills its positions), or min_length … positions of them."""
    low = positions if min_length is None else min_length
    texts, digits = [], np.zeros((count, positions), dtype=np.int64)
    for i in range(count):
        n = rng.integers(low, positions + 1)
        d = rng.integers(1, 10, n)
        digits[i, :n] = d
        texts.append(", ".join(WORDS[k - 1] for k in d))
    return texts, digits


def parse_number_words(text: str, positions: int) -> np.ndarray:
    """'one, five' -> [1, 5, 0, ...] (a real tokenizer: unknown words are a LabError)."""
    out = np.zeros(positions, dtype=np.int64)
    words = [w.strip().lower() for w in text.split(",") if w.strip()]
    if len(words) > positions:
        raise LabError(f"{len(words)} numbers do not fit {positions} positions")
    for i, w in enumerate(words):
        if w not in WORDS:
            raise LabError(f"unknown number word {w!r}: use one … nine")
        out[i] = WORDS.index(w) + 1
    return out


def sum_task(positions: int = 5, train: int = 100, val: int = 150, test: int = 1000, label_noise: float = 0.5,
             seed: int = 0, min_length: int | None = None) -> LinearTask:
    """Regress the sum of a sequence of number words.  Each position p has a weight vector over the nine
    words; A shares these vectors between positions, and permutation invariance is one block.

    Data as the reference code's: ``positions`` digits 1–9 per sequence (``min_length``: shorter ones too, padded),
    labels the sum plus uniform noise in ±``label_noise``, 100 train / 150 validation, a noiseless test set.  The
    model is the lab's: a linear read-out per position (one weight per word), shared by A, with the expected-loss
    closed form of ``LinearTask`` as the lower level; the reference trains embedding → per-position layer mixed by
    A → ReLU → sum → linear with an L1 loss, a Neumann-series implicit hypergradient and early stopping."""
    rng = np.random.default_rng(seed)
    sets = []
    for count, noise in ((train, label_noise), (val, label_noise), (test, 0.0)):
        texts, _ = number_words(count, positions, rng, min_length)
        digits = np.stack([parse_number_words(t, positions) for t in texts])
        onehot = np.zeros((count, 1, positions, 9))
        n_idx, p_idx = np.nonzero(digits)
        onehot[n_idx, 0, p_idx, digits[n_idx, p_idx] - 1] = 1
        y = digits.sum(1).astype(float) + rng.uniform(-noise, noise, count)
        sets.append((onehot, y[:, None]))
    (pt, yt), (pv, yv), (pe, ye) = sets
    return LinearTask("sum", np.zeros(positions, dtype=np.int64), 9, pt, yt, pv, yv, pe, ye,
                      info={"positions": positions})


def weight_shape(task) -> tuple[int, int]:
    """The shape of the weight matrix W whose K entries a task's sharing partitions (for drawing W)."""
    if "W" in getattr(task, "info", {}):
        return tuple(task.info["W"].shape)
    return (task.K, 1) if task.name == "sum" else (1, task.K)
