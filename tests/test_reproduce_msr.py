"""The MSR report's claims at the quick profile (the CI check): λ chosen on validation tasks, test loss reported,
every criterion judged beside a baseline that must fail it."""
from __future__ import annotations

import json

import numpy as np
import pytest

SETTINGS = ["rank1 kernel3", "rank2 kernel3", "rank5 kernel3", "rank2 kernel5", "rank5 kernel5"]
IDS = ("msr-sparsity-few-tasks", "msr-sparser-U", "msr-benefit-fades", "msr-exclusive-vs-group")
#: the report's Table I, typed in again here (test losses without / with exclusive sparsity)
TABLE_I = {("rank1 kernel3", 20): (0.675, 0.322), ("rank2 kernel3", 20): (0.919, 0.515),
           ("rank5 kernel3", 20): (1.364, 0.611), ("rank2 kernel5", 20): (3.146, 2.26),
           ("rank5 kernel5", 20): (1.814, 1.204), ("rank1 kernel3", 1000): (0.294, 0.263),
           ("rank2 kernel3", 1000): (0.409, 0.596), ("rank2 kernel5", 1000): (1.08, 1.244),
           ("rank5 kernel5", 1000): (0.628, 0.669)}


def test_band_fraction_of_a_flat_picture_is_the_band_area():
    """An independent fact: a picture of equal values puts kernel / n_in of its total on the band (each of the
    n_in - kernel + 1 rows has kernel band cells out of n_in)."""
    from lab.sharing.msr import band_fraction

    for n_in, kernel in ((30, 3), (30, 5), (70, 3)):
        assert band_fraction(np.ones((n_in - kernel + 1, n_in)), kernel) == pytest.approx(kernel / n_in)
    pic = np.zeros((4, 6))
    pic[np.arange(4), np.arange(4)] = 1.0  # only on the band
    assert band_fraction(pic, 3) == 1.0


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    """The msr claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py)."""
    return {cid: quick_outcomes[cid] for cid in IDS}


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
class TestQuick:
    def test_every_claim_has_power_and_one_stated_criterion(self, outcomes):
        for cid, out in outcomes.items():
            json.dumps([out.measured, out.settings, out.evidence, out.variants])
            assert out.null is not None and out.null.holds is False, cid  # the baseline fails the criterion
            assert out.criterion and out.settings["criterion"] == out.criterion, cid
            assert isinstance(out.holds, bool), cid

    def test_sparsity_few_tasks_asks_for_the_papers_smallest_reduction(self, outcomes):
        out = outcomes["msr-sparsity-few-tasks"]
        assert list(out.measured) == SETTINGS
        smallest = min(100 * (1 - w / wo) for (s, t), (wo, w) in TABLE_I.items() if t == 20)
        assert round(smallest) == out.settings["reduction_percent"] == 28  # rank2 kernel5: 3.146 -> 2.26
        assert "28 %" in out.criterion and "validation" in out.criterion
        assert out.holds == all(v <= -28 for v in out.measured.values())
        assert out.null.holds == all(v <= -28 for v in out.null.measured.values())
        assert "group sparsity" in out.null.baseline and list(out.null.measured) == SETTINGS
        assert out.settings["lambda_grid"][0] == 0.0
        tables = [e for e in out.evidence if e["kind"] == "table"]
        summary = tables[0]
        for row in summary["rows"]:  # test change % agrees with the two test losses of the row
            assert row[6] == pytest.approx(100 * (row[5] / row[4] - 1), abs=0.2)
            wo, w = TABLE_I[(row[0], 20)]
            assert (row[9], row[10]) == (wo, w) and row[11] == pytest.approx(100 * (w / wo - 1), abs=0.05)
        per_lambda = [t for t in tables if t["columns"][:3] == ["lambda", "validation loss", "test loss"]]
        assert len(per_lambda) == 5
        for t in per_lambda:  # exactly one λ marked, and it is the one with the lowest validation loss
            marked = [r for r in t["rows"] if r[3]]
            assert len(marked) == 1 and marked[0][1] == min(r[1] for r in t["rows"])
        lines = [e for e in out.evidence if e["kind"] == "line"]
        assert len(lines) == 5 and all(len(s) == len(e["x"]) for e in lines for s in e["series"].values())
        if not out.holds:  # a claim that does not hold explains itself
            assert "Not met" in out.note

    def test_sparser_u_is_judged_by_the_band_share(self, outcomes):
        out = outcomes["msr-sparser-U"]
        n_in, margin = out.settings["n_in"], out.settings["band_margin"]
        assert margin > 0 and f"{margin:g}" in out.criterion and "band" in out.criterion
        for name, m in out.measured.items():
            kernel = int(name.split("kernel")[1].split(",")[0])
            for key in ("band share without", "band share with", "band share random U"):
                assert 0.0 <= m[key] <= 1.0
            # a random U spreads evenly: its band share is the band's area fraction kernel / n_in
            assert m["band area"] == pytest.approx(kernel / n_in, abs=1e-3)
            assert m["band share random U"] == pytest.approx(kernel / n_in, abs=0.03)
            assert out.null.measured[name]["band share with"] == m["band share random U"]
            assert m["hoyer with"] > m["hoyer without"] and m["near-zero with"] > m["near-zero without"]
        assert out.holds == all(m["band share with"] - m["band share without"] >= margin
                                for m in out.measured.values())
        matrices = [e for e in out.evidence if e["kind"] == "matrix"]
        assert len(matrices) == 3
        for e in matrices:
            pics = list(e["matrices"].values())
            assert len(pics) == 2 and len(pics[0][0]) == 30 and len(pics[0]) in (28, 26)  # 30 inputs, kernel 3 or 5
            assert all(r[0] == 0.0 for r in e["ranges"].values())  # |U| drawn from 0

    def test_benefit_fades_with_a_table_of_every_task_count(self, outcomes):
        out = outcomes["msr-benefit-fades"]
        m = out.measured
        assert m["difference"] == pytest.approx(m["mean change at 1000 tasks"] - m["mean change at 20 tasks"],
                                                abs=0.11)
        margin = out.settings["fade_margin"]
        assert f"{margin:g} percentage points" in out.criterion
        assert out.holds == (m["difference"] >= margin)
        assert out.null.measured["mean change at 1000 tasks"] == m["mean change at 20 tasks"]
        table = next(e for e in out.evidence if e["kind"] == "table")
        counts = out.settings["task_counts"]
        assert 20 in counts and 1000 in counts
        seen = {(r[0], r[1]) for r in table["rows"]}
        assert seen == {(s, t) for s in out.settings["fade_settings"] for t in counts}
        scored = out.settings["scored_settings"]
        assert scored == [s for s in SETTINGS if (s, 1000) in TABLE_I]
        changes = {t: [] for t in (20, 1000)}
        for r in table["rows"]:
            paper = TABLE_I.get((r[0], r[1]))
            if paper is not None:
                assert (r[8], r[9]) == paper
                assert r[10] == pytest.approx(100 * (paper[1] / paper[0] - 1), abs=0.05)
            assert r[5] == pytest.approx(100 * (r[4] / r[3] - 1), abs=0.2)
            if r[0] in scored and r[1] in changes:
                changes[r[1]].append(r[5])
        for t in (20, 1000):  # the measured means are the means of the table's rows
            assert m[f"mean change at {t} tasks"] == pytest.approx(np.mean(changes[t]), abs=0.2)
        (variant,) = out.variants
        assert variant["holds"] == (variant["measured"]["difference"] >= margin)

    def test_exclusive_against_group(self, outcomes):
        out = outcomes["msr-exclusive-vs-group"]
        assert list(out.measured) == SETTINGS
        table = out.evidence[0]
        for r in table["rows"]:
            assert r[6] == pytest.approx(100 * (r[4] / r[5] - 1), abs=0.2) and r[6] == out.measured[r[0]]
            assert r[7] == pytest.approx(100 * (r[3] / r[5] - 1), abs=0.2) and r[7] == out.null.measured[r[0]]
            assert 0.0 <= r[8] <= 1.0 and 0.0 <= r[9] <= 1.0
        margin = out.settings["group_margin_percent"]
        assert out.holds == all(v <= -margin for v in out.measured.values())
        assert "lambda = 0" in out.null.baseline
        # one λ = 0 run serves both regularisers: its test loss is the same in both claims
        few = outcomes["msr-sparsity-few-tasks"].evidence[0]["rows"]
        assert [r[4] for r in few] == [r[3] for r in table["rows"]]
