"""The lab's own check of symmetry discovery (issue 33) in ``lab reproduce``: registered last with a criterion (v1
kept, v2 judged per part on three seeds) and nulls read by the same statistics; on the session's quick run each part's
verdict follows its rule on its replicates, the first seed recovers the rotated plane's generator and O(5)'s ten and
keeps nothing on the no-symmetry task (deterministic for a seed).  Whether the claim holds is reported, not
asserted."""
from __future__ import annotations

import pytest

ID = "lie-discovery-recovers"


def test_registered_after_the_bounds_with_a_criterion_and_a_null():
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert CLAIM_MODULES[-1] == "lab.discovery.claims"
    # registered after the bounds' claims (the ids added with issue 46's missing claims are appended after it)
    assert CLAIM_IDS.index(ID) == CLAIM_IDS.index("pac-shuffled-labels-vacuous") + 1
    c = load_claims()[ID]
    assert c.kind == "lab" and c.criterion and c.null


def test_the_criterion_has_power():
    from lab.discovery.claims import recovers_met

    good = {"plane": {"found": 1, "true_dimension": 1, "max_angle": 2.0},
            "none": {"found": 0, "true_dimension": 0, "max_angle": None}}
    assert recovers_met(good)
    assert not recovers_met({**good, "plane": {"found": 1, "true_dimension": 1, "max_angle": 40.0}})
    assert not recovers_met({**good, "plane": {"found": 3, "true_dimension": 1, "max_angle": 2.0}})
    assert not recovers_met({**good, "none": {"found": 1, "true_dimension": 0, "max_angle": None}})


def test_the_v2_statistics():
    from lab.discovery.claims import loss_over_threshold, recovery_angle

    assert recovery_angle({"found": 1, "true_dimension": 1, "max_angle": 2.5}) == 2.5
    assert recovery_angle({"found": 2, "true_dimension": 1, "max_angle": 2.5}) == 90.0  # a wrong count
    assert recovery_angle({"found": 0, "true_dimension": 1, "max_angle": None}) == 90.0
    assert loss_over_threshold({"losses": [0.012, 0.3], "threshold": 0.005}) == pytest.approx(2.4)


@pytest.mark.xdist_group("reproduce")
def test_on_the_quick_run(quick_report):
    from lab.reproduce.stats import Rule, rejudge

    c = next(c for c in quick_report[1]["claims"] if c["id"] == ID)
    assert [p["name"] for p in c["parts"]] == ["(a) the rotated plane's generator recovered",
                                                "(b) nothing kept without a symmetry"]
    for p in c["parts"]:
        assert len(p["replicates"]) == len(p["null_replicates"]) == 3, p["name"]
        rule = Rule(p["op"], p["threshold"])
        assert rule.judge(p["replicates"])[0] is p["holds"] and rejudge(p).separated is not p["null_holds"]
    assert [h["version"] for h in c["criterion_history"]] == [1, 2, 3]  # v4 (the fit retuned) judged
    m = c["measured"]
    assert m["rotated-plane"]["found"] == 1 and m["rotated-plane"]["max_angle"] < 10
    assert m["none"]["found"] == 0
    assert m["o5"]["found"] == 10 and m["o5"]["max_angle"] < 10
    assert [v["name"] for v in c["variants"]] == ["o5 (one seed, not judged)"]
