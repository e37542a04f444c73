"""The statistics layer of ``lab reproduce`` (issue 62) judged on synthetic draws, never on real runs: a null drawn
from the claim's own distribution leaves the claim without power at least at the declared rate; a large separated
effect holds; an interval straddling the threshold is not shown; one wholly beyond it the wrong way does not hold; a
NaN draw is invalid and replaced; a best at a grid's edge is no power; the printed level is the method's real level.

Every simulation draws from a fixed generator, so each assertion is a deterministic reading of many simulated parts;
the bounds allow four standard errors of the simulated rate."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lab.reproduce.parts import PRECEDENCE, Part, parts_verdict
from lab.reproduce.stats import (NO_POWER, NOT_SHOWN, REFUTED, HOLDS, Rule, difference_interval, judge, part,
                                 rejudge, replicate, sign_interval, sign_level, t_interval)

SIMULATED = 4000


def _slack(p: float, n: int = SIMULATED) -> float:
    return 4 * math.sqrt(p * (1 - p) / n)


def test_a_null_from_the_claims_own_distribution_gives_no_power_at_least_at_the_declared_rate():
    rng = np.random.default_rng(0)
    rule = Rule(">", 0.0)  # the claim's effect sits far above the threshold: only the null can take its power
    for n in (3, 5, 10):
        verdicts = [judge(rng.normal(5.0, 1.0, n), rng.normal(5.0, 1.0, n), rule).verdict for _ in range(SIMULATED)]
        rate = verdicts.count(NO_POWER) / SIMULATED
        assert rate >= rule.level - _slack(rule.level), (n, rate)


def test_a_yes_no_null_that_meets_as_often_as_the_claim_gives_no_power():
    rng = np.random.default_rng(1)
    rule = Rule("all")
    verdicts = [judge(list(rng.random(3) < 0.97), list(rng.random(3) < 0.97), rule).verdict for _ in range(2000)]
    assert verdicts.count(NO_POWER) / 2000 >= 0.95
    # met at every draw against a null met at none: Fisher's exact p = 1/20 separates them at 95 %
    assert judge([True] * 3, [False] * 3, rule).verdict == HOLDS


def test_a_large_separated_effect_with_enough_draws_holds():
    rng = np.random.default_rng(2)
    rule = Rule(">", 1.0)
    verdicts = [judge(rng.normal(3.0, 0.5, 5), rng.normal(0.0, 0.5, 5), rule).verdict for _ in range(500)]
    assert verdicts.count(HOLDS) / 500 >= 0.99
    below = Rule("<", -2.0)
    assert judge([-5.1, -4.9, -5.0], [0.1, -0.1, 0.0], below).verdict == HOLDS


def test_an_interval_straddling_the_threshold_is_not_shown():
    j = judge([0.9, 1.05, 1.1], [0.0, 0.1, -0.1], Rule(">", 1.0))  # mean 1.02: the interval reaches both sides
    assert j.interval.low < 1.0 < j.interval.high and j.separated
    assert j.verdict == NOT_SHOWN and j.state == "straddles"


def test_an_interval_wholly_beyond_the_threshold_the_wrong_way_does_not_hold():
    j = judge([0.2, 0.25, 0.3], [0.0, 0.02, -0.01], Rule(">", 1.0))
    assert j.interval.high < 1.0 and j.separated and j.verdict == REFUTED
    # refuted, but the claim cannot be told from its null: that is a lack of power, not a refutation
    assert judge([0.2, 0.25, 0.3], [0.21, 0.26, 0.28], Rule(">", 1.0)).verdict == NO_POWER


def test_a_nan_draw_is_invalid_never_counted_and_replaced_from_the_next_seed():
    p = part("(a)", float, [1.0, float("nan"), 1.2, 1.1], [0.0, 0.1, -0.1, 0.05], Rule(">", 0.5), "a twin",
             seeds=[0, 1, 2, 3])
    assert p.invalid == [{"seed": 1, "why": "non-finite statistic", "null": False, "index": 1}]
    assert rejudge(p.to_dict()).verdict == p.verdict
    assert p.verdict == HOLDS and "invalid draws left out" in p.reasons[0]
    # the pair with an invalid side is left out whole: three valid pairs decide
    assert math.isclose(p.measured, (1.0 + 1.2 + 1.1) / 3)
    # a diverged null draw is invalid too: it never counts as the null failing
    q = part("(a)", float, [1.0, 1.1, 1.2], [0.0, float("inf"), float("nan")], Rule(">", 0.5), "a twin")
    assert q.verdict == NO_POWER and len(q.invalid) == 2 and all(d["null"] for d in q.invalid)
    # replacement: an invalid draw is replaced by the next unused seed, within the declared budget
    draws, seeds, invalid = replicate(lambda s: float("nan") if s == 1 else float(s), [0, 1, 2],
                                      valid=lambda d: None if math.isfinite(d) else "diverged", budget=1)
    assert draws == [0.0, 2.0, 3.0] and seeds == [0, 2, 3] and invalid == [{"seed": 1, "why": "diverged"}]
    draws, _, invalid = replicate(lambda s: float("nan"), [0, 1, 2], valid=lambda d: "diverged", budget=2)
    assert draws == [] and len(invalid) == 5  # the budget spent, nothing counted


def test_a_model_that_did_not_train_is_an_invalid_draw():
    draws = [{"acc": 0.9, "gap": 1.0}, {"acc": 0.09, "gap": 5.0}, {"acc": 0.92, "gap": 1.2}, {"acc": 0.91, "gap": 1.1}]
    p = part("(a)", lambda d: d["gap"], draws, [{"acc": 0.9, "gap": 0.0}] * 4, Rule(">", 0.5), "a twin",
             valid=lambda d: "did not train (accuracy at chance)" if d["acc"] < 0.2 else None, seeds=[0, 1, 2, 3])
    assert p.invalid[0]["seed"] == 1 and "did not train" in p.invalid[0]["why"]
    assert p.replicates[1] == 5.0 and math.isclose(p.measured, 1.1)  # shown, never counted


def test_a_best_at_the_grid_edge_and_an_unbeaten_baseline_are_no_power():
    claim, null = [0.3, 0.31, 0.29], [0.6, 0.62, 0.61]
    edge = part("(a)", float, claim, null, Rule("<", 0.5), "pruning",
                grid={"what": "dimension 50..300", "best": [300, 300, 300], "edges": [50, 300], "at_edge": True})
    assert edge.verdict == NO_POWER and any("edge" in r for r in edge.reasons)
    inside = part("(a)", float, claim, null, Rule("<", 0.5), "pruning",
                  grid={"what": "dimension 50..800", "best": [400, 350, 500], "edges": [50, 800], "at_edge": False})
    assert inside.verdict == HOLDS
    flat = part("(a)", float, claim, null, Rule("<", 0.5), "pruning",
                baseline={"what": "predicting the mean", "margin": 0.9, "beaten": False})
    assert flat.verdict == NO_POWER and any("trivial baseline" in r for r in flat.reasons)


@pytest.mark.parametrize("n", [3, 5, 10])
def test_the_printed_level_is_the_methods_real_level(n):
    """The t-interval's printed level is its coverage of the mean for normal draws; the order-statistic interval's
    printed level is its exact coverage of the median for any continuous distribution (here a skewed one)."""
    rng = np.random.default_rng(10 + n)
    hits = 0
    for _ in range(SIMULATED):
        iv = t_interval(rng.normal(2.0, 3.0, n))
        hits += iv.low < 2.0 < iv.high
    assert iv.level == 0.95 and abs(hits / SIMULATED - iv.level) < _slack(iv.level)
    assert iv.text.startswith("95 % t-interval") and f"n = {n}" in iv.text
    hits = 0
    median = math.log(2)  # of an exponential with rate 1
    for _ in range(SIMULATED):
        iv = sign_interval(rng.exponential(1.0, n))
        hits += iv.low < median < iv.high
    assert abs(hits / SIMULATED - iv.level) < _slack(iv.level), (n, iv.level, hits / SIMULATED)
    # three draws cannot make a 95 % interval without a model of their distribution: their range is 75 %
    assert sign_level(3, 1) == 0.75 and sign_interval([1.0, 2.0, 3.0]).text.startswith("75 %")


def test_layer_1s_95_percent_bootstrap_of_three_draws_was_their_range():
    """What the report printed as 95 % before layer 2: the percentile bootstrap of three draws covers their mean as
    their range does (about 75 % for normal draws), which is why layer 2 prints each method's own level."""
    from lab.reproduce.stats import legacy_interval

    rng = np.random.default_rng(3)
    hits = 0
    for _ in range(1000):
        x = rng.normal(0.0, 1.0, 3)
        lo, hi = legacy_interval(x)
        assert x.min() - 1e-12 <= lo and hi <= x.max() + 1e-12
        hits += lo < 0.0 < hi
    assert hits / 1000 < 0.8


def test_paired_and_welch_differences():
    d = difference_interval([1.0, 2.0, 3.0], [0.5, 1.5, 2.5])  # paired: every difference 0.5
    assert (d.low, d.high, d.method) == (0.5, 0.5, "paired t")
    w = difference_interval([1.0, 2.0, 3.0, 4.0], [0.0, 0.5, 1.0])
    assert w.method == "Welch t" and w.low < 1.75 < w.high and 2 < w.df < 5


def test_a_claims_verdict_is_its_weakest_parts():
    def parts(*verdicts):
        return [Part(str(i), True, verdict=v) for i, v in enumerate(verdicts)]

    assert PRECEDENCE == (NO_POWER, "no null check", NOT_SHOWN, REFUTED, HOLDS)
    assert parts_verdict(parts(HOLDS, REFUTED, NO_POWER)) == NO_POWER  # no power is never hidden under a refutation
    assert parts_verdict(parts(REFUTED, NOT_SHOWN)) == NOT_SHOWN
    assert parts_verdict(parts(HOLDS, REFUTED)) == REFUTED
    assert parts_verdict(parts(HOLDS, HOLDS)) == HOLDS
    assert parts_verdict([Part("old", True)]) is None  # a part saved by layer 1 has no verdict of its own


def test_a_declared_effect_larger_than_the_draws_resolve_is_named():
    p = part("(a)", float, [1.0, 2.0, 3.0], [-5.0, -4.0, -6.0], Rule(">", -3.0), "a twin", effect=0.5)
    assert any("too few draws to resolve an effect of 0.5" in r for r in p.reasons)
    assert p.verdict == HOLDS  # a caveat, not a verdict of its own


def test_an_identity_is_read_per_draw_and_told_from_its_null_by_fishers_exact_test():
    """``exact=True``: an identity to rounding has no mean to put an interval on; each draw meets the threshold or
    not, and the claim is told from its null by the counts (3 of 3 against 0 of 3: Fisher's p = 1/20)."""
    p = part("(a) in E", float, [1e-15, 2e-16, 0.0], [0.3, 0.5, 0.9], Rule("<", 1e-10), "off E", exact=True)
    assert (p.verdict, p.holds, p.null_holds, p.interval) == (HOLDS, True, False, None)
    assert math.isclose(p.fisher_p, 1 / 20) and p.exact and "at every draw" in p.rule
    assert rejudge(p.to_dict()).verdict == HOLDS
    # a null that meets the identity at one draw of three: the counts cannot tell them apart
    q = part("(a) in E", float, [1e-15, 2e-16, 0.0], [0.3, 1e-12, 0.9], Rule("<", 1e-10), "off E", exact=True)
    assert q.verdict == NO_POWER and "Fisher" in q.reasons[0]
    # one draw of three off the identity, against ten null draws that all miss it: told apart, but not shown
    assert part("(a)", float, [1e-15, 1e-3, 0.0], [0.3] * 10, Rule("<", 1e-10), "x", exact=True).verdict == NOT_SHOWN
    # no draw meets it, nor does any null draw: nothing tells the claim from its null
    assert part("(a)", float, [1e-3] * 3, [0.3, 0.5, 0.9], Rule("<", 1e-10), "x", exact=True).verdict == NO_POWER
    with pytest.raises(ValueError):
        part("(a)", bool, [True], [False], Rule("all"), "x", exact=True)
