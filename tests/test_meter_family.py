"""The ``meter`` family, ``lab lie-derivative`` (issue 29): the JSON contract, EMLP zero and MLP non-zero along the
generators, bad input as one line and exit 2, a saved run measured again from its weights, stop before work,
progress to the total, and the lists spelled in the experiments layer agreeing with ``lab.meter``'s."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.config import ConfigError
from lab.control import Control
from lab.errors import LabError
from lab.meter.family import (BATCH, CNN_MODELS, EPOCHS, FAMILY, IMAGE_TRANSFORMS, INPUTS, INTERPOLATIONS, LR,
                              OUTPUTS, PADDINGS, WIDTH, MeterConfig)

ROOT = Path(__file__).resolve().parents[1]
FAST = dict(epochs=1, samples=16)  # 19 Adam steps and 16 images: well under a second


def _lab(*args):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-m", "lab", "lie-derivative", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600)


def _json(*args):
    """The command's JSON in a fresh interpreter (the contract as a user meets it)."""
    res = _lab(*args, "--json", "--no-save")
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def _main(capsys, *args):
    """(exit code, stdout, stderr) of the same command in this process (``lab.cli.main``: no interpreter start)."""
    from lab.cli import main

    code = main(["lie-derivative", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _main_json(capsys, *args):
    code, out, err = _main(capsys, *args, "--json", "--no-save")
    assert code == 0, err
    return json.loads(out)


def test_the_json_contract_for_a_cnn_with_and_without_layers(capsys):
    out = _json("--model", "cnn-stride", "--transform", "translate-x", "--epochs", "2", "--samples", "32")
    assert isinstance(out["lee"], float) and out["lee"] > 0 and "layers" not in out
    assert out["n"] == 32 and out["costs"]["train_steps"] == 2 * 19 and out["costs"]["input_values"] == 32 * 64
    out = _main_json(capsys, "--model", "cnn-stride", "--transform", "translate-x", "--epochs", "2", "--samples",
                     "32", "--layerwise")
    names = [r["name"] for r in out["layers"]]
    assert names[:3] == ["conv1", "act1", "conv2"] and names[-1] == "softmax"  # layer order
    assert all(isinstance(r["contribution"], float) and r["contribution"] >= 0 for r in out["layers"])
    assert sum(r["share"] for r in out["layers"]) == pytest.approx(1, abs=1e-6)  # the C_i sum to L_X f
    assert out["layers"][0]["contribution"] < 1e-12  # a stride-1 circular convolution commutes with translation
    downsampling = sum(r["share"] for r in out["layers"] if r["kind"] == "downsampling")
    assert downsampling > 0.3  # the strided convolutions carry much of it (measured: 0.7-0.9)


def test_emlp_is_zero_along_every_generator_and_the_mlp_is_not(capsys):
    emlp = _json("--model", "emlp-o3", "--transform", "generators", "--samples", "32")
    mlp = _main_json(capsys, "--model", "mlp-o3", "--transform", "generators", "--samples", "32")
    assert [g["index"] for g in emlp["generators"]] == [0, 1, 2] and emlp["measure"] == "lee"
    assert emlp["lee"] < 1e-10 and max(g["lee"] for g in emlp["generators"]) == emlp["lee"]
    assert emlp["discrete_error"]["max"] < 1e-12  # the reflection and sampled elements of O(3) too
    assert mlp["lee"] > 1e-6 and mlp["discrete_error"]["max"] > 1e-3  # measured: 1e-2 and ~1
    assert "layers" not in emlp


def test_a_finite_group_reports_the_discrete_relative_error():
    emlp = FAMILY.summary(FAMILY.run(MeterConfig(model="emlp-s4", transform="generators", samples=16)))
    mlp = FAMILY.summary(FAMILY.run(MeterConfig(model="mlp-s4", transform="generators", samples=16)))
    assert emlp["measure"] == mlp["measure"] == "relative-error"
    assert [g["kind"] for g in emlp["generators"]] == ["discrete", "discrete"]  # S(4): two discrete generators
    assert emlp["lee"] < 1e-12 < 1e-3 < mlp["lee"]
    so2 = FAMILY.summary(FAMILY.run(MeterConfig(model="emlp-so2", transform="generators", samples=16)))
    assert len(so2["generators"]) == 1 and so2["lee"] < 1e-20


@pytest.mark.parametrize("args, words", [
    (["--model", "resnet"], "unknown model 'resnet'"),
    (["--transform", "wiggle"], "invalid choice"),
    (["--samples", "0"], "at least 1"),
    (["--model", "emlp-o3", "--transform", "rotate"], "use --transform generators"),
    (["--model", "emlp-o3"], "use --transform generators"),  # the default translate-x
    (["--transform", "generators"], "matrix-group presets"),
    (["--model", "emlp-o3", "--transform", "generators", "--layerwise"], "does not apply to emlp-o3"),
    (["--model", "mlp-o3", "--transform", "generators", "--inputs", "noise"], "does not apply to mlp-o3"),
    (["--transform", "rotate", "--interpolation", "fourier"], "fourier"),
    (["--epochs", "0"], "at least 1"),
    (["--device", "tpu"], "tpu"),
])
def test_bad_input_is_one_line_and_exit_2(args, words):
    res = _lab(*args, "--no-save")
    assert res.returncode == 2 and words in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not res.stdout


def test_over_the_memory_limit_is_refused_before_work(capsys, monkeypatch):
    monkeypatch.setenv("LAB_MEMORY_LIMIT", "1MB")
    code, out, err = _main(capsys, "--no-save")
    assert code == 2 and "memory limit" in err and len(err.strip().splitlines()) == 1 and not out
    assert "training" not in err  # refused before a step
    small = MeterConfig(samples=4).validate().costs()  # a smaller run fits
    assert small["memory_bytes"] < 2**20 and small["input_values"] == 4 * 64


def test_save_load_round_trip_and_the_saved_model_measured_again(tmp_path, capsys):
    cfg = MeterConfig(model="cnn-blur", transform="translate-y", layerwise=True, **FAST)
    result = FAMILY.run(cfg)
    path = FAMILY.save(result, tmp_path)
    saved = FAMILY.load(path.name, root=FAMILY.results_dir(tmp_path))
    s = FAMILY.summary(result)
    assert saved.meta["summary"]["lee"] == s["lee"] and MeterConfig.from_dict(saved.meta["config"]) == cfg.validate()
    assert list(saved.layers["name"]) == [r["name"] for r in s["layers"]]
    again = FAMILY.summary(FAMILY.run(MeterConfig(model=str(path), transform="translate-y", samples=16)))
    assert again["lee"] == pytest.approx(s["lee"], rel=1e-12) and again["costs"]["train_steps"] == 0
    assert again["source"] == str(path) and again["preset"] == "cnn-blur"
    out = _main_json(capsys, "--model", str(path), "--transform", "rotate", "--samples", "16")  # no training
    assert out["lee"] > 0 and out["costs"]["train_steps"] == 0
    (path / "weights.npz").write_bytes(b"not a zip")
    code, _, err = _main(capsys, "--model", str(path), "--no-save")
    assert code == 2 and "weights.npz" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(LabError):
        FAMILY.load(tmp_path / "nothing")


def test_a_saved_preset_keeps_its_weights(tmp_path):
    result = FAMILY.run(MeterConfig(model="mlp-o3", transform="generators", samples=8, seed=3))
    path = FAMILY.save(result, tmp_path)
    again = FAMILY.run(MeterConfig(model=str(path), transform="generators", samples=8))
    assert FAMILY.summary(again)["lee"] == pytest.approx(FAMILY.summary(result)["lee"], rel=1e-12)
    assert len(FAMILY.load(path).generators) == 3
    with pytest.raises(ConfigError, match="seed does not apply"):
        MeterConfig(model=str(path), transform="generators", seed=1).validate()


def test_stop_before_work_and_progress_climbs_to_the_total(tmp_path):
    control = Control()
    control.stop()
    seen = []
    stopped = FAMILY.run(MeterConfig(**FAST), progress=seen.append, control=control)
    assert stopped.status == "stopped" and stopped.net is None
    s = FAMILY.summary(stopped)
    assert s["lee"] is None and s["status"] == "stopped" and "stopped" in FAMILY.text(stopped)
    assert FAMILY.load(FAMILY.save(stopped, tmp_path)).meta["status"] == "stopped"
    assert not [r for r in seen if r["kind"] == "epoch"]  # not one training step

    records = []
    result = FAMILY.run(MeterConfig(layerwise=True, **FAST), progress=records.append)
    progress = [r for r in records if r["kind"] == "progress"]
    done = [r["done"] for r in progress]
    total = progress[0]["total"]
    assert total == 19 + 2 and done == sorted(done) and done[-1] == total and len(set(done)) >= 3
    assert result.status == "finished"


def test_help_lists_the_command_and_the_lists_agree_with_the_meter():
    res = subprocess.run([sys.executable, "-m", "lab", "--help"], capture_output=True, text=True, cwd=ROOT,
                         timeout=600)
    assert res.returncode == 0 and "lie-derivative" in res.stdout
    from lab.equivariance import transforms
    from lab.meter import aliasing, cnn

    assert CNN_MODELS == tuple(cnn.MODELS) and IMAGE_TRANSFORMS == transforms.TRANSFORMS
    assert INPUTS == aliasing.INPUTS and OUTPUTS == aliasing.STUDY_OUTPUTS
    assert INTERPOLATIONS == transforms.INTERPOLATIONS and PADDINGS == transforms.PADDINGS
    assert (WIDTH, EPOCHS, BATCH, LR) == (cnn.DEFAULT_WIDTH, cnn.DEFAULT_EPOCHS, cnn.DEFAULT_BATCH, cnn.DEFAULT_LR)
    from lab.meter.example import SPANS
    from lab.plots.style import LAYER_KIND_COLOURS, METER_MODEL_COLOURS

    assert tuple(LAYER_KIND_COLOURS) == cnn.LAYER_KINDS and tuple(METER_MODEL_COLOURS) == tuple(cnn.MODELS)
    assert tuple(SPANS) == transforms.TRANSFORMS
