"""The PAC-Bayes bound of thesis chapter 5 with the universal prior over compressed descriptions.

A hypothesis h is described by a program of l(h) bits (``description_bits``): the arithmetic-coded quantized
subspace weights, the codebook in half precision (16 bits a level), the level counts (ceil(log2 d) bits each), and
the hyperparameters chosen by looking at the bound (section 5.4.2 and appendix A.4.2: a choice among H values known
in advance costs log2 H bits -- the union over hyperparameters).  With the universal prior P(h) = 2^{-K(h)} / Z and
a point-mass posterior on h,

    KL(Q || P) <= K(h) ln 2 <= l(h) ln 2 + 2 ln l(h)                              (section 5.3)

and Catoni's bound (appendix A.4.10.1, Theorem A.3), with probability at least 1 - delta,

    R(h) <= inf_{lambda > 1} Phi^{-1}_{lambda/n}( R_hat(h) + alpha/lambda [KL + ln(1/delta)
                                                   + 2 ln(ln(alpha^2 lambda) / ln alpha)] ),
    Phi^{-1}_Y(x) = (1 - e^{-Y x}) / (1 - e^{-Y}).

The thesis prints Phi^{-1}_Y(x) = (1 - e^{Yx}) / (1 - e^Y), without the minus signs: that function lies *below* x
and would give a "bound" under the training error.  The lab uses Catoni's (with the signs), as the authors' code
does; alpha > 1 is the grid ratio of the union over lambda (default 1 + 1e-4, the authors' code's).  R_hat is the
0-1 training error of the quantized model itself (the bound over the quantized posterior).
"""
from __future__ import annotations

import math

from .errors import BoundsError

#: the confidence of every bound the lab reports (the thesis's: 95 %)
DELTA = 0.05
#: Catoni's grid ratio for the union over lambda
ALPHA = 1.0 + 1e-4
#: bits of each codebook level (half precision) -- section 5.4.2
LEVEL_BITS = 16


def hyperparameter_bits(*choices: int) -> float:
    """log2 of the number of hyperparameter combinations searched (each argument: how many values one took)."""
    total = 1
    for c in choices:
        if int(c) < 1:
            raise BoundsError(f"a hyperparameter searched over {c} values")
        total *= int(c)
    return math.log2(total)


def description_bits(coded_bits: float, levels: int, d: int, extra_bits: float = 0.0) -> float:
    """l(h): the coded weights + ``LEVEL_BITS`` per codebook level + ceil(log2 d) per level count + ``extra_bits``
    (the hyperparameters)."""
    if coded_bits < 0 or levels < 0 or d < 0 or extra_bits < 0:
        raise BoundsError("a description length needs non-negative parts")
    counts = levels * math.ceil(math.log2(d)) if d > 1 else 0
    return float(coded_bits + levels * LEVEL_BITS + counts + extra_bits)


def kl_from_bits(bits: float) -> float:
    """KL(Q || P) <= l ln 2 + 2 ln l (nats) for a description of l bits under the universal prior (l >= 1)."""
    if bits < 0:
        raise BoundsError(f"a description length must be non-negative, got {bits}")
    bits = max(float(bits), 1.0)
    return bits * math.log(2) + 2 * math.log(bits)


def phi_inverse(Y: float, x: float) -> float:
    """Catoni's Phi^{-1}_Y(x) = (1 - e^{-Yx}) / (1 - e^{-Y}), capped at 1 (Y > 0)."""
    return min(1.0, math.expm1(-Y * x) / math.expm1(-Y))


def catoni_at(train_error: float, kl: float, n: int, lam: float, delta: float = DELTA, alpha: float = ALPHA) -> float:
    """Theorem A.3's right-hand side at one lambda > 1 (before the infimum)."""
    union = 2 * math.log(math.log(alpha * alpha * lam) / math.log(alpha))
    x = train_error + alpha / lam * (kl + math.log(1 / delta) + union)
    return phi_inverse(lam / n, x)


def catoni_bound(train_error: float, kl: float, n: int, delta: float = DELTA, alpha: float = ALPHA) -> float:
    """The infimum over lambda > 1 of ``catoni_at`` (golden-section search on log lambda, refined on a grid): an
    upper bound on the population 0-1 error holding with probability 1 - delta."""
    if not 0 <= train_error <= 1:
        raise BoundsError(f"the training error must lie in [0, 1], got {train_error}")
    if kl < 0 or n < 1 or not 0 < delta < 1 or alpha <= 1:
        raise BoundsError(f"a bound needs KL >= 0, n >= 1, 0 < delta < 1 and alpha > 1 (got KL={kl}, n={n}, "
                          f"delta={delta}, alpha={alpha})")
    from scipy.optimize import minimize_scalar

    f = lambda g: catoni_at(train_error, kl, n, math.exp(g), delta, alpha)  # noqa: E731
    hi = math.log(1e4 * n)
    grid = [hi * i / 400 for i in range(1, 401)]
    start = min(grid, key=f)
    step = hi / 400
    res = minimize_scalar(f, bounds=(max(start - step, 1e-9), min(start + step, hi)), method="bounded",
                          options={"xatol": 1e-10})
    return float(min(f(start), res.fun))


def bound_from_bits(train_error: float, bits: float, n: int, delta: float = DELTA) -> dict:
    """``kl`` (nats) and ``bound`` for a hypothesis of ``bits`` bits with ``train_error`` on n points."""
    kl = kl_from_bits(bits)
    return {"kl": kl, "bound": catoni_bound(train_error, kl, n, delta)}
