"""``lab audit PATH|PRESET`` (issue 29): exit 0 for an equivariant model, 3 for a broken one with the verdict, the worst
error and the first breaking layer in ``--json``; bad input one line and exit 2; a saved ``lab lie-derivative`` run
audited from its own weights (npz, no pickle); the command's help light (no torch) and its spelled defaults the
audit's own."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.equivariance import DEFAULT_INPUTS, DEFAULT_SAMPLES, TOLERANCE_FACTOR
from lab.meter.audit import EXIT_NOT_EQUIVARIANT, EXIT_OK, load_target
from lab.meter.family import FAMILY, MeterConfig, build_model

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"ok", "worst", "tolerance", "first_breaking_layer", "per_generator", "per_element", "layers", "group",
        "rep_in", "rep_out", "dtype", "target", "preset", "source", "exit_code"}


def _main(capsys, *args):
    """(exit code, stdout, stderr) of ``lab audit ARGS`` in this process."""
    from lab.cli import main

    code = main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys, *args, code):
    got, out, err = _main(capsys, *args, "--json")
    assert got == code, err
    return json.loads(out)


def test_an_emlp_passes_with_exit_0_and_an_mlp_fails_with_exit_3(capsys):
    assert (EXIT_OK, EXIT_NOT_EQUIVARIANT) == (0, 3)
    ok = _json(capsys, "emlp-o3", code=0)
    assert KEYS <= set(ok) and ok["ok"] is True and ok["exit_code"] == 0
    assert ok["worst"] < ok["tolerance"] and ok["first_breaking_layer"] is None
    assert ok["group"] == "O(3)" and ok["preset"] == "emlp-o3" and ok["source"] == "preset"
    assert len(ok["per_generator"]) == 3 and len(ok["per_element"]) == 1 + DEFAULT_SAMPLES  # a reflection + samples
    assert ok["inputs"] == DEFAULT_INPUTS and all(c["ok"] for c in ok["layers"] if c["ok"] is not None)
    bad = _json(capsys, "mlp-o3", "--samples", "2", "--inputs", "4", code=3)
    assert KEYS <= set(bad) and bad["ok"] is False and bad["exit_code"] == 3
    assert bad["worst"] > 0.1 > 1e-6 > bad["tolerance"]  # an MLP's error is of order one
    assert not any(c["ok"] for c in bad["per_generator"]) and len(bad["per_element"]) == 1 + 2
    assert "first_breaking_layer" in bad and bad["inputs"] == 4  # None here: an MLP's hidden reps are unknown
    code, out, _ = _main(capsys, "mlp-o3", "--samples", "1")
    assert code == 3 and "NOT equivariant" in out and "mlp-o3" in out.splitlines()[0]
    # its hidden layers declare no representation: the text says why no layer is named as the breaking one
    assert "rep unknown, not judged" in out and "no layer is named as the one that breaks equivariance" in out


def test_a_fixed_tolerance_and_another_group_change_the_verdict(capsys):
    # an SO(2) model is not O(2)-equivariant: the reflection fails, the rotation generator does not
    out = _json(capsys, "emlp-so2", "--group", "O(2)", code=3)
    assert all(c["ok"] for c in out["per_generator"]) and not out["per_element"][0]["ok"]
    assert out["per_element"][0]["label"] == "generator 0"
    # an O(3) model is SO(3)-equivariant (its reps re-bound to the subgroup); the layers are not judged there
    assert _json(capsys, "emlp-o3", "--group", "SO(3)", code=0)["group"] == "SO(3)"
    # a tolerance above the MLP's error passes it: the verdict is the number against the tolerance given
    loose = _json(capsys, "mlp-o3", "--tolerance", "1.5", "--samples", "1", code=0)
    assert loose["ok"] is True and loose["tolerance"] == 1.5 and loose["worst"] > 0.1


def test_the_exit_code_as_a_shell_sees_it():
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    res = subprocess.run([sys.executable, "-m", "lab", "audit", "mlp-s4", "--json", "--samples", "1"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    assert res.returncode == 3, res.stderr
    out = json.loads(res.stdout)
    assert out["ok"] is False and out["group"] == "S(4)" and out["per_generator"] == []


@pytest.mark.parametrize("args, says", [
    (["emlp-o3", "--group", "Q(3)"], "unknown group"),
    (["emlp-o3", "--group", "O(3"], "cannot parse"),
    (["emlp-o3", "--rep-in", "V"], "size 3, the model's has 6"),
    (["emlp-o3", "--rep-out", "2*W"], "cannot parse"),
    (["emlp-o3", "--group", "SO(2)"], "size 4, the model's has 6"),
    (["no-such-model"], "unknown model"),
    (["emlp-o3", "--samples", "-1"], "samples"),
    (["emlp-o3", "--tolerance", "-1"], "tolerance"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, says):
    code, out, err = _main(capsys, *args)
    assert code == 2 and out == "" and says in err
    assert len(err.strip().splitlines()) == 1 and err.startswith("lab: error: ")


def test_a_saved_run_is_audited_from_its_own_weights(tmp_path, capsys):
    path = FAMILY.save(FAMILY.run(MeterConfig(model="mlp-o3", transform="generators", samples=4, seed=3)), tmp_path)
    # the weights are the saved ones (seed 3's), not a fresh preset's at the audit's seed
    loaded = load_target(str(path)).model.state_dict()
    for seed, same in ((3, True), (0, False)):
        fresh = build_model("mlp-o3", seed).state_dict()
        assert all(bool((loaded[k] == fresh[k]).all()) for k in fresh) is same
    out = _json(capsys, str(path), "--samples", "2", code=3)
    assert out["source"] == str(path) and out["preset"] == "mlp-o3" and out["ok"] is False
    good = FAMILY.save(FAMILY.run(MeterConfig(model="emlp-o3", transform="generators", samples=4)), tmp_path)
    assert _json(capsys, str(good), "--samples", "2", code=0)["preset"] == "emlp-o3"
    (good / "weights.npz").write_bytes(b"not a zip")
    code, _, err = _main(capsys, str(good))
    assert code == 2 and "weights.npz" in err and len(err.strip().splitlines()) == 1


def test_a_saved_cnn_is_refused_with_one_line(tmp_path, capsys):
    path = FAMILY.save(FAMILY.run(MeterConfig(model="cnn-stride", epochs=1, samples=4)), tmp_path)
    code, out, err = _main(capsys, str(path))
    assert code == 2 and out == "" and "acts on images" in err and len(err.strip().splitlines()) == 1


def test_help_is_light_and_its_defaults_are_the_audits():
    probe = ("import json, runpy, sys\nsys.argv = ['lab', 'audit', '--help']\ntry:\n"
             "    runpy.run_module('lab', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
             "sys.stdout.flush()\n"
             "sys.stderr.write('\\nMODULES ' + json.dumps([code, 'torch' in sys.modules]) + '\\n')\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=600)
    line = [x for x in res.stderr.splitlines() if x.startswith("MODULES ")]
    assert line and json.loads(line[-1][8:]) == [0, False], res.stderr
    text = " ".join(res.stdout.split())
    assert "PATH|PRESET" in text and "emlp-o3" in text and "mlp-o3" in text
    assert f"(default: {DEFAULT_SAMPLES})" in text and f"(default: {DEFAULT_INPUTS})" in text
    assert f"{TOLERANCE_FACTOR} x eps(dtype)" in text
