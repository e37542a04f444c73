"""The theory checks of the dynamics paper (Prop. 1 and Cor. 1, Cor. 2's exact-orbit dynamics, §5.1 (i), the
penalty hypothesis of §4.2 and §6, Appendix C's counterexample to the converse of Prop. 3): on the quick report,
the mechanics (parts, nulls read by the claim's statistic on differing draws, verdicts the per-part rule, the
criteria's versions judged) and the exact identities exactly; no verdict that could flip between runs is asserted.
The identities behind them and the nulls' constructions are checked independently on tiny cases."""
import json
import math

import numpy as np
import pytest
import torch

from lab.reproduce import CLAIMS, load_claims
from lab.reproduce.stats import Rule, rejudge

IDS = ("dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-aug-leaves-E", "dyn-penalty-hypothesis",
       "dyn-converse-counterexample")
PARTS = {"dyn-equi-in-E": ("(a) no augmented gradient outside E", "(b) Prop. 1: g_aug = Pi_E g_nom"),
         "dyn-aug-follows-equi-exact-orbit": ("exact-orbit Aug is Equi",),
         "dyn-aug-leaves-E": ("(a) Perm", "(b) Trans", "(c) Rot"),
         "dyn-penalty-hypothesis": ("(a) Perm", "(b) Trans"),
         "dyn-converse-counterexample": ("(a) strict minimum of R^aug, not of R",
                                         "(b) strict minimum of R^eq, not of R^aug")}
STATISTICS = {"dyn-equi-in-E": ("gradient_part_outside_E", "augmented_minus_projected_nominal"),
              "dyn-aug-follows-equi-exact-orbit": ("departure_from_equi",),
              "dyn-aug-leaves-E": ("growth_second_half",) * 3,
              "dyn-penalty-hypothesis": ("penalty_score",) * 2,
              "dyn-converse-counterexample": ("augmented_min_not_nominal", "equivariant_min_not_augmented")}


@pytest.fixture(scope="module")
def entries(quick_report):
    _, report = quick_report
    return {c["id"]: c for c in report["claims"] if c["id"] in IDS}


# ---------------------------------------------------------------------------------------------- the quick report
@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_every_part_is_read_by_one_statistic_on_claim_and_null_draws(entries):
    load_claims()
    assert set(entries) == set(IDS)
    for cid, c in entries.items():
        assert [p["name"] for p in c["parts"]] == list(PARTS[cid]), cid
        assert [p["statistic"] for p in c["parts"]] == list(STATISTICS[cid]), cid
        assert c["criterion_version"] == len(CLAIMS[cid].criteria), cid
        assert c["paper_settings"] and CLAIMS[cid].paper_settings
        for p in c["parts"]:
            rule = Rule(p["op"], p["threshold"])
            assert p["op"] in (">", "<") and len(p["replicates"]) >= 3 and len(p["null_replicates"]) >= 3, cid
            assert all(math.isfinite(v) for v in p["replicates"] + p["null_replicates"]), cid
            assert len(set(p["null_replicates"])) > 1 and p["threshold"] not in p["null_replicates"], cid
            assert rule.judge(p["replicates"])[0] is p["holds"], (cid, p["name"])
            assert rejudge(p).separated is not p["null_holds"], (cid, p["name"])
        json.dumps(c["measured"], allow_nan=False)


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_changed_criteria_keep_version_one_judged_on_this_run(entries):
    for cid in IDS[:4]:
        c = entries[cid]
        assert c["criterion_version"] == 3, cid
        v1, v2 = c["criterion_history"]
        assert v1["version"] == 1 and v1["date"] == "2026-11-25" and "statistics layer 1" in v2["why"]
        assert v1["verdict"] != "not judged by this run" and v1["why"], cid
    assert entries["dyn-converse-counterexample"]["criterion_version"] == 2  # version 1 under statistics layer 2
    assert [h["version"] for h in entries["dyn-converse-counterexample"]["criterion_history"]] == [1]
    assert CLAIMS["dyn-penalty-hypothesis"].kind == "hypothesis"
    assert entries["dyn-penalty-hypothesis"]["kind"] == "hypothesis"
    assert CLAIMS["dyn-converse-counterexample"].kind == "claim"


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_exact_identities_hold_to_rounding(entries):
    """Prop. 1 and Cor. 2 in float64 on the CPU, and the counterexample's margins, are exact: asserted."""
    equi = {p["name"]: p for p in entries["dyn-equi-in-E"]["parts"]}
    for p in equi.values():
        assert max(p["replicates"]) < 1e-10 and p["holds"] is True
    assert min(equi["(a) no augmented gradient outside E"]["null_replicates"]) > 1e-2  # the nominal gradient
    assert min(equi["(b) Prop. 1: g_aug = Pi_E g_nom"]["null_replicates"]) > 1e-4  # off E the identity fails
    table = next(e for e in entries["dyn-equi-in-E"]["evidence"] if e["kind"] == "table" and "Prop. 1" in e["title"])
    for exp in ("perm", "trans", "rot"):  # A0, Equi after its T steps, A0 moved off E
        steps = {r[2] for r in table["rows"] if r[0] == exp}
        assert {"0", "off E"} <= steps and len(steps) == 3, exp
    (follow,) = entries["dyn-aug-follows-equi-exact-orbit"]["parts"]
    assert max(follow["replicates"]) <= 1e-8 and follow["holds"] is True and len(follow["replicates"]) >= 3
    a, b = entries["dyn-converse-counterexample"]["parts"]
    assert a["replicates"] == pytest.approx([0.5 / math.sqrt(5)] * len(a["replicates"]), abs=1e-12)
    assert b["replicates"] == pytest.approx([1 / math.sqrt(2)] * len(b["replicates"]), abs=1e-12)
    forward = entries["dyn-converse-counterexample"]["measured"]["prop3_forward_check"]
    assert forward["nominal_pd_aug_not"] == forward["aug_pd_equi_not"] == 0  # Prop. 3 itself
    assert forward["converse_ii_fails"] > 0 and forward["converse_i_fails"] > 0


@pytest.mark.slow
@pytest.mark.xdist_group("reproduce")
def test_leaving_E_and_the_penalty_are_read_against_the_penalised_runs(entries):
    c = entries["dyn-aug-leaves-E"]
    for p in c["parts"]:  # the null: Aug with the penalty, from the same A0s and augmentation draws
        assert "gamma ||Pi_perp A||^2" in p["null"] and "same A0s" in p["null"]
    traj = next(e for e in c["evidence"] if e["kind"] == "trajectories")
    assert set(traj["panels"]) == {"Perm", "Trans", "Rot"}
    assert all(any("penalty" in s for s in panel) for panel in traj["panels"].values())
    assert set(c["accuracy"]) == {"perm", "trans", "rot"}
    for acc in c["accuracy"].values():  # the shared runs' one reading (lab.dynamics.claims.main_accuracy)
        assert {"nom", "aug", "equi", "split"} <= set(acc) and ({"chance", "majority"} & set(acc))
    for acc in entries["dyn-penalty-hypothesis"]["accuracy"].values():
        assert {"aug", "equi", "aug + penalty", "aug + penalty towards a shuffled E"} <= set(acc)
    pen = entries["dyn-penalty-hypothesis"]
    assert "hypothesis" in pen["note"]
    for p in pen["parts"]:
        assert "shuffled E" in p["null"] and p["threshold"] == 1.0
    per_run = next(e for e in pen["evidence"] if e["kind"] == "table" and e["title"].startswith("Per run"))
    # the score is max(distance ratio / 0.5, loss ratio / 1.05), run by run, as the table's columns give it
    scores = [max(r[2] / 0.5, r[3] / 1.05) for r in per_run["rows"]]
    assert sorted(scores) == pytest.approx(sorted(v for p in pen["parts"] for v in p["replicates"]))
    nulls = [max(r[4] / 0.5, r[5] / 1.05) for r in per_run["rows"]]
    assert sorted(nulls) == pytest.approx(sorted(v for p in pen["parts"] for v in p["null_replicates"]))


# ---------------------------------------------------------------------------------------------- Appendix C
def test_the_counterexample_matrices_read_by_autograd_as_the_appendix_states():
    from lab.dynamics import claims_theory as th

    action = [np.asarray(g) for g in th.SWAP]
    H1, H2 = np.asarray(th.NOMINAL_NOT_AUG), np.asarray(th.AUG_NOT_EQUI)
    nom, aug, equi = th.risk_hessians(th.HessianDraw(action, H1))
    assert np.allclose(nom, H1) and np.allclose(aug, np.eye(2) / 2) and np.allclose(equi, [[0.5]])
    assert np.linalg.eigvalsh(nom)[0] < 0 < np.linalg.eigvalsh(aug)[0]  # strict min of R^aug, saddle of R
    nom, aug, equi = th.risk_hessians(th.HessianDraw(action, H2))
    assert np.allclose(aug, H2) and np.allclose(equi, [[1.0]])  # H2 is invariant: its projection is itself
    assert np.linalg.eigvalsh(aug)[0] < 0 < equi[0, 0]  # strict min of R^eq, saddle of R^aug
    # Prop. 2's closed forms agree with the autograd Hessians on a random matrix in a random basis
    rng = np.random.default_rng(0)
    A = rng.standard_normal((2, 2))
    g, H = th._rotated(action, (A + A.T) / 2, rng)
    nom, aug, equi = th.risk_hessians(th.HessianDraw(g, H))
    assert np.allclose(aug, sum(x.T @ H @ x for x in g) / 2, atol=1e-12)


def test_the_counterexample_claim_is_deterministic_and_its_null_varies():
    from lab.dynamics import claims_theory as th
    from lab.reproduce.claim import Profile

    load_claims()
    first = CLAIMS["dyn-converse-counterexample"].measure(Profile("quick"))
    again = CLAIMS["dyn-converse-counterexample"].measure(Profile("quick"))
    assert [p.to_dict() for p in first.parts] == [p.to_dict() for p in again.parts]
    other = CLAIMS["dyn-converse-counterexample"].measure(Profile("quick", seed=5))
    for p, q in zip(first.parts, other.parts):
        n = th.CONVERSE_DRAWS["quick"]
        assert len(p.null_replicates) == n and len(set(p.null_replicates)) == n
        assert p.null_replicates != q.null_replicates  # another seed draws other random matrices
        assert p.replicates == pytest.approx(q.replicates, abs=1e-12)  # the matrices' margins do not depend on it
    assert first.holds is True  # exact: the appendix's matrices in any basis


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
    code). At A in E it equals Pi_E of the nominal gradient (Prop. 1); off E it does not (the claim's null)."""
    from lab.dynamics import Trainer
    from lab.dynamics import claims_theory as th

    tr = _rot_trainer(strategies=("nom", "aug"), exact_orbit=True)
    turned = [Trainer(tr.config, experiment=_rotated(tr, k)) for k in range(4)]
    off = th._off_E(tr, 0)
    on = tr.model.project(off)
    for point, in_E in ((tr.A0, True), (on, True), (off, False)):
        mean = sum(_flat(t.gradient("nom", params=point)[0]) for t in turned) / 4
        g_aug, g_nom = tr.gradient("aug", params=point)[0], tr.gradient("nom", params=point)[0]
        aug, projected = _flat(g_aug), _flat(tr.model.project(g_nom))
        scale = mean.norm(dim=1)
        assert torch.all((aug - mean).norm(dim=1) <= 1e-12 * scale)  # the exact orbit average is the mean
        gap = (aug - projected).norm(dim=1) / scale
        stat = [th.augmented_minus_projected_nominal(th.GradientDraw(tr, g_aug, g_nom, r)) for r in range(tr.R)]
        if in_E:
            assert torch.all(gap < 1e-12) and max(stat) < 1e-12
            assert max(th.gradient_part_outside_E(th.GradientDraw(tr, g_aug, g_nom, r)) for r in range(2)) < 1e-12
        else:
            assert torch.all(gap > 1e-4) and min(stat) > 1e-4


def test_penalty_with_gamma_zero_is_aug_and_acts_only_off_E():
    """aug_penalty draws the same augmentations as aug (each run its own stream): gamma = 0 is Aug exactly; a
    positive gamma changes nothing at the first step beyond rounding (A0 is in E: the penalty's gradient
    2 gamma Pi_perp A is zero) and pulls A towards E afterwards."""
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


def test_the_shuffled_penalty_pulls_towards_a_subspace_of_E_s_dimension_that_is_not_E():
    """The null of dyn-penalty-hypothesis: Pi_E' is an orthogonal projection (idempotent, self-adjoint) onto a
    subspace of E's dimension, not E; with gamma = 0 the run is Aug exactly (the same augmentation draws)."""
    import dataclasses

    from lab.dynamics import DynamicsConfig, Trainer
    from lab.dynamics import claims_theory as th

    config = DynamicsConfig(experiment="perm", scale="small", runs=2, steps=2, strategies=("aug_penalty",),
                            gamma=2.0, aug_passes=2, device="cpu", dtype="float64", lr=0.05,
                            options={"graphs": 40, "nodes": 6})
    tr = th._shuffled_trainer(config, seed=0)
    gen = torch.Generator().manual_seed(1)
    X = [torch.randn(p.shape, generator=gen, dtype=p.dtype) for p in tr.A0]
    Y = [torch.randn(p.shape, generator=gen, dtype=p.dtype) for p in tr.A0]
    PX, PY = tr.project_shuffled(X), tr.project_shuffled(Y)
    assert torch.allclose(_flat(tr.project_shuffled(PX)), _flat(PX), atol=1e-12)  # idempotent
    assert torch.allclose((_flat(PX) * _flat(Y)).sum(1), (_flat(X) * _flat(PY)).sum(1), atol=1e-9)  # self-adjoint
    for sp, perm in zip(tr.model.spaces, tr.shuffles):
        if perm is None:
            continue
        basis = torch.eye(sp.size, dtype=torch.float64).reshape(sp.size, sp.n_out, sp.n_in)
        assert not torch.equal(perm, torch.arange(sp.size))
        rank_E = torch.linalg.matrix_rank(sp.project(basis).reshape(sp.size, -1)).item()
        v = basis.reshape(sp.size, -1)[:, perm]
        proj = torch.empty_like(v)
        proj[:, perm] = sp.project(v.reshape(basis.shape)).reshape(v.shape)
        assert torch.linalg.matrix_rank(proj).item() == rank_E == sp.rank  # dim E' = dim E
        assert not torch.allclose(proj, sp.project(basis).reshape(sp.size, -1))  # E' is not E
    tr.run()
    plain = Trainer(dataclasses.replace(config, strategies=("aug",), gamma=0.0))
    plain.run()
    zero = th._shuffled_trainer(dataclasses.replace(config, gamma=0.0), seed=0)
    zero.run()
    assert torch.equal(_flat(zero.params["aug_penalty"]), _flat(plain.params["aug"]))
    assert not torch.equal(_flat(tr.params["aug_penalty"]), _flat(plain.params["aug"]))


def test_growth_and_score_statistics_read_the_records():
    from lab.dynamics import claims_theory as th

    class Fake:
        run_ids, step = (0, 1), 4
        diverged_at = {"aug": [None, None]}

        def __init__(self, paths, losses):
            self.records = [{"strategy": "aug", "layer": "total", "run": r, "step": t, "dist_from_E": d,
                             "loss": losses[r]} for r, path in enumerate(paths) for t, d in enumerate(path)]

    tr = Fake([[0.0, 1.0, 2.0, 3.0, 20.0], [0.0, 1.0, 4.0, 4.0, 4.0]], [1.0, 2.0])
    assert th.growth_second_half(th.RunDraw(tr, 0)) == pytest.approx(1.0)
    assert th.growth_second_half(th.RunDraw(tr, 1)) == pytest.approx(0.0)
    pen = Fake([[0.0, 1.0, 1.0, 1.0, 5.0], [0.0, 1.0, 1.0, 1.0, 1.0]], [1.02, 2.5])
    assert th.penalty_score(th.RunDraw(pen, 0, "aug", tr)) == pytest.approx(max(0.25 / 0.5, 1.02 / 1.05))
    assert th.penalty_score(th.RunDraw(pen, 1, "aug", tr)) == pytest.approx(max(0.25 / 0.5, 1.25 / 1.05))
