"""The four experiments of the EMLP chapter (thesis 2.7, appendix A.1.10) as plain, seeded data generators.

==============  ==================  ================  ==========================================================
name            rep_in -> rep_out   data's symmetry   target
==============  ==================  ================  ==========================================================
``o5``          2*V -> Scalar       O(5)              sin|x1| - |x2|^3/2 + x1.x2/(|x1||x2|), x ~ N(0, I_10)
``inertia``     5*Scalar + 5*V      O(3)              I = sum_i m_i (|x_i|^2 Id - x_i x_i^T), flattened row-major
                -> T(2)                               (the lab's T(2) layout); m_i = softplus(N(0,1)), x_i ~ N(0, I_3)
``scattering``  4*V -> Scalar       O13()             e-mu -> e-mu matrix element from four four-momenta ~ N(0,1)/4
``pendulum``    4*V -> 4*V          O2eR3()           the double spring pendulum (``lab.data.pendulum``)
==============  ==================  ================  ==========================================================

Every task has ``make(n, seed=0, dtype=float32) -> (X, Y)`` with X (n, d_in), Y (n, d_out); the same seed gives the
same data.  ``cost(n)`` (bytes, exact integers) is checked against the lab's memory limit before anything is
allocated.  ``rep_in``/``rep_out`` are texts of the lab's rep language and ``group``/``groups`` group texts:
``task.reps()`` binds them (``parse_rep(rep_in, group)``).  The layouts are the lab's: ``5*Scalar + 5*V`` is the 5
masses then the 5 positions (x, y, z each), ``4*V`` four consecutive 4-vectors (t, x, y, z).  The regression
targets are computed in float64 (``target(X)``) and cast to ``dtype``.

The scattering target is the thesis's formula (A.1.10), metric eta = diag(1, -1, -1, -1) (the lab's Lorentz
groups preserve diag(-1, 1, 1, 1) = -eta: the same group)::

    y = 4 [p^(mu p~^nu) - (p.p~ - p.p) eta^{mu nu}] [q_(mu q~_nu) - (q.q~ - q.q) eta_{mu nu}]

with inputs ``X = (q, p, q~, p~)`` (electron in, muon in, electron out, muon out: the original's (p1, p2, p3, p4),
brackets pairing 1 with 3 and 2 with 4) and a^(mu b^nu) = a^mu b^nu + a^nu b^mu, the symmetrisation of Martin
(2012) that the thesis cites (the standard e-mu lepton tensors).  The original code (``emlp/datasets.py``) does
not symmetrise (``a^mu b^nu`` alone): a different, also Lorentz-invariant, target.  ``SCATTERING_ORIGINAL``
(variant ``"original"``) reproduces it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import LabError
from .sizes import check_bytes, check_count, check_dtype
from .pendulum import DoubleSpringPendulum

ETA = np.diag([1.0, -1.0, -1.0, -1.0])  # the thesis's Minkowski metric (time first)


# ------------------------------------------------------------------------------------------- targets (float64)
def o5_target(X: np.ndarray) -> np.ndarray:
    """f(x1, x2) = sin|x1| - |x2|^3/2 + x1.x2/(|x1||x2|) for X = (x1, x2) (n, 10) -> (n, 1)."""
    X = np.asarray(X, dtype=np.float64)
    x1, x2 = X[:, :5], X[:, 5:10]
    n1, n2 = np.linalg.norm(x1, axis=1), np.linalg.norm(x2, axis=1)
    return (np.sin(n1) - 0.5 * n2 ** 3 + (x1 * x2).sum(1) / (n1 * n2))[:, None]


def o5_inputs(n: int, rng) -> np.ndarray:
    """x1, x2 ~ N(0, I_5): (n, 10)."""
    return rng.standard_normal((n, 10))


def inertia_target(X: np.ndarray, k: int = 5) -> np.ndarray:
    """The inertia matrix sum_i m_i (|x_i|^2 Id - x_i x_i^T) of X = (m_1..m_k, x_1..x_k) (n, 4k) -> (n, 9) row-major."""
    X = np.asarray(X, dtype=np.float64)
    m, r = X[:, :k], X[:, k:4 * k].reshape(-1, k, 3)
    r2 = (r ** 2).sum(-1)
    I = (m[:, :, None, None] * (r2[:, :, None, None] * np.eye(3) - r[:, :, :, None] * r[:, :, None, :])).sum(1)
    return I.reshape(-1, 9)


def inertia_inputs(n: int, rng, k: int = 5) -> np.ndarray:
    """Masses softplus(N(0, 1)) (the first k columns), then positions x_i ~ N(0, I_3): (n, 4k)."""
    X = rng.standard_normal((n, 4 * k))
    X[:, :k] = np.logaddexp(0.0, X[:, :k])  # softplus, without overflow
    return X


def minkowski(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a.b = a^T eta b over the last axis (eta = diag(1, -1, -1, -1))."""
    return a[..., 0] * b[..., 0] - (a[..., 1:] * b[..., 1:]).sum(-1)


def scattering_target(X: np.ndarray, variant: str = "thesis") -> np.ndarray:
    """|M|^2 of e-mu -> e-mu from X = (q, p, q~, p~) (n, 16) -> (n, 1), by contracting the two lepton tensors.

    ``variant="thesis"``: symmetrised a^(mu b^nu) = a^mu b^nu + a^nu b^mu; ``"original"``: a^mu b^nu (the EMLP code).
    """
    if variant not in ("thesis", "original"):
        raise LabError(f"unknown scattering variant {variant!r}: thesis or original")
    P = np.asarray(X, dtype=np.float64).reshape(-1, 4, 4)
    q, p, qt, pt = P[:, 0], P[:, 1], P[:, 2], P[:, 3]

    def outer(a, b):
        o = a[:, :, None] * b[:, None, :]
        return o + np.swapaxes(o, 1, 2) if variant == "thesis" else o

    # electron tensor with upper indices, muon tensor with lower indices (vectors lowered by eta)
    L_e = outer(q, qt) - (minkowski(q, qt) - minkowski(q, q))[:, None, None] * ETA
    L_mu = outer(p @ ETA, pt @ ETA) - (minkowski(p, pt) - minkowski(p, p))[:, None, None] * ETA
    return 4.0 * (L_e * L_mu).sum((1, 2))[:, None]


def scattering_inputs(n: int, rng) -> np.ndarray:
    """Four four-momenta with entries ~ N(0, 1)/4 (the original's): (n, 16)."""
    return rng.standard_normal((n, 16)) / 4


# ------------------------------------------------------------------------------------------- tasks
@dataclass(frozen=True)
class RegressionTask:
    """A regression task: seeded inputs, an exact target, the declared representations and groups.

    ``group`` is the symmetry the data has; ``groups`` the groups the thesis builds EMLPs with (Fig. 2.5).
    """

    name: str
    rep_in: str
    rep_out: str
    group: str
    groups: tuple
    d_in: int
    d_out: int
    inputs: Callable = field(compare=False, repr=False)  # (n, rng) -> float64 (n, d_in)
    target: Callable = field(compare=False, repr=False)  # float64 (n, d_in) -> float64 (n, d_out)
    default_n: int = 1000
    description: str = field(default="", compare=False)

    def cost(self, n: int) -> int:
        """Bytes ``make(n)`` allocates at most (exact integers, nothing built): float64 inputs, target and the
        target's intermediates (the widest is scattering's two n x 4 x 4 tensors and the inertia's n x 5 x 3 x 3
        terms: at most 64 numbers a sample), and the copies handed back."""
        n = check_count(n, "the number of samples")
        return 8 * n * (2 * (self.d_in + self.d_out) + 64)

    def check(self, n: int) -> int:
        """``n`` when ``make(n)`` is within the lab's memory limit (``MemoryLimitError`` otherwise)."""
        n = check_count(n, "the number of samples")
        check_bytes(f"{n:,} samples of the {self.name} task", self.cost(n))
        return n

    def make(self, n: int | None = None, seed: int = 0, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
        """``(X, Y)``: ``n`` seeded samples, X (n, d_in) and Y (n, d_out) of ``dtype`` (float32 or float64)."""
        dtype = check_dtype(dtype)
        n = self.check(self.default_n if n is None else n)
        X = self.inputs(n, np.random.default_rng(seed))
        return X.astype(dtype), self.target(X).astype(dtype)

    def reps(self, group=None):
        """``(rep_in, rep_out)`` bound to ``group`` (a Group or group text; default ``self.group``)."""
        return task_reps(self, group)

    def symmetry_group(self, text: str | None = None):
        """The group ``text`` (default ``self.group``) as a lab ``Group``."""
        return task_group(text or self.group)


O5 = RegressionTask(
    "o5", rep_in="2*V", rep_out="Scalar", group="O(5)", groups=("SO(5)", "O(5)"), d_in=10, d_out=1,
    inputs=o5_inputs, target=o5_target,
    description="O(5)-invariant regression 2T1 -> T0: sin|x1| - |x2|^3/2 + x1.x2/(|x1||x2|)")

INERTIA = RegressionTask(
    "inertia", rep_in="5*Scalar+5*V", rep_out="T(2)", group="O(3)", groups=("SO(3)", "O(3)"), d_in=20, d_out=9,
    inputs=inertia_inputs, target=inertia_target,
    description="O(3)-equivariant moment of inertia of 5 point masses 5T0+5T1 -> T2")

SCATTERING = RegressionTask(
    "scattering", rep_in="4*V", rep_out="Scalar", group="O13()", groups=("SO13p()", "SO13()", "O13()"),
    d_in=16, d_out=1, inputs=scattering_inputs, target=scattering_target,
    description="Lorentz-invariant e-mu -> e-mu scattering matrix element 4T(1,0) -> T(0,0)")

SCATTERING_ORIGINAL = replace(
    SCATTERING, name="scattering-original", target=lambda X: scattering_target(X, "original"),
    description="the scattering task as the original EMLP code computes it (no symmetrisation)")

PENDULUM = DoubleSpringPendulum()

TASKS: dict = {"o5": O5, "inertia": INERTIA, "scattering": SCATTERING, "pendulum": PENDULUM}


def get_task(name: str):
    """The task ``name`` of ``TASKS`` (``LabError`` naming the known ones otherwise)."""
    try:
        return TASKS[name]
    except (KeyError, TypeError):
        raise LabError(f"unknown EMLP task {name!r}: one of {', '.join(TASKS)}") from None


def make(name: str, n: int | None = None, seed: int = 0, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """``get_task(name).make(n, seed, dtype)``.

    >>> X, Y = make("inertia", 4, seed=1)
    >>> X.shape, Y.shape, X.dtype
    ((4, 20), (4, 9), dtype('float32'))
    """
    return get_task(name).make(n, seed, dtype)


def task_group(text):
    """A group text as a lab ``Group``: ``lab.groups.parse_group``'s names, the pendulum's groups about z
    (``O2eR3()``, ``SO2eR3()``, ``DkeR3(k)``, ``lab.groups.z_axis``) included.

    >>> task_group("O13()"), task_group("DkeR3(6)")
    (O13(), DkeR3(6))
    """
    from ..groups import parse_group

    return parse_group(text)


def task_reps(task, group=None):
    """``(rep_in, rep_out)`` of ``task`` bound to ``group`` (default the task's own ``group``).

    >>> task_reps(TASKS["inertia"])
    (5*Scalar + 5*V over O(3), T(2) over O(3))
    >>> [r.size for r in task_reps(TASKS["pendulum"])]
    [12, 12]
    """
    from ..reps import parse_rep

    G = task_group(task.group if group is None else group)
    return parse_rep(task.rep_in, G), parse_rep(task.rep_out, G)
