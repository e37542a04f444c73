"""The dynamics claims of ``lab reproduce`` (§5.1, appendices E.1 and E.2) under the quick profile (the CI check of
the family; Prop. 1 and Cor. 1 are tests/test_reproduce_dynamics_theory.py's)."""
import json
import math
from fractions import Fraction

import pytest

from lab.reproduce import Outcome

DYN = ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom", "dyn-rot-aug-near-nom", "dyn-relative-dimensions",
       "dyn-e2-ordering")
TRAINED = ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom", "dyn-rot-aug-near-nom", "dyn-e2-ordering")
HISTORY_WORDS = ("the issue", "earlier", "used to", " now ", "before the", "previous")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    """The claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py)."""
    return {cid: quick_outcomes[cid] for cid in DYN}


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


def test_every_null_fails_its_criterion(outcomes):
    for cid in DYN:
        null = outcomes[cid].null
        assert null is not None and null.baseline, cid
        assert null.holds is False, (cid, null.measured)


def test_aug_vs_nom_null_is_an_unaugmented_run_near_one(outcomes):
    for cid in ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom"):
        o = outcomes[cid]
        # Nom from other seeds against Nom: run-to-run variation, far from the criterion's 1e-2
        assert 0.1 < o.null.measured < 10
        assert o.settings["null_run_ids"] == list(range(o.settings["runs"], 2 * o.settings["runs"]))


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


def test_perm_aug_vs_nom(outcomes):
    o = outcomes["dyn-perm-aug-vs-nom"]
    assert o.holds is True
    m = o.measured
    assert math.isclose(m["aug_over_nom_squared"], m["aug_over_nom"] ** 2)
    assert 0 < m["aug_over_nom_squared"] <= 1e-2
    assert "squared" in o.criterion and "linear axes" in o.criterion
    # Aug's leftover is sampling noise: it falls with more passes (about as 1/sqrt(L))
    assert m["exponent_in_L"] < -0.25


def test_trans_ratio_reported(outcomes):
    o = outcomes["dyn-trans-aug-vs-nom"]
    m = o.measured
    assert 0 < m["aug_over_nom"] < 1
    assert math.isclose(m["aug_over_nom_squared"], m["aug_over_nom"] ** 2)
    assert o.holds == (m["aug_over_nom_squared"] <= 1e-2)


def test_nom_recorded_from_aug_variant(outcomes):
    for cid in ("dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom"):
        o = outcomes[cid]
        (v,) = [v for v in o.variants if v["name"] == "Nom recorded from the Aug model"]
        assert v["measured"]["aug_over_nom_squared"] == o.measured["aug_over_nom_squared"]
        assert v["measured"]["nom_x_as_drawn_over_true"] > 0 and v["holds"] == o.holds
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
    assert "2/5" in ref["what"] and "3/5" in ref["what"]
    assert "reference rotations" in o.note
    table = next(e for e in o.evidence if e["kind"] == "table" and "drift rate" in e["title"])
    uniform, flattened, two_d = (r[1] for r in table["rows"])
    assert uniform < 1e-12  # the uniform C4 average is Pi_E: nothing left off E
    assert math.isclose(two_d, 0.2, rel_tol=1e-9)  # identity 2/5 + three turns 1/5: exactly 1/5 left
    assert 0.2 < flattened < 1
    if not o.holds:
        assert "Rotate" in o.note  # the cause is written in the note


def test_relative_dimensions(outcomes):
    o = outcomes["dyn-relative-dimensions"]
    assert o.holds is True and o.measured["closed_forms_equal"] is True
    paper = o.measured["paper_sizes"]
    # independent arithmetic of appendix E.1: Perm n = 10, 32 and 64 channels; Trans N = 14, 32 channels; Rot 1/4
    assert paper["perm"] == pytest.approx(float(Fraction(32 * 15 + 32 * 64 * 2, 32 * 10 ** 4 + 32 * 64 * 10 ** 2)))
    assert paper["trans"] == pytest.approx(float(Fraction(32 * 196 + 32 * 32 * 196 + 32 * 32,
                                                          32 * 196 ** 2 + 32 * 32 * 196 ** 2 + 32 * 32 * 196)))
    assert paper["rot"] == 0.25
    # the null E = L: every ratio 1, no closed form met
    assert o.null.measured["closed_forms_equal"] is False
    assert set(o.null.measured["paper_sizes"].values()) == {1.0}


def test_e2_table_and_reference_draws(outcomes):
    o = outcomes["dyn-e2-ordering"]
    four = sorted(["Rot", "OneDTrans", "Trans", "TransRot"])
    assert sorted(o.measured["order"]) == four
    assert o.holds == (o.measured["order"] == ["Rot", "OneDTrans", "Trans", "TransRot"])
    dims = next(e for e in o.evidence if e["kind"] == "table" and "closed form" in e["title"])
    assert all(r[-1] is True for r in dims["rows"])
    # dim E / dim L: Rot > OneDTrans > Trans > TransRot on the 8 x 8 grid
    ratio = {r[0]: r[3] for r in dims["rows"]}
    assert ratio["Rot"] == 0.25 and ratio["OneDTrans"] == 0.125
    assert ratio["Rot"] > ratio["OneDTrans"] > ratio["Trans"] > ratio["TransRot"]
    (v,) = [v for v in o.variants if v["name"] == "reference draws"]
    assert sorted(v["measured"]["order"]) == four
    assert all(x > 0 for x in v["measured"]["aug_over_nom_squared"].values())
    assert v["holds"] == (v["measured"]["order"] == ["Rot", "OneDTrans", "Trans", "TransRot"])
    assert sorted(o.null.measured) == four and "1/24" in o.null.baseline
