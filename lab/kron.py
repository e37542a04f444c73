"""Kronecker products and sums of the per-factor matrices of a tensor block."""
from __future__ import annotations

import numpy as np


def kron_all(mats) -> np.ndarray:
    """M1 (x) M2 (x) ... (the 1 x 1 identity for no factors)."""
    out = np.ones((1, 1))
    for m in mats:
        out = np.kron(out, m)
    return out


def kron_sum(mats) -> np.ndarray:
    """M1 (+) M2 (+) ... = sum_a I (x) .. (x) M_a (x) .. (x) I (how Lie algebras act on tensors)."""
    eyes = [np.eye(len(m)) for m in mats]
    size = int(np.prod([len(m) for m in mats], dtype=np.int64))
    total = np.zeros((size, size), dtype=np.result_type(*mats, float)) if mats else np.zeros((1, 1))
    for a in range(len(mats)):
        total = total + kron_all([mats[c] if c == a else eyes[c] for c in range(len(mats))])
    return total
