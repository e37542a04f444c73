"""The five share-* claims of the learned parameter-sharing poster at the quick profile (the CI check).

Faithful runs (the poster's penalties, no merge pass) decide ``holds``; the lab's merge pass and the reference
code's column-norm penalty run side by side.  No assertion on time."""
from __future__ import annotations

import json

import pytest

from lab.reproduce.claim import Outcome

IDS = ("share-conv-exact", "share-gaussian-gap-bound", "share-gaussian-pd", "share-sum", "share-group")


pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    """The five claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py)."""
    return {cid: quick_outcomes[cid] for cid in IDS}


def test_every_claim_has_a_plain_json_outcome(outcomes):
    for cid, out in outcomes.items():
        assert isinstance(out, Outcome), cid
        json.dumps({"measured": out.measured, "settings": out.settings, "evidence": out.evidence})
        assert out.holds in (True, False, None)
        assert "criterion" in out.settings, cid
        assert out.settings["merge"] is False and out.settings["rank_penalty"] == "nuclear"  # faithful headline
        assert out.evidence and all(e["kind"] in ("line", "bar", "table", "matrix") for e in out.evidence)
        for e in out.evidence:
            if e["kind"] in ("line", "bar"):
                n = len(e["x"]) if e["kind"] == "line" else len(e["labels"])
                assert all(len(v) == n for v in e["series"].values()), (cid, e["title"])


def test_conv_running_example_is_recovered_exactly(outcomes):
    out = outcomes["share-conv-exact"]
    assert out.holds is True and out.measured == 0
    mats = out.evidence[0]["matrices"]
    assert set(mats) == {"relaxed A (softmax)", "snapped A (0/1, scored)", "A_gt"}
    assert all(sum(row) == 1 for row in mats["snapped A (0/1, scored)"])


def test_gap_bound_criterion_and_figure(outcomes):
    out = outcomes["share-gaussian-gap-bound"]
    m = out.measured
    assert out.holds is (m["worst_split_fraction"] >= m["one_minus_alpha"])
    assert m["one_minus_alpha"] == pytest.approx(1 - 0.6065306597, abs=1e-9)  # alpha = exp(-K/10), K = 5
    # the poster's bound at r = 0.3, |D| = 100, one block: 40 * (K/10) / (0.7 * 100)
    assert m["bound_at_r"]["0.3"] == pytest.approx(20 / 70)
    assert out.holds is True
    fig = out.evidence[0]
    assert fig["x"] == [0.3, 0.5, 0.7] and "bound" in fig["series"]


def test_gaussian_pd_falls_faithfully_and_the_merge_pass_flattens_it(outcomes):
    out = outcomes["share-gaussian-pd"]
    m = out.measured
    assert m["blocks"] == [1, 2, 3, 4, 5]
    assert out.holds is True and m["spearman_rho"] < 0 and m["faithful"][0] > m["faithful"][-1]
    assert m["merge"] == [0.0] * 5  # the merge pass's 0.00 in every setting
    assert "merge pass" in out.note and f"at most {max(m['merge']):.2f}" in out.note
    assert set(out.evidence[0]["series"]) >= {"faithful (poster)", "with the lab's merge pass"}


def test_sum_and_group_report_the_reference_penalty_side_by_side(outcomes):
    s, g = outcomes["share-sum"], outcomes["share-group"]
    # the reference code's column-norm penalty recovers both (the faithful nuclear norm is reported as measured)
    assert s.measured["partition_distance_columns"] == [0.0]
    assert g.measured["columns"] == 0
    assert s.holds is (s.measured["partition_distance"] == [0.0])
    assert g.holds is (g.measured["partition_distance"] == 0)
    for out in (s, g):
        assert out.holds or "nuclear norm" in out.note  # a claim that does not hold says why
