"""The five share-* checks of the learned parameter-sharing poster at the quick profile (the CI check).

Faithful runs (the poster's penalties, no merge pass) decide ``holds``; the lab's merge pass and the reference
code's column-norm penalty run side by side as named variants.  Every criterion has power: the same criterion fails
on its baseline (a random partition, or all singletons).  No assertion on time."""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from lab.reproduce import load_claims
from lab.reproduce.claim import Outcome

IDS = ("share-conv-exact", "share-gaussian-gap-bound", "share-gaussian-pd", "share-sum", "share-group")


pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    """The five claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py)."""
    return {cid: quick_outcomes[cid] for cid in IDS}


def _refines(fine, coarse) -> bool:
    """Every block of ``fine`` inside one block of ``coarse`` (written here, not lab.sharing's)."""
    return all(len({coarse[i] for i in range(len(fine)) if fine[i] == f}) == 1 for f in set(fine))


def _partitions(K: int, blocks: int):
    """Every partition of range(K) into exactly ``blocks`` blocks, as restricted growth strings."""
    for labels in itertools.product(range(blocks), repeat=K):
        if labels[0] == 0 and all(labels[i] <= max(labels[:i]) + 1 for i in range(1, K)) \
                and max(labels) == blocks - 1:
            yield labels


def test_every_claim_has_a_plain_json_outcome_with_power(outcomes):
    for cid, out in outcomes.items():
        assert isinstance(out, Outcome), cid
        json.dumps({"measured": out.measured, "settings": out.settings, "evidence": out.evidence,
                    "variants": out.variants}, allow_nan=False)
        assert out.holds in (True, False)
        assert out.settings["criterion"] == out.criterion and out.criterion, cid
        assert out.settings["merge"] is False and out.settings["rank_penalty"] == "nuclear"  # faithful headline
        # the criterion fails on the baseline: the claim's verdict rests on the learned sharing
        assert out.null is not None and out.null.holds is False, (cid, out.null)
        assert load_claims()[cid].criterion and load_claims()[cid].null, cid
        assert {v["name"] for v in out.variants} >= {"with the lab's merge pass"}, cid
        assert out.evidence and all(e["kind"] in ("line", "bar", "table", "matrix") for e in out.evidence)
        for e in out.evidence:
            if e["kind"] in ("line", "bar"):
                n = len(e["x"]) if e["kind"] == "line" else len(e["labels"])
                assert all(len(v) == n for v in e["series"].values()), (cid, e["title"])
        for word in ("earlier", "used to", "was made optional", "reported before", "previously"):
            assert word not in out.note, (cid, word)


def test_kinds_separate_the_posters_claims_from_the_labs():
    CLAIMS = load_claims()
    kinds = {cid: CLAIMS[cid].kind for cid in IDS}
    assert kinds == {"share-conv-exact": "claim", "share-gaussian-gap-bound": "claim", "share-sum": "claim",
                     "share-gaussian-pd": "lab", "share-group": "lab"}
    assert "not an experiment of the poster" in CLAIMS["share-group"].claim
    assert CLAIMS["share-gaussian-pd"].paper_value is None  # the poster states no result of it


def test_every_A_matrix_is_drawn_on_the_unit_range(outcomes):
    items = [e for out in outcomes.values() for e in out.evidence if e["kind"] == "matrix"]
    assert len(items) == 2  # conv and group
    for e in items:
        assert set(e["ranges"]) == set(e["matrices"]) >= {"relaxed A (softmax)", "A_gt"}
        for label, m in e["matrices"].items():
            assert e["ranges"][label] == [0.0, 1.0]
            a = np.array(m, dtype=float)
            assert a.min() >= 0 and a.max() <= 1
            if label == "relaxed A (softmax)":
                assert np.allclose(a.sum(1), 1, atol=1e-3)  # row-stochastic: a softmax, drawn on 0..1


def test_conv_running_example_is_recovered_exactly(outcomes):
    out = outcomes["share-conv-exact"]
    assert out.holds is True and out.measured == 0
    mats = out.evidence[0]["matrices"]
    assert set(mats) == {"relaxed A (softmax)", "snapped A (0/1, scored)", "A_gt"}
    assert all(sum(row) == 1 for row in mats["snapped A (0/1, scored)"])
    # Flatten(K) of [[2, 1, 0], [0, 2, 1]]: 6 entries in 3 blocks, so all singletons are 3 entries away
    bar = out.evidence[1]["series"]
    assert bar["all singletons (no sharing)"] == [3.0]
    assert 0 < out.null.measured <= 5


def test_gap_bound_formula_by_hand():
    """The poster's bound at the quick settings, by hand: sigma = 1, |D| = 100, K = 5, alpha = exp(-1/2), so
    -40 ln(alpha) = 20."""
    from lab.sharing.tasks import GaussianTask

    hand = {(0.3, 3): 0.7 / 30 * 2 + 20 / 70,  # 0.046667 + 0.285714 = 0.332381
            (0.5, 2): 0.5 / 50 * 1 + 20 / 50,  # 0.01 + 0.4 = 0.41
            (0.7, 5): 0.3 / 70 * 4 + 20 / 30,  # 0.017143 + 0.666667 = 0.683810
            (0.3, 1): 20 / 70}
    assert hand[(0.3, 3)] == pytest.approx(0.332381, abs=1e-6)
    for (r, b), value in hand.items():
        assert GaussianTask(K=5, blocks=b, samples=100, split=r, seed=0).gap_bound() == pytest.approx(value)


def test_gap_bound_holds_with_power(outcomes):
    out = outcomes["share-gaussian-gap-bound"]
    m, null = out.measured, out.null.measured
    alpha = math.exp(-0.5)
    assert m["one_minus_alpha"] == pytest.approx(1 - 0.6065306597, abs=1e-9)  # alpha = exp(-K/10), K = 5
    assert m["tested_blocks"] == [2, 3, 4, 5] and out.settings["splits"] == [0.3, 0.5, 0.7]
    assert m["bound"]["0.3"]["3"] == pytest.approx(0.7 / 30 * 2 + 20 / 70)
    assert m["bound"]["0.7"]["1"] == pytest.approx(20 / 30)
    assert out.holds is (m["worst_fraction"] >= 1 - alpha) and out.holds is True
    # power: the random partition's gap exceeds the bound in most of its draws at every tested setting, and in
    # nearly all of them with three or more true blocks
    assert null["worst_fraction"] < 1 - alpha
    assert null["fraction_within_bound"] < 0.3
    for r, per_block in null["within_bound"].items():
        assert per_block["1"] == 1.0  # one true block: every partition refines it, none exceeds the bound
        assert per_block["2"] < 0.5, r
        assert max(per_block[b] for b in ("3", "4", "5")) < 1 - alpha, r
    # the bound is loose against over-splitting: all singletons are within it everywhere
    assert m["singletons_worst_fraction"] == 1.0
    fig = out.evidence[0]
    assert fig["labels"] == [f"rk = {b}" for b in range(1, 6)] and "1 - alpha = 0.393" in fig["title"]
    assert fig["series"]["random partition (a random A, snapped)"][2:] == [
        min(null["within_bound"][r][b] for r in null["within_bound"]) for b in ("3", "4", "5")]
    gaps = out.evidence[1]
    assert gaps["logy"] is True and all(v is None or v > 0 for ys in gaps["series"].values() for v in ys)


def test_random_partition_refines_the_truth_rarely():
    """Independent of the run: the exact chance that a uniformly random labelling of K = 5 entries refines a
    uniform partition into b blocks (the random partition passes the bound only then: a merge of two true blocks
    costs at least 9 * 1/2 sigma^2 = 4.5 > every bound).  By hand for b = 2: 5 partitions (4, 1) refined with
    probability (4/5)^4 = 0.4096, 10 partitions (3, 2) with (1/5)(4/5)^3 + (4/5)(3/5)^3 = 0.2752; mean 0.32."""
    K = 5
    chance = {}
    for b in range(1, K + 1):
        parts = list(_partitions(K, b))
        hits = sum(_refines(lab, gt) for gt in parts for lab in itertools.product(range(K), repeat=K))
        chance[b] = hits / (len(parts) * K ** K)
    assert [len(list(_partitions(K, b))) for b in range(1, 6)] == [1, 15, 25, 10, 1]  # Stirling numbers S(5, b)
    assert chance[1] == 1.0 and chance[2] == pytest.approx(0.32)
    assert chance[5] == pytest.approx(120 / 3125)  # all five labels distinct
    assert all(chance[b] < 1 - math.exp(-0.5) for b in (2, 3, 4, 5))


def test_gaussian_pd_against_no_sharing_and_a_random_partition(outcomes):
    out = outcomes["share-gaussian-pd"]
    m = out.measured
    assert m["blocks"] == [1, 2, 3, 4, 5]
    assert m["singletons"] == [4.0, 3.0, 2.0, 1.0, 0.0]  # K - rk
    assert out.null.measured == m["singletons"] and out.null.holds is False
    beats = [f < s and f < r for f, s, r in zip(m["faithful"], m["singletons"], m["random"])]
    assert out.holds is all(beats[:4])
    # a uniformly random labelling of 5 entries has a largest block of 7145/3125 = 2.29 entries on average (the sum
    # of the largest count over the 5^5 labellings, enumerated by hand-checkable code below), so against one true
    # block the random baseline is 5 - 2.29 = 2.71 entries away on average
    largest = sum(max(np.bincount(lab)) for lab in itertools.product(range(5), repeat=5))
    assert largest == 7145
    assert m["random"][0] == pytest.approx(5 - largest / 5 ** 5, abs=0.35)
    assert m["merge"] == [0.0] * 5  # the merge pass undoes every over-split at these settings
    assert set(out.evidence[0]["series"]) >= {"faithful (poster)", "with the lab's merge pass",
                                              "random partition (a random A, snapped)",
                                              "all singletons (no sharing)"}
    if not out.holds:
        assert "not below both baselines" in out.note


def test_sum_and_group_report_baselines_and_the_reference_penalty(outcomes):
    s, g = outcomes["share-sum"], outcomes["share-group"]
    # the reference code's column-norm penalty recovers both (the faithful nuclear norm is reported as measured)
    assert s.measured["partition_distance_columns"] == [0.0]
    assert g.measured["columns"] == 0
    assert s.holds is (s.measured["partition_distance"] == [0.0])
    assert g.holds is (g.measured["partition_distance"] == 0)
    assert {v["name"]: v["holds"] for v in s.variants}["reference code's column-norm penalty"] is True
    for out in (s, g):
        assert out.holds or "nuclear norm" in out.note  # a claim that does not hold says why
    # the PD chart of the sum task is never all zeros: the baselines stand beside the learned sharing
    chart = s.evidence[0]["series"]
    assert chart["all singletons (no sharing)"] == [4.0] and chart["random partition (a random A, snapped)"][0] > 1
    assert g.measured["singletons"] == 14 and g.null.measured["partition_distance"] > 5  # 16 entries, 2 blocks
