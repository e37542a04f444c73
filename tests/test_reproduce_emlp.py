"""The thesis's Figure 2.5 claim (``emlp-data-efficiency``): registered and listed, judged per (task, size) on
made-up numbers (no training: a size where EMLP loses is named, never averaged away), and the quick run's verdict
with its evidence and a null that fails."""
from __future__ import annotations

import json
import math

import pytest

from lab.reproduce import emlp
from lab.reproduce.runner import verdict_text

CID = "emlp-data-efficiency"


def _means(inertia_emlp_at_100=4.0):
    """Made-up mean test MSEs (shaped like the fast runs): EMLP wins everywhere except, by default, inertia at
    N = 100 (4.0 against MLP-Aug 3.2)."""
    return {"o5": {"group": "O(5)", "sizes": [30, 100, 1000], "mlp": [26.4, 3.17, 0.075],
                   "mlp-aug": [0.547, 0.455, 0.125], "emlp": [0.05, 0.04, 0.034]},
            "inertia": {"group": "O(3)", "sizes": [100, 1000], "mlp": [7.65, 3.14], "mlp-aug": [3.18, 1.64],
                        "emlp": [inertia_emlp_at_100, 0.436]}}


NULL_MEANS = {"o5": [26.8, 4.14, 0.08], "inertia": [7.9, 3.3]}


def test_the_claim_is_registered_and_listed(capsys):
    from lab.cli import main
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert "emlp" in CLAIM_MODULES and CID in CLAIM_IDS
    c = load_claims()[CID]
    assert (c.paper, c.kind, c.where) == ("thesis", "claim", "§2.7.1, Figure 2.5")
    assert "orders of magnitude" in c.claim and c.criterion == emlp.CRITERION and c.null == emlp.NULL
    assert c.seconds["quick"] < 60
    main(["reproduce", "--list"])
    assert any(line.startswith(CID) and "Figure 2.5" in line for line in capsys.readouterr().out.splitlines())


def test_the_profiles():
    from lab.reproduce import Profile

    quick, full = emlp.plan(Profile("quick")), emlp.plan(Profile("full"))
    assert quick == {"tasks": ("o5",), "sizes": (100,), "scale": "small", "seeds": 1}
    # the thesis's: three tasks, the reference code's sizes 30 ... 30000, its training, three runs per point
    assert full == {"tasks": ("o5", "inertia", "scattering"), "sizes": (30, 100, 300, 1000, 3000, 10000, 30000),
                    "scale": "paper", "seeds": 3}


def test_ratio_and_the_criterion_per_size():
    assert emlp.ratio(0.5, 2.0, 1.0) == 2.0  # the best baseline is MLP-Aug
    assert emlp.ratio(1.5, 2.0, 1.0) == pytest.approx(2 / 3)
    assert emlp.ratio(math.nan, 2.0, 1.0) == 0.0  # a diverged EMLP loses
    assert emlp.ratio(0.5, None, math.inf) == math.inf  # only the baselines diverged: EMLP wins
    assert not emlp.met(emlp.ratio(math.nan, math.nan, None))  # everything diverged: not met
    assert not emlp.met(1.0) and emlp.met(1.0001) and not emlp.met(None)  # strictly below both
    assert emlp.below_both_everywhere({"a N=1": 2.0, "b N=2": 1.1})
    assert not emlp.below_both_everywhere({"a N=1": 200.0, "b N=2": 0.9}) and not emlp.below_both_everywhere({})
    assert emlp.not_met({"a N=1": 200.0, "b N=2": 0.9, "c N=3": None}) == ["b N=2", "c N=3"]


def test_a_size_where_emlp_loses_is_judged_does_not_hold_and_named():
    out = emlp.assess(_means(), NULL_MEANS, {"seeds": 3})
    json.dumps([out.measured, out.settings, out.evidence, out.null.to_dict()], allow_nan=False)
    assert out.measured["inertia N=100"] == pytest.approx(3.18 / 4.0, rel=1e-3)
    assert out.measured["o5 N=30"] == pytest.approx(0.547 / 0.05, rel=1e-3)
    # never averaged away: the ratios' geometric mean is far above 1, one size below it decides
    assert math.prod(out.measured.values()) ** (1 / len(out.measured)) > 3
    assert out.holds is False and out.null.holds is False
    assert verdict_text("finished", out.holds, out.null.holds) == "does not hold"
    assert out.criterion.endswith("met at 4 of 5 (task, size) pairs, not met at inertia N=100")
    assert out.settings["criterion"] == out.criterion and "3 seeds" in out.criterion
    assert out.note.startswith("Not met at inertia N=100 (EMLP 4.0, MLP 7.65, MLP-Aug 3.18).")
    for other in ("o5 N=30", "o5 N=100", "o5 N=1000", "inertia N=1000"):
        assert other not in out.note.split("  ")[0]
    table = out.evidence[0]
    assert table["kind"] == "table" and len(table["rows"]) == 5
    below = {(r[0], r[2]): r[7] for r in table["rows"]}
    assert [k for k, v in below.items() if not v] == [("inertia", 100)]
    # the null (an MLP from other seeds) is judged by the same criterion and fails it
    assert out.null.measured["o5 N=100"] == pytest.approx(0.455 / 4.14, rel=1e-3)


def test_winning_everywhere_holds_and_a_null_that_wins_too_has_no_power():
    means = _means(inertia_emlp_at_100=2.0)
    out = emlp.assess(means, NULL_MEANS, {"seeds": 1})
    assert out.holds is True and verdict_text("finished", out.holds, out.null.holds) == "holds"
    assert "not met" not in out.criterion and not out.note.startswith("Not met")
    assert "10-fold (an order of magnitude) at 2 of 5 (o5 N=30, o5 N=100)" in out.note
    # a null model as good as EMLP passes the criterion too: no power, never "holds"
    same = {task: list(m["emlp"]) for task, m in means.items()}
    weak = emlp.assess(means, same, {"seeds": 1})
    assert weak.null.holds is True
    assert verdict_text("finished", weak.holds, weak.null.holds) == "no power at these settings"
    # the evidence of one size per task is drawn as bars, of several as lines on log axes
    one = emlp.assess({"o5": {"group": "O(5)", "sizes": [100], "mlp": [3.2], "mlp-aug": [0.46], "emlp": [0.05]}},
                      {"o5": [4.1]}, {"seeds": 1})
    assert [e["kind"] for e in one.evidence] == ["table", "bar", "bar"]
    lines = [e for e in out.evidence if e["kind"] == "line"]
    assert [e["x"] for e in lines] == [[30, 100, 1000], [100, 1000]] and all(e["logx"] for e in lines)
    # tasks on one size grid (the full profile's): the ratios as a curve per task against N, beside the line at 1
    grid = {t: dict(m, sizes=[100, 1000], mlp=m["mlp"][-2:], **{"mlp-aug": m["mlp-aug"][-2:]}, emlp=m["emlp"][-2:])
            for t, m in means.items()}
    ratios = emlp.assess(grid, {t: v[-2:] for t, v in NULL_MEANS.items()}, {"seeds": 1}).evidence[1]
    assert ratios["kind"] == "line" and ratios["x"] == [100, 1000] and ratios["series"]["EMLP, o5"] == [
        pytest.approx(0.455 / 0.04, rel=1e-3), pytest.approx(0.075 / 0.034, rel=1e-3)]


@pytest.fixture(scope="module")
def outcome(quick_outcomes):
    """The claim from the one quick ``lab reproduce`` run of this session (tests/conftest.py)."""
    return quick_outcomes[CID]


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_the_quick_run_gives_a_verdict_with_the_per_size_evidence(outcome):
    out = outcome
    json.dumps([out.measured, out.settings, out.evidence])
    s = out.settings
    assert (s["tasks"], s["sizes"], s["scale"], s["seeds"], s["channels"], s["layers"]) == (["o5"], [100], "small",
                                                                                          1, 384, 3)
    assert s["groups"] == {"o5": "O(5)"} and s["epochs"] == {"100": 300} and s["null seeds"] == [1]
    assert list(out.measured) == ["o5 N=100"] and isinstance(out.holds, bool)
    assert out.criterion == s["criterion"] and "judged per size" in out.criterion
    # the verdict is the criterion read on the table's own numbers
    (row,) = out.evidence[0]["rows"]
    task, group, n, mlp, aug, em, r, below, null_mse, null_r = row
    assert (task, group, n) == ("o5", "O(5)", 100)
    assert r == pytest.approx(min(mlp, aug) / em, rel=1e-3) == pytest.approx(out.measured["o5 N=100"], rel=1e-3)
    assert out.holds == below == (em < min(mlp, aug))
    if not out.holds:
        assert "o5 N=100" in out.criterion and out.note.startswith("Not met at o5 N=100")
    # the null, an MLP from another seed in EMLP's place, fails the same criterion
    assert out.null is not None and out.null.holds is False
    assert out.null.measured["o5 N=100"] == pytest.approx(min(mlp, aug) / null_mse, rel=1e-3)
    assert out.null.measured["o5 N=100"] < 1
    # every run is listed; the EMLP is equivariant to rounding, the MLPs are not
    runs = next(e for e in out.evidence if e["kind"] == "table" and e["columns"][2] == "model")
    by_model = {r[2]: r for r in runs["rows"]}
    assert set(by_model) == {"MLP", "MLP-Aug", "EMLP (O(5))", "MLP, other seeds (null)"}
    assert by_model["EMLP (O(5))"][4] == pytest.approx(em, rel=1e-3)
    assert by_model["EMLP (O(5))"][6] < 1e-4 < by_model["MLP"][6]
    curves = next(e for e in out.evidence if e["kind"] == "trajectories")
    assert set(curves["panels"]["N = 100"]) == set(by_model)
    assert "Quick profile" in out.note and "inertia" in out.note
