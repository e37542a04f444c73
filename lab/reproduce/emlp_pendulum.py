"""Claim of Finzi's thesis, chapter 2 (§2.7.2, Table 2.2, Figure 2.6): on the 3-D double spring pendulum, whose
Hamiltonian is invariant under O(2) about the z axis, Hamiltonian networks built from an EMLP over a group about z
(O(2), SO(2), D6) roll out better than the MLP Hamiltonian network; the EMLP-HNNs over a continuous group conserve
the angular momentum about z (Noether), D6 approximately, while the coarser D2 and every Neural ODE do not.

The science is ``lab.emlp.dynamics`` (``run_pendulum``: its docstring defines the models, the training and both
metrics, exactly the original code's): ``rollout_error`` is Table 2.2's number (the geometric mean over held-out
30 s rollouts and their 150 times of ``|z_hat - z| / (|z_hat| + |z|)``), ``momentum_error`` Figure 2.6 (middle)'s
(the same with the angular momentum ``L_z`` along the model's own rollout, against its start, clamped below at
``MOMENTUM_FLOOR`` = 1e-5).  Several seeds are pooled by the geometric mean of their numbers: each number is
itself a geometric mean over trajectories and times, so this is the same statistic over every seed's
trajectories at once (the per-seed numbers are in the evidence).

The criterion, judged per part and never averaged: every part that fails is named.

* rollout: for each group G of Table 2.2 (O(2), SO(2), D6), the EMLP-HNN over G has a rollout error below the
  MLP-HNN's;
* conserves: the EMLP-HNNs over O(2) and SO(2) have a momentum error below ``CONSERVED`` = 1e-3;
* approximately conserves: the EMLP-HNN over D6 has one below ``APPROX`` = 1e-2;
* does not conserve: the MLP Neural ODE, the EMLP Neural ODE over O(2) and the EMLP-HNN over D2 have one above
  ``APPROX`` (not even approximately).

The thresholds, read off the metric.  A relative error ``e = |dL| / (|L(t)| + |L(0)|)`` means a drift
``|dL| ~ 2 e |L|``; the metric cannot go below its floor 1e-5, and a model that conserves ``L_z`` exactly still
shows the evaluation integrator's error (rtol = atol = 2e-6 over 30 s): measured 1e-5 to 1e-4 for O(2) and
SO(2) EMLP-HNNs, trained or not.  ``CONSERVED`` = 1e-3, two decades above the floor, is an ``L_z`` kept to 0.2 %
over 30 s: far above that integration error, far below any model without the law.  "Approximate" conservation
is a decade looser, ``APPROX`` = 1e-2: ``L_z`` kept to about 2 %.  A model that "does not conserve" must not
even meet that; the models without the law measured 0.04 to 0.9 (the MLP-HNN 0.15-0.9, the Neural ODEs and
the D2 EMLP-HNN 0.04-0.8 once their fields have moved from their start), the D2 EMLP-HNN 1e-2 to 3e-2 barely
trained (one step at 16 channels, ten at 32).
Note why D6 sits at the floor in the lab: D6's invariant and equivariant maps between tensors of rank below 6
are O(2)'s (``lab.emlp.dynamics``), so at 32 channels its EMLP has exactly O(2)'s equivariant layers (2 236
parameters: D6's spaces contain O(2)'s and have their dimensions) and conserves L_z exactly; at the thesis's 128
channels it has two parameters more (27 525 against 27 523).

* ``full``: the thesis's settings (``dynamics.PAPER``, appendix A.1.9-A.1.10: 500 training chunks, 500 held-out
  rollouts, 2000 epochs of one full batch, 3 layers of 128 channels, Adam 3e-3), 3 seeds ("over 3 trials" /
  "3 runs"); the MLP-HNN, the EMLP-HNNs over O(2), SO(2), D6 and D2, the MLP Neural ODE and the EMLP Neural ODE
  over O(2) (Table 2.2's Neural ODEs over SO(2) and D6 are not run: no Neural ODE has a conservation law, and
  the criterion reads none of their rollouts).  Every part is judged.  About 13 hours on a 2-core CPU:
  measured per training step at these settings, an EMLP-HNN 1.5-1.7 s, the EMLP Neural ODE 0.6 s, the MLPs
  0.04-0.1 s (2000 steps each, five EMLPs per seed, three seeds), and a field evaluation on the 500 held-out
  states 0.09 s (a few minutes of rollouts per EMLP).
* ``quick`` (CI): the conservation parts only, at a short schedule: 32 training chunks, 8 held-out rollouts,
  20 steps at Adam 1e-2, 3 layers of 32 channels, one seed.  Noether needs no training: an EMLP-HNN over a
  continuous group conserves ``L_z`` whatever its weights, and the laws' absence shows as soon as a field has
  moved from its start; the learning rate 1e-2 is what moves every field within 20 steps (at 3e-3 the EMLP
  Neural ODE's momentum error is 0.007 after 20 steps, 0.08 after 30; at 1e-2, 0.08 after 20).  A short
  schedule can only understate a missing law (measured at Adam 1e-2: the D2 EMLP-HNN 0.17, 0.63, 0.76, 0.78 and
  the EMLP Neural ODE 0.04, 0.08, 0.15, 0.39 after 10, 20, 30, 40 steps).  Measured at these settings (seed 0,
  29 s on 2 shared cores, the claim alone): momentum error EMLP-HNN O(2) 1.0e-5, SO(2) 1.0e-5, D6 1.0e-5 (the
  floor); MLP N-ODE 0.74, EMLP N-ODE O(2) 0.077, EMLP-HNN D2 0.63 (MLP-HNN 0.80); the null's MLP-HNN (seed 1)
  0.71.  Its slowest part is the four EMLP-HNNs, about 5 s each (20 steps and a 30 s rollout).  The rollout part
  is *not* judged at the quick settings: it needs trained EMLP-HNNs, and at the cheapest settings where one is
  trained (32 channels, 32 chunks, Adam 1e-2, 100 steps: about 20 s an EMLP-HNN on 2 shared cores, three of them)
  it is seed luck: seed 0 EMLP-HNN O(2) 0.072 against the MLP-HNN's 0.156, seed 1 0.183 against 0.120, seed 2
  0.207 against 0.139 (at 150 steps, seeds 0, 1 and 2: 0.070 / 0.108, 0.070 / 0.100, 0.246 / 0.106; at 32 chunks
  and Adam 3e-3, 300 steps, seed 0: 0.074 / 0.088; at 16 channels the EMLP-HNN's training loss stalls near 0.009,
  five times the MLP-HNN's).  The quick run's rollout errors (of models 20 steps old: 0.2-0.4, no better than the
  0.24 of an untrained model that barely moves) are shown, not judged.

The null check (``Outcome.null``) applies the same criterion with an MLP-HNN trained under other seeds (fresh
weights and fresh training and test draws, the same schedule) in the place of each EMLP-HNN over O(2), SO(2)
and D6.  The MLP-HNN has the Hamiltonian structure but no symmetry, so Noether gives it no law: its momentum
error (0.15-0.9 measured, 0.71 at the quick settings) fails the conservation parts by two decades and more,
whatever its training, and a criterion it passed could not tell a symmetric Hamiltonian from an unconstrained
one.  That is where the null's power lies.  Its reading of the rollout part (a reseeded MLP-HNN against the
MLP-HNN) is reported per group too: it measures seed noise and may go either way; the conservation parts alone
make it fail.  Putting the same seed's MLP-HNN in the EMLP-HNNs' place was considered and not chosen: its
rollout part would fail trivially (equal, not below) and say nothing about seed noise.
"""
from __future__ import annotations

import math

from .claim import Outcome, claim, judge

#: Table 2.2's groups about z (the EMLP-G models), the continuous ones, and D2, the text's coarse group
Z_GROUPS = ("O2eR3()", "SO2eR3()", "DkeR3(6)")
CONTINUOUS = ("O2eR3()", "SO2eR3()")
APPROXIMATE = ("DkeR3(6)",)
COARSE = "DkeR3(2)"
GROUP_NAMES = {"O2eR3()": "O(2)", "SO2eR3()": "SO(2)", "DkeR3(6)": "D6", "DkeR3(2)": "D2"}
MODEL_NAMES = {"hnn-mlp": "MLP-HNN", "hnn-emlp": "EMLP-HNN", "node-mlp": "MLP N-ODE", "node-emlp": "EMLP N-ODE"}
#: "Errorbars are 1 standard deviation computed over 3 trials" (Table 2.2), "95% confidence interval over 3 runs"
#: (Figure 2.6)
PAPER_SEEDS = 3
#: momentum error below which L_z is conserved (two decades above the metric's floor 1e-5: L_z kept to 0.2 %)
CONSERVED = 1e-3
#: momentum error below which L_z is approximately conserved (kept to about 2 %); above it, not conserved
APPROX = 1e-2
#: Table 2.2 (the rollout error: mean over 3 trials)
TABLE_2_2 = {"HNN": {"O(2)": 0.012, "SO(2)": 0.015, "D6": 0.013, "MLP": 0.028},
             "N-ODE": {"O(2)": 0.019, "SO(2)": 0.051, "D6": 0.036, "MLP": 0.048}}
NULL_NAME = "MLP-HNN, other seeds (null)"

MLP_HNN = "MLP-HNN"
#: the models that must not conserve L_z (labels)
NOT_CONSERVING = ("MLP N-ODE", "EMLP N-ODE O(2)", "EMLP-HNN D2")

CRITERION = (f"judged per part, never averaged: (rollout) the EMLP-HNN over each of O(2), SO(2), D6 has a "
             f"rollout error below the MLP-HNN's; (conserves) the EMLP-HNNs over O(2) and SO(2) have an angular "
             f"momentum error below {CONSERVED:g}; (approximately) the EMLP-HNN over D6 below {APPROX:g}; (does not "
             f"conserve) the MLP and EMLP O(2) Neural ODEs and the EMLP-HNN over D2 above {APPROX:g} (geometric "
             f"means over 30 s rollouts, pooled over seeds)")
NULL = ("an MLP-HNN retrained under other seeds (fresh weights and data draws, the same schedule) in the place of "
        "each EMLP-HNN over O(2), SO(2) and D6: a Hamiltonian without symmetry, so no conservation law")

#: the quick profile's schedule (see the module docstring)
QUICK = {"train": 32, "test": 8, "epochs": 20, "channels": 32, "layers": 3, "lr": 1e-2}


def label(model: str, group: str | None = None) -> str:
    """``"EMLP-HNN O(2)"`` for ("hnn-emlp", "O2eR3()"), ``"MLP-HNN"`` for an MLP (its group is ignored)."""
    name = MODEL_NAMES[model]
    return f"{name} {GROUP_NAMES.get(group, group)}" if model.endswith("emlp") and group else name


def emlp_hnn(group: str) -> str:
    return label("hnn-emlp", group)


def plan(profile) -> dict:
    """The settings of ``profile`` (see the module docstring): the schedule (``DynamicsSettings`` keywords), the
    ``run_pendulum`` calls (models, groups), the seeds and which groups the rollout part judges."""
    calls = [(("hnn-mlp", "node-mlp", "hnn-emlp"), Z_GROUPS + (COARSE,)), (("node-emlp",), ("O2eR3()",))]
    return profile.pick(quick={"schedule": dict(QUICK), "calls": calls, "seeds": 1, "rollout": ()},
                        full={"schedule": "paper", "calls": calls, "seeds": PAPER_SEEDS, "rollout": Z_GROUPS})


def _num(value) -> float:
    """A metric as a number to compare: a missing or non-finite one is nan (every comparison with it fails)."""
    if value is None:
        return math.nan
    value = float(value)
    return value if math.isfinite(value) else math.nan


def pooled(rows) -> dict:
    """``{"rollout_error": {label: ..}, "momentum_error": {label: ..}}``: per model label, the geometric mean over
    ``rows``' seeds of each metric (each is a geometric mean over trajectories and times: this is the same
    statistic over every seed's trajectories).  A missing or non-finite value makes the label's entry nan."""
    out = {"rollout_error": {}, "momentum_error": {}}
    by_label: dict = {}
    for r in rows:
        by_label.setdefault(label(r["model"], r.get("group")), []).append(r)
    for name, rs in by_label.items():
        for key in out:
            vals = [_num(r.get(key)) for r in rs]
            ok = all(v > 0 for v in vals)  # nan > 0 is False
            out[key][name] = math.exp(sum(math.log(v) for v in vals) / len(vals)) if ok and vals else math.nan
    return out


def parts(measured: dict, rollout=Z_GROUPS) -> dict:
    """The criterion's parts, each True or False, read on ``measured`` (as ``pooled``): the rollout part for the
    groups ``rollout`` (none at the quick settings), the conservation parts always.  A missing model fails its
    part."""
    roll, mom = measured.get("rollout_error", {}), measured.get("momentum_error", {})
    out = {}
    for g in rollout:
        out[f"rollout: {emlp_hnn(g)} below {MLP_HNN}"] = _num(roll.get(emlp_hnn(g))) < _num(roll.get(MLP_HNN))
    for g in CONTINUOUS:
        out[f"conserves: {emlp_hnn(g)}"] = _num(mom.get(emlp_hnn(g))) < CONSERVED
    for g in APPROXIMATE:
        out[f"approximately conserves: {emlp_hnn(g)}"] = _num(mom.get(emlp_hnn(g))) < APPROX
    for name in NOT_CONSERVING:
        out[f"does not conserve: {name}"] = _num(mom.get(name)) > APPROX
    return out


def every_part(rollout=Z_GROUPS):
    """The criterion as one function of ``measured``: every part met."""
    def met(measured) -> bool:
        p = parts(measured, rollout)
        return bool(p) and all(p.values())
    return met


def not_met(measured: dict, rollout=Z_GROUPS) -> list:
    """The parts not met, in order."""
    return [k for k, v in parts(measured, rollout).items() if not v]


def substituted(measured: dict, null: dict) -> dict:
    """``measured`` with the MLP-HNN of ``null`` (as ``pooled``, of other seeds) in the place of each EMLP-HNN over
    O(2), SO(2) and D6 (the null check's reading)."""
    out = {key: dict(vals) for key, vals in measured.items()}
    for key in out:
        for g in Z_GROUPS:
            out[key][emlp_hnn(g)] = null.get(key, {}).get(MLP_HNN, math.nan)
    return out


def _f(x, digits: int = 4):
    if x is None:
        return None
    x = float(x)
    return float(f"{x:.{digits}g}") if math.isfinite(x) else None


def _rounded(measured: dict) -> dict:
    return {key: {k: _f(v) for k, v in vals.items()} for key, vals in measured.items()}


def assess(rows, null_rows, settings: dict | None = None, rollout=Z_GROUPS, quick: bool = False) -> Outcome:
    """The outcome from measured numbers, no training: ``rows`` are ``run_pendulum`` rows of every model and seed
    (at least ``model``, ``group``, ``seed``, ``rollout_error``, ``momentum_error``), ``null_rows`` the MLP-HNN's
    rows under the null's other seeds; ``rollout``: the groups whose rollout part is judged (all of Table 2.2's
    under the full profile, none under the quick one)."""
    rows, null_rows = list(rows), list(null_rows)
    measured = pooled(rows)
    null_pooled = pooled(null_rows)
    null_measured = substituted(measured, null_pooled)
    criterion_fn = every_part(rollout)
    holds, null = judge(criterion_fn, measured, NULL, null_measured)
    p, null_p = parts(measured, rollout), parts(null_measured, rollout)
    failing, null_failing = [k for k, v in p.items() if not v], [k for k, v in null_p.items() if not v]
    # every part of the null's reading (the rollout part over Table 2.2's groups even where it is not judged)
    null_all = parts(null_measured, Z_GROUPS)
    null_rollout = {GROUP_NAMES[g]: bool(null_all[f"rollout: {emlp_hnn(g)} below {MLP_HNN}"]) for g in Z_GROUPS}
    null.measured = {NULL_NAME: {key: _f(null_pooled[key].get(MLP_HNN)) for key in null_pooled},
                     "parts not met": null_failing, "rollout part met": null_rollout}
    seeds = sorted({r.get("seed") for r in rows}, key=str)
    judged = "every part" if rollout else "the conservation parts only (the rollout part is not judged)"
    criterion = (f"{CRITERION}; {len(seeds)} seed{'s' if len(seeds) != 1 else ''}, {judged}: met at "
                 f"{len(p) - len(failing)} of {len(p)} parts" + (f", not met: {'; '.join(failing)}" if failing
                                                                  else ""))
    roll, mom = measured["rollout_error"], measured["momentum_error"]

    def reading(part: str) -> str:
        kind, _, what = part.partition(": ")
        if kind == "rollout":
            name = what.split(" below ")[0]
            return f"{part} ({name} {_f(roll.get(name), 3)}, {MLP_HNN} {_f(roll.get(MLP_HNN), 3)})"
        threshold = CONSERVED if kind == "conserves" else APPROX
        return f"{part} (momentum error {_f(mom.get(what), 3)}, threshold {threshold:g})"

    notes = []
    if failing:
        notes.append("Not met: " + "; ".join(reading(k) for k in failing) + ".")
    notes.append("Rollout error (Table 2.2's number; the thesis: EMLP-HNN O(2) 0.012, SO(2) 0.015, D6 0.013, "
                 "MLP-HNN 0.028): " + ", ".join(f"{k} {_f(v, 3)}" for k, v in roll.items()) + ".")
    notes.append("Angular momentum error (Figure 2.6, middle; floor 1e-5): "
                 + ", ".join(f"{k} {_f(v, 3)}" for k, v in mom.items()) + ".")
    null_roll = ", ".join(f"{g} {'met' if v else 'not met'}" for g, v in null_rollout.items())
    notes.append(f"The null check puts an MLP-HNN retrained under other seeds in each EMLP-HNN's place (rollout "
                 f"{_f(null_pooled['rollout_error'].get(MLP_HNN), 3)}, momentum error "
                 f"{_f(null_pooled['momentum_error'].get(MLP_HNN), 3)}): it fails "
                 + (", ".join(null_failing) if null_failing else "no part")
                 + f"; its rollout part against the MLP-HNN (seed noise, "
                 + ("judged" if rollout else "not judged at these settings") + f"): {null_roll}.")
    if quick:
        q = QUICK
        notes.append(f"Quick profile: the conservation parts only, at a short schedule ({q['epochs']} steps at Adam "
                     f"{q['lr']:g}, {q['channels']} channels, {q['train']} chunks, {q['test']} held-out rollouts, one "
                     f"seed): Noether's law of an EMLP-HNN over a continuous group holds for any weights, and a short "
                     f"schedule can only understate a missing law.  The rollout errors above are of models "
                     f"{q['epochs']} steps old and are not judged: the rollout part needs trained models, and at the "
                     f"cheapest settings that train them (100 steps, three EMLP-HNNs of about 20 s each) it went "
                     f"either way over seeds 0-2; the full profile judges it.")
    evidence = _evidence(rows, null_rows, measured, null_measured, p, rollout)
    return Outcome(measured=_rounded(measured), holds=holds, settings=dict(settings or {}, criterion=criterion),
                   evidence=evidence, note="  ".join(notes), criterion=criterion, null=null)


def _geo(values) -> float | None:
    vals = [_num(v) for v in values]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals and all(v > 0 for v in vals) else None


def _curves(rows, key: str) -> dict:
    """{label: the per-time curve ``key`` of its rows, geometric mean over seeds} (rows without curves left out)."""
    by_label: dict = {}
    for r in rows:
        if r.get(key):
            by_label.setdefault(label(r["model"], r.get("group")), []).append(r[key])
    return {name: [_f(_geo(col)) for col in zip(*curves)] for name, curves in by_label.items()}


def _evidence(rows, null_rows, measured, null_measured, p, rollout) -> list:
    roll, mom = measured["rollout_error"], measured["momentum_error"]
    names = list(roll)
    part_of: dict = {}
    for k, v in p.items():
        what = k.partition(": ")[2].split(" below ")[0]
        part_of.setdefault(what, []).append(f"{k}: {'met' if v else 'NOT met'}")
    eq: dict = {}
    for r in rows:
        name = label(r["model"], r.get("group"))
        for key in ("equivariance_error", "group_equivariance_error"):
            v = r.get(key)
            if v is not None:
                eq.setdefault(name, {}).setdefault(key, []).append(float(v))
    table = {"kind": "table", "title": "Per model, pooled over seeds: Table 2.2's rollout error, Figure 2.6's angular "
                                       "momentum error, the parts of the criterion it enters; equivariance errors "
                                       "(lab.nn.equivariance_error, the largest over seeds) under O(2) and under "
                                       "the model's own group",
             "columns": ["model", "rollout error", "thesis (Table 2.2)", "momentum error", "parts",
                         "equivariance error O(2)", "equivariance error, own group"],
             "rows": [[name, _f(roll[name]), _thesis(name), _f(mom[name]), "; ".join(part_of.get(name, [])) or "—",
                       _f(max(eq.get(name, {}).get("equivariance_error", [math.nan])), 3),
                       _f(max(eq.get(name, {}).get("group_equivariance_error", [math.nan])), 3)]
                      for name in names]}
    table["rows"].append([NULL_NAME, _f(null_measured["rollout_error"][emlp_hnn(Z_GROUPS[0])]), None,
                          _f(null_measured["momentum_error"][emlp_hnn(Z_GROUPS[0])]),
                          "in each EMLP-HNN's place (O(2), SO(2), D6)", None, None])
    evidence = [table]
    evidence.append({"kind": "bar", "title": f"Angular momentum error about z (Figure 2.6, middle; the metric's "
                                             f"floor 1e-5): below {CONSERVED:g} conserves, below {APPROX:g} "
                                             f"approximately, above it does not conserve",
                     "ylabel": "momentum error (geometric mean)", "labels": names + [NULL_NAME],
                     "series": {"measured": [_f(mom[n]) for n in names]
                                + [_f(null_measured["momentum_error"][emlp_hnn(Z_GROUPS[0])])]},
                     "logy": True})
    evidence.append({"kind": "bar", "title": "Rollout error over 30 s (Table 2.2)" + ("" if rollout else
                                             ": not judged at these settings (models not trained)"),
                     "ylabel": "rollout error (geometric mean)", "labels": names + [NULL_NAME],
                     "series": {"measured": [_f(roll[n]) for n in names]
                                + [_f(null_measured["rollout_error"][emlp_hnn(Z_GROUPS[0])])],
                                "thesis (Table 2.2)": [_thesis(n) for n in names] + [None]},
                     "logy": True})
    times = next((r["times"] for r in rows if r.get("times")), None)
    if times:
        for key, title, ylabel, lines in (
                ("momentum_curve", "Angular momentum error along the rollouts (geometric mean over held-out "
                                   "trajectories and seeds)", "|L_z(t) - L_z(0)| / (|L_z(t)| + |L_z(0)|)",
                 {f"conserves ({CONSERVED:g})": CONSERVED, f"approximately ({APPROX:g})": APPROX}),
                ("rollout_curve", "State error along the rollouts (Figure 2.6, right; geometric mean over held-out "
                                  "trajectories and seeds)", "|z_hat - z| / (|z_hat| + |z|)", {})):
            series = _curves(rows, key)
            nulls = _curves(null_rows, key)
            if MLP_HNN in nulls:
                series[NULL_NAME] = nulls[MLP_HNN]
            for name, value in lines.items():
                series[name] = [value] * len(times)
            evidence.append({"kind": "line", "title": title, "xlabel": "time (s)", "ylabel": ylabel,
                             "x": [_f(t) for t in times], "series": series, "logy": True})
    runs = [(r, label(r["model"], r.get("group"))) for r in rows] + [(r, NULL_NAME) for r in null_rows]
    evidence.append({"kind": "table", "title": "Every run: rollout and momentum errors, equivariance errors (under "
                                               "O(2) and the model's own group), the last training loss, chunks "
                                               "dropped and steps skipped for non-finite losses, the evaluation's "
                                               "integrator, seconds",
                     "columns": ["model", "seed", "rollout error", "momentum error", "equivariance error O(2)",
                                 "equivariance error, own group", "train MSE", "dropped chunks", "skipped steps",
                                 "integrator", "seconds"],
                     "rows": [[name, r.get("seed"), _f(r.get("rollout_error")), _f(r.get("momentum_error")),
                               _f(r.get("equivariance_error"), 3), _f(r.get("group_equivariance_error"), 3),
                               _f(r.get("train_mse")), r.get("dropped_chunks"), r.get("skipped_steps"),
                               r.get("integrator"), _f(r.get("seconds"), 3)] for r, name in runs]})
    return evidence


def _thesis(name: str):
    """Table 2.2's rollout error of the model ``name`` (None where the table has none)."""
    kind = "HNN" if "HNN" in name else "N-ODE"
    column = "MLP" if name.startswith("MLP") else name.rsplit(" ", 1)[-1]
    return TABLE_2_2[kind].get(column)


@claim("emlp-pendulum", "thesis", "§2.7.2, Table 2.2, Figure 2.6",
       "On the double spring pendulum, EMLP Hamiltonian networks over O(2), SO(2) and D6 (rotations about z) have "
       "lower rollout errors than the MLP Hamiltonian network; enforcing the continuous rotation symmetry in the "
       "EMLP-HNN yields conservation of angular momentum about z, the discrete D6 approximate conservation, while "
       "the coarser D2 does not, and no Neural ODE conserves it.",
       paper_value="rollout error (Table 2.2, HNNs): EMLP O(2) 0.012(2), SO(2) 0.015(3), D6 0.013(2), MLP 0.028; "
                   "angular momentum conserved by the O(2) and SO(2) EMLP-HNNs, approximately by D6's, not by D2's "
                   "nor by any Neural ODE (Figure 2.6; its numbers are not in the text)",
       seconds={"quick": 30, "full": 47000}, criterion=CRITERION, null=NULL)
def measure(profile) -> Outcome:
    from dataclasses import asdict, replace

    from ..device import pick_device
    from ..emlp.dynamics import MOMENTUM_FLOOR, PAPER, DynamicsSettings, run_pendulum

    p = plan(profile)
    base = PAPER if p["schedule"] == "paper" else DynamicsSettings(**p["schedule"])
    settings = replace(base, device=profile.device).check()
    first, n = profile.seed, p["seeds"]
    seeds, null_seeds = [first + s for s in range(n)], [first + n + s for s in range(n)]
    jobs = [("main", seed, models, groups) for seed in seeds for models, groups in p["calls"]]
    jobs += [("null", seed, ("hnn-mlp",), ()) for seed in null_seeds]

    def pairs(models, groups) -> int:
        return sum(len(groups) if m.endswith("emlp") else 1 for m in models)

    total = sum(pairs(m, g) for _, _, m, g in jobs) * settings.steps() or 1
    done = 0
    rows, null_rows = [], []
    for role, seed, models, groups in jobs:
        profile.checkpoint()

        def relay(record, base=done, role=role, seed=seed):
            if record.get("kind") == "step":
                what = "null MLP-HNN" if role == "null" else record.get("model", "")
                profile.progress((base + record["done"]) / total, f"seed {seed} {what}: step {record['step']} of "
                                                                  f"{record['steps']}")

        out = run_pendulum(models, groups, settings, seed=seed, progress=relay, control=profile.control)
        done += pairs(models, groups) * settings.steps()
        for r in out:
            r = {k: v for k, v in r.items() if k not in ("samples", "curve")}
            (null_rows if role == "null" else rows).append(r)
    profile.progress(1.0, "done")
    schedule = {k: v for k, v in asdict(settings).items() if k not in ("device", "samples")}
    out_settings = {"schedule": "paper (dynamics.PAPER)" if p["schedule"] == "paper" else "quick", **schedule,
                    "steps per model": settings.steps(), "optimiser": "Adam",
                    "models": list(dict.fromkeys(label(r["model"], r.get("group")) for r in rows)),
                    "seeds": n, "first seed": first, "null seeds": null_seeds,
                    "rollout part judged for": [GROUP_NAMES[g] for g in p["rollout"]],
                    "conserved below": CONSERVED, "approximately conserved below": APPROX,
                    "momentum floor": MOMENTUM_FLOOR, "training integrator": f"RK4, {settings.substeps} step(s) per "
                                                                              f"0.2 s observation interval",
                    "evaluation": f"dopri5 at rtol {settings.rtol:g}, atol {settings.atol:g}, float64, 30 s",
                    "dtype": "float32 (training), float64 (evaluation)", "device": str(pick_device(settings.device)),
                    "science": "lab.emlp.dynamics.run_pendulum"}
    return assess(rows, null_rows, out_settings, rollout=p["rollout"], quick=not profile.full)
