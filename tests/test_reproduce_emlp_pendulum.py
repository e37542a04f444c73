"""The thesis's Table 2.2 / Figure 2.6 claim (``emlp-pendulum``): registered and listed, judged per part on made-up
numbers (no training: every failing part is named, a null that conserves has no power), and the quick run's
verdict with its evidence and a null that fails."""
from __future__ import annotations

import json
import math

import pytest

from lab.reproduce import emlp_pendulum as ep
from lab.reproduce.runner import verdict_text

CID = "emlp-pendulum"

#: made-up numbers shaped like Table 2.2 and Figure 2.6: (model, group) -> (rollout error, momentum error)
GOOD = {("hnn-mlp", None): (0.028, 0.3), ("node-mlp", None): (0.048, 0.5), ("hnn-emlp", "O2eR3()"): (0.012, 1e-5),
        ("hnn-emlp", "SO2eR3()"): (0.015, 2e-5), ("hnn-emlp", "DkeR3(6)"): (0.013, 4e-4),
        ("hnn-emlp", "DkeR3(2)"): (0.02, 0.08), ("node-emlp", "O2eR3()"): (0.019, 0.2)}


def _rows(table=GOOD, seeds=(0,), scale=1.0, **changes):
    """run_pendulum-like rows of ``table`` for ``seeds`` (the rollout errors times ``scale`` ** seed), with
    ``changes`` = {"model group": (rollout, momentum)} replacing entries."""
    table = dict(table)
    for key, value in changes.items():
        model, _, group = key.partition(" ")
        table[(model, group or None)] = value
    return [{"model": m, "group": g, "seed": s, "rollout_error": r * scale ** s, "momentum_error": mom,
             "equivariance_error": 1e-7 if m.endswith("emlp") else 0.2, "group_equivariance_error": 1e-7,
             "train_mse": 1e-3, "dropped_chunks": 0, "skipped_steps": 0, "integrator": "dopri5", "seconds": 1.0}
            for s in seeds for (m, g), (r, mom) in table.items()]


def _null(rollout=0.03, momentum=0.4, seeds=(3,)):
    return [{"model": "hnn-mlp", "group": None, "seed": s, "rollout_error": rollout, "momentum_error": momentum}
            for s in seeds]


def test_the_claim_is_registered_and_listed(capsys):
    from lab.cli import main
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims

    assert "emlp_pendulum" in CLAIM_MODULES and CLAIM_IDS.index(CID) == CLAIM_IDS.index("emlp-data-efficiency") + 1
    c = load_claims()[CID]
    assert (c.paper, c.kind, c.where) == ("thesis", "claim", "§2.7.2, Table 2.2, Figure 2.6")
    assert "D2" in c.claim and c.criterion == ep.CRITERION and c.null == ep.NULL
    assert c.seconds["quick"] < 60 and c.seconds["full"] > 3600
    main(["reproduce", "--list"])
    assert any(line.startswith(CID) and "Table 2.2" in line for line in capsys.readouterr().out.splitlines())


def test_the_profiles():
    from lab.emlp.dynamics import PAPER, DynamicsSettings
    from lab.reproduce import Profile

    quick, full = ep.plan(Profile("quick")), ep.plan(Profile("full"))
    # the thesis's: its settings, three trials, every model of the criterion, the rollout part judged
    assert full["schedule"] == "paper" and PAPER.channels == 128 and PAPER.epochs == 2000
    assert full["seeds"] == 3 and full["rollout"] == ("O2eR3()", "SO2eR3()", "DkeR3(6)")
    assert full["calls"] == quick["calls"] == [(("hnn-mlp", "node-mlp", "hnn-emlp"),
                                                ("O2eR3()", "SO2eR3()", "DkeR3(6)", "DkeR3(2)")),
                                               (("node-emlp",), ("O2eR3()",))]
    # quick: one seed, a short schedule, the conservation parts only
    assert quick["seeds"] == 1 and quick["rollout"] == ()
    assert DynamicsSettings(**quick["schedule"]).check().steps() == 20


def test_labels_and_the_pooled_numbers():
    assert ep.label("hnn-emlp", "DkeR3(6)") == "EMLP-HNN D6" and ep.label("hnn-mlp", "O2eR3()") == "MLP-HNN"
    assert ep.label("node-emlp", "O2eR3()") == "EMLP N-ODE O(2)" and ep.label("node-mlp") == "MLP N-ODE"
    # several seeds: the geometric mean of their numbers (each is itself a geometric mean)
    pooled = ep.pooled(_rows(seeds=(0, 1), scale=4.0))
    assert pooled["rollout_error"]["MLP-HNN"] == pytest.approx(0.028 * 2.0)
    assert pooled["momentum_error"]["EMLP-HNN O(2)"] == pytest.approx(1e-5)
    # a missing or non-finite number fails every part that reads it
    bad = ep.pooled(_rows(**{"hnn-emlp SO2eR3()": (0.015, math.nan)}))
    assert math.isnan(bad["momentum_error"]["EMLP-HNN SO(2)"])
    assert ep.not_met(bad) == ["conserves: EMLP-HNN SO(2)"]
    del bad["momentum_error"]["EMLP-HNN D2"]
    assert ep.not_met(bad)[-1] == "does not conserve: EMLP-HNN D2"


def test_every_part_met_holds_and_the_null_fails_the_conservation_parts():
    out = ep.assess(_rows(seeds=(0, 1, 2)), _null(seeds=(3, 4, 5)), {"seeds": 3})
    json.dumps([out.measured, out.settings, out.evidence, out.null.to_dict()], allow_nan=False)
    assert out.holds is True and out.null.holds is False
    assert verdict_text("finished", out.holds, out.null.holds) == "holds"
    assert out.criterion.endswith("3 seeds, every part: met at 9 of 9 parts") and not out.note.startswith("Not met")
    assert out.measured["rollout_error"]["EMLP-HNN D6"] == 0.013
    # the null (an MLP-HNN of other seeds in each EMLP-HNN's place) fails by its missing law; its rollout part
    # (0.03 against the MLP-HNN's 0.028: seed noise) is read and reported too
    assert out.null.measured["parts not met"] == [
        "rollout: EMLP-HNN O(2) below MLP-HNN", "rollout: EMLP-HNN SO(2) below MLP-HNN",
        "rollout: EMLP-HNN D6 below MLP-HNN", "conserves: EMLP-HNN O(2)", "conserves: EMLP-HNN SO(2)",
        "approximately conserves: EMLP-HNN D6"]
    assert out.null.measured[ep.NULL_NAME] == {"rollout_error": 0.03, "momentum_error": 0.4}
    assert "it fails rollout: EMLP-HNN O(2) below MLP-HNN" in out.note
    # a reseeded MLP-HNN that rolls out better than the MLP-HNN still fails: the conservation parts decide
    lucky = ep.assess(_rows(), _null(rollout=0.02), {"seeds": 1})
    assert lucky.null.holds is False and lucky.null.measured["rollout part met"] == {"O(2)": True, "SO(2)": True,
                                                                                     "D6": True}
    assert lucky.null.measured["parts not met"][0] == "conserves: EMLP-HNN O(2)"


def test_each_failing_part_is_named():
    rows = _rows(**{"hnn-emlp SO2eR3()": (0.03, 2e-5),  # rolls out worse than the MLP-HNN (0.028)
                    "hnn-emlp DkeR3(6)": (0.013, 0.02),  # not even approximately conserving
                    "hnn-emlp DkeR3(2)": (0.02, 5e-3)})  # conserving approximately: D2 must not
    out = ep.assess(rows, _null(), {"seeds": 1})
    assert out.holds is False and out.null.holds is False
    assert verdict_text("finished", out.holds, out.null.holds) == "does not hold"
    failing = ["rollout: EMLP-HNN SO(2) below MLP-HNN", "approximately conserves: EMLP-HNN D6",
               "does not conserve: EMLP-HNN D2"]
    assert out.criterion.endswith("met at 6 of 9 parts, not met: " + "; ".join(failing))
    assert out.settings["criterion"] == out.criterion
    first = out.note.split("  ")[0]
    assert first == ("Not met: rollout: EMLP-HNN SO(2) below MLP-HNN (EMLP-HNN SO(2) 0.03, MLP-HNN 0.028); "
                     "approximately conserves: EMLP-HNN D6 (momentum error 0.02, threshold 0.01); does not conserve: "
                     "EMLP-HNN D2 (momentum error 0.005, threshold 0.01).")
    for other in ("EMLP-HNN O(2)", "N-ODE"):
        assert other not in first
    # the per-model table says which part each model enters and whether it is met
    table = {r[0]: r for r in out.evidence[0]["rows"]}
    assert table["EMLP-HNN D2"][4] == "does not conserve: EMLP-HNN D2: NOT met"
    assert table["EMLP-HNN O(2)"][4] == "rollout: EMLP-HNN O(2) below MLP-HNN: met; conserves: EMLP-HNN O(2): met"
    assert table["MLP-HNN"][2] == 0.028 and table["EMLP N-ODE O(2)"][2] == 0.019  # Table 2.2 beside
    assert table["EMLP-HNN D2"][2] is None


def test_the_quick_reading_leaves_the_rollout_part_out_and_a_conserving_null_has_no_power():
    worse = _rows(**{"hnn-emlp O2eR3()": (0.3, 1e-5)})  # an EMLP-HNN 20 steps old: worse than the MLP-HNN
    full = ep.assess(worse, _null(), {"seeds": 1})
    quick = ep.assess(worse, _null(), {"seeds": 1}, rollout=(), quick=True)
    assert full.holds is False and quick.holds is True
    assert quick.criterion.endswith("the conservation parts only (the rollout part is not judged): met at 6 of 6 "
                                    "parts")
    assert "Quick profile" in quick.note and "not judged at these settings" in quick.note
    # a baseline that conserved L_z would pass the conservation parts: the criterion could not tell it apart
    weak = ep.assess(_rows(), _null(momentum=1e-5), {"seeds": 1}, rollout=())
    assert weak.holds is True and weak.null.holds is True
    assert verdict_text("finished", weak.holds, weak.null.holds) == "no power at these settings"
    # a missing model fails its part
    gone = [r for r in _rows() if r["model"] != "node-emlp"]
    assert ep.assess(gone, _null(), {}, rollout=()).criterion.endswith("not met: does not conserve: EMLP N-ODE O(2)")


def test_the_evidence_draws_the_curves_with_the_thresholds():
    rows = _rows()
    for r in rows:
        r.update(times=[0.0, 0.2, 0.4], rollout_curve=[1e-7, 1e-3, 2e-3], momentum_curve=[1e-5, r["momentum_error"],
                                                                                          r["momentum_error"]])
    null = [dict(r, times=[0.0, 0.2, 0.4], rollout_curve=[1e-7, 1e-2, 2e-2], momentum_curve=[1e-5, 0.1, 0.2])
            for r in _null()]
    out = ep.assess(rows, null, {})
    kinds = [e["kind"] for e in out.evidence]
    assert kinds == ["table", "bar", "bar", "line", "line", "table"]
    momentum = out.evidence[3]
    assert momentum["x"] == [0.0, 0.2, 0.4] and momentum["logy"]
    assert momentum["series"]["conserves (0.001)"] == [1e-3] * 3 and momentum["series"][ep.NULL_NAME][-1] == 0.2
    assert momentum["series"]["EMLP-HNN D2"] == [1e-5, 0.08, 0.08]
    assert len(out.evidence[-1]["rows"]) == len(rows) + 1  # every run and the null's
    json.dumps(out.evidence, allow_nan=False)


@pytest.fixture(scope="module")
def outcome(quick_outcomes):
    """The claim from the one quick ``lab reproduce`` run of this session (tests/conftest.py)."""
    return quick_outcomes[CID]


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_the_quick_run_holds_with_a_null_that_fails(outcome):
    out = outcome
    json.dumps([out.measured, out.settings, out.evidence], allow_nan=False)
    s = out.settings
    assert (s["seeds"], s["channels"], s["layers"], s["train"], s["test"], s["steps per model"], s["lr"]) == (
        1, 32, 3, 32, 8, 20, 0.01)
    assert s["rollout part judged for"] == [] and s["null seeds"] == [1]
    assert out.criterion == s["criterion"] and "the rollout part is not judged" in out.criterion
    mom = out.measured["momentum_error"]
    assert set(mom) == {"MLP-HNN", "MLP N-ODE", "EMLP-HNN O(2)", "EMLP-HNN SO(2)", "EMLP-HNN D6", "EMLP-HNN D2",
                        "EMLP N-ODE O(2)"}
    # Noether: the continuous groups' EMLP-HNNs sit at the metric's floor (the integrator's error), D6's too
    assert max(mom["EMLP-HNN O(2)"], mom["EMLP-HNN SO(2)"], mom["EMLP-HNN D6"]) < 1e-4
    assert min(mom["MLP N-ODE"], mom["EMLP N-ODE O(2)"], mom["EMLP-HNN D2"]) > 2 * ep.APPROX
    assert out.holds is True, out.note
    # the null, an MLP-HNN of another seed in each EMLP-HNN's place, fails by its missing law
    assert out.null is not None and out.null.holds is False
    assert out.null.measured[ep.NULL_NAME]["momentum_error"] > 10 * ep.APPROX
    assert out.null.measured["parts not met"] == ["conserves: EMLP-HNN O(2)", "conserves: EMLP-HNN SO(2)",
                                                  "approximately conserves: EMLP-HNN D6"]
    # the EMLPs are equivariant to rounding under their own groups, the MLPs are not under O(2)
    runs = {r[0]: r for r in out.evidence[-1]["rows"]}
    assert set(runs) == set(mom) | {ep.NULL_NAME}
    assert all(runs[k][5] < 1e-4 for k in runs if k.startswith("EMLP")) and runs["MLP-HNN"][4] > 1e-3
    assert "Quick profile" in out.note
