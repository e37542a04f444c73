"""The lab's own check of symmetry discovery (issue 33), measured with ``lab discover-lie``
(``lab.discovery.family``; the science in ``lab.discovery``): not an experiment of a seed paper, but the loop the
thesis's machinery makes possible -- learned Lie-algebra generators handed to the engine.

* ``lie-discovery-recovers``.  On a task with a known algebra the method keeps as many generators as the algebra has
  and their largest principal angle to it is below ``BOUND`` (10 degrees); on the task with no symmetry it keeps
  none.  Criterion v2, judged on three seeds (each its own data, model and generators): (a) the rotated plane's
  recovery angle -- the largest principal angle, 90 degrees where the count kept differs from the algebra's -- with
  the 95 % interval of its mean below ``BOUND``; null: a random algebra of the same dimension (one per seed); (b)
  on the task with no symmetry, the lowest candidate loss over the keep threshold (none is kept while it is above
  1), its interval above 1; null: the same reading on the rotated plane (the other setting, where a generator is
  there to keep).  O(5) (and, under ``full``, inertia and Lorentz) is too costly to run three times within the quick
  budget: it runs on the first seed and is reported as a variant beside the judged parts.

Profiles.  ``quick``: the rotated plane and the no-symmetry task at the family's defaults on three seeds, their MLP
fitted by 400 L-BFGS iterations (the default 800; ``QUICK`` says what that changes), without
the family's modelling loop (its test MSEs are evidence, not criterion: ``full`` runs it on the first seed),
O(5) on the first seed at 3 000 samples, a 96-wide MLP fitted by 1 500 L-BFGS iterations, twelve candidates, the
lab's closure refinement on (weight 0.1; the recipe's angles before it are in the evidence table beside).  ``full``:
adds inertia and Lorentz (16 000 samples, a 128-wide MLP; sixteen and eight candidates), O(5) at 8 000.  Two tasks
have more symmetry than they are posed with and their truth is the whole algebra (``lab.discovery.tasks``): inertia
gl(3) and five mass-position trades (14, not so(3)'s 3), Lorentz so(1,3) and a dilation trading the two lepton pairs'
scales (7); the posed group's algebra within the learned span is in the note.  The report carries the numbers.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim
from ..reproduce.stats import Rule, part
from ..reproduce import tuning
from ..reproduce.tuning import probe

BOUND = 10.0
#: quick skips the modelling loop (``loop_epochs`` 0: its test MSEs are evidence, not criterion) and fits the judged
#: tasks' MLP by 400 L-BFGS iterations (the family's default 800) to pay for the replicates, in half the time (13-15 s
#: a run against 25-27 s): first set on the verdict seeds 0-2 (declared), then chosen again by the tuning probe
#: ``discovery-quick-fit`` on seeds 100-102, where 400 iterations read what 800 read (the plane's angle within a
#: degree, the no-symmetry task's lowest loss within 10 %).  O(5) keeps its 1 500: at 600 it kept 12 generators 72
#: degrees off
QUICK = {"rotated-plane": {"loop_epochs": 0, "fit_steps": 400}, "none": {"loop_epochs": 0, "fit_steps": 400},
         "o5": {"samples": 3000, "fit_steps": 1500, "hidden": 96, "generators": 12, "closure": 0.1, "loop_epochs": 0}}
FULL = {"rotated-plane": {}, "none": {},
        "o5": {"samples": 8000, "fit_steps": 2000, "hidden": 128, "generators": 12, "closure": 0.1},
        "inertia": {"samples": 16000, "fit_steps": 2000, "hidden": 128, "generators": 16, "closure": 0.1},
        "lorentz": {"samples": 16000, "fit_steps": 2000, "hidden": 128, "generators": 8, "closure": 0.1}}


#: the probe ``discovery-quick-fit``'s candidates for the judged tasks' L-BFGS iterations, cheapest first (the last
#: is the family's default, the reference the cheaper ones are read against)
FIT_CANDIDATES = {"400 L-BFGS iterations": 400, "600 L-BFGS iterations": 600, "800 (the family's default)": 800}
#: the probe's tolerances: a cheaper fit reads what the default reads
ANGLE_TOL, RATIO_TOL = 1.0, 0.1


def _fit_readings(task: str, steps: int, seed: int) -> dict:
    from .family import FAMILY, DiscoveryConfig

    s = FAMILY.summary(FAMILY.run(DiscoveryConfig(task=task, seed=seed, device="cpu", loop_epochs=0,
                                                  fit_steps=steps)))
    return {"angle": round(recovery_angle({"found": s["found"], "true_dimension": s["true_dimension"],
                                           "max_angle": s["max_angle_degrees"]}), 3)} if task == "rotated-plane" \
        else {"ratio": round(loss_over_threshold(s), 4)}


def _both_tasks(steps: int, seed: int) -> dict:
    """The readings of both judged tasks at ``steps`` iterations on tuning seed ``seed``."""
    return {**_fit_readings("rotated-plane", steps, seed), **_fit_readings("none", steps, seed)}


@functools.lru_cache(maxsize=None)
def _default_readings(seed: int) -> dict:
    """``_both_tasks`` at the family's default iterations, read once per seed (every candidate is compared with
    them)."""
    return _both_tasks(max(FIT_CANDIDATES.values()), seed)


@probe("discovery-quick-fit", "the judged tasks' L-BFGS iterations at quick",
       f"the cheapest whose readings agree with the family's default (800) on every tuning seed: the rotated plane's "
       f"recovery angle within {ANGLE_TOL:g} degree of the default's and the no-symmetry task's lowest loss over the "
       f"threshold within {RATIO_TOL:.0%} of the default's", FIT_CANDIDATES,
       lambda rs: all(abs(r["angle"] - r["default angle"]) <= ANGLE_TOL
                      and abs(r["ratio"] - r["default ratio"]) <= RATIO_TOL * abs(r["default ratio"])
                      for r in rs.values()),
       lambda: QUICK["rotated-plane"]["fit_steps"], ("lie-discovery-recovers",))
def _probe_fit(steps, seed) -> dict:
    """Both judged tasks at ``steps`` iterations and at the default, on tuning seed ``seed``."""
    ref = _default_readings(seed)
    mine = ref if steps == max(FIT_CANDIDATES.values()) else _both_tasks(steps, seed)
    return {**mine, "default angle": ref["angle"], "default ratio": ref["ratio"]}


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

#: v2: the replicated tasks (cheap) and the one run once (reported)
REPLICATES = 3
JUDGED = ("rotated-plane", "none")
PARTS = ("(a) the rotated plane's generator recovered", "(b) nothing kept without a symmetry")
CRITERION_V2 = (f"over {REPLICATES} seeds: (a) on the rotated plane, the largest principal angle (degrees) between "
                f"the kept generators and the true algebra, 90 where the count kept differs from its dimension, the "
                f"95 % interval of its mean wholly below {BOUND:g}; (b) on the task with no symmetry, the lowest "
                f"candidate's symmetry loss over the keep threshold, the interval of its mean wholly above 1 "
                f"(nothing kept); O(5) on the first seed, reported")
NULL_V2 = {PARTS[0]: "a random algebra of the plane's dimension in place of the learned one (one per seed)",
           PARTS[1]: "the same reading on the rotated plane (the other setting: a task with a generator to keep), "
                     "same seeds"}
V2_REASON = ("issue 46: v1 judged every task on one seed against a one-draw null; v2 judges the cheap tasks on three "
             "seeds, each part against a null read by the same statistic on three draws, and reports O(5), too "
             "costly to replicate at quick")


def recovery_angle(m: dict) -> float:
    """The statistic of part (a), claim and null alike: the largest principal angle (degrees) of the kept span to
    the truth, 90 where the count kept differs from the truth's dimension."""
    if m["found"] != m["true_dimension"] or m["max_angle"] is None:
        return 90.0
    return float(m["max_angle"])


def loss_over_threshold(s: dict) -> float:
    """The statistic of part (b): the lowest candidate's symmetry loss over the keep threshold (a generator is kept
    below 1)."""
    return float(min(s["losses"]) / s["threshold"])


def _random_angle(task_name: str, seed: int) -> float:
    from .algebra import principal_angles
    from .learn import truth_vectors
    from .tasks import get_task

    task = get_task(task_name)
    truth = truth_vectors(task.truth(), task.d_out > 1)
    rng = np.random.default_rng(seed)
    return float(np.degrees(principal_angles(rng.standard_normal(truth.shape), truth).max()))


@claim("lie-discovery-recovers", "thesis", "the lab's own: chapter 2's machinery with learned generators (issue 33)",
       "Learn the generators from the data, then solve, build and measure with them.",
       paper_value="the true algebra recovered on every task with one, none where there is none", kind="lab",
       seconds={"quick": 75, "full": 560}, null="; ".join(f"{k}: {v}" for k, v in NULL_V2.items()),
       criteria=(Criterion(1, CRITERION, FIRST_REGISTERED),
                 Criterion(2, CRITERION_V2, "2026-11-27", V2_REASON, thresholds=(("BOUND", BOUND),), parts=PARTS)),
       paper_settings="the lab's own check (no paper experiment): the rotated plane and the no-symmetry task on 3 "
                      "seeds, O(5) on one (quick: 3 000 samples; full: 8 000, with inertia and Lorentz at 16 000)",
       chosen_on=tuning.chosen_on("discovery-quick-fit"),
       retuned_from=("DECLARED: chosen on the verdict seeds: quick's 400 L-BFGS iterations (default 800) were set "
                     "after measuring on seeds 0-2 the plane's recovery angle and the no-symmetry task's lowest loss, "
                     "the judged statistics (comment above QUICK)"))
def measure(profile) -> Outcome:
    from .family import FAMILY, DiscoveryConfig

    ss = profile.seeds(REPLICATES, REPLICATES)
    first = ss[0]
    runs, reps = {}, {t: [] for t in JUDGED}
    for task, settings in plan(profile).items():
        for s in (ss if task in JUDGED else [first]):
            profile.checkpoint()
            extra = {} if s == first else {"loop_epochs": 0}  # the loop's MSEs are evidence, read on the first seed
            cfg = DiscoveryConfig(task=task, device=profile.device, seed=s, **{**settings, **extra})
            summary = FAMILY.summary(FAMILY.run(cfg, control=profile.control))
            if s == first:
                runs[task] = summary
            if task in JUDGED:
                reps[task].append(summary)

    def reading(s):
        return {"found": s["found"], "true_dimension": s["true_dimension"], "max_angle": s["max_angle_degrees"]}

    measured = {t: reading(s) for t, s in runs.items()}
    plane_dim = measured["rotated-plane"]["true_dimension"]
    randoms = [{"found": plane_dim, "true_dimension": plane_dim, "max_angle": _random_angle("rotated-plane", s)}
               for s in ss]
    parts = [part(PARTS[0], recovery_angle, [reading(s) for s in reps["rotated-plane"]], randoms,
                  Rule("<", BOUND), NULL_V2[PARTS[0]]),
             part(PARTS[1], loss_over_threshold, reps["none"], reps["rotated-plane"], Rule(">", 1.0),
                  NULL_V2[PARTS[1]])]
    # v1 on this run: every task on the first seed, its null a random algebra of each task's dimension (first seed)
    null_measured = {t: {**r, "found": r["true_dimension"],
                         "max_angle": (_random_angle(t, first) if r["true_dimension"] else None)}
                     for t, r in measured.items()}
    v1_holds = recovers_met(measured)
    history = {1: {"holds": v1_holds, "null_holds": recovers_met(null_measured),
                   "measured": {t: {k: (None if v is None else (round(v, 2) if isinstance(v, float) else v))
                                    for k, v in r.items()} for t, r in measured.items()},
                   "why": f"v1 read on the first seed ({first}) over every task, O(5) included; its null, a random "
                          "algebra of each task's dimension"}}
    others = {t: r for t, r in measured.items() if t not in JUDGED}
    variants = [{"name": f"{t} (one seed, not judged)",
                 "what": f"{t} on seed {first} at the profile's settings: as many generators kept as its algebra has, "
                         f"the largest principal angle below {BOUND:g} degrees (too costly to run three times at "
                         "quick)",
                 "measured": {k: (None if v is None else (round(v, 2) if isinstance(v, float) else v))
                              for k, v in r.items()},
                 "holds": recovers_met({t: r})} for t, r in others.items()]

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

    angles = ", ".join(f"{v:.1f}" for v in parts[0].replicates)
    random_angles = ", ".join(f"{v:.1f}" for v in parts[0].null_replicates)
    ratios = ", ".join(f"{v:.2f}" for v in parts[1].replicates)
    plane_ratios = ", ".join(f"{v:.2f}" for v in parts[1].null_replicates)
    note = (f"Seeds {ss[0]}-{ss[-1]}: the rotated plane's recovery angle {angles} degrees (a random algebra: "
            f"{random_angles}); the no-symmetry task's lowest loss over the threshold {ratios} (the rotated plane's: "
            f"{plane_ratios}).  On the first seed: " + "; ".join(line(t, s) for t, s in runs.items()) + ".  "
            + " ".join(f"{v['name']}: {'met' if v['holds'] else 'not met'}." for v in variants))

    def recipe(s):
        u = s.get("unrefined") or {}
        return round(math.degrees(max(u["principal_angles"])), 2) if u.get("principal_angles") else None

    rows = [[t, s["found"], s["true_dimension"], None if s["max_angle_degrees"] is None else
             round(s["max_angle_degrees"], 2), recipe(s), s["basis_rank"], s["true_basis_rank"],
             None if s["test_mse"].get("emlp_learned") is None else round(s["test_mse"]["emlp_learned"], 4),
             None if s["test_mse"].get("emlp_true") is None else round(s["test_mse"]["emlp_true"], 4),
             round(s["test_mse"]["mlp"], 4) if s["test_mse"].get("mlp") is not None else None]
            for t, s in runs.items()]
    seed_rows = [[t, s, r["found"], None if r["max_angle_degrees"] is None else round(r["max_angle_degrees"], 2),
                  round(min(r["losses"]), 5)] for t in JUDGED for s, r in zip(ss, reps[t])]
    evidence = [{"kind": "table", "title": f"Learned generators against the truth (seed {first})",
                 "columns": ["task", "kept", "true dim", "largest angle (deg)",
                             "before closing (the recipe, deg)", "rank V>>V learned", "rank truth",
                             "EMLP learned MSE", "EMLP true MSE", "MLP MSE"], "rows": rows},
                {"kind": "table", "title": "The judged tasks per seed",
                 "columns": ["task", "seed", "kept", "largest angle (deg)", "lowest loss (of chance)"],
                 "rows": seed_rows},
                {"kind": "bar", "title": f"Largest principal angle to the true algebra (degrees, seed {first})",
                 "ylabel": "degrees", "labels": [t for t, s in runs.items() if s["true_dimension"]],
                 "series": {"learned": [s["max_angle_degrees"] if s["max_angle_degrees"] is not None else 90.0
                                        for s in runs.values() if s["true_dimension"]],
                            "random algebra (null)": [round(null_measured[t]["max_angle"], 1)
                                                      for t, s in runs.items() if s["true_dimension"]]}}]
    return Outcome(measured={t: {k: (None if v is None else (round(v, 2) if isinstance(v, float) else v))
                                 for k, v in r.items()} for t, r in measured.items()},
                   settings={**{t: dict(v) for t, v in plan(profile).items()}, "seeds": ss,
                             "replicated": list(JUDGED)},
                   evidence=evidence, note=note, criterion=CRITERION_V2, parts=parts, history=history,
                   variants=variants,
                   replicates={"what": f"seeds {ss[0]}-{ss[-1]} (the rotated plane and the no-symmetry task; O(5) "
                                       f"on seed {first} only)", "claim": len(ss), "null": len(ss)})
