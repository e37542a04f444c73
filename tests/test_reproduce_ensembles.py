"""The ensembles poster's claims (issue 30) in ``lab reproduce``: registered after the meter's, each with a criterion
and a null; on the session's one quick run (conftest's ``quick_outcomes``) they hold and their nulls fail, and the
numbers behind them say what the issue's tests ask: in setting (i) the error falls with M, and at the largest M it is
far below setting (iii)'s."""
from __future__ import annotations

import pytest

IDS = ("ens-exact-group-average", "ens-error-falls-with-M", "ens-assumptions-matter")


def test_the_claims_are_registered_in_order_with_a_criterion_and_a_null():
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert CLAIM_MODULES[CLAIM_MODULES.index("meter") + 1] == "ensembles"
    start = CLAIM_IDS.index(IDS[0])
    assert CLAIM_IDS[start:start + 3] == IDS and start == CLAIM_IDS.index("lee-equivariance-gap") + 1
    claims = load_claims()
    assert all(claims[c].paper == "ensembles" and claims[c].criterion and claims[c].null for c in IDS)


def test_the_criteria_have_power():
    from lab.reproduce.ensembles import exact_met, falls_met, matter_met

    assert exact_met({"init": 1e-15, "trained": 1e-14}) and not exact_met({"init": 1e-15, "trained": 1e-3})
    assert falls_met({"slope": -0.5, "law_ratio": 1.0}) and not falls_met({"slope": -0.02, "law_ratio": 3.5})
    assert not falls_met({"slope": -0.5, "law_ratio": 1.4})  # the slope alone is not enough
    base = {"error": 0.5, "law_ratio": 1.0}
    assert matter_met({"invariant": base, "ii": {"error": 0.6, "law_ratio": 1.2}, "iii": {"error": 0.9,
                                                                                           "law_ratio": 1.8}})
    assert not matter_met({"invariant": base, "ii": {"error": 0.52, "law_ratio": 1.02}, "iii": {"error": 0.9,
                                                                                                 "law_ratio": 1.8}})


@pytest.mark.xdist_group("reproduce")
def test_on_the_quick_run_they_hold_and_their_nulls_fail(quick_outcomes):
    for cid in IDS:
        o = quick_outcomes[cid]
        assert o.holds is True, (cid, o.note)
        assert o.null is not None and o.null.holds is False, (cid, o.null)
    m = quick_outcomes["ens-assumptions-matter"].measured
    assert m["noninvariant-space"]["error"] > 1.5 * m["invariant"]["error"]  # far below setting (iii) at the largest M
    falls = quick_outcomes["ens-error-falls-with-M"]
    curve = next(e for e in falls.evidence if e["kind"] == "line")
    errs = curve["series"]["augmented (sampled)"]
    assert errs[-1] < 0.4 * errs[0] and curve["x"][0] == 1  # M = 1 against the largest, same run
