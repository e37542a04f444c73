"""Which points of a long curve a plot sends to the browser: a bounded view that keeps the curve's shape.

A live pane keeps every recorded step; the browser gets at most a few thousand points per curve.  Two ways to
choose them:

* ``stride_keep`` while a run streams: every ``stride``-th step plus the newest one.  The stride only ever
  doubles (the live view is re-thinned a few times per run, never per frame), so appending stays cheap.
* ``decimate`` for a finished (or loaded) curve: MinMaxLTTB from ``tsdownsample`` (min/max pre-selection, then
  Largest-Triangle-Three-Buckets: Van der Donckt et al. 2023, the method plotly-resampler uses), plus the
  curve's first, last, lowest and highest points, which a reader must never lose (a divergence spike, the
  final value).  ``decimate_many`` takes the union over several curves sampled at the same steps.

>>> import numpy as np
>>> y = np.zeros(10_000); y[4321] = 5.0; y[777] = -3.0
>>> keep = decimate(y, 100)
>>> len(keep) <= 104, {0, 777, 4321, 9999} <= set(keep.tolist())
(True, True)
>>> stride_keep(10, 4).tolist()
[0, 4, 8, 9]
"""
from __future__ import annotations

import numpy as np

#: below this many points a curve is sent whole
MIN_POINTS = 8


def _finite(y: np.ndarray) -> np.ndarray:
    """NaN and ±inf (a diverged run) as the curve's nearest finite extreme, so the selection still sees them."""
    y = np.asarray(y, dtype=float)
    bad = ~np.isfinite(y)
    if not bad.any():
        return y
    good = y[~bad]
    hi = good.max() if good.size else 0.0
    lo = good.min() if good.size else 0.0
    return np.where(np.isnan(y), hi, np.where(y == np.inf, hi, np.where(y == -np.inf, lo, y)))


def decimate(y, n_out: int) -> np.ndarray:
    """Sorted indices of at most about ``n_out`` (+4) points of ``y`` that draw like all of it: MinMaxLTTB,
    plus the first, last, minimum and maximum points.  All indices when ``len(y) <= n_out``."""
    y = np.asarray(y, dtype=float)
    n = len(y)
    if n <= max(n_out, MIN_POINTS):
        return np.arange(n)
    from tsdownsample import MinMaxLTTBDownsampler  # a compiled, kept library: the lab writes no LTTB of its own

    yf = np.ascontiguousarray(_finite(y))
    keep = MinMaxLTTBDownsampler().downsample(yf, n_out=max(int(n_out), 3))
    must = np.array([0, n - 1, int(np.argmin(yf)), int(np.argmax(yf))])
    return np.union1d(np.asarray(keep, dtype=np.int64), must)


def decimate_many(curves, n_out: int) -> np.ndarray:
    """The union of ``decimate`` over curves of one length (the steps every curve keeps its shape at)."""
    curves = [np.asarray(c, dtype=float) for c in curves]
    if not curves:
        return np.arange(0)
    n = len(curves[0])
    if n <= max(n_out, MIN_POINTS):
        return np.arange(n)
    keep = np.arange(0)
    for c in curves:
        keep = np.union1d(keep, decimate(c, n_out))
    return keep


def stride_keep(n: int, stride: int) -> np.ndarray:
    """Indices ``0, stride, 2·stride, …`` of ``n`` points, and the newest one (``n - 1``)."""
    if n <= 0:
        return np.arange(0)
    keep = np.arange(0, n, max(int(stride), 1))
    return keep if keep[-1] == n - 1 else np.append(keep, n - 1)
