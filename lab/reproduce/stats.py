"""Intervals over replicates, and rules judged on them (``lab reproduce``'s thresholds).

A threshold claim is judged on an interval over its replicates (seeds, data splits), never on one draw: a rule
``Rule(">", 0.02)`` holds when the whole 95 % interval of the replicates' mean lies above 0.02.  The interval is a
percentile bootstrap (``scipy.stats.bootstrap``) with a fixed generator, so the same replicates always give the same
interval.  With three replicates the percentile interval is the replicates' range (each resample of three repeats
one value with chance 1/27 > 2.5 %), so a rule holds when every replicate clears the threshold: a sign test, which a
null whose draws sit at noise level around the threshold still passes one time in eight (1/2 cubed).  The report
prints the method beside every interval; more replicates (``--full``) narrow it.

>>> lo, hi = interval([1.0, 2.0, 3.0])
>>> 1.0 <= lo < 2.0 < hi <= 3.0
True
>>> interval([0.5, 0.5, 0.5])
(0.5, 0.5)
>>> Rule(">", 0.0).judge([0.1, 0.2, 0.3])[0], Rule(">", 0.15).judge([0.1, 0.2, 0.3])[0]
(True, False)
>>> Rule("all").judge([True, True, False])[0]
False
"""
from __future__ import annotations

import math
from dataclasses import dataclass

#: the interval's level and how it is made (the report prints it)
LEVEL = 0.95
METHOD = "percentile bootstrap of the mean over replicates (scipy.stats.bootstrap, 9999 resamples, fixed seed)"


def interval(values, level: float = LEVEL, seed: int = 0) -> tuple[float, float]:
    """(low, high): the ``level`` percentile-bootstrap interval of the mean of ``values`` (fixed generator: the
    same values give the same interval).  One value, or values all equal, give (value, value); a non-finite value
    gives (nan, nan), which no rule accepts."""
    import numpy as np

    x = np.asarray([float(v) for v in values], dtype=float)
    if x.size == 0 or not np.all(np.isfinite(x)):
        return (math.nan, math.nan)
    if x.size == 1 or np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    from scipy.stats import bootstrap

    res = bootstrap((x,), np.mean, confidence_level=level, n_resamples=9999, method="percentile",
                    rng=np.random.default_rng(seed), vectorized=True)
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


def mean(values) -> float:
    vals = [float(v) for v in values]
    return math.fsum(vals) / len(vals) if vals else math.nan


@dataclass(frozen=True)
class Rule:
    """How a part's replicates are judged.

    ``">"`` / ``"<"``: the ``LEVEL`` interval of their mean lies wholly above / below ``threshold``;
    ``"all"``: every replicate's value is true (a statistic that is itself a yes/no reading per draw, such as an
    ordering met or an exact identity within rounding)."""

    op: str
    threshold: float | None = None

    def __post_init__(self):
        if self.op not in (">", "<", "all"):
            raise ValueError(f"unknown rule {self.op!r}: choose '>', '<' or 'all'")
        if self.op != "all" and self.threshold is None:
            raise ValueError("a '>' or '<' rule needs a threshold")

    @property
    def text(self) -> str:
        if self.op == "all":
            return "met at every replicate"
        side = "above" if self.op == ">" else "below"
        return f"the {int(LEVEL * 100)} % interval of the mean wholly {side} {self.threshold:g}"

    def judge(self, values) -> tuple[bool, tuple[float, float] | None]:
        """(holds, interval or None) for the replicates' ``values``."""
        values = list(values)
        if not values:
            return False, None
        if self.op == "all":
            return all(bool(v) for v in values), None
        lo, hi = interval(values)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return False, (lo, hi)
        return (lo > self.threshold) if self.op == ">" else (hi < self.threshold), (lo, hi)
