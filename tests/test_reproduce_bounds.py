"""Thesis chapter 5's claims (issue 31) in ``lab reproduce``: registered after the ensembles poster's, each with a
criterion and a null; on the session's one quick run (conftest's ``quick_outcomes``) they hold and their nulls fail,
and the numbers behind them say what the issue asks: a non-vacuous bound on the digits, the equivariant model's bound
below the CNN's on rotated digits, every bound vacuous on shuffled labels."""
from __future__ import annotations

import pytest

IDS = ("pac-nonvacuous", "pac-equivariance-compresses", "pac-shuffled-pixels", "pac-shuffled-labels-vacuous")


def test_the_claims_are_registered_in_order_with_a_criterion_and_a_null():
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert CLAIM_MODULES[CLAIM_MODULES.index("ensembles") + 1] == "bounds"
    start = CLAIM_IDS.index(IDS[0])
    assert CLAIM_IDS[start:start + 4] == IDS and start == CLAIM_IDS.index("ens-assumptions-matter") + 1
    claims = load_claims()
    assert all(claims[c].paper == "thesis" and claims[c].criterion and claims[c].null for c in IDS)


def test_the_criteria_have_power():
    from lab.reproduce.bounds import compresses_met, nonvacuous_met, shuffled_met, vacuous_met

    assert nonvacuous_met({"best_bound": 0.5}) and not nonvacuous_met({"best_bound": 0.95})
    assert compresses_met({"gcnn": 0.58, "cnn": 0.75}) and not compresses_met({"gcnn": 0.58, "cnn": 0.6})
    worse = {"gap_before": -0.05, "gap_after": 0.03}
    assert shuffled_met(worse)
    assert not shuffled_met({**worse, "gap_after": -0.01})  # the CNN still ahead of the MLP
    assert not shuffled_met({"gap_before": 0.02, "gap_after": 0.03})  # no rise: nothing was lost
    assert vacuous_met({"a": 0.95, "b": 0.99}) and not vacuous_met({"a": 0.95, "b": 0.7})


def test_the_mean_gap_reads_the_curves_at_the_same_dims():
    from lab.reproduce.bounds import mean_gap

    cnn = {"dims": [{"d": 50, "bound": 0.6}, {"d": 100, "bound": 0.5}]}
    mlp = {"dims": [{"d": 50, "bound": 0.7}, {"d": 100, "bound": 0.52}, {"d": 200, "bound": 0.1}]}
    assert abs(mean_gap(cnn, mlp) - (-0.1 - 0.02) / 2) < 1e-12


@pytest.mark.xdist_group("reproduce")
def test_on_the_quick_run_they_hold_and_their_nulls_fail(quick_outcomes):
    for cid in IDS:
        o = quick_outcomes[cid]
        assert o.holds is True, (cid, o.note)
        assert o.null is not None and o.null.holds is False, (cid, o.null)
    assert quick_outcomes["pac-nonvacuous"].measured["best_bound"] < 0.9
    m = quick_outcomes["pac-equivariance-compresses"].measured
    assert m["gcnn"] < m["cnn"]
    assert quick_outcomes["pac-shuffled-labels-vacuous"].measured["lowest bound"] >= 0.9
