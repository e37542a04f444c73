"""``lab reproduce --quick --json`` as CI runs it: every claim id present, strict JSON, and the claims the issue
requires to hold at the quick settings hold.  The families' own checks on the same run are in
``test_reproduce_<family>.py`` (they share the one run: the ``quick_report`` fixture)."""
from __future__ import annotations

import json
import math
import re

import pytest

from lab.reproduce.claim import CLAIM_IDS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]

MUST_HOLD = ("dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-perm-aug-vs-nom", "share-conv-exact",
             "share-gaussian-gap-bound", "ranks-thesis")
KEYS = ("id", "paper", "where", "claim", "paper_value", "measured", "holds", "settings", "seconds",
        "criterion", "null_holds", "accuracy")  # the first nine are the first report's; issue 25 added three
#: words that refer to a history the report's reader cannot see
HISTORY = re.compile(r"\bthe issue\b|\bissue \d|earlier (lab )?measurement|\bused to\b|was made optional|"
                     r"reported before|\bpreviously\b|\bno longer\b", re.I)


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


def test_every_claim_has_power_at_the_quick_settings(quick_report):
    """The same criterion applied to each claim's baseline (random / all-singletons partition, untrained model,
    lambda = 0, an unaugmented run, ...) fails: a criterion that its baseline passes cannot support a verdict."""
    for c in quick_report[0]["claims"]:
        assert c["null"] is not None and c["null"]["baseline"], c["id"]
        assert c["null_holds"] is False, (c["id"], c["null"])
        assert c["criterion"], c["id"]
        assert c["verdict"] in ("holds", "does not hold"), (c["id"], c["verdict"])
        assert c["holds"] is (c["verdict"] == "holds"), c["id"]


def test_notes_state_facts_not_history(quick_report):
    for c in quick_report[1]["claims"]:
        assert not HISTORY.search(c["note"]), (c["id"], HISTORY.search(c["note"]).group(0))


def test_report_lists_every_seed_paper_by_title_with_what_is_not_covered(quick_report):
    from pathlib import Path

    from lab.reproduce.claim import PAPERS

    report = quick_report[1]
    coverage = {p["paper"]: p for p in report["coverage"]}
    assert set(coverage) == set(PAPERS) == {"dynamics", "sharing", "msr", "thesis", "ensembles"}
    assert [c["id"] for c in coverage["ensembles"]["covered"]] == ["ens-exact-group-average",
                                                                   "ens-error-falls-with-M", "ens-assumptions-matter"]
    assert coverage["ensembles"]["uncovered"]
    assert any("chapter 3" in u for u in coverage["thesis"]["uncovered"])
    assert "pac-equivariance-compresses" in [c["id"] for c in coverage["thesis"]["covered"]]
    assert "Understanding and Incorporating Mathematical Inductive Biases" in coverage["thesis"]["title"]
    page = Path(quick_report[0]["report"]).read_text()
    import html

    for p in report["coverage"]:
        assert html.escape(p["title"]) in page
        assert all(html.escape(u) in page for u in p["uncovered"])
    assert "—" not in [c["measured"] for c in report["claims"]]
    assert "null</td>" not in page and "…" not in page  # no raw null, nothing cut


def test_claim_seconds_are_their_own(quick_report):
    report = quick_report[1]
    shared = report["shared_runs"]
    assert shared, "the dynamics trainings are shared between claims"
    for c in report["claims"]:
        for s in c["shared"]:
            assert s["run"] in shared and c["id"] in shared[s["run"]]["used_by"]
    total = sum(c["seconds"] for c in report["claims"]) + sum(e["seconds"] for e in shared.values()
                                                              if not e.get("nested"))
    assert total <= report["seconds"] * 1.02 + 1  # nothing counted twice
