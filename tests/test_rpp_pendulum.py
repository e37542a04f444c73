"""The pendulum regimes of the ``rpp`` family (thesis Figure 3.2, issue 28): RPP-EMLP as a Hamiltonian network, its
summed-likelihood objective, and the ``lab rpp --task pendulum`` contract.  Tiny sizes: seconds each."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from lab.nn.hamiltonian import SYMMETRY, DynamicsSettings, _equivariance, build_model
from lab.rpp.family import FAMILY, RPPConfig
from lab.rpp import regime
from lab.rpp.pendulum import build_rpp, pendulum_chunks, rpp_objective, summed_nll, train

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(size=8, test=4, channels=8, layers=1, epochs=2)


def _lab(*args):
    return subprocess.run([sys.executable, "-m", "lab", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)


def _states(n=16, seed=0):
    from lab.data.pendulum import DoubleSpringPendulum

    return torch.as_tensor(DoubleSpringPendulum().initial_conditions(n, seed), dtype=torch.float32)


def test_rpp_hnn_without_free_pathway_is_exactly_equivariant_and_the_mlp_is_not():
    x = _states()
    torch.manual_seed(0)
    rpp0 = build_rpp("O2eR3()", channels=16, layers=2, scale=2.8, prior_free=0.0)
    rpp = build_rpp("O2eR3()", channels=16, layers=2, scale=2.8)  # the thesis's prior: a small free pathway
    mlp = build_model("hnn-mlp", channels=16, layers=2, scale=2.8)
    errs = [_equivariance(m, "hnn-mlp", SYMMETRY, x) for m in (rpp0, rpp, mlp)]
    assert errs[0] < 1e-5 and errs[2] > 1e-3, errs
    assert errs[0] < errs[1]  # the free pathway (1e-3 of a dense layer at the start) breaks it a little
    assert rpp0.net.free_fractions() == [0.0, 0.0, 0.0]


def test_rpp_hnn_vector_field_is_equivariant_under_the_models_group():
    """The Hamiltonian's invariance carries to its field: f(rho(g) z) = rho(g) f(z), O2eR3() about z."""
    from lab.nn.hamiltonian import to_float64
    from lab.data.pendulum import z_axis_group

    torch.manual_seed(1)
    model = to_float64(build_rpp("O2eR3()", channels=16, layers=2, scale=2.8, prior_free=0.0))
    z = _states(8).double()
    g = torch.as_tensor(z_axis_group("O2eR3()").sample(1, rng=np.random.default_rng(0))[0])
    R = torch.kron(torch.eye(4, dtype=torch.float64), g)
    lhs = model.vector_field(z @ R.T)
    rhs = model.vector_field(z) @ R.T
    assert torch.allclose(lhs, rhs, atol=1e-9), (lhs - rhs).abs().max()


def test_the_summed_nll_is_the_hand_computed_number():
    """Two chunks of 2 times x 12 coordinates, standing for N = 6: 0.5 * (sum of squared errors) * 6 / 2."""
    pred = torch.zeros(2, 2, 12)
    true = torch.zeros(2, 2, 12)
    true[0, 1, 0] = 1.0  # one squared error of 1 in chunk 0
    true[1, 0, 3], true[1, 1, 5] = 2.0, 3.0  # 4 + 9 in chunk 1
    per = (pred - true).pow(2).mean((1, 2))
    assert float(summed_nll(per, n_data=6, points=24)) == pytest.approx(0.5 * (1 + 4 + 9) * 6 / 2)


def test_the_thesis_objective_adds_the_priors_gradient():
    """rpp_objective's backward: the summed NLL's gradient plus theta / s^2 on each pathway."""
    from lab.rpp.nn import Prior

    torch.manual_seed(0)
    model = build_rpp("O2eR3()", channels=8, layers=1, scale=2.8, prior_equivariant=10.0, prior_free=0.5)
    per = model.hamiltonian(_states(4)).pow(2)  # any differentiable per-chunk numbers
    rpp_objective(Prior(10.0, 0.5), n_data=8, points=60)(per, model)
    got = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    per = model.hamiltonian(_states(4)).pow(2)
    by_hand = 0.5 * per.sum() * 60 * 8 / 4 + model.net.prior_penalty()
    by_hand.backward()
    for a, p in zip(got, model.parameters()):
        assert torch.allclose(a, p.grad, rtol=1e-5, atol=1e-6)


def test_train_reports_the_pendulum_numbers():
    reg = regime("pendulum", "exact")
    s = DynamicsSettings(train=6, test=3, epochs=2, channels=8, layers=1)
    data = pendulum_chunks(reg.data, s, seed=0)
    records = []
    out = train("rpp", reg, data, s, seed=0, progress=records.append)
    assert out["test_mse"] > 0 and out["train_mse"] > 0 and out["integrator"] == "dopri5"
    assert len(out["free_fractions"]) == 2 and 0 < out["free_fraction"] < 1
    assert records and records[-1]["epoch"] == records[-1]["epochs"] == 2 and records[-1]["kind"] == "epoch"
    default = train("mlp", reg, data, s, seed=0)  # chapter 2's hnn-mlp, the same loop
    assert default["equivariance_error"] > 1e-3 and "free_fraction" not in default


def test_the_json_contract(tmp_path):
    res = _lab("rpp", "--task", "pendulum", "--symmetry", "approximate", "--seeds", "2", "--size", "8", "--test",
               "4", "--channels", "8", "--layers", "1", "--epochs", "2", "--wind", "0.02", "--device", "cpu",
               "--json", "--out", str(tmp_path))
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert (out["task"], out["symmetry"], out["wind"], out["variant"]) == ("pendulum", "approximate", 0.02, None)
    assert set(out["models"]) == {"mlp", "emlp", "rpp"} and out["size"] == 8 and out["test"] == 4
    for m in out["models"].values():
        assert len(m["test_mse"]) == 2 and all(x > 0 for x in m["test_mse"])
        assert len(m["equivariance_error"]) == 2 and all(isinstance(x, float) for x in m["equivariance_error"])
    assert max(out["models"]["emlp"]["equivariance_error"]) < 1e-5 < min(out["models"]["mlp"]["equivariance_error"])
    assert out["group"] == out["data_group"] == "O2eR3()" and out["target_symmetry_error"] > 0.01  # the wind
    assert len(out["models"]["rpp"]["free_fraction"]) == 2
    assert len(out["still_mse"]) == 2 and all(x > 0 for x in out["still_mse"])  # the no-motion baseline per seed
    saved = FAMILY.load(next(tmp_path.glob("*/config.json")).parent)
    assert saved.meta["summary"]["models"]["rpp"]["test_mse"] == out["models"]["rpp"]["test_mse"]
    assert sorted(saved.results["seed"]) == [0, 0, 0, 1, 1, 1]


def test_misspecified_is_so3_against_the_datas_o2():
    cfg = RPPConfig(task="pendulum", symmetry="misspecified", models=("emlp",), seeds=1, **TINY)
    out = FAMILY.summary(FAMILY.run(cfg))
    assert out["group"] == "SO(3)" and out["data_group"] == "O2eR3()" and out["wind"] is None
    assert out["target_symmetry_error"] > 0.1  # gravity is not SO(3)-symmetric
    assert len(out["models"]["emlp"]["test_mse"]) == 1 and out["models"]["emlp"]["test_mse"][0] > 0


def test_costs_before_work():
    cfg = RPPConfig(task="pendulum").validate()
    s = cfg.pendulum_settings()
    assert (cfg.train_points, cfg.test_points, s.epochs, s.channels, s.layers) == (64, 64, 40, 32, 3)
    assert cfg.total_steps() == 3 * 3 * 40 and cfg.data_bytes() == 8 * 12 * 128 * (2 * 150 + 16)
    paper = RPPConfig(task="pendulum", scale="paper").validate()
    p = paper.pendulum_settings()
    assert (paper.train_points, paper.test_points, p.epochs, p.channels, p.substeps) == (500, 500, 1000, 128, 2)
    assert paper.total_steps() == 3 * 10 * 1000 and paper.seed_count == 10
    from lab.rpp.family import PENDULUM_STEP_WEIGHTS

    assert cfg.total_work() == 3 * 40 * sum(PENDULUM_STEP_WEIGHTS.values())
    records = []
    with pytest.raises(Exception, match="memory limit"):
        FAMILY.run(RPPConfig(task="pendulum", size=10_000_000), progress=records.append)
    assert records == []


def test_the_default_wind_is_the_thesis_eps():
    import lab.rpp.family as fam
    import lab.rpp as rpp

    assert fam.EPS == rpp.EPS and RPPConfig().wind == rpp.EPS


@pytest.mark.parametrize("args, words", [
    (["--task", "inertia", "--wind", "0.02"], "pendulum only"),
    (["--task", "pendulum", "--symmetry", "exact", "--wind", "0.02"], "approximate only"),
    (["--task", "pendulum", "--wind", "-1"], "at least 0"), (["--task", "pendulum", "--wind", "x"], "invalid float"),
    (["--task", "pendulum", "--variant", "thesis"], "inertia only")])
def test_bad_input_is_one_line_and_exit_2(args, words):
    res = _lab("rpp", *args, "--no-save")
    assert res.returncode == 2 and words in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_prior_wind_grid_rows():
    """The priors-against-the-wind study: one row per (wind, variance); the wind's own symmetry breaking grows with
    eps; a variance of 0 keeps the model exactly O2eR3()-invariant whatever the wind."""
    from lab.errors import LabError
    from lab.rpp.pendulum import prior_wind_grid

    s = DynamicsSettings(train=4, test=2, epochs=1, channels=8, layers=1)
    records = []
    rows = prior_wind_grid(winds=(0.0, 0.05), prior_free=(0.0, 1.0), settings=s, progress=records.append)
    assert [(r["wind"], r["prior_free"]) for r in rows] == [(0.0, 0.0), (0.0, 1.0), (0.05, 0.0), (0.05, 1.0)]
    assert rows[0]["target_symmetry_error"] < 1e-12 < 0.01 < rows[2]["target_symmetry_error"]
    assert rows[2]["equivariance_error"] < 1e-5 < rows[3]["equivariance_error"]
    assert rows[2]["free_fraction"] == 0 < rows[3]["free_fraction"]
    assert all(r["test_mse"] > 0 for r in rows) and len([r for r in records if r["kind"] == "cell"]) == 4
    records.clear()
    with pytest.raises(LabError):
        prior_wind_grid(winds=(float("nan"),), settings=s, progress=records.append)
    with pytest.raises(LabError):
        prior_wind_grid(prior_free=(-1.0,), settings=s, progress=records.append)
    assert records == []


def test_the_runners_weight_decay_on_the_pendulum():
    """``--prior runner-pendulum``: the MSE plus decays 1e-4 / 1; a prior_free variance becomes the decay of the same
    MAP objective over N x chunk_len x 12 squared errors."""
    from lab.rpp.nn import WeightDecay
    from lab.rpp import objective

    cfg = RPPConfig(task="pendulum", symmetry="exact", models=("rpp",), prior="runner-pendulum", seeds=1, **TINY)
    out = FAMILY.summary(FAMILY.run(cfg))
    assert out["prior"] == "runner-pendulum" and 0 < out["models"]["rpp"]["free_fraction"][0] < 1
    obj, variances = objective("runner-pendulum", prior_free=2.0, n_data=8, d_out=60)
    assert isinstance(obj, WeightDecay) and obj.free == pytest.approx(1 / (2 * 8 * 60 * 2.0))
