"""Settings chosen apart from the verdict seeds (issue 62): the probe mechanics on a synthetic probe, and every
declared probe's kept choice is the setting the code uses (no probe is run here: the records are committed)."""
import json

import pytest

from lab.errors import LabError
from lab.reproduce import load_claims, tuning
from lab.reproduce.claim import TUNED_NOTE


def _probe(accuracy, current=10):
    return tuning.Probe("synthetic", "epochs", "the fewest epochs whose accuracy is at least 0.9 on every seed",
                        {"5": 5, "10": 10, "20": 20}, lambda c, s: {"accuracy": accuracy(c, s)},
                        lambda rs: min(r["accuracy"] for r in rs.values()) >= 0.9, lambda: current, ("x",))


def test_the_cheapest_accepted_candidate_is_chosen_on_every_seed():
    # seed 101 needs 20 epochs: the rule reads every tuning seed, so 10 is not enough
    rec = _probe(lambda c, s: 0.95 if c >= 20 or (c >= 10 and s != 101) else 0.5).run()
    assert [c["accepted"] for c in rec["candidates"]] == [False, False, True]
    assert rec["chosen"] == "20" and rec["met"] and rec["seeds"] == [100, 101, 102]


def test_no_candidate_met_keeps_the_most_expensive_and_says_so(tmp_path):
    rec = _probe(lambda c, s: 0.1).run()
    assert rec["chosen"] == "20" and rec["met"] is False
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"synthetic": rec}))
    assert "no candidate met the rule" in tuning.chosen_on("synthetic", path)


def test_verdict_seeds_are_refused():
    with pytest.raises(LabError, match="verdict seeds"):
        _probe(lambda c, s: 1.0).run(seeds=(0, 1, 2))


def test_a_choice_the_code_does_not_use_is_a_problem(tmp_path, monkeypatch):
    rec = _probe(lambda c, s: 0.95 if c >= 10 else 0.5).run()
    path = tmp_path / "tuning.json"
    path.write_text(json.dumps({"synthetic": rec}))
    monkeypatch.setitem(tuning.PROBES, "synthetic", _probe(lambda c, s: 0.0, current=20))
    assert any("the code uses 20" in p for p in tuning.problems(path))
    monkeypatch.setitem(tuning.PROBES, "synthetic", _probe(lambda c, s: 0.0, current=10))
    assert not [p for p in tuning.problems(path) if p.startswith("synthetic")]


def test_every_declared_probe_was_run_and_the_code_uses_its_choice():
    load_claims()
    assert tuning.problems() == []


def test_a_retuned_claim_reads_its_probe_and_keeps_the_declared_version():
    claims = load_claims()
    names = {c for p in tuning.PROBES.values() for c in p.claims}
    for cid in names:
        c = claims[cid]
        assert c.chosen_on.startswith("tuning seeds 100-102"), cid
        assert "DECLARED" not in c.chosen_on.split(";")[0], cid  # what a probe chose (the rest may stay declared)
        assert TUNED_NOTE in c.current.text, cid  # the retuned version, or a later one built on it
        assert any(v.text.endswith(TUNED_NOTE) and v.reason.startswith("settings chosen again") for v in c.criteria)
        assert any("DECLARED" in v.reason for v in c.criteria), cid  # the earlier choice stays on the record
