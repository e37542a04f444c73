"""The thesis's Figure 3.2 claim (``rpp-regimes``): registered with both criterion versions, judged per (task,
regime) as parts on made-up numbers (no training: each part's verdict by its rule on its seeds, its null read by the
same statistic, a null that meets a part making the claim powerless there, every failing part named), the measure
itself at tiny settings twice (the same numbers), and the session's quick run read for mechanics only (its verdicts
are whatever the quick settings give, reported by ``lab reproduce``, never asserted)."""
from __future__ import annotations

import json
import math

import pytest

from lab.rpp import claims as rc
from lab.reproduce.claim import layer_text
from lab.reproduce.stats import Rule, rejudge

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


def test_the_claim_is_registered_with_both_versions(capsys):
    from lab.cli import main
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims
    from lab.reproduce.criteria import registered

    # appended: the order is a contract
    assert "lab.rpp.claims" in CLAIM_MODULES and CLAIM_IDS.index(CID) == CLAIM_IDS.index("emlp-pendulum") + 1
    c = load_claims()[CID]
    assert (c.paper, c.kind, c.where) == ("thesis", "claim", "§3.5.1, Figure 3.2")
    assert c.criteria[1].text == rc.CRITERION and c.null == rc.NULL and "approximate" in c.claim
    assert c.criterion == layer_text(rc.CRITERION)  # version 3: version 2 judged by the statistics layer 2
    assert [v.version for v in c.criteria] == [1, 2, 3] and c.criteria[0].text == rc.CRITERION_V1
    assert c.criteria[0].fingerprint() == registered()[CID]["1"]["fingerprint"]  # v1 kept as first registered
    assert c.current.parts == rc.PARTS and dict(c.current.thresholds) == {"on_par": 1.5, "better": 1.0}
    assert c.paper_settings
    main(["reproduce", "--list"])
    assert any(line.startswith(CID) and "Figure 3.2" in line for line in capsys.readouterr().out.splitlines())


def test_the_profiles():
    from lab.rpp.family import RPPConfig
    from lab.reproduce import Profile

    quick, full = rc.plan(Profile("quick")), rc.plan(Profile("full"))
    assert full == {"tasks": ("inertia", "pendulum"), "scale": "paper", "overrides": {"seeds": 10}}
    assert quick["tasks"] == ("inertia",) and quick["overrides"]["seeds"] >= 3
    over = {k: v for k, v in quick["overrides"].items() if k != "seeds"}
    cfg = RPPConfig(symmetry="approximate", seeds=3, **over).validate()
    assert cfg.schedule().steps(cfg.train_points) == 50  # 25 epochs of batch 500 over 1000 points
    assert cfg.variant == "original"  # approximate inertia as the authors' code builds it
    assert "quick" in rc.paper_settings(Profile("quick")) and "50 steps" in rc.paper_settings(Profile("quick"))
    assert "thesis's training" in rc.paper_settings(Profile("full"))


def test_median_ratio_and_the_statistic():
    assert rc.median([3.0, 1.0, 2.0]) == 2.0 and rc.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert rc.median([1.0, math.nan, 2.0]) == 2.0  # a diverged seed counts as infinite: the median moves up
    assert rc.median([]) == math.inf and rc.median([math.inf, 1.0]) == math.inf
    assert rc.ratio([2.0], [4.0], [8.0]) == 0.5 and rc.ratio([math.nan], [1.0], [1.0]) == math.inf
    assert math.isnan(rc.ratio([math.nan], [math.nan], [None]))
    assert rc.rpp_over_better({"tested": 3.0, "mlp": 2.0, "emlp": 6.0}) == 1.5
    assert rc.rpp_over_better({"tested": math.nan, "mlp": 2.0, "emlp": 6.0}) == math.inf  # no rule accepts it


def _recheck(p):
    """A part's verdicts re-applied from its own replicates by its rule."""
    rule = Rule("<", p.threshold)
    assert p.holds == rule.judge(p.replicates)[0] and rejudge(p.to_dict()).separated is not p.null_holds


def test_each_regime_is_a_part_with_its_own_null_read_by_the_same_statistic():
    out = rc.assess(_results(), NULLS, {"seeds": 3, "first seed": 0})
    assert [p.name for p in out.parts] == ["inertia exact", "inertia approximate", "inertia misspecified"]
    assert out.holds is True and out.null.holds is False
    for p in out.parts:
        _recheck(p)
        assert p.statistic == "rpp_over_better" and len(p.replicates) == len(p.null_replicates) == 3
        assert len(set(p.null_replicates)) > 1 and p.threshold not in p.null_replicates
    exact, approximate, misspecified = out.parts
    assert exact.threshold == misspecified.threshold == rc.ON_PAR and approximate.threshold == rc.BETTER
    assert exact.replicates[0] == pytest.approx(0.07 / 0.06) and exact.null_replicates[0] == pytest.approx(3.1 / 0.06)
    assert misspecified.null_replicates[2] == pytest.approx(8.0 / 2.9)  # SL(3) EMLP over the seed's MLP
    assert approximate.null_replicates[0] == pytest.approx(2.9 / 2.8)  # the better of the two retrained baselines
    assert out.replicates == {"what": "seeds 0-2 (data and weights; the nulls: the same data, weight seeds + 1000)",
                              "claim": 3, "null": 3}
    assert out.history[1]["holds"] is True and "medians" in out.history[1]["why"]  # v1 on this run's medians
    assert out.settings["parts the null meets too"] == [] and "no power" not in out.note
    kinds = [e["kind"] for e in out.evidence]
    assert kinds[0] == "boxes" and set(out.evidence[0]["panels"]) == {
        "exact (inertia, models over O(3))", "approximate (inertia, models over O(3))",
        "misspecified (inertia, models over SL(3))"}
    assert list(out.evidence[0]["panels"]["approximate (inertia, models over O(3))"])[-2:] == ["null MLP",
                                                                                               "null EMLP"]
    json.dumps([p.to_dict() for p in out.parts])  # the report can write it


def test_a_part_whose_null_passes_makes_the_claim_powerless_there():
    """The exact part on settings where the EMLP is no better than the MLP: a retrained MLP is on par too."""
    blind = rc.assess(_results(), NULLS | {("inertia", "exact"): {"mlp": [0.07, 0.06, 0.075]}}, {"seeds": 3})
    assert [p.null_holds for p in blind.parts] == [True, False, False]
    assert blind.null.holds is True and blind.settings["parts the null meets too"] == ["inertia exact"]
    assert "no power" in blind.note and blind.holds is True  # every part met: the runner reads "no power"


@pytest.mark.parametrize("rpp, failing", [
    ({("inertia", "exact"): [0.5, 0.4, 0.6]}, "inertia exact"),  # far above EMLP: not on par
    ({("inertia", "approximate"): [2.9, 3.0, 3.2]}, "inertia approximate"),  # not below EMLP
    ({("inertia", "misspecified"): [5.0, 4.9, 5.2]}, "inertia misspecified"),  # MLP-level it is not
    ({("inertia", "approximate"): [math.nan, 1.5, 1.0]}, "inertia approximate")])  # one seed diverged
def test_each_failing_part_is_named(rpp, failing):
    out = rc.assess(_results(rpp), NULLS, {"seeds": 3})
    assert out.holds is False and f"not met at {failing}" in out.criterion and failing in out.note
    assert [p.name for p in out.parts if not p.holds] == [failing]


def test_models_that_do_not_beat_predicting_the_mean_leave_the_part_without_power():
    """The trivial baseline reaches every part: the better of EMLP and the MLP must sit at most ``BASELINE_MARGIN``
    times the test MSE of predicting the training mean (the quick runs: 0.75-0.8 times it)."""
    from lab.reproduce.parts import NO_POWER

    results = _results()
    for k, v in results.items():
        ref = [min(m, e) for m, e in zip(v["mlp"], v["emlp"])]
        v["baseline"] = [x / (0.8 if k == ("inertia", "approximate") else 0.1) for x in ref]
    out = rc.assess(results, NULLS, {"seeds": 3})
    exact, approximate, misspecified = out.parts
    assert approximate.baseline["beaten"] is False and approximate.baseline["mean ratio"] == pytest.approx(0.8)
    assert approximate.verdict == NO_POWER and any("trivial baseline" in r for r in approximate.reasons)
    assert exact.baseline["beaten"] and misspecified.baseline["beaten"] and exact.verdict != NO_POWER
    assert approximate.baseline["margin"] == rc.BASELINE_MARGIN and "not beaten by that margin at inertia " \
        "approximate" in out.note
    table = next(e for e in out.evidence if e["title"].startswith("The trivial baseline"))
    assert [r[:2] + r[-1:] for r in table["rows"]] == [["inertia", "exact", True], ["inertia", "approximate", False],
                                                       ["inertia", "misspecified", True]]
    json.dumps([p.to_dict() for p in out.parts], allow_nan=False)
    assert rc.assess(_results(), NULLS).parts[0].baseline is None  # a run saved without it: as before


def test_version_one_is_read_on_the_medians():
    assert rc.met("exact", rc.ON_PAR) and not rc.met("exact", rc.ON_PAR * 1.001)
    assert not rc.met("approximate", 1.0) and rc.met("approximate", 0.999)
    assert not rc.met("exact", math.nan) and not rc.met("misspecified", None)
    # one seed far off moves the interval, not the median: v2 fails the part where v1 would pass it
    out = rc.assess(_results({("inertia", "approximate"): [1.5, 1.9, 30.0]}), NULLS, {"seeds": 3})
    assert out.history[1]["holds"] is True and out.parts[1].holds is False


def test_the_measure_at_tiny_settings_gives_the_same_numbers_twice(monkeypatch):
    """The claim's own measure (the family's training, three regimes, claim and null runs) at tiny settings, twice
    with the same seed: the same parts and numbers."""
    from lab.reproduce import Profile

    monkeypatch.setattr(rc, "QUICK", {"size": 20, "test": 20, "channels": 16, "layers": 1, "epochs": 2, "seeds": 3})
    first, again = (rc.measure(Profile("quick", device="cpu")) for _ in range(2))
    assert [p.to_dict() for p in first.parts] == [p.to_dict() for p in again.parts]
    assert [p.name for p in first.parts] == ["inertia exact", "inertia approximate", "inertia misspecified"]
    for p in first.parts:
        _recheck(p)
        assert len(p.replicates) == len(p.null_replicates) == 3 and len(set(p.null_replicates)) > 1
    assert first.settings["inertia"]["epochs"] == 2 and first.settings["seeds"] == 3
    assert all(len(p.baseline["baseline MSE"]) == 3 and p.baseline["what"] == rc.BASELINE_WHAT["inertia"]
               for p in first.parts)  # predicting the mean, per seed, from the family's runs
    runs = next(e for e in first.evidence if e["kind"] == "table" and e["title"].startswith("Every run"))
    assert len(runs["rows"]) == 3 * (3 * 3 + 4)  # 3 seeds x (3 regimes x 3 models + the nulls: MLP, MLP + EMLP, EMLP)


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")  # with the other readers of the session's quick report
def test_the_quick_run(quick_report):
    """Inertia's three regimes at the quick settings (the session's one ``lab reproduce --quick`` run,
    tests/conftest.py): a part per regime, each verdict its rule on its own replicates, each null read by the same
    statistic on at least three differing draws; the verdicts themselves are not asserted."""
    _, report = quick_report
    c = next(c for c in report["claims"] if c["id"] == CID)
    assert [p["name"] for p in c["parts"]] == ["inertia exact", "inertia approximate", "inertia misspecified"]
    for p in c["parts"]:
        rule = Rule("<", p["threshold"])
        assert p["statistic"] == "rpp_over_better" and len(p["replicates"]) >= 3 and len(p["null_replicates"]) >= 3
        assert p["holds"] == rule.judge(p["replicates"])[0] and rejudge(p).separated is not p["null_holds"]
        assert all(math.isfinite(x) for x in p["null_replicates"]) and len(set(p["null_replicates"])) > 1
        assert p["threshold"] not in p["null_replicates"]
    assert c["criterion_version"] == 3 and [h["version"] for h in c["criterion_history"]] == [1, 2]
    assert c["paper_settings"].startswith("quick: inertia only")
    assert c["settings"]["approximate inertia"].startswith("the authors' code")
    boxes = c["evidence"][0]
    assert boxes["kind"] == "boxes" and all(len(v) == 3 for p in boxes["panels"].values() for v in p.values())
