"""The five share-* checks of the learned parameter-sharing poster at the quick profile (the CI check).

Faithful runs (the poster's penalties, no merge pass) decide the verdict; the lab's merge pass and the reference
code's column-norm penalty run side by side as named variants.  Every criterion is a part judged on its replicates
(trials, or random partitions at 3 or more seeds) against a null read by the same statistic.  No test asserts a
verdict that a rerun could flip: the verdicts are recomputed from the replicates the report carries, and only the
mechanics, the by-hand facts and exact identities are asserted.  No assertion on time."""
from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from lab.reproduce import load_claims
from lab.reproduce.stats import rejudge

IDS = ("share-conv-exact", "share-gaussian-gap-bound", "share-gaussian-pd", "share-sum", "share-group")
EXACT_IDS = ("share-conv-exact", "share-sum", "share-group")


def _refines(fine, coarse) -> bool:
    """Every block of ``fine`` inside one block of ``coarse`` (written here, not lab.sharing's)."""
    return all(len({coarse[i] for i in range(len(fine)) if fine[i] == f}) == 1 for f in set(fine))


def _partitions(K: int, blocks: int):
    """Every partition of range(K) into exactly ``blocks`` blocks, as restricted growth strings."""
    for labels in itertools.product(range(blocks), repeat=K):
        if labels[0] == 0 and all(labels[i] <= max(labels[:i]) + 1 for i in range(1, K)) \
                and max(labels) == blocks - 1:
            yield labels


# ---------------------------------------------------------------------------------------------- without a run
def test_kinds_separate_the_posters_claims_from_the_labs():
    CLAIMS = load_claims()
    kinds = {cid: CLAIMS[cid].kind for cid in IDS}
    assert kinds == {"share-conv-exact": "claim", "share-gaussian-gap-bound": "claim", "share-sum": "claim",
                     "share-gaussian-pd": "lab", "share-group": "lab"}
    assert "not an experiment of the poster" in CLAIMS["share-group"].claim
    assert CLAIMS["share-gaussian-pd"].paper_value is None  # the poster states no result of it


def test_every_claim_keeps_its_first_criterion_and_declares_a_second():
    """Version 1 is the criterion as first registered, word for word; version 2 has a date, a reason and parts."""
    from lab.sharing import claims as sharing

    CLAIMS = load_claims()
    first = {"share-conv-exact": sharing.CONV_V1, "share-gaussian-gap-bound": sharing.GAP_V1,
             "share-gaussian-pd": sharing.PD_V1, "share-sum": sharing.SUM_V1, "share-group": sharing.GROUP_V1}
    for cid in IDS:
        c = CLAIMS[cid]
        assert [v.version for v in c.criteria] == [1, 2, 3] and c.criteria[2].layer == 2, cid
        assert c.criteria[0].text == first[cid] and c.criteria[0].date == "2026-11-25", cid
        assert c.criteria[1].reason and c.criteria[1].parts and c.criteria[1].date == "2026-11-27", cid
        assert c.paper_settings, cid


def test_the_exact_rule_accepts_only_zero_at_every_draw():
    """Partition distances are whole numbers: the interval rule below EXACT holds for all-zero draws and fails as
    soon as one draw of up to 20 is 1 (the t-interval's top is then above the mean 1/n); one draw makes no interval."""
    from lab.sharing.claims import EXACT
    from lab.reproduce.stats import Rule

    rule = Rule("<", EXACT)
    assert rule.judge([0]) == (False, (rule.judge([0])[1][0], rule.judge([0])[1][1]))  # nan: no interval
    for n in (3, 10, 20):
        assert rule.judge([0] * n)[0] is True
        assert rule.judge([0] * (n - 1) + [1])[0] is False, n


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


def test_statistics_by_hand():
    from lab.sharing.claims import (fraction_within_bound, partition_distance_to_truth, pd_minus_random,
                                    pd_minus_singletons)

    assert partition_distance_to_truth(([0, 0, 1, 1], [0, 0, 1, 1])) == 0
    assert partition_distance_to_truth(([0, 1, 2, 3], [0, 0, 0, 0])) == 3  # all singletons against one block
    assert fraction_within_bound([(0.1, 0.2), (0.3, 0.2), (0.2, 0.2), (-1.0, 0.5)]) == 0.75
    trial = {"singletons_pd": 3, "random_pd": [9.0, 2.0, 3.0]}  # the first random draw is the null's, not used
    draw = {1: ([0, 0, 0, 0], [0, 0, 0, 0], trial), 2: ([0, 1, 2, 3], [0, 0, 0, 0], trial)}
    assert pd_minus_singletons(draw) == 0.0  # worst rk: PD 3 - 3
    assert pd_minus_random(draw) == 0.5  # worst rk: PD 3 - mean(2, 3)


# ---------------------------------------------------------------------------------------------- the quick report


@pytest.fixture(scope="module")
def claims(quick_report):
    """The five claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py), as JSON."""
    _, report = quick_report
    return {c["id"]: c for c in report["claims"] if c["id"] in IDS}


def _rule(p):
    from lab.reproduce.stats import Rule

    op = ">" if "above" in p["rule"] else "<" if "below" in p["rule"] else "all"
    return Rule(op, p["threshold"])


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
class TestQuick:
    def test_every_claim_reports_parts_judged_on_their_replicates(self, claims):
        assert set(claims) == set(IDS)
        for cid, c in claims.items():
            json.dumps(c, allow_nan=False)
            assert c["criterion_version"] == 3 and c["paper_settings"], cid
            v1, v2 = c["criterion_history"]
            assert v2["version"] == 2 and "statistics layer 1" in v2["why"]
            assert v1["version"] == 1 and v1["criterion"] == load_claims()[cid].criteria[0].text
            assert v1["why"] and v1["verdict"] != "not judged by this run", cid
            assert c["settings"]["merge"] is False and c["settings"]["rank_penalty"] == "nuclear"
            assert {v["name"] for v in c["variants"]} >= {"with the lab's merge pass"}, cid
            assert c["parts"], cid
            for p in c["parts"]:
                rule = _rule(p)
                vals, nulls = p["replicates"], p["null_replicates"]
                assert len(nulls) >= 3, (cid, p["name"])
                assert len(vals) >= 3, (cid, p["name"])
                # the verdicts follow the layer on the recorded draws: the threshold on the claim's, separation
                assert rule.judge(vals)[0] == p["holds"], (cid, p["name"])
                assert rejudge(p).separated is not p["null_holds"], (cid, p["name"])
                assert all(math.isfinite(float(v)) for v in nulls), (cid, p["name"])
                assert len(set(map(float, nulls))) > 1, (cid, p["name"])  # the null's draws vary
                assert all(float(v) != p["threshold"] for v in nulls), (cid, p["name"])
            # the claim's verdict is its parts': met only if every part is met
            assert c["criterion_met"] == all(p["holds"] for p in c["parts"]), cid

    def test_exact_claims_read_random_partitions_at_their_seeds(self, claims):
        """The null's draws are the partition distances of the random partitions the method starts from, one per
        seed, recomputed here from the seeds."""
        from lab.sharing.claims import EXACT, _random_partitions
        from lab.sharing.partition import partition_distance
        from lab.sharing.tasks import conv_task, group_task, sum_task

        truth = {"share-conv-exact": conv_task(seed=0).gt, "share-group": group_task("S(4)", "V", "V", seed=0).gt,
                 "share-sum": sum_task(positions=5, test=10, seed=0).gt}
        for cid in EXACT_IDS:
            (p,) = claims[cid]["parts"]
            assert p["threshold"] == EXACT and p["statistic"] == "partition_distance_to_truth"
            assert all(float(v).is_integer() and v >= 0 for v in p["replicates"] + p["null_replicates"])
            seeds = claims[cid]["settings"]["null_seeds"]
            gt = truth[cid]
            assert p["null_replicates"] == [partition_distance(_random_partitions(len(gt), s, 1)[0], gt)
                                            for s in seeds], cid
            # exact: the part holds exactly when every trial recovered the truth
            assert p["holds"] == all(v == 0 for v in p["replicates"]), cid
        conv = claims["share-conv-exact"]
        assert conv["evidence"][1]["series"]["all singletons (no sharing)"] == [3.0]  # 6 entries, 3 blocks

    def test_gap_bound_reads_per_trial_fractions(self, claims):
        c = claims["share-gaussian-gap-bound"]
        m = c["measured"]
        (p,) = c["parts"]
        assert p["threshold"] == pytest.approx(1 - math.exp(-0.5))
        assert m["tested_blocks"] == [2, 3, 4, 5] and c["settings"]["splits"] == [0.3, 0.5, 0.7]
        assert len(p["replicates"]) == len(p["null_replicates"]) == c["settings"]["trials"] == 10
        settings = len(c["settings"]["splits"]) * len(m["tested_blocks"])  # 12 (r, rk) pairs per trial
        for v in p["replicates"] + p["null_replicates"]:
            assert 0.0 <= v <= 1.0 and (v * settings) == pytest.approx(round(v * settings))
        # the per-trial fractions pool to the fraction over trials and settings reported beside them
        assert np.mean(p["replicates"]) == pytest.approx(m["fraction_within_bound"])
        assert m["bound"]["0.3"]["3"] == pytest.approx(0.7 / 30 * 2 + 20 / 70)
        assert m["singletons_worst_fraction"] == 1.0  # the bound is loose against over-splitting: exact fact here
        fig = c["evidence"][0]
        assert fig["labels"] == [f"rk = {b}" for b in range(1, 6)] and "1 - alpha = 0.393" in fig["title"]

    def test_gaussian_pd_parts_and_its_baselines(self, claims):
        c = claims["share-gaussian-pd"]
        m = c["measured"]
        assert [p["name"] for p in c["parts"]] == ["(a) below no sharing", "(b) below a random partition"]
        assert m["blocks"] == [1, 2, 3, 4, 5]
        assert m["singletons"] == [4.0, 3.0, 2.0, 1.0, 0.0]  # K - rk
        a, b = c["parts"]
        assert all(float(v).is_integer() for v in a["replicates"] + a["null_replicates"])  # PD minus K - rk
        # a uniformly random labelling of 5 entries has a largest block of 7145/3125 = 2.29 entries on average (the
        # sum of the largest count over the 5^5 labellings), so against one true block the random baseline is
        # 5 - 2.29 = 2.71 entries away on average
        largest = sum(max(np.bincount(lab)) for lab in itertools.product(range(5), repeat=5))
        assert largest == 7145
        assert m["random"][0] == pytest.approx(5 - largest / 5 ** 5, abs=0.35)
        assert set(c["evidence"][0]["series"]) >= {"faithful (poster)", "with the lab's merge pass",
                                                   "random partition (a random A, snapped)",
                                                   "all singletons (no sharing)"}

    def test_sum_and_group_report_baselines_and_the_reference_penalty(self, claims):
        s, g = claims["share-sum"], claims["share-group"]
        chart = s["evidence"][0]["series"]
        assert chart["all singletons (no sharing)"] == [4.0] and chart["random partition (a random A, snapped)"][0] > 1
        assert g["measured"]["singletons"] == 14 and g["measured"]["K"] == 16  # 16 entries, 2 blocks
        for c in (s, g):
            if not c["criterion_met"]:  # a claim that does not hold says why
                assert "nuclear norm" in c["note"]

    def test_every_A_matrix_is_drawn_on_the_unit_range(self, claims):
        items = [e for c in claims.values() for e in c["evidence"] if e["kind"] == "matrix"]
        assert len(items) == 2  # conv and group
        for e in items:
            assert set(e["ranges"]) == set(e["matrices"]) >= {"relaxed A (softmax)", "A_gt"}
            for label, m in e["matrices"].items():
                assert e["ranges"][label] == [0.0, 1.0]
                a = np.array(m, dtype=float)
                assert a.min() >= 0 and a.max() <= 1
                if label == "relaxed A (softmax)":
                    assert np.allclose(a.sum(1), 1, atol=1e-3)  # row-stochastic: a softmax, drawn on 0..1
