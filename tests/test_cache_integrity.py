"""The basis cache never hands out a wrong basis: keys hash the whole request, and an entry read from disk must
pass an equivariance check (a valid checksum is not enough)."""
import json

import numpy as np
import pytest

from lab import solvers
from lab.groups import Group, parse_group
from lab.reps.parse import parse_rep
from lab.solvers import SOLVER_VERSIONS, cache, cache_key
from lab.solvers.verify import check_block


@pytest.fixture
def disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path))
    cache.clear_memory()
    yield tmp_path
    cache.clear_memory()


def _only_entry(directory):
    entries = [p for p in directory.glob("*.npz")]
    assert len(entries) == 1, entries
    key = entries[0].stem
    with np.load(entries[0], allow_pickle=False) as f:
        assert json.loads(str(f["__meta__"]))["key"] == key
        return key, {n: f[n] for n in f.files if n != "__meta__"}


def _same_span(A, B):
    A, B = np.asarray(A.todense() if hasattr(A, "todense") else A), np.asarray(B.todense() if hasattr(B, "todense") else B)
    return A.shape == B.shape and np.allclose(A @ A.conj().T, B @ B.conj().T, atol=1e-8)


def _equivariant(sol):
    Q = np.asarray(sol.Q.todense() if sol.is_sparse else sol.Q)
    G = sol.rep.group
    return all(np.allclose(sol.rep.rho(G.discrete[i]) @ Q, Q, atol=1e-8) for i in range(G.num_discrete)) and \
        all(np.allclose(sol.rep.drho(G.lie[i]) @ Q, 0, atol=1e-8) for i in range(G.num_lie))


CASES = [("SO(3)", "T(3)", "dense"), ("SO(3)", "T(2)", "krylov"), ("S(4)", "T(2)", "orbit")]


@pytest.mark.parametrize("group,rep,solver", CASES)
def test_a_wrong_basis_with_a_valid_checksum_is_recomputed(disk_cache, group, rep, solver):
    r = parse_rep(rep, parse_group(group))
    good = r.solve(solver=solver)
    assert not good.cached and _equivariant(good)
    key, arrays = _only_entry(disk_cache)
    cache.clear_memory()
    assert r.solve(solver=solver).cached  # the genuine entry passes the check and is used

    rng = np.random.default_rng(0)
    if solver == "orbit":  # labels shuffled: same values, no longer constant on orbits
        bad = dict(arrays, labels=rng.permutation(arrays["labels"]))
    else:
        bad = {"Q": np.linalg.qr(rng.standard_normal(arrays["Q"].shape))[0]}  # orthonormal, not equivariant
    cache.put(key, bad)  # written the normal way: format, key and SHA-256 all valid
    cache.clear_memory()
    assert cache.get(key) is not None  # the checksum alone would trust it ...
    cache.clear_memory()
    again = r.solve(solver=solver)
    assert not again.cached  # ... the equivariance check does not
    assert again.rank == good.rank and _equivariant(again) and _same_span(again.Q, good.Q)
    cache.clear_memory()
    assert r.solve(solver=solver).cached  # and the recomputed entry replaced the bad one
    _, fixed = _only_entry(disk_cache)
    assert all(np.array_equal(fixed[n], arrays[n]) for n in ("labels", "signs") if n in arrays)


def test_a_tampered_entry_is_recomputed(disk_cache):
    r = parse_rep("T(3)", parse_group("SO(3)"))
    good = r.solve(solver="dense")
    key, arrays = _only_entry(disk_cache)
    path = disk_cache / f"{key}.npz"
    with np.load(path, allow_pickle=False) as f:
        meta = str(f["__meta__"])
    np.savez(path, __meta__=np.array(meta), Q=-arrays["Q"] + 1.0)  # edited without a new checksum
    cache.clear_memory()
    again = r.solve(solver="dense")
    assert not again.cached and _same_span(again.Q, good.Q)
    path.write_bytes(path.read_bytes()[:100])  # truncated
    cache.clear_memory()
    assert not r.solve(solver="dense").cached


@pytest.mark.parametrize("group,rep,solver", CASES + [("SO(4)", "T(4)", "subgroup"), ("Z(3)*Z(3)", "T(2)", "orbit")])
def test_the_check_accepts_real_bases_and_rejects_broken_ones(group, rep, solver):
    G = parse_group(group)
    r = parse_rep(rep, G)
    factors = solvers._canonical_factors(r.blocks[0].factors)
    arrays, _ = solvers._solve_block(G, factors, solver, "cpu", None, False, None)
    assert check_block(G, factors, solver, arrays)
    if solver == "orbit":
        broken = [dict(arrays, rank=np.array(int(arrays["rank"]) + 1)),  # a column with no entries
                  dict(arrays, signs=-arrays["signs"] * (np.arange(len(arrays["signs"])) % 2 * 2 - 1)),
                  dict(arrays, labels=arrays["labels"][:-1]), {"labels": arrays["labels"]}]
    else:
        Q = arrays["Q"]
        broken = [{"Q": np.zeros_like(Q)}, {"Q": Q[:-1]}, {"Q": Q * 2}, {"Q": np.full_like(Q, np.nan)},
                  {"Q": np.roll(Q, 1, axis=0)}, {}]
    for b in broken:
        assert not check_block(G, factors, solver, b)


def test_groups_with_one_name_but_different_generators_never_share_entries(disk_cache):
    swap = Group.from_generators(discrete=[[[0, 1, 0], [1, 0, 0], [0, 0, 1]]], name="G")
    cycle = Group.from_generators(discrete=[[[0, 0, 1], [1, 0, 0], [0, 1, 0]]], name="G")
    assert str(swap) == str(cycle) and swap.key != cycle.key
    Vs, Vc = parse_rep("V", swap), parse_rep("V", cycle)
    for solver in ("orbit", "dense"):
        fs, fc = Vs.blocks[0].factors, Vc.blocks[0].factors
        assert cache_key(swap, solver, fs) != cache_key(cycle, solver, fc)
        assert Vs.solve(solver=solver).rank == 2  # fixes e3 and e1 + e2
        assert Vc.solve(solver=solver).rank == 1  # only the all-ones vector: not the swap's cached answer


def test_the_key_changes_with_the_solver_and_its_version(disk_cache, monkeypatch):
    G = parse_group("SO(3)")
    r = parse_rep("T(2)", G)
    factors = r.blocks[0].factors
    keys = {s: cache_key(G, s, factors) for s in ("dense", "krylov")}
    assert keys["dense"] != keys["krylov"]
    assert r.solve(solver="dense").rank == 1
    cache.clear_memory()
    assert r.solve(solver="dense").cached
    monkeypatch.setitem(SOLVER_VERSIONS, "dense", SOLVER_VERSIONS["dense"] + 1)
    assert cache_key(G, "dense", factors) != keys["dense"] and cache_key(G, "krylov", factors) == keys["krylov"]
    cache.clear_memory()
    assert not r.solve(solver="dense").cached  # an entry of the old solver version is never read
    assert r.solve(solver="dense").cached


def test_stale_temporaries_of_killed_writers_are_removed(disk_cache):
    import os
    import time

    stale, young = disk_cache / ".tmp-dead.npz", disk_cache / ".tmp-live.npz"
    stale.write_bytes(b"PK")
    young.write_bytes(b"PK")
    old = time.time() - cache.STALE_SECONDS - 1
    os.utime(stale, (old, old))
    cache.put("k", {"Q": np.ones(3)})
    assert not stale.exists() and young.exists() and (disk_cache / "k.npz").exists()
