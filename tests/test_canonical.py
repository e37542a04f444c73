"""The canonical basis (``Solution.basis()``, ``lab.solvers.canonical``) checked against independent facts:
the δ-pairings of invariant theory, the Levi-Civita symbol, the Minkowski metric; same space as the solver's
basis (projectors), equivariant, and drawn by default."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from lab import O, SO, SO13, SU, U, O13, S, parse_rep
from lab.errors import SolverError
from lab.basis.family import BasisConfig, coloring, layer, run
from lab.solvers.canonical import canonical_basis, rref

D3 = np.eye(3)


def dense(Q):
    return Q.toarray() if sp.issparse(Q) else np.asarray(Q)


def projector(B):
    """Orthogonal projector onto the column span of any basis B (not necessarily orthonormal)."""
    B = dense(B)
    return B @ np.linalg.pinv(B)


def as_set_up_to_sign(B):
    """Columns of B as a set of tuples, each with its first nonzero entry made positive."""
    out = set()
    for b in dense(B).T:
        b = np.real_if_close(b)
        first = b[np.flatnonzero(np.abs(b) > 1e-9)[0]]
        out.add(tuple(np.round(b / np.sign(first), 9).tolist()))
    return out


def test_so3_t2_to_t2_is_identity_swap_and_trace():
    """SO(3) on T(2) >> T(2): invariant theory says the maps are spanned by the three pairings of four indices
    (i, j out; k, l in): identity δ_ik δ_jl, transpose δ_il δ_jk, trace δ_ij δ_kl; so r = 3 and the canonical
    elements are exactly those 0/1 patterns, up to order and sign."""
    sol = (parse_rep("T(2)", SO(3)) >> parse_rep("T(2)", SO(3))).solve(cache=False)
    B = sol.basis()
    assert B.shape == (81, 3) and sol.rank == 3
    assert set(np.unique(B)) <= {-1.0, 0.0, 1.0}
    identity = np.einsum("ik,jl->ijkl", D3, D3).reshape(81)
    swap = np.einsum("il,jk->ijkl", D3, D3).reshape(81)
    trace = np.einsum("ij,kl->ijkl", D3, D3).reshape(81)
    assert as_set_up_to_sign(B) == as_set_up_to_sign(np.stack([identity, swap, trace], axis=1))


def test_so3_t1_to_t2_is_the_levi_civita_symbol():
    sol = (parse_rep("V", SO(3)) >> parse_rep("T(2)", SO(3))).solve(cache=False)
    eps = np.zeros((3, 3, 3))
    for p in itertools.permutations(range(3)):
        eps[p] = np.linalg.det(np.eye(3)[list(p)])  # the parity of the permutation
    assert as_set_up_to_sign(sol.basis()) == as_set_up_to_sign(eps.reshape(27, 1))


def test_so3_t3_to_t3_elements_are_the_fifteen_pairings():
    """T(3) >> T(3) of SO(3): 15 invariants (the perfect matchings of 6 indices, independent for d = 3), each a
    product of three δ's: 27 entries equal to 1."""
    sol = (parse_rep("T(3)", SO(3)) >> parse_rep("T(3)", SO(3))).solve(cache=False)
    B = sol.basis()
    matchings = []

    def match(rest, pairs):
        if not rest:
            matchings.append(pairs)
            return
        a = rest[0]
        for b in rest[1:]:
            match([x for x in rest if x not in (a, b)], pairs + [(a, b)])

    match(list(range(6)), [])
    letters = "abcdef"
    expected = [np.einsum(",".join(letters[a] + letters[b] for a, b in m) + "->" + letters, D3, D3, D3).reshape(-1)
                for m in matchings]
    assert len(matchings) == 15 == sol.rank
    assert as_set_up_to_sign(B) == as_set_up_to_sign(np.stack(expected, axis=1))


CASES = [(SO(3), "T(2)", "T(2)"), (O(3), "T(2)", "T(2)"), (SO(3), "T(2)+V", "T(2)+V"), (SO13(), "T(2)", "T(2)"),
         (O13(), "V.T", "V"), (SO(3), "T(3)", "T(2)"), (U(2), "T(2)", "T(2)"), (SU(2), "T(2)", "T(1)+Scalar")]


@pytest.mark.parametrize("group, a, b", CASES, ids=[f"{g}:{a}>>{b}" for g, a, b in CASES])
def test_canonical_basis_spans_the_solver_space_and_is_equivariant(group, a, b, rng):
    rep_in, rep_out = parse_rep(a, group), parse_rep(b, group)
    sol = (rep_in >> rep_out).solve(cache=False)
    B = sol.basis("canonical")
    assert B.shape == (sol.dim, sol.rank) and np.linalg.matrix_rank(B) == sol.rank
    np.testing.assert_allclose(projector(B), projector(sol.basis("solver")), atol=1e-9)
    for k in range(sol.rank):
        W = B[:, k].reshape(rep_out.size, rep_in.size)
        for g in group.sample(2, rng=rng):
            np.testing.assert_allclose(rep_out.rho(g) @ W, W @ rep_in.rho(g), atol=1e-8)
        for A in group.lie:
            np.testing.assert_allclose(rep_out.drho(A) @ W, W @ rep_in.drho(A), atol=1e-8)


def test_minkowski_metric_and_lorentz_t2_are_sparse_signed_patterns():
    """SO(1,3) on T(2) >> T(2): the three products of two metrics η (16 nonzero ±1 entries each) and the
    Levi-Civita ε_ijkl (4! = 24 entries ±1): the canonical basis has exactly these supports."""
    sol = (parse_rep("T(2)", SO13()) >> parse_rep("T(2)", SO13())).solve(cache=False)
    B = sol.basis()
    assert sorted(np.count_nonzero(B, axis=0).tolist()) == [16, 16, 16, 24]
    assert set(np.unique(B)) == {-1.0, 0.0, 1.0}


def test_orbit_solutions_give_their_unnormalised_orbit_patterns():
    sol = parse_rep("T(2)", S(4)).solve(cache=False)
    B = dense(sol.basis())
    assert set(np.unique(B)) == {0.0, 1.0} and B.shape == (16, 2)
    np.testing.assert_allclose(projector(B), projector(sol.basis("solver")), atol=1e-12)
    with pytest.raises(SolverError, match="unknown basis"):
        sol.basis("pretty")


def test_rref_and_canonical_of_a_random_space(rng):
    """Of a generic space (no structure): RREF has the identity at its pivots, pivots are the first columns, and
    the canonical basis still spans it exactly."""
    Q, _ = np.linalg.qr(rng.standard_normal((12, 4)))
    R, pivots = rref(Q.T)
    assert pivots == [0, 1, 2, 3]
    np.testing.assert_allclose(R[:, pivots], np.eye(4), atol=1e-12)
    np.testing.assert_allclose(projector(canonical_basis(Q)), Q @ Q.T, atol=1e-9)
    assert canonical_basis(np.zeros((5, 0))).shape == (5, 0)


def test_canonical_is_the_default_drawn_and_solver_is_an_option():
    """What the dashboard and ``lab basis --png`` draw: the canonical elements by default (entries 0/1 for SO(3)
    on T(2)), the solver's orthonormal mixture with basis="solver"."""
    canonical = coloring(layer("SO(3)", "T(2)", "T(2)"))
    assert canonical.basis == "canonical" and "canonical basis elements" in canonical.note
    assert all(set(np.unique(tile)) <= {0.0, 1.0} for tile in canonical.gallery)
    result = run(BasisConfig(group="SO(3)", rep="T(2)", rep_out="T(2)", basis="solver"))
    solver = coloring(result)
    assert solver.basis == "solver" and "as the solver returned them" in solver.note
    Q = result.solution.Q
    for k, tile in enumerate(solver.gallery):  # the solver's own columns, each scaled to max |value| = 1
        np.testing.assert_allclose(tile.ravel(), Q[:, k] / np.abs(Q[:, k]).max(), atol=1e-12)
    with pytest.raises(Exception, match="choose one of"):
        BasisConfig(basis="pretty").validate()
