"""The thesis's uniform channel allocation: hidden features as tensors of every rank, each rank with about the same
number of channels (appendix A.1.9; section 2.5: 256 channels of SO(3) give 70 T0 + 23 T1 + 7 T2 + 2 T3).

Going from low ranks to high, the largest rank r whose full round ``(r + 1) d^r`` still fits in the channels left
gets ``d^(r - k)`` tensors of every rank k <= r (d^r channels per rank); the rest is allocated the same way until no
channel is left.  For groups whose dual differs from V (not orthogonal), the N tensors of rank r are split over the
types T(k, r - k) as the binomial weights C(r, k) say, the remainder going to the middle types first (the EMLP
library draws it at random; here it is deterministic, so a model is the same every time it is built).

>>> from lab.groups import SO, S
>>> uniform_rep(256, SO(3))
70*Scalar + 23*V + 7*T(2) + 2*T(3) over SO(3)
>>> uniform_rep(384, SO(3)).size <= 384, uniform_rep(100, S(5))
(True, 40*Scalar + 7*V + T(2) over S(5))
"""
from __future__ import annotations

from math import comb

from ..errors import RepError
from ..reps import SumRep, T


def _max_rank(ch: int, d: int) -> int:
    """The largest r with (r + 1) d^r <= ch (-1: none)."""
    r = -1
    while (r + 2) * d ** (r + 1) <= ch:
        r += 1
        if d == 1 and r > 64:  # a one-dimensional V: every rank is one channel; stop at a sane order
            break
    return r


def rank_counts(ch: int, d: int) -> list[int]:
    """How many tensors of each rank ``ch`` channels of a d-dimensional V get (index: rank)."""
    if ch < 1:
        raise RepError(f"a hidden layer needs at least one channel, got {ch}")
    counts: list[int] = []
    while ch > 0:
        r = _max_rank(ch, d)
        if r < 0:
            break
        counts += [0] * (r + 1 - len(counts))
        for k in range(r + 1):
            counts[k] += d ** (r - k)
        ch -= (r + 1) * d ** r
    return counts


def _split(n: int, rank: int) -> list[int]:
    """n tensors of rank ``rank`` over T(k, rank - k), k = 0..rank, by the binomial weights."""
    whole, rest = divmod(n, 2 ** rank)
    out = [whole * comb(rank, k) for k in range(rank + 1)]
    for k in sorted(range(rank + 1), key=lambda k: (abs(2 * k - rank), k))[:rest]:
        out[k] += 1
    return out


def uniform_rep(ch: int, group):
    """A hidden rep of about ``ch`` channels of ``group`` (its base V), allocated uniformly over tensor ranks."""
    d = group.d
    counts = rank_counts(int(ch), d)
    orthogonal = getattr(group, "is_orthogonal", False)
    parts = []
    for r, n in enumerate(counts):
        if n == 0:
            continue
        if orthogonal or r == 0:
            parts += [T(r, 0, group)] * n
        else:
            for k, m in enumerate(_split(n, r)):
                parts += [T(r - k, k, group)] * m
    return SumRep(parts, group=group)
