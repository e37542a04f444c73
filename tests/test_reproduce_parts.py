"""Claims judged part by part on replicates, and criteria registered with versions (issue 46), on stand-in claims
(fast): a claim holds only when every part is met and every part's null fails; a part whose null passes makes the
claim "no power at these settings"; a criterion changed without a new version is caught; the report shows every
version with this run's verdict under it."""
from __future__ import annotations

import json

import pytest

from lab.reproduce import CLAIMS, Outcome, load_claims, runner
from lab.reproduce.claim import CLAIM_IDS, Criterion, Part, claim, part
from lab.reproduce.criteria import declared, problems, register
from lab.reproduce.stats import Rule, interval

FAKE = ("fake-holds", "fake-no-power", "fake-fails", "fake-versions")

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
        return outcome([0.3, 0.35, 0.4], [0.0, 0.02, -0.01], [False, True, False])

    @claim("fake-no-power", "thesis", "here", "no power", seconds={"quick": 1}, criterion="gap above 0.1 and ordered",
           null="a reseeded twin; the untrained model")
    def no_power(profile):  # part (b)'s null meets part (b): the claim cannot be told from it
        return outcome([0.3, 0.35, 0.4], [0.0, 0.02, -0.01], [True, True, True])

    @claim("fake-fails", "thesis", "here", "fails", seconds={"quick": 1}, criterion="gap above 0.1 and ordered",
           null="a reseeded twin; the untrained model")
    def fails(profile):  # part (a)'s interval reaches below 0.1; part (b)'s null passes too
        return outcome([0.05, 0.3, 0.4], [0.0, 0.02, -0.01], [True, True, True])

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
    report = runner.run(",".join(FAKE[:3]), out=tmp_path)
    ok, weak, bad = report.results
    assert (ok.verdict, ok.holds) == ("holds", True)
    assert (weak.verdict, weak.holds, weak.criterion_met) == ("no power at these settings", None, True)
    assert (bad.verdict, bad.holds) == ("does not hold", False)
    a, b = ok.parts
    assert a["holds"] is True and a["null_holds"] is False and b["null_holds"] is False
    assert a["statistic"] == "_gap" and a["op"] == ">" and a["threshold"] == 0.1
    assert a["interval"][0] > 0.1 and a["null_interval"][1] < 0.1
    assert weak.parts[1]["null_holds"] is True and weak.parts[1]["null_measured"] == "3 of 3"
    assert bad.parts[0]["holds"] is False and bad.parts[0]["interval"][0] <= 0.1
    assert ok.replicates == {"claim": 3, "null": 3}
    assert set(ok.interval) == {"(a) gap above 0.1"} and ok.interval["(a) gap above 0.1"]["level"] == 0.95
    assert ok.paper_settings == "three seeds against the paper's ten" and ok.criterion_version == 1
    data = json.loads((tmp_path / "report.json").read_text())
    keys = {"parts", "replicates", "interval", "criterion_version", "criterion_history", "paper_settings"}
    assert all(keys <= set(c) for c in data["claims"])
    for c in data["claims"]:
        assert {"name", "holds", "null_holds"} <= set(c["parts"][0])
    page = (tmp_path / "report.html").read_text()
    assert "met, null met too" in page and "three seeds against the paper&#x27;s ten" in page
    assert data["counts_by_kind"]["claim"]["no power at these settings"] == 1


def test_the_report_shows_every_criterion_version_with_this_runs_verdict(stand_ins, tmp_path):
    (result,) = runner.run("fake-versions", out=tmp_path).results
    assert result.criterion_version == 2 and result.criterion.startswith("the gap's 95 %")
    (v1,) = result.criterion_history
    assert v1["version"] == 1 and v1["criterion"] == "the mean gap above 0.1 on one seed"
    assert v1["verdict"] == "does not hold" and v1["why"] == "version 1 read on the first seed"
    assert result.verdict == "does not hold"  # version 2: the interval over 0.05, 0.2, 0.3 reaches below 0.1
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
    assert problems(path, now=changed) == ["fake-versions v1: changed after it was registered (declare version 3 "
                                           "with its reason instead)"]
    # a new version is simply not registered yet, and registering adds it without touching the old ones
    grown = json.loads(json.dumps(now))
    grown["fake-versions"]["3"] = {"fingerprint": "abc", "date": "2026-11-28", "reason": "r"}
    assert problems(path, now=grown) == ["fake-versions v3: not registered (python -m lab.reproduce.criteria "
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
    values = [0.05, 0.3, 0.4]  # mean 0.25, well above 0.1, but one draw below
    lo, hi = interval(values)
    assert lo < 0.1 < 0.25 < hi and interval(values) == (lo, hi)  # the same values, the same interval
    assert Rule(">", 0.1).judge(values) == (False, (lo, hi))
    assert Rule("<", 0.5).judge(values)[0] is True and Rule("<", 0.35).judge(values)[0] is False
    assert Rule(">", 0.0).judge([float("nan"), 1.0, 2.0])[0] is False
    with pytest.raises(ValueError):
        Rule(">")


def test_part_reads_one_statistic_on_both():
    seen = []

    def reading(draw):
        seen.append(draw)
        return draw * 2.0

    p = part("doubled", reading, [1, 2, 3], [4, 5, 6], Rule(">", 1.0), "other draws")
    assert seen == [1, 2, 3, 4, 5, 6] and p.replicates == [2.0, 4.0, 6.0] and p.null_replicates == [8.0, 10.0, 12.0]
    assert p.statistic == "reading" and p.null_holds is True
    assert Part.from_dict(p.to_dict()) == p
