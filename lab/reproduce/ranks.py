"""Claim of Finzi's thesis (appendix A.1.5, Tables A.1-A.8): the rank r of the symmetric (equivariant) subspace of
tensor representations, for the thesis's groups.

The seed text leaves the tables out on purpose ("the project computes these numbers itself, and they are checked
independently"), so each rank the lab's solver finds is compared with a value from an independent source:

* permutation groups: orbit counting. Z(n) acts freely on index tuples: n**(k-1); S(n): the number of set
  partitions of k indices into at most n blocks, sum_j S(k, j) (Stirling numbers of the second kind; Bell(k)
  when n >= k);
* O(n), and SO(n) for k < n: Brauer's first fundamental theorem: (k-1)!! pairings for even k, 0 for odd k
  (n >= k keeps them independent); SO(n) with k = n adds the Levi-Civita tensor; SO(2) and SO(3) also by the
  Weyl integration formula, integrated numerically here (central binomial and Riordan numbers);
* Sp(2m): the pairings again ((k-1)!! for even k, 2m >= k);
* the Lorentz groups: SO+(1,3) has the invariants of SO(4) (same complexification), O(1,3) those of O(4);
* SU(n) on T(p, q): p! for p = q <= n (Schur-Weyl), the determinant for T(n, 0), and 0 when n does not divide
  p - q.
"""
from __future__ import annotations

import math

from .claim import Outcome, claim, judge


def stirling2(k: int, j: int) -> int:
    """Stirling number of the second kind S(k, j) (exact integers)."""
    return sum((-1) ** i * math.comb(j, i) * (j - i) ** k for i in range(j + 1)) // math.factorial(j)


def set_partitions(k: int, n: int) -> int:
    """Partitions of k indices into at most n blocks: the S(n) rank of T(k)."""
    return sum(stirling2(k, j) for j in range(1, min(n, k) + 1)) if k else 1


def pairings(k: int) -> int:
    """(k-1)!! perfect matchings of k indices (0 for odd k)."""
    return 0 if k % 2 else math.prod(range(k - 1, 0, -2))


def weyl_rank(group: str, k: int, points: int = 20000) -> int:
    """dim of the invariants of V^(x)k from the Weyl integration formula (numerical quadrature, rounded):
    SO(2): (1/2pi) int (2 cos t)^k dt; SO(3): (1/pi) int (1 + 2 cos t)^k (1 - cos t) dt."""
    import numpy as np

    t = (np.arange(points) + 0.5) * np.pi / points  # midpoint rule on [0, pi] (both integrands are even in t)
    if group == "SO(2)":
        value = np.mean((2 * np.cos(t)) ** k)
    else:
        value = np.mean((1 + 2 * np.cos(t)) ** k * (1 - np.cos(t)))
    return int(round(float(value)))


def cases(full: bool) -> list[tuple[str, str, int, str]]:
    """(group, rep, independent rank, source) rows; ``full`` adds the larger tensors."""
    kmax = 5 if full else 3
    rows = []
    for n in (3, 5) if not full else (3, 5, 8):
        rows += [(f"Z({n})", f"T({k})", n ** (k - 1), "free orbits: n^(k-1)") for k in range(1, kmax + 1)]
    for n in (3, 5):
        rows += [(f"S({n})", f"T({k})", set_partitions(k, n), "sum of Stirling numbers S(k, j), j <= n")
                 for k in range(1, kmax + 2)]
    for k in range(1, kmax + 2):
        rows.append(("SO(2)", f"T({k})", weyl_rank("SO(2)", k), "Weyl integration (central binomial)"))
        rows.append(("SO(3)", f"T({k})", weyl_rank("SO(3)", k), "Weyl integration (Riordan numbers)"))
    for k in range(1, (6 if full else 4) + 1):
        rows.append(("O(3)" if k <= 3 else "O(4)", f"T({k})", pairings(k), "Brauer: (k-1)!! pairings"))
    rows += [("SO(4)", "T(4)", pairings(4) + 1, "pairings + Levi-Civita"),
             ("SO13p()", "T(2)", 1, "SO(4): the metric"), ("SO13p()", "T(4)", pairings(4) + 1, "as SO(4)"),
             ("O13()", "T(4)", pairings(4), "as O(4): parity removes Levi-Civita"),
             ("Sp(2)", "T(2)", 1, "the symplectic form"), ("Sp(2)", "T(4)", pairings(4), "Brauer: (k-1)!!"),
             ("SU(2)", "T(1,1)", 1, "Schur-Weyl: 1!"), ("SU(2)", "T(2,2)", 2, "Schur-Weyl: 2!"),
             ("SU(3)", "T(3,0)", 1, "the determinant"), ("SU(3)", "T(2,1)", 0, "3 does not divide 1")]
    if full:
        rows += [("Sp(3)", "T(6)", pairings(6), "Brauer: (k-1)!!"), ("SU(3)", "T(3,3)", 6, "Schur-Weyl: 3!"),
                 ("O(5)", "T(6)", pairings(6), "Brauer")]
    return rows


CRITERION = "every solver rank equals the independent value"
NULL = ("a solver that ignores the group: the rank of the unconstrained space, dim of the representation, "
        "for every case")


def every_rank_agrees(count: dict) -> bool:
    """The criterion, read on {"agree": k, "cases": n}."""
    return count["cases"] > 0 and count["agree"] == count["cases"]


@claim("ranks-thesis", "thesis", "appendix A.1.5, Tables A.1-A.8",
       "The rank r of the symmetric subspace of tensors T_k (T(p,q) for SU(n)) for Z(n), S(n), SO(n), O(n), "
       "Sp(n), the Lorentz groups and SU(n), found by the equivariance solver.",
       paper_value="Tables A.1-A.8 (left out of the seed text)", seconds={"quick": 8, "full": 120},
       criterion=CRITERION, null=NULL)
def measure(profile):
    from ..groups import parse_group
    from ..reps.parse import parse_rep

    rows, agree, unconstrained = [], 0, 0
    table = cases(profile.full)
    for i, (group, rep, expected, source) in enumerate(table):
        profile.checkpoint()
        profile.progress(i / len(table), f"{rep} of {group}")
        bound = parse_rep(rep, parse_group(group))
        rank, size = bound.solve(cache=False).rank, bound.size
        agree += rank == expected
        unconstrained += size == expected
        rows.append([group, rep, rank, expected, source, "yes" if rank == expected else "NO", size])
    measured = {"agree": agree, "cases": len(rows)}
    holds, null = judge(every_rank_agrees, measured, NULL, {"agree": unconstrained, "cases": len(rows)})
    return Outcome(
        measured=f"{agree}/{len(rows)} ranks agree", holds=holds,
        settings={"cases": len(rows), "largest tensor order": max(int(r[1][2]) for r in rows), "cache": False,
                  "criterion": CRITERION},
        criterion=f"{CRITERION} ({len(rows)} of {len(rows)} cases)", null=null,
        evidence=[{"kind": "table", "title": "Rank of the equivariant subspace: solver against independent facts",
                   "columns": ["group", "rep", "solver rank", "independent", "source", "agree",
                               "dim of the rep (no symmetry)"], "rows": rows}],
        note="The thesis's tables are not in the seed text; the ranks are checked against closed forms and the "
             "Weyl integration formula instead of being copied.  The baseline, a solver that ignores the group "
             f"(rank = dim of the representation), agrees in {unconstrained} of {len(rows)} cases"
             + (": every rank in the table is a real reduction of the space, so agreement is not the trivial "
                "answer." if unconstrained == 0 else "."))
