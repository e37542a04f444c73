"""Posterior levels of equivariance (thesis 3.5.2, lab.rpp.posterior): the rows, the eq. 3.3 measure, the cost check
and stopping.  Tiny settings: 16 channels, 1 layer, 40 points, a few epochs."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

from lab.control import Control
from lab.errors import LabError
from lab.groups import O
from lab.nn.check import rel_err, thesis_equivariance_errors
from lab.rpp.posterior import POSTERIOR, plan, posterior_levels

TINY = replace(POSTERIOR, channels=16, layers=1, max_epochs=3, batch=20)  # 2 steps an epoch at 40 points
KW = dict(size=40, test=40, held_out=16, record_every=1, schedule=TINY)
KEYS = {"symmetry", "member", "epoch", "equivariance_error", "test_mse", "free_fraction"}


def test_rows_shape_keys_and_summary():
    records = []
    out = posterior_levels(members=2, progress=records.append, **KW)
    rows = out["rows"]
    assert out["status"] == "finished" and out["total_steps"] == 2 * 2 * 3 * 2
    assert len(rows) == 2 * 2 * 3 and all(set(r) == KEYS for r in rows)
    assert {(r["symmetry"], r["member"], r["epoch"]) for r in rows} == {
        (s, k, e) for s in ("exact", "approximate") for k in (0, 1) for e in (1, 2, 3)}
    assert all(0 <= r["equivariance_error"] <= 1 and r["test_mse"] > 0 and 0 <= r["free_fraction"] <= 1
               for r in rows)
    for sym, v in out["summary"].items():
        finals = [r["equivariance_error"] for r in rows if r["symmetry"] == sym and r["epoch"] == 3]
        assert v["members"] == 2 and v["final"] == finals
        assert v["q25"] <= v["median"] <= v["q75"] and v["median"] == pytest.approx(np.median(finals))
    # progress: done/total in optimiser steps, rising to the total
    prog = [r for r in records if r["kind"] == "progress"]
    assert records[0]["kind"] == "started" and records[0]["total_steps"] == out["total_steps"]
    assert [p["done"] for p in prog] == sorted(p["done"] for p in prog) and prog[-1]["done"] == prog[-1]["total"]


def test_members_differ_by_weights_on_one_draw():
    out = posterior_levels(members=2, symmetries=("approximate",), **KW)
    last = [r for r in out["rows"] if r["epoch"] == 3]
    assert last[0]["equivariance_error"] != last[1]["equivariance_error"]  # two random starts, two functions


def test_exact_data_without_free_pathway_is_equivariant_at_every_record():
    """prior_free = 0: no free pathway, an EMLP: the measure reads float rounding only, at every record."""
    out = posterior_levels(members=2, symmetries=("exact",), prior_free=0, **KW)
    assert len(out["rows"]) == 6
    assert max(r["equivariance_error"] for r in out["rows"]) < 1e-5
    assert all(r["free_fraction"] == 0 for r in out["rows"])
    # with the free pathway the same ensemble is measurably off equivariance (the measure can fail)
    free = posterior_levels(members=1, symmetries=("exact",), **KW)
    assert min(r["equivariance_error"] for r in free["rows"]) > 1e-4


def _brute(f, x, gs):
    """Eq. 3.3 by hand: one point and one element at a time, numpy, float64."""
    out = []
    for xi, g in zip(x, gs):
        a, b = g @ f(xi), f(g @ xi)
        den = np.linalg.norm(a) + np.linalg.norm(b)
        out.append(np.linalg.norm(a - b) / den if den > 0 else 0.0)
    return np.array(out)


class Shifted(torch.nn.Module):
    """x -> x * |x| + c: equivariant under O(3) but for the constant shift c."""

    def __init__(self, c):
        super().__init__()
        self.c = torch.as_tensor(c, dtype=torch.float64)

    def forward(self, x):
        return x * x.norm(dim=-1, keepdim=True) + self.c


def test_eq33_measure_matches_brute_force_and_stays_in_unit_interval():
    rng = np.random.default_rng(1)
    gs = O(3).sample(20, rng)
    x = rng.standard_normal((20, 3))
    R = torch.as_tensor(np.stack(gs))
    c = np.array([0.5, -1.0, 2.0])
    model = Shifted(c)
    got = thesis_equivariance_errors(model, torch.as_tensor(x), R, R).numpy()
    want = _brute(lambda v: v * np.linalg.norm(v) + c, x, gs)
    assert got == pytest.approx(want, rel=1e-10, abs=1e-14)
    assert (got > 1e-3).all() and (got <= 1).all()
    assert thesis_equivariance_errors(Shifted(np.zeros(3)), torch.as_tensor(x), R, R).max() < 1e-12
    # the bounds: a = -b gives 1, a = b = 0 gives 0 (not NaN), anything else in between
    a = torch.tensor([[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]])
    assert rel_err(a, -a).tolist() == [1.0, 0.0, 1.0]
    r = rel_err(torch.randn(500, 4) * 100, torch.randn(500, 4) * 1e-3)
    assert ((r >= 0) & (r <= 1)).all()


def test_cost_refused_before_work(monkeypatch):
    steps = plan(members=3, **KW).total_steps
    assert steps == 3 * 2 * TINY.steps(40) == 36
    assert plan(members=1, size=40, test=30, schedule=TINY).held_out == 30  # the default: at most the test points
    records = []
    monkeypatch.setenv("LAB_MEMORY_LIMIT", "1KB")
    with pytest.raises(LabError, match="memory"):
        posterior_levels(members=3, progress=records.append, **KW)
    assert records == []
    monkeypatch.delenv("LAB_MEMORY_LIMIT")
    for bad in (dict(members=0), dict(members=101), dict(symmetries=("misspecified",)), dict(data="fresh"),
                dict(prior_free=0, prior_equivariant=0), dict(held_out=41), dict(variant="paper")):
        with pytest.raises(LabError):
            posterior_levels(**{**dict(members=2, progress=records.append), **KW, **bad})
        assert records == []


def test_stop_midway_keeps_finished_rows():
    control, records = Control(), []

    def progress(r):
        records.append(r)
        if r["kind"] == "posterior" and r["symmetry"] == "exact" and r["member"] == 1 and r["epoch"] == 1:
            control.stop()

    out = posterior_levels(members=3, progress=progress, control=control, **KW)
    assert out["status"] == "stopped"
    assert {(r["symmetry"], r["member"]) for r in out["rows"]} == {("exact", 0), ("exact", 1)}
    assert len([r for r in out["rows"] if r["member"] == 0]) == 3  # the finished member's every record
    assert out["summary"]["exact"]["members"] == 1 and out["summary"]["approximate"]["members"] == 0
    assert records[-1]["kind"] == "progress" and records[-1]["done"] == TINY.steps(40)
