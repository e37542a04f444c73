"""The statistics layer of ``lab reproduce`` (layer 2): intervals honest for their number of draws, a claim judged
against its null on the same statistic, and four verdicts.

A part of a claim's criterion is read on the claim's draws and on its null's draws (seeds, splits; ``part``) by one
statistic, and judged by a ``Rule``:

* **the threshold**: the interval of the claim's mean (``t_interval``: Student's t on n - 1 degrees of freedom, exact
  at its level for normally distributed draws, at any n >= 2) lies wholly on the claim's side of the threshold
  (*clears*), wholly on the other side (*refuted*), or straddles it (*straddles*);
* **separation**: the interval of the claim - null difference (``difference_interval``: paired where the draws pair,
  Welch's otherwise) excludes zero -- in the claim's direction for a part that clears, in either for one that does
  not.  A null not separated from the claim means the experiment cannot tell them apart at these settings;
* **validity**: a non-finite statistic (a diverged run) or a draw the claim marks invalid (a model that did not
  train) is an *invalid draw*, reported with its seed and never counted for or against the claim; fewer than two
  valid draws leave no interval;
* **power**: models that do not beat the trivial baseline (predicting the mean, chance) by the declared margin, or a
  best over a grid that lies at the grid's edge, leave the part without power.

The part's verdict (``VERDICTS``): **no power at these settings** (too few valid draws, baseline not beaten, best at a
grid edge, null not separated), else **holds** (clears), **not shown** (straddles), **does not hold** (refuted: the
interval lies wholly on the wrong side of the threshold).  A claim's verdict is its weakest part's, in the order of
``lab.reproduce.claim.PRECEDENCE``: no power and not shown are never hidden under does not hold.

A yes/no statistic (``Rule("all")``: an ordering met, an identity within rounding) clears when every draw meets it,
is refuted when none does and straddles otherwise; its separation is Fisher's exact test of the claim's count
against the null's (one-sided, p <= 1 - level).  The levels printed are the methods' own: a t-interval's is exact
for normal draws; ``sign_interval`` (the distribution-free interval of the median from order statistics) prints the
exact level its n reaches, which for three draws is 75 %, never 95 %.

>>> iv = t_interval([1.0, 2.0, 3.0])
>>> round(iv.low, 3), round(iv.high, 3), iv.level, iv.df
(-0.484, 4.484, 0.95, 2)
>>> iv.text
'95 % t-interval of the mean (n = 3, 2 df)'
>>> sign_interval([1.0, 2.0, 3.0]).level  # the range of three draws covers the median 3 times in 4
0.75
>>> Rule(">", 0.0).judge([1.1, 1.2, 1.3])[0], Rule(">", 0.0).judge([0.1, 0.2, 0.3])[0]  # three draws: t on 2 df
(True, False)
>>> judge([2.0, 2.1, 1.9], [0.0, 0.1, -0.1], Rule(">", 1.0)).verdict
'holds'
>>> judge([2.0, 2.1, 1.9], [2.0, 2.2, 1.8], Rule(">", 1.0)).verdict  # the null reads the same: no power
'no power at these settings'
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import stats as _st

from .parts import HOLDS, LAYER, NO_NULL, NO_POWER, NOT_SHOWN, PART_VERDICTS, REFUTED, Part, _json_value, percent

#: ``LAYER`` (``lab.reproduce.claim``): the statistics layer this module implements (claim files record it; layer 1
#: was the percentile bootstrap with the null read against the threshold)
#: the level every interval is declared at unless a part declares its own
LEVEL = 0.95
#: how the threshold's interval is made (the report prints it beside every interval)
METHOD = ("Student's t-interval of the mean over the draws on n - 1 degrees of freedom (exact at its level for "
          "normally distributed draws)")
#: how a claim is told from its null
SEPARATION = ("t-interval of the claim - null difference, paired where the draws pair (equal numbers: draw i of the "
              "claim against draw i of the null), Welch's otherwise; Fisher's exact test for yes/no statistics")
#: layer 1's method, kept to judge this run as it did (the report's history)
LEGACY_METHOD = "percentile bootstrap of the mean over replicates (scipy.stats.bootstrap, 9999 resamples, fixed seed)"

#: a part's possible verdicts (declared in ``lab.reproduce.claim``, which the command line reads without numpy)
VERDICTS = PART_VERDICTS
#: the threshold readings
CLEARS, STRADDLES, WRONG_SIDE = "clears", "straddles", "wrong side"
#: fewest valid draws that make an interval
MIN_DRAWS = 2


@dataclass(frozen=True)
class Interval:
    """An interval with the method that made it and the method's real level for its number of draws ``n``."""

    low: float
    high: float
    level: float
    method: str  # "t", "paired t", "Welch t", "sign", "none"
    n: int
    df: float | None = None

    @property
    def text(self) -> str:
        """The method and its real level in words, as the report prints them beside the interval."""
        if self.method == "none":
            return f"no interval ({self.n} valid draw{'s' if self.n != 1 else ''})"
        if self.method == "sign":
            return f"{percent(self.level)} order-statistic interval of the median (n = {self.n}, exact)"
        what = "of the mean" if self.method == "t" else "of the claim - null difference"
        df = f", {self.df:.3g} df" if self.df is not None else ""
        return f"{percent(self.level)} {self.method}-interval {what} (n = {self.n}{df})"

    @property
    def half_width(self) -> float:
        """Half the interval's width (what a declared effect is compared with)."""
        return (self.high - self.low) / 2

    def to_dict(self) -> dict:
        """The interval as JSON, with its method in words."""
        return {"low": self.low, "high": self.high, "level": self.level, "method": self.method, "n": self.n,
                "df": self.df, "text": self.text}


def _finite(values) -> np.ndarray:
    x = np.asarray([float(v) for v in values], dtype=float)
    return x[np.isfinite(x)]


def t_interval(values, level: float = LEVEL, method: str = "t") -> Interval:
    """Student's t-interval of the mean of the finite ``values`` on n - 1 degrees of freedom: exact at ``level`` for
    normal draws.  Equal values give a point; fewer than two values give no interval (nan, nan)."""
    x = _finite(values)
    n = int(x.size)
    if n < MIN_DRAWS:
        return Interval(math.nan, math.nan, level, "none", n)
    m, s = float(x.mean()), float(x.std(ddof=1))
    h = float(_st.t.ppf((1 + level) / 2, n - 1)) * s / math.sqrt(n)
    return Interval(m - h, m + h, level, method, n, n - 1)


def difference_interval(claim, null, level: float = LEVEL, paired: bool | None = None) -> Interval:
    """The interval of mean(claim) - mean(null): the paired t-interval of the differences when ``paired`` (default:
    when both have the same number of draws -- valid for independent draws too, as their differences are then
    independent draws of the difference), else Welch's t-interval (Welch-Satterthwaite degrees of freedom).  Pairs
    with a non-finite side are left out."""
    a = np.asarray([float(v) for v in claim], dtype=float)
    b = np.asarray([float(v) for v in null], dtype=float)
    if paired is None:
        paired = a.size == b.size
    if paired:
        if a.size != b.size:
            raise ValueError(f"paired draws need as many null draws as claim draws ({a.size} against {b.size})")
        return t_interval(a - b, level, method="paired t")
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if a.size < MIN_DRAWS or b.size < MIN_DRAWS:
        return Interval(math.nan, math.nan, level, "none", int(min(a.size, b.size)))
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    m, se = float(a.mean() - b.mean()), math.sqrt(va + vb)
    if se == 0:
        return Interval(m, m, level, "Welch t", int(a.size + b.size), None)
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    h = float(_st.t.ppf((1 + level) / 2, df)) * se
    return Interval(m - h, m + h, level, "Welch t", int(a.size + b.size), float(df))


def sign_level(n: int, k: int) -> float:
    """The exact level of the interval [x_(k), x_(n+1-k)] (order statistics) for the median of n draws from any
    continuous distribution: 1 - 2 P(Binomial(n, 1/2) <= k - 1)."""
    return float(1 - 2 * _st.binom.cdf(k - 1, n, 0.5))


def sign_interval(values, level: float = LEVEL) -> Interval:
    """The distribution-free interval of the median: the narrowest order-statistic interval whose exact level reaches
    ``level``; where n draws cannot reach it, their range at the level it has (printed as such)."""
    x = np.sort(_finite(values))
    n = int(x.size)
    if n < MIN_DRAWS:
        return Interval(math.nan, math.nan, 0.0, "none", n)
    k = 1
    while k + 1 <= n // 2 and sign_level(n, k + 1) >= level:
        k += 1
    return Interval(float(x[k - 1]), float(x[n - k]), sign_level(n, k), "sign", n)


def sign_test_p(met: int, n: int) -> float:
    """One-sided sign-test p of ``met`` yes among ``n`` draws against a coin: P(Binomial(n, 1/2) >= met)."""
    return float(_st.binom.sf(met - 1, n, 0.5))


def fisher_p(met: int, n: int, null_met: int, null_n: int) -> float:
    """One-sided Fisher exact p that the claim meets its yes/no statistic more often than its null does."""
    return float(_st.fisher_exact([[met, n - met], [null_met, null_n - null_met]], alternative="greater")[1])


def mean(values) -> float:
    """The mean of ``values`` as one exactly rounded float sum (``math.fsum``); nan for no values."""
    vals = [float(v) for v in values]
    return math.fsum(vals) / len(vals) if vals else math.nan


def legacy_interval(values, level: float = LEVEL, seed: int = 0) -> tuple[float, float]:
    """Layer 1's interval (the report's history judges this run by it): the percentile bootstrap of the mean, whose
    real level with three draws is that of their range, not ``level``."""
    x = np.asarray([float(v) for v in values], dtype=float)
    if x.size == 0 or not np.all(np.isfinite(x)):
        return (math.nan, math.nan)
    if x.size == 1 or np.all(x == x[0]):
        return (float(x[0]), float(x[0]))
    res = _st.bootstrap((x,), np.mean, confidence_level=level, n_resamples=9999, method="percentile",
                        rng=np.random.default_rng(seed), vectorized=True)
    return (float(res.confidence_interval.low), float(res.confidence_interval.high))


#: layer 1's name for its interval (kept for callers of the first layer)
interval = legacy_interval


@dataclass(frozen=True)
class Rule:
    """How a part's draws are judged against its threshold.

    ``">"`` / ``"<"``: the ``level`` t-interval of the mean clears the threshold from above / below;
    ``"all"``: a yes/no statistic met at every draw."""

    op: str
    threshold: float | None = None
    level: float = LEVEL

    def __post_init__(self):
        if self.op not in (">", "<", "all"):
            raise ValueError(f"unknown rule {self.op!r}: choose '>', '<' or 'all'")
        if self.op != "all" and self.threshold is None:
            raise ValueError("a '>' or '<' rule needs a threshold")
        if not 0.5 < self.level < 1:
            raise ValueError(f"a rule's level is between 0.5 and 1, not {self.level}")

    @property
    def sign(self) -> int:
        """+1 when the claim's side is above (``">"``, ``"all"``), -1 below."""
        return -1 if self.op == "<" else 1

    @property
    def text(self) -> str:
        """The rule in words, with its level and threshold."""
        if self.op == "all":
            return "met at every draw"
        side = "above" if self.op == ">" else "below"
        return f"the {percent(self.level)} t-interval of the mean wholly {side} {self.threshold:g}"

    def state(self, iv: Interval) -> str | None:
        """``CLEARS``, ``WRONG_SIDE`` or ``STRADDLES`` for an interval of the mean; None without one."""
        if iv.method == "none" or not (math.isfinite(iv.low) and math.isfinite(iv.high)):
            return None
        lo, hi = (iv.low, iv.high) if self.op == ">" else (-iv.high, -iv.low)
        t = self.threshold if self.op == ">" else -self.threshold
        return CLEARS if lo > t else WRONG_SIDE if hi <= t else STRADDLES

    def judge(self, values) -> tuple[bool, tuple[float, float] | None]:
        """(clears, (low, high) or None) for the draws' ``values`` (non-finite ones left out)."""
        values = list(values)
        if not values:
            return False, None
        if self.op == "all":
            return all(bool(v) for v in values), None
        iv = t_interval(values, self.level)
        return self.state(iv) == CLEARS, (iv.low, iv.high)


@dataclass
class Judgement:
    """A part judged by the layer: its ``verdict`` (``VERDICTS``), the threshold reading ``state`` (``CLEARS``,
    ``STRADDLES``, ``WRONG_SIDE``, None), whether the claim is ``separated`` from its null, the intervals made, and
    the ``reasons`` behind a verdict of no power (or any caveat)."""

    verdict: str
    state: str | None
    separated: bool | None
    interval: Interval | None = None
    difference: Interval | None = None
    null_interval: Interval | None = None
    reasons: list = field(default_factory=list)
    sign_p: float | None = None  # yes/no parts: the sign test of the claim's count
    fisher_p: float | None = None  # yes/no parts: Fisher's test of the claim's count against the null's


def judge(values, null_values, rule: Rule, paired: bool | None = None, invalid: int = 0, null_invalid: int = 0,
          baseline: dict | None = None, grid: dict | None = None, effect: float | None = None,
          exact: bool = False) -> Judgement:
    """The layer's verdict on one part from the statistic's valid ``values`` (claim) and ``null_values`` (null).

    ``exact``: each value is an identity's reading, met or not against the rule's threshold, and the part is judged
    as a yes/no statistic (``part``'s ``exact``);
    ``baseline``: {"beaten": bool, ...} (the models beat the trivial baseline by the declared margin);
    ``grid``: {"at_edge": bool, ...} (a best over a grid lies at its edge); ``effect``: the smallest effect (in the
    statistic's units) the part must resolve: a half-width above it is named; ``invalid`` / ``null_invalid``: how
    many draws were left out (named in the reasons)."""
    if exact:
        if rule.op == "all":
            raise ValueError("exact=True reads a '>' or '<' threshold per draw; an 'all' rule is yes/no already")
        values, null_values, rule = _met(values, rule), _met(null_values, rule), Rule("all", level=rule.level)
    reasons, caveats = [], []  # reasons take the part's power; caveats are named beside its verdict
    if invalid or null_invalid:
        caveats.append(f"invalid draws left out: {invalid} of the claim's, {null_invalid} of the null's")
    if baseline is not None and not baseline.get("beaten", False):
        reasons.append(f"the models do not beat the trivial baseline ({baseline.get('what', 'trivial')}) by the "
                       f"declared margin {baseline.get('margin', 0):g}")
    if grid is not None and grid.get("at_edge"):
        reasons.append(f"the best over the grid lies at its edge ({grid.get('what', 'the grid')}): extend the grid")
    if rule.op == "all":
        return _judge_yes_no(values, null_values, rule, reasons, caveats)
    iv = t_interval(values, rule.level)
    state = rule.state(iv)
    if iv.method == "none":
        reasons.append(f"too few valid draws for an interval ({iv.n}; at least {MIN_DRAWS})")
    if effect is not None and iv.method != "none" and iv.half_width > abs(effect):
        caveats.append(f"too few draws to resolve an effect of {abs(effect):g} at {percent(rule.level)}: the "
                       f"interval's half-width is {iv.half_width:.3g}")
    null_iv = t_interval(null_values, rule.level) if len(null_values) else None
    if not len(null_values):
        separated, diff = None, None
    else:
        diff = difference_interval(values, null_values, rule.level, paired)
        if diff.method == "none":
            separated = False
            reasons.append("too few valid draws to tell the claim from its null")
        else:
            toward = diff.low > 0 if rule.sign > 0 else diff.high < 0
            away = diff.high < 0 if rule.sign > 0 else diff.low > 0
            separated = toward or (state != CLEARS and away)
            if not separated:
                reasons.append(f"the null is not separated from the claim (claim - null: "
                               f"[{diff.low:.3g}, {diff.high:.3g}], {diff.text})")
    return Judgement(_verdict(state, reasons, null_given=bool(len(null_values))), state, separated, iv,
                     diff, null_iv, reasons + caveats)


def _verdict(state, reasons, null_given: bool) -> str:
    """No power when anything took it (``reasons``) or there is no interval; else the threshold's reading."""
    if reasons or state is None:
        return NO_POWER
    if not null_given:
        return NO_NULL
    return {CLEARS: HOLDS, STRADDLES: NOT_SHOWN, WRONG_SIDE: REFUTED}[state]


def _judge_yes_no(values, null_values, rule: Rule, reasons: list, caveats: list) -> Judgement:
    met, n = sum(bool(v) for v in values), len(values)
    if n == 0:
        reasons.append("no valid draws")
        return Judgement(NO_POWER, None, None, reasons=reasons + caveats)
    state = CLEARS if met == n else WRONG_SIDE if met == 0 else STRADDLES
    p = sign_test_p(met, n)
    if state == CLEARS and p > 1 - rule.level:
        caveats.append(f"{n} draws all met reach a sign test p of {p:.3g} alone: too few draws for "
                       f"{percent(rule.level)} without the null's draws")
    if not null_values:
        return Judgement(_verdict(state, reasons, False), state, None, reasons=reasons + caveats, sign_p=p)
    null_met, null_n = sum(bool(v) for v in null_values), len(null_values)
    fp = fisher_p(met, n, null_met, null_n)
    away = fisher_p(null_met, null_n, met, n)
    alpha = 1 - rule.level + 1e-12  # an exact p of 1/20 is 0.05 to rounding
    separated = fp <= alpha or (state != CLEARS and away <= alpha)
    if not separated:
        reasons.append(f"the null is not separated from the claim (met {met} of {n} against the null's {null_met} "
                       f"of {null_n}: Fisher's exact p = {fp:.3g})")
    return Judgement(_verdict(state, reasons, True), state, separated, reasons=reasons + caveats, sign_p=p,
                     fisher_p=fp)


def legacy_part(values, null_values, rule: Rule) -> tuple[bool, bool | None, list | None, list | None]:
    """Layer 1's reading of a part (for the report's history): (met, null met, interval, null interval) with the
    percentile bootstrap and the null read against the threshold."""
    def read(vals):
        vals = list(vals)
        if not vals:
            return None, None
        if rule.op == "all":
            return all(bool(v) for v in vals), None
        lo, hi = legacy_interval(vals, rule.level)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            return False, [lo, hi]
        return (lo > rule.threshold) if rule.op == ">" else (hi < rule.threshold), [lo, hi]

    met, iv = read(values)
    null_met, null_iv = read(null_values)
    return bool(met), null_met, iv, null_iv


def replicate(make, seeds, valid=None, budget: int = 3) -> tuple[list, list, list]:
    """Draws ``make(seed)`` for every seed in ``seeds``; a draw that ``valid(draw)`` calls invalid (it returns the
    reason, a text; None or "" when the draw is valid) is replaced by a draw from the next unused seed, at most
    ``budget`` times in all.  Returns (valid draws, their seeds, [{"seed", "why"}] of the invalid ones).

    >>> replicate(lambda s: s * 1.0, [0, 1, 2], valid=lambda d: "odd seed" if d % 2 else None)
    ([0.0, 2.0, 4.0], [0, 2, 4], [{'seed': 1, 'why': 'odd seed'}, {'seed': 3, 'why': 'odd seed'}])
    """
    seeds = list(seeds)
    draws, used, invalid = [], [], []
    queue, spare, left = list(seeds), max(seeds, default=-1) + 1, int(budget)
    while queue:
        seed = queue.pop(0)
        draw = make(seed)
        why = valid(draw) if valid is not None else None
        if why:
            invalid.append({"seed": seed, "why": str(why)})
            if left > 0:
                left -= 1
                queue.append(spare)
                spare += 1
            continue
        draws.append(draw)
        used.append(seed)
    return draws, used, invalid


def _point(values, rule: Rule):
    if not values:
        return None
    if rule.op == "all":
        return f"{sum(bool(v) for v in values)} of {len(values)}"
    return mean(values)


def part(name: str, statistic, draws, null_draws, rule: Rule, null: str, *, paired: bool | None = None,
         seeds=None, null_seeds=None, valid=None, baseline: dict | None = None, grid: dict | None = None,
         effect: float | None = None, exact: bool = False) -> Part:
    """A ``Part`` read by one code path and judged by the layer: ``statistic(draw)`` for every claim draw and every
    null draw (seeds, splits), judged by ``rule`` with the claim told from its null (``judge``).

    ``seeds`` / ``null_seeds``: the draws' seeds (named with an invalid draw; default their positions);
    ``valid(draw)``: the reason a draw is invalid (a model that did not train), None when it is valid -- a
    non-finite statistic is always invalid; ``paired``: whether draw i of the claim pairs with draw i of the null
    (default: when they are as many); ``baseline``: {"what", "margin", "beaten"} -- the models against the trivial
    baseline; ``grid``: {"what", "best", "edges", "at_edge"} -- where a best over a grid lies; ``effect``: the
    smallest effect the part must resolve; ``exact``: the statistic reads an identity to rounding (an exact count, a
    residual at the floating-point floor), so each draw either meets the threshold or not: the part is judged as a
    yes/no statistic (met at every draw; Fisher's exact test against the null's count), not on an interval of a
    mean that an identity does not have.  Draws replaced before the part was read (``replicate``) are added with
    ``with_replaced``.

    >>> p = part("(a) above zero", float, [0.3, 0.4, 0.5], [-0.1, 0.05, 0.1], Rule(">", 0.0), "a reseeded twin")
    >>> p.holds, p.null_holds, round(p.measured, 9), p.statistic, p.verdict
    (True, False, 0.4, 'float', 'holds')
    >>> part("(a)", float, [0.3, float("nan"), 0.5], [0.1, -0.2, 0.05], Rule(">", 0.0), "twin").invalid
    [{'seed': 1, 'why': 'non-finite statistic', 'null': False, 'index': 1}]
    """
    def read(ds, ss, is_null):
        every, vals, bad = [], [], []
        ss = list(range(len(ds))) if ss is None else list(ss)
        for i, (d, s) in enumerate(zip(ds, ss)):
            v = _json_value(statistic(d))
            why = valid(d) if valid is not None else None
            if not why and rule.op != "all" and not _is_finite(v):
                why = "non-finite statistic"
            if why:
                bad.append({"seed": s, "why": str(why), "null": is_null, "index": i})
            every.append(v)
            vals.append(None if why else v)
        return every, vals, bad

    every, raw, bad = read(list(draws), seeds, False)
    null_every, null_raw, null_bad = read(list(null_draws), null_seeds, True)
    values, null_values, paired = _valid_values(raw, null_raw, paired)
    j = judge(values, null_values, rule, paired=paired, invalid=len(bad), null_invalid=len(null_bad),
              baseline=baseline, grid=grid, effect=effect, exact=exact)
    legacy = legacy_part(every, null_every, rule)  # layer 1 read every draw, a non-finite one failing the rule
    return Part(name, j.state == CLEARS if j.state is not None else False, _point(values, rule),
                None if j.separated is None else not j.separated, _point(null_values, rule), null,
                getattr(statistic, "__name__", str(statistic)),
                f"{'above' if rule.op == '>' else 'below'} {rule.threshold:g} at every draw (an identity, read per "
                "draw)" if exact else rule.text, rule.threshold, rule.op,
                every, null_every,
                None if j.interval is None or j.interval.method == "none" else [j.interval.low, j.interval.high],
                None if j.null_interval is None or j.null_interval.method == "none"
                else [j.null_interval.low, j.null_interval.high],
                verdict=j.verdict, state=j.state, layer=LAYER, level=rule.level,
                method=None if j.interval is None else j.interval.text,
                difference=None if j.difference is None or j.difference.method == "none"
                else [j.difference.low, j.difference.high],
                difference_method=None if j.difference is None else j.difference.text,
                paired=bool(paired), invalid=bad + null_bad, reasons=list(j.reasons), baseline=baseline, grid=grid,
                effect=effect, sign_p=j.sign_p, fisher_p=j.fisher_p, exact=bool(exact),
                legacy={"holds": legacy[0], "null_holds": legacy[1], "interval": legacy[2],
                        "null_interval": legacy[3], "method": LEGACY_METHOD})


def _valid_values(raw, null_raw, paired):
    """(claim values, null values, paired) without the invalid draws (None): a pair with an invalid side is left out
    whole; ``paired`` None means paired when the two are as many."""
    if paired is None:
        paired = len(raw) == len(null_raw)
    if paired and len(raw) == len(null_raw):
        keep = [i for i in range(len(raw)) if raw[i] is not None and null_raw[i] is not None]
        return [raw[i] for i in keep], [null_raw[i] for i in keep], True
    return [v for v in raw if v is not None], [v for v in null_raw if v is not None], False


def rejudge(p: dict) -> Judgement:
    """A saved part (``Part.to_dict()``, as ``report.json`` holds it) judged again from its recorded draws, its invalid
    draws left out, by the rule and options it records: what the report says must be what the draws say.

    >>> p = part("(a)", float, [1.0, 1.1, 1.2], [0.0, 0.1, 0.05], Rule(">", 0.5), "a twin").to_dict()
    >>> rejudge(p).verdict == p["verdict"] == "holds"
    True
    """
    rule = Rule(p["op"], p.get("threshold"), p.get("level") or LEVEL)
    raw, null_raw = list(p.get("replicates") or []), list(p.get("null_replicates") or [])
    for d in p.get("invalid") or []:
        if "index" in d:  # a draw replaced before the part was read has no place among the recorded ones
            (null_raw if d.get("null") else raw)[d["index"]] = None
    values, null_values, paired = _valid_values(raw, null_raw, p.get("paired"))
    left_out = [d for d in p.get("invalid") or [] if "index" in d]
    return judge(values, null_values, rule, paired=paired, invalid=sum(not d.get("null") for d in left_out),
                 null_invalid=sum(bool(d.get("null")) for d in left_out), baseline=p.get("baseline"),
                 grid=p.get("grid"), effect=p.get("effect"), exact=bool(p.get("exact")))


def _met(values, rule: Rule) -> list:
    """Each value met against a '>' / '<' threshold (a yes/no reading of an identity, ``part``'s ``exact``)."""
    return [(float(v) > rule.threshold) if rule.op == ">" else (float(v) < rule.threshold) for v in values]


def with_replaced(parts, replaced) -> list:
    """``parts`` with the draws found invalid and replaced before they were read (``replicate``'s third value:
    [{"seed", "why"}]) added to each part's invalid draws, marked ``replaced``, and named beside its verdict (they
    never count for or against the claim, so the verdict stands).

    >>> p = with_replaced([part("(a)", float, [1.0, 1.1, 1.2], [0.0, 0.1, 0.05], Rule(">", 0.5), "twin")],
    ...                   [{"seed": 3, "why": "did not train"}])[0]
    >>> p.invalid, p.verdict
    ([{'seed': 3, 'why': 'did not train', 'null': False, 'replaced': True}], 'holds')
    """
    replaced = [{"seed": d["seed"], "why": str(d["why"]), "null": bool(d.get("null", False)), "replaced": True}
                for d in replaced]
    for p in parts:
        if replaced:
            p.invalid = list(p.invalid) + replaced
            p.reasons = list(p.reasons) + [f"{len(replaced)} invalid draw(s) replaced by the next seeds: "
                                           + "; ".join(f"seed {d['seed']}: {d['why']}" for d in replaced)]
    return list(parts)


#: a regression part has power only where its reference model's test MSE is at most this times the trivial
#: baseline's (predicting the training targets' mean), averaged over the seeds: the models explain at least half of
#: the test targets' variance around the training mean (R^2 >= 0.5)
MSE_BASELINE_MARGIN = 0.5


def mse_baseline(models, trivial, what: str, reference: str, quantity: str = "test MSE") -> dict:
    """``part``'s ``baseline`` for a regression part: per seed, the reference model's test MSE (``models``, a
    diverged one infinite) over the trivial baseline's (``trivial``), beaten when the mean of these ratios is at most
    ``MSE_BASELINE_MARGIN``; ``what`` names the baseline, ``reference`` the models ("the better of EMLP's and the
    MLP's"), ``quantity`` the error compared (any error whose trivial value is the baseline's).

    >>> b = mse_baseline([8.0, 2.0], [10.0, 10.0], "predicting the mean", "the better of A's and B's")
    >>> b["ratios"], b["mean ratio"], b["beaten"]
    ([0.8, 0.2], 0.5, True)
    """
    ratios = [m / t if 0 < t < math.inf else math.inf for m, t in zip(models, trivial)]
    mean_ratio = sum(ratios) / len(ratios) if ratios else math.inf

    def rounded(x, digits: int = 4):
        return float(f"{x:.{digits}g}") if math.isfinite(x) else x

    return {"what": what, "margin": MSE_BASELINE_MARGIN, "beaten": bool(ratios) and mean_ratio <= MSE_BASELINE_MARGIN,
            "reads": f"{reference} {quantity} over the baseline's, per seed, mean at most {MSE_BASELINE_MARGIN:g}",
            "models' MSE": [rounded(x) for x in models], "baseline MSE": [rounded(x) for x in trivial],
            "ratios": [rounded(x, 3) for x in ratios], "mean ratio": rounded(mean_ratio, 3)}


#: a classification part has power only where its models' accuracy beats chance by at least this much (the same
#: margin as the dynamics parts', ``lab.dynamics.claims.BASELINE_MARGIN``)
ACCURACY_MARGIN = 0.05


def accuracy_baseline(accuracies, chance: float, reference: str, what: str = "") -> dict:
    """``part``'s ``baseline`` for a classification part: beaten when every model's accuracy (``accuracies``, one
    per draw; a missing one fails) is at least ``chance`` + ``ACCURACY_MARGIN``; ``reference`` names the models.

    >>> accuracy_baseline([0.9, 0.16], 0.1, "the pools")["beaten"], accuracy_baseline([0.9, 0.14], 0.1, "x")["beaten"]
    (True, False)
    """
    accs = [None if a is None else float(a) for a in accuracies]
    return {"what": what or f"chance ({chance:g})", "margin": ACCURACY_MARGIN,
            "beaten": bool(accs) and all(a is not None and a >= chance + ACCURACY_MARGIN for a in accs),
            "reads": f"{reference}: every draw's accuracy at least chance + {ACCURACY_MARGIN:g}",
            "accuracies": [None if a is None else round(a, 4) for a in accs], "chance": chance}


def null_words(p: Part) -> str:
    """A part's null against its claim, in words for a claim's note: separated or not, with the claim - null
    interval.

    >>> null_words(part("(a)", float, [1.0, 1.1, 1.2], [1.0, 1.2, 1.1], Rule(">", 0.5), "a twin"))
    'not separated from the claim (claim - null [-0.248, 0.248]): no power at these settings'
    """
    if p.null_holds is None:
        return "no null draws"
    d = f" (claim - null [{p.difference[0]:.3g}, {p.difference[1]:.3g}])" if p.difference else ""
    return f"not separated from the claim{d}: no power at these settings" if p.null_holds else \
        f"separated from the claim{d}"


def _is_finite(v) -> bool:
    if isinstance(v, bool):
        return True
    try:
        return math.isfinite(float(v))
    except (TypeError, ValueError):
        return False
