"""The thesis's Figure 2.5 claim (``emlp-data-efficiency``): registered with both criterion versions, one part per
(task, size) cell judged on an interval over seeds against a reseeded best baseline read by the same statistic
(made-up numbers, no training), and the quick run's mechanics: every cell it runs judged, each part's verdict
following its rule on its replicates, the null read by the same statistic (never a verdict asserted)."""
from __future__ import annotations

import json
import math

import pytest

from lab.emlp import claims as emlp
from lab.reproduce.claim import layer_text
from lab.reproduce.parts import parts_verdict
from lab.reproduce.stats import Rule, rejudge

CID = "emlp-data-efficiency"


def _rows(table: dict) -> list:
    """Result rows from {(task, n): {role: [test MSE per seed]}} (seeds 0, 1, 2, ...)."""
    out = []
    for (task, n), by_role in table.items():
        for role, values in by_role.items():
            for seed, v in enumerate(values):
                out.append({"task": task, "size": n, "seed": seed, "role": role, "test_mse": v,
                            "weight_seed": seed + (emlp.NULL_SEED_OFFSET if role == "null" else 0)})
    return out


#: made-up test MSEs shaped like the quick runs: EMLP an order of magnitude below both baselines on O(5), a little
#: below on scattering at N = 100, and at N = 30 below on two seeds of three
TABLE = {("o5", 30): {"mlp": [26.0, 27.0, 25.0], "mlp-aug": [2.0, 2.5, 1.8], "emlp": [0.1, 0.12, 0.09],
                      "null": [2.1, 2.4, 2.2]},
         ("o5", 100): {"mlp": [3.3, 3.0, 3.6], "mlp-aug": [0.8, 0.6, 0.9], "emlp": [0.06, 0.07, 0.05],
                       "null": [0.7, 0.8, 0.85]},
         ("scattering", 30): {"mlp": [1.0, 1.1, 0.9], "mlp-aug": [0.8, 0.9, 0.7], "emlp": [0.5, 1.2, 0.6],
                              "null": [0.81, 0.85, 0.72]},
         ("scattering", 100): {"mlp": [0.7, 0.6, 0.8], "mlp-aug": [0.5, 0.45, 0.55], "emlp": [0.3, 0.3, 0.3],
                               "null": [0.52, 0.44, 0.56]}}


def test_the_claim_is_registered_with_both_versions(capsys):
    from lab.cli import main
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims
    from lab.reproduce.claim import FIRST_REGISTERED

    assert "lab.emlp.claims" in CLAIM_MODULES and CID in CLAIM_IDS
    c = load_claims()[CID]
    assert (c.paper, c.kind, c.where) == ("thesis", "claim", "§2.7.1, Figure 2.5")
    assert "orders of magnitude" in c.claim and c.criterion == layer_text(emlp.CRITERION) and c.null == emlp.NULL
    v1, v2, v3 = c.criteria
    assert v3.layer == 2 and v2.text == emlp.CRITERION
    assert (v1.version, v1.text, v1.date, v1.thresholds, v1.parts) == (1, emlp.CRITERION_V1, FIRST_REGISTERED, (),
                                                                       ())
    assert v2.version == 2 and v2.reason and v2.thresholds == (("log10_ratio_above", 0.0),)
    assert c.seconds["quick"] < 60 and c.paper_settings
    main(["reproduce", "--list"])
    assert any(line.startswith(CID) and "Figure 2.5" in line for line in capsys.readouterr().out.splitlines())


def test_the_profiles():
    from lab.reproduce import Profile

    quick, full = emlp.plan(Profile("quick")), emlp.plan(Profile("full"))
    # quick: at least two tasks at two sizes, every model on 3 seeds (Profile.seeds)
    assert len(quick["tasks"]) >= 2 and len(quick["sizes"]) >= 2 and quick["scale"] == "quick"
    assert Profile("quick").seeds() == [0, 1, 2]
    # the thesis's: three tasks, the reference code's sizes 30 ... 30000 (21 cells), its training
    assert full["tasks"] == ("o5", "inertia", "scattering") and full["scale"] == "paper"
    assert full["sizes"] == (30, 100, 300, 1000, 3000, 10000, 30000) and emlp.PAPER_CELLS == 21
    paper = emlp.schedule_of(full)
    assert (paper.channels, paper.epochs(30), paper.epochs(30000), emlp.n_test_points(full)) == (384, 1000, 30, 5000)
    short = emlp.schedule_of(quick)
    assert short.epochs(30) == short.epochs(100) == quick["epochs"] and short.lr == paper.lr
    assert "21" in emlp.paper_settings_of(quick, 3) and "the thesis" in emlp.paper_settings_of(quick, 3)


def test_the_statistic():
    assert emlp.ratio(0.5, 2.0, 1.0) == 2.0  # the best baseline is MLP-Aug
    assert emlp.log_ratio({"tested": 0.5, "mlp": 2.0, "mlp-aug": 1.0}) == pytest.approx(math.log10(2))
    assert emlp.log_ratio({"tested": 1.5, "mlp": 2.0, "mlp-aug": 1.0}) == pytest.approx(math.log10(2 / 3))
    # diverged models: clamped, finite (the interval can read them)
    assert emlp.log_ratio({"tested": math.nan, "mlp": 2.0, "mlp-aug": 1.0}) == -emlp.CAP
    assert emlp.log_ratio({"tested": 0.5, "mlp": None, "mlp-aug": math.inf}) == emlp.CAP
    assert emlp.log_ratio({"tested": math.nan, "mlp": math.nan, "mlp-aug": None}) == -emlp.CAP


def test_every_cell_is_a_part_judged_on_its_seeds():
    out = emlp.assess(_rows(TABLE), {"seeds": [0, 1, 2]})
    json.dumps([out.measured, out.settings, out.evidence, [p.to_dict() for p in out.parts], out.history],
               allow_nan=False)
    names = [p.name for p in out.parts]
    assert names == [emlp.part_name(t, n) for t, n in TABLE]
    assert out.measured["cells judged"] == 4 and out.measured["cells of Figure 2.5"] == 21
    for p, (cell, by_role) in zip(out.parts, TABLE.items()):
        best = [min(a, b) for a, b in zip(by_role["mlp"], by_role["mlp-aug"])]
        assert p.replicates == pytest.approx([math.log10(b / e) for b, e in zip(best, by_role["emlp"])])
        assert p.null_replicates == pytest.approx([math.log10(b / e) for b, e in zip(best, by_role["null"])])
        assert p.statistic == "log_ratio" and p.threshold == 0.0
        assert (p.holds, tuple(p.interval)) == (lambda r: (r[0], tuple(r[1])))(Rule(">", 0.0).judge(p.replicates))
    o5_30, o5_100, sc_30, sc_100 = out.parts
    assert o5_30.holds and o5_100.holds and sc_100.holds and not sc_30.holds  # one seed of three loses
    # scattering N=30 straddles 0 and its reseeded null reads as much: not separated, so no power (not refuted)
    assert [p.null_holds for p in out.parts] == [False, False, True, False]
    assert [p.verdict for p in out.parts] == ["holds", "holds", "no power at these settings", "holds"]
    assert out.holds is False and parts_verdict(out.parts) == "no power at these settings"
    assert out.criterion.endswith("met at 3, not met at scattering N=30") and out.measured["cells met"] == 3
    assert out.note.startswith("4 of Figure 2.5's 21 (task, size) cells judged, each on 3 seeds")
    # version 1, read on this run's seed means: scattering N=30's mean EMLP (0.767) is below both means (0.8)
    v1 = out.history[1]
    assert v1["holds"] is True and v1["null_holds"] is None and "version 1" in v1["why"]
    assert out.replicates == {"what": "seeds 0, 1, 2 (null: the same data, weight seeds + 1000)", "claim": 3,
                              "null": 3}


def test_a_null_as_good_as_emlp_has_no_power():
    table = {cell: dict(by_role) for cell, by_role in TABLE.items() if cell[0] == "o5"}
    table[("o5", 100)]["null"] = list(table[("o5", 100)]["emlp"])  # a reseeded baseline as good as EMLP
    out = emlp.assess(_rows(table))
    assert out.holds is True and out.parts[1].null_holds is True and out.null.holds is True
    assert parts_verdict(out.parts) == "no power at these settings"
    assert "the null is not separated from the claim at o5 N=100" in out.note


def test_baselines_at_the_level_of_predicting_the_mean_leave_the_cell_without_power():
    """Quick scattering's shape: MLP and MLP-Aug at the test MSE of predicting the training mean, EMLP below both:
    the cell says only that EMLP beats the mean, so it has no power; O(5)'s baselines beat it by the margin."""
    from lab.reproduce.parts import NO_POWER

    means = {"o5": 40.0, "scattering": 0.8}
    rows = [dict(r, mean_mse=means[r["task"]]) for r in _rows(TABLE)]
    out = emlp.assess(rows, {"seeds": [0, 1, 2]})
    by_cell = {p.name.split(":")[0]: p for p in out.parts}
    for cell in ("scattering N=30", "scattering N=100"):
        p = by_cell[cell]
        assert p.baseline["beaten"] is False and p.baseline["mean ratio"] > emlp.BASELINE_MARGIN
        assert p.verdict == NO_POWER and any("trivial baseline" in r for r in p.reasons)
    o5 = by_cell["o5 N=100"]
    assert o5.baseline["beaten"] and o5.baseline["ratios"] == pytest.approx([0.8 / 40, 0.6 / 40, 0.9 / 40], rel=1e-3)
    assert "not beaten by that margin at scattering N=30, scattering N=100" in out.note
    table = next(e for e in out.evidence if e["title"].startswith("The trivial baseline"))
    assert [r[0] for r in table["rows"] if not r[-1]] == ["scattering N=30", "scattering N=100"]
    json.dumps([p.to_dict() for p in out.parts], allow_nan=False)


@pytest.fixture(scope="module")
def claim_json(quick_report):
    """The claim from the one quick ``lab reproduce`` run of this session (tests/conftest.py)."""
    _, report = quick_report
    return next(c for c in report["claims"] if c["id"] == CID)


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_the_quick_run_judges_every_cell_it_runs(claim_json):
    c = claim_json
    s = c["settings"]
    cells = [(t, n) for t in s["tasks"] for n in s["sizes"]]
    assert len(s["tasks"]) >= 2 and len(s["sizes"]) >= 2 and s["seeds"] == [0, 1, 2]
    assert c["measured"]["cells judged"] == len(cells) == s["cells judged"]
    assert [p["name"] for p in c["parts"]] == [emlp.part_name(t, n) for t, n in cells]
    assert c["criterion_version"] == 3 and c["criterion_history"][0]["version"] == 1
    assert c["paper_settings"].startswith(f"{len(cells)} of Figure 2.5's 21 cells")
    table = c["evidence"][0]["rows"]  # per cell and seed: the test MSEs and both statistics
    for p, (task, n) in zip(c["parts"], cells):
        rows = [r for r in table if (r[0], r[2]) == (task, n)]
        assert [r[3] for r in rows] == [0, 1, 2]
        for r, v, nv in zip(rows, p["replicates"], p["null_replicates"]):
            mlp, aug, em, null = r[4], r[5], r[6], r[8]
            assert v == pytest.approx(math.log10(min(mlp, aug) / em), abs=2e-3)  # the table's 4 digits
            assert nv == pytest.approx(math.log10(min(mlp, aug) / null), abs=2e-3)
        # the verdict follows the rule on the replicates; the null is the same statistic on other draws
        assert p["holds"] == Rule(">", 0.0).judge(p["replicates"])[0]
        assert rejudge(p).separated is not p["null_holds"]
        assert p["statistic"] == "log_ratio" and p["threshold"] == 0.0
        assert len(p["replicates"]) == len(p["null_replicates"]) == 3
        assert all(math.isfinite(v) and v != 0.0 for v in p["null_replicates"])
        assert len(set(p["null_replicates"])) > 1
    # every run is listed: four models per cell and seed; the EMLP is equivariant to rounding, the MLPs are not
    runs = next(e for e in c["evidence"] if e["kind"] == "table" and e["columns"][2] == "model")
    assert len(runs["rows"]) == 4 * 3 * len(cells)
    for r in runs["rows"]:
        assert (r[7] < 1e-4) == (r[2] == "EMLP")


@pytest.mark.slow
def test_the_same_seed_gives_the_same_numbers(tmp_path):
    """Two runs of one cell at a tiny schedule: every replicate equal."""
    from lab.reproduce import Profile

    def once():
        saved = dict(emlp.QUICK)
        emlp.QUICK.update(tasks=("o5",), sizes=(30,), channels=32, epochs=4, test=50)
        try:
            return emlp.measure(Profile("quick", device="cpu"))
        finally:
            emlp.QUICK.clear()
            emlp.QUICK.update(saved)

    a, b = once(), once()
    assert a.parts[0].replicates == b.parts[0].replicates and a.parts[0].null_replicates == b.parts[0].null_replicates
