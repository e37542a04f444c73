"""The theory checks of the dynamics paper under the quick profile (Prop. 1 and Cor. 1, Cor. 2's exact-orbit
dynamics, §5.1 (i), the penalty hypothesis of §4.2 and §6), and the identities behind them checked independently on
tiny cases."""
import json

import numpy as np
import pytest
import torch

from lab.reproduce import CLAIMS, load_claims

IDS = ("dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-aug-leaves-E", "dyn-penalty-hypothesis")

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("reproduce")]


@pytest.fixture(scope="module")
def outcomes(quick_outcomes):
    return {cid: quick_outcomes[cid] for cid in IDS}


def test_every_check_states_its_criterion_and_its_baseline_fails_it(outcomes):
    load_claims()
    for cid, o in outcomes.items():
        assert CLAIMS[cid].criterion and CLAIMS[cid].null
        assert o.criterion and o.settings["criterion"] == o.criterion
        assert o.null is not None and o.null.holds is False, cid
        assert o.holds in (True, False)
        json.dumps({"measured": o.measured, "null": o.null.measured, "evidence": o.evidence}, allow_nan=False)
        if o.holds is False:
            assert len(o.note) > 80


def test_prop1_exact_orbit_gradient_has_no_part_outside_E(outcomes):
    o = outcomes["dyn-equi-in-E"]
    m = o.measured
    assert o.holds is True
    assert set(m["per_experiment"]) == {"perm", "trans", "rot"}
    assert 0 <= m["max_relative"] < 1e-10  # float64 on the CPU: rounding
    assert m["max_aug_minus_projected_nominal"] < 1e-10  # Prop. 1: grad R^aug(A) = Pi_E grad R(A)
    assert m["nominal_min_relative"] > 1e-2  # the nominal gradient leaves E at every point
    assert o.null.measured == m["nominal_max_relative"] >= m["nominal_min_relative"]
    table = next(e for e in o.evidence if e["kind"] == "table" and "Prop. 1" in e["title"])
    steps = {r[2] for r in table["rows"]}
    assert 0 in steps and len(steps) >= 2  # A0 and later points of Equi's trajectory
    for row in table["rows"]:
        assert row[5] < 1e-10  # every point is in E
        assert (row[4] > 0) == (row[2] > 0)  # the later points moved away from A0
    assert "by construction" in o.note and m["equi_max_relative"] < 1e-10


def test_exact_orbit_aug_follows_equi_and_sampled_does_not(outcomes):
    o = outcomes["dyn-aug-follows-equi-exact-orbit"]
    m = o.measured
    assert o.holds is True and o.settings["exact_orbit"] is True
    assert m["max_relative_difference"] <= 1e-8
    assert m["sampled_max_relative_difference"] > 1e-3 and o.null.measured == m["sampled_max_relative_difference"]


def test_aug_leaves_E_in_every_run_and_exact_orbit_aug_does_not(outcomes):
    o = outcomes["dyn-aug-leaves-E"]
    m = o.measured
    assert o.holds is True
    assert m["every_run_grew"] is True and m["min_final_relative"] >= 1e-8
    for exp in ("perm", "trans", "rot"):
        assert m["per_experiment"][exp]["runs_grew"] == m["per_experiment"][exp]["runs"] > 0
    assert o.null.measured["min_final_relative"] < 1e-10  # exact-orbit Aug stays in E to rounding
    assert set(o.accuracy) == {"perm", "trans", "rot"}
    for acc in o.accuracy.values():
        assert {"nom", "aug", "equi", "chance", "majority"} <= set(acc)
        assert 0 < acc["chance"] <= acc["majority"] <= 1
    traj = next(e for e in o.evidence if e["kind"] == "trajectories")
    assert set(traj["panels"]) == {"Perm", "Trans", "Rot"}


def test_penalty_is_the_papers_hypothesis(quick_report, outcomes):
    load_claims()
    assert CLAIMS["dyn-penalty-hypothesis"].kind == "hypothesis"
    _, report = quick_report
    entry = next(c for c in report["claims"] if c["id"] == "dyn-penalty-hypothesis")
    assert entry["kind"] == "hypothesis"
    o = outcomes["dyn-penalty-hypothesis"]
    assert "hypothesis" in o.note
    assert o.null.measured["perm"]["ratio"] == 1.0  # gamma = 0 is Aug
    for exp, v in o.measured.items():
        if o.holds:
            assert v["ratio"] <= 0.5 and v["loss_ratio"] <= 1.05


# ---------------------------------------------------------------------------------------------- tiny cases
def _rot_trainer(**more):
    from lab.dynamics import DynamicsConfig, Trainer

    config = DynamicsConfig(experiment="rot", scale="small", runs=2, steps=3, device="cpu", dtype="float64",
                            options={"images": 6, "channels": (2, 2, 2)}, **more)
    return Trainer(config)


def _rotated(trainer, k: int):
    """The trainer's experiment with every image and mask turned by k quarter turns (numpy, not the lab's group)."""
    import dataclasses

    exp = trainer.exp
    n = exp.grid
    X = torch.rot90(exp.X.reshape(len(exp.X), -1, n, n), k, dims=(-2, -1)).reshape(exp.X.shape)
    y = torch.rot90(exp.y.reshape(len(exp.y), -1, n, n), k, dims=(-2, -1)).reshape(exp.y.shape)
    return dataclasses.replace(exp, X=X.contiguous(), y=y.contiguous())


def _flat(grads):
    return torch.cat([g.flatten(1) for g in grads], 1)


def test_prop1_orbit_average_is_the_projected_gradient_on_E_only():
    """The augmented risk is the mean of the risks of the four rotated data sets, so its gradient is the mean of
    their nominal gradients (computed here by turning the images with torch.rot90, apart from the lab's group
    code). At A in E it equals Pi_E of the nominal gradient (Prop. 1); off E it does not."""
    from lab.dynamics import Trainer

    tr = _rot_trainer(strategies=("nom", "aug"), exact_orbit=True)
    turned = [Trainer(tr.config, experiment=_rotated(tr, k)) for k in range(4)]
    gen = torch.Generator().manual_seed(0)
    off = [p + 0.3 * torch.randn(p.shape, generator=gen, dtype=p.dtype) * p.abs().mean() for p in tr.A0]
    on = tr.model.project(off)
    for point, in_E in ((tr.A0, True), (on, True), (off, False)):
        mean = sum(_flat(t.gradient("nom", params=point)[0]) for t in turned) / 4
        aug = _flat(tr.gradient("aug", params=point)[0])
        projected = _flat(tr.model.project(tr.gradient("nom", params=point)[0]))
        scale = mean.norm(dim=1)
        assert torch.all((aug - mean).norm(dim=1) <= 1e-12 * scale)  # the exact orbit average is the mean
        gap = (aug - projected).norm(dim=1) / scale
        if in_E:
            assert torch.all(gap < 1e-12)
        else:
            assert torch.all(gap > 1e-4)


def test_penalty_with_gamma_zero_is_aug_and_acts_only_off_E():
    """aug_penalty draws the same augmentations as aug (each run its own stream): gamma = 0 is Aug exactly; a
    positive gamma changes nothing at the first step beyond rounding (A0 is in E: the penalty's gradient
    2 gamma Pi_perp A is zero)
    and pulls A towards E afterwards."""
    from lab.dynamics import DynamicsConfig, Trainer

    def trained(strategy, gamma, steps):
        config = DynamicsConfig(experiment="perm", scale="small", runs=2, steps=steps, strategies=(strategy,),
                                gamma=gamma, aug_passes=2, device="cpu", dtype="float64", lr=0.05,
                                options={"graphs": 40, "nodes": 6})
        tr = Trainer(config)
        tr.run()
        return tr, _flat(tr.params[strategy])

    aug, a = trained("aug", 1.0, 3)
    _, z = trained("aug_penalty", 0.0, 3)
    assert torch.equal(a, z)
    _, one_aug = trained("aug", 1.0, 1)
    _, one_pen = trained("aug_penalty", 5.0, 1)
    assert torch.allclose(one_aug, one_pen, rtol=0, atol=1e-12)  # A0 - Pi_E A0 is rounding
    pen, p = trained("aug_penalty", 5.0, 3)
    assert not torch.equal(a, p)
    dist = lambda tr, s: np.median([r["dist_from_E"] for r in tr.records  # noqa: E731
                                    if r["strategy"] == s and r["layer"] == "total" and r["step"] == 3])
    assert dist(pen, "aug_penalty") < dist(aug, "aug")
