"""Claims of Nordenfors & Flinth's poster, *Ensembles Learn Equivariance Through Data Augmentation*, measured with
``lab ensembles`` (``lab.experiments.ensembles``; the science in ``lab.ensembles``) on the rotation-invariant digits
task under C4.

* ``ens-exact-group-average`` (the theorem's mechanism).  The group-averaged ensemble -- one member ``A`` and its
  orbit ``rho_L(g) A`` for every g -- is equivariant at initialisation, and trained by the expected augmented
  gradient (exact orbit averaging, every member of the orbit fed the same batches) it stays so at every step:
  the equivariance error of its mean logits at most ``EXACT_TOL`` (1e-10; float64) at initialisation and after
  training.  Null: the same ensemble trained with sampled augmentation (each sample one random rotation, the
  poster's training): one draw is equivariant only in expectation, so the criterion must fail.
* ``ens-error-falls-with-M`` (setting (i), both assumptions hold).  The ensemble mean is equivariant, so an M-member
  ensemble's error is the deviation of a sample mean from an invariant one and falls as 1/sqrt(M): the fitted
  log-log slope of the error against M lies in ``SLOPE_RANGE`` ([-0.6, -0.4]) and the largest ensemble's error is
  within ``LAW_BAND`` (20 %) of the 1/sqrt(M) law from M = 1 (``err(M) sqrt(M) / err(1)``).  Null: the same pool
  trained without augmentation (the theorem's hypothesis is the augmented risk): its mean drifts away from invariant
  and the error levels off (measured slope about 0).
* ``ens-assumptions-matter`` (settings (ii) and (iii)).  Without an invariant initial distribution, or without an
  invariant layer space, the theorem's conclusion is not guaranteed, and the poster's figure shows the error levelling
  off above setting (i)'s as M grows: at the largest M each of (ii) and (iii) is at least ``ABOVE`` (10 %) above (i),
  and its law ratio ``err(M) sqrt(M) / err(1)`` is above (i)'s.  Null: a second pool of setting (i) (another seed)
  in place of (ii) and (iii): it must fail.

Profiles.  ``full``: the authors' training (SGD learning rate 0.01, batch 32), 8 channels (the authors use 16 on
28 x 28 MNIST), M up to 32 from a pool of 128 members, 600 steps, 200 held-out digits, 20 resamples per size.
``quick`` (CI): 4 channels, M up to 16 from a pool of 64, 100 held-out digits, 100 steps at learning rate 0.1
(ten times the authors': 200 steps at 0.01 barely move the members from their start, and the settings then differ
little).  The pools are trained once per profile and shared by the claims (``profile.memo``).

Quick, measured on this 2-core CPU (seed 0; about 25 s in all): all three hold and every null fails.  Exact: 4e-16
at initialisation, 5e-16 after 20 steps of orbit averaging; one sampled draw 0.35; one member alone 1.3.  Falls:
slope -0.502, law ratio 0.98.  Matter, at M = 16: (i) 0.533, (ii) 0.621 (1.17 x), (iii) 0.917 (1.72 x); slopes
-0.50, -0.45, -0.31; law ratios 0.98, 1.13, 1.68.  (At 200 steps of 0.05: (ii) 1.15 x, (iii) 1.86 x; the unaugmented
null's slope -0.015.)
"""
from __future__ import annotations

import math

from .claim import Outcome, claim, judge

EXACT_TOL = 1e-10
SLOPE_RANGE = (-0.6, -0.4)
LAW_BAND = 0.2
ABOVE = 0.1
QUICK = {"channels": 4, "members": 16, "pool_factor": 4, "steps": 100, "lr": 0.1, "test_points": 100,
         "resamples": 20}
FULL = {"channels": 8, "members": 32, "pool_factor": 4, "steps": 600, "lr": 0.01, "test_points": 200,
        "resamples": 20}
#: the exact claim's group-averaged ensemble: one member's orbit, trained this many steps in float64
EXACT = {"channels": 4, "steps": 20, "lr": 0.05, "batch": 32, "inputs": 64}


def plan(profile) -> dict:
    return dict(profile.pick(quick=QUICK, full=FULL))


def _f(x, digits: int = 4):
    x = float(x)
    return float(f"{x:.{digits}g}") if math.isfinite(x) else x


def pool_run(profile, setting: str, augment: str = "sampled", seed: int = 0) -> dict:
    """The summary of one ``lab ensembles`` run of ``profile``'s settings (shared between claims)."""
    def make():
        from ..experiments.ensembles import FAMILY, EnsemblesConfig

        cfg = EnsemblesConfig(setting=setting, augment=augment, seed=seed, records=2, device=profile.device,
                              **plan(profile))
        return FAMILY.summary(FAMILY.run(cfg))

    return profile.memo(("ensembles", setting, augment, seed), make,
                        label=f"ensembles {setting} {augment} seed {seed}")


def law_ratio(summary: dict) -> float:
    """``err(M) sqrt(M) / err(1)`` at the largest M: 1 on the 1/sqrt(M) law, above it when the error levels off."""
    e, m = summary["equivariance_error"], summary["sizes"]
    return e[-1] * math.sqrt(m[-1]) / e[0] if e and e[0] > 0 else math.nan


# ---------------------------------------------------------------------------------------------- criteria
def exact_met(errors: dict) -> bool:
    """Every measured error (at initialisation and after training) at most ``EXACT_TOL``."""
    return bool(errors) and all(math.isfinite(v) and v <= EXACT_TOL for v in errors.values())


def falls_met(m: dict) -> bool:
    lo, hi = SLOPE_RANGE
    return lo <= m["slope"] <= hi and abs(m["law_ratio"] - 1) <= LAW_BAND


def matter_met(m: dict) -> bool:
    """Each other setting above setting (i) by ``ABOVE`` at the largest M, and its law ratio above (i)'s."""
    base = m["invariant"]
    others = [v for k, v in m.items() if k != "invariant"]
    return bool(others) and all(v["error"] >= (1 + ABOVE) * base["error"] and v["law_ratio"] > base["law_ratio"]
                                for v in others)


EXACT_CRITERION = (f"the group-averaged ensemble's equivariance error (mean logits, float64) at most {EXACT_TOL:g} "
                   f"at initialisation and after training with exact orbit averaging")
EXACT_NULL = "the same group-averaged ensemble trained with sampled augmentation (one random rotation per sample)"
FALLS_CRITERION = (f"setting (i): the log-log slope of the error against M in [{SLOPE_RANGE[0]}, {SLOPE_RANGE[1]}] and "
                   f"err(M) sqrt(M) / err(1) within {LAW_BAND:.0%} of 1 at the largest M")
FALLS_NULL = "the same pool trained without augmentation"
MATTER_CRITERION = (f"at the largest M, settings (ii) and (iii) each at least {ABOVE:.0%} above setting (i)'s error, "
                    f"with a larger law ratio err(M) sqrt(M) / err(1) (levelling off)")
MATTER_NULL = "a second pool of setting (i) (seed 1) in place of settings (ii) and (iii)"


# ---------------------------------------------------------------------------------------------- the claims
@claim("ens-exact-group-average", "ensembles", "theorem; poster, right panel",
       "If (i) the network parameters are invariantly distributed at initialization and (ii) the space L is "
       "invariant, then the ensemble model trained under data augmentation satisfies "
       "phi_t(rho_X(g)x) = rho_Y(g) phi_t(x) for every g, x and t.",
       paper_value="the group-averaged ensemble is equivariant at every time",
       seconds={"quick": 2, "full": 3}, criterion=EXACT_CRITERION, null=EXACT_NULL)
def measure_exact(profile) -> Outcome:
    from ..ensembles.mechanism import group_average_errors
    from ..meter.cnn import digits_data

    e = EXACT
    data = digits_data(profile.seed)
    got = group_average_errors(data.x_train, data.y_train, data.x_test[:e["inputs"]], e["channels"], e["steps"],
                               e["lr"], e["batch"], profile.seed, profile.control)
    measured = {k: got[k] for k in ("at initialisation", "after exact orbit averaging")}
    null_measured = {k: got[k] for k in ("at initialisation", "after sampled augmentation")}
    single = got["one member alone"]
    holds, null = judge(exact_met, measured, EXACT_NULL, null_measured)
    null.measured = {k: _f(v, 3) for k, v in null_measured.items()}
    rows = [[k, _f(v, 3), v <= EXACT_TOL] for k, v in {**measured, **{"null: " + k: v for k, v in
                                                                         null_measured.items()}}.items()]
    rows.append(["one member alone (reported)", _f(single, 3), single <= EXACT_TOL])
    note = (f"One member's orbit under C4 (4 members), {e['channels']} channels, float64, {e['steps']} SGD "
            f"steps at learning rate {e['lr']} on the digits.  Exact orbit averaging keeps the ensemble at "
            f"{measured['after exact orbit averaging']:.2g}; one draw of sampled augmentation moves it to "
            f"{null_measured['after sampled augmentation']:.2g} (equivariant only in expectation); one member alone "
            f"reads {single:.2g}.")
    evidence = [{"kind": "table", "title": "Equivariance error of the group-averaged ensemble (mean logits)",
                 "columns": ["ensemble", "error", f"<= {EXACT_TOL:g}"], "rows": rows}]
    return Outcome(measured={k: _f(v, 3) for k, v in measured.items()}, holds=holds, settings=dict(e),
                   evidence=evidence, note=note, criterion=EXACT_CRITERION, null=null)


def _curve_evidence(title: str, runs: dict) -> dict:
    sizes = next(iter(runs.values()))["sizes"]
    return {"kind": "line", "title": title, "xlabel": "ensemble size M", "ylabel": "equivariance error",
            "logx": True, "logy": True, "x": sizes,
            "series": {name: [_f(v) for v in s["equivariance_error"]] for name, s in runs.items()}}


@claim("ens-error-falls-with-M", "ensembles", "poster, results figure",
       "We test our theory empirically by training both models that fulfill our theorem's assumptions and ones that "
       "violate them on an invariant MNIST classification task.",
       paper_value="setting (i): the ensemble's equivariance error falls with M (the 1/sqrt(M) law, slope -1/2)",
       seconds={"quick": 10, "full": 400}, criterion=FALLS_CRITERION, null=FALLS_NULL)
def measure_falls(profile) -> Outcome:
    run = pool_run(profile, "invariant")
    none = pool_run(profile, "invariant", augment="none")
    measured = {"slope": run["slope"], "law_ratio": law_ratio(run)}
    null_measured = {"slope": none["slope"], "law_ratio": law_ratio(none)}
    holds, null = judge(falls_met, measured, FALLS_NULL, null_measured)
    null.measured = {k: _f(v, 3) for k, v in null_measured.items()}
    note = (f"Setting (i), {run['pool']} members, M = 1 ... {run['members']}: slope {run['slope']:.3f}, law ratio "
            f"{measured['law_ratio']:.3f}; orbit-same-prediction {run['orbit_same_prediction'][0]:.2f} -> "
            f"{run['orbit_same_prediction'][-1]:.2f} of 4; held-out accuracy of the whole pool "
            f"{run['accuracy']['ensemble']:.3f}.  Without augmentation the error levels off at "
            f"{none['equivariance_error'][-1]:.3g} (slope {none['slope']:.3f}).  On noise images (out of "
            f"distribution) the slope is {run['noise']['slope']:.3f}.")
    evidence = [_curve_evidence("Setting (i): equivariance error against ensemble size (log-log)",
                                {"augmented (sampled)": run, "not augmented (null)": none}),
                {"kind": "table", "title": "Setting (i) per ensemble size",
                 "columns": ["M", "error", "sym. KL", "same prediction (of 4)"],
                 "rows": [[m, _f(e), _f(d), _f(o, 3)] for m, e, d, o in
                          zip(run["sizes"], run["equivariance_error"], run["divergence"],
                              run["orbit_same_prediction"])]}]
    return Outcome(measured={k: _f(v, 3) for k, v in measured.items()}, holds=holds, settings=plan(profile),
                   evidence=evidence, note=note, criterion=FALLS_CRITERION, null=null,
                   accuracy={"ensembles": {"invariant": _f(run["accuracy"]["ensemble"], 3),
                                           "no augmentation": _f(none["accuracy"]["ensemble"], 3),
                                           "chance": 0.1}})


@claim("ens-assumptions-matter", "ensembles", "poster, results figure",
       "We test our theory empirically by training both models that fulfill our theorem's assumptions and ones that "
       "violate them on an invariant MNIST classification task.",
       paper_value="settings (ii) and (iii) level off above setting (i) as M grows",
       seconds={"quick": 15, "full": 600}, criterion=MATTER_CRITERION, null=MATTER_NULL)
def measure_matter(profile) -> Outcome:
    runs = {s: pool_run(profile, s) for s in ("invariant", "noninvariant-init", "noninvariant-space")}
    twin = pool_run(profile, "invariant", seed=1)

    def reading(s):
        return {"error": s["equivariance_error"][-1], "slope": s["slope"], "law_ratio": law_ratio(s)}

    measured = {k: reading(v) for k, v in runs.items()}
    null_measured = {"invariant": measured["invariant"], "invariant (seed 1) as (ii)": reading(twin),
                     "invariant (seed 1) as (iii)": reading(twin)}
    holds, null = judge(matter_met, measured, MATTER_NULL, null_measured)
    null.measured = {k: {kk: _f(vv, 3) for kk, vv in v.items()} for k, v in null_measured.items()}
    m = runs["invariant"]["members"]
    parts = [f"{k}: error at M = {m} {v['error']:.3g} ({v['error'] / measured['invariant']['error']:.2f} x setting "
             f"(i)), slope {v['slope']:.3f}, law ratio {v['law_ratio']:.2f}" for k, v in measured.items()]
    checks = {k: check for k, check in ((k, runs[k]["assumptions"]) for k in runs)}
    note = ("; ".join(parts) + ".  Assumptions as the lab checks them: " + "; ".join(
        f"{k} space {'invariant' if c['space_invariant'] else 'not invariant'}, init "
        f"{'invariant' if c['init_invariant'] else 'not invariant'}" for k, c in checks.items()) + ".")
    evidence = [_curve_evidence("The three settings: equivariance error against ensemble size (log-log)",
                                {**runs, "invariant, seed 1 (null)": twin}),
                {"kind": "table", "title": f"At the largest ensemble (M = {m})",
                 "columns": ["setting", "error", "slope", "law ratio", "space invariant", "init invariant"],
                 "rows": [[k, _f(v["error"]), _f(v["slope"], 3), _f(v["law_ratio"], 3),
                           checks[k]["space_invariant"], checks[k]["init_invariant"]] for k, v in measured.items()]}]
    return Outcome(measured={k: {kk: _f(vv, 3) for kk, vv in v.items()} for k, v in measured.items()}, holds=holds,
                   settings=plan(profile), evidence=evidence, note=note, criterion=MATTER_CRITERION, null=null)
