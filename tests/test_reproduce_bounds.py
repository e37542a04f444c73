"""Thesis chapter 5's claims in ``lab reproduce`` (``lab/bounds/claims.py``): registered after the ensembles
poster's, each with versioned criteria, parts judged on replicates and nulls read by the same statistic.  Nothing here
asserts a verdict that can flip between runs: the tests check the statistics and criteria on made-up runs, the
pruning baseline's bookkeeping, the claims' mechanics on tiny runs (the same seed twice gives the same numbers), and
on the session's quick report that every part's verdict is its rule re-applied to its replicates."""
from __future__ import annotations

import math

import pytest

IDS = ("pac-nonvacuous", "pac-equivariance-compresses", "pac-shuffled-pixels", "pac-shuffled-labels-vacuous")


def test_the_claims_are_registered_in_order_with_a_criterion_and_a_null():
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert CLAIM_MODULES[CLAIM_MODULES.index("lab.ensembles.claims") + 1] == "lab.bounds.claims"
    start = CLAIM_IDS.index(IDS[0])
    assert CLAIM_IDS[start:start + 4] == IDS and start == CLAIM_IDS.index("ens-assumptions-matter") + 1
    claims = load_claims()
    assert all(claims[c].paper == "thesis" and claims[c].criterion and claims[c].null for c in IDS)
    assert all(claims[c].paper_settings for c in IDS)


def test_the_criteria_keep_every_version_and_the_pixels_claim_its_first_text():
    """pac-shuffled-pixels: v1 the best-bound criterion as first committed, v2 the mean over d it was loosened to,
    v3 the thesis's best-bound reading on replicates; the other three: v1 as first registered, v2 on intervals."""
    from lab.bounds import claims as B
    from lab.reproduce import load_claims
    from lab.reproduce.claim import FIRST_REGISTERED, TUNED_NOTE, layer_text

    claims = load_claims()
    pix = claims["pac-shuffled-pixels"].criteria
    # v4 statistics layer 2, v5 the quick dims retuned, v6 the trivial baseline (guessing) in the verdict
    assert [c.version for c in pix] == [1, 2, 3, 4, 5, 6] and pix[3].layer == pix[4].layer == pix[5].layer == 2
    assert pix[4].text == pix[3].text + TUNED_NOTE and pix[5].text.startswith(pix[4].text)
    assert pix[0].text == ("shuffling the pixels worsens the CNN's best bound at least 0.02 more than the MLP's, and "
                           "leaves it not below the MLP's")
    assert pix[1].text == ("the CNN's bound minus the MLP's, averaged over the subspace dimensions searched, rises "
                           "by at least 0.02 when the pixels are shuffled and is not below 0 after")
    assert pix[0].date == pix[1].date == FIRST_REGISTERED and pix[1].reason and pix[2].reason
    assert pix[2].text == B.SHUFFLED_CRITERION and pix[2].parts == B.SHUFFLED_PARTS
    for cid, v1 in (("pac-nonvacuous", B.NONVACUOUS_V1), ("pac-equivariance-compresses", B.COMPRESSES_V1),
                    ("pac-shuffled-labels-vacuous", B.VACUOUS_V1)):
        crit = claims[cid].criteria
        assert [c.version for c in crit][:4] == [1, 2, 3, 4] and crit[0].text == v1 and crit[0].date == FIRST_REGISTERED
        assert crit[1].reason and crit[1].parts and layer_text(crit[1].text) + TUNED_NOTE == crit[3].text
        assert claims[cid].criterion.startswith(crit[3].text)


def test_the_earlier_criteria_have_power():
    from lab.bounds.claims import compresses_met, nonvacuous_met, shuffled_met, shuffled_met_v1, vacuous_met

    assert nonvacuous_met({"best_bound": 0.5}) and not nonvacuous_met({"best_bound": 0.95})
    assert compresses_met({"gcnn": 0.58, "cnn": 0.75}) and not compresses_met({"gcnn": 0.58, "cnn": 0.6})
    worse = {"gap_before": -0.05, "gap_after": 0.03}
    assert shuffled_met(worse)
    assert not shuffled_met({**worse, "gap_after": -0.01})  # the CNN still ahead of the MLP
    assert not shuffled_met({"gap_before": 0.02, "gap_after": 0.03})  # no rise: nothing was lost
    v1 = {"cnn_before": 0.45, "mlp_before": 0.5, "cnn_after": 0.52, "mlp_after": 0.5}
    assert shuffled_met_v1(v1)
    assert not shuffled_met_v1({**v1, "cnn_after": 0.49})  # still below the MLP
    assert not shuffled_met_v1({**v1, "cnn_before": 0.51})  # worsened by 0.01 only
    assert vacuous_met({"a": 0.95, "b": 0.99}) and not vacuous_met({"a": 0.95, "b": 0.7})


def _run(best, dims=((100, 0.5, 0.1), (300, 0.6, 0.0))):
    return {"best_bound": best, "dims": [{"d": d, "bound": b, "train_error_float": e} for d, b, e in dims]}


def test_the_statistics_read_the_runs():
    from lab.bounds import claims as B

    before = {"cnn": _run(0.45), "mlp": _run(0.5)}
    after = {"cnn": _run(0.55), "mlp": _run(0.52)}
    draw = {"before": before, "after": after}
    assert math.isclose(B.best_gap(before), -0.05) and math.isclose(B.gap_after(draw), 0.03)
    assert math.isclose(B.shuffle_rise(draw), 0.08)
    assert math.isclose(B.gcnn_advantage({"cnn": _run(0.7), "gcnn": _run(0.6)}), 0.1)
    assert B.best_bound(_run(0.4)) == 0.4 and B.best_bound({"best_bound": 0.8}) == 0.8  # a pruned run reads alike
    rows = [{"train_error_float": 0.02}, {"train_error_float": 0.07}]
    assert B.fit_error({"rows": rows}) == 0.07  # the worst model
    assert B.lowest_bound({"runs": [_run(0.5), _run(0.9, ((100, 0.95, 0.8), (300, 0.91, 0.7)))]}) == 0.5


def test_a_best_at_the_grids_edge_leaves_the_part_without_power():
    """Every quick draw's best d was 300, the largest searched: a best at an edge of the dims may lie beyond it."""
    from lab.bounds import claims as B
    from lab.reproduce.parts import NO_POWER
    from lab.reproduce.stats import Rule, part

    dims = ((100, 0.7, 0.3), (300, 0.5, 0.1), (1000, 0.6, 0.0))
    inside = {f"seed {s}": dict(_run(0.5, dims), best_dim=300) for s in range(3)}
    top = dict(inside, **{"seed 2": dict(_run(0.45, dims), best_dim=1000)})
    g = B.grid(top)
    assert g["best"] == [300, 300, 1000] and g["edges"] == [100, 1000] and g["at_edge"] and g["at top"] == ["seed 2"]
    assert not B.grid(inside)["at_edge"] and B.grid({"a": dict(_run(0.5), best_dim=100)})["at bottom"] == ["a"]
    assert not B.grid({"a": dict(_run(0.5, ((0, 0.5, 0.1), (4, 0.6, 0.0))), best_dim=0)})["at_edge"]  # d = 0
    assert B.lowest_dim(_run(0.5, dims)) == 300
    bounds, null = [0.5, 0.52, 0.48], [0.95, 0.97, 0.96]
    held = part("(a)", float, bounds, null, Rule("<", B.GUESS), "null", grid=B.grid(inside))
    edge = part("(a)", float, bounds, null, Rule("<", B.GUESS), "null", grid=g)
    assert held.verdict == "holds" and edge.verdict == NO_POWER and edge.grid["best"] == [300, 300, 1000]
    assert any("edge" in r and "extend the grid" in r for r in edge.reasons)
    assert "no power until the grid is extended" in B._where(edge) and "inside the grid" in B._where(held)


def test_the_mean_gap_reads_the_curves_at_the_same_dims():
    from lab.bounds.claims import mean_gap

    cnn = {"dims": [{"d": 50, "bound": 0.6}, {"d": 100, "bound": 0.5}]}
    mlp = {"dims": [{"d": 50, "bound": 0.7}, {"d": 100, "bound": 0.52}, {"d": 200, "bound": 0.1}]}
    assert abs(mean_gap(cnn, mlp) - (-0.1 - 0.02) / 2) < 1e-12


def test_the_seeds_and_the_null_splits_are_distinct():
    from lab.bounds import claims as B
    from lab.reproduce.claim import Profile

    for first in (0, 7):
        p = Profile("quick", seed=first)
        assert B.seeds(p) == [first, first + 1, first + 2]
        assert B.twin_seeds(p) == [first + 3, first + 4, first + 5]


# ---------------------------------------------------------------------------------------------- the pruned baseline
def test_index_bits_is_log2_of_the_binomial():
    from lab.bounds.prune import index_bits

    assert index_bits(10, 0) == 0 and math.isclose(index_bits(10, 3), math.log2(120))
    assert math.isclose(index_bits(7370, 100), math.log2(math.comb(7370, 100)), rel_tol=1e-12)


def test_the_coordinate_projector_places_w_at_its_coordinates():
    import torch

    from lab.bounds.errors import BoundsError
    from lab.bounds.prune import CoordinateProjector

    P = CoordinateProjector(6, [4, 1])
    w = torch.tensor([2.0, -3.0])
    assert P(w).tolist() == [0.0, -3.0, 0.0, 0.0, 2.0, 0.0]
    assert torch.equal(P.transpose(torch.arange(6.0)), torch.tensor([4.0, 1.0]))
    assert P.numbers() == 0
    with pytest.raises(BoundsError):
        CoordinateProjector(6, [1, 1])


def test_the_pruned_baseline_keeps_k_coordinates_and_pays_their_positions():
    from lab.bounds.data import bound_data
    from lab.bounds.models import build_model
    from lab.bounds.prune import index_bits, pruned_bound
    from lab.bounds.subspace import BoundSettings, compute_bound

    data = bound_data("digits", 0, train_points=128)
    settings = BoundSettings(steps=3, quant_steps=2, batch=32)
    row = pruned_bound(lambda: build_model("mlp", 4, 8, 10, seed=0), data, 6, 5, settings, seed=0, extra_bits=1.0)
    assert row["kept"] == 5 and row["subspace_d"] == 6 and row["projector"] == "coordinates"
    bits = index_bits(row["D"], 5)
    assert math.isclose(row["index_bits"], bits)
    assert row["compressed_bits"] >= bits + 1.0 and 0 < row["bound"] <= 1
    again = pruned_bound(lambda: build_model("mlp", 4, 8, 10, seed=0), data, 6, 5, settings, seed=0, extra_bits=1.0)
    assert {k: again[k] for k in ("bound", "train_error", "compressed_bits")} == \
        {k: row[k] for k in ("bound", "train_error", "compressed_bits")}
    # the hook it uses leaves compute_bound as it was when not given
    plain = compute_bound(build_model("mlp", 4, 8, 10, seed=0), data, 6, settings, seed=0)
    assert plain["projector"] == "dense"


# ---------------------------------------------------------------------------------------------- tiny runs
TINY = {"dims": "4,8", "steps": 4, "quant_steps": 2}
TINY_LABELS = {"dims": "4,16", "steps": 4, "quant_steps": 2, "train_points": 48}


def _measure_all(monkeypatch):
    from lab.bounds import claims as B
    from lab.reproduce import load_claims
    from lab.reproduce.claim import Profile

    monkeypatch.setattr(B, "QUICK", TINY)
    monkeypatch.setattr(B, "LABELS_QUICK", TINY_LABELS)
    profile, claims, out = Profile("quick", device="cpu"), load_claims(), {}
    for cid in IDS:
        profile.current = cid
        out[cid] = claims[cid].measure(profile)
    return out, profile


@pytest.mark.slow
def test_on_tiny_runs_every_part_reads_its_null_by_the_same_statistic_and_the_same_seed_repeats(monkeypatch):
    from lab.reproduce import load_claims
    from lab.reproduce.stats import Rule, rejudge

    first, profile = _measure_all(monkeypatch)
    claims = load_claims()
    for cid, o in first.items():
        assert o.parts and o.paper_settings, cid
        layer1 = [v.version for v in claims[cid].criteria if v.layer == 1]  # the last is read by the runner (legacy)
        assert set(o.history) == set(layer1[:-1]), cid  # the claim judges its own earlier
        for p in o.parts:
            assert len(p.replicates) >= 3 and len(p.null_replicates) >= 3, (cid, p.name)
            assert all(math.isfinite(v) for v in p.replicates + p.null_replicates), (cid, p.name)
            rule = Rule(p.op, p.threshold)
            assert rule.judge(p.replicates)[0] is p.holds and rejudge(p.to_dict()).separated is not p.null_holds
            # a statistic read on a best over d records where each run's best lies (fit_error reads the largest d)
            assert (p.grid is None) is (p.statistic == "fit_error"), (cid, p.name)
            if p.grid:
                assert len(p.grid["best"]) >= 3 and len(p.grid["best"]) == len(p.grid["runs"]), (cid, p.name)
                assert any("edge" in r for r in p.reasons) is p.grid["at_edge"], (cid, p.name)
    # every run shared: the digits' CNN at the first seed is built once and read by three claims
    users = profile.shared["bound cnn on digits seed 0"]["used_by"]
    assert set(users) == {"pac-nonvacuous", "pac-equivariance-compresses", "pac-shuffled-pixels"}
    again, _ = _measure_all(monkeypatch)
    for cid in IDS:
        assert again[cid].measured == first[cid].measured, cid
        assert [p.replicates for p in again[cid].parts] == [p.replicates for p in first[cid].parts], cid
        assert [p.null_replicates for p in again[cid].parts] == [p.null_replicates for p in first[cid].parts], cid


# ---------------------------------------------------------------------------------------------- the quick report
@pytest.mark.xdist_group("reproduce")
def test_on_the_quick_run_every_verdict_follows_its_parts_rules(quick_report):
    """Mechanics only: the verdicts themselves are reported, never asserted (they sit near noise at quick)."""
    from lab.reproduce import load_claims
    from lab.reproduce.stats import Rule, rejudge

    claims = {c["id"]: c for c in quick_report[0]["claims"]}
    for cid in IDS:
        c = claims[cid]
        assert [p["name"] for p in c["parts"]], cid
        for p in c["parts"]:
            assert len(p["replicates"]) >= 3 and len(p["null_replicates"]) >= 3, (cid, p["name"])
            rule = Rule(p["op"], p["threshold"])
            assert rule.judge(p["replicates"])[0] is p["holds"], (cid, p["name"])
            assert rejudge(p).separated is not p["null_holds"], (cid, p["name"])
        assert c["criterion_version"] == len(load_claims()[cid].criteria), cid  # the last: baseline or retuned
        assert len(c["criterion_history"]) == c["criterion_version"] - 1, cid
        assert all(h["verdict"] != "not judged by this run" for h in c["criterion_history"]), cid
    statistics = {cid: [p["statistic"] for p in claims[cid]["parts"]] for cid in IDS}
    assert statistics == {"pac-nonvacuous": ["best_bound"], "pac-equivariance-compresses": ["gcnn_advantage"],
                          "pac-shuffled-pixels": ["shuffle_rise", "gap_after"],
                          "pac-shuffled-labels-vacuous": ["fit_error", "lowest_bound"]}


@pytest.mark.slow
def test_with_mnist_given_the_nonvacuous_claim_runs_it_beside(tmp_path, monkeypatch):
    """``lab reproduce --data DIR``: MNIST's IDX files (here made-up ones) run once beside the digits, not judged."""
    import numpy as np

    from lab.bounds import claims as B
    from lab.reproduce import load_claims
    from lab.reproduce.claim import Profile

    rng = np.random.default_rng(0)
    for split, n in (("train", 40), ("t10k", 20)):
        for kind, shape in (("images-idx3", (n, 28, 28)), ("labels-idx1", (n,))):
            array = rng.integers(0, 256 if kind.startswith("images") else 10, shape)
            header = bytes([0, 0, 8, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
            (tmp_path / f"{split}-{kind}-ubyte").write_bytes(header + array.astype(np.uint8).tobytes())
    monkeypatch.setattr(B, "QUICK", TINY)
    profile = Profile("quick", device="cpu", data=str(tmp_path))
    profile.current = "pac-nonvacuous"
    o = load_claims()["pac-nonvacuous"].measure(profile)
    assert 0 < o.measured["mnist_best_bound"] <= 1 and o.measured["thesis_mnist"] == 0.116
    assert "bound cnn on mnist seed 0" in profile.shared and "MNIST" in o.paper_settings
    assert len(o.parts) == 1  # beside, not a part
