"""Partitions of weight entries into shared parameters, and the distance between two of them.

A sharing matrix A (rows = weight entries, columns = shared parameters) is a partition when every row has a
single 1; ``labels`` are its argmax per row.  The partition distance is the least number of entries that
must change block for one partition to equal the other: K minus the largest total overlap of a one-to-one
matching of blocks, an assignment problem (``scipy.optimize.linear_sum_assignment``).
"""
from __future__ import annotations

from dataclasses import dataclass

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


def block_order(A: np.ndarray, gt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(row order, column order) that shows a sharing matrix A block by block: entries sorted by their true block,
    columns in use sorted by the true block their block is matched to (unused columns last).

    >>> A = np.eye(3)[[2, 2, 0]]          # entries 0 and 1 use column 2, entry 2 uses column 0
    >>> rows, cols = block_order(A, gt=np.array([0, 0, 1]))
    >>> rows.tolist(), cols.tolist()  # column 2 stands for true block 0, column 0 for block 1, unused column 1 last
    ([0, 1, 2], [2, 0, 1])
    """
    rows = np.argsort(gt, kind="stable")
    hard = A.argmax(1)
    match = matching(hard, gt)
    canon = canonical(hard)
    key = np.full(A.shape[1], np.inf)
    for entry, col in enumerate(hard):
        key[col] = min(key[col], match.get(int(canon[entry]), np.inf))
    cols = np.lexsort((np.arange(A.shape[1]), key))
    return rows, cols


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


def stirling2(n: int, k: int) -> int:
    """The number of partitions of n items into exactly k non-empty blocks (exact)."""
    row = [1] + [0] * k  # S(0, j)
    for i in range(1, n + 1):
        new = [0] * (k + 1)
        for j in range(1, min(i, k) + 1):
            new[j] = j * row[j] + row[j - 1]
        row = new
    return row[k]


def uniform_partition(K: int, blocks: int, rng) -> np.ndarray:
    """Labels of a partition drawn uniformly from all partitions of K entries into exactly ``blocks`` blocks (what
    the reference code's Gaussian data draw: a uniform pick from the enumerated set partitions), by the
    recursion S(n, k) = k S(n−1, k) + S(n−1, k−1): the last entry is a block of its own with probability
    S(n−1, k−1) / S(n, k), else it joins one of the k blocks of a uniform partition of the others."""
    if not 1 <= blocks <= K:
        raise ValueError(f"cannot split {K} entries into {blocks} non-empty blocks")
    rng = np.random.default_rng(rng)
    labels = np.zeros(K, dtype=np.int64)
    n, k = K, blocks
    while n > 0:
        if k == n:  # every remaining entry alone
            labels[:n] = np.arange(n)
            break
        alone = stirling2(n - 1, k - 1)
        if k > 1 and rng.random() * stirling2(n, k) < alone:
            labels[n - 1] = k - 1
            k -= 1
        else:
            labels[n - 1] = rng.integers(k)  # the first n − 1 entries use the labels 0 … k − 1
        n -= 1
    return canonical(labels)


def snapped_matrix(A: np.ndarray, labels=None) -> np.ndarray:
    """The 0/1 K x K matrix of a hard partition in the columns of the soft A: with ``labels`` None, A's argmax per
    row; else ``labels`` (a coarsening of the argmax partition, e.g. after the merge pass), each block put in the
    argmax column of its first entry."""
    A = np.asarray(A)
    hard = A.argmax(1)
    if labels is None:
        cols = hard
    else:
        labels = canonical(labels)
        first = {}
        for i, lab in enumerate(labels):
            first.setdefault(int(lab), int(hard[i]))
        cols = np.array([first[int(lab)] for lab in labels])
    S = np.zeros(A.shape)
    S[np.arange(A.shape[0]), cols] = 1
    return S


def is_refinement(fine, coarse) -> bool:
    """Whether every block of ``fine`` lies inside one block of ``coarse`` (a finer-or-equal partition)."""
    C = contingency(fine, coarse)
    return bool(((C > 0).sum(1) == 1).all())


@dataclass(frozen=True)
class SnapshotReading:
    """What a picture of a sharing matrix A says, every number computed from the 0/1 matrix drawn."""

    snapped: np.ndarray  # the 0/1 K x K matrix scored, in the columns of A
    labels: np.ndarray  # its 1 per row (argmax): the partition scored
    distance: int  # partition distance of ``labels`` to the truth
    blocks: int  # shared parameters the partition uses
    true_blocks: int  # blocks of the truth
    row_max: tuple[float, float]  # the smallest and largest row maximum of the relaxed A (1: a hard choice)


def read_snapshot(A: np.ndarray, gt, snapped=None) -> SnapshotReading:
    """Read a (snapshot of the) relaxed A against the true partition ``gt``: ``snapped`` is the 0/1 matrix scored
    (``snapped_matrix(A)``, A's argmax per row, when None; pass the result's ``selection`` for the final,
    possibly merged partition), and the distance and block count are computed from that very matrix.

    >>> A = np.array([[0.5, 0.5, 0.0], [0.1, 0.8, 0.1], [0.0, 0.3, 0.7]])
    >>> r = read_snapshot(A, gt=[0, 0, 1])
    >>> r.labels.tolist(), r.distance, r.blocks, r.true_blocks, r.row_max
    ([0, 1, 2], 1, 3, 2, (0.5, 0.8))
    """
    A = np.asarray(A)
    S = snapped_matrix(A) if snapped is None else np.asarray(snapped)
    if S.shape[0] != A.shape[0] or not ((S == 0) | (S == 1)).all() or not (S.sum(1) == 1).all():
        raise ValueError(f"not a 0/1 matrix with one 1 per row for the {A.shape[0]} rows of A")
    labels, gt = S.argmax(1), np.asarray(gt)
    rows = A.max(1)
    return SnapshotReading(S, labels, partition_distance(labels, gt), int(np.unique(labels).size),
                           int(np.unique(gt).size), (float(rows.min()), float(rows.max())))


def best_step(history) -> tuple[int, int] | None:
    """(step, distance) of the first record with the least partition distance (None: none recorded).  The
    method never sees the distance: it minimises the validation loss and penalties, and scores its last step."""
    scored = [(h["partition_distance"], h["step"]) for h in history
              if h.get("partition_distance") is not None and h["partition_distance"] == h["partition_distance"]]
    if not scored:
        return None
    distance, step = min(scored, key=lambda t: (t[0], t[1]))
    return int(step), int(distance)


#: the stability window: the last this many recorded snapshots of A (150 steps at method 1's record_every of 5)
STABLE_WINDOW = 30
#: a row of A whose two largest probabilities are within this of each other is "undecided": argmax snapping may
#: flip it from one snapshot to the next (measured: the conv task at seed 0 ends with four rows split 0.50 / 0.50,
#: its snapped distance alternating 1, 0 at every snapshot of the last 150 steps)
UNDECIDED_MARGIN = 0.05


@dataclass(frozen=True)
class Stability:
    """Whether argmax snapping gives the same partition over the last snapshots of a learning run."""

    stable: bool  # every snapshot of the window snapped the same partition (and no row of the final A undecided)
    labels: np.ndarray  # the modal partition: the one snapped at the most snapshots of the window (canonical)
    share: float  # the fraction of the window's snapshots that snapped ``labels``
    snapshots: int  # the window's snapshots
    steps: tuple[int, int] | None  # (first, last) step of the window, when the steps are known
    undecided: list  # rows of the final A whose two largest probabilities are within ``margin``
    splits: list  # their two largest probabilities, (largest, second), in the order of ``undecided``
    margin: float

    def describe(self) -> str:
        """In words: "stable over the last N snapshots" or "not stable: ..." naming the undecided rows."""
        where = (f" (steps {self.steps[0]} to {self.steps[1]})" if self.steps else "")
        if self.stable:
            return f"stable over the last {self.snapshots} snapshots{where}"
        text = (f"not stable: the most frequent partition was snapped at {round(self.share * self.snapshots)} of "
                f"the last {self.snapshots} snapshots{where}")
        if self.undecided:
            rows = ", ".join(f"{i} ({a:.2f} / {b:.2f})" for i, (a, b) in zip(self.undecided, self.splits))
            text += (f"; undecided rows (two largest entries within {self.margin:g}, so argmax snapping may flip "
                     f"them): {rows}")
        return text


def stability(A_history, steps=None, window: int = STABLE_WINDOW, margin: float = UNDECIDED_MARGIN) -> Stability:
    """Read the last ``window`` snapshots of A (``A_history``, oldest first; ``steps`` their steps): the partition
    argmax snapping gives at each, the most frequent one and its share, and the undecided rows of the last A.

    >>> tied = [np.array([[0.9, 0.1], [0.5 + e, 0.5 - e]]) for e in (0.001, -0.001, 0.001, -0.001)]
    >>> s = stability(tied)
    >>> s.stable, s.share, s.undecided
    (False, 0.5, [1])
    >>> stability([np.eye(2)] * 3).describe()
    'stable over the last 3 snapshots'
    """
    if not len(A_history):
        raise ValueError("no snapshot of A to read")
    last = list(A_history)[-window:]
    counts: dict[tuple, int] = {}
    latest: dict[tuple, int] = {}
    for i, A in enumerate(last):
        key = tuple(canonical(np.asarray(A).argmax(1)).tolist())
        counts[key], latest[key] = counts.get(key, 0) + 1, i
    modal = max(counts, key=lambda k: (counts[k], latest[k]))  # equally frequent: the one snapped last
    final = np.asarray(last[-1])
    top = -np.sort(-final, 1)[:, :2] if final.shape[1] > 1 else np.c_[final[:, :1], np.zeros(len(final))]
    undecided = [int(i) for i in np.flatnonzero(top[:, 0] - top[:, 1] < margin)]
    span = None
    if steps is not None and len(steps):
        window_steps = list(steps)[-len(last):]
        span = (int(window_steps[0]), int(window_steps[-1]))
    return Stability(stable=len(counts) == 1 and not undecided, labels=np.array(modal),
                     share=counts[modal] / len(last), snapshots=len(last), steps=span, undecided=undecided,
                     splits=[(float(top[i, 0]), float(top[i, 1])) for i in undecided], margin=margin)
