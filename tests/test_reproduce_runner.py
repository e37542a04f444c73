"""The ``lab reproduce`` machinery on stand-in claims (fast): resuming, errors, stopping, the report files, the
command line's contract.  The real claims run once, at the quick settings, in ``test_reproduce.py``."""
from __future__ import annotations

import html
import json
import subprocess
import sys

import pytest

from lab.reproduce import CLAIMS, Null, Outcome, judge, load_claims, runner
from lab.reproduce.claim import CLAIM_IDS, KINDS, PAPERS, claim
from lab.cli import main

CALLS = []
FAKE = ("fake-a", "fake-b", "fake-c", "fake-d", "fake-e")


@pytest.fixture
def fake_claims(monkeypatch):
    """Three stand-in claims (the registry is restored afterwards)."""
    saved = dict(load_claims())  # every real claim registered first, so that restoring keeps them
    CALLS.clear()
    monkeypatch.setattr("lab.reproduce.claim.CLAIM_IDS", CLAIM_IDS + FAKE)
    monkeypatch.setattr("lab.reproduce.CLAIM_IDS", CLAIM_IDS + FAKE)

    @claim("fake-a", "thesis", "here", "a line", paper_value=1.0, seconds={"quick": 1}, criterion="ratio < 2",
           null="a ratio of 3")
    def a(profile):
        CALLS.append("a")
        profile.progress(0.5, "halfway")
        holds, null = judge(lambda v: v < 2, 1.0, "a ratio of 3", 3.0)
        return Outcome(measured=1.0, holds=holds, null=null, criterion="ratio < 2", settings={"k": 1}, evidence=[
            {"kind": "line", "title": "curve", "xlabel": "L", "ylabel": "ratio", "x": [1, 2, 4],
             "series": {"aug/nom": [0.5, None, 0.1]}, "logy": True},
            {"kind": "table", "title": "numbers <b>", "columns": ["x", "y"], "rows": [[1, 0.5], [2, None]]}])

    @claim("fake-b", "thesis", "there", "breaks", seconds={"quick": 1})
    def b(profile):
        CALLS.append("b")
        raise ValueError("boom\nsecond line")

    @claim("fake-c", "thesis", "elsewhere", "no verdict", seconds={"quick": 1})
    def c(profile):
        CALLS.append("c")
        return Outcome(measured={"ratio": float("nan")}, holds=None, note="a regime")

    yield "fake-a,fake-b,fake-c"
    CLAIMS.clear()  # the registry itself: the stand-ins out, every real claim as it was
    CLAIMS.update(saved)


@pytest.fixture
def power_claims(fake_claims):
    """Two more stand-ins: one whose baseline passes its criterion too, one without a null check."""

    @claim("fake-d", "thesis", "a table", "weak", seconds={"quick": 1}, kind="lab")
    def d(profile):
        holds, null = judge(lambda v: v >= 0, 1.0, "all singletons", 0.0)
        return Outcome(measured=1.0, holds=holds, null=null)

    @claim("fake-e", "thesis", "a figure", "unchecked", seconds={"quick": 1})
    def e(profile):
        return Outcome(measured=1.0, holds=True)

    return "fake-a,fake-d,fake-e"  # fake_claims, which this fixture uses, puts the registry back


def test_every_declared_id_has_a_claim():
    assert list(load_claims()) == list(CLAIM_IDS)
    assert len(CLAIM_IDS) == 38
    assert CLAIM_IDS[-3:] == ("dyn-converse-counterexample", "msr-benefit-grows-with-complexity",
                              "thesis-krylov-scaling")  # appended
    assert CLAIM_IDS[:15] == (  # the ids of the first report stay, in their order (a contract)
        "dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom",
        "dyn-rot-aug-near-nom", "dyn-relative-dimensions", "dyn-e2-ordering", "share-conv-exact",
        "share-gaussian-gap-bound", "share-gaussian-pd", "share-sum", "share-group", "msr-sparsity-few-tasks",
        "msr-sparser-U", "ranks-thesis")


def test_every_claim_declares_its_criterion_and_the_baseline_it_must_fail():
    for c in load_claims().values():
        assert len(c.criterion) > 20 and len(c.null) > 5, c.id
        assert c.kind in KINDS and c.paper in PAPERS, c.id
    kinds = {c.id: c.kind for c in load_claims().values()}
    assert kinds["dyn-penalty-hypothesis"] == "hypothesis" and kinds["share-group"] == "lab"


def test_run_writes_report_and_resumes(fake_claims, tmp_path):
    records = []
    report = runner.run(fake_claims, out=tmp_path, progress=records.append)
    assert [r.id for r in report.results] == ["fake-a", "fake-b", "fake-c"]
    a, b, c = report.results
    assert a.holds is True and a.status == "finished" and not a.resumed
    assert b.status == "error" and b.note == "error: unexpected ValueError: boom"  # one line, run went on
    assert c.holds is None and CALLS == ["a", "b", "c"]
    assert report.counts() == {"holds": 1, "does not hold": 0, "not shown": 0, "no power at these settings": 0,
                               "no null check": 0, "no pass/fail form": 1, "error": 1}
    assert a.null == {"baseline": "a ratio of 3", "measured": 3.0, "holds": False} and a.null_holds is False
    assert a.criterion == "ratio < 2" and a.verdict == "holds"
    # progress: weighted, monotone, ending at the total, the claim named in the message
    done = [r["done"] + r.get("partial", 0) for r in records]
    assert done == sorted(done) and records[-1]["done"] == records[-1]["total"] == 30
    assert any("fake-a: halfway" in r["message"] for r in records)
    # the report files: strict JSON with the evidence, HTML with every claim, a figure and an escaped table
    data = json.loads((tmp_path / "report.json").read_text())
    assert [x["id"] for x in data["claims"]] == ["fake-a", "fake-b", "fake-c"]
    assert data["claims"][2]["measured"]["ratio"] is None and "NaN" in data["claims"][2]["measured"]["ratio_reason"]
    page = (tmp_path / "report.html").read_text()
    assert all(f"id='fake-{x}'" in page for x in "abc")
    assert page.count("data:image/png;base64,") == 1 and "numbers &lt;b&gt;" in page
    # a second run keeps the finished claims and measures the failed one again
    again = runner.run(fake_claims, out=tmp_path)
    assert [r.resumed for r in again.results] == [True, False, True]
    assert CALLS == ["a", "b", "c", "b"]
    assert again.results[0].measured == 1.0 and again.results[0].evidence[0]["series"]["aug/nom"][1] is None
    # --fresh measures everything again; another profile never reuses these files
    runner.run(fake_claims, out=tmp_path, fresh=True)
    assert CALLS[4:] == ["a", "b", "c"]


def test_a_claim_file_of_another_profile_or_damaged_is_measured_again(fake_claims, tmp_path):
    runner.run("fake-a", out=tmp_path)
    path = tmp_path / "claims" / "fake-a.json"
    d = json.loads(path.read_text())
    path.write_text(json.dumps(dict(d, profile="full")))
    runner.run("fake-a", out=tmp_path)
    path.write_text("{ not json")
    runner.run("fake-a", out=tmp_path)
    assert CALLS == ["a", "a", "a"]


def test_stop_writes_the_claims_that_finished(fake_claims, tmp_path):
    from lab.control import Control

    control = Control()
    original = CLAIMS["fake-a"].measure

    def stop_after(profile):
        out = original(profile)
        control.stop()
        return out

    monkey = CLAIMS["fake-a"].__class__(**{**CLAIMS["fake-a"].__dict__, "measure": stop_after})
    CLAIMS["fake-a"] = monkey
    report = runner.run(fake_claims, out=tmp_path, control=control)
    assert report.status == "stopped" and [r.id for r in report.results] == ["fake-a"]
    assert json.loads((tmp_path / "report.json").read_text())["status"] == "stopped"
    assert "was stopped" in (tmp_path / "report.html").read_text()


def test_cli_json_contract(fake_claims, tmp_path, capsys):
    assert main(["reproduce", "--only", fake_claims, "--out", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["report"] == str(tmp_path / "report.html")
    for c in out["claims"]:
        assert {"id", "paper", "where", "claim", "paper_value", "measured", "holds", "settings",
                "seconds"} <= set(c)
    assert [c["holds"] for c in out["claims"]] == [True, None, None]
    # added keys (issue 25): criterion, null_holds, accuracy, verdict
    assert [c["null_holds"] for c in out["claims"]] == [False, None, None]
    assert [c["verdict"] for c in out["claims"]] == ["holds", "error", "no pass/fail form"]
    assert out["claims"][0]["criterion"] == "ratio < 2" and "accuracy" in out["claims"][0]


def test_a_claim_whose_baseline_passes_has_no_power_and_never_holds(power_claims, tmp_path):
    report = runner.run(power_claims, out=tmp_path)
    a, d, e = report.results
    assert (a.verdict, a.holds) == ("holds", True)
    assert (d.verdict, d.holds, d.criterion_met, d.null_holds) == ("no power at these settings", None, True, True)
    assert (e.verdict, e.holds) == ("no null check", None)
    assert d.kind == "lab"
    page = (tmp_path / "report.html").read_text()
    assert "no power at these settings" in page and "passes too: no power" in page
    assert html.escape(KINDS["lab"]) in page  # the lab's own check is labelled as such
    counts = json.loads((tmp_path / "report.json").read_text())["counts"]
    assert counts["holds"] == 1 and counts["no power at these settings"] == 1 and counts["no null check"] == 1


def test_judge_applies_one_criterion_to_both():
    holds, null = judge(lambda pd: pd == 0, 0, "all singletons", 4)
    assert holds is True and null == Null("all singletons", 4, False)
    holds, null = judge(lambda pd: pd == 0, 1, "random partition", 0)
    assert holds is False and null.holds is True


def test_shared_runs_are_timed_apart_from_the_claim_that_asked_first(fake_claims, tmp_path, monkeypatch):
    """A memo build's seconds go to the shared run, not to the claim that happened to ask first (fake clock)."""
    import lab.reproduce.claim as claim_module
    import lab.reproduce.runner as runner_module

    clock = [0.0]

    class FakeTime:
        @staticmethod
        def perf_counter():
            return clock[0]

        strftime = staticmethod(__import__("time").strftime)

    monkeypatch.setattr(claim_module, "time", FakeTime)
    monkeypatch.setattr(runner_module, "time", FakeTime)

    def shared_run():
        clock[0] += 100.0  # the expensive shared training
        return 42

    def first(profile):
        clock[0] += 2.0
        assert profile.memo(("train", 1), shared_run, label="the shared training") == 42
        return Outcome(measured=1.0, holds=True, null=Null("x", 0, False))

    def second(profile):
        clock[0] += 3.0
        assert profile.memo(("train", 1), shared_run) == 42  # built once
        return Outcome(measured=1.0, holds=True, null=Null("x", 0, False))

    for cid, fn in (("fake-a", first), ("fake-c", second)):
        CLAIMS[cid] = CLAIMS[cid].__class__(**{**CLAIMS[cid].__dict__, "measure": fn})
    report = runner.run("fake-a,fake-c", out=tmp_path, run_id="run-1")
    a, c = report.results
    assert a.seconds == 2.0 and c.seconds == 3.0 and a.share_seconds == c.share_seconds == 50.0
    assert report.shared["the shared training"] == {"seconds": 100.0, "built_by": "fake-a",
                                                    "used_by": ["fake-a", "fake-c"]}
    assert a.shared == c.shared == [{"run": "the shared training", "seconds": 100.0, "built_by": "fake-a"}]
    assert "the shared training" in (tmp_path / "report.html").read_text()
    # read back from their files (a resumed run, or groups measured by other processes): the same shared run
    again = runner.run("fake-a,fake-c", out=tmp_path)
    assert all(r.resumed for r in again.results) and {r.provenance for r in again.results} == {"kept"}
    assert again.shared == report.shared
    # read back by the run that measured them (a run's worker processes wrote the files): measured, shares kept
    ticks = clock[0]
    same = runner.run("fake-a,fake-c", out=tmp_path, run_id="run-1")
    assert {r.provenance for r in same.results} == {"measured"} and clock[0] == ticks  # read, not measured again
    assert [r.share_seconds for r in same.results] == [50.0, 50.0]


def test_claims_are_grouped_by_the_runs_they_share():
    """``--workers``/``--scheduler`` measure each group in one process: a module that reads another's shared runs
    (dynamics_theory reads the dynamics Perm/Trans/Rot trainings) is in that module's group, the largest groups
    go first."""
    from lab.reproduce.cluster import expected_seconds, groups

    parts = groups(CLAIM_IDS)  # the papers' claims (another test's stand-ins may still be registered)
    assert sorted(i for g in parts for i in g) == sorted(CLAIM_IDS)
    dyn = next(g for g in parts if "dyn-perm-aug-vs-nom" in g)
    assert {"dyn-equi-in-E", "dyn-aug-leaves-E", "dyn-converse-counterexample"} <= set(dyn)
    assert not any("dyn-equi-in-E" in g for g in parts if g is not dyn)
    assert expected_seconds(dyn, "quick") == sum(expected_seconds([i], "quick") for i in dyn) > 0


@pytest.mark.parametrize("argv, text", [
    (["reproduce", "--only", "no-such-claim"], "unknown claim id 'no-such-claim'"),
    (["reproduce", "--quick", "--full"], "not allowed with argument"),
    (["reproduce", "--device", "tpu"], "unknown device"),
    (["reproduce", "--dtype", "float16"], "invalid choice"),
    (["reproduce", "--workers", "0"], "auto or a whole number from 1 to 64"),
])
def test_cli_refuses_bad_requests_with_one_line(argv, text, tmp_path, capsys):
    argv = argv + ["--out", str(tmp_path)]
    if "--quick" in argv or "--dtype" in argv or "--workers" in argv:  # argparse refuses these itself (exit 2)
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        code = exit_info.value.code
    else:
        code = main(argv)
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert text in err and len(err.splitlines()) == 1


def test_data_must_be_a_directory(tmp_path, capsys):
    assert main(["reproduce", "--only", "ranks-thesis", "--data", str(tmp_path / "missing"),
                 "--out", str(tmp_path)]) == 2
    assert "not a directory" in capsys.readouterr().err


def test_listing_claims_does_not_import_torch():
    code = ("import sys; from lab.cli import main; main(['reproduce', '--list']); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.splitlines()) == len(CLAIM_IDS) and "ranks-thesis" in out.stdout


def test_ranks_claim_checks_independent_values():
    from lab.basis import claims as ranks

    # the independent sources themselves, against known sequences
    assert [ranks.set_partitions(k, 10) for k in range(1, 7)] == [1, 2, 5, 15, 52, 203]  # Bell numbers
    assert [ranks.weyl_rank("SO(3)", k) for k in range(0, 9)] == [1, 0, 1, 1, 3, 6, 15, 36, 91]  # Riordan
    assert [ranks.weyl_rank("SO(2)", k) for k in range(0, 7)] == [1, 0, 2, 0, 6, 0, 20]  # central binomials
    assert [ranks.pairings(k) for k in range(1, 7)] == [0, 1, 0, 3, 0, 15]
    assert ranks.set_partitions(4, 3) == 14  # 15 set partitions of 4 minus the one with 4 blocks
