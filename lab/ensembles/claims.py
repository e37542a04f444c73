"""Claims of Nordenfors & Flinth's poster, *Ensembles Learn Equivariance Through Data Augmentation*, measured with
``lab ensembles`` (``lab.ensembles.family``; the science in ``lab.ensembles``) on the rotation-invariant digits
task under C4.  Every threshold is judged on the 95 % interval of the mean over replicate seeds (each seed its own
data split, initialisations, batches and rotations), and every part's null is read by the same statistic on as
many draws of a competing explanation.

* ``ens-exact-group-average`` (the theorem's mechanism).  The group-averaged ensemble -- one member ``A`` and its
  orbit ``rho_L(g) A`` for every g -- is equivariant at initialisation, and trained by the expected augmented
  gradient (exact orbit averaging, every member of the orbit fed the same batches) it stays so at every step.
  Statistic per seed: the larger of its equivariance errors (mean logits, float64) at initialisation and after
  training; the interval of its mean must lie below ``EXACT_TOL`` (1e-10).  Null: the same ensemble trained with
  sampled augmentation (each sample one random rotation, the poster's training), same seeds: equivariant only in
  expectation.
* ``ens-error-falls-with-M`` (setting (i), both assumptions hold).  The ensemble mean is equivariant, so an M-member
  ensemble's error is the deviation of a sample mean from an invariant one and falls as 1/sqrt(M).  Part (a): the
  fitted log-log slope of the error against M within ``SLOPE_BAND`` of -1/2 (``|slope + 1/2|``); part (b): the
  largest ensemble's error within ``LAW_BAND`` of the 1/sqrt(M) law from M = 1 (``|err(M) sqrt(M) / err(1) - 1|``).
  Null of both: the same pools (same seeds) trained without augmentation -- the competing explanation that averaging
  alone makes the error fall so.
* ``ens-assumptions-matter`` (settings (ii) and (iii)).  Without an invariant initial distribution, or without an
  invariant layer space, the theorem's conclusion is not guaranteed, and the poster's figure shows the error levelling
  off above setting (i)'s as M grows.  Per seed, against setting (i) of the same seed: (a)/(b) the error of (ii)/(iii)
  at the largest M relative to (i)'s, minus 1, above ``ABOVE`` (10 %); (c)/(d) the law ratio of (ii)/(iii) minus
  (i)'s above 0 (levelling off).  Null of every part: setting (i) reseeded (seeds 3-5 after the run's seed) in place
  of (ii) and (iii) -- seed-to-seed variation of setting (i) itself.

Profiles.  ``full``: the authors' training (SGD learning rate 0.01, batch 32), 8 channels (the authors use 16 on
28 x 28 MNIST), M up to 32 from a pool of 128 members, 600 steps, 200 held-out digits, 20 resamples per size.
``quick`` (CI): 4 channels, M up to 16 from a pool of 32, 100 held-out digits, 100 steps at learning rate 0.1
(ten times the authors': 200 steps at 0.01 barely move the members from their start, and the settings then differ
little).  Both profiles run three replicate seeds per setting and three reseeded setting-(i) pools for the null.
The pools are trained once per profile and shared by the claims (``profile.memo``); the report carries the numbers.
"""
from __future__ import annotations

import math

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, extends
from ..reproduce.stats import ACCURACY_MARGIN, Rule, accuracy_baseline, part

EXACT_TOL = 1e-10
SLOPE_RANGE = (-0.6, -0.4)
LAW_BAND = 0.2
ABOVE = 0.1
#: v2: the slope's distance from -1/2 (SLOPE_RANGE as a band around it)
SLOPE_BAND = 0.1
QUICK = {"channels": 4, "members": 16, "pool_factor": 2, "steps": 100, "lr": 0.1, "test_points": 100,
         "resamples": 20}
FULL = {"channels": 8, "members": 32, "pool_factor": 4, "steps": 600, "lr": 0.01, "test_points": 200,
        "resamples": 20}
#: the exact claim's group-averaged ensemble: one member's orbit, trained this many steps in float64
EXACT = {"channels": 4, "steps": 20, "lr": 0.05, "batch": 32, "inputs": 64}
#: replicate seeds (after the run's seed) per setting, and how far the reseeded setting-(i) null pools start
REPLICATES = 3
NULL_OFFSET = 3
V2_DATE = "2026-11-27"
#: v3 (issue 62): the trivial baseline in the evidence and the verdict
BASELINE_DATE = "2026-12-02"
CHANCE = 0.1
BASELINE_TEXT = (f"  Every pool judged must classify better than chance ({CHANCE:g}, ten digits) by "
                 f"{ACCURACY_MARGIN:g} (its ensemble's test accuracy), else the part has no power.")
BASELINE_REASON = ("issue 62: the trivial baseline in every learned claim: equivariance errors of pools that learned "
                   "nothing say nothing about the theorem's trained ensembles")
V2_REASON = ("issue 46: one seed and a one-draw null judged a margin at seed-to-seed noise; v2 judges each part on "
             "the 95 % interval over three seeds against a null read by the same statistic on three draws")
PAPER_SETTINGS = {
    "quick": "scikit-learn's 8 x 8 digits under C4 stand in for the poster's rotated MNIST; 4-channel CNNs, M up to 16 "
             "from a pool of 32, 100 SGD steps at lr 0.1 (the poster: MNIST, 16 channels, lr 0.01, batch 32); 3 seeds "
             "per setting",
    "full": "scikit-learn's 8 x 8 digits under C4 stand in for the poster's rotated MNIST; 8-channel CNNs, M up to 32 "
            "from a pool of 128, 600 SGD steps at the poster's lr 0.01 and batch 32 (the poster: MNIST, 16 "
            "channels); 3 seeds per setting",
}


def plan(profile) -> dict:
    return dict(profile.pick(quick=QUICK, full=FULL))


def _f(x, digits: int = 4):
    x = float(x)
    return float(f"{x:.{digits}g}") if math.isfinite(x) else x


def pool_run(profile, setting: str, augment: str = "sampled", seed: int = 0) -> dict:
    """The summary of one ``lab ensembles`` run of ``profile``'s settings (shared between claims)."""
    def make():
        from .family import FAMILY, EnsemblesConfig

        cfg = EnsemblesConfig(setting=setting, augment=augment, seed=seed, records=2, device=profile.device,
                              **plan(profile))
        return FAMILY.summary(FAMILY.run(cfg))

    return profile.memo(("ensembles", setting, augment, seed), make,
                        label=f"ensembles {setting} {augment} seed {seed}")


def seeds(profile) -> list[int]:
    return profile.seeds(REPLICATES, REPLICATES)


def null_seeds(profile) -> list[int]:
    return [s + NULL_OFFSET for s in seeds(profile)]


def law_ratio(summary: dict) -> float:
    """``err(M) sqrt(M) / err(1)`` at the largest M: 1 on the 1/sqrt(M) law, above it when the error levels off."""
    e, m = summary["equivariance_error"], summary["sizes"]
    return e[-1] * math.sqrt(m[-1]) / e[0] if e and e[0] > 0 else math.nan


# ---------------------------------------------------------------------------------------------- criteria (v1)
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

# ---------------------------------------------------------------------------------------------- criteria (v2)
EXACT_PART = "(a) equivariant at initialisation and after exact orbit averaging"
EXACT_CRITERION_V2 = (f"per seed, the larger of the group-averaged ensemble's equivariance errors (mean logits, "
                      f"float64) at initialisation and after training with exact orbit averaging; the 95 % interval "
                      f"of its mean over {REPLICATES} seeds wholly below {EXACT_TOL:g}")
EXACT_NULL_V2 = ("the same group-averaged ensemble trained with sampled augmentation (one random rotation per "
                 "sample), same seeds")
FALLS_PARTS = ("(a) slope near -1/2", "(b) on the 1/sqrt(M) law at the largest M")
FALLS_CRITERION_V2 = (f"setting (i), per seed: (a) |slope + 1/2| of the log-log fit of the error against M, and (b) "
                      f"|err(M) sqrt(M) / err(1) - 1| at the largest M; the 95 % interval of each mean over "
                      f"{REPLICATES} seeds wholly below {SLOPE_BAND:g} and {LAW_BAND:g}")
FALLS_NULL_V2 = "the same pools (same seeds) trained without augmentation"
MATTER_PARTS = ("(a) (ii) above (i)", "(b) (iii) above (i)", "(c) (ii) levels off", "(d) (iii) levels off")
MATTER_CRITERION_V2 = (f"per seed, at the largest M against setting (i) of the same seed: (a)/(b) the error of "
                       f"(ii)/(iii) over (i)'s, minus 1, and (c)/(d) the law ratio err(M) sqrt(M) / err(1) of "
                       f"(ii)/(iii) minus (i)'s; the 95 % interval of each mean over {REPLICATES} seeds wholly above "
                       f"{ABOVE:g} for (a)/(b) and above 0 for (c)/(d)")
MATTER_NULL_V2 = (f"setting (i) reseeded (seeds {NULL_OFFSET} to {NULL_OFFSET + REPLICATES - 1} after the run's) in "
                  f"place of (ii) and (iii)")


# ---------------------------------------------------------------------------------------------- the claims
def _exact_draws(profile):
    """{seed: group_average_errors(...)} for the replicate seeds (each seed its own data split)."""
    def make():
        from .mechanism import group_average_errors
        from ..data.digits import digits_data

        e, out = EXACT, {}
        for s in seeds(profile):
            profile.checkpoint()
            data = digits_data(s)
            out[s] = group_average_errors(data.x_train, data.y_train, data.x_test[:e["inputs"]], e["channels"],
                                          e["steps"], e["lr"], e["batch"], s, profile.control)
        return out

    return profile.memo(("ensembles", "exact", tuple(seeds(profile))), make, label="ensembles group average")


def largest_error(errors: dict) -> float:
    """The statistic of ``ens-exact-group-average``: the larger of the ensemble's errors at initialisation and after
    training (read alike on the exact orbit averaging and on the sampled null)."""
    return max(float(v) for v in errors.values())


@claim("ens-exact-group-average", "ensembles", "theorem; poster, right panel",
       "If (i) the network parameters are invariantly distributed at initialization and (ii) the space L is "
       "invariant, then the ensemble model trained under data augmentation satisfies "
       "phi_t(rho_X(g)x) = rho_Y(g) phi_t(x) for every g, x and t.",
       paper_value="the group-averaged ensemble is equivariant at every time",
       seconds={"quick": 3, "full": 9}, null=EXACT_NULL_V2,
       criteria=(Criterion(1, EXACT_CRITERION, FIRST_REGISTERED),
                 Criterion(2, EXACT_CRITERION_V2, V2_DATE, V2_REASON, thresholds=(("EXACT_TOL", EXACT_TOL),),
                           parts=(EXACT_PART,))),
       paper_settings="8 x 8 digits under C4, one 4-channel member's orbit (4 members) in float64, 20 SGD steps; 3 "
                      "seeds (the poster states the theorem; its figure trains MNIST CNNs)",
       chosen_on=("EXACT (one 4-channel member's orbit, 20 steps in float64), set for speed; not tuned on outcomes "
                  "(no record of tuning)"))
def measure_exact(profile) -> Outcome:
    e = EXACT
    draws = _exact_draws(profile)
    ss = list(draws)
    trained = [{k: d[k] for k in ("at initialisation", "after exact orbit averaging")} for d in draws.values()]
    sampled = [{k: d[k] for k in ("at initialisation", "after sampled augmentation")} for d in draws.values()]
    p = part(EXACT_PART, largest_error, trained, sampled, Rule("<", EXACT_TOL), EXACT_NULL_V2, exact=True)
    first = draws[ss[0]]
    v1_measured = {k: first[k] for k in ("at initialisation", "after exact orbit averaging")}
    v1_null = {k: first[k] for k in ("at initialisation", "after sampled augmentation")}
    history = {1: {"holds": exact_met(v1_measured), "null_holds": exact_met(v1_null),
                   "measured": {k: _f(v, 3) for k, v in v1_measured.items()},
                   "why": f"v1 read on the first seed ({ss[0]}): both errors at most {EXACT_TOL:g}; its null, the "
                          f"sampled augmentation of the same seed"}}
    rows = []
    for s, d in draws.items():
        rows.append([s, _f(d["at initialisation"], 3), _f(d["after exact orbit averaging"], 3),
                     _f(d["after sampled augmentation"], 3), _f(d["one member alone"], 3)])
    note = (f"One member's orbit under C4 (4 members), {e['channels']} channels, float64, {e['steps']} SGD steps at "
            f"learning rate {e['lr']} on the digits, seeds {ss[0]}-{ss[-1]}.  Exact orbit averaging keeps the "
            f"ensemble at {max(p.replicates):.2g} or below; one draw of sampled augmentation moves it to "
            f"{min(p.null_replicates):.2g}-{max(p.null_replicates):.2g} (equivariant only in expectation); one "
            f"member alone reads {min(r[-1] for r in rows):.2g}-{max(r[-1] for r in rows):.2g} (reported).")
    evidence = [{"kind": "table", "title": "Equivariance error of the group-averaged ensemble (mean logits), per seed",
                 "columns": ["seed", "at initialisation", "after exact orbit averaging",
                             "after sampled augmentation (null)", "one member alone (reported)"], "rows": rows}]
    return Outcome(measured={"largest error (mean over seeds)": _f(p.measured, 3),
                             "null: sampled augmentation (mean)": _f(p.null_measured, 3)},
                   settings={**e, "seeds": ss}, evidence=evidence, note=note, criterion=EXACT_CRITERION_V2,
                   parts=[p], history=history,
                   replicates={"what": f"seeds {ss[0]}-{ss[-1]}", "claim": len(ss), "null": len(ss)})


def _curve_evidence(title: str, runs: dict) -> dict:
    sizes = next(iter(runs.values()))["sizes"]
    return {"kind": "line", "title": title, "xlabel": "ensemble size M", "ylabel": "equivariance error",
            "logx": True, "logy": True, "x": sizes,
            "series": {name: [_f(v) for v in s["equivariance_error"]] for name, s in runs.items()}}


def slope_gap(summary: dict) -> float:
    """``|slope + 1/2|``: the fitted log-log slope's distance from the 1/sqrt(M) law's."""
    return abs(summary["slope"] + 0.5)


def law_gap(summary: dict) -> float:
    """``|err(M) sqrt(M) / err(1) - 1|`` at the largest M."""
    return abs(law_ratio(summary) - 1)


@claim("ens-error-falls-with-M", "ensembles", "poster, results figure",
       "We test our theory empirically by training both models that fulfill our theorem's assumptions and ones that "
       "violate them on an invariant MNIST classification task.",
       paper_value="setting (i): the ensemble's equivariance error falls with M (the 1/sqrt(M) law, slope -1/2)",
       seconds={"quick": 20, "full": 1200}, null=FALLS_NULL_V2,
       criteria=(Criterion(1, FALLS_CRITERION, FIRST_REGISTERED),
                 Criterion(2, FALLS_CRITERION_V2, V2_DATE, V2_REASON,
                           thresholds=(("SLOPE_BAND", SLOPE_BAND), ("LAW_BAND", LAW_BAND)), parts=FALLS_PARTS)),
       later=(extends(BASELINE_TEXT, BASELINE_DATE, BASELINE_REASON),),
       chosen_on=("quick: 4 channels, M up to 16, 100 steps at lr 0.1 (ten times the authors'), raised because at "
                  "0.01 the members barely moved and the settings differed little (module docstring; on which seeds "
                  "that was read is not recorded)"))
def measure_falls(profile) -> Outcome:
    ss = seeds(profile)
    runs = [pool_run(profile, "invariant", seed=s) for s in ss]
    nones = [pool_run(profile, "invariant", augment="none", seed=s) for s in ss]
    chance = accuracy_baseline([r["accuracy"]["ensemble"] for r in runs], CHANCE, "the setting-(i) pools")
    parts = [part(FALLS_PARTS[0], slope_gap, runs, nones, Rule("<", SLOPE_BAND), FALLS_NULL_V2, baseline=chance),
             part(FALLS_PARTS[1], law_gap, runs, nones, Rule("<", LAW_BAND), FALLS_NULL_V2, baseline=chance)]
    run, none = runs[0], nones[0]
    v1 = {"slope": run["slope"], "law_ratio": law_ratio(run)}
    v1_null = {"slope": none["slope"], "law_ratio": law_ratio(none)}
    history = {1: {"holds": falls_met(v1), "null_holds": falls_met(v1_null),
                   "measured": {k: _f(v, 3) for k, v in v1.items()},
                   "why": f"v1 read on the first seed ({ss[0]}) against the same seed's unaugmented pool"}}
    per_seed = "; ".join(f"seed {s}: slope {r['slope']:.3f}, law ratio {law_ratio(r):.3f} (unaugmented: slope "
                         f"{n['slope']:.3f}, law ratio {law_ratio(n):.3f})" for s, r, n in zip(ss, runs, nones))
    accs = ", ".join(f"{r['accuracy']['ensemble']:.3f}" for r in runs)
    noise = ", ".join(f"{r['noise']['slope']:.3f}" for r in runs if r.get("noise"))
    note = (f"Setting (i), {run['pool']} members per seed, M = 1 ... {run['members']}.  {per_seed}.  Held-out "
            f"accuracy of the whole pool {accs}; on noise images (out of distribution) the slope is {noise}.")
    evidence = [_curve_evidence("Setting (i): equivariance error against ensemble size (log-log), per seed",
                                {**{f"augmented, seed {s}": r for s, r in zip(ss, runs)},
                                 **{f"not augmented (null), seed {s}": r for s, r in zip(ss, nones)}}),
                {"kind": "table", "title": f"Setting (i) per ensemble size (seed {ss[0]})",
                 "columns": ["M", "error", "sym. KL", "same prediction (of 4)"],
                 "rows": [[m, _f(e), _f(d), _f(o, 3)] for m, e, d, o in
                          zip(run["sizes"], run["equivariance_error"], run["divergence"],
                              run["orbit_same_prediction"])]}]
    return Outcome(measured={"slope": _f(sum(r["slope"] for r in runs) / len(runs), 3),
                             "law_ratio": _f(sum(law_ratio(r) for r in runs) / len(runs), 3)},
                   settings={**plan(profile), "seeds": ss}, evidence=evidence, note=note,
                   criterion=FALLS_CRITERION_V2, parts=parts, history=history,
                   replicates={"what": f"seeds {ss[0]}-{ss[-1]}", "claim": len(ss), "null": len(ss)},
                   paper_settings=PAPER_SETTINGS[profile.name],
                   accuracy={"ensembles": {"invariant": _f(run["accuracy"]["ensemble"], 3),
                                           "no augmentation": _f(none["accuracy"]["ensemble"], 3),
                                           "chance": 0.1}})


def _reading(s: dict) -> dict:
    return {"error": s["equivariance_error"][-1], "slope": s["slope"], "law_ratio": law_ratio(s)}


def error_above(pair) -> float:
    """(other, base) -> the other pool's error at the largest M over the base's, minus 1."""
    other, base = pair
    return other["equivariance_error"][-1] / base["equivariance_error"][-1] - 1


def law_above(pair) -> float:
    """(other, base) -> the other pool's law ratio minus the base's (positive: it levels off more)."""
    other, base = pair
    return law_ratio(other) - law_ratio(base)


@claim("ens-assumptions-matter", "ensembles", "poster, results figure",
       "We test our theory empirically by training both models that fulfill our theorem's assumptions and ones that "
       "violate them on an invariant MNIST classification task.",
       paper_value="settings (ii) and (iii) level off above setting (i) as M grows",
       seconds={"quick": 48, "full": 1800}, null=MATTER_NULL_V2,
       criteria=(Criterion(1, MATTER_CRITERION, FIRST_REGISTERED),
                 Criterion(2, MATTER_CRITERION_V2, V2_DATE, V2_REASON, thresholds=(("ABOVE", ABOVE),),
                           parts=MATTER_PARTS)),
       later=(extends(BASELINE_TEXT, BASELINE_DATE, BASELINE_REASON),),
       chosen_on=("quick: 4 channels, M up to 16, 100 steps at lr 0.1 (ten times the authors'), raised because at "
                  "0.01 the members barely moved and the settings differed little (module docstring; on which seeds "
                  "that was read is not recorded)"))
def measure_matter(profile) -> Outcome:
    ss, ns = seeds(profile), null_seeds(profile)
    names = ("invariant", "noninvariant-init", "noninvariant-space")
    runs = {k: [pool_run(profile, k, seed=s) for s in ss] for k in names}
    twins = [pool_run(profile, "invariant", seed=s) for s in ns]
    base = runs["invariant"]
    null_pairs = list(zip(twins, base))
    ii = list(zip(runs["noninvariant-init"], base))
    iii = list(zip(runs["noninvariant-space"], base))
    chance = {k: accuracy_baseline([r["accuracy"]["ensemble"] for r in (*base, *runs[k])], CHANCE,
                                   f"the setting-(i) and {k} pools") for k in names[1:]}
    ii_b, iii_b = chance["noninvariant-init"], chance["noninvariant-space"]
    parts = [part(MATTER_PARTS[0], error_above, ii, null_pairs, Rule(">", ABOVE), MATTER_NULL_V2, baseline=ii_b),
             part(MATTER_PARTS[1], error_above, iii, null_pairs, Rule(">", ABOVE), MATTER_NULL_V2, baseline=iii_b),
             part(MATTER_PARTS[2], law_above, ii, null_pairs, Rule(">", 0.0), MATTER_NULL_V2, baseline=ii_b),
             part(MATTER_PARTS[3], law_above, iii, null_pairs, Rule(">", 0.0), MATTER_NULL_V2, baseline=iii_b)]
    # v1 on this run: the first seed's three settings, its null the setting-(i) pool of the next seed (v1's "seed 1")
    v1 = {k: _reading(v[0]) for k, v in runs.items()}
    twin_v1 = _reading(base[1])
    v1_null = {"invariant": v1["invariant"], "invariant (next seed) as (ii)": twin_v1,
               "invariant (next seed) as (iii)": twin_v1}
    history = {1: {"holds": matter_met(v1), "null_holds": matter_met(v1_null),
                   "measured": {k: {kk: _f(vv, 3) for kk, vv in v.items()} for k, v in v1.items()},
                   "why": f"v1 read on the first seed ({ss[0]}); its null, setting (i) of seed {ss[1]}"}}
    m = base[0]["members"]
    mean = {k: {kk: sum(_reading(r)[kk] for r in v) / len(v) for kk in ("error", "slope", "law_ratio")}
            for k, v in runs.items()}
    per = {k: ", ".join(f"{r['equivariance_error'][-1]:.3g}" for r in runs[k]) for k in names}
    lines = [f"{k}: error at M = {m} {mean[k]['error']:.3g} (per seed {per[k]}), slope {mean[k]['slope']:.3f}, "
             f"law ratio {mean[k]['law_ratio']:.2f}" for k in names]
    twin_errors = ", ".join(f"{t['equivariance_error'][-1]:.3g}" for t in twins)
    twin_above = ", ".join(f"{v:+.2f}" for v in parts[0].null_replicates)
    checks = {k: runs[k][0]["assumptions"] for k in names}
    note = ("Means over seeds " + f"{ss[0]}-{ss[-1]}: " + "; ".join(lines) + f".  Reseeded setting (i) (seeds "
            f"{ns[0]}-{ns[-1]}, the null) reads {twin_errors}: its error relative to the same-position seed's, "
            f"minus 1, is {twin_above} (seed-to-seed variation of setting (i)).  "
            "Assumptions as the lab checks them: " + "; ".join(
                f"{k} space {'invariant' if c['space_invariant'] else 'not invariant'}, init "
                f"{'invariant' if c['init_invariant'] else 'not invariant'}" for k, c in checks.items()) + ".")
    evidence = [_curve_evidence(f"The three settings: equivariance error against ensemble size (log-log), seed {ss[0]}",
                                {**{k: v[0] for k, v in runs.items()},
                                 f"invariant, seed {ns[0]} (null)": twins[0]}),
                {"kind": "table", "title": f"At the largest ensemble (M = {m}), per seed",
                 "columns": ["setting", "seed", "error", "over (i) of the seed", "slope", "law ratio",
                             "space invariant", "init invariant"],
                 "rows": [[k, s, _f(r["equivariance_error"][-1]),
                           _f(r["equivariance_error"][-1] / b["equivariance_error"][-1], 3), _f(r["slope"], 3),
                           _f(law_ratio(r), 3), checks[k]["space_invariant"], checks[k]["init_invariant"]]
                          for k in names for s, r, b in zip(ss, runs[k], base)]
                         + [["invariant (null)", s, _f(t["equivariance_error"][-1]),
                             _f(t["equivariance_error"][-1] / b["equivariance_error"][-1], 3), _f(t["slope"], 3),
                             _f(law_ratio(t), 3), True, True] for s, t, b in zip(ns, twins, base)]}]
    return Outcome(measured={k: {kk: _f(vv, 3) for kk, vv in v.items()} for k, v in mean.items()},
                   settings={**plan(profile), "seeds": ss, "null_seeds": ns}, evidence=evidence, note=note,
                   criterion=MATTER_CRITERION_V2, parts=parts, history=history,
                   replicates={"what": f"seeds {ss[0]}-{ss[-1]} (null: setting (i) at seeds {ns[0]}-{ns[-1]})",
                               "claim": len(ss), "null": len(ns)},
                   paper_settings=PAPER_SETTINGS[profile.name])
