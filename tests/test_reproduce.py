"""``lab reproduce --quick --json`` as CI runs it: every claim id present, strict JSON, and the claims the issue
requires to hold at the quick settings hold.  The families' own checks on the same run are in
``test_reproduce_<family>.py`` (they share the one run: the ``quick_report`` fixture)."""
from __future__ import annotations

import json
import math

import pytest

from lab.reproduce.claim import CLAIM_IDS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]

MUST_HOLD = ("dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-perm-aug-vs-nom", "share-conv-exact",
             "share-gaussian-gap-bound", "ranks-thesis")
KEYS = ("id", "paper", "where", "claim", "paper_value", "measured", "holds", "settings", "seconds")


def _finite(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def test_every_claim_reported_with_the_public_keys(quick_report):
    printed, report = quick_report
    assert [c["id"] for c in printed["claims"]] == list(CLAIM_IDS)
    assert printed["report"].endswith("report.html")
    for c in printed["claims"]:
        assert set(KEYS) <= set(c), c["id"]
        assert c["status"] == "finished", (c["id"], c["note"])
        assert c["holds"] in (True, False, None)
        assert c["seconds"] >= 0 and c["settings"], c["id"]
        assert _finite(c), c["id"]  # strict JSON: no NaN or Infinity anywhere
    json.dumps(printed, allow_nan=False)
    assert report["profile"] == "quick" and report["status"] == "finished"


@pytest.mark.parametrize("cid", MUST_HOLD)
def test_required_claims_hold_at_quick_settings(quick_report, cid):
    claims = {c["id"]: c for c in quick_report[0]["claims"]}
    assert claims[cid]["holds"] is True, claims[cid]["note"]


def test_a_claim_that_does_not_hold_says_why(quick_report):
    for c in quick_report[1]["claims"]:
        if c["holds"] is False:
            assert len(c["note"]) > 40, c["id"]
            assert c["evidence"], c["id"]


def test_html_report_has_every_claim_and_figures(quick_report):
    from pathlib import Path

    page = Path(quick_report[0]["report"]).read_text()
    for cid in CLAIM_IDS:
        assert f"id='{cid}'" in page
    assert page.count("data:image/png;base64,") >= 5
