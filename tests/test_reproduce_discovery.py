"""The lab's own check of symmetry discovery (issue 33) in ``lab reproduce``: registered last with a criterion and a
null; on the session's quick run the rotated plane's generator and O(5)'s ten are recovered, the no-symmetry task
reports none, the claim holds, and the null (a random algebra) fails."""
from __future__ import annotations

import pytest

ID = "lie-discovery-recovers"


def test_registered_last_with_a_criterion_and_a_null():
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert CLAIM_MODULES[-1] == "discovery" and CLAIM_IDS[-1] == ID
    c = load_claims()[ID]
    assert c.kind == "lab" and c.criterion and c.null


def test_the_criterion_has_power():
    from lab.reproduce.discovery import recovers_met

    good = {"plane": {"found": 1, "true_dimension": 1, "max_angle": 2.0},
            "none": {"found": 0, "true_dimension": 0, "max_angle": None}}
    assert recovers_met(good)
    assert not recovers_met({**good, "plane": {"found": 1, "true_dimension": 1, "max_angle": 40.0}})
    assert not recovers_met({**good, "plane": {"found": 3, "true_dimension": 1, "max_angle": 2.0}})
    assert not recovers_met({**good, "none": {"found": 1, "true_dimension": 0, "max_angle": None}})


@pytest.mark.xdist_group("reproduce")
def test_on_the_quick_run(quick_outcomes):
    o = quick_outcomes[ID]
    m = o.measured
    assert m["rotated-plane"]["found"] == 1 and m["rotated-plane"]["max_angle"] < 10
    assert m["none"]["found"] == 0
    assert m["o5"]["found"] == 10 and m["o5"]["max_angle"] < 10
    assert o.holds is True
    assert o.null is not None and o.null.holds is False
