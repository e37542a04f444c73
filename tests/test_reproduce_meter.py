"""The thesis's chapter 4 claims (``lee-zero-for-equivariant``, ``lee-layerwise-sums``, ``lee-aliasing``,
``lee-equivariance-gap``): registered and listed after ``rpp-regimes``, judged on made-up numbers (no training: each
failing part named, the null failing), and the quick run of each on one shared profile (the trained CNNs are built
once; about 25 s, marked slow): the nulls fail; the verdicts that depend on training are not asserted."""
from __future__ import annotations

import math

import pytest

from lab.reproduce import meter as mc

IDS = ("lee-zero-for-equivariant", "lee-layerwise-sums", "lee-aliasing", "lee-equivariance-gap")


def test_the_claims_are_registered_listed_and_appended_in_order(capsys):
    from lab.cli import main
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert CLAIM_MODULES.index("meter") == CLAIM_MODULES.index("rpp") + 1
    assert CLAIM_IDS.index(IDS[0]) == CLAIM_IDS.index("rpp-regimes") + 1
    assert CLAIM_IDS[CLAIM_IDS.index(IDS[0]):CLAIM_IDS.index(IDS[0]) + 4] == IDS
    claims = load_claims()
    order = list(claims)
    assert order[order.index(IDS[0]):order.index(IDS[0]) + 4] == list(IDS)
    kinds = {cid: claims[cid].kind for cid in IDS}
    assert kinds == {"lee-zero-for-equivariant": "claim", "lee-layerwise-sums": "lab", "lee-aliasing": "claim",
                     "lee-equivariance-gap": "claim"}
    assert all(claims[c].paper == "thesis" and claims[c].criterion and claims[c].null for c in IDS)
    assert "Blur-Pool" in claims["lee-aliasing"].claim and "equivariance gap" in claims["lee-equivariance-gap"].claim
    main(["reproduce", "--list"])
    lines = capsys.readouterr().out.splitlines()
    assert all(any(line.startswith(cid) for line in lines) for cid in IDS)


def test_chapter_4_is_no_longer_listed_as_wholly_uncovered():
    from lab.reproduce import UNCOVERED

    ch4 = [u for u in UNCOVERED["thesis"] if u.startswith("chapter 4")]
    assert len(ch4) == 1 and "pretrained ImageNet" in ch4[0]
    assert "the Lie derivative as a measure of learned equivariance" not in ch4[0]


# ---------------------------------------------------------------------------------------------- zero
def test_zero_holds_and_the_mlp_null_fails():
    out = mc.assess_zero({"emlp-o3": [1e-39, 0.0, 3e-33], "emlp-so2": [2e-32]},
                         {"mlp-o3": [0.9, 0.5, 0.8], "mlp-so2": [1.1]})
    assert out.holds is True and out.null.holds is False
    assert out.measured == {"emlp-o3": 3e-33, "emlp-so2": 2e-32}
    assert [e["kind"] for e in out.evidence] == ["bar", "table"]


def test_zero_names_a_model_that_is_not_equivariant():
    out = mc.assess_zero({"emlp-o3": [1e-39, 1e-6, 0.0], "emlp-so2": [0.0]}, {"mlp-o3": [0.9], "mlp-so2": [1.0]})
    assert out.holds is False and "not met for emlp-o3" in out.criterion and "emlp-so2" not in out.criterion
    assert mc.zero_met({"a": [mc.ZERO_TOL]}) and not mc.zero_met({"a": [mc.ZERO_TOL * 10]}) and not mc.zero_met({})


# ---------------------------------------------------------------------------------------------- sums
def test_sums_hold_and_the_norms_null_fails():
    res = {"cnn-stride translate-x": 1e-15, "cnn-blur rotate": 3e-14}
    out = mc.assess_sums(res, {"cnn-stride translate-x": 0.7, "cnn-blur rotate": 2.1})
    assert out.holds is True and out.null.holds is False and "cannot tell" not in out.note
    blind = mc.assess_sums(res, {"cnn-stride translate-x": 0.0, "cnn-blur rotate": 2.1})
    assert blind.null.holds is False and "add up too at cnn-stride translate-x" in blind.note


@pytest.mark.parametrize("bad", [1e-6, math.nan])
def test_sums_name_the_part_that_does_not_add_up(bad):
    out = mc.assess_sums({"cnn-stride translate-x": 1e-15, "cnn-blur rotate": bad},
                         {"cnn-stride translate-x": 0.7, "cnn-blur rotate": 2.1})
    assert out.holds is False and "not met at cnn-blur rotate" in out.criterion and "cnn-stride" not in \
        out.criterion.split("not met at")[1]


# ---------------------------------------------------------------------------------------------- aliasing
def _alias(blur_x=(0.02, 0.004), blur_y=(0.02, 0.004), blur_share=1.0):
    lee = {("cnn-stride", "translate-x"): (0.15, 0.02), ("cnn-stride", "translate-y"): (0.09, 0.015),
           ("cnn-blur", "translate-x"): blur_x, ("cnn-blur", "translate-y"): blur_y}
    shares = {("cnn-stride", "translate-x"): 1.0, ("cnn-stride", "translate-y"): 1.0,
              ("cnn-blur", "translate-x"): blur_share, ("cnn-blur", "translate-y"): 1.0}
    null_lee = {("cnn-noblur", "translate-x"): (0.1500001, 0.02), ("cnn-noblur", "translate-y"): (0.0899999, 0.015)}
    null_shares = {("cnn-noblur", "translate-x"): 1.0, ("cnn-noblur", "translate-y"): 1.0}
    return lee, shares, null_lee, null_shares


def test_aliasing_holds_and_the_unblurred_null_fails_on_the_error_bars():
    out = mc.assess_aliasing(*_alias())
    assert out.holds is True and out.null.holds is False
    assert out.measured["translate-x blur below stride"] == pytest.approx((0.15 - 0.02) / (0.02 + 0.004),
                                                                          rel=1e-3)
    # the unblurred CNN computes the strided one's function: equal to rounding, far inside the margin
    assert abs(out.null.measured["translate-x blur below stride"]) < 1e-3
    assert out.settings["parts the null meets too"] == ["translate-x cnn-stride share", "translate-x cnn-blur share",
                                                         "translate-y cnn-stride share", "translate-y cnn-blur share"]
    assert out.evidence[0]["kind"] == "bar" and set(out.evidence[0]["series"]) == {"cnn-stride", "cnn-blur",
                                                                                   "cnn-noblur"}


@pytest.mark.parametrize("kw, failing", [
    ({"blur_y": (0.08, 0.01)}, "translate-y blur below stride"),  # below, but the error bars overlap
    ({"blur_x": (0.2, 0.01)}, "translate-x blur below stride"),  # above
    ({"blur_share": 0.3}, "translate-x cnn-blur share")])  # the convolutions carry most
def test_aliasing_names_each_failing_part(kw, failing):
    out = mc.assess_aliasing(*_alias(**kw))
    assert out.holds is False and f"not met: {failing}" in out.criterion and failing in out.note


# ---------------------------------------------------------------------------------------------- gap
def _sets(train, test, heldout, noise):
    return {"train": train, "test": test, "heldout": heldout, "noise": noise}


GAP = {"cnn-stride translate-x": _sets(1e-4, 0.15, 0.4, 0.3), "cnn-blur rotate": _sets(0.5, 1.0, 2.0, 1.5)}
INIT = {"cnn-stride translate-x": _sets(5e-7, 5.6e-7, 5.5e-7, 4e-7), "cnn-blur rotate": _sets(1.3e-7, 1.4e-7,
                                                                                                1.5e-7, 1.2e-7)}


def test_the_gap_holds_and_the_untrained_null_fails():
    out = mc.assess_gap(GAP, INIT, variants=[{"name": "logits", "what": "w", "measured": "0 of 2", "holds": False}])
    assert out.holds is True and out.null.holds is False and out.settings["parts the null meets too"] == []
    assert "Variant 'logits'" in out.note and "not met (reported, not judged)" in out.note
    assert out.evidence[-1]["kind"] == "table" and len(out.evidence[-1]["rows"]) == 4


@pytest.mark.parametrize("sets, part", [(_sets(0.2, 0.15, 0.4, 0.3), "train above test"),
                                        (_sets(1e-4, 0.15, 0.1, 0.3), "held-out below test"),
                                        (_sets(1e-4, 0.15, 0.4, 0.1), "noise below test"),
                                        (_sets(1e-4, math.nan, 0.4, 0.3), "missing")])
def test_the_gap_names_each_failing_model_and_transformation(sets, part):
    out = mc.assess_gap(GAP | {"cnn-blur rotate": sets}, INIT)
    assert out.holds is False, part
    assert "not met at cnn-blur rotate" in out.criterion and "cnn-stride" not in out.criterion.split("not met at")[1]


def test_the_profiles():
    from lab.meter.cnn import DEFAULT_BATCH, DEFAULT_EPOCHS, DEFAULT_LR
    from lab.reproduce import Profile

    full, quick = mc.plan(Profile("full")), mc.plan(Profile("quick"))
    assert (full["seeds"], full["epochs"], full["batch"], full["lr"], full["samples"]) == (
        3, DEFAULT_EPOCHS, DEFAULT_BATCH, DEFAULT_LR, 256) and full["smooth"] is True
    assert quick["seeds"] == 1 and quick["epochs"] < full["epochs"] and quick["smooth"] is False


# ---------------------------------------------------------------------------------------------- the quick run
@pytest.fixture(scope="module")
def quick(quick_report, quick_outcomes):
    """The claims of the session's one ``lab reproduce --quick`` run (tests/conftest.py): (the report's claim
    records by id, their Outcomes by id) -- no second training."""
    return {c["id"]: c for c in quick_report[1]["claims"]}, quick_outcomes


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")  # with the other readers of the session's quick report
def test_the_quick_run_shares_one_trained_set(quick):
    records, _ = quick
    for cid in ("lee-layerwise-sums", "lee-aliasing", "lee-equivariance-gap"):
        runs = [s["run"] for s in records[cid]["shared"]]
        assert any(r.startswith("digits CNNs") for r in runs), (cid, runs)
    built = {s["run"]: s["built_by"] for cid in IDS for s in records[cid]["shared"]}
    assert [b for r, b in built.items() if r.startswith("digits CNNs")] == ["lee-layerwise-sums"]  # built once


def test_the_quick_zero_claim_holds_and_its_null_fails():
    from lab.reproduce import Profile, load_claims

    out = load_claims()["lee-zero-for-equivariant"].measure(Profile("quick", device="cpu"))
    assert out.holds is True and out.null.holds is False  # no training: both are properties of the models
    assert all(max(v) > 0.01 for v in out.null.measured.values())


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")  # with the other readers of the session's quick report
def test_the_quick_sums_hold_and_the_norms_do_not(quick):
    out = quick[1]["lee-layerwise-sums"]
    assert set(out.measured) == {"cnn-stride translate-x", "cnn-stride rotate", "cnn-blur translate-x",
                                 "cnn-blur rotate"}
    assert out.holds is True  # an identity: it holds for any weights
    assert out.null.holds is False and all(v > 0.01 for v in out.null.measured.values())


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")  # with the other readers of the session's quick report
def test_the_quick_aliasing_and_gap_nulls_fail(quick):
    alias, gap = quick[1]["lee-aliasing"], quick[1]["lee-equivariance-gap"]
    assert alias.holds in (True, False) and gap.holds in (True, False)  # what the quick training gives
    assert alias.null.holds is False
    assert abs(alias.null.measured["translate-x blur below stride"]) < mc.BARS  # the strided CNN's function
    assert [v["name"] for v in alias.variants] == ["rotation", "logits"]  # no smooth variant in quick
    assert gap.null.holds is False and len(gap.measured) == 6
    assert set(alias.accuracy["digits (test accuracy, seed mean)"]) == {"cnn-stride", "cnn-blur", "cnn-noblur",
                                                                         "chance"}
