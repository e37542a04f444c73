"""Tasks with known continuous symmetries for learning Lie-algebra generators from data (issue 33).

Each task: seeded samples (x, y) of a function, and the truth: the Lie algebra acting on the input (and output) space
as pairs (A, B) -- A (d_in x d_in) the generator's action on x, B (d_out x d_out) on y -- from the engine's rep
language (``rep.drho`` of the group's Lie-algebra basis), or none.

==================  =========================================  ===============  ==================================
name                function                                    truth             connected group, dim
==================  =========================================  ===============  ==================================
``o5``              the thesis's O(5)-invariant 2V -> Scalar    so(5) on 2 V      SO(5), 10
``inertia``         moment of inertia 5 Scalar + 5 V -> T(2)    gl(3) + 5 trades  GL+(3) x (R+)^5, 14
``lorentz``         e-mu scattering 4 V -> Scalar               so(1,3) + trade   SO+(1,3) x R+, 7
``rotated-plane``   g(x^T M x), M = S^T S, S a fixed shear      S^-1 J S          SO(2) in S's basis, 1
``none``            a generic function of R^4 (no symmetry)     none              --
==================  =========================================  ===============  ==================================

The inertia function's symmetry is larger than the O(3) it is posed with (thesis 2.7), and its truth here is the whole
algebra, derived below and checked in the tests against the null space of the true function's symmetry form: I is
linear in the second moment S = sum_i m_i x_i x_i^T (I = tr(S) Id - S, so S = tr(I)/2 Id - I), and S -> M S M^T
under *any* M in GL(3) acting on every position; and each point's m_i -> lambda m_i, x_i -> x_i / sqrt(lambda) leaves
its term unchanged.  So gl(3) (9, rotations among them) and five mass-position trades: 14 generators.  Their action on
the output is taken on the symmetric matrices only, where I lives: a generator's B on the antisymmetric part never
acts on the function's values and cannot be learned from them.

Likewise the scattering amplitude: each lepton tensor is homogeneous of degree two in its own pair of momenta (every
term, the mass term p.p included), so scaling (p, p~) by lambda and (q, q~) by 1 / lambda leaves it unchanged -- one
dilation beside so(1,3)'s six.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..errors import LabError

TASKS = ("o5", "inertia", "lorentz", "rotated-plane", "none")
#: the hidden change of basis of the rotated-plane task (a shear and a stretch: not orthogonal)
SHEAR = np.array([[1.0, 0.8], [0.0, 0.5]])
J = np.array([[0.0, -1.0], [1.0, 0.0]])


@dataclass(frozen=True)
class DiscoveryTask:
    name: str
    d_in: int
    d_out: int
    make: Callable = field(repr=False)  # (n, seed) -> (X, Y) float64
    truth: Callable = field(repr=False)  # () -> list of (A, B) pairs (empty: no symmetry)
    connected: str = ""  # the connected group the truth generates, in words
    description: str = ""
    #: where the function has more symmetry than the task is posed with: the posed group's name and its algebra's
    #: (A, B) pairs (the engine's), a subalgebra of the truth -- learned spans are also measured against it
    posed: str = ""
    posed_truth: Callable | None = field(default=None, repr=False)


def _emlp(name):
    from ..data.regression import get_task

    return get_task(name)


def _engine_truth(name: str, group_text: str):
    """(drho_in(A), drho_out(A)) for every Lie-algebra basis element A of ``group_text``, on the EMLP task's reps."""
    def truth():
        task = _emlp(name)
        rin, rout = task.reps(group_text)
        G = rin.group
        return [(np.asarray(rin.drho(A), dtype=np.float64), np.asarray(rout.drho(A), dtype=np.float64))
                for A in G.lie]
    return truth


def _emlp_make(name: str):
    def make(n, seed):
        X, Y = _emlp(name).make(n, seed, dtype=np.float64)
        return X, Y
    return make


def _sym_projector() -> np.ndarray:
    """The orthogonal projector onto symmetric 3 x 3 matrices, on row-major vec (9 x 9)."""
    T = np.eye(9).reshape(3, 3, 3, 3).transpose(1, 0, 2, 3).reshape(9, 9)  # vec(E) -> vec(E^T)
    return (np.eye(9) + T) / 2


def _inertia_truth(k: int = 5):
    """The inertia function's symmetry algebra (module docstring): gl(3) on every position with its action on I, then
    the k mass-position trades; (A, B) pairs on (m_1..m_k, x_1..x_k) -> row-major I."""
    P, eye = _sym_projector(), np.eye(3)
    pairs = []
    for a in range(3):
        for b in range(3):
            M = np.zeros((3, 3))
            M[a, b] = 1.0
            A = np.zeros((4 * k, 4 * k))
            A[k:, k:] = np.kron(np.eye(k), M)
            B = np.zeros((9, 9))
            for j in range(9):  # B's column j: the change of I = E_j through S (dS = M S + S M^T)
                E = np.eye(9)[j].reshape(3, 3)
                S = np.trace(E) / 2 * eye - E
                dS = M @ S + S @ M.T
                B[:, j] = (np.trace(dS) * eye - dS).ravel()
            pairs.append((A, B @ P))
    for i in range(k):
        A = np.zeros((4 * k, 4 * k))
        A[i, i] = 1.0
        A[k + 3 * i:k + 3 * i + 3, k + 3 * i:k + 3 * i + 3] = -0.5 * eye
        pairs.append((A, np.zeros((9, 9))))
    return pairs


def _lorentz_truth():
    """so(1,3) on the four momenta (the engine's) and the trade between the two lepton pairs' scales (docstring)."""
    pairs = _engine_truth("scattering", "SO13p()")()
    A = np.kron(np.diag([-1.0, 1.0, -1.0, 1.0]), np.eye(4))  # X = (q, p, q~, p~): p's pair up, q's down
    return pairs + [(A, np.zeros((1, 1)))]


def plane_function(X: np.ndarray) -> np.ndarray:
    """The rotated plane's target at the rows of X, (n, 1): g(x^T M x), M = S^T S."""
    q = np.einsum("ni,ij,nj->n", X, SHEAR.T @ SHEAR, X)
    return (np.sin(q) + 0.5 * q)[:, None]


def _plane_make(n, seed):
    X = np.random.default_rng(seed).standard_normal((n, 2))
    return X, plane_function(X)


def _plane_truth():
    S = SHEAR
    return [(np.linalg.inv(S) @ J @ S, np.zeros((1, 1)))]


def _none_make(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 4))
    c = np.random.default_rng(12345)  # the function itself is fixed; only the samples depend on the seed
    W, b = c.standard_normal((4, 4)), c.standard_normal(4)
    a = c.standard_normal(4)
    return X, (np.sin(X @ W + b) @ a + 0.3 * X[:, 0] * X[:, 1] ** 2 + 0.5 * X[:, 2])[:, None]


DISCOVERY = {
    "o5": DiscoveryTask("o5", 10, 1, _emlp_make("o5"), _engine_truth("o5", "SO(5)"), "SO(5)",
                        "O(5)-invariant sin|x1| - |x2|^3/2 + x1.x2/(|x1||x2|) (thesis 2.7)"),
    "inertia": DiscoveryTask("inertia", 20, 9, _emlp_make("inertia"), _inertia_truth, "GL+(3) x (R+)^5",
                             "moment of inertia of 5 point masses (thesis 2.7: posed with O(3)), symmetric under GL(3) "
                             "on the positions and each mass traded against its position's scale",
                             "SO(3)", _engine_truth("inertia", "SO(3)")),
    "lorentz": DiscoveryTask("lorentz", 16, 1, _emlp_make("scattering"), _lorentz_truth, "SO+(1,3) x R+",
                             "Lorentz-invariant e-mu scattering (thesis 2.7), also invariant when one lepton pair's "
                             "momenta grow as the other's shrink", "SO+(1,3)", _engine_truth("scattering", "SO13p()")),
    "rotated-plane": DiscoveryTask("rotated-plane", 2, 1, _plane_make, _plane_truth, "SO(2) in a sheared basis",
                                   "g(x^T M x) with M = S^T S: invariant under S^-1 SO(2) S"),
    "none": DiscoveryTask("none", 4, 1, _none_make, lambda: [], "", "a generic function of R^4: no symmetry"),
}


def get_task(name: str) -> DiscoveryTask:
    if name not in DISCOVERY:
        raise LabError(f"unknown discovery task {name!r}: choose one of {', '.join(TASKS)}")
    return DISCOVERY[name]
