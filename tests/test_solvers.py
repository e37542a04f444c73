"""Equivariant bases checked against independent facts: brute-force group averages, counted set
partitions, circulants, the Levi-Civita tensor, Burnside counts, and agreement between solvers."""
import itertools
import math

import numpy as np
import pytest
import scipy.sparse as sp

from lab import (C, D, GCNN, O, O13, SO, SO13, SO13p, SU, U, Alt, C4Grid, Cube, DihedralPerm, Group, LabError,
                 MemoryLimitError, RepError, RubiksCube, S, SolverError, Sp, Trivial, Z, parse_rep)
from lab.solvers import cache


def dense(Q):
    return Q.toarray() if sp.issparse(Q) else np.asarray(Q)


def subspace_distance(Q1, Q2):
    """Spectral norm of the difference of the orthogonal projectors (0 for equal subspaces)."""
    Q1, Q2 = dense(Q1), dense(Q2)
    if Q1.shape[1] != Q2.shape[1]:
        return np.inf
    return np.linalg.norm(Q1 @ Q1.conj().T - Q2 @ Q2.conj().T, 2)


ALL_GROUP_CASES = [
    (Trivial(3), "V >> V"), (Z(5), "T(3)"), (S(4), "T(2)+V"), (Alt(4), "T(3)"), (DihedralPerm(5), "V >> V"),
    (Z(3) * Z(3), "V >> V"), (C4Grid(3), "V >> V"), (GCNN(2), "V >> V"), (Cube(), "T(2)"),
    (RubiksCube(), "T(2)"), (C(3), "T(3)"), (C(4), "T(2)+T(3)"), (D(4), "T(4)"), (SO(3), "T(4)"),
    (O(3), "T(2)+T(3)"), (SO(4), "T(4)"), (SO13p(), "T(2)+T(1,1)"), (SO13(), "T(4)"), (O13(), "V**2 >> V**2"),
    (Sp(2), "T(2)"), (U(2), "V >> V"), (SU(2), "T(2)+T(3)"), (SU(3), "T(3)"), (S(3) * Z(2), "V >> V"),
    (SO(2) * S(3), "V >> V"),
]


@pytest.mark.parametrize("group, text", ALL_GROUP_CASES, ids=[f"{g}:{t}" for g, t in ALL_GROUP_CASES])
def test_basis_is_equivariant_and_orthonormal(group, text, rng):
    rep = parse_rep(text, group)
    sol = rep.solve()
    Q = dense(sol.Q)
    assert Q.shape == (rep.size, sol.rank) and sol.dim == rep.size
    assert np.allclose(Q.conj().T @ Q, np.eye(sol.rank), atol=1e-10)
    scale = max(np.linalg.norm(Q), 1e-300)
    for g in group.sample(4, rng=rng):
        assert np.linalg.norm(rep.act(g, Q) - Q) / scale < 1e-6
    for A in group.lie:
        assert np.linalg.norm(rep.drho(A) @ Q) / scale < 1e-6


BRUTE_FORCE_CASES = [
    (S(3), "T(3)"), (Z(4), "T(2)+V"), (DihedralPerm(4), "T(2)"), (Alt(4), "T(2)"), (C4Grid(2), "V >> V"),
    (Cube(), "T(2)"), (C(4), "T(3)"), (C(4), "T(4)"), (D(4), "T(2)"), (C(3), "T(3)"), (D(6), "T(4)"),
    (GCNN(2), "V"), (Z(2) * Z(3), "V >> V"), (S(3), "(V + Scalar) >> (V + Scalar)"),
]


@pytest.mark.parametrize("group, text", BRUTE_FORCE_CASES, ids=[f"{g}:{t}" for g, t in BRUTE_FORCE_CASES])
def test_matches_brute_force_group_average(group, text):
    """The invariant space is the range of (1/|G|) sum_g rho(g), computed over every element."""
    rep = parse_rep(text, group)
    elements = group.elements()
    assert elements is not None and len(elements) == group.order()
    avg = sum(rep.rho(g) for g in elements) / len(elements)
    sol = rep.solve()
    assert np.allclose(avg, dense(sol.Q) @ dense(sol.Q).conj().T, atol=1e-9)
    v = np.random.default_rng(0).normal(size=rep.size)
    assert np.allclose(sol.projector() @ v, avg @ v)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_cyclic_tensor_rank_is_n_to_the_k_minus_1(n, k):
    assert parse_rep(f"T({k})", Z(n)).solve().rank == n ** (k - 1)


def set_partitions_with_at_most(k, n):
    """Count set partitions of {0..k-1} into at most n blocks by enumerating restricted growth strings."""
    count = 0
    for rgs in itertools.product(range(k), repeat=k):
        if rgs[0] != 0 or any(rgs[i] > max(rgs[:i]) + 1 for i in range(1, k)):
            continue
        count += max(rgs) + 1 <= n
    return count


@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_symmetric_group_rank_counts_set_partitions(n, k):
    assert parse_rep(f"T({k})", S(n)).solve().rank == set_partitions_with_at_most(k, n)


def test_cyclic_maps_are_the_circulant_matrices():
    n = 6
    sol = parse_rep("V >> V", Z(n)).solve()
    labels = sol.labels.reshape(n, n)
    i, j = np.indices((n, n))
    for shift in range(n):  # one basis element per diagonal (j - i) mod n, and nothing else
        assert len(set(labels[(j - i) % n == shift])) == 1
    assert len(set(labels.ravel())) == n
    circulants = np.stack([np.roll(np.eye(n), s, axis=1).ravel() for s in range(n)], axis=1) / math.sqrt(n)
    assert subspace_distance(sol.Q, circulants) < 1e-12


def test_deepsets_maps_are_identity_and_all_ones():
    n = 5
    sol = parse_rep("V >> V", S(n)).solve()
    basis = np.stack([np.eye(n).ravel(), np.ones(n * n)], axis=1)
    q, _ = np.linalg.qr(basis)
    assert sol.rank == 2 and subspace_distance(sol.Q, q) < 1e-12
    assert set(sol.labels.reshape(n, n)[np.eye(n, dtype=bool)]) != set(sol.labels.reshape(n, n)[~np.eye(n, dtype=bool)])


def levi_civita():
    eps = np.zeros((3, 3, 3))
    for p in itertools.permutations(range(3)):
        inversions = sum(p[a] > p[b] for a in range(3) for b in range(a + 1, 3))
        eps[p] = (-1) ** inversions
    return eps


@pytest.mark.parametrize("solver", ["dense", "krylov"])
def test_so3_invariant_of_t3_is_levi_civita_and_o3_has_none(solver):
    sol = parse_rep("T(3)", SO(3)).solve(solver=solver)
    eps = levi_civita().ravel() / math.sqrt(6)
    assert sol.rank == 1
    assert abs(abs(dense(sol.Q)[:, 0] @ eps) - 1) < 1e-10
    assert parse_rep("T(3)", O(3)).solve(solver=solver).rank == 0


def test_lorentz_metric_is_the_t2_invariant():
    sol = parse_rep("T(2)", O13()).solve()
    eta = np.diag([-1.0, 1, 1, 1]).ravel() / 2
    assert sol.rank == 1 and abs(abs(sol.Q[:, 0] @ eta) - 1) < 1e-10
    assert parse_rep("T(0,2)", O13()).solve().rank == 1
    assert parse_rep("T(4)", SO13p()).solve().rank == 4  # three metric pairings and epsilon
    assert parse_rep("T(4)", O13()).solve().rank == 3  # parity removes epsilon


def test_rotation_by_90_degrees_has_signed_orbits():
    sol = parse_rep("T(2)", C(4)).solve()
    assert sol.solver == "orbit" and sol.rank == 2  # the identity and the 90-degree rotation generator
    W = sol.labels.reshape(2, 2)
    signs = sol.signs.reshape(2, 2)
    assert W[0, 0] == W[1, 1] and signs[0, 0] == signs[1, 1]
    assert W[0, 1] == W[1, 0] and signs[0, 1] == -signs[1, 0]
    assert parse_rep("T(3)", C(4)).solve().rank == 0  # -I is a rotation: no odd invariants


AGREE_CASES = [
    (S(4), "T(3)", ["orbit", "dense", "krylov"]), (Z(5), "V >> V", ["orbit", "dense", "krylov"]),
    (C(4), "T(4)", ["orbit", "dense", "krylov"]), (GCNN(2), "V >> V", ["orbit", "dense", "krylov"]),
    (SO(3), "T(4)", ["dense", "krylov"]), (O13(), "T(2)+T(1,1)", ["dense", "krylov"]),
    (SU(2), "T(2)+T(1,1)", ["dense", "krylov"]), (Sp(1), "T(4)", ["dense", "krylov"]),
    (C(5), "T(3)", ["dense", "krylov"]), (SO(2) * S(3), "V >> V", ["dense", "krylov"]),
    (SO(3), "T(5)", ["dense", "subgroup", "krylov"]), (O(3), "T(4)", ["dense", "subgroup"]),
    (SO13(), "T(4)", ["dense", "subgroup"]), (O13(), "T(3,1)", ["dense", "subgroup"]),
    (Sp(2), "T(4)", ["dense", "subgroup"]), (SO(4), "T(4)", ["dense", "subgroup", "krylov"]),
]


@pytest.mark.parametrize("group, text, solvers", AGREE_CASES, ids=[f"{g}:{t}" for g, t, _ in AGREE_CASES])
def test_solvers_agree(group, text, solvers):
    rep = parse_rep(text, group)
    bases = [rep.solve(solver=s, cache=False).Q for s in solvers]
    for other in bases[1:]:
        assert subspace_distance(bases[0], other) < 1e-8


def burnside_estimate(group, k, n, rng):
    """Monte-Carlo Burnside: #orbits on k-tuples = E_g[fix(g)^k] for uniform g; returns (mean, stderr)."""
    fixed = np.array([np.count_nonzero(np.diag(g) == 1) for g in group.sample(n, rng=rng)], float) ** k
    return fixed.mean(), fixed.std() / math.sqrt(n)


def test_rubiks_cube_ranks_agree_with_burnside(rng):
    G = RubiksCube()
    assert parse_rep("T(2)", G).solve().rank == 9  # counted by hand: 4 corner-corner, 3 edge-edge, 2 mixed
    rank3 = parse_rep("T(3)", G).solve().rank
    mean, err = burnside_estimate(G, 3, 4000, rng)
    assert abs(rank3 - mean) < 5 * err


def test_orbit_basis_stays_sparse():
    sol = parse_rep("T(3)", RubiksCube()).solve()
    assert sp.issparse(sol.Q) and sol.Q.shape == (48**3, sol.rank)
    assert sol.Q.nnz == np.count_nonzero(sol.labels >= 0) <= 48**3
    norms = np.asarray(sol.Q.multiply(sol.Q).sum(axis=0)).ravel()
    assert np.allclose(norms, 1)


def test_direct_sums_split_into_blocks_solved_once(monkeypatch):
    import lab.solvers.solution as solvers

    calls = []
    real = solvers.dense_basis
    monkeypatch.setattr(solvers, "dense_basis", lambda g, f: calls.append(f) or real(g, f))
    group = SO(3)
    sol = parse_rep("T(2) + 3*V + T(1,1) + Scalar", group).solve(solver="dense", cache=False)
    labels = sorted(tuple(str(f) for f in factors) for factors in calls)
    assert labels == sorted({("V", "V"), ("V",), ()})  # T(1,1) = T(2) for an orthogonal group
    assert sol.rank == 1 + 0 + 1 + 1
    Q = dense(sol.Q)
    assert np.allclose(Q[9:18], 0)  # the three vectors carry no invariant
    assert abs(Q[-1, -1]) == pytest.approx(1)


def test_maps_between_sums_have_block_labels():
    sol = parse_rep("(V + Scalar) >> (V + Scalar)", S(3)).solve()
    assert sol.rank == 5  # DeepSets 2 + V->Scalar 1 + Scalar->V 1 + Scalar->Scalar 1
    W = sol.labels.reshape(4, 4)
    assert len(set(W[:3, 3])) == 1 and len(set(W[3, :3])) == 1 and W[3, 3] not in W[:3, :3]


def test_projector_is_a_linear_operator_and_idempotent(rng):
    rep = parse_rep("T(2) >> T(2)", S(4))
    P = rep.equivariant_projector()
    v = rng.normal(size=rep.size)
    assert np.allclose(P @ (P @ v), P @ v)
    assert np.allclose(rep.act(S(4).sample(rng=rng), P @ v), P @ v)
    assert abs((P @ v) @ (v - P @ v)) < 1e-9


def test_disk_cache_round_trip_and_corruption(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    cache.clear_memory()
    rep = parse_rep("T(3)", SO(3))
    first = rep.solve(solver="dense")
    assert not first.cached and len(list(tmp_path.glob("*.npz"))) == 1
    cache.clear_memory()
    second = rep.solve(solver="dense")
    assert second.cached and np.array_equal(first.Q, second.Q)
    path = next(tmp_path.glob("*.npz"))
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    cache.clear_memory()
    third = rep.solve(solver="dense")
    assert not third.cached and subspace_distance(third.Q, first.Q) < 1e-12
    path.write_bytes(b"not a zip file")
    cache.clear_memory()
    assert not rep.solve(solver="dense").cached
    assert not list(tmp_path.glob(".tmp-*"))


def test_a_rep_without_blocks_is_not_called_cached():
    sol = parse_rep("0*V", S(3)).solve()  # nothing to solve, so nothing was read from the cache
    assert sol.rank == 0 and sol.dim == 0 and not sol.cached


def test_memory_guard_refuses_before_allocating():
    from lab import limits

    with limits.override(rep_size=10**12), pytest.raises(MemoryLimitError) as info:  # past the size limit too
        parse_rep("T(6)", RubiksCube()).solve(memory_limit="1GB")
    assert "needs about" in str(info.value) and "TB" in str(info.value)
    assert info.value.needed > info.value.limit
    with pytest.raises(MemoryLimitError):
        parse_rep("T(3)", SO(3)).solve(solver="dense", memory_limit=1000, cache=False)


def test_bad_solver_requests_are_typed_errors():
    with pytest.raises(SolverError):
        parse_rep("T(2)", SO(3)).solve(solver="orbit")
    with pytest.raises(SolverError):
        parse_rep("T(2)", S(3)).solve(solver="magic")
    with pytest.raises(RepError):
        parse_rep("T(2)").solve()


def test_user_group_from_generators():
    P = np.eye(4)[[1, 0, 3, 2]]  # swaps 0<->1 and 2<->3
    G = Group.from_generators(discrete=[P], name="Swaps")
    sol = parse_rep("V", G).solve()
    assert sol.solver == "orbit" and sol.rank == 2
    H = Group.from_generators(lie=SO(3).lie)
    assert parse_rep("T(2)", H).solve().rank == 1


@pytest.mark.parametrize("group", [SO(2), SO(3), SO(4), O(3), SO13p(), SO13(), O13(), Sp(1), Sp(3)])
def test_finite_subgroups_lie_in_their_groups(group):
    """The subgroup solver is only exact if H really is a subgroup: check each generator's invariant form."""
    H = group.finite_subgroup
    assert H.is_signed_permutation
    for h in H.discrete:
        if isinstance(group, (SO13p,)):
            eta = np.diag([-1.0, 1, 1, 1])
            assert np.allclose(h.T @ eta @ h, eta)
        elif isinstance(group, Sp):
            assert np.allclose(h.T @ group.J @ h, group.J)
        else:
            assert np.allclose(h.T @ h, np.eye(group.d))
            if isinstance(group, SO) and not isinstance(group, O):
                assert np.isclose(np.linalg.det(h), 1)
    if isinstance(group, SO13p) and type(group) is SO13p:
        assert all(np.isclose(np.linalg.det(h), 1) and h[0, 0] == 1 for h in H.discrete)


def weyl_invariant_count(character, weight, k, points=4001):
    """dim of invariants in V^(x)k by the Weyl integration formula over a maximal torus (1-D here)."""
    theta = np.linspace(0, np.pi, points)
    return np.trapezoid(character(theta) ** k * weight(theta), theta)


def so3_count(k):  # characters of SO(3) on R^3: 1 + 2 cos(t), Haar weight (1 - cos t) / pi
    return weyl_invariant_count(lambda t: 1 + 2 * np.cos(t), lambda t: (1 - np.cos(t)) / np.pi, k)


def su2_count(k):  # SU(2) on C^2: 2 cos(t), weight 2 sin^2(t) / pi
    return weyl_invariant_count(lambda t: 2 * np.cos(t), lambda t: 2 * np.sin(t) ** 2 / np.pi, k)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_so3_ranks_match_weyl_integration(k):
    assert parse_rep(f"T({k})", SO(3)).solve().rank == round(so3_count(k))


def test_auto_uses_subgroup_for_large_lie_blocks():
    """SO(4) = SU(2) x SU(2) / Z2 and V = C^2 (x) C^2: rank of T(k) is the SU(2) count squared."""
    sol = parse_rep("T(6)", SO(4)).solve()  # 4096 entries: above the dense limit
    assert sol.solver == "subgroup"
    assert sol.rank == round(su2_count(6)) ** 2 == 25
    with pytest.raises(SolverError):
        parse_rep("T(2)", U(2)).solve(solver="subgroup")


def test_memory_cache_evicts_least_recently_used_by_bytes(monkeypatch):
    monkeypatch.setenv("LAB_CACHE_MEMORY", "2KB")
    cache.clear_memory()
    entry = lambda v: {"Q": np.full(100, float(v))}  # noqa: E731  (800 bytes)
    cache.put("a", entry(1), use_disk=False)
    cache.put("b", entry(2), use_disk=False)
    assert cache.memory_usage() == (2, 1600)
    assert cache.get("a", use_disk=False)["Q"][0] == 1  # a is now the most recently used
    cache.put("c", entry(3), use_disk=False)  # over 2 KB: b goes, not a
    assert cache.get("b", use_disk=False) is None
    assert cache.get("a", use_disk=False)["Q"][0] == 1 and cache.get("c", use_disk=False)["Q"][0] == 3
    assert cache.memory_usage() == (2, 1600)
    cache.put("huge", {"Q": np.zeros(1000)}, use_disk=False)  # larger than the whole budget: not held
    assert cache.get("huge", use_disk=False) is None and cache.memory_usage() == (2, 1600)
    cache.put("a", entry(4), use_disk=False)  # replacing an entry does not count it twice
    assert cache.memory_usage() == (2, 1600) and cache.get("a", use_disk=False)["Q"][0] == 4
    monkeypatch.setenv("LAB_CACHE_MEMORY", "0")
    cache.clear_memory()
    assert not parse_rep("T(2)", SO(3)).solve(solver="dense", cache=False).cached
    assert cache.memory_usage() == (0, 0)
    with pytest.raises(LabError):
        monkeypatch.setenv("LAB_CACHE_MEMORY", "lots")
        cache.put("x", entry(1), use_disk=False)
    cache.clear_memory()


def test_memory_cache_is_consistent_under_threads(monkeypatch):
    import threading

    monkeypatch.setenv("LAB_CACHE_MEMORY", "8KB")
    cache.clear_memory()
    errors = []

    def work(t):
        try:
            for i in range(300):
                key = f"k{(t * 7 + i) % 40}"
                cache.put(key, {"Q": np.full(50 + (i % 5) * 10, float(t))}, use_disk=False)
                got = cache.get(f"k{i % 40}", use_disk=False)
                assert got is None or got["Q"].ndim == 1
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    n, held = cache.memory_usage()
    assert held <= 8 * 1024
    assert held == sum(a["Q"].nbytes for a in (cache.get(f"k{i}", use_disk=False) for i in range(40)) if a is not None)
    cache.clear_memory()


def test_cache_key_names_every_leaf_by_value():
    from lab.reps import UserRep, so3_irrep
    from lab.solvers import VERSION, cache_key

    G = SO(3)
    L2 = so3_irrep(2)
    same_name = UserRep("L2", G, lie=np.zeros((3, 5, 5)))  # five trivial reps, printed as L2
    keys = {cache_key(G, "dense", f) for f in [(L2,), (same_name,), (L2, L2), (L2.dual,), ()]}
    assert len(keys) == 5
    assert cache_key(G, "dense", (L2,)) == cache_key(G, "dense", (so3_irrep(2, name="Other"),))
    assert cache_key(G, "dense", (L2,) * 40).startswith(f"v{VERSION}-{G.key}-dense-")
    assert len(cache_key(G, "dense", (L2,) * 40)) < 120


def test_the_subgroup_solver_reports_progress_as_it_goes():
    """Its Gram matrix is built in chunks, each one a progress report: fractions that grow to 1 over many
    reports (a solve's status shows a rate and an ETA), and the same basis as before (rank 25)."""
    seen = []
    cache.clear_memory()  # solved, not found again (another test may have solved it)
    sol = parse_rep("T(6)", SO(4)).solve(solver="subgroup", cache=False, progress=lambda f, *m: seen.append(f))
    assert sol.rank == 25
    fractions = [f for f in seen if f is not None]
    assert len(fractions) >= 10
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and fractions[0] < 0.2


def test_a_solve_of_several_blocks_reports_one_growing_fraction():
    """Each block's own reports are its share of the whole solve: the fractions never go back when the next
    block starts (an ETA read from them holds), both blocks report as they go, and the last is 1."""
    seen = []
    cache.clear_memory()
    sol = parse_rep("T(4)+T(6)", SO(4)).solve(solver="subgroup", cache=False,
                                              progress=lambda f, *m: seen.append((f, m[0] if m else "")))
    assert sol.rank == 4 + 25
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    within = [f for f, message in seen if message.startswith("subgroup:")]
    assert sum(f <= 0.5 for f in within) >= 3 and sum(0.5 < f < 1 for f in within) >= 10


def test_krylov_returns_the_whole_block_when_every_constraint_is_zero():
    """O(1)'s generator -1 acts on T(2) as +1 and GL(1)'s on V >> V trivially: the constraints vanish, the whole
    block is invariant (the Krylov solver divided by a zero eigenvalue and reported 'residual nan')."""
    from lab import O, T, V
    from lab.groups import GL

    for rep in (T(2)(O(1)), (V >> V)(GL(1))):
        dense = rep.solve(solver="dense", cache=False)
        krylov = rep.solve(solver="krylov", cache=False)
        assert krylov.rank == dense.rank == rep.size
