"""The seven dynamics claims of ``lab reproduce`` under the quick profile (the CI check of the family)."""
import json
import math
from fractions import Fraction

import pytest

from lab.reproduce import Outcome

DYN = ("dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom",
       "dyn-rot-aug-near-nom", "dyn-relative-dimensions", "dyn-e2-ordering")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    """The seven claims from the one quick ``lab reproduce`` run of this worker (tests/conftest.py)."""
    return {cid: quick_outcomes[cid] for cid in DYN}


def test_outcomes_are_json_with_a_stated_criterion(outcomes):
    for cid in DYN:
        o = outcomes[cid]
        assert isinstance(o, Outcome)
        json.dumps({"measured": o.measured, "settings": o.settings, "evidence": o.evidence, "note": o.note},
                   allow_nan=False)
        assert o.holds in (True, False)
        assert "criterion" in o.settings and o.settings["criterion"]
        assert o.evidence and all(e["kind"] in ("line", "bar", "table", "matrix") for e in o.evidence)
        for e in o.evidence:
            if e["kind"] == "line":
                assert all(len(v) == len(e["x"]) for v in e["series"].values())
            if e["kind"] == "table":
                assert all(len(r) == len(e["columns"]) for r in e["rows"])
        if o.holds is False:
            assert len(o.note) > 40  # a cause is stated


def test_equi_stays_in_E(outcomes):
    o = outcomes["dyn-equi-in-E"]
    assert o.holds is True
    assert 0 <= o.measured["max_relative"] < 1e-10
    assert set(o.measured["per_experiment"]) == {"perm", "trans", "rot"}


def test_exact_orbit_aug_follows_equi(outcomes):
    o = outcomes["dyn-aug-follows-equi-exact-orbit"]
    assert o.holds is True
    assert o.measured["max_relative_difference"] <= 1e-8
    assert o.settings["exact_orbit"] is True


def test_perm_aug_vs_nom(outcomes):
    o = outcomes["dyn-perm-aug-vs-nom"]
    assert o.holds is True
    m = o.measured
    assert math.isclose(m["aug_over_nom_squared"], m["aug_over_nom"] ** 2)
    assert 0 < m["aug_over_nom_squared"] <= 1e-2
    # Aug's leftover is sampling noise: it falls with more passes and more steps (about as 1/sqrt)
    assert m["exponent_in_L"] < -0.25 and m["exponent_in_steps"] < -0.25
    assert "squared" in o.note


def test_trans_ratio_reported(outcomes):
    m = outcomes["dyn-trans-aug-vs-nom"].measured
    assert 0 < m["aug_over_nom"] < 1
    assert math.isclose(m["aug_over_nom_squared"], m["aug_over_nom"] ** 2)


def test_rot_diagnostic_of_the_reference_augmentation(outcomes):
    o = outcomes["dyn-rot-aug-near-nom"]
    assert set(o.measured["aug_over_nom"]) == {"perm", "trans", "rot"}
    table = next(e for e in o.evidence if e["kind"] == "table" and "drift rate" in e["title"])
    uniform, flattened, two_d = (r[1] for r in table["rows"])
    assert uniform < 1e-12  # the uniform C4 average is Pi_E: nothing left off E
    assert math.isclose(two_d, 0.2, rel_tol=1e-9)  # identity 2/5 + three turns 1/5: exactly 1/5 left
    assert 0.2 < flattened < 1


def test_relative_dimensions(outcomes):
    o = outcomes["dyn-relative-dimensions"]
    assert o.holds is True
    paper = o.measured["paper_sizes"]
    # independent arithmetic of appendix E.1: Perm n = 10, 32 and 64 channels; Trans N = 14, 32 channels; Rot 1/4
    assert paper["perm"] == pytest.approx(float(Fraction(32 * 15 + 32 * 64 * 2, 32 * 10 ** 4 + 32 * 64 * 10 ** 2)))
    assert paper["trans"] == pytest.approx(float(Fraction(32 * 196 + 32 * 32 * 196 + 32 * 32,
                                                          32 * 196 ** 2 + 32 * 32 * 196 ** 2 + 32 * 32 * 196)))
    assert paper["rot"] == 0.25


def test_e2_table(outcomes):
    o = outcomes["dyn-e2-ordering"]
    assert sorted(o.measured["order"]) == sorted(["Rot", "OneDTrans", "Trans", "TransRot"])
    dims = next(e for e in o.evidence if e["kind"] == "table" and "closed form" in e["title"])
    assert all(r[-1] is True for r in dims["rows"])
    # dim E / dim L: Rot > OneDTrans > Trans > TransRot on the 8 x 8 grid
    ratio = {r[0]: r[3] for r in dims["rows"]}
    assert ratio["Rot"] == 0.25 and ratio["OneDTrans"] == 0.125
    assert ratio["Rot"] > ratio["OneDTrans"] > ratio["Trans"] > ratio["TransRot"]
