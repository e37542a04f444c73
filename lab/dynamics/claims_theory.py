"""Claims of Nordenfors, Ohlsson & Flinth that test the theory directly (Prop. 1, Cor. 1, Cor. 2, §5.1 (i),
Appendix C) and the paper's hypothesis that a penalty on the part of A outside E mitigates the drift (§4.2, §6).

* ``dyn-equi-in-E``: Prop. 1 and Cor. 1 at equivariant points: the gradient of the augmented risk averaged over
  the whole group (the exact orbit) has no component outside E (null: the nominal gradient at the same points),
  and it equals Pi_E of the nominal gradient (null: the same identity at points moved off E, where Prop. 1 does
  not apply).
* ``dyn-aug-follows-equi-exact-orbit``: Cor. 2's consequence, the exact-orbit Aug trajectory is Equi's, run by
  run; sampled Aug with as many passes as the group has elements, from the same A0s, is the null.
* ``dyn-aug-leaves-E``: §5.1 (i), E is unstable under augmented training: Aug's distance from E keeps growing over
  the second half of training in Perm, Trans and Rot; the null is Aug with the penalty gamma ||Pi_perp A||^2 (the
  same A0s and augmentation draws), which makes E attracting while the sampling noise stays.
* ``dyn-penalty-hypothesis``: §4.2 and §6 propose (and do not test) a penalty gamma ||Pi_perp A||^2 in the augmented
  risk; the null is a penalty of the same strength towards a shuffled E (the group's parameter-sharing pattern
  with the weight entries relabelled at random: a subspace of the same dimension that the group does not make).
* ``dyn-converse-counterexample``: Appendix C's two matrices (G = S_2 on R^2): the converse of Prop. 3 fails
  both ways; random symmetric matrices of the same shape are the null.

The trainings are the lab's (``lab.dynamics.Trainer``); the shared runs and helpers come from
``lab.dynamics.claims`` (``_main_run``, ``_train``, ``_settings``, ...).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim
from .claims import (EQUI_TOL, FOLLOW_TOL, _config, _dtype_name, _main_run, _norm, _per_run_accuracy, _settings,
                     _train, main_accuracy, trivial_baseline)
from ..reproduce.stats import Rule, part

#: these claims read the runs of ``lab.dynamics.claims`` (``profile.memo``): measured in the same process as its
#: claims when the claims are spread over processes (``lab.reproduce.cluster.groups``)
SHARES_RUNS_WITH = "lab.dynamics.claims"

NAMES = ("perm", "trans", "rot")
#: the date the second versions of these criteria (parts judged on replicates, nulls that could pass) were declared
V2_DATE = "2026-11-27"
#: Prop. 1 check: the Perm architecture on graphs of this many nodes (S(5), 120 elements; the experiment's S(10)
#: has 3 628 800, beyond exact enumeration)
PROP1_NODES = 5
#: Prop. 1 check: the risk is evaluated on this many samples of each data set, and this many runs (Prop. 1 holds
#: for the empirical risk of any finite data set, so a subset tests it as well as the whole)
PROP1_SAMPLES = {"quick": 50, "full": 500}
PROP1_RUNS = {"quick": 2, "full": 5}
#: Prop. 1's null: the points moved off E by this much noise (relative to the mean |entry| of each layer of A0)
OFF_E_NOISE = 0.3
#: dyn-aug-leaves-E (v1): "leaves E" = the final ||Pi_perp A|| / ||A|| at least this, per training dtype: float64
#: 100 x the lab's rounding tolerance EQUI_TOL (1e-10); float32 the tolerance itself (1e-4, about 1000 x float32's
#: unit roundoff 6e-8: a hundredfold of a tolerance that loose would ask for more than rounding can tell)
LEAVE_MIN = {"float64": 1e-8, "float32": 1e-4}
#: dyn-aug-leaves-E (v2): log10 of ||Pi_perp A|| at the last step over its value at the middle step must be above
#: this (the distance keeps growing: E does not attract)
GROWTH_MIN = 0.0
#: dyn-penalty-hypothesis: gamma x lr of the penalty (each step multiplies the part outside E by 1 - 2 gamma lr =
#: 0.5 before the loss's own push)
PENALTY_GAMMA_LR = 0.25
#: the penalty must at least halve Aug's final median ||Pi_perp A|| ...
PENALTY_MAX_RATIO = 0.5
#: ... with the final median training loss at most this much (relative) above Aug's
PENALTY_LOSS_MARGIN = 0.05
PENALTY_EXPERIMENTS = ("perm", "trans")
#: dyn-converse-counterexample: the draws (random bases for the claim, random symmetric matrices for the null); both
#: parts are yes/no readings, and a null that meets a reading about a third of the time cannot be told from the claim
#: by Fisher's exact test on 3 draws a side (p >= (1/3)^3 = 0.037 at best, 0.2 at 1 of 3): 20 a side (3 before issue
#: 62); each draw is a 2 x 2 eigenproblem
CONVERSE_DRAWS = {"quick": 20, "full": 40}


# ---------------------------------------------------------------------------------------------- helpers
def _eq(trainer) -> list[int]:
    return [i for i, e in enumerate(trainer.equivariant_layers) if e]


def _perp(trainer, params):
    """Per run: (||Pi_perp W||, ||W||) over the layers with E != L."""
    layers = trainer.model.layer_params(params)
    eq = _eq(trainer)
    perp = _norm([layers[i][0] - trainer.model.spaces[i].project(layers[i][0]) for i in eq])
    return perp, _norm([layers[i][0] for i in eq])


def _rel_perp(trainer, params) -> list[float]:
    """Per run: ||Pi_perp W|| / ||W|| over the layers with E != L."""
    perp, whole = _perp(trainer, params)
    return [p / w if w > 0 else 0.0 for p, w in zip(perp.tolist(), whole.tolist())]


def _final(trainer, strategy: str, key: str) -> list[float]:
    """Per run at the last step: the record ``key`` of the total (NaN for a diverged run)."""
    rows = {r["run"]: r[key] for r in trainer.records
            if r["strategy"] == strategy and r["layer"] == "total" and r["step"] == trainer.step}
    return [rows[run] for run in trainer.run_ids]


def _per_run(trainer, strategy: str, key: str = "dist_from_E") -> list[list[float]]:
    """Per run: ``key`` of the total over the steps 0..T."""
    out = {run: [None] * (trainer.step + 1) for run in trainer.run_ids}
    for r in trainer.records:
        if r["strategy"] == strategy and r["layer"] == "total":
            v = r[key]
            out[r["run"]][r["step"]] = None if v is None or math.isnan(v) else v
    return [out[run] for run in trainer.run_ids]


def _median(values) -> float:
    vals = sorted(v for v in values if v is not None and not math.isnan(v))
    if not vals:
        return math.nan
    k = len(vals) // 2
    return vals[k] if len(vals) % 2 else (vals[k - 1] + vals[k]) / 2


def _trajectory_series(trainer, strategy: str) -> dict:
    """A ``trajectories`` series: every run's ||Pi_perp A|| over steps 1..T and their mean."""
    runs = _per_run(trainer, strategy)
    xs = list(range(1, trainer.step + 1))
    mean = []
    for t in xs:
        vals = [r[t] for r in runs if r[t] is not None]
        mean.append(sum(vals) / len(vals) if vals else None)
    return {"runs": [{"x": xs, "y": r[1:]} for r in runs], "mean": {"x": xs, "y": mean}}


# ---------------------------------------------------------------------------------------------- dyn-equi-in-E
@dataclass
class GradientDraw:
    """One draw of the Prop. 1 check: the augmented and nominal gradients at one point, read for one run."""

    trainer: object
    aug: list  # the exact-orbit augmented gradient, one (R, ...) tensor per parameter
    nom: list  # the nominal gradient at the same point
    run: int  # which of the trainer's runs this draw reads


def gradient_part_outside_E(d: GradientDraw) -> float:
    """||Pi_perp g|| / ||g|| of the draw's augmented gradient (layers with E != L): Prop. 1 / Cor. 1 make it 0 on E.
    The null's draws carry the nominal gradient in ``aug``'s place (the same function reads both)."""
    return _rel_perp(d.trainer, d.aug)[d.run]


def augmented_minus_projected_nominal(d: GradientDraw) -> float:
    """||g_aug - Pi_E g_nom|| / ||g_nom|| over every layer (Prop. 1: 0 at points of E)."""
    import torch

    with torch.no_grad():
        proj = d.trainer.model.project(d.nom)
        gap = _norm([a - b for a, b in zip(d.aug, proj)]) / _norm(d.nom)
    return float(gap[d.run])


def _prop1_trainer(profile, name: str):
    """The experiment's architecture and settings with exact orbit averaging, on a subset of its data (Perm: the
    S(5) instance)."""
    import dataclasses

    from . import DynamicsConfig, Trainer

    settings = _settings(profile, name)
    samples = PROP1_SAMPLES[profile.name]
    fields = {f.name for f in dataclasses.fields(DynamicsConfig)}
    kw = {k: v for k, v in settings.items() if k in fields}
    kw.update(runs=PROP1_RUNS[profile.name], strategies=("nom", "aug", "equi"), exact_orbit=True,
              options={"nodes": PROP1_NODES, "graphs": samples} if name == "perm" else {"images": samples},
              device=profile.device)
    if profile.dtype:
        kw["dtype"] = profile.dtype
    if profile.data and name == "trans":
        kw["data"] = profile.data
    return Trainer(DynamicsConfig(experiment=name, seed=profile.seed, **kw)), settings


def _off_E(tr, seed: int):
    """A0 moved off E: every layer gets Gaussian noise of OFF_E_NOISE x its mean |entry| (a seeded generator)."""
    import torch

    gen = torch.Generator().manual_seed(int(seed))
    return [p + OFF_E_NOISE * torch.randn(p.shape, generator=gen, dtype=p.dtype).to(p.device) * p.abs().mean()
            for p in tr.A0]


def _prop1_points(profile, name: str, share):
    """Rows of the Prop. 1 check at A0 and at the end of Equi's trajectory (T steps at the experiment's lr), the
    draws of both parts, and the null's draws at a point moved off E."""
    import torch

    tr, settings = _prop1_trainer(profile, name)
    steps, lr = settings["steps"], settings["lr"]
    marks = {0, steps}
    A, points = [p.clone() for p in tr.A0], []
    with torch.no_grad():
        a0 = _norm(tr.A0)
    for step in range(steps + 1):
        if step in marks:
            points.append((step, [p.clone() for p in A]))
        if step < steps:  # Equi's update, as the trainer makes it: projected gradient, step, back onto E
            g, _, _ = tr.gradient("equi", params=A)
            with torch.no_grad():
                A = tr.model.project([p - lr * q for p, q in zip(A, g)])
    points.append(("off E", _off_E(tr, profile.seed)))
    rows, on, nominal, off = [], [], [], []
    for k, (step, P) in enumerate(points):
        lo, hi = share
        profile.progress(lo + (hi - lo) * k / len(points), f"Prop. 1 check, {name}: point {k + 1}/{len(points)}")
        profile.checkpoint()
        g_aug, _, _ = tr.gradient("aug", params=P)
        g_nom, _, _ = tr.gradient("nom", params=P)
        for r in range(tr.R):
            if step == "off E":
                off.append(GradientDraw(tr, g_aug, g_nom, r))
            else:
                on.append(GradientDraw(tr, g_aug, g_nom, r))
                nominal.append(GradientDraw(tr, g_nom, g_nom, r))
        with torch.no_grad():
            moved = (_norm([p - q for p, q in zip(P, tr.A0)]) / a0).tolist()
            in_E = _rel_perp(tr, P)
            aug = _rel_perp(tr, g_aug)
            nom = _rel_perp(tr, g_nom)
            proj = tr.model.project(g_nom)
            diff = (_norm([a - b for a, b in zip(g_aug, proj)]) / _norm(g_nom)).tolist()
        for r in range(tr.R):
            rows.append({"experiment": name, "group": f"{tr.exp.group} ({tr.passes('aug')} elements)", "step": step,
                         "run": tr.run_ids[r], "moved": moved[r], "point_perp": in_E[r], "aug": aug[r],
                         "nom": nom[r], "prop1": diff[r]})
    return rows, tr, (on, nominal, off)


EQUI_V1 = ("at A0 and at points along Equi's trajectory, in Perm (on S(5)), Trans and Rot: the part of the "
           "exact-orbit augmented gradient outside E, relative to the gradient, is rounding")
EQUI_PARTS = ("(a) no augmented gradient outside E", "(b) Prop. 1: g_aug = Pi_E g_nom")
EQUI_V2 = ("at A0 and at Equi's point after T steps (Perm on S(5), Trans, Rot; every run): (a) ||Pi_perp "
           "g_aug|| / ||g_aug|| of the exact-orbit augmented gradient and (b) ||g_aug - Pi_E g_nom|| / ||g_nom||, each "
           "with the 95 % interval of its mean over the points wholly below the rounding tolerance of the training "
           "dtype (float64 1e-10, float32 1e-4); nulls: (a) the nominal gradient at the same points, (b) the same "
           "identity at a point moved off E")


@claim("dyn-equi-in-E", "dynamics", "§4.1 (Prop. 1, Cor. 1); §5 (Equi)",
       "For A in E the gradient of the augmented risk equals the projected nominal gradient, so it has no component "
       "outside E: E is invariant under the augmented gradient flow (Cor. 1), and Equi, which follows the projected "
       "gradient, produces manifestly equivariant networks.",
       paper_value="Pi_perp grad R^aug(A) = 0 for A in E", seconds={"quick": 31, "full": 360},
       null="(a) the nominal gradient at the same points (its part outside E is not zero); (b) the same identity "
            "at A0 moved off E by noise (Prop. 1 holds on E only)",
       criteria=(Criterion(1, EQUI_V1, FIRST_REGISTERED),
                 Criterion(2, EQUI_V2, V2_DATE, reason="judged part by part on every (point, run) with an interval, "
                           "and Prop. 1's identity added with a null that could meet it (points off E)",
                           thresholds=(("tolerance_float64", EQUI_TOL["float64"]),
                                       ("tolerance_float32", EQUI_TOL["float32"])), parts=EQUI_PARTS)),
       paper_settings="exact orbit averages over S(5) (the Perm architecture on 5-node graphs: S(10) cannot be "
                      "enumerated), Z(8) x Z(8) and C4 on 50 samples (quick) or 500 (full) of each data set, the lab's "
                      "small presets' lr and steps at quick (the paper: S(10), its data sets, gradient flow)",
       chosen_on=("the lab's small presets' learning rates and steps and 50 samples per data set, for speed; exact "
                  "orbit averages; not tuned on outcomes (no record of tuning)"))
def equi_in_E(profile) -> Outcome:
    # Prop. 1 at equivariant points, exact orbit averages
    rows, dtypes, on, nominal, off = [], set(), [], [], []
    for k, name in enumerate(NAMES):
        got, tr, draws = _prop1_points(profile, name, share=(0.5 + 0.5 * k / 3, 0.5 + 0.5 * (k + 1) / 3))
        rows += got
        on += draws[0]
        nominal += draws[1]
        off += draws[2]
        dtypes.add(_dtype_name(tr))
    dtype = "float32" if "float32" in dtypes else "float64"
    tol = EQUI_TOL.get(dtype, EQUI_TOL["float32"])
    rule = Rule("<", tol)
    parts = [part(EQUI_PARTS[0], gradient_part_outside_E, on, nominal, rule,
                  "the nominal gradient at the same points and runs", exact=True),
             part(EQUI_PARTS[1], augmented_minus_projected_nominal, on, off, rule,
                  f"the same identity at A0 moved off E (noise {OFF_E_NOISE:g} x each layer's mean |entry|), "
                  "every experiment and run", exact=True)]
    in_E_rows = [r for r in rows if r["step"] != "off E"]
    worst_aug = max(r["aug"] for r in in_E_rows)
    nom_max, nom_min = max(r["nom"] for r in in_E_rows), min(r["nom"] for r in in_E_rows)
    prop1 = max(r["prop1"] for r in in_E_rows)
    off_min = min(r["prop1"] for r in rows if r["step"] == "off E")
    crit = (f"(a) ||Pi_perp g_aug|| / ||g_aug|| and (b) ||g_aug - Pi_E g_nom|| / ||g_nom|| at every (point in E, run): "
            f"95 % interval of the mean below {tol:g} (rounding of {dtype}; exact orbit averages, layers with E != L "
            "for (a))")

    # side evidence: Equi's distance from E over the shared trainings (true by construction)
    side, equi_worst = [], 0.0
    for k, name in enumerate(NAMES):
        tr = _main_run(profile, name, share=(k / 6, (k + 1) / 6))
        dist = {(r["run"], r["step"]): r["dist_from_E"] for r in tr.records
                if r["strategy"] == "equi" and r["layer"] == "total" and not r["diverged"]}
        rel = []
        for step, norms in enumerate(tr.step_norms):
            for i, run in enumerate(tr.run_ids):
                d = dist.get((run, step))
                if d is not None and not math.isnan(d) and norms["equi_norm"][i] > 0:
                    rel.append(d / norms["equi_norm"][i])
        absolute = max(v for v in dist.values() if not math.isnan(v))
        equi_worst = max(equi_worst, max(rel))
        side.append([name, _dtype_name(tr), tr.R, tr.step, absolute, max(rel)])

    per_exp = {n: max(r["aug"] for r in in_E_rows if r["experiment"] == n) for n in NAMES}
    groups = {r["experiment"]: r["group"] for r in rows}
    per_exp_nom = {n: min(r["nom"] for r in in_E_rows if r["experiment"] == n) for n in NAMES}
    table = [[r["experiment"], r["group"], str(r["step"]), r["run"], r["moved"], r["point_perp"], r["aug"],
              r["nom"], r["prop1"]] for r in rows]
    evidence = [
        {"kind": "bar", "title": "Part of the gradient outside E at equivariant points (max over points and runs; "
                                 "nominal: min)",
         "ylabel": "||Pi_perp grad|| / ||grad||", "labels": [f"{n}: {groups[n]}" for n in NAMES],
         "series": {"exact-orbit augmented gradient": [max(per_exp[n], 1e-300) for n in NAMES],
                    "nominal gradient": [per_exp_nom[n] for n in NAMES]}, "logy": True},
        {"kind": "table", "title": "Prop. 1 at A0 (step 0), along Equi's trajectory, and at A0 moved off E (the "
                                   "null of part (b))",
         "columns": ["experiment", "group", "Equi step", "run", "||A - A0|| / ||A0||", "||Pi_perp A|| / ||A||",
                     "aug: ||Pi_perp g|| / ||g||", "nom: ||Pi_perp g|| / ||g||",
                     "||g_aug - Pi_E g_nom|| / ||g_nom||"],
         "rows": table},
        {"kind": "table", "title": "Side evidence, true by construction: Equi's distance from E over the shared "
                                   "trainings (Equi is projected onto E after every step)",
         "columns": ["experiment", "dtype", "runs", "steps", "max ||Pi_perp A||", "max ||Pi_perp A|| / ||A||"],
         "rows": side}]
    settings = {"experiments": {n: {**_settings(profile, n), "runs": PROP1_RUNS[profile.name],
                                    "samples": PROP1_SAMPLES[profile.name],
                                    **({"nodes": PROP1_NODES} if n == "perm" else {})} for n in NAMES},
                "points": "A0 and Equi after T steps (T and lr: the experiment's); the null of (b): A0 "
                          f"plus noise {OFF_E_NOISE:g} x each layer's mean |entry| (seed {profile.seed})",
                "exact_orbit": True, "tolerance": tol, "dtype": dtype, "criterion": crit}
    what = ("The augmented risk is averaged over every group element (S(5): 120 permutations of the Perm "
            "architecture on 5-node graphs, as S(10)'s 3 628 800 cannot be enumerated; Z(8) x Z(8): 64 "
            "translations; C4: 4 rotations), on a subset of each data set (Prop. 1 holds for the empirical risk of any "
            "finite data set). ")
    a, b = parts
    if a.holds and b.holds:
        note = (what + f"At every equivariant point the augmented gradient's part outside E is at most {worst_aug:.2g} "
                f"of it, rounding, while the nominal gradient's is between {nom_min:.2g} and {nom_max:.2g}; the "
                f"augmented gradient equals Pi_E of the nominal gradient to {prop1:.2g} (Prop. 1), and at A0 moved "
                f"off E the same identity misses by at least {off_min:.2g}: it is a property of E, not of the code "
                f"path. Equi's own distance from E (at most {equi_worst:.2g} relative, last table) is true by "
                "construction: the lab projects its gradient onto E and its weights back onto E after every step.")
    else:
        note = (what + f"The exact-orbit augmented gradient has a part outside E of up to {worst_aug:.2g} of it and "
                f"misses Pi_E of the nominal gradient by up to {prop1:.2g}, against the rounding tolerance {tol:g} "
                "(see the table: the rows with the largest values show which experiment and point): the augmentation "
                "or the projection is defective there.")
    history = {1: {"holds": worst_aug < tol, "null_holds": nom_max < tol,
                   "measured": {"max_relative": worst_aug, "nominal_max_relative": nom_max},
                   "why": f"v1 reads the maximum over experiments, points and runs of ||Pi_perp g_aug|| / ||g_aug|| "
                          f"against {tol:g}, and its null the maximum of the nominal gradient's ratio"}}
    return Outcome(
        measured={"max_relative": worst_aug, "per_experiment": per_exp, "nominal_min_relative": nom_min,
                  "nominal_max_relative": nom_max, "max_aug_minus_projected_nominal": prop1,
                  "off_E_min_aug_minus_projected_nominal": off_min, "equi_max_relative": equi_worst},
        parts=parts, settings=settings, evidence=evidence, note=note, criterion=crit, history=history,
        replicates={"what": f"{len(on)} (point, run) pairs: 3 experiments x 2 points x {PROP1_RUNS[profile.name]} "
                            f"runs (seed {profile.seed})", "claim": len(on), "null": min(len(nominal), len(off))})


# ---------------------------------------------------------------------------------------------- exact orbit
def _exact_settings(profile) -> tuple[dict, int | None]:
    from ..tasks.nordenfors_paper import setting

    settings = dict(scale="small" if not profile.full else "paper", runs=profile.pick(3, 10),
                    steps=profile.pick(10, 50), lr=setting("rot", "small", "lr"), exact_orbit=True)
    return settings, profile.pick(100, None)


def _exact_run(profile):
    """Rot with Aug averaged over all four rotations, and Equi, from the same A0 (shared)."""
    settings, images = _exact_settings(profile)
    return profile.memo(("dyn-exact", "rot"), lambda: _train(
        profile, "rot", settings, strategies=("aug", "equi"), label="rot, exact orbit",
        options={"images": images} if images else {}), label="Rot, exact-orbit Aug and Equi")


def _sampled_run(profile):
    """The exact run's settings with sampled Aug: as many passes (one random rotation each) as C4 has elements."""
    settings, images = _exact_settings(profile)
    settings = {**settings, "exact_orbit": False, "aug_passes": 4}
    return _train(profile, "rot", settings, strategies=("aug", "equi"), label="rot, sampled Aug (L = 4)",
                  options={"images": images} if images else {})


def _follow(tr) -> list[float]:
    """Per step 1..T: max over runs of ||A_aug - A_equi|| / ||A_equi - A0||."""
    return [max(d / m if m > 0 else 0.0 for d, m in zip(n["aug_minus_equi"], n["equi_moved"]))
            for n in tr.step_norms[1:]]


@dataclass
class RunDraw:
    """One draw: one run of a trainer (a strategy's trajectory in it, where the statistic reads one)."""

    trainer: object
    run: int  # index into the trainer's runs
    strategy: str = "aug"
    other: object = None  # a second trainer the statistic compares with (the same run index)


def departure_from_equi(d: RunDraw) -> float:
    """max over steps of ||A_aug - A_equi|| / ||A_equi - A0|| for the draw's run (Cor. 2: rounding for the exact
    orbit average)."""
    r = d.run
    return max(n["aug_minus_equi"][r] / n["equi_moved"][r] if n["equi_moved"][r] > 0 else 0.0
               for n in d.trainer.step_norms[1:])


FOLLOW_V1 = ("Rot, Aug averaged over all four rotations: max over runs and steps of ||A_aug - A_equi|| / "
             "||A_equi - A0|| is rounding")
FOLLOW_PARTS = ("exact-orbit Aug is Equi",)
FOLLOW_V2 = ("Rot, Aug averaged over all four rotations, run by run: the 95 % interval of the mean over runs of "
             "max over steps of ||A_aug - A_equi|| / ||A_equi - A0|| wholly below the rounding tolerance of the "
             "training dtype (float64 1e-8, float32 1e-3); null: sampled Aug with L = 4 random rotations per step "
             "from the same A0s")


@claim("dyn-aug-follows-equi-exact-orbit", "dynamics", "§4.1 (Cor. 1, Cor. 2), §6",
       "Initialised on E, the augmented model (the exact augmented risk) follows exactly the same dynamics as the "
       "equivariant one.", paper_value="A_aug(t) = A_equi(t)", seconds={"quick": 5, "full": 120},
       null="sampled Aug at the same settings with L = 4 passes (one random rotation per mini-batch and pass: "
            "the same number of passes as the exact average), from the same A0s, run by run",
       criteria=(Criterion(1, FOLLOW_V1, FIRST_REGISTERED),
                 Criterion(2, FOLLOW_V2, V2_DATE, reason="judged on an interval over at least three runs, each "
                           "against its own sampled-Aug run", thresholds=(("tolerance_float64", FOLLOW_TOL["float64"]),
                                                                          ("tolerance_float32", FOLLOW_TOL["float32"])),
                           parts=FOLLOW_PARTS)),
       paper_settings="Rot on 100 images (quick; full: the paper's data), 3 runs x 10 steps at the lab's small-preset "
                      "rate 0.5 (full: 10 runs x 50 steps), gradient descent (the paper: gradient flow, a corollary "
                      "it states without an experiment)",
       chosen_on=("the lab's small Rot preset's rate 0.5 on 100 images, 3 runs x 10 steps, for speed; not tuned on "
                  "outcomes (no record of tuning)"))
def aug_follows_equi(profile) -> Outcome:
    settings, images = _exact_settings(profile)
    tr = _exact_run(profile)
    profile.progress(0.5, "rot: sampled Aug (the baseline)")
    sampled = _sampled_run(profile)
    dtype = _dtype_name(tr)
    tol = FOLLOW_TOL.get(dtype, FOLLOW_TOL["float32"])
    parts = [part(FOLLOW_PARTS[0], departure_from_equi, [RunDraw(tr, r) for r in range(tr.R)],
                  [RunDraw(sampled, r) for r in range(sampled.R)], Rule("<", tol),
                  f"sampled Aug, L = 4 random rotations per step, from the same A0s ({sampled.R} runs)", exact=True)]
    per_step, per_step_sampled = _follow(tr), _follow(sampled)
    worst, worst_sampled = max(per_step), max(per_step_sampled)
    absolute = max(max(n["aug_minus_equi"]) for n in tr.step_norms)
    moved = max(tr.step_norms[-1]["equi_moved"])
    aug_E = max(r["dist_from_E"] for r in tr.records if r["strategy"] == "aug" and r["layer"] == "total")
    sampled_E = max(r["dist_from_E"] for r in sampled.records if r["strategy"] == "aug" and r["layer"] == "total")
    crit = (f"per run, max over steps of ||A_aug - A_equi|| / ||A_equi - A0||: 95 % interval of the mean over "
            f"{tr.R} runs below {tol:g} (rounding of {dtype})")
    evidence = [{"kind": "line", "title": "Rot: Aug against Equi, exact orbit average (|G| = 4) and sampled (L = 4)",
                 "xlabel": "step", "ylabel": "max over runs of ||A_aug - A_equi|| / ||A_equi - A0||",
                 "x": list(range(1, len(per_step) + 1)),
                 "series": {"exact-orbit Aug": [max(v, 1e-300) for v in per_step],
                            "sampled Aug (L = 4)": per_step_sampled},
                 "logx": False, "logy": True},
                {"kind": "table", "title": "Aug against Equi",
                 "columns": ["Aug", "runs", "steps", "lr", "max ||A_aug - A_equi||", "max ||A_equi - A0||",
                             "max relative", "max ||Pi_perp A_aug||"],
                 "rows": [["exact orbit", tr.R, tr.step, tr.config.lr, absolute, moved, worst, aug_E],
                          ["sampled, L = 4", sampled.R, sampled.step, sampled.config.lr,
                           max(max(n["aug_minus_equi"]) for n in sampled.step_norms), moved, worst_sampled,
                           sampled_E]]}]
    history = {1: {"holds": worst <= tol, "null_holds": worst_sampled <= tol,
                   "measured": {"max_relative_difference": worst, "sampled_max_relative_difference": worst_sampled},
                   "why": f"v1 reads the maximum over runs and steps against {tol:g}, its null the same maximum for "
                          "sampled Aug"}}
    p = parts[0]
    return Outcome(
        measured={"max_relative_difference": worst, "max_difference": absolute,
                  "sampled_max_relative_difference": worst_sampled},
        parts=parts, history=history,
        settings={**settings, "experiment": "rot (C4 on the grid, 4 elements)", "images": images or "paper",
                  "strategies": ["aug", "equi"], "dtype": dtype, "criterion": crit,
                  "lr_note": "the lab's small-preset Rot rate (0.5), far above the paper's, so the weights move far: "
                             "the identity holds for gradient descent at any rate, and a large one tests it harder"},
        evidence=evidence, criterion=crit,
        note=("With the augmented risk averaged over all four rotations, the Aug gradient at an equivariant point is "
              "the projected (Equi) gradient (Prop. 1 and Lemma 2 of the paper), so the two trajectories coincide; the "
              f"difference left is rounding (at most {worst:.2g} of Equi's displacement over {tr.R} runs). Sampled Aug "
              "with the same number of passes (four random rotations, repeats allowed) from the same A0s separates "
              f"from Equi by {min(p.null_replicates):.2g} to {max(p.null_replicates):.2g} of it: the identity needs "
              "the exact average, and the criterion tells the two apart.") if p.holds else
             (f"Exact-orbit Aug separated from Equi by up to {worst:.2g} of Equi's displacement, more than rounding "
              f"({tol:g}; see the curve): " + (
                  "in float32 (the CUDA default) the two trajectories' rounding differences compound over the steps "
                  f"at the rate {tr.config.lr:g}, so this run cannot tell a defect from float32 rounding; "
                  "lab reproduce --dtype float64 judges the identity at float64's rounding." if dtype == "float32"
                  else "the exact orbit average or the projection is defective.")))


# ---------------------------------------------------------------------------------------------- penalty runs
def _penalty_run(profile, name: str, gamma_lr: float = PENALTY_GAMMA_LR, share=(0.0, 1.0)):
    """Aug + gamma ||Pi_perp A||^2 from the shared run's A0s, with the same augmentation draws as its Aug (shared:
    the null of dyn-aug-leaves-E and the claim of dyn-penalty-hypothesis)."""
    settings = _settings(profile, name)
    gamma = gamma_lr / settings["lr"]
    label = f"{name}: Aug + penalty (gamma x lr = {gamma_lr:g})"
    return profile.memo(("dyn-penalty", name, gamma_lr), lambda: _train(
        profile, name, settings, strategies=("aug_penalty",), gamma=gamma, share=share, label=label),
        label=label), gamma


def _shuffled_trainer(config, seed: int):
    """A Trainer whose ``aug_penalty`` pulls towards a shuffled E instead of E: per layer with E != L, E' = {W :
    W's entries relabelled by a random permutation lie in E}, a subspace of E's dimension (the same orbit sizes)
    that the group does not make.  The penalty is gamma ||A - Pi_E' A||^2, of the same strength; everything else
    (the augmentation draws, the records: distances from the true E) is the Trainer's."""
    import numpy as np
    import torch

    from . import Trainer

    class ShuffledPenalty(Trainer):
        def __init__(self, config):
            super().__init__(config)
            self.shuffles = [None if sp.trivial else torch.as_tensor(
                np.random.default_rng([seed, 23, k]).permutation(sp.size), device=self.device)
                for k, sp in enumerate(self.model.spaces)]

        def project_shuffled(self, params):
            out = []
            for sp, perm, group in zip(self.model.spaces, self.shuffles, self.model.layer_params(params)):
                W = group[0]
                if perm is None:
                    out.append(W)
                else:
                    v = W.reshape(*W.shape[:-2], sp.size)
                    u = sp.project(v[..., perm].reshape(W.shape)).reshape(v.shape)
                    back = torch.empty_like(v)
                    back[..., perm] = u
                    out.append(back.reshape(W.shape))
                out.extend(group[1:])
            return out

        def _gradient(self, strategy, params, alive, control, on_batch):
            if strategy != "aug_penalty":
                return super()._gradient(strategy, params, alive, control, on_batch)
            params = self.params[strategy] if params is None else params
            grads, loss, acc = super()._gradient("aug", params, alive, control, on_batch)
            proj = self.project_shuffled(params)
            gamma = self.config.gamma
            return [g + 2 * gamma * (p - q) for g, p, q in zip(grads, params, proj)], loss, acc

    return ShuffledPenalty(config)


def _shuffled_run(profile, name: str, gamma_lr: float = PENALTY_GAMMA_LR, share=(0.0, 1.0)):
    """Aug + gamma ||A - Pi_E' A||^2 towards a shuffled E' (``_shuffled_trainer``), from the shared run's A0s with
    its augmentation draws; progress and step norms as ``_train``."""
    settings = _settings(profile, name)
    gamma = gamma_lr / settings["lr"]
    label = f"{name}: Aug + penalty towards a shuffled E (gamma x lr = {gamma_lr:g})"

    def make():
        tr = _shuffled_trainer(_config(profile, name, settings, strategies=("aug_penalty",), gamma=gamma),
                               seed=profile.seed)
        steps, (lo, hi) = tr.config.steps, share

        def on_step(t, records):
            profile.progress(lo + (hi - lo) * t.step / steps, f"{label}: step {t.step}/{steps}")

        tr.run(on_step=on_step, control=profile.control)
        profile.checkpoint()
        return tr

    return profile.memo(("dyn-penalty-shuffled", name, gamma_lr), make, label=label)


# ---------------------------------------------------------------------------------------------- dyn-aug-leaves-E
def _leaves(trainer, strategy: str) -> dict:
    """Per run: final ||Pi_perp A|| / ||A|| and whether ||Pi_perp A|| grew from step 1 to the last step."""
    rel = _rel_perp(trainer, trainer.params[strategy])
    grew = [bool(r[-1] is not None and r[1] is not None and r[-1] > r[1]) for r in _per_run(trainer, strategy)]
    return {"relative": rel, "grew": grew}


def growth_second_half(d: RunDraw) -> float:
    """log10 of ||Pi_perp A|| at the last step over its value at the middle step, for the draw's run and strategy
    (above 0: the distance from E still grows; a stable E, which attracts, holds it level or shrinks it)."""
    path = _per_run(d.trainer, d.strategy)[d.run]
    mid, last = path[len(path) // 2], path[-1]
    if not mid or not last or mid <= 0 or last <= 0:
        raise ValueError(f"run {d.run} of {d.strategy} has no distance from E to compare (diverged or exactly in E)")
    return math.log10(last / mid)


def _live(trainer, strategy: str) -> list[int]:
    """The run indices of ``strategy`` that did not diverge."""
    return [i for i, when in enumerate(trainer.diverged_at[strategy]) if when is None]


LEAVES_V1 = ("in every run of Perm, Trans and Rot, Aug's final ||Pi_perp A|| / ||A|| is far above rounding "
             "(float64: 1e-8, 100 x the rounding tolerance) and ||Pi_perp A|| grew from the first step to the last")
LEAVES_PARTS = ("(a) Perm", "(b) Trans", "(c) Rot")
LEAVES_V2 = (f"Perm, Trans and Rot, each: log10 of Aug's ||Pi_perp A|| at the last step over the middle step, 95 % "
             f"interval of the mean over runs wholly above {GROWTH_MIN:g} (the distance from E keeps growing); null: "
             f"Aug + gamma ||Pi_perp A||^2 (gamma x lr = {PENALTY_GAMMA_LR:g}) from the same A0s with the same "
             "augmentation draws, for which E attracts")


@claim("dyn-aug-leaves-E", "dynamics", "§5.1 (i), Fig. 1",
       "The equivariant submanifold is consistently unstable in the repeated augmented experiments: initialised on "
       "E, Aug leaves it.", paper_value="unstable in every run (Perm, Trans, Rot)", seconds={"quick": 45, "full": 1500},
       null="Aug with the penalty gamma ||Pi_perp A||^2 (the same A0s and augmentation draws: the same sampling noise, "
            "but E attracts): the drift of a stable E's noise, read by the same growth statistic",
       criteria=(Criterion(1, LEAVES_V1, FIRST_REGISTERED),
                 Criterion(2, LEAVES_V2, V2_DATE, reason="v1's null (exact-orbit Aug) stays in E by construction; the "
                           "growth over the second half is read against Aug whose E is made attracting by a penalty, "
                           "which could meet it, per experiment on an interval over runs",
                           thresholds=(("growth_min_log10", GROWTH_MIN), ("penalty_gamma_x_lr", PENALTY_GAMMA_LR)),
                           parts=LEAVES_PARTS)),
       paper_settings="the shared Perm, Trans and Rot runs: the lab's small presets at quick (3 runs; Perm 40 steps, "
                      "Trans 100, Rot 30, lr 0.01 / 0.1 / 0.5, L = 10 / 5 / 4), the paper's settings at full (30 runs, "
                      "50 steps, L = 25, its learning rates); the penalty runs from the same A0s",
       chosen_on=("the shared small-preset runs (lab/tasks/nordenfors_paper.py SMALL, set for training speed); the "
                  "penalty's gamma x lr = 0.25 fixed in advance, not chosen on the outcome (module note)"))
def aug_leaves_E(profile) -> Outcome:
    per, rows, dtypes, trainers, pens, parts = {}, [], set(), {}, {}, []
    n = len(NAMES)
    for k, name in enumerate(NAMES):
        tr = _main_run(profile, name, share=(k / n, (k + 0.7) / n))
        pen, gamma = _penalty_run(profile, name, share=((k + 0.7) / n, (k + 1) / n))
        trainers[name], pens[name] = tr, pen
        dtypes.add(_dtype_name(tr))
        per[name] = _leaves(tr, "aug")
        nom, equi, pl = _leaves(tr, "nom"), _leaves(tr, "equi"), _leaves(pen, "aug_penalty")
        parts.append(part(LEAVES_PARTS[k], growth_second_half, [RunDraw(tr, r, "aug") for r in _live(tr, "aug")],
                          [RunDraw(pen, r, "aug_penalty") for r in _live(pen, "aug_penalty")],
                          Rule(">", GROWTH_MIN),
                          f"Aug + gamma ||Pi_perp A||^2, gamma = {gamma:g} (x lr = {PENALTY_GAMMA_LR:g}), same A0s and "
                          "augmentation draws", baseline=trivial_baseline({name: main_accuracy(profile, name)})))
        aug_growth = dict(zip(_live(tr, "aug"), parts[-1].replicates))
        pen_growth = dict(zip(_live(pen, "aug_penalty"), parts[-1].null_replicates))
        for i, run in enumerate(tr.run_ids):
            rows.append([name, run, tr.step, per[name]["relative"][i], per[name]["grew"][i], aug_growth.get(i),
                         pl["relative"][i], pen_growth.get(i), nom["relative"][i], equi["relative"][i]])
    dtype = "float32" if "float32" in dtypes else "float64"
    threshold = LEAVE_MIN.get(dtype, LEAVE_MIN["float32"])
    tol = EQUI_TOL.get(dtype, EQUI_TOL["float32"])

    def summary(d: dict) -> dict:
        rel = [v for x in d.values() for v in x["relative"]]
        return {"min_final_relative": min(rel), "every_run_grew": all(g for x in d.values() for g in x["grew"])}

    measured = summary(per)
    # v1, read on this run: its null was exact-orbit Aug (the shared Rot run of dyn-aug-follows-equi-exact-orbit)
    profile.progress(0.95, "rot, exact-orbit Aug (v1's baseline)")
    exact = _exact_run(profile)
    v1_null = summary({"rot exact orbit": _leaves(exact, "aug")})
    v1_ok = (lambda m: m["min_final_relative"] >= threshold and m["every_run_grew"])
    history = {1: {"holds": v1_ok(measured), "null_holds": v1_ok(v1_null),
                   "measured": {"aug": measured, "exact_orbit_aug": v1_null},
                   "why": f"v1 reads every run: Aug's final ||Pi_perp A|| / ||A|| >= {threshold:g} and ||Pi_perp A|| "
                          "at the last step above step 1's; its null, exact-orbit Aug (Rot, the shared run of "
                          "dyn-aug-follows-equi-exact-orbit), by the same reading"}}
    crit = (f"per experiment, log10(||Pi_perp A_T|| / ||Pi_perp A_T/2||) of Aug: 95 % interval of the mean over runs "
            f"above {GROWTH_MIN:g}; null: Aug + penalty (gamma x lr = {PENALTY_GAMMA_LR:g})")
    evidence = [
        {"kind": "trajectories", "title": "Distance from E over training, every run (faint) and their mean (bold)",
         "xlabel": "step", "ylabel": "||Pi_perp A||", "logx": False, "logy": True,
         "panels": {name.capitalize(): {"Aug": _trajectory_series(trainers[name], "aug"),
                                        "Nom": _trajectory_series(trainers[name], "nom"),
                                        f"Aug + penalty (gamma x lr = {PENALTY_GAMMA_LR:g})":
                                            _trajectory_series(pens[name], "aug_penalty")} for name in NAMES}},
        {"kind": "table", "title": "Per run: final ||Pi_perp A|| / ||A|| and log10 growth of ||Pi_perp A|| over the "
                                   "second half (steps T/2 to T)",
         "columns": ["experiment", "run", "steps", "Aug", "Aug grew from step 1", "Aug growth (log10)",
                     "Aug + penalty", "Aug + penalty growth (log10)", "Nom", "Equi"], "rows": rows}]
    by_exp = {nm: {"min_final_relative": min(per[nm]["relative"]), "runs_grew": sum(per[nm]["grew"]),
                   "runs": len(per[nm]["grew"]), "growth_log10": p.measured, "penalty_growth_log10": p.null_measured}
              for nm, p in zip(NAMES, parts)}
    growth = ", ".join(f"{nm} {p.measured:.2g} (penalty {p.null_measured:.2g})" for nm, p in zip(NAMES, parts))
    met = all(p.holds for p in parts)
    level = [nm for nm, p in zip(NAMES, parts) if p.null_holds]
    if met and not level:
        note = (f"Aug's distance from E is still growing over the second half of training in every experiment (mean "
                f"log10 growth from step T/2 to T: {growth}), and its final part outside E is at least "
                f"{measured['min_final_relative']:.2g} of A, {measured['min_final_relative'] / tol:.2g} times the "
                "rounding tolerance. With the penalty, which makes E attracting under the same augmentation noise, the "
                "same statistic reads the values in brackets: the growth is the instability of E, not noise "
                "accumulating around a stable E.")
    elif met:
        note = (f"Aug's distance from E is still growing over the second half of training in every experiment (mean "
                f"log10 growth from step T/2 to T: {growth}), and its final part outside E is at least "
                f"{measured['min_final_relative']:.2g} of A. But in {', '.join(level)} Aug with the penalty, for "
                "which E attracts, cannot be told from Aug by the same statistic (in brackets): there the distance "
                "tracks a noise level that itself rises over training, and the growth does not show that E is "
                "unstable at these settings.")
    else:
        weak = [nm for nm, p in zip(NAMES, parts) if not p.holds]
        note = (f"Aug's distance from E did not keep growing over the second half of training in "
                f"{', '.join(weak)} by the criterion (mean log10 growth from step T/2 to T: {growth}; see the table "
                "and the curves): at these passes, steps and learning rate the sampled augmentation moves A off E "
                f"(final part outside E at least {measured['min_final_relative']:.2g} of A) but the drift levels off.")
    return Outcome(
        measured={**measured, "per_experiment": by_exp}, parts=parts, history=history,
        settings={"experiments": {nm: _settings(profile, nm) for nm in NAMES}, "dtype": dtype,
                  "growth_min_log10": GROWTH_MIN, "v1_threshold": threshold, "penalty_gamma_x_lr": PENALTY_GAMMA_LR,
                  "criterion": crit},
        evidence=evidence, note=note, criterion=crit,
        accuracy={nm: main_accuracy(profile, nm) for nm in NAMES})


# ---------------------------------------------------------------------------------------------- penalty
def _penalty_compare(main, pen, strategy: str = "aug_penalty") -> dict:
    aug_E = _median(_final(main, "aug", "dist_from_E"))
    pen_E = _median(_final(pen, strategy, "dist_from_E"))
    aug_loss = _median(_final(main, "aug", "loss"))
    pen_loss = _median(_final(pen, strategy, "loss"))
    return {"aug_dist_from_E": aug_E, "penalty_dist_from_E": pen_E, "ratio": pen_E / aug_E,
            "aug_loss": aug_loss, "penalty_loss": pen_loss, "loss_ratio": pen_loss / aug_loss}


def _penalty_ok(m: dict) -> bool:
    return all(v["ratio"] <= PENALTY_MAX_RATIO and v["loss_ratio"] <= 1 + PENALTY_LOSS_MARGIN for v in m.values())


def _run_ratios(d: RunDraw) -> tuple[float, float]:
    """(final ||Pi_perp A|| of the draw's penalised run / Aug's, final training loss / Aug's), the same run index
    (the same A0 and augmentation draws)."""
    r = d.run
    pen_E, aug_E = _final(d.trainer, d.strategy, "dist_from_E")[r], _final(d.other, "aug", "dist_from_E")[r]
    pen_loss, aug_loss = _final(d.trainer, d.strategy, "loss")[r], _final(d.other, "aug", "loss")[r]
    return pen_E / aug_E, pen_loss / aug_loss


def penalty_score(d: RunDraw) -> float:
    """max(distance ratio / PENALTY_MAX_RATIO, loss ratio / (1 + PENALTY_LOSS_MARGIN)) of one run against Aug's:
    below 1 exactly when the penalty at least halves Aug's final ||Pi_perp A|| with a training loss at most 5 %
    above Aug's."""
    dist, loss = _run_ratios(d)
    return max(dist / PENALTY_MAX_RATIO, loss / (1 + PENALTY_LOSS_MARGIN))


PENALTY_V1 = ("Perm and Trans: Aug + gamma ||Pi_perp A||^2 ends with a median ||Pi_perp A|| at most 0.5 x Aug's, "
              "with a final median training loss at most 5% above Aug's")
PENALTY_PARTS = ("(a) Perm", "(b) Trans")
PENALTY_V2 = (f"Perm and Trans, each, run by run against Aug from the same A0 and augmentation draws: the score "
              f"max(final ||Pi_perp A|| / Aug's / {PENALTY_MAX_RATIO:g}, final training loss / Aug's / "
              f"{1 + PENALTY_LOSS_MARGIN:g}), 95 % interval of the mean over runs wholly below 1 (gamma x lr = "
              f"{PENALTY_GAMMA_LR:g}); null: a penalty of the same gamma towards a shuffled E (E's parameter sharing "
              "with the weight entries relabelled at random: the same dimension, not the group's)")


@claim("dyn-penalty-hypothesis", "dynamics", "§4.2, §6",
       "The drift of the augmented model away from E could be mitigated by a penalty proportional to "
       "||Pi_perp A||^2 in the augmented risk (proposed and left to future work by the paper).",
       paper_value="proposed, not tested", seconds={"quick": 59, "full": 3000}, kind="hypothesis",
       null="a penalty of the same strength towards a shuffled E (a subspace of E's dimension that the group does "
            "not make): any pull of that strength on the weights, not the pull towards E",
       criteria=(Criterion(1, PENALTY_V1, FIRST_REGISTERED),
                 Criterion(2, PENALTY_V2, V2_DATE, reason="v1's null (gamma = 0) read a ratio of 1 by construction; "
                           "run by run on an interval, against a penalty of the same strength towards a subspace of "
                           "the same dimension that is not E",
                           thresholds=(("max_distance_ratio", PENALTY_MAX_RATIO),
                                       ("loss_margin", PENALTY_LOSS_MARGIN), ("gamma_x_lr", PENALTY_GAMMA_LR)),
                           parts=PENALTY_PARTS)),
       paper_settings="the shared Perm and Trans runs (quick: the lab's small presets, 3 runs; full: the paper's "
                      "settings, 30 runs), each with the penalty at gamma x lr = 0.25 from the same A0s (the paper "
                      "proposes the penalty and runs no experiment with it)",
       chosen_on=("the shared small-preset runs (lab/tasks/nordenfors_paper.py SMALL, set for training speed); gamma x lr = "
                  "0.25 fixed in advance, not chosen on the outcome (module note)"))
def penalty_hypothesis(profile) -> Outcome:
    n = len(PENALTY_EXPERIMENTS)
    measured, rows, panels, accuracy, gammas, parts, shuffled_m = {}, [], {}, {}, {}, [], {}
    for k, name in enumerate(PENALTY_EXPERIMENTS):
        main = _main_run(profile, name, share=(k / n, k / n))
        if "aug" not in main.config.strategies:
            raise RuntimeError(f"the shared {name} run has no Aug")
        pen, gamma = _penalty_run(profile, name, share=(k / n, (k + 0.5) / n))
        shuf = _shuffled_run(profile, name, share=((k + 0.5) / n, (k + 1) / n))
        gammas[name] = {"gamma": gamma, "lr": main.config.lr}
        runs = [r for r in _live(main, "aug") if r in _live(pen, "aug_penalty")]
        null_runs = [r for r in _live(main, "aug") if r in _live(shuf, "aug_penalty")]
        parts.append(part(PENALTY_PARTS[k], penalty_score, [RunDraw(pen, r, "aug_penalty", main) for r in runs],
                          [RunDraw(shuf, r, "aug_penalty", main) for r in null_runs], Rule("<", 1.0),
                          f"the same gamma towards a shuffled E ({name}: E's sharing with the entries relabelled)",
                          baseline=trivial_baseline({name: main_accuracy(profile, name)})))
        m = measured[name] = _penalty_compare(main, pen)
        ms = shuffled_m[name] = _penalty_compare(main, shuf)
        accuracy[name] = {**main_accuracy(profile, name),
                          "aug + penalty": _median(_per_run_accuracy(pen)[0]["aug_penalty"]),
                          "aug + penalty towards a shuffled E": _median(_per_run_accuracy(shuf)[0]["aug_penalty"])}
        equi_E, equi_loss = _median(_final(main, "equi", "dist_from_E")), _median(_final(main, "equi", "loss"))
        rows += [[name, "Aug", 0.0, m["aug_dist_from_E"], 1.0, m["aug_loss"], 1.0],
                 [name, "Aug + penalty", gamma, m["penalty_dist_from_E"], m["ratio"], m["penalty_loss"],
                  m["loss_ratio"]],
                 [name, "Aug + penalty towards a shuffled E (null)", gamma, ms["penalty_dist_from_E"], ms["ratio"],
                  ms["penalty_loss"], ms["loss_ratio"]],
                 [name, "Equi", None, equi_E, equi_E / m["aug_dist_from_E"], equi_loss, equi_loss / m["aug_loss"]]]
        panels[name.capitalize()] = {"Aug": _trajectory_series(main, "aug"),
                                     f"Aug + penalty (gamma x lr = {PENALTY_GAMMA_LR:g})":
                                         _trajectory_series(pen, "aug_penalty"),
                                     "Aug + penalty towards a shuffled E": _trajectory_series(shuf, "aug_penalty")}
    per_run = []
    for name, p in zip(PENALTY_EXPERIMENTS, parts):
        main = _main_run(profile, name)
        pen, _ = _penalty_run(profile, name)
        shuf = _shuffled_run(profile, name)
        for r in _live(main, "aug"):
            got = _run_ratios(RunDraw(pen, r, "aug_penalty", main))
            null = _run_ratios(RunDraw(shuf, r, "aug_penalty", main))
            per_run.append([name, main.run_ids[r], got[0], got[1], null[0], null[1]])
    crit = (f"per experiment and run: max(||Pi_perp A|| ratio / {PENALTY_MAX_RATIO:g}, loss ratio / "
            f"{1 + PENALTY_LOSS_MARGIN:g}) against Aug from the same A0, 95 % interval of the mean over runs below 1 "
            f"(gamma x lr = {PENALTY_GAMMA_LR:g}); null: the same gamma towards a shuffled E")
    ratios = ", ".join(f"{name} {v['ratio']:.2g}" for name, v in measured.items())
    losses = ", ".join(f"{name} {v['loss_ratio']:.4g}" for name, v in measured.items())
    s_ratios = ", ".join(f"{name} {v['ratio']:.2g}" for name, v in shuffled_m.items())
    s_losses = ", ".join(f"{name} {v['loss_ratio']:.4g}" for name, v in shuffled_m.items())
    lead = ("The paper proposes this penalty (§4.2, §6) and leaves it to future work: this is a test of its "
            "hypothesis, not of a claim. gamma is fixed by gamma x lr = "
            f"{PENALTY_GAMMA_LR:g} (each step multiplies the part of A outside E by 1 - 2 gamma lr = "
            f"{1 - 2 * PENALTY_GAMMA_LR:g} before the loss's own push), not chosen on the outcome; every penalised run "
            "starts from the shared run's A0s and draws the same augmentations as its Aug. The null pulls with the "
            "same gamma towards a shuffled E (E's parameter sharing with the weight entries relabelled at random). ")
    met = all(p.holds for p in parts)
    if met:
        note = lead + (f"With the penalty the final median ||Pi_perp A|| is {ratios} x Aug's and the training loss "
                       f"{losses} x Aug's (within the {PENALTY_LOSS_MARGIN:.0%} margin): the penalty mitigates the "
                       f"drift at these settings. Towards a shuffled E the same strength gives {s_ratios} x Aug's "
                       f"distance and {s_losses} x its loss" + (
                           ", which the claim is not separated from: any pull of this strength would do, and the test "
                           "has no power at these settings." if any(p.null_holds for p in parts) else
                           ": the pull towards E, not any pull, keeps the loss. The accuracies the models reached are "
                           "beside the verdict."))
    else:
        note = lead + (f"The penalty leaves the final median ||Pi_perp A|| at {ratios} x Aug's and the training loss "
                       f"at {losses} x Aug's (towards a shuffled E: {s_ratios} and {s_losses}): the hypothesis "
                       "does not hold by the criterion at these settings (see the curves and the tables).")
    null_v1 = {name: {"ratio": 1.0, "loss_ratio": 1.0} for name in measured}
    history = {1: {"holds": _penalty_ok(measured), "null_holds": _penalty_ok(null_v1),
                   "measured": {name: {"ratio": v["ratio"], "loss_ratio": v["loss_ratio"]}
                                for name, v in measured.items()},
                   "why": "v1 reads the medians over runs of the final ||Pi_perp A|| and training loss against Aug's; "
                          "its null, gamma = 0, is Aug itself (ratios 1)"}}
    return Outcome(
        measured={name: {"ratio": v["ratio"], "loss_ratio": v["loss_ratio"],
                         "shuffled_ratio": shuffled_m[name]["ratio"],
                         "shuffled_loss_ratio": shuffled_m[name]["loss_ratio"]} for name, v in measured.items()},
        parts=parts, history=history,
        settings={"experiments": {n_: {**_settings(profile, n_), **gammas[n_]} for n_ in PENALTY_EXPERIMENTS},
                  "gamma_x_lr": PENALTY_GAMMA_LR, "shuffle_seed": profile.seed, "criterion": crit},
        evidence=[{"kind": "trajectories", "title": "Distance from E with and without the penalty, every run (faint) "
                   "and their mean (bold)", "xlabel": "step", "ylabel": "||Pi_perp A||", "logx": False, "logy": True,
                   "panels": panels},
                  {"kind": "table", "title": "Final medians over runs",
                   "columns": ["experiment", "model", "gamma", "median ||Pi_perp A||", "/ Aug's",
                               "median training loss", "/ Aug's"], "rows": rows},
                  {"kind": "table", "title": "Per run, against Aug from the same A0 (the parts' draws)",
                   "columns": ["experiment", "run", "penalty: ||Pi_perp A|| / Aug's", "penalty: loss / Aug's",
                               "shuffled E: ||Pi_perp A|| / Aug's", "shuffled E: loss / Aug's"], "rows": per_run}],
        note=note, criterion=crit, accuracy=accuracy)


# ---------------------------------------------------------------------------------------------- Appendix C
#: Appendix C's setting: G = S_2 acting on L = R^2 by the canonical representation (Example 3: the swap of the two
#: coordinates); E = span(e1 + e2), and the invariant symmetric bilinear forms on L are span(e1 e1^T + e2 e2^T,
#: e1 e2^T + e2 e1^T)
SWAP = ((1.0, 0.0), (0.0, 1.0)), ((0.0, 1.0), (1.0, 0.0))
#: Appendix C's first matrix (the nominal Hessian): not positive definite (its value on e2 is -1), its projection
#: onto the invariant forms, (H + P H P) / 2 = I / 2, is
NOMINAL_NOT_AUG = ((2.0, 0.0), (0.0, -1.0))
#: Appendix C's second matrix, itself invariant (its projection is itself): not positive definite (-1 on E-perp),
#: positive definite restricted to E (+1 on e1 + e2)
AUG_NOT_EQUI = ((0.0, 1.0), (1.0, 0.0))


@dataclass
class HessianDraw:
    """One draw: the group acting on L (a list of orthogonal matrices) and a symmetric matrix H, the Hessian at
    A* = 0 of the nominal risk R(A) = A^T H A / 2 (a stationary point of the nominal, augmented and equivariant
    risks alike), all written in one orthonormal basis of L."""

    action: list
    H: object  # numpy (d, d)
    what: str = ""


def _rotated(action, H, rng) -> tuple[list, object]:
    """The same group and matrix written in a random orthonormal basis of L (Q^T g Q, Q^T H Q)."""
    import numpy as np

    Q, R = np.linalg.qr(rng.standard_normal((len(H), len(H))))
    Q = Q * np.sign(np.diag(R))
    return [Q.T @ g @ Q for g in action], Q.T @ H @ Q


def risk_hessians(d: HessianDraw) -> tuple:
    """(nominal, augmented, equivariant) Hessians at A* = 0 by automatic differentiation of the risks' definitions:
    R(A) = A^T H A / 2, R^aug(A) = mean over g of R(rho(g) A), R^eq(t) = R(U t) with U an orthonormal basis of
    E = {A : rho(g) A = A} (the eigenvectors of the group average with eigenvalue 1).  Prop. 2 says the augmented
    Hessian is the projection of H onto the invariant forms and the equivariant one is H restricted to E; the
    autograd reading does not assume it."""
    import numpy as np
    import torch

    G = [torch.as_tensor(np.asarray(g), dtype=torch.float64) for g in d.action]
    H = torch.as_tensor(np.asarray(d.H), dtype=torch.float64)
    avg = sum(np.asarray(g) for g in d.action) / len(d.action)
    w, V = np.linalg.eigh((avg + avg.T) / 2)
    U = torch.as_tensor(V[:, w > 0.5], dtype=torch.float64)

    def nominal(a):
        return 0.5 * a @ H @ a

    def augmented(a):
        return sum(nominal(g @ a) for g in G) / len(G)

    def equivariant(t):
        return nominal(U @ t)

    hess = torch.autograd.functional.hessian
    zero = torch.zeros(len(H), dtype=torch.float64)
    return (hess(nominal, zero).numpy(), hess(augmented, zero).numpy(),
            hess(equivariant, torch.zeros(U.shape[1], dtype=torch.float64)).numpy())


def _lmin(M) -> float:
    import numpy as np

    return float(np.linalg.eigvalsh((M + M.T) / 2)[0])


def augmented_min_not_nominal(d: HessianDraw) -> float:
    """min(lambda_min of the augmented Hessian, -lambda_min of the nominal Hessian) / ||H||_F: positive exactly when
    A* is a strict local minimum of R^aug but not a local minimum of R (the converse of Prop. 3 (ii) fails)."""
    import numpy as np

    nom, aug, _ = risk_hessians(d)
    return min(_lmin(aug), -_lmin(nom)) / float(np.linalg.norm(d.H))


def equivariant_min_not_augmented(d: HessianDraw) -> float:
    """min(lambda_min of the equivariant Hessian, -lambda_min of the augmented Hessian) / ||H||_F: positive exactly
    when A* is a strict local minimum of R^eq but not a local minimum of R^aug (the converse of Prop. 3 (i)
    fails)."""
    import numpy as np

    _, aug, equi = risk_hessians(d)
    return min(_lmin(equi), -_lmin(aug)) / float(np.linalg.norm(d.H))


def _forward_violations(draws: int, seed: int) -> dict:
    """Prop. 3 itself on random symmetric matrices, with Prop. 2's closed forms (the augmented Hessian (H + P H P) / 2,
    the equivariant one u^T H u with u = (e1 + e2) / sqrt 2): how often a strict minimum of R (resp. R^aug) is not
    one of R^aug (resp. R^eq) (0 expected), and how often the converses fail."""
    import numpy as np

    rng = np.random.default_rng([seed, 31])
    A = rng.standard_normal((draws, 2, 2))
    H = (A + A.transpose(0, 2, 1)) / 2
    P = np.asarray(SWAP[1])
    aug = (H + P @ H @ P) / 2
    u = np.array([1.0, 1.0]) / np.sqrt(2)
    nom_min, aug_min = np.linalg.eigvalsh(H)[:, 0], np.linalg.eigvalsh(aug)[:, 0]
    equi = np.einsum("i,nij,j->n", u, H, u)
    return {"draws": int(draws), "nominal_pd_aug_not": int(np.sum((nom_min > 0) & ~(aug_min > 0))),
            "aug_pd_equi_not": int(np.sum((aug_min > 0) & ~(equi > 0))),
            "converse_ii_fails": int(np.sum((aug_min > 0) & (nom_min < 0))),
            "converse_i_fails": int(np.sum((equi > 0) & (aug_min < 0)))}


CONVERSE_PARTS = ("(a) strict minimum of R^aug, not of R", "(b) strict minimum of R^eq, not of R^aug")
CONVERSE_V1 = ("Appendix C's two matrices (G = S_2 on R^2), Hessians by automatic differentiation of the nominal, "
               "augmented and equivariant risks at a common stationary point, read in random orthonormal bases of L: "
               "(a) the first gives min(lambda_min(augmented Hessian), -lambda_min(nominal Hessian)) / ||H|| > 0 and "
               "(b) the second min(lambda_min(equivariant Hessian), -lambda_min(augmented Hessian)) / ||H|| > 0, the "
               "95 % interval of the mean over the readings wholly above 0; null: random symmetric 2 x 2 matrices "
               "(standard Gaussian entries, symmetrised) in the matrices' place")


@claim("dyn-converse-counterexample", "dynamics", "Appendix C (the converse of Prop. 3)",
       "The converse of Proposition 3 does not hold: a strict local minimum of the equivariant risk need not be one "
       "of the augmented risk, and a strict local minimum of the augmented risk need not be one of the nominal risk "
       "(Appendix C constructs both with two explicit matrices for S_2 acting on R^2).",
       paper_value="H not positive definite with Pi_G H positive definite; Pi_G H' not positive definite with H' "
                   "restricted to E positive definite",
       seconds={"quick": 1, "full": 2},
       null="random symmetric 2 x 2 matrices (Gaussian entries, symmetrised) in Appendix C's matrices' place, read "
            "the same way: a check that any matrix would pass has no power",
       criteria=(Criterion(1, CONVERSE_V1, V2_DATE, thresholds=(("margin_min", 0.0),), parts=CONVERSE_PARTS),),
       paper_settings="S_2 on L = R^2 with Appendix C's two matrices as the Hessians of quadratic risks at a common "
                      "stationary point (the seed's text lost the matrices' entries: the pair is rebuilt to the "
                      "appendix's stated properties, see the note); exact, as in the paper",
       chosen_on=("no settings to choose: Appendix C's two matrices, rebuilt to the appendix's stated properties, "
                  "read exactly; DECLARED: the draws per side raised from 3 to 20 (issue 62) for the power of "
                  "Fisher's exact test, after reading that the null met a part at 1 of 3 draws on the verdict seeds"))
def converse_counterexample(profile) -> Outcome:
    import numpy as np

    seeds = profile.seeds(quick=CONVERSE_DRAWS["quick"], full=CONVERSE_DRAWS["full"])
    action = [np.asarray(g) for g in SWAP]
    H1, H2 = np.asarray(NOMINAL_NOT_AUG), np.asarray(AUG_NOT_EQUI)

    def drawn(H, s, what):
        g, M = _rotated(action, H, np.random.default_rng([s, 29]))
        return HessianDraw(g, M, what)

    def random(s, k):
        rng = np.random.default_rng([s, 37, k])
        A = rng.standard_normal((2, 2))
        g, M = _rotated(action, (A + A.T) / 2, rng)
        return HessianDraw(g, M, "random symmetric")

    rule = Rule(">", 0.0)
    parts = [part(CONVERSE_PARTS[0], augmented_min_not_nominal, [drawn(H1, s, "first") for s in seeds],
                  [random(s, 0) for s in seeds], rule,
                  "random symmetric 2 x 2 matrices (Gaussian entries, symmetrised) in the first matrix's place",
                  exact=True),
             part(CONVERSE_PARTS[1], equivariant_min_not_augmented, [drawn(H2, s, "second") for s in seeds],
                  [random(s, 1) for s in seeds], rule,
                  "random symmetric 2 x 2 matrices (Gaussian entries, symmetrised) in the second matrix's place",
                  exact=True)]
    rows = []
    for name, H in (("first (Prop. 3 (ii)'s converse)", H1), ("second (Prop. 3 (i)'s converse)", H2)):
        nom, aug, equi = risk_hessians(HessianDraw(action, H))
        rows.append([name, str(H.tolist()), str(np.round(np.linalg.eigvalsh(nom), 12).tolist()),
                     str(np.round(aug, 12).tolist()), str(np.round(np.linalg.eigvalsh(aug), 12).tolist()),
                     str(np.round(equi, 12).tolist())])
    forward = _forward_violations(profile.pick(10000, 100000), profile.seed)
    crit = ("(a) min(lambda_min(Hess R^aug), -lambda_min(Hess R)) / ||H|| for the first matrix and (b) "
            "min(lambda_min(Hess R^eq), -lambda_min(Hess R^aug)) / ||H|| for the second, each read in "
            f"{len(seeds)} random orthonormal bases of L: 95 % interval of the mean above 0; null: random symmetric "
            "matrices")
    a, b = parts
    note = ("Appendix C takes G = S_2 acting on L = R^2 by swapping the coordinates (Example 3), so E = span(e1 + e2) "
            "and the invariant symmetric forms are spanned by e1 e1^T + e2 e2^T and e1 e2^T + e2 e1^T. The seed's "
            "text keeps the appendix's words but not its formulas, so the two matrices are rebuilt to what the words "
            "state: the first, diag(2, -1), is not positive definite (its value on e2 is -1) while its projection "
            "onto the invariant forms, I / 2, is; the second, e1 e2^T + e2 e1^T, is invariant and not positive "
            "definite (-1 on E-perp) while its restriction to E is +1. Taken as the Hessian of a quadratic nominal "
            "risk at a stationary point in E, the Hessians of the augmented and equivariant risks, obtained by "
            "automatic differentiation of their definitions (not from Prop. 2's formulas), are in the table: the "
            f"first gives a strict minimum of R^aug that is a saddle of R (margin {a.measured:.3g} of ||H||), the "
            f"second a strict minimum of R^eq that is a saddle of R^aug (margin {b.measured:.3g}). Random symmetric "
            f"matrices read {a.null_measured:.3g} and {b.null_measured:.3g} on average. Prop. 3 itself (a strict "
            "minimum of R is one of R^aug, and one of R^aug is one of R^eq) held on all "
            f"{forward['draws']} random matrices of the side check (Prop. 2's closed forms; "
            f"{forward['nominal_pd_aug_not']} and "
            f"{forward['aug_pd_equi_not']} violations), while its converses failed on "
            f"{forward['converse_ii_fails']} and {forward['converse_i_fails']} of them.")
    return Outcome(
        measured={"first_margin": a.measured, "second_margin": b.measured, "prop3_forward_check": forward},
        parts=parts, criterion=crit, note=note,
        settings={"group": "S_2 on R^2 (the swap)", "matrices": {"first": H1.tolist(), "second": H2.tolist()},
                  "bases": f"{len(seeds)} random orthonormal bases (seeds {seeds[0]}-{seeds[-1]})",
                  "null": "symmetrised standard Gaussian 2 x 2 matrices, one per seed and part",
                  "hessians": "torch.autograd.functional.hessian of the risks, float64", "criterion": crit},
        evidence=[{"kind": "table", "title": "Appendix C's matrices as nominal Hessians: the Hessians of the three "
                   "risks at the stationary point (autograd)",
                   "columns": ["matrix", "H (nominal Hessian)", "eigenvalues of H", "augmented Hessian",
                               "its eigenvalues", "equivariant Hessian (on E)"], "rows": rows},
                  {"kind": "table", "title": "Each reading: the claim's matrices in random bases, and the null's "
                   "random matrices",
                   "columns": ["part", "claim readings", "null readings"],
                   "rows": [[p.name, str([round(v, 6) for v in p.replicates]),
                             str([round(v, 6) for v in p.null_replicates])] for p in parts]}],
        replicates={"what": f"{len(seeds)} random orthonormal bases of L (seeds {seeds[0]}-{seeds[-1]}); the null: "
                            f"{len(seeds)} random matrices per part", "claim": len(seeds), "null": len(seeds)})
