"""Partitions of weight entries into shared parameters, and the distance between two of them.

A sharing matrix A (rows = weight entries, columns = shared parameters) is a partition when every row has a
single 1; ``labels`` are its argmax per row.  The partition distance is the least number of entries that
must change block for one partition to equal the other: K minus the largest total overlap of a one-to-one
matching of blocks, an assignment problem (``scipy.optimize.linear_sum_assignment``).
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def canonical(labels) -> np.ndarray:
    """Relabel blocks 0, 1, 2, ... in order of first appearance."""
    labels = np.asarray(labels)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[inverse]


def contingency(a, b) -> np.ndarray:
    a, b = canonical(a), canonical(b)
    C = np.zeros((a.max() + 1, b.max() + 1), dtype=np.int64)
    np.add.at(C, (a, b), 1)
    return C


def partition_distance(a, b) -> int:
    """Entries to reassign so that partition ``a`` equals partition ``b`` (0 for relabelled copies)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise ValueError(f"partitions of different sizes: {a.size} and {b.size}")
    C = contingency(a, b)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return int(a.size - C[rows, cols].sum())


def matching(a, b) -> dict[int, int]:
    """The optimal block matching: block of ``a`` -> block of ``b`` (canonical labels)."""
    C = contingency(a, b)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return dict(zip(rows.tolist(), cols.tolist()))


def random_partition(K: int, blocks: int, rng) -> np.ndarray:
    """Labels of a uniformly shuffled partition of K entries into exactly ``blocks`` non-empty blocks."""
    if not 1 <= blocks <= K:
        raise ValueError(f"cannot split {K} entries into {blocks} non-empty blocks")
    rng = np.random.default_rng(rng)
    labels = np.concatenate([np.arange(blocks), rng.integers(0, blocks, K - blocks)])
    return canonical(rng.permutation(labels))


def selection_matrix(labels, columns: int | None = None) -> np.ndarray:
    """The 0/1 matrix A with A[i, labels[i]] = 1."""
    labels = np.asarray(labels)
    A = np.zeros((labels.size, columns or labels.max() + 1))
    A[np.arange(labels.size), labels] = 1
    return A
