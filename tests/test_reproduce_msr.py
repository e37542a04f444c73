"""The MSR report's claims at the quick profile (the CI check): λ chosen on validation tasks, test loss reported."""
from __future__ import annotations

import json

import pytest


SETTINGS = ["rank1 kernel3", "rank2 kernel3", "rank5 kernel3", "rank2 kernel5", "rank5 kernel5"]


pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    """The two claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py)."""
    return {cid: quick_outcomes[cid] for cid in ("msr-sparsity-few-tasks", "msr-sparser-U")}


def test_sparsity_lowers_the_test_loss_with_20_tasks(outcomes):
    out = outcomes["msr-sparsity-few-tasks"]
    json.dumps([out.measured, out.settings, out.evidence])
    assert list(out.measured) == SETTINGS
    assert out.holds is True and all(v < 0 for v in out.measured.values())
    assert "validation" in out.settings["criterion"] and out.settings["lambda_grid"][0] == 0.0
    tables = [e for e in out.evidence if e["kind"] == "table"]
    per_lambda = [t for t in tables if t["columns"][:3] == ["lambda", "validation loss", "test loss"]]
    assert len(per_lambda) == 5
    for t in per_lambda:  # exactly one λ marked, and it is the one with the lowest validation loss
        marked = [r for r in t["rows"] if r[3]]
        assert len(marked) == 1 and marked[0][1] == min(r[1] for r in t["rows"])
    lines = [e for e in out.evidence if e["kind"] == "line"]
    assert len(lines) == 5 and all(len(s) == len(e["x"]) for e in lines for s in e["series"].values())


def test_exclusive_sparsity_makes_u_sparser(outcomes):
    out = outcomes["msr-sparser-U"]
    json.dumps([out.measured, out.settings, out.evidence])
    assert out.holds is True
    for m in out.measured.values():
        assert m["hoyer with"] > m["hoyer without"] and m["near-zero with"] > m["near-zero without"]
    matrices = [e for e in out.evidence if e["kind"] == "matrix"]
    assert len(matrices) == 3
    for e in matrices:
        pics = list(e["matrices"].values())
        assert len(pics) == 2 and len(pics[0][0]) == 30 and len(pics[0]) in (28, 26)  # 30 inputs, kernel 3 or 5
