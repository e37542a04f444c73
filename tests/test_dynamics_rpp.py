"""RPP (residual pathway priors, Finzi's thesis section 3.4) as a strategy of the training-dynamics experiment:
A = A_eq + A_free from the common equivariant start (A_eq = A0, A_free = 0), trained on the nominal data, each
pathway's Gaussian prior divided by the N training samples (the trainer's loss is a mean) and taken implicitly."""
from __future__ import annotations

import json
import math

import pytest
import torch

from lab.dynamics.config import STRATEGIES, DynamicsConfig
from lab.dynamics.store import load_run, save_run
from lab.dynamics.train import Trainer
from lab.errors import LabError
from lab.plots.style import COLOURS, LABELS

CUSTOM = dict(experiment="custom", runs=2, device="cpu")
PERM = dict(experiment="perm", runs=2, device="cpu", options={"nodes": 5, "graphs": 30})


def _totals(tr: Trainer, strategy: str, key: str = "dist_from_E", run: int = 0) -> list[float]:
    """One run's ``key`` at every step (the "total" layer)."""
    return [r[key] for r in tr.records if r["strategy"] == strategy and r["layer"] == "total" and r["run"] == run]


def _norm(ts) -> float:
    return math.sqrt(sum(float((t ** 2).sum()) for t in ts))


def test_rpp_is_a_strategy_with_its_own_colour_and_label():
    assert "rpp" in STRATEGIES and LABELS["rpp"] == "RPP"
    assert COLOURS["rpp"] not in {c for s, c in COLOURS.items() if s != "rpp"}


def test_it_starts_at_the_common_equivariant_start_with_an_empty_free_pathway():
    tr = Trainer(DynamicsConfig(steps=1, strategies=("equi", "rpp"), **CUSTOM))
    eq, free = tr.pathways["rpp"]
    for a0, p, e, f in zip(tr.A0, tr.params["rpp"], eq, free):
        assert torch.equal(p, a0) and torch.equal(e, a0) and not f.any()
    assert _totals(tr, "rpp", "free_fraction") == _totals(tr, "rpp", "free_fraction", run=1) == [0.0]  # step 0
    assert math.isnan(_totals(tr, "equi", "free_fraction")[0])  # no pathways: not applicable


def test_a_vanishing_free_variance_is_equi():
    """sigma_free^2 -> 0 (1e-12: a penalty 1e12 / N, far beyond any explicit step's stability): RPP follows Equi's
    trajectory to float tolerance (the equivariant prior 1e5 moves it by lr / (1e5 N) per step) and stays in E."""
    tr = Trainer(DynamicsConfig(steps=6, strategies=("equi", "rpp"), rpp_prior_free=1e-12, **CUSTOM))
    tr.run()
    for p_rpp, p_equi in zip(tr.params["rpp"], tr.params["equi"]):
        torch.testing.assert_close(p_rpp, p_equi, rtol=1e-6, atol=1e-9)
    assert max(_totals(tr, "rpp")) < 1e-8 and max(_totals(tr, "rpp", "free_fraction")) < 1e-8
    assert tr.summary()["equi"]["dist_from_init"] > 1e-2  # it did move


def test_a_flat_free_prior_drifts_from_E_as_nom_does():
    """A huge free variance: the part outside E lives in the free pathway, trained by nom's gradient, so the first
    step's distance from E is nom's exactly, and after a few steps it is of nom's size (not Equi's 0); a tiny
    equivariant variance as well empties the equivariant pathway at once (free fraction ~1: A0 is dropped)."""
    tr = Trainer(DynamicsConfig(steps=8, strategies=("nom", "rpp"), rpp_prior_free=1e12, **CUSTOM))
    tr.run()
    nom, rpp = _totals(tr, "nom"), _totals(tr, "rpp")
    assert rpp[1] == pytest.approx(nom[1], rel=1e-10) and nom[1] > 1e-3
    assert 0.5 < rpp[-1] / nom[-1] < 2 and rpp[-1] > 2 * rpp[1]  # it keeps growing, as nom's
    tiny = Trainer(DynamicsConfig(steps=1, strategies=("nom", "rpp"), rpp_prior_free=1e12, rpp_prior_eq=1e-9,
                                  **CUSTOM))
    tiny.run()
    assert _totals(tiny, "rpp")[1] == pytest.approx(_totals(tiny, "nom")[1], rel=1e-10)
    assert _totals(tiny, "rpp", "free_fraction")[1] > 0.999


def test_the_first_step_shrinks_nom_drift_by_the_free_prior():
    """From A0 in E both take the same gradient g; RPP's part outside E is -lr Pi_perp g / (1 + lr k_free) with
    k_free = 1 / (sigma_free^2 N): its distance from E is nom's divided by 1 + lr / (sigma_free^2 N)."""
    tr = Trainer(DynamicsConfig(steps=1, strategies=("nom", "rpp"), rpp_prior_free=0.05, **CUSTOM))
    tr.run()
    factor = 1 + tr.config.lr / (0.05 * len(tr.X))
    for run in (0, 1):
        assert _totals(tr, "rpp", run=run)[1] * factor == pytest.approx(_totals(tr, "nom", run=run)[1], rel=1e-10)


def test_at_the_defaults_rpp_drifts_between_equi_and_nom():
    tr = Trainer(DynamicsConfig(steps=10, strategies=("nom", "aug", "equi", "rpp"), **PERM))
    tr.run()
    s = tr.summary()
    assert s["equi"]["dist_from_E"] < 1e-12 < s["rpp"]["dist_from_E"] < s["nom"]["dist_from_E"]
    assert 0 < s["rpp"]["free_fraction"] < 1
    last = [r for r in tr.records if r["strategy"] == "rpp" and r["step"] == 10]
    assert all(0 < r["free_fraction"] < 1 for r in last)  # every layer, every run
    assert "free_fraction" not in s["nom"] and math.isnan(_totals(tr, "nom", "free_fraction")[-1])


def test_the_penalty_gradient_and_the_step_by_hand():
    tr = Trainer(DynamicsConfig(steps=1, strategies=("rpp",), rpp_prior_eq=2.0, rpp_prior_free=0.5, **CUSTOM))
    N = len(tr.X)
    eq = [torch.full_like(p, 3.0) for p in tr.A0]
    free = [torch.full_like(p, -1.0) for p in tr.A0]
    g_eq, g_free = tr.rpp_penalty_gradient(eq, free)
    for g in g_eq:  # d/dA of |A|^2 / (2 * 2.0 * N)
        torch.testing.assert_close(g, torch.full_like(g, 3.0 / (2.0 * N)))
    for g in g_free:  # d/dA of |A|^2 / (2 * 0.5 * N)
        torch.testing.assert_close(g, torch.full_like(g, -1.0 / (0.5 * N)))
    # the trainer's step: A_eq <- (A_eq - lr Pi_E g) / (1 + lr k_eq), A_free <- (A_free - lr g) / (1 + lr k_free),
    # i.e. theta_new = theta - lr (g_theta + penalty gradient at theta_new)
    lr = tr.config.lr
    g, _, _ = tr.gradient("rpp")
    start = [[p.clone() for p in part] for part in tr.pathways["rpp"]]
    tr.train_step()
    new_eq, new_free = tr.pathways["rpp"]
    pen_eq, pen_free = tr.rpp_penalty_gradient(new_eq, new_free)
    for a, n, gg, pen in zip(start[0], new_eq, tr.model.project(g), pen_eq):
        torch.testing.assert_close(n, a - lr * (gg + pen), rtol=1e-10, atol=1e-12)
    for a, n, gg, pen in zip(start[1], new_free, g, pen_free):
        torch.testing.assert_close(n, a - lr * (gg + pen), rtol=1e-10, atol=1e-12)
    for p, e, f in zip(tr.params["rpp"], new_eq, new_free):
        torch.testing.assert_close(p, e + f, rtol=0, atol=1e-14)
    assert _norm([e - q for e, q in zip(new_eq, tr.model.project(new_eq))]) < 1e-12  # A_eq stays in E


def test_bad_priors_are_refused_typed():
    with pytest.raises(LabError, match="equivariant prior variance"):
        DynamicsConfig(strategies=("rpp",), rpp_prior_eq=0.0).validate()
    with pytest.raises(LabError, match="free prior variance"):
        DynamicsConfig(strategies=("rpp",), rpp_prior_free=-1.0).validate()
    with pytest.raises(LabError, match="overflows"):
        DynamicsConfig(strategies=("rpp",), rpp_prior_free=1e-320).validate()


@pytest.mark.parametrize("args, needle", [
    (["--rpp-prior-free", "0"], "free prior variance"),
    (["--rpp-prior-eq", "-1"], "equivariant prior variance"),
    (["--rpp-prior-free", "nan"], "free prior variance"),
    (["--rpp-prior-eq", "1e-320"], "overflows"),
])
def test_bad_priors_exit_2_with_one_line(args, needle, capsys):
    from lab.cli import main

    code = main(["dynamics", "--experiment", "custom", "--runs", "1", "--steps", "1", "--strategies", "nom,rpp",
                 *args])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and needle in err


def test_cli_json_and_the_saved_run_carry_rpp(tmp_path, capsys):
    from lab.cli import main

    code = main(["dynamics", "--experiment", "custom", "--runs", "2", "--steps", "3", "--strategies",
                 "nom,aug,equi,rpp", "--out", str(tmp_path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and set(out) == {"nom", "aug", "equi", "rpp"}
    assert out["equi"]["dist_from_E"] < 1e-10 < out["rpp"]["dist_from_E"]
    assert 0 < out["rpp"]["free_fraction"] < 1 and out["rpp"]["runs"] == 2 and out["rpp"]["steps"] == 3
    (path,) = tmp_path.iterdir()
    run = load_run(path)
    assert run.config["strategies"] == ["nom", "aug", "equi", "rpp"] and run.config["rpp_prior_free"] == 1.0
    final = run.metrics[(run.metrics.step == 3) & (run.metrics.layer == "total")]
    rpp = final[final.strategy == "rpp"]
    assert rpp.dist_from_E.median() == pytest.approx(out["rpp"]["dist_from_E"])
    assert rpp.free_fraction.median() == pytest.approx(out["rpp"]["free_fraction"])
    assert final[final.strategy == "nom"].free_fraction.isna().all()
    code = main(["dynamics", "--experiment", "custom", "--runs", "2", "--steps", "3", "--strategies", "nom,rpp",
                 "--no-save"])  # the text table: a free-fraction column, a dash for the strategy without pathways
    head, nom, rpp_line = capsys.readouterr().out.strip().splitlines()[-3:]
    assert code == 0 and head.split()[-1] == "|A_free|/|A|" and nom.split()[-1] == "-"
    assert 0 < float(rpp_line.split()[-1]) < 1


def test_a_saved_rpp_run_loads_back(tmp_path):
    tr = Trainer(DynamicsConfig(steps=2, strategies=("equi", "rpp"), **CUSTOM))
    tr.run()
    run = load_run(save_run(tr, tmp_path))
    assert len(run.metrics) == len(tr.records)
    mine = [r["free_fraction"] for r in tr.records if r["strategy"] == "rpp"]
    assert run.metrics[run.metrics.strategy == "rpp"].free_fraction.tolist() == pytest.approx(mine, rel=1e-12)
    assert run.meta["summary"]["rpp"]["free_fraction"] == pytest.approx(tr.summary()["rpp"]["free_fraction"])
    header = (run.path / "metrics.csv").read_text().split("\n", 1)[0].split(",")
    assert header[-1] == "diverged" and "free_fraction" in header  # diverged last: a cut last row is caught
    # a run saved before the column existed still loads
    frame = run.metrics.drop(columns="free_fraction")
    frame.to_csv(run.path / "metrics.csv", index=False)
    assert "free_fraction" not in load_run(run.path).metrics and len(load_run(run.path).metrics) == len(frame)


def test_the_pane_offers_rpp_and_draws_it(tmp_path):
    from lab.dynamics.pane import TrainingDynamics

    tr = Trainer(DynamicsConfig(steps=2, strategies=("nom", "rpp"), **CUSTOM))
    tr.run()
    save_run(tr, tmp_path)
    pane = TrainingDynamics(results=str(tmp_path))
    choices = [w for w in pane._controls.select() if getattr(w, "name", "") == "Strategies"]
    assert choices and choices[0].options["RPP"] == "rpp"
    assert pane.param.rpp_prior_free.default == 1.0 and pane.param.rpp_prior_eq.default == 1e5
    (path,) = tmp_path.iterdir()
    assert pane.load(str(path))
    from polling import poll_until

    assert poll_until(pane, lambda: not pane.runner.busy)
    assert pane.strategies == ["nom", "rpp"]
    xs, ys = pane.live.points("drift-nom", "rpp")
    assert len(xs) == 3 and ys[-1] == pytest.approx(tr.summary()["rpp"]["dist_from_E"])
