"""User-declared representations checked against independent facts: a copy of V solves like V, SO(3)
irreps obey the Lie bracket, the Casimir value l(l+1), Schur's lemma and the Clebsch-Gordan rule, the
regular representation obeys character theory; reps compare by value and the rep language names them."""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from lab import SO, Group, ParseError, RepError, S, SolverError, T, V, Z, parse_rep
from lab.reps import (Block, Leaf, Scalar, UserRep, register_rep, registered_reps, regular_rep, so3_irrep,
                      unregister_rep)


def dense(Q):
    return Q.toarray() if sp.issparse(Q) else np.asarray(Q)


def projector(Q):
    Q = dense(Q)
    return Q @ Q.conj().T


@pytest.fixture
def clean_registry():
    before = registered_reps()
    yield
    for name in registered_reps():
        if name not in before:
            unregister_rep(name)


# ---------------------------------------------------------------------- a copy of V behaves as V
PAIRS = [("V >> V", "W >> W"), ("T(2) >> V", "W*W >> W"), ("V >> T(2)", "W >> W**2"), ("T(3)", "W**3"),
         ("V.T*V + Scalar", "W.T*W + Scalar")]


@pytest.mark.parametrize("text_v, text_w", PAIRS)
def test_user_copy_of_v_gives_the_bases_of_v_for_s4(text_v, text_w):
    G = S(4)
    W = UserRep("W", G, discrete=G.discrete)
    rep_v = parse_rep(text_v, G)
    rep_w = parse_rep(text_w, G, names={"W": W})
    assert rep_w.size == rep_v.size
    sol_v = rep_v.solve(cache=False)
    sol_w = rep_w.solve(cache=False)
    assert sol_v.solver == "orbit" and "dense" in sol_w.solver  # the fast path is only for V itself
    assert np.allclose(projector(sol_v.Q), projector(sol_w.Q), atol=1e-10)


@pytest.mark.parametrize("solver", ["dense", "krylov"])
def test_user_copy_of_v_gives_the_bases_of_v_for_so3(solver):
    G = SO(3)
    W = UserRep("W", G, lie=G.lie)
    for text_v, text_w in PAIRS[:4]:
        sol_v = parse_rep(text_v, G).solve(solver=solver, cache=False)
        sol_w = parse_rep(text_w, G, names={"W": W}).solve(solver=solver, cache=False)
        assert sol_v.rank == sol_w.rank
        assert np.allclose(projector(sol_v.Q), projector(sol_w.Q), atol=1e-7)


# ---------------------------------------------------------------------- equality by value
def test_reps_are_equal_by_value_not_by_text():
    G = S(3)
    pairs = [(T(2), V * V), (T(1, 1), V >> V), (2 * V, V + V), (V.T.T, V), (V * Scalar, V),
             ((V + Scalar).T, V.T + Scalar), (V ** 3, V * (V * V))]
    for a, b in pairs:
        assert a == b and hash(a) == hash(b)
        assert a(G) == b(G) and hash(a(G)) == hash(b(G))
    assert V(G) != V(Z(3)) and V(G) != V and T(2)(G) != T(1, 1)(Z(3))
    assert V * V.T != V.T * V and V + Scalar != Scalar + V and T(2) != T(3)
    assert {T(2)(G): 1, (V * V)(G): 2} == {T(2)(G): 2}


def test_user_reps_that_print_alike_are_not_equal():
    G = Z(2)
    sign = UserRep("X", G, discrete=[[[-1.0]]])
    trivial = UserRep("X", G, discrete=[[[1.0]]])
    assert str(sign) == str(trivial) and sign != trivial and sign.digest != trivial.digest
    assert str(sign >> V) == str(trivial >> V) and (sign >> V) != (trivial >> V)
    copy = UserRep("Y", G, discrete=[[[-1.0]]])
    assert copy == sign and hash(copy) == hash(sign)  # the name is how it prints, not what it is
    # same printed name, different matrices: the basis cache must not confuse them
    assert (sign >> Scalar(G)).solve().rank == 0
    assert (trivial >> Scalar(G)).solve().rank == 1
    assert (sign >> sign).solve().rank == 1


def test_blocks_are_frozen_values_usable_as_keys():
    G = SO(3)
    L2 = so3_irrep(2)
    rep = (L2 + V + V) >> (V + L2)
    seen = {}
    for b in rep(G).blocks:
        seen[b] = seen.get(b, 0) + 1
    assert sum(seen.values()) == 6 and len(seen) == 6  # positions differ, so every block is its own key
    distinct = {b.factors for b in rep(G).blocks}
    assert len(distinct) == 4  # V*V.T, V*L2.T, L2*V.T and L2*L2.T
    b = rep(G).blocks[0]
    assert b == Block(b.factors, b.size, b.offset, None if b.index is None else b.index.copy())
    with pytest.raises(AttributeError):
        b.size = 3
    if b.index is not None:
        with pytest.raises(ValueError):
            b.index[0] = 7
    assert {L2.dual: 1}[so3_irrep(2).T] == 1


# ---------------------------------------------------------------------- SO(3) irreps
def bracket_coefficients(lie):
    """c[i, j] with [A_i, A_j] = sum_k c[i, j, k] A_k, by least squares on the basis."""
    D = len(lie)
    M = lie.reshape(D, -1).T
    c = np.zeros((D, D, D))
    for i, j in itertools.product(range(D), repeat=2):
        br = lie[i] @ lie[j] - lie[j] @ lie[i]
        c[i, j] = np.linalg.lstsq(M, br.ravel(), rcond=None)[0]
        assert np.allclose(M @ c[i, j], br.ravel())
    return c


@pytest.mark.parametrize("l", [0, 1, 2, 3])
def test_so3_irrep_is_a_lie_algebra_homomorphism_with_casimir_l_l_plus_1(l):
    G = SO(3)
    rep = so3_irrep(l)
    assert rep.size == 2 * l + 1 and rep.group == G
    _, drho = rep.generators()
    c = bracket_coefficients(G.lie)
    for i, j in itertools.product(range(3), repeat=2):
        lhs = drho[i] @ drho[j] - drho[j] @ drho[i]
        assert np.allclose(lhs, np.tensordot(c[i, j], drho, axes=1), atol=1e-12)
    for A in drho:
        assert np.isrealobj(A) and np.allclose(A.T, -A)
    # the basis is (+-L_z, +-L_y, +-L_x): the Casimir sum of squares is -l(l+1) on the spin-l irrep
    assert np.allclose(sum(A @ A for A in drho), -l * (l + 1) * np.eye(2 * l + 1), atol=1e-10)


def test_so3_irrep_rho_is_a_group_homomorphism_and_solutions_are_equivariant(rng):
    G = SO(3)
    rep = (so3_irrep(2) * V) >> so3_irrep(1)
    g1, g2 = G.sample(2, rng=rng)
    L2 = so3_irrep(2)
    assert np.allclose(L2.rho(g1 @ g2), L2.rho(g1) @ L2.rho(g2), atol=1e-9)
    assert np.allclose(L2.rho(g1) @ L2.rho(g1).T, np.eye(5), atol=1e-10)
    sol = rep.solve(cache=False)
    assert sol.rank == 1
    for g in G.sample(3, rng=rng):
        assert np.allclose(rep.act(g, sol.Q), sol.Q, atol=1e-8)
        assert np.allclose(rep.rho(g) @ sol.Q, sol.Q, atol=1e-8)


def test_so3_irrep_1_is_v_and_t2_splits_into_l0_l1_l2():
    assert (so3_irrep(1) >> V).solve(cache=False).rank == 1
    for l, expected in [(0, 1), (1, 1), (2, 1), (3, 0)]:  # R^3 (x) R^3 = 1 + 3 + 5
        assert (T(2) >> so3_irrep(l)).solve(cache=False).rank == expected


@pytest.mark.parametrize("l1, l2", [(a, b) for a in range(4) for b in range(4)])
def test_schur_lemma_for_so3_irreps(l1, l2):
    rank = (so3_irrep(l1) >> so3_irrep(l2)).solve(solver="dense", cache=False).rank
    assert rank == (1 if l1 == l2 else 0)


@pytest.mark.parametrize("l1, l2", [(1, 2), (2, 2), (3, 0)])
def test_schur_lemma_with_the_krylov_solver(l1, l2):
    rank = (so3_irrep(l1) >> so3_irrep(l2)).solve(solver="krylov", cache=False).rank
    assert rank == (1 if l1 == l2 else 0)


CG = [(l1, l2, l) for l1 in range(3) for l2 in range(3) for l in range(5)]


@pytest.mark.parametrize("l1, l2, l", CG, ids=[f"{a}x{b}->{c}" for a, b, c in CG])
def test_clebsch_gordan_counts(l1, l2, l):
    rep = (so3_irrep(l1) * so3_irrep(l2)) >> so3_irrep(l)
    assert rep.size == (2 * l1 + 1) * (2 * l2 + 1) * (2 * l + 1)
    assert rep.solve(solver="dense", cache=False).rank == (1 if abs(l1 - l2) <= l <= l1 + l2 else 0)


@pytest.mark.parametrize("l1, l2, l", [(1, 2, 2), (2, 2, 4), (2, 2, 1), (1, 1, 2), (2, 1, 4)])
def test_clebsch_gordan_counts_with_krylov_agree_with_dense(l1, l2, l):
    rep = (so3_irrep(l1) * so3_irrep(l2)) >> so3_irrep(l)
    kr = rep.solve(solver="krylov", cache=False)
    assert kr.rank == (1 if abs(l1 - l2) <= l <= l1 + l2 else 0)
    de = rep.solve(solver="dense", cache=False)
    assert np.allclose(projector(kr.Q), projector(de.Q), atol=1e-7)


def test_mixed_dimensions_in_one_block_with_v():
    """L2 (x) V -> L_l: the factors have dimensions 5 and 3; V is L1, so the counts are CG counts."""
    for l, expected in [(0, 0), (1, 1), (2, 1), (3, 1), (4, 0)]:
        for solver in ("dense", "krylov") if l in (1, 3) else ("dense",):
            assert ((so3_irrep(2) * V) >> so3_irrep(l)).solve(solver=solver, cache=False).rank == expected


# ---------------------------------------------------------------------- the regular representation
def characters(rep, elements):
    return np.array([np.trace(rep.rho(g)) for g in elements])


@pytest.mark.parametrize("group", [S(3), Z(4)], ids=["S(3)", "Z(4)"])
def test_regular_representation_obeys_character_theory(group):
    elements = group.elements()
    n = len(elements)
    reg = regular_rep(group)
    assert reg.size == n == group.order()
    chi_reg = characters(reg(group), elements)
    assert chi_reg[0] == n and np.allclose(chi_reg[1:], 0)  # identity first; nothing else fixes an element
    for g1, g2 in itertools.product(elements[:4], repeat=2):
        assert np.allclose(reg.rho(g1 @ g2), reg.rho(g1) @ reg.rho(g2))
    assert (reg >> reg).solve(cache=False).rank == n  # the commutant of the regular rep has dimension |G|
    for text in ["V", "T(2)", "V + Scalar", "Scalar"]:
        target = parse_rep(text, group)
        chi = characters(target, elements)
        expected = round(float(np.real(np.sum(np.conj(chi_reg) * chi))) / n)
        assert expected == target.size  # Hom_G(Reg, W) = W
        assert (reg >> target).solve(cache=False).rank == expected
        assert (target >> reg).solve(cache=False).rank == expected


def test_solver_choice_with_user_blocks():
    G = S(3)
    reg = regular_rep(G)
    sol = (V + reg).solve(cache=False)
    assert sol.solver == "dense+orbit"
    assert [b.solver for b in sol.blocks] == ["orbit", "dense"] and sol.rank == 2
    with pytest.raises(SolverError):
        (reg >> V).solve(solver="orbit")
    with pytest.raises(SolverError):
        (so3_irrep(2) >> so3_irrep(2)).solve(solver="subgroup")


# ---------------------------------------------------------------------- validation
def test_user_rep_validation_is_one_line_rep_errors():
    G = SO(3)
    lie = so3_irrep(2).generators()[1]
    bad = [
        lambda: UserRep("W", G),  # no matrices for a Lie group
        lambda: UserRep("W", G, lie=lie[:2]),  # one per generator
        lambda: UserRep("W", G, lie=np.zeros((3, 2, 3))),  # not square
        lambda: UserRep("W", G, lie=lie[[1, 0, 2]]),  # wrong order: breaks the brackets
        lambda: UserRep("W", G, lie=lie, discrete=[np.eye(5)]),  # SO(3) has no discrete generators
        lambda: UserRep("V", G, lie=lie),  # reserved name
        lambda: UserRep("two words", G, lie=lie),
        lambda: UserRep("W", Z(3), discrete=[[[-1.0]]]),  # (-1)^3 != 1: not a representation of Z(3)
        lambda: UserRep("W", S(3), discrete=[np.eye(2), np.eye(3)]),  # sizes disagree
        lambda: UserRep("W", Group(d=2)),  # no generators and no size
        lambda: UserRep("W", "S(3)", discrete=[[[np.nan]], [[1.0]]]),
        lambda: so3_irrep(-1),
        lambda: so3_irrep(1, group=SO(4)),
        lambda: regular_rep(SO(3)),
    ]
    for make in bad:
        with pytest.raises(RepError) as info:
            make()
        assert "\n" not in str(info.value)
    assert UserRep("W", Group(d=2), size=3).size == 3
    with pytest.raises(RepError):
        so3_irrep(2)(S(3))  # a user rep belongs to its group
    with pytest.raises(RepError):
        so3_irrep(2) + V(S(3))


def test_user_rep_rho_outside_what_it_knows_is_a_clear_error():
    G = Group.from_generators(discrete=[np.diag([-1.0, 1.0])], lie=[[[0.0, 0.0], [0.0, 1.0]]], name="G")
    W = UserRep("W", G, discrete=[np.eye(1)], lie=[[[0.0]]])
    assert np.allclose(W.rho(np.diag([-1.0, 1.0])), 1) and np.allclose(W.rho(np.diag([1.0, np.e])), 1)
    with pytest.raises(RepError):
        W.rho(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(RepError):
        W.drho(np.eye(2))


# ---------------------------------------------------------------------- the rep language
def test_rep_language_names_registered_reps(clean_registry):
    G = SO(3)
    register_rep("L1", so3_irrep(1))
    L2 = register_rep("L2", so3_irrep(2, name="D2"))
    assert str(L2) == "L2" and L2 == so3_irrep(2)
    rep = parse_rep("L2 >> L1*L1", "SO(3)")
    assert rep == (L2 >> so3_irrep(1) * so3_irrep(1)) and rep.size == 5 * 9
    assert str(rep) == "L2 >> L1**2" and parse_rep(str(rep), G) == rep
    assert parse_rep("L2.T + 2*L1", G).size == 11
    assert rep.solve(cache=False).rank == 1  # 1 x 1 = 0 + 1 + 2 contains 2 once
    other = UserRep("L2", G, lie=np.zeros((3, 1, 1)))
    assert parse_rep("L2", names={"L2": other}) == other  # names given to the parser come first
    with pytest.raises(RepError):
        register_rep("L2", other)  # taken
    register_rep("L2", other, replace=True)
    assert parse_rep("L2") == other
    for bad in ["V", "T", "Scalar", "2x", ""]:
        with pytest.raises(RepError):
            register_rep(bad, other)
    with pytest.raises(RepError):
        parse_rep("L2 >> V", "S(3)")  # L2 belongs to SO(3)


def test_unknown_names_give_the_position_and_the_registered_names(clean_registry):
    register_rep("Reg3", regular_rep(S(3)))
    with pytest.raises(ParseError) as info:
        parse_rep("V + Foo")
    assert info.value.position == 4 and info.value.found == "Foo"
    assert "V, Scalar" in info.value.expected and "Reg3" in info.value.expected
    assert "\n" not in str(info.value)
    unregister_rep("Reg3")
    with pytest.raises(ParseError) as info:
        parse_rep("Reg3")
    assert info.value.position == 0 and "Reg3" not in info.value.expected


# ---------------------------------------------------------------------- the open protocol
class Sym2(Leaf):
    """Symmetric 2-tensors of V in an orthonormal basis, given EMLP-style by size, rho and drho only."""

    def __init__(self, group=None):
        self.group = group

    def bind(self, group):
        return Sym2(group)

    _identity = ("Sym2",)

    @property
    def size(self):
        d = self._require_group().d
        return d * (d + 1) // 2

    def _basis(self):
        d = self.group.d
        cols = []
        for i in range(d):
            for j in range(i, d):
                E = np.zeros((d, d))
                E[i, j] = E[j, i] = 1.0
                cols.append(E.ravel() / np.linalg.norm(E))
        return np.stack(cols, axis=1)

    def rho(self, g):
        P = self._basis()
        return P.T @ np.kron(g, g) @ P

    def drho(self, A):
        P, eye = self._basis(), np.eye(self.group.d)
        return P.T @ (np.kron(A, eye) + np.kron(eye, A)) @ P

    def __str__(self):
        return "Sym2"


def test_a_leaf_given_by_rho_and_drho_joins_the_algebra():
    G = SO(3)
    sym = Sym2()(G)
    assert sym == Sym2(G) and sym != V(G) and hash(sym) == hash(Sym2(G))
    assert str(sym >> T(2)) == "Sym2 >> T(2)" and (sym + V).size == 9
    assert (sym >> sym).solve(cache=False).rank == 2  # Sym^2 R^3 = L0 + L2
    assert (sym >> T(2)).solve(cache=False).rank == 2
    assert (sym >> so3_irrep(2)).solve(solver="krylov", cache=False).rank == 1
    H = S(3)  # characters: chi_Sym2(g) = (tr(g)^2 + tr(g^2)) / 2, an independent formula
    elements = H.elements()
    chi = np.array([(np.trace(g) ** 2 + np.trace(g @ g)) / 2 for g in elements])
    sym_h = Sym2(H)
    assert np.allclose(chi, [np.trace(sym_h.rho(g)) for g in elements])
    expected = round(float(np.sum(chi * chi)) / len(elements))
    assert (sym_h >> sym_h).solve(cache=False).rank == expected == 8  # Sym^2(1 + std) = 2*1 + 2*std
