"""The ``ensembles`` family, ``lab ensembles`` (issue 30): the JSON contract, exact costs before work, bad input as
one line and exit 2, save / load, stop, progress to the total, and the lists spelled in the experiments layer
agreeing with ``lab.ensembles``'s."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lab.control import Control
from lab.ensembles.family import AUGMENTS, AVERAGES, FAMILY, SETTINGS, EnsemblesConfig

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(members=4, pool_factor=2, steps=6, channels=2, test_points=16, records=3, resamples=4)


def _main(capsys, *args):
    from lab.cli import main

    try:
        code = main(["ensembles", *args])
    except SystemExit as stop:  # argparse's own refusals (an unknown choice) exit
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_the_json_contract(capsys):
    code, out, err = _main(capsys, "--members", "4", "--pool-factor", "2", "--steps", "6", "--channels", "2",
                           "--test-points", "16", "--records", "3", "--resamples", "4", "--json", "--no-save")
    assert code == 0, err
    s = json.loads(out)
    assert s["sizes"] == [1, 2, 4]
    for key in ("equivariance_error", "divergence", "orbit_same_prediction"):
        assert len(s[key]) == 3 and all(isinstance(v, float) for v in s[key])
    assert isinstance(s["slope"], float) and math.isfinite(s["slope"])
    assert all(1 <= v <= 4 for v in s["orbit_same_prediction"])
    assert s["assumptions"] == {"space_invariant": True, "init_invariant": True, "theorem_applies": True}
    assert s["costs"]["member_steps"] == 8 * 6 and s["costs"]["pool"] == 8 and s["steps_done"] == 6
    assert s["noise"]["sizes"] == [1, 2, 4] and s["step"] == 6


def test_sizes_records_and_costs_are_exact_before_work():
    cfg = EnsemblesConfig(members=12, steps=10, records=4).validate()
    assert cfg.sizes() == [1, 2, 4, 8, 12] and cfg.pool == 48 and cfg.record_steps() == [0, 3, 7, 10]
    assert cfg.costs()["member_steps"] == 480
    assert len(set(cfg.member_seeds())) == 48
    # member m's seed does not depend on the pool's size (a member's start is its own)
    assert EnsemblesConfig(members=2).member_seeds() == cfg.member_seeds()[:8]


@pytest.mark.parametrize("args, words", [
    (["--task", "perm", "--channels", "4"], "--channels applies to --task digits"),
    (["--task", "custom", "--augment", "orbit"], "enumerates the group"),
    (["--group", "S(5)"], "--group applies to --task custom"),
    (["--task", "custom", "--group", "SO(3)"], "signed-permutation"),
    (["--setting", "sideways"], "sideways"),
    (["--members", "0"], "at least 1"),
    (["--device", "tpu"], "tpu"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, words):
    code, out, err = _main(capsys, *args, "--no-save")
    assert code == 2 and words in err, err
    assert len(err.strip().splitlines()) == 1 and not out


def test_over_the_memory_limit_is_refused_before_work(capsys, monkeypatch):
    monkeypatch.setenv("LAB_MEMORY_LIMIT", "1MB")
    code, out, err = _main(capsys, "--members", "256", "--no-save")
    assert code == 2 and "memory limit" in err and len(err.strip().splitlines()) == 1 and not out


def test_save_load_stop_and_progress(tmp_path):
    records = []
    result = FAMILY.run(EnsemblesConfig(setting="noninvariant-space", **TINY), progress=records.append)
    s = FAMILY.summary(result)
    assert s["assumptions"]["space_invariant"] is False and result.status == "finished"
    progress = [r for r in records if r["kind"] == "progress"]
    done = [r["done"] for r in progress]
    assert progress[0]["total"] == 8 * 6 and done == sorted(done) and done[-1] == 8 * 6
    assert [r["step"] for r in records if r["kind"] == "record"] == [0, 3, 6]
    path = FAMILY.save(result, tmp_path)
    saved = FAMILY.load(path.name, root=FAMILY.results_dir(tmp_path))
    assert saved.meta["summary"]["equivariance_error"] == s["equivariance_error"]
    assert len(saved.records) == 3 * 2 * 3  # records x input sets x sizes
    assert EnsemblesConfig.from_dict(saved.meta["config"]) == EnsemblesConfig(setting="noninvariant-space",
                                                                              **TINY).validate()
    control = Control()
    control.stop()
    stopped = FAMILY.run(EnsemblesConfig(**TINY), control=control)
    assert stopped.status == "stopped" and FAMILY.summary(stopped)["steps_done"] == 0
    assert "stopped" in FAMILY.text(stopped)


@pytest.mark.parametrize("task", ["perm", "custom"])
def test_the_vector_tasks_run_the_three_settings_on_the_dynamics_models(task):
    out = {}
    for setting in ("invariant", "noninvariant-space"):
        cfg = EnsemblesConfig(task=task, setting=setting, members=4, pool_factor=2, steps=4, test_points=12,
                              records=2, resamples=4)
        s = FAMILY.summary(FAMILY.run(cfg))
        assert s["sizes"] == [1, 2, 4] and len(s["equivariance_error"]) == 3 and s["example"] is None
        assert all(1 <= v <= 4 for v in s["orbit_same_prediction"])  # the identity and three sampled elements
        out[setting] = s["assumptions"]
    assert out["invariant"]["theorem_applies"] and not out["noninvariant-space"]["space_invariant"]


def test_help_lists_the_command_and_the_lists_agree_with_the_science():
    res = subprocess.run([sys.executable, "-m", "lab", "--help"], capture_output=True, text=True, cwd=ROOT,
                         timeout=600, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert res.returncode == 0 and "ensembles" in res.stdout
    from lab.ensembles.metrics import AVERAGES as SCIENCE_AVERAGES
    from lab.ensembles.network import SETTINGS as SCIENCE_SETTINGS
    from lab.ensembles.train import AUGMENTS as SCIENCE_AUGMENTS
    from lab.ensembles.vectors import VECTOR_TASKS as SCIENCE_VECTOR_TASKS
    from lab.ensembles.family import VECTOR_TASKS

    assert VECTOR_TASKS == SCIENCE_VECTOR_TASKS

    assert SETTINGS == tuple(SCIENCE_SETTINGS) and AUGMENTS == SCIENCE_AUGMENTS and AVERAGES == SCIENCE_AVERAGES


def _idx(path: Path, array) -> None:
    import numpy as np

    header = bytes([0, 0, 8, array.ndim]) + b"".join(int(d).to_bytes(4, "big") for d in array.shape)
    path.write_bytes(header + np.asarray(array, dtype=np.uint8).tobytes())


def test_mnist_from_the_users_idx_files(tmp_path, capsys):
    """--data DIR: MNIST from IDX files the user has (written here: 40 training and 20 test images), at 14 x 14."""
    import numpy as np

    rng = np.random.default_rng(0)
    for split, n in (("train", 40), ("t10k", 20)):
        _idx(tmp_path / f"{split}-images-idx3-ubyte", rng.integers(0, 256, (n, 28, 28)))
        _idx(tmp_path / f"{split}-labels-idx1-ubyte", rng.integers(0, 10, n))
    cfg = EnsemblesConfig(data=str(tmp_path), members=2, pool_factor=2, steps=2, channels=2, test_points=8, records=2,
                          resamples=2)
    assert cfg.validate().side() == 14
    assert cfg.costs()["parameters"] == 4 * (2 * 9 + 2 * 2 * 2 * 9 + 10 * 2 * 7 * 7)  # fc on 7 x 7 pooled maps
    s = FAMILY.summary(FAMILY.run(cfg))
    assert s["sizes"] == [1, 2] and np.asarray(s["example"]["images"]).shape == (4, 14, 14)
    (tmp_path / "t10k-labels-idx1-ubyte").unlink()
    code, out, err = _main(capsys, "--data", str(tmp_path), "--no-save")
    assert code == 2 and "t10k-labels" in err and len(err.strip().splitlines()) == 1
