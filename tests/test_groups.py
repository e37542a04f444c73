"""Groups: orders against known values, sampled elements lie in the group, parsing of group text."""
import itertools
import math

import numpy as np
import pytest
import scipy.linalg

from lab import (C, D, GCNN, O, O13, SO, SO13, SO13p, SU, U, Alt, C4Grid, Cube, DihedralPerm, Group,
                 GroupError, ParseError, RubiksCube, S, Sp, Trivial, Z, group_catalog, parse_group, parse_rep)
from lab.groups import GL, SL


@pytest.mark.parametrize("group, order", [
    (Z(7), 7), (S(5), 120), (S(1), 1), (Alt(5), 60), (Alt(4), 12), (DihedralPerm(6), 12),
    (C4Grid(3), 4), (GCNN(3), 36), (Cube(), 24), (Trivial(4), 1), (Z(3) * Z(4), 12),
    (C(6), 6), (D(5), 10), (C(4), 4), (D(4), 8),
    (RubiksCube(), 43_252_003_274_489_856_000),  # the number of positions of the Rubik's cube
])
def test_orders_match_known_values(group, order):
    assert group.order() == order


def test_rubiks_cube_facets_and_generators():
    G = RubiksCube()
    assert G.d == 48 and G.num_discrete == 6 and G.is_permutation
    perms, _ = G.perms
    for p in perms:  # a quarter turn moves 8 corner facets... 12 + 8 = 20 facets
        assert np.count_nonzero(p != np.arange(48)) == 20
        assert np.array_equal(np.linalg.matrix_power(G.discrete[0], 4), np.eye(48))


def _is_in(group_name, g):
    if group_name.startswith("SO(") and "13" not in group_name:
        return np.allclose(g.T @ g, np.eye(len(g))) and np.isclose(np.linalg.det(g), 1)
    if group_name.startswith("O("):
        return np.allclose(g.T @ g, np.eye(len(g)))
    if "13" in group_name:
        eta = np.diag([-1.0, 1, 1, 1])
        ok = np.allclose(g.T @ eta @ g, eta)
        if group_name == "SO13p()":
            ok = ok and np.isclose(np.linalg.det(g), 1) and g[0, 0] >= 1
        if group_name == "SO13()":
            ok = ok and np.isclose(np.linalg.det(g), 1)
        return ok
    if group_name.startswith("Sp("):
        J = Sp(len(g) // 2).J
        return np.allclose(g.T @ J @ g, J)
    if group_name.startswith("U("):
        return np.allclose(g.conj().T @ g, np.eye(len(g)))
    if group_name.startswith("SU("):
        return np.allclose(g.conj().T @ g, np.eye(len(g))) and np.isclose(np.linalg.det(g), 1)
    if group_name.startswith("SL("):
        return np.isrealobj(g) and np.isclose(np.linalg.det(g), 1)
    if group_name.startswith("GL("):
        return np.isrealobj(g) and abs(np.linalg.det(g)) > 1e-6
    raise AssertionError(group_name)


@pytest.mark.parametrize("group", [SO(3), SO(4), O(3), SO13p(), SO13(), O13(), Sp(2), U(3), SU(2), SU(3),
                                   SL(2), SL(3), GL(1), GL(3)])
def test_lie_group_samples_and_algebra_are_in_the_group(group, rng):
    for g in group.sample(5, rng=rng):
        assert _is_in(group.name, g)
    for A in group.lie:  # exp of every Lie algebra basis element lies in the identity component
        assert _is_in(group.name, scipy.linalg.expm(0.7 * A))
    for h in group.discrete:
        assert _is_in(group.name if group.name != "SO13p()" else "SO13()", h) or group.name == "O13()"


def test_lorentz_samples_reach_every_component(rng):
    signs = {(np.sign(np.linalg.det(g)), np.sign(g[0, 0])) for g in O13().sample(60, rng=rng)}
    assert signs == {(1, 1), (1, -1), (-1, 1), (-1, -1)}
    assert {np.sign(g[0, 0]) for g in SO13().sample(40, rng=rng)} == {1, -1}
    assert {round(np.linalg.det(g)) for g in O(3).sample(40, rng=rng)} == {1, -1}


def test_finite_sampling_is_uniform(rng):
    """S(3): each of the 6 permutations about 1/6 of the time (chi-square, 5 dof, p ~ 1e-4 cut-off)."""
    G = S(3)
    n = 3000
    keys = [tuple(np.argmax(g, axis=0)) for g in G.sample(n, rng=rng)]
    counts = np.array([keys.count(k) for k in set(keys)])
    assert len(counts) == 6
    chi2 = ((counts - n / 6) ** 2 / (n / 6)).sum()
    assert chi2 < 25.7


def test_signed_permutation_sampling_stays_in_group(rng):
    G = C(4)  # rotations by 90 degrees: signed permutation matrices
    assert G.is_signed_permutation and not G.is_permutation
    elements = {G._mat_key(e) for e in G.elements()}
    assert len(elements) == 4
    assert all(G._mat_key(g) in elements for g in G.sample(50, rng=rng))


def test_product_group_acts_on_grid():
    G = Z(3) * Z(4)
    assert G.d == 12 and G.is_permutation
    grid = np.arange(12).reshape(3, 4)
    shifted = (G.discrete[0] @ grid.ravel()).reshape(3, 4)  # first factor shifts rows
    assert np.array_equal(shifted, np.roll(grid, 1, axis=0))


def test_from_generators_detects_permutations_and_lie():
    P = np.eye(3)[[1, 2, 0]]
    G = Group.from_generators(discrete=[P], name="Z3")
    assert G.is_permutation and G.order() == 3
    H = Group.from_generators(lie=SO(3).lie, name="myso3")
    assert H.num_lie == 3 and not H.is_signed_permutation
    with pytest.raises(GroupError):
        Group.from_generators(discrete=[np.eye(3)], lie=[np.eye(2)])
    with pytest.raises(GroupError):
        Group.from_generators()


def test_parse_group_text():
    assert parse_group("S(5)") == S(5)
    assert parse_group(" Z(8) * Z(8) ").d == 64
    assert parse_group("SO13()").num_discrete == 1
    assert parse_group("RubiksCube").d == 48
    for bad, exc in [("S(0)", GroupError), ("Foo(3)", GroupError), ("S(3", ParseError), ("S(1,2)", GroupError),
                     ("S(-1)", ParseError), ("*S(3)", ParseError), ("S(3)*", ParseError), ("", ParseError)]:
        with pytest.raises(exc):
            parse_group(bad)
    with pytest.raises(ParseError) as info:
        parse_group("S(3) Z(2)")
    assert info.value.position == 5


def test_catalog_lists_every_group():
    names = [sig.split("(")[0] for sig, _ in group_catalog()]
    for required in ["Trivial", "Z", "S", "Alt", "DihedralPerm", "C4Grid", "GCNN", "Cube", "RubiksCube",
                     "C", "D", "SO", "O", "SO13p", "SO13", "O13", "Sp", "SL", "GL", "U", "SU"]:
        assert required in names
    assert all(desc for _, desc in group_catalog())


def test_group_orders_by_closure_agree_with_sympy():
    for G in [DihedralPerm(5), Alt(4), C4Grid(2), Cube()]:
        assert len(G.elements()) == G.order()
    assert math.factorial(6) // 2 == Alt(6).order()


def test_one_stored_form_for_generators():
    """A generator given as a signed-permutation matrix or as index arrays is the same generator."""
    P = np.array([[0.0, 0, 1], [1, 0, 0], [0, -1, 0]])  # e0 -> e1, e1 -> -e2, e2 -> e0
    as_matrix = Group(discrete=[P], name="A")
    as_perm = Group(perms=[[1, 2, 0]], signs=[[1, -1, 1]], name="B")
    assert as_matrix == as_perm and as_matrix.key == as_perm.key
    for G in (as_matrix, as_perm):
        assert G.is_signed_permutation and not G.is_permutation
        assert np.array_equal(G.discrete[0], P)
        assert G.perms[0].tolist() == [[1, 2, 0]] and G.perms[1].tolist() == [[1, -1, 1]]
        assert G.generators[0].is_signed_permutation
    with pytest.raises(ValueError):
        as_perm.discrete[0, 0, 0] = 5.0  # views are read-only: the stored form cannot drift
    # a reflection of O(3) keeps its permutation form, but a group with a Lie algebra is not a
    # signed-permutation group
    G = O(3)
    assert G.generators[0].is_signed_permutation and not G.is_signed_permutation
    with pytest.raises(GroupError):
        G.perms
    assert not Group(discrete=[scipy.linalg.expm(0.3 * SO(2).lie[0])]).generators[0].is_signed_permutation


def test_direct_products_keep_signed_permutations_without_matrices():
    G = Z(3) * S(3)
    assert G.is_permutation and all(g.is_signed_permutation for g in G.generators)
    assert all(g._matrix is None for g in G.generators)  # no d x d matrix built for the product
    expected = [np.kron(h, np.eye(3)) for h in Z(3).discrete] + [np.kron(np.eye(3), h) for h in S(3).discrete]
    assert np.array_equal(G.discrete, np.stack(expected))
    H = SO(2) * C(4)  # a Lie factor: the product carries both, and the discrete part stays exact
    assert H.num_lie == 1 and H.num_discrete == 1 and not H.is_signed_permutation
    assert np.allclose(H.discrete[0], np.kron(np.eye(2), C(4).discrete[0]))
    assert (S(2) * S(2) * S(2)).order() == 8


# ---------------------------------------------------------------------------------------------- SL(n), GL(n)
def test_linear_groups_parse_and_are_not_orthogonal(rng):
    """SL(n), GL(n) are real but not orthogonal: V* (inv(g)^T) differs from V, so T(1,1) is not T(2)."""
    assert parse_group("SL(3)") == SL(3) and parse_group("GL(2)") == GL(2) and parse_group("GL(2)*SL(2)").d == 4
    with pytest.raises(GroupError):
        parse_group("SL(1)")  # trivial: Trivial(1)
    assert GL(1).num_lie == 1 and GL(1).num_discrete == 1  # R^* = exp(R) and -1
    for G, dim in [(SL(2), 3), (SL(4), 15), (GL(3), 9)]:
        assert G.num_lie == dim and not G.is_complex
        assert not G.is_orthogonal and not G.is_unitary
        assert np.allclose([np.trace(A) for A in G.lie], 0) == isinstance(G, SL)
        g = G.sample(rng=rng)
        mixed, twice = parse_rep("T(1,1)", G), parse_rep("T(2)", G)
        assert np.allclose(mixed.rho(g), np.kron(g, np.linalg.inv(g).T))
        assert np.allclose(twice.rho(g), np.kron(g, g)) and not np.allclose(mixed.rho(g), twice.rho(g))
    assert GL(2).discrete[0].tolist() == [[-1.0, 0.0], [0.0, 1.0]]


def test_linear_group_samples_are_in_the_group_and_well_conditioned(rng):
    """det 1 (SL) or both signs of det (GL: both components), and condition numbers a float32 check of a
    network on T(3) can live with (the sampler bounds them by its stretch, see lab.groups.matrix)."""
    sl, gl = SL(5).sample(100, rng=rng), GL(5).sample(100, rng=rng)
    assert np.allclose(np.linalg.det(sl), 1, atol=1e-10)
    assert set(np.sign(np.linalg.det(gl)).astype(int)) == {-1, 1}
    assert np.linalg.cond(sl).max() < 100 and np.linalg.cond(gl).max() < 100
    assert np.linalg.cond(sl).max() > 1.5  # not only rotations
    assert not np.allclose(np.abs(np.linalg.det(gl)), 1)  # GL stretches volumes too


def _permutation_tensors(n, k):
    """The k! tensors delta_{i1 j_s(1)} ... delta_{ik j_s(k)} of T(k,k) (V^k first, then V*^k), flattened."""
    out = []
    for sigma in itertools.permutations(range(k)):
        t = np.zeros((n,) * (2 * k))
        for idx in itertools.product(range(n), repeat=k):
            t[idx + tuple(idx[sigma.index(a)] for a in range(k))] = 1.0  # j_{s(a)} = i_a
        out.append(t.ravel())
    return np.array(out)


def _levi_civita(n):
    eps = np.zeros((n,) * n)
    for p in itertools.permutations(range(n)):
        eps[p] = np.linalg.det(np.eye(n)[list(p)])
    return eps.ravel()[None]


@pytest.mark.parametrize("group, rep, known, solvers", [
    (GL(3), "T(1,1)", 1, ["dense", "krylov", "subgroup"]), (GL(3), "V >> V", 1, ["dense", "krylov", "auto"]),
    (GL(3), "T(2,2)", 2, ["dense", "krylov", "subgroup"]), (GL(3), "T(3,3)", 3, ["subgroup", "auto"]),
    (SL(3), "T(2,2)", 2, ["dense", "krylov"]), (SL(3), "T(3,3)", 3, ["dense", "subgroup"]),
    (SL(3), "V >> V", 1, ["dense", "krylov", "auto"]), (GL(1), "V >> V", 1, ["dense", "subgroup"]),
    (SL(2), "T(2)", "eps", ["dense", "krylov", "subgroup"]), (SL(2), "T(0,2)", "eps", ["dense", "krylov"]),
    (SL(3), "T(3)", "eps", ["dense", "krylov", "subgroup"]), (SL(3), "T(0,3)", "eps", ["dense", "subgroup"]),
])
def test_linear_group_invariants_are_the_known_tensors(group, rep, known, solvers, rng):
    """Invariants known without a solver: the k! permutation tensors of T(k,k) (``known`` = k <= n, Schur-Weyl;
    V >> V: the identity), for SL also the Levi-Civita symbol in T(n) and T(0,n).  Each is checked invariant
    under sampled elements (so the index layout is the one the reps use), and every solver's basis must have
    exactly their number of elements and contain them."""
    r = parse_rep(rep, group)
    tensors = _levi_civita(group.d) if known == "eps" else _permutation_tensors(group.d, known)
    assert len(tensors) == (1 if known == "eps" else math.factorial(known))
    for g in group.sample(3, rng=rng):
        assert np.allclose(tensors @ r.rho(g).T, tensors)
    for solver in solvers:
        Q = np.asarray(r.solve(solver=solver, cache=False).Q)
        assert Q.shape[1] == len(tensors), solver
        residual = tensors.T - Q @ (Q.conj().T @ tensors.T)  # the known tensors lie in the solved space
        assert np.abs(residual).max() < 1e-6, solver


@pytest.mark.parametrize("group", [GL(2), GL(3), SL(3)])
def test_linear_group_has_no_invariants_off_the_diagonal_p_q(group):
    """Nothing is invariant in T(p,q) for p != q: the scalars t*I of GL act as t^(p-q); SL(n, R) is connected, so
    its invariants are those of sl(n) and of SL(n, C), whose centre w*I (w^n = 1) acts as w^(p-q), and n does
    not divide p - q here."""
    for rep in ["V", "T(0,1)", "T(2)", "T(0,2)", "T(2,1)", "T(1,2)", "T(3,1)"]:
        r = parse_rep(rep, group)
        for solver in ["dense", "krylov"]:
            assert r.solve(solver=solver, cache=False).rank == 0, (rep, solver)
