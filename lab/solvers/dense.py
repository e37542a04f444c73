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
    """Yield the constraint matrices of a tensor block, one per generator."""
    m = group.d ** len(factors)
    for h, hd in zip(group.discrete, group.discrete_dual):
        yield kron_all([h if f == "V" else hd for f in factors]) - np.eye(m)
    for A, Ad in zip(group.lie, group.lie_dual):
        yield kron_sum([A if f == "V" else Ad for f in factors])


def nullspace_of_stack(constraints, m: int, dtype) -> np.ndarray:
    R = None
    for C in constraints:
        stack = C if R is None else np.vstack([R, C])
        R = scipy.linalg.qr(stack, mode="r", overwrite_a=True, check_finite=False)[0][: min(stack.shape)]
    if R is None:
        return np.eye(m, dtype=dtype)
    _, s, vh = scipy.linalg.svd(R, full_matrices=True, check_finite=False)
    smax = s[0] if len(s) else 0.0
    rank_c = int(np.sum(s > RANK_RTOL * max(smax, 1.0)))
    return np.ascontiguousarray(vh[rank_c:].conj().T.astype(dtype))


def dense_basis(group, factors) -> np.ndarray:
    m = group.d ** len(factors)
    return nullspace_of_stack(block_constraints(group, factors), m, group.dtype)
