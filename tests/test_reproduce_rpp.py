"""The thesis's Figure 3.2 claim (``rpp-regimes``): registered and listed, judged per (task, regime) on made-up
numbers (no training: every failing part named, the parts a null also meets named), and the quick run's verdict
with its boxes and a null that fails."""
from __future__ import annotations

import math

import pytest

from lab.reproduce import rpp as rc

CID = "rpp-regimes"


def _results(rpp=None):
    """Figure 3.2's pattern in made-up numbers, per (task, regime): {"mlp", "emlp", "rpp": 3 seeds, "group"}."""
    base = {("inertia", "exact"): ([3.0, 3.2, 2.9], [0.06, 0.05, 0.07], [0.07, 0.06, 0.08], "O(3)"),
            ("inertia", "approximate"): ([4.0, 3.9, 4.2], [2.8, 3.0, 3.1], [1.5, 1.9, 2.0], "O(3)"),
            ("inertia", "misspecified"): ([3.0, 3.2, 2.9], [9.0, 8.0, 8.5], [3.1, 3.4, 3.0], "SL(3)")}
    out = {k: {"mlp": m, "emlp": e, "rpp": r, "group": g} for k, (m, e, r, g) in base.items()}
    for k, v in (rpp or {}).items():
        out[k]["rpp"] = v
    return out


NULLS = {("inertia", "exact"): {"mlp": [3.1, 3.0, 3.3]},  # an MLP where the EMLP should win
         ("inertia", "approximate"): {"mlp": [4.1, 4.0, 3.8], "emlp": [2.9, 3.1, 3.0]},
         ("inertia", "misspecified"): {"emlp": [8.8, 9.1, 8.0]}}  # the wrong group's EMLP where the MLP should win


def test_the_claim_is_registered_and_listed(capsys):
    from lab.cli import main
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    # appended: the order is a contract
    assert "rpp" in CLAIM_MODULES and CLAIM_IDS.index(CID) == CLAIM_IDS.index("emlp-pendulum") + 1
    c = load_claims()[CID]
    assert (c.paper, c.kind, c.where) == ("thesis", "claim", "§3.5.1, Figure 3.2")
    assert c.criterion == rc.CRITERION and c.null == rc.NULL and "approximate" in c.claim
    main(["reproduce", "--list"])
    assert any(line.startswith(CID) and "Figure 3.2" in line for line in capsys.readouterr().out.splitlines())


def test_the_profiles():
    from lab.experiments.rpp import RPPConfig
    from lab.reproduce import Profile

    quick, full = rc.plan(Profile("quick")), rc.plan(Profile("full"))
    assert full == {"tasks": ("inertia", "pendulum"), "scale": "paper", "overrides": {"seeds": 10}}
    assert quick["tasks"] == ("inertia",) and quick["overrides"]["seeds"] == 1
    over = {k: v for k, v in quick["overrides"].items() if k != "seeds"}
    cfg = RPPConfig(symmetry="exact", seeds=1, **over).validate()
    assert cfg.schedule().steps(cfg.train_points) == 80  # 40 epochs of batch 500 over 1000 points


def test_median_and_ratio_read_the_boxes_middle_lines():
    assert rc.median([3.0, 1.0, 2.0]) == 2.0 and rc.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert rc.median([1.0, math.nan, 2.0]) == 2.0  # a diverged seed counts as infinite: the median moves up
    assert rc.median([]) == math.inf and rc.median([math.inf, 1.0]) == math.inf
    assert rc.ratio([2.0], [4.0], [8.0]) == 0.5 and rc.ratio([math.nan], [1.0], [1.0]) == math.inf
    assert math.isnan(rc.ratio([math.nan], [math.nan], [None]))


def test_the_pattern_holds_and_the_null_fails():
    out = rc.assess(_results(), NULLS, {"seeds": 3})
    assert out.holds is True and out.null.holds is False
    assert out.measured["inertia exact"] == pytest.approx(0.07 / 0.06, rel=1e-3)
    assert out.null.measured["inertia exact"] == pytest.approx(3.1 / 0.06, rel=1e-3)  # the MLP: far above EMLP
    assert out.null.measured["inertia misspecified"] == pytest.approx(8.8 / 3.0, rel=1e-3)  # SL(3): far above MLP
    assert out.null.measured["inertia approximate"] == pytest.approx(3.0 / 3.0)  # the closer: the null EMLP
    assert out.settings["parts the null meets too"] == [] and "cannot tell" not in out.note
    blind = rc.assess(_results(), NULLS | {("inertia", "exact"): {"mlp": [0.07, 0.06, 0.07]}}, {"seeds": 3})
    assert blind.settings["parts the null meets too"] == ["inertia exact"] and "cannot tell" in blind.note
    assert blind.null.holds is False  # the other parts still fail it
    kinds = [e["kind"] for e in out.evidence]
    assert kinds[0] == "boxes" and set(out.evidence[0]["panels"]) == {
        "exact (inertia, models over O(3))", "approximate (inertia, models over O(3))",
        "misspecified (inertia, models over SL(3))"}
    assert list(out.evidence[0]["panels"]["exact (inertia, models over O(3))"]) == ["MLP", "EMLP", "RPP-EMLP",
                                                                                     "null MLP"]
    assert list(out.evidence[0]["panels"]["approximate (inertia, models over O(3))"])[-2:] == ["null MLP",
                                                                                               "null EMLP"]


@pytest.mark.parametrize("rpp, failing", [
    ({("inertia", "exact"): [0.5, 0.4, 0.6]}, "inertia exact"),  # far above EMLP: not on par
    ({("inertia", "approximate"): [2.9, 3.0, 3.2]}, "inertia approximate"),  # not below EMLP
    ({("inertia", "misspecified"): [5.0, 4.9, 5.2]}, "inertia misspecified"),  # MLP-level it is not
    ({("inertia", "approximate"): [math.nan, math.nan, 1.0]}, "inertia approximate")])  # diverged
def test_each_failing_part_is_named(rpp, failing):
    out = rc.assess(_results(rpp), NULLS, {"seeds": 3})
    assert out.holds is False and f"not met at {failing}" in out.criterion and failing in out.note


def test_on_par_is_a_margin_and_approximate_is_strict():
    assert rc.met("exact", rc.ON_PAR) and not rc.met("exact", rc.ON_PAR * 1.001)
    assert not rc.met("approximate", 1.0) and rc.met("approximate", 0.999)
    assert not rc.met("exact", math.nan) and not rc.met("misspecified", None)


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")  # with the other readers of the session's quick report
def test_the_quick_run(quick_outcomes):
    """Inertia's three regimes at the quick settings (the session's one ``lab reproduce --quick`` run,
    tests/conftest.py): every model and the null trained, the boxes in the evidence, and the null fails (the SL(3)
    EMLP far behind the MLP where the symmetry is misspecified).  The verdict itself is whatever the quick settings
    give (reported by ``lab reproduce``), not asserted."""
    out = quick_outcomes[CID]
    assert set(out.measured) == {"inertia exact", "inertia approximate", "inertia misspecified"}
    assert all(r > 0 for r in out.measured.values())
    assert out.null is not None and out.null.holds is False
    assert out.null.measured["inertia misspecified"] > rc.ON_PAR  # the wrong group's EMLP: not on par with the MLP
    boxes = out.evidence[0]
    assert boxes["kind"] == "boxes" and all(len(v) == 1 for p in boxes["panels"].values() for v in p.values())
    runs = next(e for e in out.evidence if e["kind"] == "table" and e["title"].startswith("Every run"))
    assert len(runs["rows"]) == 3 * 3 + 4  # 3 regimes x (MLP, EMLP, RPP-EMLP), the nulls: MLP, EMLP, MLP + EMLP
    assert out.settings["inertia"]["epochs"] == 40 and out.settings["seeds"] == 1
