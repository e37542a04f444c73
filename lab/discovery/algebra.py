"""A learned algebra, measured and handed to the engine (issue 33).

* ``principal_angles`` -- between the learned generators' span and the true algebra's (radians; all zero when the
  spans agree), as scipy's ``subspace_angles``;
* ``structure_constants`` -- c_ijk with [L_i, L_j] ~ sum_k c_ijk L_k (least squares in the learned span) and the
  closure residual: how far the learned generators are from closing into a Lie algebra (0 for an exact one);
* ``learned_group`` -- a ``Group`` whose Lie-algebra basis is the learned input generators (acting on R^d_in), its
  input rep ``V`` and the output rep (``Scalar``, or a ``UserRep`` of the learned output generators), so that the
  rep language, the solvers and ``lab.nn`` take it like any group;
* ``tolerant_basis`` -- the equivariant basis of a rep of a learned group: learned generators are only approximately
  a Lie algebra, so the exact solvers (relative rank tolerance 1e-7) would find no equivariant maps at all; here the
  basis is the right singular vectors of the stacked constraint [drho(L_1); ...; drho(L_k)] whose singular values
  fall below ``tol`` x the largest, and the report carries the singular values around the cut (the gap that
  justifies it).  An algebra fixes only the identity component: so(3) gives SO(3)'s basis, never O(3)'s.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..errors import LabError
from ..groups import Group
from ..groups.generators import digest

#: the default cut, relative to the largest singular value of the stacked constraint
TOL = 0.2


def principal_angles(learned: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Principal angles (radians, ascending) between span(rows of learned) and span(rows of truth)."""
    if len(learned) == 0 or len(truth) == 0:
        return np.zeros(0)
    return np.sort(scipy.linalg.subspace_angles(np.asarray(learned).T, np.asarray(truth).T))


def structure_constants(gens: list[np.ndarray]) -> tuple[np.ndarray, float]:
    """``(c, residual)``: c[i, j, k] with [L_i, L_j] ~ sum_k c_ijk L_k, and the relative residual of that fit over all
    the brackets together, |outside parts| / |brackets| (Frobenius over every pair; 0: the learned span closes under
    the bracket).  Pooled, not the worst pair's: a pair that should commute (inertia's mass-position trades with
    anything) has a bracket of pure noise, entirely "outside", which would read as 1 however closed the rest is."""
    k = len(gens)
    if k == 0:
        return np.zeros((0, 0, 0)), 0.0
    basis = np.stack([g.ravel() for g in gens], 1)
    c = np.zeros((k, k, k))
    outside = total = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            br = gens[i] @ gens[j] - gens[j] @ gens[i]
            coef, *_ = np.linalg.lstsq(basis, br.ravel(), rcond=None)
            c[i, j], c[j, i] = coef, -coef
            outside += float(np.sum((basis @ coef - br.ravel()) ** 2))
            total += float(np.sum(br ** 2))
    scale = sum(float(np.sum(g ** 2)) for g in gens) / k  # a generator's squared size
    if total <= 1e-24 * scale ** 2:  # an abelian span: every bracket vanishes
        return c, 0.0
    return c, float(np.sqrt(outside / total))


class LearnedGroup(Group):
    """A group given by learned Lie-algebra generators and the tolerance its bases are solved with: the dense solver
    counts singular values above ``rank_tol`` x the largest as constraints (every solve of its reps, ``lab.nn``'s
    layers included; the disk cache is not used for it)."""

    description = "a group given by learned Lie-algebra generators (lab.discovery)"

    def __init__(self, lie, tol: float = TOL, name: str = "Learned"):
        lie = np.asarray(lie, dtype=np.float64)
        super().__init__(lie=lie, d=lie.shape[1], name=name)
        self.rank_tol = float(tol)

    @property
    def key(self) -> str:
        return digest(self.generators, self._lie, self.d) + f"-tol{self.rank_tol:g}"


def learned_group(A: list[np.ndarray], B: list[np.ndarray] | None = None, name: str = "Learned", tol: float = TOL):
    """``(G, rep_in, rep_out)``: the group with Lie-algebra basis ``A`` on R^d_in, its ``V`` and the output rep (the
    ``UserRep`` ``name + "Out"`` of ``B``, or ``Scalar`` (d_out copies of it) when B is absent or zero)."""
    from ..reps import Scalar, UserRep, V

    if not A:
        raise LabError("no generators were learned: there is no group to build")
    G = LearnedGroup(np.stack(A), tol=tol, name=name)
    if B is None or all(np.allclose(b, 0) for b in B):
        n = 1 if B is None else B[0].shape[0]
        return G, V(G), Scalar(G) if n == 1 else n * Scalar(G)  # an output the learned flow leaves fixed
    out = UserRep(f"{name}Out", G, lie=np.stack(B), check=False)
    return G, V(G), out


@dataclass
class TolerantBasis:
    basis: np.ndarray  # (size, rank) orthonormal columns
    singular_values: np.ndarray  # of the stacked constraint, descending, relative to the largest
    rank: int
    tol: float
    gap: dict  # {"below": the largest kept value, "above": the smallest cut one, "ratio": above / below}


def tolerant_basis(rep, tol: float = TOL) -> TolerantBasis:
    """The equivariant basis of ``rep`` (a rep of a learned group): right singular vectors of the stacked Lie
    constraints whose singular values are at most ``tol`` x the largest (dense; the rep must be small)."""
    G = rep._require_group()
    size = rep.size
    if size > 4096:
        raise LabError(f"a tolerant solve is dense: {size} entries is over its limit of 4096")
    stack = np.vstack([np.asarray(rep.drho(A), dtype=np.float64) for A in G.lie])
    _, s, vh = np.linalg.svd(stack, full_matrices=True)
    s_full = np.zeros(size)
    s_full[:len(s)] = s
    top = s_full[0] if s_full[0] > 0 else 1.0
    rel = s_full / top
    keep = rel <= tol
    rank = int(keep.sum())
    basis = vh[keep].T
    kept, cut = rel[keep], rel[~keep]
    below = float(kept.max()) if rank else None
    above = float(cut.min()) if len(cut) else None
    gap = {"below": below, "above": above,
           "ratio": (above / below) if (below and above) else (float("inf") if above else None)}
    return TolerantBasis(basis, rel, rank, tol, gap)
