"""Arithmetic coding of quantized weights with ``constriction`` (a real entropy coder), and its ideal length.

The quantized vector w_hat takes L values; its symbols (the level index of each weight) are coded with a range coder
-- arithmetic coding in integer arithmetic -- under the categorical model of the empirical level frequencies p_k
(section 5.4.2: "arithmetic coding of w takes at most ceil(d H(p)) + 2 bits").  ``constriction``'s range coder writes
32-bit words, so the coded length is a whole number of words: at most one word over the ideal, which the bound pays.
The decoder needs the counts (coded separately in the description, ``bound.description_bits``), and nothing else.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import BoundsError


def _model(counts: np.ndarray):
    import constriction

    p = np.asarray(counts, dtype=np.float64)
    if p.ndim != 1 or len(p) == 0 or (p < 0).any() or p.sum() <= 0:
        raise BoundsError("a code needs a non-empty vector of non-negative counts with a positive sum")
    return constriction.stream.model.Categorical(p / p.sum(), perfect=False)


def empirical_entropy_bits(symbols) -> float:
    """d H(p) in bits, p the empirical frequencies of ``symbols`` (its ideal coded length)."""
    s = np.asarray(symbols)
    if s.size == 0:
        return 0.0
    _, counts = np.unique(s, return_counts=True)
    p = counts / counts.sum()
    return float(-(counts * np.log2(p)).sum())


def level_counts(symbols, levels: int) -> np.ndarray:
    s = np.asarray(symbols, dtype=np.int64)
    if s.size and (s.min() < 0 or s.max() >= levels):
        raise BoundsError(f"symbols must lie in 0..{levels - 1}")
    return np.bincount(s, minlength=levels)


def encode(symbols, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """``(words, counts)``: the range-coded message (uint32 words) and the level counts the decoder needs."""
    import constriction

    s = np.asarray(symbols, dtype=np.int32)
    counts = level_counts(s, levels)
    enc = constriction.stream.queue.RangeEncoder()
    if s.size:
        enc.encode(s, _model(counts))
    return enc.get_compressed(), counts


def decode(words: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The symbols back from ``encode``'s output (their number is the sum of the counts)."""
    import constriction

    n = int(np.sum(counts))
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    dec = constriction.stream.queue.RangeDecoder(np.asarray(words, dtype=np.uint32))
    return np.asarray(dec.decode(_model(counts), n), dtype=np.int32)


def coded_bits(symbols, levels: int) -> int:
    """The arithmetic-coded length of ``symbols`` in bits (a whole number of 32-bit words)."""
    words, _ = encode(symbols, levels)
    return 32 * int(len(words))


def ideal_bits(symbols) -> int:
    """The thesis's ceil(d H(p)) + 2."""
    return math.ceil(empirical_entropy_bits(symbols)) + 2 if np.asarray(symbols).size else 0
