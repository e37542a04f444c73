"""Is a user-declared representation a homomorphism?  Checked before the audit uses it.

A representation must satisfy ``rho(gh) = rho(g) rho(h)`` and, for Lie groups, ``drho([A, B]) = [drho(A), drho(B)]``.
The lab's own leaves (``V``, ``V*``, ``Scalar``) are built from the group and need no check; every other leaf (a
``UserRep``, a user's ``Leaf`` subclass, their duals) is checked here, because an audit against matrices that are not
a representation answers nothing: no model can be equivariant to them, and the failure would be blamed on the model.

Checks (each a relative error, largest over what was tried, against ``HOM_TOLERANCE``; the matrices are float64
numpy, so rounding sits near 1e-15 and ``expm``/``logm`` near 1e-10; 1e-6 leaves room for both and catches any real
mistake, which is of order one):

* ``words`` -- finite groups small enough to enumerate (``WORDS_CAP`` elements): ``rho`` on every element from the
  generators' matrices along a breadth-first word, then ``|rho(h g) - rho(h) rho(g)| / |rho(h) rho(g)|`` for every
  element ``g`` and generator ``h``: two words for one element must give one matrix (this is all the relations of
  the group).  Larger or continuous groups: ``rho(gh)`` against ``rho(g) rho(h)`` by the rep's own ``rho`` on
  ``n`` sampled pairs (``group.sample``: exponentials times words in the discrete generators) and the discrete
  generators; pairs where the rep cannot evaluate ``rho`` are skipped and counted.
* ``brackets`` -- for every pair of Lie-algebra basis elements whose bracket lies in the algebra's span:
  ``|[drho(A_i), drho(A_j)] - drho([A_i, A_j])| / (|drho(A_i)| |drho(A_j)|)``.

A failure raises ``HomomorphismError`` (a ``RepError``, so a ``LabError``) with one line naming the rep, the check
and its size.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RepError
from ..reps import Rep
from ..reps.rep import BaseRep, DualRep, TrivialRep

HOM_TOLERANCE = 1e-6  # relative; see the module docstring
WORDS_CAP = 5000  # finite groups up to this order are checked on every (element, generator) pair
WORDS_FLOPS = 5e8  # ... unless that would cost more than this


class HomomorphismError(RepError):
    """A declared representation is not a homomorphism: ``rep``, ``check`` (``"words"`` or ``"brackets"``),
    ``size`` (the relative error) and ``tolerance``."""

    def __init__(self, rep, check: str, size: float, tolerance: float, detail: str):
        self.rep, self.check, self.size, self.tolerance = rep, check, float(size), float(tolerance)
        super().__init__(f"{rep} over {rep.group} is not a representation: {detail} fails by {size:.3g} "
                         f"(relative; tolerance {tolerance:g}) -- check its matrices")


@dataclass
class HomomorphismCheck:
    """One check of one leaf: the largest relative error over ``tried`` cases (``skipped`` could not be evaluated)."""

    rep: str
    check: str
    error: float
    tried: int
    skipped: int = 0

    def to_dict(self) -> dict:
        return {"rep": self.rep, "check": self.check, "error": float(self.error), "tried": int(self.tried),
                "skipped": int(self.skipped)}


def builtin(leaf) -> bool:
    """The lab's own leaves, built from the group: V, its dual, Scalar."""
    if isinstance(leaf, DualRep):
        return builtin(leaf.inner)
    return isinstance(leaf, (BaseRep, TrivialRep))


def user_leaves(*reps: Rep) -> list:
    """The leaves of ``reps`` that the user declared (duals reduced to what they dualise), each once."""
    out, seen = [], set()
    for rep in reps:
        for block in rep.blocks:
            for leaf in block.factors:
                leaf = leaf.inner if isinstance(leaf, DualRep) else leaf
                if not builtin(leaf) and leaf not in seen:
                    seen.add(leaf)
                    out.append(leaf)
    return out


def _rel(diff, ref) -> float:
    return float(np.linalg.norm(diff) / max(np.linalg.norm(ref), 1e-300))


def _key(m) -> bytes:
    return (np.round(m, 9) + 0.0).tobytes()


def _words_enumerated(leaf, G, disc) -> HomomorphismCheck | None:
    """Every (element, generator) pair of a small finite group; None when the group is too large to enumerate."""
    n = leaf.size
    per_element = G.num_discrete * (G.d ** 3 + n ** 3)
    e = np.eye(G.d, dtype=G.dtype)
    table = {_key(e): np.eye(n, dtype=np.result_type(disc, float))}
    frontier, worst, tried = [e], 0.0, 0
    while frontier:
        nxt = []
        for g in frontier:
            r = table[_key(g)]
            for h, R in zip(G.discrete, disc):
                x, rx = h @ g, R @ r
                k = _key(x)
                if k in table:
                    worst, tried = max(worst, _rel(table[k] - rx, rx)), tried + 1
                else:
                    if len(table) >= WORDS_CAP or len(table) * per_element > WORDS_FLOPS:
                        return None
                    table[k] = rx
                    nxt.append(x)
        frontier = nxt
    return HomomorphismCheck(str(leaf), "words", worst, tried)


def _words_sampled(leaf, G, n: int, rng) -> HomomorphismCheck:
    elements = list(G.discrete) + list(G.sample(max(n, 1), rng))
    pairs = [(a, b) for a in elements[:G.num_discrete] for b in elements[:G.num_discrete]]
    pairs += [(elements[i], elements[(i + 1) % len(elements)]) for i in range(len(elements))]
    worst, tried, skipped = 0.0, 0, 0
    for g, h in pairs:
        try:
            rg, rh, rgh = (np.asarray(leaf.rho(m)) for m in (g, h, g @ h))
        except (RepError, NotImplementedError, RecursionError):
            skipped += 1
            continue
        worst, tried = max(worst, _rel(rgh - rg @ rh, rg @ rh)), tried + 1
    return HomomorphismCheck(str(leaf), "words", worst, tried, skipped)


def _brackets(leaf, G, lie) -> HomomorphismCheck:
    basis = G.lie.reshape(G.num_lie, -1).T
    worst, tried = 0.0, 0
    for i in range(G.num_lie):
        for j in range(i + 1, G.num_lie):
            C = G.lie[i] @ G.lie[j] - G.lie[j] @ G.lie[i]
            c, *_ = np.linalg.lstsq(basis, C.ravel(), rcond=None)
            if np.linalg.norm(basis @ c - C.ravel()) > 1e-8 * max(1.0, np.linalg.norm(C)):
                continue  # the group's basis is not closed under brackets here: nothing to compare with
            lhs = lie[i] @ lie[j] - lie[j] @ lie[i]
            scale = max(np.linalg.norm(lie[i]) * np.linalg.norm(lie[j]), 1e-300)
            worst = max(worst, float(np.linalg.norm(lhs - np.tensordot(c, lie, axes=1)) / scale))
            tried += 1
    return HomomorphismCheck(str(leaf), "brackets", worst, tried)


def check_leaf(leaf, n: int = 8, seed: int = 0, tolerance: float = HOM_TOLERANCE) -> list[HomomorphismCheck]:
    """The checks of one leaf (see the module docstring); raises ``HomomorphismError`` at the first that fails."""
    G = leaf.group
    if G is None:
        raise RepError(f"{leaf} is not bound to a group: give the group")
    disc, lie = (np.asarray(a) for a in leaf.generators())
    checks = []
    if G.num_lie:
        b = _brackets(leaf, G, lie)
        checks.append(b)
        if b.error > tolerance:
            raise HomomorphismError(leaf, "brackets", b.error, tolerance,
                                    "the bracket relation drho([A, B]) = [drho(A), drho(B)]")
    w = _words_enumerated(leaf, G, disc) if G.num_lie == 0 and G.num_discrete else None
    if w is None:
        w = _words_sampled(leaf, G, n, np.random.default_rng(seed))
    checks.append(w)
    if w.error > tolerance:
        raise HomomorphismError(leaf, "words", w.error, tolerance, "rho(g h) = rho(g) rho(h) on words of elements")
    return checks


def check_rep(*reps: Rep, n: int = 8, seed: int = 0, tolerance: float = HOM_TOLERANCE) -> list[HomomorphismCheck]:
    """Check every user-declared leaf of ``reps`` (the lab's own leaves are skipped); returns what was checked."""
    out = []
    for leaf in user_leaves(*reps):
        out += check_leaf(leaf, n=n, seed=seed, tolerance=tolerance)
    return out
