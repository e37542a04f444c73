"""Tasks with known continuous symmetries for learning Lie-algebra generators from data (issue 33).

Each task: seeded samples (x, y) of a function, and the truth: the Lie algebra acting on the input (and output) space
as pairs (A, B) -- A (d_in x d_in) the generator's action on x, B (d_out x d_out) on y -- from the engine's rep
language (``rep.drho`` of the group's Lie-algebra basis), or none.

==================  =========================================  ===============  ==================================
name                function                                    truth             connected group, dim
==================  =========================================  ===============  ==================================
``o5``              the thesis's O(5)-invariant 2V -> Scalar    so(5) on 2 V      SO(5), 10
``inertia``         moment of inertia 5 Scalar + 5 V -> T(2)    so(3)             SO(3), 3
``lorentz``         e-mu scattering 4 V -> Scalar               so(1,3)           SO+(1,3), 6
``rotated-plane``   g(x^T M x), M = S^T S, S a fixed shear      S^-1 J S          SO(2) in S's basis, 1
``none``            a generic function of R^4 (no symmetry)     none              --
==================  =========================================  ===============  ==================================
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


def _emlp(name):
    from ..emlp.tasks import get_task

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


def _plane_make(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 2))
    M = SHEAR.T @ SHEAR
    q = np.einsum("ni,ij,nj->n", X, M, X)
    return X, (np.sin(q) + 0.5 * q)[:, None]


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
    "inertia": DiscoveryTask("inertia", 20, 9, _emlp_make("inertia"), _engine_truth("inertia", "SO(3)"), "SO(3)",
                             "O(3)-equivariant moment of inertia of 5 point masses (thesis 2.7)"),
    "lorentz": DiscoveryTask("lorentz", 16, 1, _emlp_make("scattering"), _engine_truth("scattering", "SO13p()"),
                             "SO+(1,3)", "Lorentz-invariant e-mu scattering (thesis 2.7)"),
    "rotated-plane": DiscoveryTask("rotated-plane", 2, 1, _plane_make, _plane_truth, "SO(2) in a sheared basis",
                                   "g(x^T M x) with M = S^T S: invariant under S^-1 SO(2) S"),
    "none": DiscoveryTask("none", 4, 1, _none_make, lambda: [], "", "a generic function of R^4: no symmetry"),
}


def get_task(name: str) -> DiscoveryTask:
    if name not in DISCOVERY:
        raise LabError(f"unknown discovery task {name!r}: choose one of {', '.join(TASKS)}")
    return DISCOVERY[name]
