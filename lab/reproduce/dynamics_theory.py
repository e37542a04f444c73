"""Claims of Nordenfors, Ohlsson & Flinth that test the theory directly (Prop. 1, Cor. 1, §5.1 (i)) and the
paper's hypothesis that a penalty on the part of A outside E mitigates the drift (§4.2, §6).

The trainings are the lab's (``lab.dynamics.Trainer``); the shared runs and helpers come from
``lab.reproduce.dynamics`` (``_main_run``, ``_train``, ``_settings``, ...).
"""
from __future__ import annotations

import math

from .claim import Outcome, claim
from .dynamics import EQUI_TOL, FOLLOW_TOL, _dtype_name, _main_run, _settings, _train

# ---------------------------------------------------------------------------------------------- dyn-equi-in-E
@claim("dyn-equi-in-E", "dynamics", "§5 (Equi); §3.2",
       "Equi (the gradient projected onto E) produces networks that are manifestly equivariant: it never leaves E.",
       paper_value="||Pi_perp A|| = 0", seconds={"quick": 40, "full": 1800})
def equi_in_E(profile) -> Outcome:
    rows, worst, tol = [], 0.0, EQUI_TOL["float64"]
    names = ("perm", "trans", "rot")
    for k, name in enumerate(names):
        tr = _main_run(profile, name, share=(k / 3, (k + 1) / 3))
        dtype = _dtype_name(tr)
        tol = max(tol, EQUI_TOL.get(dtype, EQUI_TOL["float32"]))
        dist = {(r["run"], r["step"]): r["dist_from_E"] for r in tr.records
                if r["strategy"] == "equi" and r["layer"] == "total" and not r["diverged"]}
        rel = []
        for step, norms in enumerate(tr.step_norms):
            for i, run in enumerate(tr.run_ids):
                d = dist.get((run, step))
                if d is not None and not math.isnan(d) and norms["equi_norm"][i] > 0:
                    rel.append(d / norms["equi_norm"][i])
        absolute = max(v for v in dist.values() if not math.isnan(v))
        rmax = max(rel)
        worst = max(worst, rmax)
        rows.append([name, dtype, tr.R, tr.step, absolute, rmax])
    holds = worst < tol
    return Outcome(
        measured={"max_relative": worst, "per_experiment": {r[0]: r[5] for r in rows}},
        holds=holds,
        settings={"experiments": {n: _settings(profile, n) for n in names}, "tolerance": tol,
                  "criterion": f"max over experiments, runs and steps of ||Pi_perp A|| / ||A|| (layers with E != L) "
                               f"< {tol:g} (rounding of the training dtype)"},
        evidence=[{"kind": "table", "title": "Equi's distance from E over training",
                   "columns": ["experiment", "dtype", "runs", "steps", "max ||Pi_perp A||", "max ||Pi_perp A|| / ||A||"],
                   "rows": rows}],
        note="Equi's gradient is projected onto E (Pi_E of the lab's orbit bases) before every step, from A0 in E; "
             "what is left outside E is rounding." if holds else
             "Equi left E by more than rounding: the projection or the step is defective (see the table).")


# ---------------------------------------------------------------------------------------------- exact orbit
@claim("dyn-aug-follows-equi-exact-orbit", "dynamics", "§4, §6",
       "Initialised on E, the augmented model (the exact augmented risk) follows exactly the same dynamics as the "
       "equivariant one.", paper_value="A_aug(t) = A_equi(t)", seconds={"quick": 4, "full": 120})
def aug_follows_equi(profile) -> Outcome:
    from ..dynamics.paper import setting

    settings = dict(scale="small" if not profile.full else "paper", runs=profile.pick(2, 10),
                    steps=profile.pick(10, 50), lr=setting("rot", "small", "lr"), exact_orbit=True)
    images = profile.pick(100, None)
    tr = profile.memo(("dyn-exact", "rot"), lambda: _train(
        profile, "rot", settings, strategies=("aug", "equi"), label="rot, exact orbit",
        options={"images": images} if images else {}))
    dtype = _dtype_name(tr)
    tol = FOLLOW_TOL.get(dtype, FOLLOW_TOL["float32"])
    per_step = []
    for n in tr.step_norms[1:]:
        per_step.append(max(d / m if m > 0 else 0.0 for d, m in zip(n["aug_minus_equi"], n["equi_moved"])))
    worst = max(per_step)
    absolute = max(max(n["aug_minus_equi"]) for n in tr.step_norms)
    moved = max(tr.step_norms[-1]["equi_moved"])
    aug_E = max(r["dist_from_E"] for r in tr.records if r["strategy"] == "aug" and r["layer"] == "total")
    evidence = [{"kind": "line", "title": "Rot, exact orbit average (|G| = 4): Aug against Equi",
                 "xlabel": "step", "ylabel": "max over runs of ||A_aug - A_equi|| / ||A_equi - A0||",
                 "x": list(range(1, len(per_step) + 1)), "series": {"exact-orbit Aug": [max(v, 1e-300) for v in per_step]},
                 "logx": False, "logy": True},
                {"kind": "table", "title": "Exact-orbit Aug against Equi",
                 "columns": ["runs", "steps", "lr", "max ||A_aug - A_equi||", "max ||A_equi - A0||",
                             "max relative", "max ||Pi_perp A_aug||"],
                 "rows": [[tr.R, tr.step, tr.config.lr, absolute, moved, worst, aug_E]]}]
    main = profile.peek(("dyn-main", "rot"))  # the sampled Rot run, when another claim trained it already
    if main is not None and "aug_minus_equi" in main.step_norms[-1]:
        sampled = [max(d / m if m > 0 else 0.0 for d, m in zip(n["aug_minus_equi"], n["equi_moved"]))
                   for n in main.step_norms[1:]]
        evidence.append({"kind": "line", "title": f"For contrast: sampled Aug (L = {main.config.aug_passes}) "
                         "against Equi (the Rot run)", "xlabel": "step",
                         "ylabel": "max over runs of ||A_aug - A_equi|| / ||A_equi - A0||",
                         "x": list(range(1, len(sampled) + 1)), "series": {"sampled Aug": sampled},
                         "logx": False, "logy": True})
    holds = worst <= tol
    return Outcome(
        measured={"max_relative_difference": worst, "max_difference": absolute},
        holds=holds,
        settings={**settings, "experiment": "rot (C4 on the grid, 4 elements)", "images": images or "paper",
                  "strategies": ["aug", "equi"], "dtype": dtype,
                  "criterion": f"max over runs and steps of ||A_aug - A_equi|| / ||A_equi - A0|| <= {tol:g}",
                  "lr_note": "the lab's small-preset Rot rate (0.5), far above the paper's, so the weights move far: "
                             "the identity holds for gradient descent at any rate, and a large one tests it harder"},
        evidence=evidence,
        note="With the augmented risk averaged over all four rotations, the Aug gradient at an equivariant point is "
             "the projected (Equi) gradient (Prop. 1 and Lemma 2 of the paper), so the two trajectories coincide; the "
             "difference left is rounding." if holds else
             "Exact-orbit Aug separated from Equi by more than rounding (see the curve).")
