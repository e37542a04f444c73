"""Cheap checks that a basis read from the on-disk cache really solves its block, before it is trusted.

The cache's checksum only proves that a file is the one that was written; it cannot tell a basis computed by
an older, buggy solver, or a file rewritten by hand (or by another program) together with a fresh checksum.
A wrong basis would silently give wrong layers, so every entry loaded from disk is checked against the
constraints it must satisfy, at a cost far below solving again:

* dense, Krylov and subgroup entries (``Q``): the right shape, finite, orthonormal columns, and
  ``rho(h) Q = Q`` / ``drho(A) Q = 0`` for a few generators (all of them when there are few, else a random
  handful: a wrong basis fails every generator it does not satisfy, so a sample finds it);
* orbit entries (``labels``, ``signs``, ``rank``): the right length, labels in range and all used, signs
  consistent, and for a sample of entries the labels and signs invariant under a few generator permutations.

A check that fails makes the caller recompute (and overwrite) the entry.
"""
from __future__ import annotations

import math

import numpy as np

MAX_GENERATORS = 6  # generators checked per entry (a random sample beyond this)
MAX_ENTRIES = 4096  # orbit entries checked per generator
TOL = 1e-6


def _sample(n: int, k: int, rng) -> np.ndarray:
    return np.arange(n) if n <= k else np.sort(rng.choice(n, size=k, replace=False))


def check_block(group, factors, solver: str, arrays: dict) -> bool:
    """True when ``arrays`` (a cache entry) is a valid basis of the tensor block ``factors`` of ``group``."""
    try:
        if solver == "orbit":
            return _check_orbit(group, len(factors), arrays)
        return _check_dense(group, factors, arrays)
    except Exception:  # noqa: BLE001 - any failure to even check means: do not trust it
        return False


def _check_dense(group, factors, arrays) -> bool:
    import torch

    from .krylov import StructuredConstraints

    Q = arrays.get("Q")
    dims = tuple(f.size for f in factors)
    n = math.prod(dims)
    if not isinstance(Q, np.ndarray) or Q.ndim != 2 or Q.shape[0] != n or not np.all(np.isfinite(Q)):
        return False
    r = Q.shape[1]
    if r == 0:
        return True
    if r > n or not np.allclose(Q.conj().T @ Q, np.eye(r), atol=TOL * max(1, math.sqrt(r)) * 100):
        return False
    rng = np.random.default_rng()
    gens = [("d", i) for i in range(group.num_discrete)] + [("l", i) for i in range(group.num_lie)]
    picked = [gens[i] for i in _sample(len(gens), MAX_GENERATORS, rng)]
    disc = [i for kind, i in picked if kind == "d"]
    lie = [i for kind, i in picked if kind == "l"]
    is_complex = np.iscomplexobj(Q) or any(np.iscomplexobj(m) for f in factors for m in f.generators())
    dtype = torch.complex128 if is_complex else torch.float64
    ops = StructuredConstraints(group, factors, torch.device("cpu"), dtype, discrete=disc, lie=lie)
    X = torch.as_tensor(np.ascontiguousarray(Q.T).reshape((r,) + dims), dtype=dtype)
    scale = 1.0 + sum(float(np.abs(m).max(initial=0.0)) * d for f, d in zip(factors, dims) for m in f.generators())
    for C in ops.apply(X):
        if float(torch.linalg.vector_norm(C)) > TOL * scale * math.sqrt(r):
            return False
    return True


def _check_orbit(group, k: int, arrays) -> bool:
    labels, signs, rank = arrays.get("labels"), arrays.get("signs"), arrays.get("rank")
    if labels is None or signs is None or rank is None:
        return False
    rank = int(rank)
    d = group.d
    n = d ** k
    if labels.shape != (n,) or signs.shape != (n,) or rank < 0:
        return False
    if labels.min(initial=-1) < -1 or labels.max(initial=-1) >= rank:
        return False
    valid = labels >= 0
    if not (np.all(np.abs(signs[valid]) == 1) and np.all(signs[~valid] == 0)):
        return False
    if rank and np.any(np.bincount(labels[valid], minlength=rank) == 0):
        return False
    perms, psigns = group.perms
    rng = np.random.default_rng()
    entries = _sample(n, MAX_ENTRIES, rng)
    digits = np.stack(np.unravel_index(entries, (d,) * k)) if k else np.zeros((0, len(entries)), dtype=np.int64)
    for g in _sample(len(perms), MAX_GENERATORS, rng):
        p, s = perms[g], psigns[g]
        image = np.ravel_multi_index(tuple(p[digits]), (d,) * k) if k else entries
        flip = np.prod(s[digits], axis=0) if k else np.ones(len(entries))
        a, b = labels[entries], labels[image]
        if np.any(a != b):
            return False
        keep = a >= 0
        if np.any(signs[image][keep] != signs[entries][keep] * flip[keep]):
            return False
    return True
