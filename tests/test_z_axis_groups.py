"""The groups about the z axis (``lab.groups.z_axis``): EMLP's ``O2eR3()``, ``SO2eR3()`` and ``DkeR3(k)`` in the group
language, their generators checked against brute facts, and their equivariant bases against known dimensions."""
import json

import numpy as np
import pytest
import scipy.linalg

from lab import GroupError, ParseError, group_catalog, parse_group, parse_rep
from lab.cli import main
from lab.groups import GROUPS, group_footprint
from lab.groups.z_axis import DkeR3, O2eR3, SO2eR3, ZAxisGroup

E_Z = np.array([0.0, 0.0, 1.0])


def _rot_z(theta):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _closure(gens):
    """Every product of the generators (brute force, independent of ``Group.elements``), as matrices."""
    key = lambda m: (np.round(m, 8) + 0.0).tobytes()  # noqa: E731
    found = {key(np.eye(3)): np.eye(3)}
    frontier = [np.eye(3)]
    while frontier:
        nxt = []
        for g in frontier:
            for h in gens:
                x = h @ g
                if key(x) not in found:
                    found[key(x)] = x
                    nxt.append(x)
        frontier = nxt
        assert len(found) < 1000
    return list(found.values())


def _about_z(g):
    """Orthogonal and fixing e_z (so also the plane z = 0)."""
    return np.allclose(g.T @ g, np.eye(3)) and np.allclose(g @ E_Z, E_Z) and np.allclose(g.T @ E_Z, E_Z)


# ------------------------------------------------------------------------------------------- names
@pytest.mark.parametrize("text, expected, name", [
    ("O2eR3()", O2eR3(), "O2eR3()"), ("SO2eR3()", SO2eR3(), "SO2eR3()"), ("DkeR3(6)", DkeR3(6), "DkeR3(6)"),
    (" O2eR3 ", O2eR3(), "O2eR3()"), ("SO2eR3", SO2eR3(), "SO2eR3()"), ("DkeR3( 2 )", DkeR3(2), "DkeR3(2)"),
])
def test_parse_group_knows_the_emlp_spellings(text, expected, name):
    G = parse_group(text)
    assert type(G) is type(expected) and isinstance(G, ZAxisGroup) and G.d == 3
    assert G == expected and G.name == expected.name == name
    assert group_footprint(text).d == 3


def test_catalog_and_old_names():
    catalog = dict(group_catalog())
    for sig in ("O2eR3()", "SO2eR3()", "DkeR3(k)"):
        assert sig in catalog and "R^3" in catalog[sig] and "EMLP" in catalog[sig]
    assert {"O2eR3", "SO2eR3", "DkeR3"} <= set(GROUPS) and "ZAxisGroup" not in GROUPS
    # lab.data.pendulum's names are thin re-exports: the same class, the same groups
    from lab.data.pendulum import ZAxisGroup as Old, z_axis_group

    assert Old is ZAxisGroup
    assert Old("O2") == O2eR3() and Old("SO2") == SO2eR3() and Old("D", 6) == DkeR3(6)
    assert z_axis_group("DkeR3(6)") == parse_group("DkeR3(6)") and z_axis_group(O2eR3()) == O2eR3()


@pytest.mark.parametrize("text, exc, needle", [
    ("DkeR3(0)", GroupError, "k >= 1"), ("DkeR3()", GroupError, "takes 1 argument"),
    ("DkeR3", GroupError, "takes 1 argument"), ("O2eR3(2)", GroupError, "takes 0 argument"),
    ("SO2eR3(1, 2)", GroupError, "takes 0 argument"), ("o2er3()", GroupError, "did you mean O2eR3"),
    ("O3eR3()", GroupError, "unknown group"), ("DkeR3(-1)", ParseError, "position 6"),
    ("DkeR3(", ParseError, "position 6"),
])
def test_bad_group_text_is_one_typed_line(text, exc, needle):
    with pytest.raises(exc) as info:
        parse_group(text)
    assert needle in str(info.value) and "\n" not in str(info.value)


def test_bad_arguments_and_z_axis_group_accepts_only_groups_about_z():
    for k in (0, -3, 2.5, True, "6", None):
        with pytest.raises(GroupError, match="k >= 1"):
            DkeR3(k)
    with pytest.raises(GroupError):
        ZAxisGroup("O3")
    from lab.data.pendulum import z_axis_group

    for text in ("SO(3)", "O(2)", "O2eR3()*O2eR3()", "DkeR3(", "DkeR3(-1)", "Foo()", "DkeR3(0)"):
        with pytest.raises(GroupError) as info:  # ParseErrors too: the old contract of z_axis_group
            z_axis_group(text)
        assert "\n" not in str(info.value)


# ------------------------------------------------------------------------------------------- generators
def test_so2_about_z_is_the_rotations_about_z(rng):
    G = SO2eR3()
    assert G.num_discrete == 0 and G.num_lie == 1 and G.order() is None
    A = G.lie[0]
    assert np.allclose(A, -A.T) and np.allclose(A @ E_Z, 0)
    for t in (0.3, 1.0, np.pi / 2, 2.5):
        g = scipy.linalg.expm(t * A)
        assert np.allclose(g, _rot_z(t)) and np.allclose(g @ E_Z, E_Z)  # fixes e_z, rotates (x, y) by t
    gs = G.sample(20, rng=rng)
    assert all(_about_z(g) for g in gs) and np.allclose(np.linalg.det(gs), 1)


def test_o2_about_z_adds_a_reflection(rng):
    G = O2eR3()
    assert G.num_lie == 1 and np.allclose(G.lie, SO2eR3().lie) and G.num_discrete == 1
    h = G.discrete[0]
    assert _about_z(h) and np.isclose(np.linalg.det(h), -1) and np.allclose(h @ h, np.eye(3))
    # a reflection through a plane containing z: fixes e_z and one direction in the xy plane, flips the other
    assert sorted(np.round(np.linalg.eigvalsh(h), 9).tolist()) == [-1.0, 1.0, 1.0]
    dets = {round(np.linalg.det(g)) for g in G.sample(40, rng=rng)}
    assert dets == {-1, 1} and all(_about_z(g) for g in G.sample(10, rng=rng))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7, 12])
def test_dihedral_about_z_has_order_2k(k, rng):
    G = DkeR3(k)
    assert G.num_lie == 0 and G.num_discrete == 2
    rot, refl = G.discrete
    assert np.allclose(rot, _rot_z(2 * np.pi / k))  # the rotation by 2*pi/k about z
    assert np.isclose(np.linalg.det(refl), -1) and np.allclose(refl @ refl, np.eye(3))
    elements = _closure(G.discrete)
    assert len(elements) == 2 * k == G.order()
    assert all(_about_z(g) for g in elements)
    dets = np.round([np.linalg.det(g) for g in elements])
    assert (dets == 1).sum() == k and (dets == -1).sum() == k  # k rotations, k reflections
    keys = {(np.round(g, 8) + 0.0).tobytes() for g in elements}
    assert all((np.round(g, 8) + 0.0).tobytes() in keys for g in G.sample(20, rng=rng))  # samples are elements
    # the rotations are exactly the multiples of 2*pi/k
    rotations = [g for g, d in zip(elements, dets) if d == 1]
    for j in range(k):
        assert any(np.allclose(g, _rot_z(2 * np.pi * j / k)) for g in rotations)


# ------------------------------------------------------------------------------------------- bases
# Ranks of the equivariant bases.  V >> V for SO(2) about z: span{e_z e_z^T, I, E_yx - E_xy}; O(2) loses the
# antisymmetric one (the reflection flips it); D(k), k >= 3 acts irreducibly on the xy plane as O(2) does, so the
# same 2; D(2) = {diag(+-1, +-1, 1)} keeps the 3 diagonal matrices; D(1) = {I, diag(1, -1, 1)} keeps the 5 entries
# of blocks {x, z} x {x, z} and (y, y).  Every row is also what the EMLP library's own O2eR3(), SO2eR3() and DkeR3(k)
# give (``equivariant_basis().shape[-1]``, emlp 1.0.3, run once in its own environment).
EMLP_RANKS = {  # group: (V, V >> V, T(3), 4*V >> 4*V)
    "SO2eR3()": (1, 3, 7, 48), "O2eR3()": (1, 2, 4, 32), "DkeR3(1)": (2, 5, 14, 80), "DkeR3(2)": (1, 3, 7, 48),
    "DkeR3(3)": (1, 2, 5, 32), "DkeR3(4)": (1, 2, 4, 32), "DkeR3(6)": (1, 2, 4, 32),
}


@pytest.mark.parametrize("group", list(EMLP_RANKS))
def test_basis_ranks_match_known_dimensions_and_emlp(group):
    ranks = tuple(parse_rep(rep, group).solve(cache=False).rank for rep in ("V", "V >> V", "T(3)", "4*V >> 4*V"))
    assert ranks == EMLP_RANKS[group]
    assert ranks[3] == 16 * ranks[1]  # 4*V >> 4*V: a 4 x 4 grid of V >> V blocks


@pytest.mark.parametrize("group, known", [
    ("SO2eR3()", [np.outer(E_Z, E_Z), np.eye(3), _rot_z(np.pi / 2) - np.outer(E_Z, E_Z)]),
    ("O2eR3()", [np.outer(E_Z, E_Z), np.eye(3)]), ("DkeR3(5)", [np.outer(E_Z, E_Z), np.eye(3)]),
])
def test_invariant_matrices_are_the_known_ones(group, known, rng):
    """The solved basis of V >> V spans exactly the known commuting matrices (each checked against samples)."""
    r = parse_rep("V >> V", group)
    G = parse_group(group)
    for M in known:
        for g in G.sample(4, rng=rng):
            assert np.allclose(g @ M @ g.T, M)
    for solver in ("dense", "krylov"):
        Q = np.asarray(r.solve(solver=solver, cache=False).Q)
        assert Q.shape == (9, len(known)), solver
        K = np.stack([M.ravel() for M in known], axis=1)
        assert np.abs(K - Q @ (Q.T @ K)).max() < 1e-6, solver


# ------------------------------------------------------------------------------------------- command line
def test_cli_basis_and_groups_know_the_groups(capsys):
    assert main(["basis", "O2eR3()", "V >> V", "--json", "--no-cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rank"] == 2 and info["dim"] == 9
    assert main(["basis", "DkeR3(4)", "T(2)", "--json"]) == 0  # a signed-permutation group: the orbit solver
    info = json.loads(capsys.readouterr().out)
    assert info["rank"] == 2 and info["solver"] == "orbit"
    assert main(["groups"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for sig in ("O2eR3()", "SO2eR3()", "DkeR3(k)"):
        assert any(line.startswith(sig + " ") for line in lines), sig


def test_cli_bad_group_about_z_exits_2_with_one_line(capsys):
    assert main(["basis", "DkeR3(0)", "V"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and "k >= 1" in out.err
