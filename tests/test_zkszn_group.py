"""EMLP's ``ZksZnxZn(k, n)`` (``lab.groups.permutation``): Z_k x| (Z_n x Z_n), k = 2 or 4, on k n^2 points (orientation,
row, column).  Its generators are checked against the EMLP library's matrices rebuilt here from their definition, its
order against a brute-force closure, its equivariant bases against the library's ranks and against orbit counts, and
an EMLP network over it against the EMLP test suite's equivariance bound."""
import json

import numpy as np
import pytest
import torch

from lab import GroupError, ParseError, group_catalog, parse_group, parse_rep
from lab.cli import main
from lab.limits import LimitError
from lab.groups import GCNN, GROUPS, ZksZnxZn, group_footprint, max_size

SMALL = [(2, 1), (2, 2), (2, 3), (4, 1), (4, 2), (4, 3)]


# ------------------------------------------------------------------------------ EMLP's matrices, written plainly
def _emlp_shift(n):
    """``LazyShift(n)``: ``jnp.roll(v, 1, axis=0)``, i.e. (S v)[i] = v[i-1]."""
    return np.roll(np.eye(n), 1, axis=0)


def _emlp_rot90(n, m):
    """``Rot90(n, m)``: ``jnp.rot90(v.reshape(n, n), m).reshape(-1)``, as a matrix (its columns are the images of e_i)."""
    return np.stack([np.rot90(e.reshape(n, n), m).reshape(-1) for e in np.eye(n * n)], axis=1)


def _emlp_generators(k, n):
    """``[LazyKron([Ik, nshift, In]), LazyKron([Ik, In, nshift]), LazyKron([kshift, Rot90(n, 4 // k)])]``
    (``emlp.groups.ZksZnxZn``); LazyKron acts on v.reshape(k, n, n) factor by factor, which is np.kron."""
    Ik, In, nshift, kshift = np.eye(k), np.eye(n), _emlp_shift(n), _emlp_shift(k)
    return [np.kron(Ik, np.kron(nshift, In)), np.kron(Ik, np.kron(In, nshift)), np.kron(kshift, _emlp_rot90(n, 4 // k))]


def _closure(perms):
    """Every product of the permutations (as tuples), by brute force, independent of sympy and ``Group.elements``."""
    d = len(perms[0])
    found = {tuple(range(d))}
    frontier = list(found)
    while frontier:
        nxt = []
        for g in frontier:
            for h in perms:
                x = tuple(h[i] for i in g)  # h after g
                if x not in found:
                    found.add(x)
                    nxt.append(x)
        frontier = nxt
        assert len(found) <= 10_000
    return found


def _orbits_on_pairs(elements, d):
    """The number of orbits of the group on ordered pairs of points (a, b), by brute force."""
    seen = np.zeros((d, d), bool)
    count = 0
    for a in range(d):
        for b in range(d):
            if not seen[a, b]:
                count += 1
                for g in elements:
                    seen[g[a], g[b]] = True
    return count


# ------------------------------------------------------------------------------ names, errors, footprint
@pytest.mark.parametrize("text, k, n", [("ZksZnxZn(4,3)", 4, 3), ("ZksZnxZn(2, 3)", 2, 3), (" ZksZnxZn( 4 , 1 ) ", 4, 1)])
def test_parse_group_knows_the_emlp_spelling(text, k, n):
    G = parse_group(text)
    assert type(G) is ZksZnxZn and G == ZksZnxZn(k, n) and G.name == f"ZksZnxZn({k},{n})"
    assert parse_group(G.name) == G  # the name reads back
    assert G.d == k * n * n and G.is_permutation and G.num_discrete == 3 and G.channels == k
    fp = group_footprint(text)
    assert fp.d == k * n * n and fp == G.size_footprint  # the declared footprint is what is built


def test_catalog_exports_and_limits():
    catalog = dict(group_catalog())
    assert "ZksZnxZn(k, n)" in catalog and "EMLP" in catalog["ZksZnxZn(k, n)"]
    assert GROUPS["ZksZnxZn"] is ZksZnxZn
    import lab

    assert lab.ZksZnxZn is ZksZnxZn and "ZksZnxZn" in lab.__all__
    with pytest.raises(LimitError, match="group_dim"):  # cost before work: refused from the arguments
        parse_group("ZksZnxZn(4,100000)")
    with pytest.raises(LimitError):
        group_footprint("ZksZnxZn(2,100000)")
    # the size box's bound fills in the argument n only (not the n's of the name)
    assert max_size("ZksZnxZn(4,n)") == max_size("GCNN(n)") and max_size("ZksZnxZn(2,n)") > max_size("GCNN(n)")


@pytest.mark.parametrize("text, exc, needle", [
    ("ZksZnxZn(3,3)", GroupError, "k = 2"), ("ZksZnxZn(1,3)", GroupError, "k = 2"),
    ("ZksZnxZn(8,2)", GroupError, "k = 2"), ("ZksZnxZn(4,0)", GroupError, "n >= 1"),
    ("ZksZnxZn(0,2)", GroupError, "k = 2"), ("ZksZnxZn(4)", GroupError, "takes 2 argument"),
    ("ZksZnxZn", GroupError, "takes 2 argument"), ("zksznxzn(2,2)", GroupError, "did you mean ZksZnxZn"),
    ("ZksZnxZn(4,-1)", ParseError, "position"), ("ZksZnxZn(4,", ParseError, "position"),
])
def test_bad_arguments_are_one_typed_line(text, exc, needle):
    with pytest.raises(exc) as info:
        parse_group(text)
    assert needle in str(info.value) and "\n" not in str(info.value)
    if exc is GroupError and "argument" not in needle and "did you" not in needle:
        with pytest.raises(GroupError):  # refused from the text alone too
            group_footprint(text)


def test_bad_python_arguments():
    for k, n in [(3, 2), (2.0, 2), (True, 2), ("4", 2), (4, 0), (4, 1.5), (4, None)]:
        with pytest.raises(GroupError) as info:
            ZksZnxZn(k, n)
        assert "ZksZnxZn(k, n)" in str(info.value)


# ------------------------------------------------------------------------------ generators and order
@pytest.mark.parametrize("k, n", SMALL)
def test_generators_are_emlps_exactly(k, n):
    G = ZksZnxZn(k, n)
    emlp = _emlp_generators(k, n)
    assert G.discrete.shape == (3, k * n * n, k * n * n)
    for mine, theirs in zip(G.discrete, emlp):
        assert np.array_equal(mine, theirs)


@pytest.mark.parametrize("k, n", SMALL)
def test_order_by_closure_is_k_n_squared(k, n):
    G = ZksZnxZn(k, n)
    elements = _closure([tuple(p) for p in G.perms[0]])
    assert len(elements) == k * n * n == G.order() == int(G._sympy_group.order())
    assert len(G.elements()) == k * n * n
    # the action is regular: exactly one element takes point 0 to each point
    assert sorted(g[0] for g in elements) == list(range(k * n * n))
    # the translations commute, the rotation has order k and conjugates a translation to a translation
    si, sj, rot = (np.asarray(p) for p in G.perms[0])
    assert np.array_equal(si[sj], sj[si])
    power = np.arange(G.d)
    for _ in range(k):
        power = rot[power]
    assert np.array_equal(power, np.arange(G.d))
    translations = _closure([tuple(si), tuple(sj)])
    assert len(translations) == n * n
    inv = np.argsort(rot)
    assert tuple(rot[si[inv]]) in translations and tuple(rot[sj[inv]]) in translations


@pytest.mark.parametrize("n", [1, 2, 3])
def test_k4_is_gcnn_relabelled(n):
    """ZksZnxZn(4, n) and the lab's GCNN(n) rotate opposite ways: different permutation groups, but the relabelling
    of the orientation r -> -r carries one onto the other (n >= 3; for n <= 2 they are the same group)."""
    G, H = ZksZnxZn(4, n), GCNN(n)
    r, i, j = np.meshgrid(np.arange(4), np.arange(n), np.arange(n), indexing="ij")
    phi = ((((-r) % 4) * n + i) * n + j).ravel()  # an involution
    conj = [tuple(phi[np.asarray(p)[phi]]) for p in G.perms[0]]
    assert _closure(conj) == _closure([tuple(p) for p in H.perms[0]])
    if n > 2:  # on a 2 x 2 grid the half turn is the translation by (1, 1): there the two groups coincide
        assert _closure([tuple(p) for p in G.perms[0]]) != _closure([tuple(p) for p in H.perms[0]])


# ------------------------------------------------------------------------------ equivariant bases
# equivariant_basis().shape[-1] from the EMLP library itself (emlp 1.0.3 in /work/emlp-venv, TQDM_DISABLE=1:
# ``from emlp.groups import ZksZnxZn; from emlp.reps import V, T, Scalar; (V >> V)(ZksZnxZn(2, 3))...``), run once.
# (The action is regular, so V >> V has |G| = k n^2 orbits on pairs and T(3) has (k n^2)^2 on triples.)
EMLP_RANKS = {  # (k, n): (V, V >> V, V * V, V >> Scalar, T(3))
    (2, 2): (1, 8, 8, 1, 64), (2, 3): (1, 18, 18, 1, 324), (4, 2): (1, 16, 16, 1, 256), (4, 3): (1, 36, 36, 1, None),
}
REPS = ("V", "V >> V", "V * V", "V >> Scalar", "T(3)")


@pytest.mark.parametrize("k, n", list(EMLP_RANKS))
def test_basis_ranks_match_emlp_and_orbit_counts(k, n):
    group = f"ZksZnxZn({k},{n})"
    for rep, expected in zip(REPS, EMLP_RANKS[(k, n)]):
        if expected is not None:
            assert parse_rep(rep, group).solve(cache=False).rank == expected, rep
    G = parse_group(group)
    orbits = _orbits_on_pairs(list(_closure([tuple(p) for p in G.perms[0]])), G.d)
    assert orbits == EMLP_RANKS[(k, n)][1]
    for solver in ("orbit", "dense"):
        assert parse_rep("V >> V", group).solve(solver=solver, cache=False).rank == orbits, solver


def test_basis_commutes_with_the_generators():
    r = parse_rep("V >> V", "ZksZnxZn(2,3)")
    Q = np.asarray(r.solve(solver="dense", cache=False).Q)
    for h in _emlp_generators(2, 3):
        for q in Q.T:
            W = q.reshape(18, 18)
            assert np.allclose(h @ W, W @ h, atol=1e-10)


# ------------------------------------------------------------------------------ networks
@pytest.mark.parametrize("k, n, rep_in, rep_out", [(2, 3, "V", "V"), (2, 3, "V", "Scalar"), (4, 2, "V", "V")])
def test_emlp_is_equivariant_and_the_mlp_is_not(k, n, rep_in, rep_out):
    """The EMLP test suite's metric and bound (scale-adjusted relative error < 1e-4, float32) on sampled elements."""
    from lab.nn import EMLP, MLP, equivariance_error

    torch.manual_seed(0)
    G = parse_group(f"ZksZnxZn({k},{n})")
    model = EMLP(rep_in, rep_out, G, channels=32, layers=2)
    assert next(model.parameters()).dtype == torch.float32
    x1, x2 = torch.randn(8, G.d), torch.randn(8, G.d)
    with torch.no_grad():
        assert float((model(x1) - model(x2)).abs().max()) > 1e-4  # not a constant
    assert equivariance_error(model, n=5) < 1e-4
    mlp = MLP(rep_in, rep_out, G, channels=32, layers=2)
    assert equivariance_error(mlp, n=5) > 1e-2


# ------------------------------------------------------------------------------ command line
def test_cli_basis_and_groups(capsys):
    assert main(["basis", "ZksZnxZn(2,3)", "V >> V", "--json", "--no-cache"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rank"] == 18 and info["dim"] == 324 and info["solver"] == "orbit"
    assert main(["groups"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("ZksZnxZn(k, n) ") for line in lines)


@pytest.mark.parametrize("group, needle", [("ZksZnxZn(3,3)", "k = 2"), ("ZksZnxZn(4,0)", "n >= 1")])
def test_cli_bad_argument_exits_2_with_one_line(capsys, group, needle):
    assert main(["basis", group, "V >> V"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and needle in out.err
