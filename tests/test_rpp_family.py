"""The ``rpp`` family (thesis chapter 3, Figure 3.2; issue 28): the ``lab rpp`` contract, bad input, save/load,
stop, costs before work, and the issue's check on approximate inertia at the fast settings."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lab.control import Control
from lab.errors import LabError
from lab.rpp.family import FAMILY, RPPConfig

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(size=20, test=20, channels=16, layers=1, epochs=2, seeds=2)


def _lab(*args, env=None):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=600)


def test_the_json_contract(tmp_path):
    res = _lab("rpp", "--task", "inertia", "--symmetry", "misspecified", "--seeds", "2", "--size", "20", "--test",
               "20", "--channels", "16", "--layers", "1", "--epochs", "2", "--prior-free", "0.5", "--device", "cpu",
               "--json", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert {"task", "symmetry", "models"} <= set(out) and (out["task"], out["symmetry"]) == ("inertia", "misspecified")
    assert set(out["models"]) == {"mlp", "emlp", "rpp"}
    for m in out["models"].values():
        assert len(m["test_mse"]) == 2 and all(x > 0 for x in m["test_mse"])
        assert len(m["equivariance_error"]) == 2 and all(isinstance(x, float) for x in m["equivariance_error"])
    assert out["group"] == "SL(3)" and out["data_group"] == "O(3)"  # errors under the data's own O(3)
    assert out["target_symmetry_error"] > 0.1  # inertia is not SL(3)-equivariant
    assert out["prior_free"] == 0.5 and len(out["models"]["rpp"]["free_fraction"]) == 2
    assert len(out["mean_mse"]) == 2 and all(x > 0 for x in out["mean_mse"]) and out["still_mse"] is None
    assert len(list(tmp_path.glob("*/config.json"))) == 1  # saved


def test_exact_symmetry_emlp_is_equivariant_under_the_datas_group():
    result = FAMILY.run(RPPConfig(symmetry="exact", models=("mlp", "emlp"), **TINY))
    out = FAMILY.summary(result)
    mean_row = [line for line in FAMILY.text(result).splitlines() if line.startswith("mean ")]
    assert len(mean_row) == 1 and "predicting the training targets' mean" in mean_row[0]
    assert out["target_symmetry_error"] < 1e-12 and out["variant"] is None
    assert max(out["models"]["emlp"]["equivariance_error"]) < 1e-4 < min(out["models"]["mlp"]["equivariance_error"])


@pytest.mark.parametrize("args, words", [
    (["--symmetry", "partial"], "invalid choice"), (["--prior-free", "-1"], "at least 0"),
    (["--prior-free", "x"], "invalid float"), (["--prior-free", "inf"], "finite"),
    (["--prior-free", "0", "--prior-equivariant", "0"], "both 0"), (["--prior", "flat"], "invalid choice"),
    (["--wind", "0.02"], "pendulum only"), (["--symmetry", "exact", "--variant", "thesis"], "approximate only"),
    (["--models", "cnn"], "unknown value"), (["--models", "mlp", "--prior-free", "2"], "rpp model only"),
    (["--size", "1"], "at least 2"), (["--seeds", "0"], "at least 1")])
def test_bad_input_is_one_line_and_exit_2(args, words):
    res = _lab("rpp", *args, "--no-save")
    assert res.returncode == 2 and words in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_save_load_and_stop(tmp_path):
    cfg = RPPConfig(symmetry="approximate", variant="original", **TINY)
    result = FAMILY.run(cfg)
    assert FAMILY.text(result).splitlines()[0].startswith("inertia-approximate (original variant)")
    path = FAMILY.save(result, tmp_path)
    saved = FAMILY.load(path)
    summary = FAMILY.summary(result)
    assert saved.meta["summary"]["models"]["rpp"]["test_mse"] == summary["models"]["rpp"]["test_mse"]
    assert RPPConfig.from_dict(saved.meta["config"]) == cfg.validate()
    assert sorted(saved.results["model"]) == ["emlp", "emlp", "mlp", "mlp", "rpp", "rpp"]
    assert sorted(saved.results["seed"]) == [0, 0, 0, 1, 1, 1] and len(saved.curves) >= 6
    rpp = saved.results[saved.results["model"] == "rpp"]
    assert len(str(rpp["free_fractions"].iloc[0]).split()) == 2  # one per linear layer (1 block + the output)
    control = Control()
    control.stop()
    stopped = FAMILY.run(cfg, control=control)
    assert stopped.status == "stopped" and stopped.rows == [] and FAMILY.summary(stopped)["status"] == "stopped"
    assert FAMILY.summary(stopped)["models"]["rpp"]["test_mse"] == []
    FAMILY.save(stopped, tmp_path)
    with pytest.raises(LabError):
        FAMILY.load(tmp_path / "nothing")


class _StopAfter(Control):
    def __init__(self, k):
        super().__init__()
        self.k, self.calls = k, 0

    def checkpoint(self):
        self.calls += 1
        if self.calls >= self.k:
            self.stop()
        super().checkpoint()


def test_progress_climbs_to_the_total_and_a_run_stops_midway():
    cfg = RPPConfig(symmetry="exact", **TINY)
    records = []
    result = FAMILY.run(cfg, progress=records.append)
    prog = [r for r in records if r["kind"] == "progress"]
    total = cfg.validate().total_work()
    assert all(r["total"] == total for r in prog) and prog[-1]["done"] == total
    assert all(a["done"] <= b["done"] for a, b in zip(prog, prog[1:]))
    assert {r["model"] for r in records if r["kind"] == "epoch"} == {"mlp", "emlp", "rpp"}
    assert len([r for r in records if r["kind"] == "result"]) == 6 == len(result.rows)
    stopped = FAMILY.run(cfg, control=_StopAfter(8))  # a few steps in: the rows finished so far are kept
    assert stopped.status == "stopped" and 0 < len(stopped.rows) < 6


def test_the_costs_are_known_before_work():
    cfg = RPPConfig().validate()  # small: 1000 points, 80 epochs of batch 500, 3 models x 3 seeds
    assert cfg.train_points == 1000 and cfg.seed_count == 3 and cfg.total_steps() == 9 * 160
    assert cfg.total_work() == 3 * 160 * (2 + 9 + 10) and cfg.data_bytes() == 8 * 2000 * (2 * 29 + 64)
    paper = RPPConfig(scale="paper").validate()  # the thesis: 1000 points, 500 epochs of batch 500, 10 seeds
    assert paper.schedule().steps(1000) == 1000 and paper.seed_count == 10 and paper.total_steps() == 30 * 1000
    assert paper.schedule().channels == 384 and paper.schedule().layers == 3 and paper.test_points == 1000
    records = []
    with pytest.raises(LabError):  # the data alone is over the memory limit: refused before anything runs
        FAMILY.run(RPPConfig(size=10_000_000, test=10_000_000), progress=records.append)
    assert records == []


def test_prior_free_zero_is_the_emlps_function_space():
    out = FAMILY.summary(FAMILY.run(RPPConfig(symmetry="exact", models=("rpp",), prior_free=0.0, **TINY)))
    assert max(out["models"]["rpp"]["equivariance_error"]) < 1e-4 and out["models"]["rpp"]["free_fraction"] == [0, 0]


def test_the_configs_choices_are_lab_rpps():
    """The config spells its choices out (``lab --help`` does not import torch); they are ``lab.rpp``'s."""
    import lab.rpp.family as fam
    import lab.rpp as rpp

    assert (fam.TASKS, fam.SYMMETRIES, fam.VARIANTS) == (rpp.TASKS, rpp.SYMMETRIES, rpp.VARIANTS)
    assert fam.MODELS == rpp.MODELS and fam.PRIOR_NAMES == rpp.PRIOR_NAMES


def test_an_emlp_with_nothing_to_train_is_named():
    """8 channels over SL(3) hold no equivariant path to T(2): the EMLP's output is a constant, said so in words."""
    cfg = RPPConfig(symmetry="misspecified", models=("emlp",), size=20, test=20, channels=8, layers=1, epochs=1,
                    seeds=1)
    with pytest.raises(LabError, match="use more channels"):
        FAMILY.run(cfg)


def test_the_runners_weight_decay_is_a_named_prior():
    """``--prior runner-inertia``: the authors' mean loss + decays (free 1e2: the free pathway stays tiny);
    ``prior_free`` there is a variance too, turned into the decay of the same MAP objective."""
    from lab.rpp.nn import WeightDecay
    from lab.rpp import objective

    cfg = RPPConfig(symmetry="approximate", variant="original", models=("rpp",), prior="runner-inertia", **TINY)
    out = FAMILY.summary(FAMILY.run(cfg))
    assert out["prior"] == "runner-inertia" and all(x < 0.05 for x in out["models"]["rpp"]["free_fraction"])
    obj, variances = objective("runner-inertia", prior_free=2.0, n_data=20, d_out=9)
    assert isinstance(obj, WeightDecay) and obj.free == pytest.approx(1 / (2 * 20 * 9 * 2.0))
    assert variances[1] == 2.0 and obj.equivariant == 1e-3


def test_weight_offset_reseeds_the_weights_on_the_same_data():
    """``weight_offset``: a reseeded replicate on the same data draws (the rpp-regimes claim's null): other weights,
    the same training and test sets; 0 is each seed's own."""
    cfg = dict(symmetry="exact", models=("mlp",), size=20, test=20, channels=16, layers=1, epochs=2, seeds=1)
    base, same, other = (FAMILY.summary(FAMILY.run(RPPConfig(weight_offset=k, **cfg))) for k in (0, 0, 7))
    assert base["models"]["mlp"]["test_mse"] == same["models"]["mlp"]["test_mse"]
    assert other["models"]["mlp"]["test_mse"] != base["models"]["mlp"]["test_mse"]
    assert other["seed_list"] == base["seed_list"] == [0]  # the data's seed
    assert not RPPConfig.option_named("weight_offset").ui  # the claim's, not a dashboard control
