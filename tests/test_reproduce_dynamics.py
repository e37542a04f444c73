"""The dynamics claims of ``lab reproduce`` (§5.1, appendices E.1 and E.2) under the quick profile (the CI check of
the family; Prop. 1 and Cor. 1 are tests/test_reproduce_dynamics_theory.py's).

No test asserts a verdict or a null's verdict that could flip between runs: they check the mechanics (every part
read by one statistic on the claim's and the null's draws, its verdict the rule's on its replicates, the
replicates recomputed from the evidence) and exact or deterministic results."""
import json
import math
from fractions import Fraction

import pytest

from lab.reproduce import Outcome
from lab.reproduce.stats import Rule, rejudge

DYN = ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom", "dyn-rot-aug-near-nom", "dyn-relative-dimensions",
       "dyn-e2-ordering")
TRAINED = ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom", "dyn-rot-aug-near-nom", "dyn-e2-ordering")
HISTORY_WORDS = ("the issue", "earlier", "used to", " now ", "before the", "previous")
E2_ORDER = ("Rot", "OneDTrans", "Trans", "TransRot")


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    """The claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py)."""
    return {cid: quick_outcomes[cid] for cid in DYN}


@pytest.fixture(scope="module")
def claims(quick_report):
    """The same claims as the report's JSON (with their parts, replicates and criterion history)."""
    _, report = quick_report
    return {c["id"]: c for c in report["claims"] if c["id"] in DYN}


def _finals(series) -> list:
    """Per run, the last y of a trajectories series (the final ||Pi_perp A||)."""
    return [r["y"][-1] for r in series["runs"]]


def _log10_sq(y, ref) -> float:
    return 2 * math.log10(y / ref)


def test_outcomes_are_json_with_a_stated_criterion(outcomes):
    for cid in DYN:
        o = outcomes[cid]
        assert isinstance(o, Outcome)
        json.dumps({"measured": o.measured, "settings": o.settings, "evidence": o.evidence, "note": o.note,
                    "accuracy": o.accuracy, "variants": o.variants}, allow_nan=False)
        assert o.holds in (True, False)
        assert o.settings["criterion"] and o.criterion == o.settings["criterion"]
        assert o.evidence and all(e["kind"] in ("line", "bar", "table", "matrix", "trajectories") for e in o.evidence)
        for e in o.evidence:
            if e["kind"] == "line":
                assert all(len(v) == len(e["x"]) for v in e["series"].values())
            if e["kind"] == "table":
                assert all(len(r) == len(e["columns"]) for r in e["rows"])
        if o.holds is False:
            assert len(o.note) > 40  # a cause is stated
        assert not any(w in o.note.lower() for w in HISTORY_WORDS), (cid, o.note)


def test_every_part_follows_its_rule_on_its_replicates(claims):
    """Per part: the verdict is the rule's on the claim's replicates, the null's the same rule's on the null's; the
    null has at least 3 finite draws, not all equal and none at the threshold; threshold rules read >= 3 claim
    draws; the claim's criterion is met exactly when every part is."""
    for cid, c in claims.items():
        assert c["parts"], cid
        for p in c["parts"]:
            rule = Rule(p["op"], p["threshold"]) if p["op"] != "all" else Rule("all")
            assert rule.judge(p["replicates"])[0] == p["holds"], (cid, p["name"])
            assert rejudge(p).separated is not p["null_holds"], (cid, p["name"])
            assert len(p["null_replicates"]) >= 3 and len(p["replicates"]) >= 3, (cid, p["name"])
            assert all(isinstance(v, float) and math.isfinite(v) for v in p["null_replicates"]), (cid, p["name"])
            assert len(set(p["null_replicates"])) > 1, (cid, p["name"])
            assert p["threshold"] not in p["null_replicates"], (cid, p["name"])
            assert p["null"] and p["statistic"], (cid, p["name"])
        assert c["criterion_met"] == all(p["holds"] for p in c["parts"]), cid
        assert c["null"]["holds"] == any(p["null_holds"] for p in c["parts"]), cid


def test_criteria_are_versioned_and_v1_judged_on_this_run(claims):
    for cid, c in claims.items():
        # v3: statistics layer 2; Perm's and Trans's v4 adds the reading at matched distance travelled
        assert c["criterion_version"] == (4 if cid in ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom") else 3), cid
        v1 = c["criterion_history"][0]  # and version 2 judged by statistics layer 1
        assert v1["version"] == 1 and v1["date"] == "2026-11-25", cid
        assert v1["criterion_met"] in (True, False) and v1["why"], cid
        assert c["paper_settings"] and "paper" in c["paper_settings"], cid
        assert c["replicates"]["claim"] >= 3 and c["replicates"]["null"] >= 3, cid


def test_aug_vs_nom_replicates_are_the_runs_of_figure1(claims, outcomes):
    """The per-run log10 (Aug/Nom)^2 recomputed from the figure's runs (Aug against the Nom from the same A0); the
    null pairs Nom from other A0s with the same runs."""
    for cid in ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom"):
        c, o = claims[cid], outcomes[cid]
        p, matched = c["parts"]
        assert p["statistic"] == matched["statistic"] == "log10_squared_ratio" and p["threshold"] == -2.0
        assert "same distance travelled" in matched["name"] and len(matched["replicates"]) == len(p["replicates"])
        fig = next(e for e in o.evidence if e["kind"] == "trajectories")
        (panel,) = fig["panels"].values()
        want = [_log10_sq(a, n) for a, n in zip(_finals(panel["aug"]), _finals(panel["nom"]))]
        assert p["replicates"] == pytest.approx(want, rel=1e-12)
        assert len(p["null_replicates"]) == len(p["replicates"]) == o.settings["runs"]
        assert o.settings["null_run_ids"] == list(range(o.settings["runs"], 2 * o.settings["runs"]))
        v1 = c["criterion_history"][0]
        assert v1["measured"]["aug_over_nom_squared"] == pytest.approx(o.measured["aug_over_nom_squared"])
        assert v1["criterion_met"] == (o.measured["aug_over_nom_squared"] <= 1e-2)


def test_quick_models_trained(outcomes):
    """The verdicts are on trained networks: Trans well above chance on its held-out split, Perm above the
    majority class, every experiment's accuracy shown."""
    for cid in TRAINED:
        assert outcomes[cid].accuracy, cid
    trans = outcomes["dyn-trans-aug-vs-nom"].accuracy["trans"]
    assert trans["chance"] == 0.1 and "test" in trans["split"]
    assert trans["nom"] > 0.5 and trans["aug"] > 0.25 and trans["equi"] > 0.25
    perm = outcomes["dyn-perm-aug-vs-nom"].accuracy["perm"]
    assert 0.5 <= perm["majority"] < 1
    for s in ("nom", "aug", "equi"):
        assert perm[s] > perm["majority"] + 0.02, (s, perm)
    rot = outcomes["dyn-rot-aug-near-nom"].accuracy
    assert set(rot) == {"perm", "trans", "rot"} and "aug, reference rotations" in rot["rot"]
    for acc in outcomes["dyn-e2-ordering"].accuracy.values():
        assert acc["nom"] > acc["chance"] + 0.2
    # quick departs from the paper's learning rate, and says so
    s = outcomes["dyn-trans-aug-vs-nom"].settings
    assert s["lr"] == 0.1 and "paper" in s["lr_note"]


def test_aug_vs_nom_measured(outcomes):
    for cid in ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom"):
        o = outcomes[cid]
        m = o.measured
        assert 0 < m["aug_over_nom"] < 1
        assert math.isclose(m["aug_over_nom_squared"], m["aug_over_nom"] ** 2)
        assert "squared" in o.criterion and "layer_equivariance" in o.criterion
    # Perm's L sweep (quick: L = 2 beside the main run's): an exponent is fitted
    assert outcomes["dyn-perm-aug-vs-nom"].measured["exponent_in_L"] is not None


def test_one_accuracy_reading_per_shared_run(outcomes):
    """The Perm, Trans and Rot models' accuracy is read once (``main_accuracy``): every claim reports the same."""
    rot = outcomes["dyn-rot-aug-near-nom"].accuracy
    for name, cid in (("perm", "dyn-perm-aug-vs-nom"), ("trans", "dyn-trans-aug-vs-nom")):
        assert outcomes[cid].accuracy[name] == rot[name]


def test_nom_recorded_from_aug_variant(outcomes):
    for cid in ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom"):
        o = outcomes[cid]
        (v,) = [v for v in o.variants if v["name"] == "Nom recorded from the Aug model"]
        assert v["measured"]["aug_over_nom_squared"] == o.measured["aug_over_nom_squared"]
        assert v["measured"]["nom_x_as_drawn_over_true"] > 0
        assert v["holds"] == (o.measured["aug_over_nom_squared"] <= 1e-2)
        # independently: the ratio of Aug's to Nom's median final ||A - A0|| in the spread table
        table = next(e for e in o.evidence if e["kind"] == "table" and "spread" in e["title"])
        med = {r[1]: r[7] for r in table["rows"] if "other" not in r[0]}
        assert v["measured"]["nom_x_as_drawn_over_true"] == pytest.approx(med["aug"] / med["nom"])


def _check_trajectories(item, runs):
    assert item["kind"] == "trajectories" and item["panels"]
    for panel in item["panels"].values():
        for series in panel.values():
            assert len(series["runs"]) == runs
            for k in ("x", "y"):
                steps = len(series["mean"][k])
                assert all(len(r[k]) == steps for r in series["runs"])
                for i in range(steps):
                    vals = [r[k][i] for r in series["runs"] if r[k][i] is not None]
                    assert series["mean"][k][i] == pytest.approx(sum(vals) / len(vals), rel=1e-12, abs=1e-300)


def test_figure1_trajectories(outcomes):
    o = outcomes["dyn-perm-aug-vs-nom"]
    item = next(e for e in o.evidence if e["kind"] == "trajectories")
    _check_trajectories(item, o.settings["runs"])
    (panel,) = item["panels"].values()
    assert {"nom", "aug", "equi"} <= set(panel)
    # the reference's tracker: Nom's y against Aug's x, run by run
    ref = next(v for k, v in panel.items() if k.startswith("nom as the reference"))
    for r, nom, aug in zip(ref["runs"], panel["nom"]["runs"], panel["aug"]["runs"]):
        assert r["y"] == nom["y"] and r["x"] == aug["x"]
    assert all(abs(y) < 1e-10 for r in panel["equi"]["runs"] for y in r["y"])  # Equi stays in E
    rot = outcomes["dyn-rot-aug-near-nom"]
    fig = next(e for e in rot.evidence if e["kind"] == "trajectories")
    assert set(fig["panels"]) == {"Perm", "Trans", "Rot"}
    _check_trajectories(fig, rot.settings["experiments"]["rot"]["runs"])
    e2 = outcomes["dyn-e2-ordering"]
    _check_trajectories(next(e for e in e2.evidence if e["kind"] == "trajectories"), e2.settings["runs"])


def test_rot_reads_squared_and_runs_the_reference_rotations(outcomes):
    o = outcomes["dyn-rot-aug-near-nom"]
    sq = o.measured["aug_over_nom_squared"]
    assert set(sq) == {"perm", "trans", "rot"}
    assert sq["perm"] == pytest.approx(outcomes["dyn-perm-aug-vs-nom"].measured["aug_over_nom_squared"])
    assert sq["trans"] == pytest.approx(outcomes["dyn-trans-aug-vs-nom"].measured["aug_over_nom_squared"])
    (ref,) = [v for v in o.variants if v["name"] == "reference rotations"]
    assert ref["measured"]["aug_over_nom_squared"]["rot"] > 0 and ref["holds"] in (True, False)
    assert len(ref["measured"]["log10_margin_per_run"]) == o.settings["experiments"]["rot"]["runs"]
    assert "2/5" in ref["what"] and "3/5" in ref["what"]
    assert "reference rotations" in o.note
    table = next(e for e in o.evidence if e["kind"] == "table" and "drift rate" in e["title"])
    uniform, flattened, two_d = (r[1] for r in table["rows"])
    assert uniform < 1e-12  # the uniform C4 average is Pi_E: nothing left off E
    assert math.isclose(two_d, 0.2, rel_tol=1e-9)  # identity 2/5 + three turns 1/5: exactly 1/5 left
    assert 0.2 < flattened < 1
    assert "Rotate" in o.note or o.holds  # where part (a) fails, the cause is written in the note


def test_rot_parts_recomputed_from_figure1(claims, outcomes):
    """(a) per run: Rot's log10 (Aug/Nom)^2 minus the larger of Perm's and Trans's; (b) per run: the larger of Rot's
    Nom's and Aug's log10 (||Pi_perp A|| / ||A - A0||)^2, its null the same reading on Trans's runs."""
    c, o = claims["dyn-rot-aug-near-nom"], outcomes["dyn-rot-aug-near-nom"]
    near, small = c["parts"]
    assert near["statistic"] == "rot_log10_margin" and near["threshold"] == 1.0
    assert small["statistic"] == "log10_largest_shift_off_E" and small["threshold"] == -2.0
    fig = next(e for e in o.evidence if e["kind"] == "trajectories")["panels"]
    sq = {n: [_log10_sq(a, b) for a, b in zip(_finals(fig[n]["aug"]), _finals(fig[n]["nom"]))]
          for n in ("Perm", "Trans", "Rot")}
    want = [r - max(p, t) for r, p, t in zip(sq["Rot"], sq["Perm"], sq["Trans"])]
    assert near["replicates"] == pytest.approx(want, rel=1e-12, abs=1e-12)

    def shift(panel):
        per = {s: [_log10_sq(r["y"][-1], r["x"][-1]) for r in panel[s]["runs"]] for s in ("nom", "aug")}
        return [max(a, b) for a, b in zip(per["nom"], per["aug"])]

    assert small["replicates"] == pytest.approx(shift(fig["Rot"]), rel=1e-12)
    assert small["null_replicates"] == pytest.approx(shift(fig["Trans"]), rel=1e-12)


def test_relative_dimensions(claims, outcomes):
    o, c = outcomes["dyn-relative-dimensions"], claims["dyn-relative-dimensions"]
    assert o.measured["closed_forms_equal"] is True
    paper = o.measured["paper_sizes"]
    # independent arithmetic of appendix E.1: Perm n = 10, 32 and 64 channels; Trans N = 14, 32 channels; Rot 1/4
    perm = Fraction(32 * 15 + 32 * 64 * 2, 32 * 10 ** 4 + 32 * 64 * 10 ** 2)
    assert paper["perm"] == pytest.approx(float(perm))
    assert paper["trans"] == pytest.approx(float(Fraction(32 * 196 + 32 * 32 * 196 + 32 * 32,
                                                          32 * 196 ** 2 + 32 * 32 * 196 ** 2 + 32 * 32 * 196)))
    assert paper["rot"] == 0.25
    exact, apart = c["parts"]
    # (a) exact: the closed forms equal the solver at every (experiment, size); another group's solver does not
    assert exact["replicates"] == [0.0] * 9 and exact["holds"] is True
    assert min(exact["null_replicates"]) > 0.5 and exact["null_holds"] is False
    # (b) exact: log10 (1/4 over Perm's ratio) at the paper's sizes; the null puts Rot's layers under Z(14) x Z(14),
    # whose V -> V blocks keep 1/N^2 of the maps
    assert apart["replicates"][0] == pytest.approx(math.log10(0.25 / float(perm)), rel=1e-12)
    assert apart["null_replicates"][0] == pytest.approx(math.log10((1 / 196) / float(perm)), rel=1e-12)
    v1 = c["criterion_history"][0]
    assert v1["criterion_met"] is True and v1["measured"]["closed_forms_equal"] is True


def test_e2_part_recomputed_from_the_runs(claims, outcomes):
    c, o = claims["dyn-e2-ordering"], outcomes["dyn-e2-ordering"]
    (p,) = c["parts"]
    assert p["statistic"] == "kendall_tau_with_paper_order" and p["threshold"] == 0.5
    fig = next(e for e in o.evidence if e["kind"] == "trajectories")["panels"]
    sq = {g: [_log10_sq(a, n) for a, n in zip(_finals(fig[g]["aug"]), _finals(fig[g]["nom"]))] for g in E2_ORDER}
    for i, tau in enumerate(p["replicates"]):
        pairs = [(a, b) for k, a in enumerate(E2_ORDER) for b in E2_ORDER[k + 1:]]
        want = sum((sq[a][i] > sq[b][i]) - (sq[a][i] < sq[b][i]) for a, b in pairs) / 6
        assert tau == pytest.approx(want)
    assert all(round(6 * t) == pytest.approx(6 * t) for t in p["replicates"] + p["null_replicates"])
    assert o.settings["null_run_ids"] == list(range(o.settings["runs"], 2 * o.settings["runs"]))


def test_e2_table_and_reference_draws(outcomes):
    o = outcomes["dyn-e2-ordering"]
    four = sorted(E2_ORDER)
    assert sorted(o.measured["order"]) == four
    dims = next(e for e in o.evidence if e["kind"] == "table" and "closed form" in e["title"])
    assert all(r[-1] is True for r in dims["rows"])
    # dim E / dim L: Rot > OneDTrans > Trans > TransRot on the 8 x 8 grid
    ratio = {r[0]: r[3] for r in dims["rows"]}
    assert ratio["Rot"] == 0.25 and ratio["OneDTrans"] == 0.125
    assert ratio["Rot"] > ratio["OneDTrans"] > ratio["Trans"] > ratio["TransRot"]
    (v,) = [v for v in o.variants if v["name"] == "reference draws"]
    assert sorted(v["measured"]["order"]) == four
    assert all(x > 0 for x in v["measured"]["aug_over_nom_squared"].values())
    assert v["holds"] == (v["measured"]["order"] == list(E2_ORDER))
    assert len(v["measured"]["kendall_tau_per_run"]) == o.settings["runs"]


def test_statistics_on_known_draws():
    from lab.dynamics.claims import (closed_form_mismatch, kendall_tau_with_paper_order, log10_squared_ratio,
                                     rot_log10_margin)

    assert log10_squared_ratio({"y": 0.1, "ref": 1.0}) == pytest.approx(-2.0)
    assert math.isnan(log10_squared_ratio({"y": None, "ref": 1.0}))
    ranked = {g: {"y": 10.0 ** -k, "ref": 1.0} for k, g in enumerate(E2_ORDER)}
    assert kendall_tau_with_paper_order(ranked) == 1.0
    reverse = {g: {"y": 10.0 ** k, "ref": 1.0} for k, g in enumerate(E2_ORDER)}
    assert kendall_tau_with_paper_order(reverse) == -1.0
    one_swap = dict(ranked, Trans=ranked["TransRot"], TransRot=ranked["Trans"])
    assert kendall_tau_with_paper_order(one_swap) == pytest.approx(4 / 6)
    draw = {"rot": {"y": 1.0, "ref": 2.0}, "perm": {"y": 0.01, "ref": 1.0}, "trans": {"y": 0.1, "ref": 1.0}}
    assert rot_log10_margin(draw) == pytest.approx(2 * math.log10(0.5) + 2.0)
    assert closed_form_mismatch({"blocks": [(15, 10 ** 4, 15, 10 ** 4)]}) == 0.0
    assert closed_form_mismatch({"blocks": [(15, 100, 30, 100)]}) == pytest.approx(0.5)


def test_relative_dimensions_is_deterministic():
    from lab.reproduce import Profile, load_claims

    measure = load_claims()["dyn-relative-dimensions"].measure
    first, second = (measure(Profile("quick", device="cpu")) for _ in range(2))
    assert [p.to_dict() for p in first.parts] == [p.to_dict() for p in second.parts]
    assert first.measured == second.measured
