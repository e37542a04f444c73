"""Claims judged part by part on replicates, and criteria registered with versions (issues 46 and 62), on stand-in
claims (fast): a claim holds only when every part clears its threshold and is separated from its null; a part whose
null cannot be told from the claim makes the claim "no power at these settings"; an interval straddling the threshold
is "not shown"; a criterion changed without a new version is caught; the report shows every version with this run's
verdict under it (the version before the statistics layer 2 judged by layer 1 on the same draws)."""
from __future__ import annotations

import json

import pytest

from lab.reproduce import CLAIMS, Outcome, load_claims, runner
from lab.reproduce.claim import CLAIM_IDS, Criterion, Part, claim
from lab.reproduce.criteria import declared, problems, register
from lab.reproduce.stats import Rule, part, t_interval

FAKE = ("fake-holds", "fake-no-power", "fake-fails", "fake-not-shown", "fake-versions")

SEEDS = [0, 1, 2]


def _gap(draw):
    """A stand-in statistic: what a seed's run reads (the claim's and the null's draws go through it alike)."""
    return draw["gap"]


@pytest.fixture
def stand_ins(monkeypatch):
    saved = dict(load_claims())
    monkeypatch.setattr("lab.reproduce.claim.CLAIM_IDS", CLAIM_IDS + FAKE)
    monkeypatch.setattr("lab.reproduce.CLAIM_IDS", CLAIM_IDS + FAKE)

    def outcome(claim_gaps, null_gaps, second_null_gaps):
        parts = [part("(a) gap above 0.1", _gap, [{"gap": g} for g in claim_gaps],
                      [{"gap": g} for g in null_gaps], Rule(">", 0.1), "a reseeded twin"),
                 part("(b) ordering met", bool, [True, True, True], second_null_gaps, Rule("all"),
                      "the untrained model")]
        return Outcome(measured={"gap": sum(claim_gaps) / 3}, parts=parts, settings={"seeds": SEEDS})

    @claim("fake-holds", "thesis", "here", "holds", seconds={"quick": 1}, criterion="gap above 0.1 and ordered",
           null="a reseeded twin; the untrained model", paper_settings="three seeds against the paper's ten")
    def holds(profile):
        return outcome([0.3, 0.35, 0.4], [0.0, 0.02, -0.01], [False, False, False])

    @claim("fake-no-power", "thesis", "here", "no power", seconds={"quick": 1}, criterion="gap above 0.1 and ordered",
           null="a reseeded twin; the untrained model")
    def no_power(profile):  # part (b)'s null meets part (b): the claim cannot be told from it
        return outcome([0.3, 0.35, 0.4], [0.0, 0.02, -0.01], [True, True, True])

    @claim("fake-fails", "thesis", "here", "fails", seconds={"quick": 1}, criterion="gap above 0.1 and ordered",
           null="a reseeded twin; the untrained model")
    def fails(profile):  # part (a)'s interval lies wholly below 0.1, and the claim is told from its null
        return outcome([0.02, 0.05, 0.04], [-0.2, -0.25, -0.3], [False, False, False])

    @claim("fake-not-shown", "thesis", "here", "not shown", seconds={"quick": 1},
           criterion="gap above 0.1 and ordered", null="a reseeded twin; the untrained model")
    def not_shown(profile):  # part (a)'s interval straddles 0.1; the claim is told from its null
        return outcome([0.08, 0.12, 0.13], [0.0, 0.02, -0.01], [False, False, False])

    @claim("fake-versions", "thesis", "here", "versions", seconds={"quick": 1},
           criteria=(Criterion(1, "the mean gap above 0.1 on one seed", "2026-11-01"),
                     Criterion(2, "the gap's 95 % interval above 0.1 over three seeds", "2026-11-27",
                               reason="one seed is one draw", thresholds=(("GAP", 0.1),),
                               parts=("(a) gap above 0.1",))),
           null="a reseeded twin")
    def versions(profile):
        p = part("(a) gap above 0.1", _gap, [{"gap": g} for g in (0.05, 0.2, 0.3)],
                 [{"gap": g} for g in (0.0, 0.01, 0.02)], Rule(">", 0.1), "a reseeded twin")
        return Outcome(measured={"gap": 0.183}, parts=[p],
                       history={1: {"holds": 0.05 > 0.1, "null_holds": 0.0 > 0.1, "measured": {"gap": 0.05},
                                    "why": "version 1 read on the first seed"}})

    yield
    CLAIMS.clear()
    CLAIMS.update(saved)


def test_every_part_decides_the_verdict(stand_ins, tmp_path):
    report = runner.run(",".join(FAKE[:4]), out=tmp_path)
    ok, weak, bad, unsure = report.results
    assert (ok.verdict, ok.holds) == ("holds", True)
    assert (weak.verdict, weak.holds, weak.criterion_met) == ("no power at these settings", None, True)
    assert (bad.verdict, bad.holds) == ("does not hold", False)
    assert (unsure.verdict, unsure.holds) == ("not shown", None)
    a, b = ok.parts
    assert a["holds"] is True and a["null_holds"] is False and b["null_holds"] is False
    assert a["statistic"] == "_gap" and a["op"] == ">" and a["threshold"] == 0.1
    assert a["interval"][0] > 0.1 and a["difference"][0] > 0 and a["verdict"] == "holds"
    assert weak.parts[1]["null_holds"] is True and weak.parts[1]["null_measured"] == "3 of 3"
    assert weak.parts[1]["verdict"] == "no power at these settings" and "not separated" in weak.reasons[0]
    assert bad.parts[0]["holds"] is False and bad.parts[0]["interval"][1] < 0.1
    assert bad.parts[0]["state"] == "wrong side"
    assert unsure.parts[0]["interval"][0] < 0.1 < unsure.parts[0]["interval"][1]
    assert ok.replicates == {"claim": 3, "null": 3}
    iv = ok.interval["(a) gap above 0.1"]
    assert set(ok.interval) == {"(a) gap above 0.1"} and iv["level"] == 0.95
    assert iv["method"] == "95 % t-interval of the mean (n = 3, 2 df)" and iv["difference_method"].startswith("95 %")
    assert ok.paper_settings == "three seeds against the paper's ten" and ok.criterion_version == 2
    assert ok.stats_layer == 2 and ok.provenance == "measured" and ok.public()["provenance"] == "measured"
    data = json.loads((tmp_path / "report.json").read_text())
    keys = {"parts", "replicates", "interval", "criterion_version", "criterion_history", "paper_settings"}
    assert all(keys <= set(c) for c in data["claims"])
    for c in data["claims"]:
        assert {"name", "holds", "null_holds"} <= set(c["parts"][0])
    page = (tmp_path / "report.html").read_text()
    assert "t-interval of the mean (n = 3, 2 df)" in page and "three seeds against the paper&#x27;s ten" in page
    assert "95 % interval" not in page and "range" not in page.split("<h2")[0]
    assert data["counts_by_kind"]["claim"] == {"holds": 1, "does not hold": 1, "not shown": 1,
                                               "no power at these settings": 1, "no null check": 0,
                                               "no pass/fail form": 0, "error": 0}
    assert data["provenance"] == {"measured": 4, "kept": 0} and data["interval_method"]["layer"] == 2
    assert data["draws"]["parts_by_draws"] == {"3": 8}


def test_the_report_shows_every_criterion_version_with_this_runs_verdict(stand_ins, tmp_path):
    (result,) = runner.run("fake-versions", out=tmp_path).results
    assert result.criterion_version == 3 and result.criterion.startswith("the gap's 95 %")
    v1, v2 = result.criterion_history
    assert v1["version"] == 1 and v1["criterion"] == "the mean gap above 0.1 on one seed"
    assert v1["verdict"] == "does not hold" and v1["why"] == "version 1 read on the first seed"
    # version 2 is version 3 judged by statistics layer 1: the bootstrap of 0.05, 0.2, 0.3 reaches 0.05 < 0.1
    assert v2["layer"] == 1 and v2["verdict"] == "does not hold" and "statistics layer 1" in v2["why"]
    # version 3 (layer 2): the t-interval straddles 0.1 and the claim - null interval reaches zero: no power
    assert result.verdict == "no power at these settings" and result.criterion_registered["reason"].startswith(
        "statistics layer 2")
    page = (tmp_path / "report.html").read_text()
    assert "the mean gap above 0.1 on one seed" in page and "the gap&#x27;s 95 % interval above 0.1" in page
    assert "one seed is one draw" in page and "2026-11-27" in page


def test_a_criterion_changed_without_a_new_version_is_caught(stand_ins, tmp_path):
    path = tmp_path / "criteria.json"
    register(path)
    assert problems(path) == []
    now = declared()
    changed = json.loads(json.dumps(now))
    v1 = Criterion(1, "the mean gap above 0.2 on one seed", "2026-11-01")  # the threshold moved, same version
    changed["fake-versions"]["1"]["fingerprint"] = v1.fingerprint()
    assert problems(path, now=changed) == ["fake-versions v1: changed after it was registered (declare version 4 "
                                           "with its reason instead)"]
    # a new version is simply not registered yet, and registering adds it without touching the old ones
    grown = json.loads(json.dumps(now))
    grown["fake-versions"]["4"] = {"fingerprint": "abc", "date": "2026-11-28", "reason": "r"}
    assert problems(path, now=grown) == ["fake-versions v4: not registered (python -m lab.reproduce.criteria "
                                         "--register)"]
    dropped = json.loads(json.dumps(now))
    del dropped["fake-versions"]["1"]
    assert problems(path, now=dropped)[0].startswith("fake-versions v1: registered but no longer declared")


def test_every_declared_criterion_matches_the_register():
    """``lab/reproduce/criteria.json`` is the register: every claim's every version as first registered."""
    assert problems() == []
    for c in load_claims().values():
        assert [v.version for v in c.criteria] == list(range(1, len(c.criteria) + 1)), c.id
        assert c.criterion == c.criteria[-1].text, c.id
        for v in c.criteria[1:]:
            assert v.reason and v.date >= c.criteria[0].date, (c.id, v.version)


def test_a_criterion_version_changes_its_fingerprint():
    base = Criterion(1, "x above 0.1", "2026-11-25", thresholds=(("X", 0.1),), parts=("(a)",))
    assert base.fingerprint() == Criterion(1, "x above 0.1", "2026-11-30", reason="r",
                                           thresholds=(("X", 0.1),), parts=("(a)",)).fingerprint()
    for other in (Criterion(1, "x above 0.2", "2026-11-25", thresholds=(("X", 0.1),), parts=("(a)",)),
                  Criterion(1, "x above 0.1", "2026-11-25", thresholds=(("X", 0.2),), parts=("(a)",)),
                  Criterion(1, "x above 0.1", "2026-11-25", thresholds=(("X", 0.1),), parts=("(b)",))):
        assert other.fingerprint() != base.fingerprint()


def test_rules_judge_the_interval_not_the_point():
    values = [0.25, 0.3, 0.35]  # mean 0.3, well above 0.1; the t-interval on 2 df is [0.176, 0.424]
    iv = t_interval(values)
    lo, hi = iv.low, iv.high
    assert 0.1 < lo < 0.3 < hi < 0.5 and t_interval(values) == iv  # the same values, the same interval
    assert Rule(">", 0.1).judge(values) == (True, (lo, hi)) and Rule(">", 0.2).judge(values)[0] is False
    assert Rule("<", 0.5).judge(values)[0] is True and Rule("<", 0.4).judge(values)[0] is False
    assert Rule(">", 0.0).judge([float("nan"), 1.0])[0] is False  # one valid draw: no interval
    with pytest.raises(ValueError):
        Rule(">")


def test_part_reads_one_statistic_on_both():
    seen = []

    def reading(draw):
        seen.append(draw)
        return draw * 2.0

    p = part("doubled", reading, [1, 2, 3], [4, 5, 6], Rule(">", 1.0), "other draws")
    assert seen == [1, 2, 3, 4, 5, 6] and p.replicates == [2.0, 4.0, 6.0] and p.null_replicates == [8.0, 10.0, 12.0]
    # the claim's interval [-0.97, 8.97] straddles 1; the null reads 6 higher at every draw: told apart, not shown
    assert p.statistic == "reading" and p.null_holds is False and p.verdict == "not shown"
    assert Part.from_dict(p.to_dict()) == p
