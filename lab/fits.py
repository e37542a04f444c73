"""Fits shared by the families and the statistics layer: a power law's exponent from sizes and values (the
ensembles' error against the ensemble size, a solver's time against n).  numpy only.
"""
from __future__ import annotations

import math

import numpy as np


def fit_slope(sizes, values) -> float:
    """The least-squares slope of ``log value`` against ``log size`` (NaN with fewer than two positive points): a
    power law's exponent, as the ensembles' size laws and the solvers' time laws are read.

    >>> round(fit_slope([10, 100, 1000], [0.1, 1.0, 10.0]), 9), math.isnan(fit_slope([1], [1.0]))
    (1.0, True)
    """
    pts = [(math.log(m), math.log(v)) for m, v in zip(sizes, values) if m > 0 and v > 0 and math.isfinite(v)]
    if len(pts) < 2:
        return float("nan")
    a = np.array(pts)
    return float(np.polyfit(a[:, 0], a[:, 1], 1)[0])
