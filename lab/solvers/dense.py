"""Dense solver: SVD of the stacked constraints [rho(h_k) - I ; drho(A_i)] (thesis eq. 2.6).

The stack is reduced one constraint at a time with QR (R of [R; C_i] has the same singular values and
right singular vectors as the stack), so memory stays at a few m x m matrices.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg

from ..kron import kron_all, kron_sum

RANK_RTOL = 1e-7


def block_constraints(group, factors):
    """Yield the constraint matrices of a tensor block, one per generator of ``group``.

    Discrete generator h: ``rho_1(h) (x) rho_2(h) (x) ... - I``; Lie-algebra element A: the Kronecker sum
    of the ``drho_a(A)``.  Each factor (a leaf representation) gives its own matrices (``generators()``),
    so the factors may have different dimensions.
    """
    mats = [f.generators() for f in factors]
    m = int(np.prod([f.size for f in factors], dtype=np.int64))
    for k in range(group.num_discrete):
        yield kron_all([disc[k] for disc, _ in mats]) - np.eye(m)
    for i in range(group.num_lie):
        yield kron_sum([lie[i] for _, lie in mats])


def nullspace_of_stack(constraints, m: int, dtype, rtol: float | None = None) -> np.ndarray:
    """The null space of the stacked constraints: singular values above ``RANK_RTOL`` x max(largest, 1) count as
    rank; with ``rtol`` (a learned group's explicit tolerance, ``lab.discovery``) those above ``rtol`` x the
    largest."""
    R = None
    for C in constraints:
        stack = C if R is None else np.vstack([R, C])
        R = scipy.linalg.qr(stack, mode="r", overwrite_a=True, check_finite=False)[0][: min(stack.shape)]
    if R is None:
        return np.eye(m, dtype=dtype)
    _, s, vh = scipy.linalg.svd(R, full_matrices=True, check_finite=False)
    smax = s[0] if len(s) else 0.0
    rank_c = int(np.sum(s > (rtol * smax if rtol is not None else RANK_RTOL * max(smax, 1.0))))
    return np.ascontiguousarray(vh[rank_c:].conj().T.astype(dtype))


def dense_basis(group, factors) -> np.ndarray:
    m = int(np.prod([f.size for f in factors], dtype=np.int64))
    dtype = np.result_type(group.dtype, *(f.dtype for f in factors))
    return nullspace_of_stack(block_constraints(group, factors), m, dtype, getattr(group, "rank_tol", None))
