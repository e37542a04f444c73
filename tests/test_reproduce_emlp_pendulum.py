"""The thesis's Table 2.2 / Figure 2.6 claim (``emlp-pendulum``): registered with both criterion versions, Table
2.2's rollout error and Figure 2.6's conservation judged part by part on intervals over seeds, each against a null
that can pass, read by the same statistic (made-up numbers, no training), and the quick run's mechanics (never a
verdict asserted)."""
from __future__ import annotations

import json
import math

import pytest

from lab.emlp import claims_pendulum as ep
from lab.reproduce.runner import verdict_text
from lab.reproduce.claim import layer_text
from lab.reproduce.parts import parts_verdict
from lab.reproduce.stats import Rule, rejudge

CID = "emlp-pendulum"

#: made-up numbers shaped like Table 2.2 and Figure 2.6: (model, group) -> (rollout error, momentum error)
GOOD = {("hnn-mlp", None): (0.028, 0.3), ("node-mlp", None): (0.048, 0.5), ("hnn-emlp", "O2eR3()"): (0.012, 1e-5),
        ("hnn-emlp", "SO2eR3()"): (0.015, 2e-5), ("hnn-emlp", "DkeR3(6)"): (0.013, 4e-4),
        ("hnn-emlp", "DkeR3(2)"): (0.02, 0.08), ("node-emlp", "O2eR3()"): (0.019, 0.2)}
#: the reseeded MLPs (the rollout parts' nulls)
RESEEDED = {("hnn-mlp", None): (0.03, 0.3), ("node-mlp", None): (0.05, 0.5)}


def _rows(table=GOOD, null=RESEEDED, seeds=(0, 1, 2), scale=1.1, **changes):
    """run_pendulum-like rows of ``table`` (role "main") and ``null`` (role "null") for ``seeds`` (the rollout
    errors times ``scale`` ** seed), with ``changes`` = {"model group": (rollout, momentum)} replacing entries of
    ``table``."""
    table = dict(table)
    for key, value in changes.items():
        model, _, group = key.partition(" ")
        table[(model, group or None)] = value
    rows = []
    for role, t in (("main", table), ("null", null)):
        for s in seeds:
            for (m, g), (r, mom) in t.items():
                rows.append({"model": m, "group": g, "seed": s, "role": role, "rollout_error": r * scale ** s,
                             "momentum_error": mom * scale ** s, "weight_seed": s + (1000 if role == "null" else 0),
                             "equivariance_error": 1e-7 if m.endswith("emlp") else 0.2, "seconds": 1.0})
    return rows


def test_the_claim_is_registered_with_both_versions(capsys):
    from lab.cli import main
    from lab.reproduce import CLAIM_IDS, CLAIM_MODULES, load_claims
    from lab.reproduce.claim import FIRST_REGISTERED, TUNED_NOTE

    assert "lab.emlp.claims_pendulum" in CLAIM_MODULES
    assert CLAIM_IDS.index(CID) == CLAIM_IDS.index("emlp-data-efficiency") + 1
    c = load_claims()[CID]
    assert (c.paper, c.kind, c.where) == ("thesis", "claim", "§2.7.2, Table 2.2, Figure 2.6")
    assert "D2" in c.claim and c.criterion == layer_text(ep.CRITERION) + TUNED_NOTE + ep.BASELINE_TEXT
    assert c.null == ep.NULL
    v1, v2, v3, v4, v5 = c.criteria  # v4: the quick steps chosen on the tuning seeds; v5: the no-motion baseline
    assert v3.layer == v4.layer == v5.layer == 2 and v2.text == ep.CRITERION and v5.text.startswith(v4.text)
    assert (v1.version, v1.text, v1.date) == (1, ep.CRITERION_V1, FIRST_REGISTERED)
    assert v1.text.startswith("judged per part, never averaged: (rollout) the EMLP-HNN over each of O(2)")
    assert v2.reason and set(v2.parts) == set(ep.ROLLOUT_PARTS.values()) | set(ep.CONSERVE_PARTS)
    assert c.seconds["quick"] * 10 < c.seconds["full"] and c.seconds["full"] > 3600 and c.paper_settings
    main(["reproduce", "--list"])
    assert any(line.startswith(CID) and "Table 2.2" in line for line in capsys.readouterr().out.splitlines())


def test_the_profiles():
    from lab.nn.hamiltonian import PAPER, DynamicsSettings
    from lab.reproduce import Profile

    quick, full = ep.plan(Profile("quick")), ep.plan(Profile("full"))
    # the thesis's: its settings, every part
    assert full["schedule"] == "paper" and PAPER.channels == 128 and PAPER.epochs == 2000
    assert full["rollout"] == tuple(ep.ROLLOUT_PARTS) and full["conserve"] == tuple(ep.CONSERVE_PARTS)
    assert ep.short_models_of(full) == set()
    # quick: a rollout part and a conservation part, 3 seeds, a short schedule
    assert quick["rollout"] and quick["conserve"] and Profile("quick").seeds() == [0, 1, 2]
    assert DynamicsSettings(**quick["schedule"]).check().steps() == ep.QUICK["epochs"]
    # the quick profile's models: the N-ODEs of the rollout part, the EMLP-HNN over O(2) (short), the reseeded MLP
    assert ep.models_of(quick) == [("node-mlp", None), ("node-emlp", "O2eR3()"), ("hnn-emlp", "O2eR3()")]
    assert ep.null_models_of(quick) == [("node-mlp", None)]
    assert ep.short_models_of(quick) == {("hnn-emlp", "O2eR3()")}
    assert "the thesis" in ep.paper_settings_of(quick, 2, 3)


def test_the_statistics():
    assert ep.log_rollout_ratio({"tested": 0.012, "baseline": 0.028}) == pytest.approx(math.log10(0.028 / 0.012))
    assert ep.log_rollout_ratio({"tested": None, "baseline": 0.028}) == pytest.approx(math.log10(0.028))
    assert ep.log_momentum_error({"momentum_error": 1e-5}) == -5.0
    assert ep.log_momentum_error({"momentum_error": math.nan}) == 0.0


def test_every_part_met_holds_and_every_null_fails():
    out = ep.assess(_rows(), {"seeds": [0, 1, 2]})
    json.dumps([out.measured, out.settings, out.evidence, [p.to_dict() for p in out.parts], out.history],
               allow_nan=False)
    assert [p.name for p in out.parts] == list(ep.ROLLOUT_PARTS.values()) + list(ep.CONSERVE_PARTS)
    assert all(p.holds for p in out.parts) and not any(p.null_holds for p in out.parts)
    assert out.holds is True and verdict_text("finished", out.holds, out.null.holds) == "holds"
    roll = out.parts[0]  # EMLP-HNN O(2) against the MLP-HNN; its null: the reseeded MLP-HNN against the same
    assert roll.replicates == pytest.approx([math.log10(0.028 / 0.012)] * 3)
    assert roll.null_replicates == pytest.approx([math.log10(0.028 / 0.03)] * 3)
    o2 = out.parts[4]  # conservation, O(2): the EMLP-HNN's log10 momentum error; its null the EMLP N-ODE's
    assert o2.replicates == pytest.approx([math.log10(1e-5 * 1.1 ** s) for s in range(3)])
    assert o2.null_replicates == pytest.approx([math.log10(0.2 * 1.1 ** s) for s in range(3)])
    assert o2.threshold == -3 and out.parts[6].threshold == -2
    assert out.measured["parts judged"] == 7 and out.measured["parts met"] == 7
    # version 1 on this run: every part of v1 met on the pooled numbers (the rollout part under the full profile)
    assert out.history[1]["holds"] is True and out.history[1]["measured"]["parts read"] == 9


def test_a_failing_part_is_named_and_a_null_that_passes_has_no_power():
    rows = _rows(**{"hnn-emlp SO2eR3()": (0.03, 2e-5)})  # rolls out worse than the MLP-HNN (0.028)
    out = ep.assess(rows)
    assert out.holds is False and [p.name for p in out.parts if not p.holds] == [
        "rollout: EMLP-HNN SO(2) below MLP-HNN"]
    assert "not met: rollout: EMLP-HNN SO(2) below MLP-HNN" in out.criterion
    # an EMLP Neural ODE (not conservative by construction) that drifts as little as the EMLP-HNN: the conservation
    # part cannot tell the two apart, so it has no power
    weak = ep.assess(_rows(**{"node-emlp O2eR3()": (0.019, 1e-5)}))
    assert weak.holds is True and weak.parts[4].null_holds is True
    assert parts_verdict(weak.parts) == "no power at these settings"
    assert "the null is not separated from the claim at conserves: EMLP-HNN O(2)" in weak.note


def test_the_quick_plan_reads_its_two_parts():
    from lab.reproduce import Profile

    quick = ep.plan(Profile("quick"))
    keep = set(ep.models_of(quick)) | set(ep.null_models_of(quick))
    rows = [r for r in _rows() if (r["model"], r["group"]) in keep]
    out = ep.assess(rows, {}, quick, quick=True)
    assert [p.name for p in out.parts] == ["rollout: EMLP N-ODE O(2) below MLP N-ODE", "conserves: EMLP-HNN O(2)"]
    assert out.holds is True and "Quick profile: 2 of the 7 parts" in out.note
    # version 1 at quick: its conservation parts only, those whose models this run trains; the others are named
    v1 = out.history[1]
    assert v1["holds"] is True and v1["measured"]["parts read"] == 3  # O(2) conserves; both N-ODEs do not
    assert "conserves: EMLP-HNN SO(2)" in v1["measured"]["not read (models not trained by this plan)"]


@pytest.fixture(scope="module")
def claim_json(quick_report):
    """The claim from the one quick ``lab reproduce`` run of this session (tests/conftest.py)."""
    _, report = quick_report
    return next(c for c in report["claims"] if c["id"] == CID)


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_the_quick_run_judges_the_rollout_and_conservation(claim_json):
    c = claim_json
    s = c["settings"]
    assert s["seeds"] == [0, 1, 2] and s["null weight seeds"] == [1000, 1001, 1002]
    names = [p["name"] for p in c["parts"]]
    assert any(n.startswith("rollout:") for n in names) and any(n.startswith("conserves:") for n in names)
    # v3 statistics layer 2, v4 the quick steps retuned, v5 the no-motion baseline in the rollout parts
    assert c["criterion_version"] == 5 and c["criterion_history"][0]["version"] == 1
    runs = c["evidence"][-1]["rows"]  # every run: model, seed, weight seed, rollout error, momentum error, ...
    by = {(r[0], r[1]): r for r in runs}
    for p in c["parts"]:
        rule = Rule(">" if p["name"].startswith("rollout") else "<", p["threshold"])
        assert p["holds"] == rule.judge(p["replicates"])[0] and rejudge(p).separated is not p["null_holds"]
        assert len(p["replicates"]) == len(p["null_replicates"]) == 3
        assert all(math.isfinite(v) and v != p["threshold"] for v in p["null_replicates"])
        assert len(set(p["null_replicates"])) > 1
        if p["name"].startswith("rollout"):
            assert p["statistic"] == "log_rollout_ratio"
            tested, baseline = p["name"][len("rollout: "):].split(" below ")
            for seed, v, nv in zip((0, 1, 2), p["replicates"], p["null_replicates"]):
                base = by[(baseline, seed)][3]
                assert v == pytest.approx(math.log10(base / by[(tested, seed)][3]), abs=1e-3)
                assert nv == pytest.approx(math.log10(base / by[(f"{baseline}, reseeded (null)", seed)][3]),
                                           abs=1e-3)
        else:
            assert p["statistic"] == "log_momentum_error"
            tested = p["name"].split(": ", 1)[1]
            for seed, v in zip((0, 1, 2), p["replicates"]):
                assert v == pytest.approx(math.log10(by[(tested, seed)][4]), abs=1e-3)
    # Noether, an exact identity: the EMLP-HNN over O(2) conserves L_z to the metric's floor on every seed
    assert all(by[("EMLP-HNN O(2)", s)][4] < 1e-4 for s in (0, 1, 2))
