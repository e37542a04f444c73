"""The lab's own check of symmetry discovery (issue 33), measured with ``lab discover-lie``
(``lab.experiments.discovery``; the science in ``lab.discovery``): not an experiment of a seed paper, but the loop the
thesis's machinery makes possible -- learned Lie-algebra generators handed to the engine.

* ``lie-discovery-recovers``.  On every task with a known algebra the method keeps as many generators as the algebra
  has and their largest principal angle to it is below ``BOUND`` (10 degrees); on the task with no symmetry it keeps
  none.  Null: a random algebra of the same dimension in place of the learned one (its angles to the truth must not
  pass).

Profiles.  ``quick``: the rotated plane and the no-symmetry task at the family's defaults, O(5) at 3 000 samples, a
96-wide MLP fitted by 1 500 L-BFGS iterations, twelve candidates, the lab's closure refinement on (weight 0.1; the
recipe's angles before it are in the evidence table beside).  ``full``: adds inertia and Lorentz (16 000 samples, a
128-wide MLP; sixteen and eight candidates), O(5) at 8 000.  Two tasks have more symmetry than they are posed with
and their truth is the whole algebra (``lab.discovery.tasks``): inertia gl(3) and five mass-position trades (14, not
so(3)'s 3), Lorentz so(1,3) and a dilation trading the two lepton pairs' scales (7); the posed group's algebra within
the learned span is in the note.  Measured on this CPU (seed 0), quick: the plane within a few degrees, the
no-symmetry task none (lowest loss 0.012 of chance), O(5) ten kept, cut at a gap of 6, 2.0 degrees closed (8.5 by the
recipe) -- the claim holds.  Full, each task alone: inertia at 8 000 samples 14 kept, cut at a gap of 9.5, 3.0
degrees closed (6.9 by the recipe), so(3) within 0.7, the solve's rank 10 the truth's -- but its fourteenth loss
(0.0039) close to the threshold, hence 16 000; Lorentz 7 kept, cut at a gap of 7.9, 3.4 degrees closed (6.5 by the
recipe), rank 8 the truth's.
"""
from __future__ import annotations

import math

import numpy as np

from .claim import Outcome, claim, judge

BOUND = 10.0
QUICK = {"rotated-plane": {}, "none": {},
         "o5": {"samples": 3000, "fit_steps": 1500, "hidden": 96, "generators": 12, "closure": 0.1}}
FULL = {"rotated-plane": {}, "none": {},
        "o5": {"samples": 8000, "fit_steps": 2000, "hidden": 128, "generators": 12, "closure": 0.1},
        "inertia": {"samples": 16000, "fit_steps": 2000, "hidden": 128, "generators": 16, "closure": 0.1},
        "lorentz": {"samples": 16000, "fit_steps": 2000, "hidden": 128, "generators": 8, "closure": 0.1}}


def plan(profile) -> dict:
    return profile.pick(quick=QUICK, full=FULL)


def recovers_met(m: dict) -> bool:
    """Every task with a truth: as many kept as its dimension, largest angle below ``BOUND``; none-task: none."""
    ok = bool(m)
    for task, r in m.items():
        if r["true_dimension"] == 0:
            ok &= r["found"] == 0
        else:
            ok &= r["found"] == r["true_dimension"] and r["max_angle"] is not None and r["max_angle"] < BOUND
    return ok


CRITERION = (f"on every task with a known algebra as many generators kept as it has, all within {BOUND:g} degrees "
             f"(largest principal angle); on the task with no symmetry none kept")
NULL = "a random algebra of each task's dimension in place of the learned one"


def _random_angle(task_name: str, seed: int) -> float:
    from ..discovery.algebra import principal_angles
    from ..discovery.learn import truth_vectors
    from ..discovery.tasks import get_task

    task = get_task(task_name)
    truth = truth_vectors(task.truth(), task.d_out > 1)
    rng = np.random.default_rng(seed)
    return float(np.degrees(principal_angles(rng.standard_normal(truth.shape), truth).max()))


@claim("lie-discovery-recovers", "thesis", "the lab's own: chapter 2's machinery with learned generators (issue 33)",
       "Learn the generators from the data, then solve, build and measure with them.",
       paper_value="the true algebra recovered on every task with one, none where there is none", kind="lab",
       seconds={"quick": 75, "full": 480}, criterion=CRITERION, null=NULL)
def measure(profile) -> Outcome:
    from ..experiments.discovery import FAMILY, DiscoveryConfig

    runs = {}
    for task, settings in plan(profile).items():
        cfg = DiscoveryConfig(task=task, device=profile.device, seed=profile.seed, **settings)
        runs[task] = FAMILY.summary(FAMILY.run(cfg, control=profile.control))
    measured = {t: {"found": s["found"], "true_dimension": s["true_dimension"], "max_angle": s["max_angle_degrees"]}
                for t, s in runs.items()}
    null_measured = {t: {**r, "found": r["true_dimension"],
                         "max_angle": (_random_angle(t, profile.seed) if r["true_dimension"] else None)}
                     for t, r in measured.items()}
    holds, null = judge(recovers_met, measured, NULL, null_measured)
    null.measured = {t: (None if r["max_angle"] is None else round(r["max_angle"], 1))
                     for t, r in null_measured.items()}

    def line(t, s):
        if s["true_dimension"] == 0:
            return f"{t}: {s['found']} kept" + (f" ({s['none_reason']})" if s["none_reason"] else "")
        angle = s["max_angle_degrees"]
        posed = s.get("posed_group_angles") or []
        return (f"{t}: {s['found']} kept of {s['true_dimension']}, largest angle "
                f"{'n/a' if angle is None else f'{angle:.1f} degrees'}"
                + (f" ({s['posed_group']}'s algebra within {math.degrees(max(posed)):.1f})" if posed else "")
                + f", lowest losses "
                f"{', '.join(f'{v:.2g}' for v in s['losses'][:min(len(s['losses']), s['true_dimension'] + 2)])}")

    note = "; ".join(line(t, s) for t, s in runs.items()) + "."
    def recipe(s):
        u = s.get("unrefined") or {}
        return round(math.degrees(max(u["principal_angles"])), 2) if u.get("principal_angles") else None

    rows = [[t, s["found"], s["true_dimension"], None if s["max_angle_degrees"] is None else
             round(s["max_angle_degrees"], 2), recipe(s), s["basis_rank"], s["true_basis_rank"],
             None if s["test_mse"].get("emlp_learned") is None else round(s["test_mse"]["emlp_learned"], 4),
             None if s["test_mse"].get("emlp_true") is None else round(s["test_mse"]["emlp_true"], 4),
             round(s["test_mse"]["mlp"], 4) if s["test_mse"].get("mlp") is not None else None]
            for t, s in runs.items()]
    evidence = [{"kind": "table", "title": "Learned generators against the truth",
                 "columns": ["task", "kept", "true dim", "largest angle (deg)",
                             "before closing (the recipe, deg)", "rank V>>V learned", "rank truth",
                             "EMLP learned MSE", "EMLP true MSE", "MLP MSE"], "rows": rows},
                {"kind": "bar", "title": "Largest principal angle to the true algebra (degrees)",
                 "ylabel": "degrees", "labels": [t for t, s in runs.items() if s["true_dimension"]],
                 "series": {"learned": [s["max_angle_degrees"] if s["max_angle_degrees"] is not None else 90.0
                                        for s in runs.values() if s["true_dimension"]],
                            "random algebra (null)": [null.measured[t] for t, s in runs.items()
                                                      if s["true_dimension"]]}}]
    return Outcome(measured={t: {k: (None if v is None else (round(v, 2) if isinstance(v, float) else v))
                                 for k, v in r.items()} for t, r in measured.items()},
                   holds=holds, settings={t: dict(v) for t, v in plan(profile).items()}, evidence=evidence,
                   note=note, criterion=CRITERION, null=null)
