"""Subgroup-reduced solver for large blocks of Lie groups that contain a known finite signed-permutation
subgroup H (e.g. the 90-degree rotations inside SO(n)).

Invariants of G are invariants of H, so they lie in the exact sparse orbit basis Q_H of H (``orbit``).
The remaining constraints of G only need to be solved inside that much smaller space: the Gram matrix
Q_H^T (C^T C) Q_H (r_H x r_H) is built with the structured Kronecker products of the Krylov solver, and
its nullspace psi gives Q = Q_H psi.  For SO(4) on T(8) this turns a 65 536-dimensional iterative solve
into a 715-dimensional dense one.

Only some constraints are needed inside the H-invariant space: for v invariant under H,
drho(h A h^-1) v = rho(h) drho(A) v, so a Lie generator whose H-conjugates are spanned by generators
already kept adds nothing, and discrete generators that belong to H are satisfied already.  For SO(n)
a single rotation generator is enough.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from . import memory
from .krylov import StructuredConstraints
from .orbit import orbit_basis

RANK_RTOL = 1e-9  # on eigenvalues of the Gram matrix, i.e. 3e-5 on singular values of C Q_H
PROGRESS_STEPS = 20  # the Gram matrix is built in at least this many chunks, each one progress report


def subgroup_basis(group, factors, device=None, memory_limit=None, chunk=64, progress=None) -> np.ndarray:
    import torch  # here, not at the top: importing the solvers stays light

    H = group.finite_subgroup
    k = len(factors)
    dims = tuple(f.size for f in factors)
    n = int(np.prod(dims, dtype=np.int64))
    limit = memory.memory_limit(memory_limit)
    perms, signs = H.perms
    ob = orbit_basis(perms, signs, k)
    QH = ob.basis().tocsc()
    r_h = ob.rank
    itemsize = 16 if group.is_complex else 8
    chunk = memory.subgroup_chunk(n, itemsize, chunk)
    # at least PROGRESS_STEPS progress reports (so that a solve shows its rate and an ETA as it goes), never a
    # chunk larger than the memory check below allows
    chunk = max(1, min(chunk, -(-r_h // PROGRESS_STEPS)))
    memory.check(f"the reduced solve of a {n}-entry block in a {r_h}-dimensional subgroup-invariant space",
                 memory.subgroup_bytes(n, len(perms), r_h, r_h, itemsize, chunk), limit)
    if r_h == 0:
        return np.zeros((n, 0), dtype=group.dtype)
    dtype = torch.complex128 if group.is_complex else torch.float64
    device = torch.device("cpu") if device is None else device
    keep_discrete, keep_lie = essential_generators(group, H)
    ops = StructuredConstraints(group, factors, device, dtype, discrete=keep_discrete, lie=keep_lie)
    QH_rows = QH.T.tocsr()  # r_h x n
    gram = np.zeros((r_h, r_h), dtype=group.dtype)
    for start in range(0, r_h, chunk):
        stop = min(start + chunk, r_h)
        X = torch.as_tensor(QH_rows[start:stop].toarray(), dtype=dtype, device=device)
        Y = ops.normal(X.reshape((stop - start,) + dims)).reshape(stop - start, n)
        gram[start:stop] = (QH_rows @ Y.cpu().numpy().T).T.conj()  # rows: (C^H C q_i)^H Q_H
        if progress:
            progress(stop / r_h, f"subgroup: constraints on {stop} of {r_h} orbit vectors")
    gram = (gram + gram.conj().T) / 2
    evals, evecs = scipy.linalg.eigh(gram)
    null = evals <= RANK_RTOL * max(evals[-1], 1.0)
    psi = evecs[:, null]
    del gram, evecs
    # re-orthonormalise psi (r_h x rank, small): Q_H has orthonormal columns, so Q_H psi is then orthonormal
    # too, and the one n x rank array allocated is the result itself (no QR or dtype copy of it)
    if psi.shape[1]:
        psi, _ = np.linalg.qr(psi)
    psi = psi.astype(np.result_type(group.dtype, QH.dtype), copy=False)
    return np.asarray(QH @ psi).astype(group.dtype, copy=False)


def _conjugation_closure(basis: list[np.ndarray], gens: np.ndarray) -> np.ndarray:
    """Orthonormal basis (rows) of the smallest space containing ``basis`` closed under A -> h A h^-1."""
    vecs = np.array([b.ravel() for b in basis])
    inverses = [np.linalg.inv(h) for h in gens]
    while True:
        q = scipy.linalg.orth(vecs.T).T
        d = int(np.sqrt(q.shape[1]))
        new = [(h @ row.reshape(d, d) @ hi).ravel() for row in q for h, hi in zip(gens, inverses)]
        grown = scipy.linalg.orth(np.vstack([q, new]).T).T
        if grown.shape[0] == q.shape[0]:
            return q
        vecs = grown


def essential_generators(group, H) -> tuple[list[int], list[int]]:
    """Indices of the discrete and Lie generators of ``group`` still needed on H-invariant vectors."""
    h_mats = H.discrete
    keep_discrete = [i for i, g in enumerate(group.discrete)
                     if not any(np.allclose(g, h) for h in h_mats)]
    keep_lie: list[int] = []
    span = None
    for i, A in enumerate(group.lie):
        if span is not None and span.shape[0]:
            residual = A.ravel() - span.T @ (span.conj() @ A.ravel())
            if np.linalg.norm(residual) < 1e-9 * max(np.linalg.norm(A), 1e-300):
                continue
        keep_lie.append(i)
        span = _conjugation_closure([group.lie[j] for j in keep_lie], h_mats)
    return keep_discrete, keep_lie
