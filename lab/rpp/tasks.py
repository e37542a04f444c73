"""The three symmetry regimes of the Residual Pathway Priors chapter (thesis 3.5.1, Figure 3.2, appendix A.2.3.1)
as data: two tasks, each with an exact, an approximate and a misspecified symmetry.

Figure 3.2 compares MLP, EMLP and RPP-EMLP where the symmetry built into the models is right (*exact*), nearly right
(*approximate*: the data have non-equivariant parts) or wrong (*misspecified*: the models' group is not a symmetry
of the data).  What changes between the regimes is sometimes the data and sometimes only the models' group:

==============  ============  ==========================================  ==============  =====================
task            symmetry      data                                        models' group   data's own symmetry
==============  ============  ==========================================  ==============  =====================
``inertia``     exact         ``INERTIA`` (lab.emlp: chapter 2's)         ``O(3)``        O(3)
``inertia``     approximate   ``MODIFIED_INERTIA_ORIGINAL`` (below)       ``O(3)``        O(2) x Z2 about z
``inertia``     misspecified  ``INERTIA``, unchanged                      ``SL(3)``       O(3)
``pendulum``    exact         ``PENDULUM`` (lab.emlp: chapter 2's)        ``O2eR3()``     O(2) about z
``pendulum``    approximate   ``windy_pendulum()`` (eps = 0.01)           ``O2eR3()``     one reflection
``pendulum``    misspecified  ``PENDULUM``, unchanged                     ``SO(3)``       O(2) about z
==============  ============  ==========================================  ==============  =====================

Sources.  The thesis (3.5.1): "(i) the original inertia and double pendulum datasets which preserve exact
symmetries with respect to the O(3) and O(2) groups respectively; (ii) modified versions of these datasets with
additional factors (such as wind on the double pendulum) that lead to approximate symmetries; and (iii) versions
with misspecified symmetry groups"; "For the inertia dataset we substitute the group equivariance in EMLP from O(3)
to the overly large group SL(3) ... For the double pendulum dataset, we substitute O(2) symmetry acting on R^3 with
the larger SO(3) rotation group".  Misspecified is a change of the *models'* group only: the authors' runners
(``experiments/misspec-symmetry/inertia_runner.py``: ``Inertia(3000)`` with ``G = SL(3)``;
``.../pendulum_runner.py``: ``DoubleSpringPendulum`` with ``'group': SO(3)``) train on the unchanged data.  SO(3)
acts on the pendulum's state ``4*V`` (their ``4*T(1)``) by turning each of q1, q2, p1, p2 by the same 3x3 rotation;
it tilts gravity, so it is not a symmetry.  (The thesis says SO(3) "contains" O(2): it contains the rotations about
z, not O2eR3()'s reflections, of determinant -1.)  Exact and approximate: ``experiments/perfect-symmetry/*`` and
``experiments/prior-var-ablation/modified_inertia.py`` use the data's declared ``symmetry`` (O(3), O2eR3()); the
windy pendulum's runner (``windy_runner.sh``, named by the ablation README) is not in the authors' repository, and
their ``WindyDoubleSpringPendulum`` declares ``O2eR3()``.

Modified inertia.  Appendix A.2.3.1 writes: "In order to break the equivariance of the dataset, we add an additional
term so that the target is y = vec(I + 0.3 I^2 z z^T I) where z is the unit vector along the z axis."  Taken as
written the added term is cubic in the inertia matrix: mass^3 length^6 added to mass length^2, dimensionally odd
(0.3 would have to carry units), and not small: on the inertia inputs it is about 20 times the size of I itself
(measured: mean |0.3 I^2 zz^T I| / |I| = 20.4 over 256 samples), so the "approximately symmetric" data are
dominated by the symmetry-breaking part (relative equivariance error under O(3) about 1.2).  The authors' code
(``experiments/datasets.py``, ``ModifiedInertia``) adds ``0.3 (I z) z^T`` instead (``v = (inertia*g).sum(-1)``,
``target = inertia + 3e-1*v g^T``): linear in I, 0.17 of its size, the third column of I scaled by 1.3.  The
default (variant ``"original"``, ``DEFAULT_VARIANT``) is the authors' code, the approximate inertia of the regime
table and of ``lab rpp``: the data the authors' runners trained on.  ``MODIFIED_INERTIA`` (variant ``"thesis"``) is
the thesis's formula as written, kept as a named variant (``regime(..., variant="thesis")``, ``lab rpp --variant
thesis``): its added term is about 20 times I (``added_term_scale``), so its targets and every model's test MSE on
them are on that term's scale, not the inertia's.  Until 2026-11-27 the thesis's formula was the default (a saved run
without the setting reads as that: ``lab.rpp.family.RPPConfig.saved_settings``).  Both flatten row-major (the
lab's ``T(2)`` layout and the authors' ``reshape``; a column-major ``vec`` is the transpose, which ``rho(g) = g (x) g``
treats alike).  Both keep the subgroup of O(3) that maps z to +-z (``O2eR3()`` and the flip z -> -z): only tilts of
the z axis see the extra term.

The windy pendulum.  Appendix A.2.3.1: "we add a perturbation H1(x1, x2, p1, p2) = -w^T x1 - w^T x2 that is the
energy of the wind acting as a constant force pushing in the w = [-8, -5, 0] direction.  Setting H = H0 + eps H1,
we can control the strength of the wind and we choose eps = 0.01."  ``windy_pendulum(eps)`` is a
``lab.data.pendulum.DoubleSpringPendulum`` with ``wind = eps * w`` (its Hamiltonian subtracts ``wind . (q1 + q2)``); the
authors' ``WindyDoubleSpringPendulum(wind_scale=0.01)`` adds ``x1 @ wind + x2 @ wind`` with
``wind = wind_scale * [8, 5, 0]`` to its energy: the same H.  The wind breaks the rotations about z and every
reflection but the one through the vertical plane containing w; energy is still conserved, L_z is not.

``target_symmetry_error`` measures how far the *targets alone* are from equivariant under a group (no model): the
mean over ``n`` samples x, each with its own sampled element g, of ``|f(rho_in(g) x) - rho_out(g) f(x)| / |f(x)|``
(``measure="thesis"``: eq. 3.3's ``|a - b| / (|a| + |b|)``, which stays below 1).  For the regression tasks f is the
target; for the pendulum the true vector field ``dz/dt = J grad H`` at the task's initial states, with
``rho = I_4 (x) g`` on ``4*V``.

Training settings of Figure 3.2 (for the models, ``lab.rpp.nn``; the thesis's A.2.3.1 and the authors' runners):
10 trials; inertia 1000 train / 1000 test points, Adam 3e-3, 3 layers of 384 channels, 500 epochs (the thesis; the
runners: 300 exact and misspecified, 500 modified); pendulum Hamiltonian networks ``4*V -> Scalar``, 3 layers of
128 channels, 500 train / 500 test chunks of 5 points 0.2 s apart, 1000 epochs.

>>> for r in REGIMES.values():
...     print(f"{r.name:22} {r.data.name:16} {r.group}")
inertia-exact          inertia          O(3)
inertia-approximate    modified-inertia-original O(3)
inertia-misspecified   inertia          SL(3)
pendulum-exact         pendulum         O2eR3()
pendulum-approximate   windy-pendulum   O2eR3()
pendulum-misspecified  pendulum         SO(3)
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from ..data.sizes import check_bytes, check_count
from ..data.pendulum import DoubleSpringPendulum
from ..data.regression import INERTIA, PENDULUM, RegressionTask, inertia_inputs, inertia_target, task_group
from ..errors import LabError

ZHAT = np.array([0.0, 0.0, 1.0])  # the unit vector along z of the modified inertia
STRENGTH = 0.3  # the modified inertia's 0.3 (thesis A.2.3.1 and the authors' 3e-1)
VARIANTS = ("original", "thesis")  # modified inertia: the authors' code (the default), the thesis's formula as printed
DEFAULT_VARIANT = VARIANTS[0]
W0 = (-8.0, -5.0, 0.0)  # the wind's direction w (thesis A.2.3.1)
EPS = 0.01  # the wind's strength eps (thesis A.2.3.1)

TASKS = ("inertia", "pendulum")
SYMMETRIES = ("exact", "approximate", "misspecified")
MEASURES = ("relative", "thesis")


class RegimeError(LabError, ValueError):
    """An unknown task, symmetry or variant of the RPP regimes, or an option that does not apply to the regime."""


# ------------------------------------------------------------------------------------------- modified inertia
def modified_inertia_target(X: np.ndarray, variant: str = DEFAULT_VARIANT, strength: float = STRENGTH,
                            k: int = 5) -> np.ndarray:
    """The modified inertia target of X = (m_1..m_k, x_1..x_k) (n, 4k) -> (n, 9), row-major, in float64.

    ``variant="thesis"``: ``I + strength * I^2 z z^T I`` (appendix A.2.3.1 as written); ``"original"``:
    ``I + strength * (I z) z^T`` (the authors' ``ModifiedInertia``: the third column of I times 1 + strength).

    >>> X = np.zeros((1, 20)); X[0, 0] = 1.0; X[0, 5:8] = (1.0, 0.0, 1.0)  # one unit mass at (1, 0, 1)
    >>> inertia_target(X).reshape(3, 3).tolist()
    [[1.0, 0.0, -1.0], [0.0, 2.0, 0.0], [-1.0, 0.0, 1.0]]
    >>> modified_inertia_target(X, "original").reshape(3, 3).tolist()
    [[1.0, 0.0, -1.3], [0.0, 2.0, 0.0], [-1.0, 0.0, 1.3]]
    >>> modified_inertia_target(X, "thesis").reshape(3, 3).round(6).tolist()
    [[1.6, 0.0, -1.6], [0.0, 2.0, 0.0], [-1.6, 0.0, 1.6]]
    """
    if variant not in VARIANTS:
        raise RegimeError(f"unknown modified inertia variant {variant!r}: {' or '.join(VARIANTS)}")
    I = inertia_target(X, k).reshape(-1, 3, 3)
    Iz = I @ ZHAT  # (n, 3): I z (= z^T I transposed: I is symmetric)
    if variant == "thesis":
        extra = (I @ Iz[:, :, None]) * Iz[:, None, :]  # I^2 z z^T I = (I (I z)) (I z)^T
    else:
        extra = Iz[:, :, None] * ZHAT[None, None, :]  # (I z) z^T
    return (I + float(strength) * extra).reshape(-1, 9)


MODIFIED_INERTIA = RegressionTask(
    "modified-inertia", rep_in="5*Scalar+5*V", rep_out="T(2)", group="O(3)", groups=("SO(3)", "O(3)"), d_in=20,
    d_out=9, inputs=inertia_inputs, target=partial(modified_inertia_target, variant="thesis"),
    description="the RPP chapter's modified inertia (thesis A.2.3.1 as written): vec(I + 0.3 I^2 zz^T I), "
                "approximately O(3)-equivariant, exactly only about z")

MODIFIED_INERTIA_ORIGINAL = replace(
    MODIFIED_INERTIA, name="modified-inertia-original", target=partial(modified_inertia_target, variant="original"),
    description="the modified inertia as the authors' code computes it: vec(I + 0.3 (I z) z^T)")


def modified_inertia(variant: str = DEFAULT_VARIANT) -> RegressionTask:
    """``MODIFIED_INERTIA_ORIGINAL`` (``"original"``, the default) or ``MODIFIED_INERTIA`` (``"thesis"``)."""
    if variant not in VARIANTS:
        raise RegimeError(f"unknown modified inertia variant {variant!r}: {' or '.join(VARIANTS)}")
    return MODIFIED_INERTIA if variant == "thesis" else MODIFIED_INERTIA_ORIGINAL


def added_term_scale(variant: str = DEFAULT_VARIANT, n: int = 256, seed: int = 0) -> float:
    """How large the symmetry-breaking term of ``variant`` is against the inertia itself: the mean over ``n`` samples
    of the inertia inputs (``numpy.random.default_rng(seed)``) of ``|y - I| / |I|`` (Frobenius norms).

    >>> round(added_term_scale("original"), 2), round(added_term_scale("thesis"))
    (0.17, 20)
    """
    n = check_count(n, "the number of samples")
    if n < 1:
        raise LabError("the number of samples must be at least 1")
    X = inertia_inputs(n, np.random.default_rng(seed))
    I = inertia_target(X).reshape(-1, 9)
    extra = modified_inertia_target(X, variant) - I
    return float(np.mean(np.linalg.norm(extra, axis=1) / np.linalg.norm(I, axis=1)))


# ------------------------------------------------------------------------------------------- the windy pendulum
def windy_pendulum(eps: float = EPS, w=W0, **settings) -> DoubleSpringPendulum:
    """The windy double spring pendulum, ``H = H0 + eps H1`` with ``H1 = -w.q1 - w.q2``: a ``DoubleSpringPendulum``
    with ``wind = eps * w`` (``settings``: its other fields, e.g. ``n_steps``).  ``eps = 0`` is the plain pendulum.

    >>> windy_pendulum().wind, windy_pendulum(0.02).name
    ((-0.08, -0.05, 0.0), 'windy-pendulum')
    """
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not math.isfinite(eps):
        raise RegimeError(f"the wind's strength eps must be a finite number, got {eps!r}")
    w = tuple(float(v) for v in w)
    if len(w) != 3 or not all(math.isfinite(v) for v in w):
        raise RegimeError(f"the wind's direction w must be 3 finite numbers, got {w!r}")
    wind = tuple(float(eps) * v + 0.0 for v in w)  # + 0.0: no -0.0
    desc = f"the RPP chapter's windy double spring pendulum: H0 + eps H1, eps = {float(eps):g}, w = {w}"
    return DoubleSpringPendulum(**{"name": "windy-pendulum", "wind": wind, "description": desc, **settings})


WINDY_PENDULUM = windy_pendulum()


# ------------------------------------------------------------------------------------------- the regimes
@dataclass(frozen=True)
class Regime:
    """One cell of Figure 3.2: the ``data`` (a task object the lab's EMLP training takes unchanged), the ``group``
    the EMLP and RPP-EMLP are built over (a group text), the models' reps (``rep_in -> rep_out``: the pendulum's
    models are Hamiltonian networks, ``4*V -> Scalar``) and where it comes from."""

    task: str
    symmetry: str
    data: object = field(repr=False)  # RegressionTask | DoubleSpringPendulum
    group: str
    rep_in: str
    rep_out: str
    data_symmetry: str  # in words: what the data are exactly symmetric under
    source: str = field(default="", compare=False, repr=False)

    @property
    def name(self) -> str:
        """``task-symmetry``, e.g. ``inertia-misspecified``."""
        return f"{self.task}-{self.symmetry}"

    def model_group(self):
        """The models' group as a lab ``Group`` (``parse_group``: SO(3) included)."""
        return task_group(self.group)


_INERTIA_REPS = ("5*Scalar+5*V", "T(2)")
_PENDULUM_REPS = ("4*V", "Scalar")

_DECLARED = (
    Regime("inertia", "exact", INERTIA, "O(3)", *_INERTIA_REPS, "O(3)",
           "thesis 3.5.1 (i), A.1.10; authors: experiments/perfect-symmetry/inertia_runner.py (Inertia, O(3))"),
    Regime("inertia", "approximate", modified_inertia(DEFAULT_VARIANT), "O(3)", *_INERTIA_REPS,
           "O(2) x Z2 about z (the elements of O(3) mapping z to +-z)",
           "thesis 3.5.1 (ii), A.2.3.1 (modified inertia); authors: experiments/datasets.py ModifiedInertia, "
           "experiments/prior-var-ablation/modified_inertia.py (O(3))"),
    Regime("inertia", "misspecified", INERTIA, "SL(3)", *_INERTIA_REPS, "O(3)",
           "thesis 3.5.1 (iii) 'from O(3) to the overly large group SL(3)'; authors: "
           "experiments/misspec-symmetry/inertia_runner.py (Inertia, G = SL(3))"),
    Regime("pendulum", "exact", PENDULUM, "O2eR3()", *_PENDULUM_REPS, "O(2) about z",
           "thesis 3.5.1 (i), A.1.10; authors: experiments/perfect-symmetry/pendulum_runner.py "
           "(DoubleSpringPendulum, O2eR3())"),
    Regime("pendulum", "approximate", WINDY_PENDULUM, "O2eR3()", *_PENDULUM_REPS,
           "the reflection through the vertical plane containing w",
           "thesis 3.5.1 (ii), A.2.3.1 (H = H0 + eps H1, eps = 0.01); authors: experiments/trainer/"
           "hamiltonian_dynamics.py WindyDoubleSpringPendulum (symmetry O2eR3(); its runner is not published)"),
    Regime("pendulum", "misspecified", PENDULUM, "SO(3)", *_PENDULUM_REPS, "O(2) about z",
           "thesis 3.5.1 (iii) 'the larger SO(3) rotation group'; authors: "
           "experiments/misspec-symmetry/pendulum_runner.py (DoubleSpringPendulum, 'group': SO(3))"),
)

#: the six regimes, by ``(task, symmetry)``, in the order of ``TASKS`` x ``SYMMETRIES``
REGIMES: dict = {(r.task, r.symmetry): r for r in _DECLARED}


def regime(task: str, symmetry: str, variant: str | None = None, eps: float | None = None) -> Regime:
    """The regime of ``task`` (``TASKS``) and ``symmetry`` (``SYMMETRIES``); a ``RegimeError`` names the known ones.

    ``variant`` (``"original"``, the default, or ``"thesis"``) picks the modified inertia of the approximate inertia
    regime;
    ``eps`` the wind's strength of the approximate pendulum regime.  Either elsewhere is a ``RegimeError``.

    >>> regime("pendulum", "approximate", eps=0.02).data.wind
    (-0.16, -0.1, 0.0)
    >>> regime("inertia", "approximate").data.name, regime("inertia", "approximate", variant="thesis").data.name
    ('modified-inertia-original', 'modified-inertia')
    """
    if task not in TASKS:
        raise RegimeError(f"unknown RPP task {task!r}: one of {', '.join(TASKS)}")
    if symmetry not in SYMMETRIES:
        raise RegimeError(f"unknown symmetry regime {symmetry!r}: one of {', '.join(SYMMETRIES)}")
    r = REGIMES[(task, symmetry)]
    if variant is not None:
        if (task, symmetry) != ("inertia", "approximate"):
            raise RegimeError(f"variant applies to the approximate inertia regime only, not to {r.name}")
        r = replace(r, data=modified_inertia(variant))
    if eps is not None:
        if (task, symmetry) != ("pendulum", "approximate"):
            raise RegimeError(f"eps (the wind) applies to the approximate pendulum regime only, not to {r.name}")
        r = replace(r, data=windy_pendulum(eps))
    return r


# ------------------------------------------------------------------------------------------- symmetry of the targets
def _subject(subject, group):
    """``(task, group text)`` of a Regime (its data and models' group) or a task (its own group)."""
    if isinstance(subject, Regime):
        return subject.data, group if group is not None else subject.group
    if isinstance(subject, (RegressionTask, DoubleSpringPendulum)):
        return subject, group if group is not None else subject.group
    raise RegimeError(f"a target's symmetry is measured on a Regime or a task, got {type(subject).__name__}")


def target_symmetry_errors(subject, group=None, n: int = 256, seed: int = 0, measure: str = "relative"):
    """Per sample (n,): the equivariance error of the targets alone under ``group`` (a group text or ``Group``;
    default the regime's models' group or the task's own), one sampled element per sample (module docstring).

    The samples are the task's inputs (the pendulum: its initial states), then the group elements, all from
    ``numpy.random.default_rng(seed)``: the same seed gives the same numbers.
    """
    from ..reps import parse_rep

    task, group = _subject(subject, group)
    if measure not in MEASURES:
        raise RegimeError(f"unknown measure {measure!r}: {' or '.join(MEASURES)}")
    n = check_count(n, "the number of samples")
    if n < 1:
        raise LabError("the number of samples must be at least 1")
    G = task_group(group) if isinstance(group, str) else group
    pendulum = isinstance(task, DoubleSpringPendulum)
    rep_in, rep_out = (task.rep_in, task.rep_out)
    R_in, R_out = parse_rep(rep_in, G), parse_rep(rep_out, G)
    d_in, d_out = R_in.size, R_out.size
    # inputs, outputs and their transforms, the stacked rho matrices, the target's intermediates
    check_bytes(f"the symmetry error of {task.name} on {n:,} samples",
                8 * n * (d_in * d_in + d_out * d_out + 4 * (d_in + d_out) + 64 + G.d * G.d))
    rng = np.random.default_rng(seed)
    X = task.initial_conditions(n, rng) if pendulum else task.inputs(n, rng)
    gs = G.sample(n, rng=rng)
    A_in = np.stack([R_in.rho(g) for g in gs]).real
    A_out = A_in if rep_out == rep_in else np.stack([R_out.rho(g) for g in gs]).real
    Xg = np.einsum("nij,nj->ni", A_in, X)
    if pendulum:
        import torch

        def f(Z):
            return task.vector_field(torch.as_tensor(np.ascontiguousarray(Z), dtype=torch.float64)).numpy()
    else:
        f = task.target
    Y = np.asarray(f(X), dtype=np.float64)
    a = np.einsum("nij,nj->ni", A_out, Y)  # rho_out(g) f(x)
    b = np.asarray(f(Xg), dtype=np.float64)  # f(rho_in(g) x)
    num = np.linalg.norm(b - a, axis=1)
    den = np.linalg.norm(Y, axis=1) if measure == "relative" else np.linalg.norm(a, axis=1) + np.linalg.norm(b, axis=1)
    return num / np.where(den > 0, den, 1.0)


def target_symmetry_error(subject, group=None, n: int = 256, seed: int = 0, measure: str = "relative") -> float:
    """The mean of ``target_symmetry_errors``: ~1e-16 where the targets have the symmetry, clearly above 0 where not.

    >>> target_symmetry_error(regime('inertia', 'exact'), n=32) < 1e-14
    True
    >>> round(target_symmetry_error(regime('inertia', 'approximate', variant='original'), n=32), 2)
    0.17
    """
    return float(np.mean(target_symmetry_errors(subject, group, n, seed, measure)))
