"""Claim of Finzi's thesis, chapter 2 (§2.7.2, Table 2.2, Figure 2.6): on the 3-D double spring pendulum, whose
Hamiltonian is invariant under O(2) about the z axis, networks built from an EMLP over a group about z (O(2), SO(2),
D6) roll out better than the MLP networks of the same kind (Table 2.2: Hamiltonian networks and Neural ODEs); the
EMLP-HNNs over a continuous group conserve the angular momentum about z (Noether), D6 approximately, while the
coarser D2 and every Neural ODE do not.

The science is ``lab.nn.hamiltonian`` (``run_pendulum``: its docstring defines the models, the training and both
metrics, exactly the original code's): ``rollout_error`` is Table 2.2's number (the geometric mean over held-out
30 s rollouts and their 150 times of ``|z_hat - z| / (|z_hat| + |z|)``), ``momentum_error`` Figure 2.6 (middle)'s
(the same with the angular momentum ``L_z`` along the model's own rollout, against its start, clamped below at
``MOMENTUM_FLOOR`` = 1e-5).

The criterion (version 2), judged part by part on the seeds (a seed: its own training chunks and held-out states,
every model of the seed trained on them), each part on the 95 % bootstrap interval of its statistic's mean over the
seeds (``lab.reproduce.stats``), never pooled over parts:

* rollout (Table 2.2), for each (kind, group) judged (``ROLLOUT_PARTS``: the EMLP-HNNs over O(2), SO(2), D6 against
  the MLP-HNN, the EMLP Neural ODE over O(2) against the MLP Neural ODE): per seed ``log10(MLP's rollout error /
  EMLP's)``, wholly above 0.  Its null: the same MLP retrained under another weight seed (``NULL_SEED_OFFSET``, the
  same data) in the EMLP's place, read against the same MLP: how far above 0 seed noise alone takes the statistic.
* conservation (Figure 2.6, ``CONSERVE_PARTS``): per seed ``log10`` of the momentum error, wholly below
  ``log10(CONSERVED)`` = -3 for the EMLP-HNNs over O(2) and SO(2), below ``log10(APPROX)`` = -2 for D6's
  (approximately).  Each null is a model of the same size without what the law needs, read by the same statistic,
  and it can pass (a barely trained field drifts little): for O(2) the EMLP Neural ODE over O(2) (the same group
  and width, no Hamiltonian), for SO(2) the MLP-HNN (a Hamiltonian without the symmetry), for D6 the EMLP-HNN over
  D2 (the coarser group).  The text's "D2 does not, and no Neural ODE conserves" is what these nulls failing says.

The thresholds, read off the metric.  A relative error ``e = |dL| / (|L(t)| + |L(0)|)`` means a drift
``|dL| ~ 2 e |L|``; the metric cannot go below its floor 1e-5, and a model that conserves ``L_z`` exactly still
shows the evaluation integrator's error (rtol = atol = 2e-6 over 30 s).  ``CONSERVED`` = 1e-3, two decades above
the floor, is an ``L_z`` kept to 0.2 % over 30 s; "approximate" conservation is a decade looser, ``APPROX`` = 1e-2
(``L_z`` kept to about 2 %).  Why D6 sits at the floor in the lab: D6's invariant and equivariant maps between
tensors of rank below 6 are O(2)'s (``lab.nn.hamiltonian``), so at 32 channels its EMLP has exactly O(2)'s
equivariant layers and conserves L_z exactly; at the thesis's 128 channels it has two parameters more.

Version 1 (the first registered) pooled the seeds' numbers by their geometric mean and read every part once
(the rollout part under the full profile only; at quick, one seed and the conservation parts alone, which any
EMLP-HNN over a continuous group meets by construction); each run reports its verdict under version 1 too.

* ``full``: the thesis's settings (``dynamics.PAPER``, appendix A.1.9-A.1.10: 500 training chunks, 500 held-out
  rollouts, 2000 epochs of one full batch, 3 layers of 128 channels, Adam 3e-3), 3 seeds ("over 3 trials");
  every part (Table 2.2's Neural ODEs over SO(2) and D6 are not run).  About 13 hours on a 2-core CPU (an
  EMLP-HNN step at these settings takes 1.5-1.7 s).
* ``quick`` (CI): two parts, on 3 seeds, at a short schedule (``QUICK``: 32 training chunks, 8 held-out
  rollouts, 30 steps at Adam 1e-2, 3 layers of 32 channels): the Neural ODE rollout over O(2) (Table 2.2's EMLP
  N-ODE against the MLP N-ODE) and the O(2) EMLP-HNN's conservation (its null: the same EMLP Neural ODE).  The
  Neural ODEs are the rollout comparison the quick budget can train: an EMLP-HNN step costs about twice an EMLP
  Neural ODE's (a gradient of the Hamiltonian inside every field evaluation), and at budgets of a few dozen steps
  the HNN comparison went either way over seeds, the Neural ODE one did not (an exploration over seeds 0-5 at
  10-150 steps, outside the report).  The EMLP-HNN only the conservation part reads trains ``QUICK_CONSERVE_STEPS``
  = 10 steps: Noether's law holds whatever its weights, and its rollout is not judged.  At 30 steps every model is
  far from trained (rollout errors an order of magnitude above Table 2.2's): the quick rollout part compares
  equally short trainings of the EMLP and the MLP, not converged models.
"""
from __future__ import annotations

import math

from ..reproduce import tuning
from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, extends, paper_reading
from ..reproduce.stats import MSE_BASELINE_MARGIN, Rule, mse_baseline, null_words, part
from ..reproduce.tuning import probe

#: Table 2.2's groups about z (the EMLP-G models), the continuous ones, and D2, the text's coarse group
Z_GROUPS = ("O2eR3()", "SO2eR3()", "DkeR3(6)")
CONTINUOUS = ("O2eR3()", "SO2eR3()")
APPROXIMATE = ("DkeR3(6)",)
COARSE = "DkeR3(2)"
GROUP_NAMES = {"O2eR3()": "O(2)", "SO2eR3()": "SO(2)", "DkeR3(6)": "D6", "DkeR3(2)": "D2"}
MODEL_NAMES = {"hnn-mlp": "MLP-HNN", "hnn-emlp": "EMLP-HNN", "node-mlp": "MLP N-ODE", "node-emlp": "EMLP N-ODE",
               "still": "no motion (trivial baseline)"}
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

def label(model: str, group: str | None = None) -> str:
    """``"EMLP-HNN O(2)"`` for ("hnn-emlp", "O2eR3()"), ``"MLP-HNN"`` for an MLP (its group is ignored)."""
    name = MODEL_NAMES[model]
    return f"{name} {GROUP_NAMES.get(group, group)}" if model.endswith("emlp") and group else name


def emlp_hnn(group: str) -> str:
    return label("hnn-emlp", group)


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


def not_met(measured: dict, rollout=Z_GROUPS) -> list:
    """The parts not met, in order."""
    return [k for k, v in parts(measured, rollout).items() if not v]


def _f(x, digits: int = 4):
    if x is None:
        return None
    x = float(x)
    return float(f"{x:.{digits}g}") if math.isfinite(x) else None


def _rounded(measured: dict) -> dict:
    return {key: {k: _f(v) for k, v in vals.items()} for key, vals in measured.items()}




# ---------------------------------------------------------------------------------------------- version 2
#: the null's reseeded baselines are trained with weight seed ``seed + NULL_SEED_OFFSET`` on seed ``seed``'s data
NULL_SEED_OFFSET = 1000
LOG_CONSERVED, LOG_APPROX = math.log10(CONSERVED), math.log10(APPROX)
#: Table 2.2's rollout comparisons: (the EMLP model, its group) against the MLP of the same kind
ROLLOUT_PARTS = {("hnn", "O2eR3()"): "rollout: EMLP-HNN O(2) below MLP-HNN",
                 ("hnn", "SO2eR3()"): "rollout: EMLP-HNN SO(2) below MLP-HNN",
                 ("hnn", "DkeR3(6)"): "rollout: EMLP-HNN D6 below MLP-HNN",
                 ("node", "O2eR3()"): "rollout: EMLP N-ODE O(2) below MLP N-ODE"}
#: the conservation parts: name -> (the model that must conserve, log10 threshold, its null: a model of the same
#: size without what the law needs)
CONSERVE_PARTS = {
    "conserves: EMLP-HNN O(2)": (("hnn-emlp", "O2eR3()"), LOG_CONSERVED, ("node-emlp", "O2eR3()"),
                                 "the EMLP Neural ODE over O(2) (the same group and width, no Hamiltonian)"),
    "conserves: EMLP-HNN SO(2)": (("hnn-emlp", "SO2eR3()"), LOG_CONSERVED, ("hnn-mlp", None),
                                  "the MLP-HNN (a Hamiltonian network without the symmetry)"),
    "approximately conserves: EMLP-HNN D6": (("hnn-emlp", "DkeR3(6)"), LOG_APPROX, ("hnn-emlp", "DkeR3(2)"),
                                             "the EMLP-HNN over D2 (the coarser group of the text)"),
}
#: the quick profile (see the module docstring): its schedule and the parts it judges
QUICK = {"train": 32, "test": 8, "epochs": 30, "channels": 32, "layers": 3, "lr": 1e-2}
#: quick: the steps of the models only a conservation part reads (the EMLP-HNN over O(2): Noether holds whatever
#: its weights, and its rollout is not judged at quick)
QUICK_CONSERVE_STEPS = 10
QUICK_ROLLOUT = (("node", "O2eR3()"),)
QUICK_CONSERVE = ("conserves: EMLP-HNN O(2)",)

CRITERION_V1 = CRITERION
NULL_V1 = NULL
CRITERION = (
    "judged per part on the seeds (each part's 95 % bootstrap interval of the mean over seeds), never pooled over "
    "parts: (rollout, Table 2.2) for each (kind, group) judged, per seed log10(rollout error of the MLP of that kind "
    "/ the EMLP's) wholly above 0; (conserves, Figure 2.6) log10 of the angular momentum error of the EMLP-HNNs "
    f"over O(2) and SO(2) wholly below {LOG_CONSERVED:g} ({CONSERVED:g}), (approximately) of the EMLP-HNN over D6 "
    f"wholly below {LOG_APPROX:g} ({APPROX:g}); the claim holds when every part holds and every part's null fails "
    "(rollout and momentum errors: geometric means over held-out 30 s rollouts and their times, as the thesis's)")
NULL = ("per rollout part, the MLP of that kind retrained under another weight seed (seed + 1000, the same data) in "
        "the EMLP's place (seed noise); per conservation part, a model of the same size without what the law needs, "
        "read by the same statistic: the EMLP Neural ODE over O(2) (no Hamiltonian) for O(2), the MLP-HNN (no "
        "symmetry) for SO(2), the EMLP-HNN over D2 (the coarser group) for D6")
#: the later version (issue 62): the rollout parts read against the trivial baseline
BASELINE_DATE = "2026-12-02"
BASELINE_TEXT = (f"  A rollout part's models must beat the trivial baseline, predicting no motion: the worse of the "
                 f"EMLP's and the MLP's rollout error at most {MSE_BASELINE_MARGIN:g} times the no-motion "
                 f"prediction's (mean over seeds), else the part has no power.")
BASELINE_REASON = ("issue 62: the trivial baseline in every learned claim; at 30 steps the quick models were an "
                   "order of magnitude above Table 2.2's errors, and nothing said whether they had learned the motion "
                   "at all")
#: how the quick part (not its steps) was chosen: by cost, declared
PART_NOTE = ("; the part (the Neural ODE rollout over O(2), not the HNN comparison): DECLARED, by cost (an EMLP-HNN "
             "step costs about twice an EMLP Neural ODE's) after an exploration over seeds 0-5 in which the HNN "
             "comparison went either way")
CRITERIA = (
    Criterion(1, CRITERION_V1, FIRST_REGISTERED),
    Criterion(2, CRITERION, "2026-11-27",
              reason="v1 judged conservation only at quick (true of any EMLP-HNN over a continuous group by "
                     "construction) on one seed, against an MLP-HNN that cannot conserve; v2 adds Table 2.2's "
                     "rollout error as judged parts, judges every part on a 95 % interval over 3 seeds, and gives "
                     "each part a null that can pass (a reseeded MLP; a model of the same size without the "
                     "Hamiltonian, the symmetry or the finer group)",
              thresholds=(("log10_rollout_ratio_above", 0.0), ("log10_momentum_conserved_below", LOG_CONSERVED),
                          ("log10_momentum_approximately_below", LOG_APPROX)),
              parts=tuple(ROLLOUT_PARTS.values()) + tuple(CONSERVE_PARTS)),
)


#: the probe ``emlp-pendulum-quick-steps``'s candidates for the quick schedule's steps, cheapest first.  Its first run
#: (2026-12-02) kept the dearest when none met the rule, and none did (at 240 steps the MLP N-ODE still rolled out
#: worse than predicting no motion at seed 100); the fallback was changed to the cheapest and the probe run again,
#: declared here: eight times the quick cost buys a part with no power either way

STEPS_CANDIDATES = {"30 steps": 30, "60 steps": 60, "120 steps": 120, "240 steps": 240}


@probe("emlp-pendulum-quick-steps", "the quick schedule's steps (the Neural ODE rollout over O(2))",
       f"the fewest steps at which the EMLP and the MLP Neural ODE both roll out with at most "
       f"{MSE_BASELINE_MARGIN:g} times the no-motion prediction's error (the rollout part's trivial baseline), mean "
       f"over the tuning seeds; if none does, the cheapest (the rollout part then has no power at any quick "
       f"schedule tried)", STEPS_CANDIDATES,
       lambda rs: sum(max(r["EMLP N-ODE O(2)"], r["MLP N-ODE"]) / r["no motion"] for r in rs.values()) / len(rs)
       <= MSE_BASELINE_MARGIN,
       lambda: QUICK["epochs"], ("emlp-pendulum",), stop_early=True, fallback="cheapest")
def _probe_steps(steps, seed) -> dict:
    """Rollout errors of the quick Neural ODEs over O(2) at ``steps`` steps (QUICK's other settings) and of the
    no-motion prediction, on tuning seed ``seed``."""
    from ..nn.hamiltonian import DynamicsSettings, pendulum_data, run_pendulum

    settings = DynamicsSettings(**{**QUICK, "epochs": steps}).check()
    data = pendulum_data(settings, seed)
    rows = run_pendulum(("node-mlp", "node-emlp"), ("O2eR3()",), settings, seed=seed, data=data)
    return {**{label(r["model"], r.get("group")): round(float(r["rollout_error"]), 5) for r in rows},
            "no motion": round(still_error(data), 5)}


def plan(profile) -> dict:
    """The settings of ``profile`` (see the module docstring): the schedule (``DynamicsSettings`` keywords, or
    "paper"), the rollout parts ((kind, group) of ``ROLLOUT_PARTS``) and the conservation parts (names of
    ``CONSERVE_PARTS``) it judges."""
    return profile.pick(quick={"schedule": dict(QUICK), "rollout": QUICK_ROLLOUT, "conserve": QUICK_CONSERVE,
                               "conserve_steps": QUICK_CONSERVE_STEPS},
                        full={"schedule": "paper", "rollout": tuple(ROLLOUT_PARTS), "conserve": tuple(CONSERVE_PARTS),
                              "conserve_steps": None})


def models_of(p: dict) -> list:
    """The (model, group) pairs the plan trains on each seed's data (weight seed = the seed), in order."""
    out = []
    for kind, g in p["rollout"]:
        out += [(f"{kind}-mlp", None), (f"{kind}-emlp", g)]
    for name in p["conserve"]:
        tested, _, null, _ = CONSERVE_PARTS[name]
        out += [tested, null]
    return list(dict.fromkeys(out))


def short_models_of(p: dict) -> set:
    """The models trained at ``p["conserve_steps"]`` (where given): those only a conservation part's claim side
    reads (no rollout part and no null reads them)."""
    if not p.get("conserve_steps"):
        return set()
    rolled = {m for kind, g in p["rollout"] for m in ((f"{kind}-mlp", None), (f"{kind}-emlp", g))}
    nulls = {CONSERVE_PARTS[name][2] for name in p["conserve"]}
    return {CONSERVE_PARTS[name][0] for name in p["conserve"]} - rolled - nulls


def null_models_of(p: dict) -> list:
    """The reseeded baselines of the rollout parts (weight seed + ``NULL_SEED_OFFSET``, the same data)."""
    return list(dict.fromkeys((f"{kind}-mlp", None) for kind, _ in p["rollout"]))


def log_rollout_ratio(draw: dict) -> float:
    """The rollout parts' statistic on one seed ``{"tested", "baseline"}`` (rollout errors):
    ``log10(baseline / tested)``, above 0 where the tested model rolls out better.  A missing or non-finite error
    counts as 1 (the metric's largest value: a diverged rollout).

    >>> round(log_rollout_ratio({"tested": 0.012, "baseline": 0.028}), 3)
    0.368
    """
    def v(x):
        x = _num(x)
        return x if x > 0 else 1.0  # nan > 0 is False

    return math.log10(v(draw["baseline"]) / v(draw["tested"]))


def log_momentum_error(draw: dict) -> float:
    """The conservation parts' statistic on one seed ``{"momentum_error"}``: its log10 (the metric's floor 1e-5
    reads -5; a missing or non-finite one counts as 1, i.e. 0).

    >>> log_momentum_error({"momentum_error": 1e-5})
    -5.0
    """
    x = _num(draw["momentum_error"])
    return math.log10(x) if x > 0 else 0.0


def _row(rows, model, group, seed, role="main"):
    for r in rows:
        if (r["model"], r.get("group"), r["seed"], r.get("role", "main")) == (model, group, seed, role):
            return r
    return {}


def still_error(data) -> float:
    """The trivial baseline of a rollout: the rollout error of predicting no motion (every state its start) on the
    held-out rollouts of ``pendulum_data``'s ``data``."""
    import numpy as np

    from ..nn.hamiltonian import rollout_error

    z0, true = np.asarray(data[2], dtype=np.float64), np.asarray(data[4], dtype=np.float64)
    return float(rollout_error(np.broadcast_to(z0[:, None, :], true.shape), true))


def rollout_baseline(rows: list, kind: str, g: str, seeds) -> dict | None:
    """``part``'s ``baseline`` of a rollout part: the worse of the EMLP's and the MLP's rollout errors over the
    no-motion prediction's (rows of ``role`` "baseline", model "still"), per seed; None where the rows have none."""
    still = [_row(rows, "still", None, s, "baseline").get("rollout_error") for s in seeds]
    if any(v is None for v in still):
        return None
    worse = [max(_num(_row(rows, f"{kind}-emlp", g, s).get("rollout_error")),
                 _num(_row(rows, f"{kind}-mlp", None, s).get("rollout_error"))) for s in seeds]
    return mse_baseline(worse, still, "predicting no motion: every state its start",
                        "the worse of the EMLP's and the MLP's", quantity="rollout error")


def judged_parts(rows: list, p: dict) -> list:
    """The parts of plan ``p`` read on ``rows`` (``run_pendulum`` rows with ``role`` "main" or "null"; rows of role
    "baseline", model "still", give the rollout parts their trivial baseline)."""
    seeds = sorted({r["seed"] for r in rows if r.get("role", "main") == "main"})
    out = []
    for kind, g in p["rollout"]:
        base = f"{kind}-mlp"
        claim_draws = [{"tested": _row(rows, f"{kind}-emlp", g, s).get("rollout_error"),
                        "baseline": _row(rows, base, None, s).get("rollout_error")} for s in seeds]
        null_draws = [{"tested": _row(rows, base, None, s, "null").get("rollout_error"),
                       "baseline": _row(rows, base, None, s).get("rollout_error")} for s in seeds]
        out.append(part(ROLLOUT_PARTS[(kind, g)], log_rollout_ratio, claim_draws, null_draws, Rule(">", 0.0),
                        f"the {MODEL_NAMES[base]} retrained under another weight seed (the same data) in the "
                        f"EMLP's place", baseline=rollout_baseline(rows, kind, g, seeds)))
    for name in p["conserve"]:
        (model, g), threshold, (null_model, null_g), null_text = CONSERVE_PARTS[name]
        claim_draws = [{"momentum_error": _row(rows, model, g, s).get("momentum_error")} for s in seeds]
        null_draws = [{"momentum_error": _row(rows, null_model, null_g, s).get("momentum_error")} for s in seeds]
        out.append(part(name, log_momentum_error, claim_draws, null_draws, Rule("<", threshold), null_text))
    return out


def version1(rows: list, full: bool) -> dict:
    """This run judged under version 1 (as v1's code read it): its parts on the geometric means pooled over the
    seeds, the rollout part under the full profile only.  Only the parts whose models this run trains are read
    (v1 failed a missing model's part; here it is named as not read instead, so that a plan that trains fewer
    models does not read as a failure of version 1)."""
    main = [r for r in rows if r.get("role", "main") == "main"]
    measured = pooled(main)
    p = parts(measured, Z_GROUPS if full else ())
    trained = set(measured["momentum_error"])

    def readable(name: str) -> bool:
        what = name.partition(": ")[2]
        return all(m in trained for m in what.split(" below "))

    read = {k: v for k, v in p.items() if readable(k)}
    unread = [k for k in p if k not in read]
    failing = [k for k, v in read.items() if not v]
    return {"holds": bool(read) and all(read.values()), "null_holds": None,
            "measured": {"parts read": len(read), "parts met": len(read) - len(failing), "not met": failing,
                         "not read (models not trained by this plan)": unread},
            "why": "version 1 read on this run: its parts on the rollout and momentum errors pooled over the seeds "
                   "(geometric means), the rollout part under the full profile only"
                   + (f"; parts whose models this run does not train are not read: {', '.join(unread)}" if unread
                      else "") + "; its null (an MLP-HNN of other seeds with fresh data) is not rerun"}


def assess(rows, settings: dict | None = None, p: dict | None = None, quick: bool = False,
           paper_settings: str = "") -> Outcome:
    """The outcome from measured numbers, no training: ``rows`` are ``run_pendulum`` rows of every model and seed
    (at least ``model``, ``group``, ``seed``, ``rollout_error``, ``momentum_error``; ``role`` "null" for the
    reseeded baselines), ``p`` the plan (which parts are judged; default every part)."""
    rows = list(rows)
    p = p or {"rollout": tuple(ROLLOUT_PARTS), "conserve": tuple(CONSERVE_PARTS)}
    the_parts = judged_parts(rows, p)
    main = [r for r in rows if r.get("role", "main") == "main"]
    seeds = sorted({r["seed"] for r in main})
    measured_pooled = pooled(main)
    failing = [x.name for x in the_parts if not x.holds]
    weak = [x.name for x in the_parts if x.null_holds]
    criterion = (f"{CRITERION}; {len(seeds)} seeds, {len(the_parts)} parts judged: met at "
                 f"{len(the_parts) - len(failing)}" + (f", not met: {'; '.join(failing)}" if failing else ""))
    measured = {"parts judged": len(the_parts), "parts met": len(the_parts) - len(failing),
                **{x.name: _f(x.measured) for x in the_parts},
                "rollout_error": {k: _f(v) for k, v in measured_pooled["rollout_error"].items()},
                "momentum_error": {k: _f(v) for k, v in measured_pooled["momentum_error"].items()}}

    def reading(x) -> str:
        lo, hi = x.interval or (math.nan, math.nan)
        nlo, nhi = x.null_interval or (math.nan, math.nan)
        return (f"{x.name}: {', '.join(f'{v:.2f}' for v in x.replicates)} (mean {x.measured:.2f}, interval "
                f"[{lo:.2f}, {hi:.2f}], {x.rule}); null ({x.null}) {', '.join(f'{v:.2f}' for v in x.null_replicates)}"
                f" (interval [{nlo:.2f}, {nhi:.2f}]): {null_words(x)}")

    notes = [f"{len(the_parts)} parts judged on seeds {', '.join(map(str, seeds))}: met at "
             f"{len(the_parts) - len(failing)}" + (f"; not met: {'; '.join(failing)}" if failing else "")
             + (f"; the null is not separated from the claim at {'; '.join(weak)} (no power there)" if weak
                else "") + "."]
    notes.append("Per seed, the rollout parts read log10 of the MLP's rollout error over the EMLP's, the "
                 "conservation parts log10 of the angular momentum error: " + "; ".join(reading(x)
                                                                                      for x in the_parts) + ".")
    roll, mom = measured_pooled["rollout_error"], measured_pooled["momentum_error"]
    notes.append("Rollout error pooled over the seeds (geometric mean; Table 2.2: HNNs EMLP O(2) 0.012, SO(2) "
                 "0.015, D6 0.013, MLP 0.028; Neural ODEs EMLP O(2) 0.019, SO(2) 0.051, D6 0.036, MLP 0.048): "
                 + ", ".join(f"{k} {_f(v, 3)}" for k, v in roll.items()) + ".  Angular momentum error (Figure 2.6, "
                 "middle; floor 1e-5): " + ", ".join(f"{k} {_f(v, 3)}" for k, v in mom.items()) + ".")
    if quick:
        s = settings or {}
        notes.append(f"Quick profile: {len(the_parts)} of the {len(ROLLOUT_PARTS) + len(CONSERVE_PARTS)} parts "
                     f"(the full profile judges every one), at a short schedule ({s.get('steps per model')} steps "
                     f"at Adam {s.get('lr')}, {s.get('channels')} channels, {s.get('train')} training chunks, "
                     f"{s.get('test')} held-out rollouts) instead of the thesis's (2000 steps at 3e-3, 128 "
                     "channels, 500 chunks, 500 rollouts).")
    history = {1: version1(rows, full=not quick)}
    evidence = _evidence(rows, the_parts)
    return Outcome(measured=measured, settings=dict(settings or {}, criterion=criterion), evidence=evidence,
                   note="  ".join(notes), criterion=criterion, parts=the_parts, history=history,
                   replicates={"what": f"seeds {', '.join(map(str, seeds))} (the rollout parts' nulls: the same "
                                       f"data, weight seeds + {NULL_SEED_OFFSET})", "claim": len(seeds),
                               "null": len(seeds)},
                   paper_settings=paper_settings)


def _geo(values) -> float | None:
    vals = [_num(v) for v in values]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals and all(v > 0 for v in vals) else None


def _name(r) -> str:
    name = label(r["model"], r.get("group"))
    return f"{name}, reseeded (null)" if r.get("role") == "null" else name


def _curves(rows, key: str) -> dict:
    """{label: the per-time curve ``key`` of its rows, geometric mean over seeds} (rows without curves left out)."""
    by_label: dict = {}
    for r in rows:
        if r.get(key):
            by_label.setdefault(_name(r), []).append(r[key])
    return {name: [_f(_geo(col)) for col in zip(*curves)] for name, curves in by_label.items()}


def _evidence(rows, the_parts) -> list:
    names = list(dict.fromkeys(_name(r) for r in rows))
    by_name: dict = {}
    for r in rows:
        by_name.setdefault(_name(r), []).append(r)
    enters: dict = {}
    for x in the_parts:
        what = x.name.partition(": ")[2]
        for name in what.split(" below "):
            enters.setdefault(name, []).append(x.name)
    table = {"kind": "table", "title": "Per model, pooled over seeds (geometric mean): Table 2.2's rollout error, "
                                       "Figure 2.6's angular momentum error, the parts it enters",
             "columns": ["model", "rollout error", "thesis (Table 2.2)", "momentum error", "parts"],
             "rows": [[name, _f(_geo(r.get("rollout_error") for r in by_name[name])),
                       _thesis(name.split(", ")[0]), _f(_geo(r.get("momentum_error") for r in by_name[name])),
                       "; ".join(enters.get(name, [])) or "a null"] for name in names]}
    parts_table = {"kind": "table", "title": "Each part: the statistic per seed, its mean and 95 % interval, and "
                                             "its null's (the part holds when its interval clears the threshold "
                                             "and the null's does not)",
                   "columns": ["part", "rule", "per seed", "mean", "interval", "met", "null", "null per seed",
                               "null interval", "null met"],
                   "rows": [[x.name, x.rule, [_f(v, 3) for v in x.replicates], _f(x.measured, 3),
                             [_f(v, 3) for v in x.interval], x.holds, x.null,
                             [_f(v, 3) for v in x.null_replicates], [_f(v, 3) for v in x.null_interval],
                             x.null_holds] for x in the_parts]}
    evidence = [parts_table, table]
    evidence.append({"kind": "bar", "title": "Each part's statistic, mean over seeds, against its null's (rollout: "
                                             "log10 MLP / EMLP, above 0 met; conservation: log10 momentum error, "
                                             f"below {LOG_CONSERVED:g} or {LOG_APPROX:g} met)",
                     "ylabel": "statistic (mean over seeds)", "labels": [x.name for x in the_parts],
                     "series": {"claim": [_f(x.measured) for x in the_parts],
                                "null": [_f(x.null_measured) for x in the_parts]}})
    times = next((r["times"] for r in rows if r.get("times")), None)
    if times:
        for key, title, ylabel, lines in (
                ("momentum_curve", "Angular momentum error along the rollouts (geometric mean over held-out "
                                   "trajectories and seeds)", "|L_z(t) - L_z(0)| / (|L_z(t)| + |L_z(0)|)",
                 {f"conserves ({CONSERVED:g})": CONSERVED, f"approximately ({APPROX:g})": APPROX}),
                ("rollout_curve", "State error along the rollouts (Figure 2.6, right; geometric mean over held-out "
                                  "trajectories and seeds)", "|z_hat - z| / (|z_hat| + |z|)", {})):
            series = _curves(rows, key)
            for name, value in lines.items():
                series[name] = [value] * len(times)
            evidence.append({"kind": "line", "title": title, "xlabel": "time (s)", "ylabel": ylabel,
                             "x": [_f(t) for t in times], "series": series, "logy": True})
    evidence.append({"kind": "table", "title": "Every run: rollout and momentum errors, equivariance errors (under "
                                               "O(2) and the model's own group), the last training loss, chunks "
                                               "dropped and steps skipped for non-finite losses, the evaluation's "
                                               "integrator, seconds",
                     "columns": ["model", "seed", "weight seed", "rollout error", "momentum error",
                                 "equivariance error O(2)", "equivariance error, own group", "train MSE",
                                 "dropped chunks", "skipped steps", "integrator", "seconds"],
                     "rows": [[_name(r), r.get("seed"), r.get("weight_seed"), _f(r.get("rollout_error")),
                               _f(r.get("momentum_error")), _f(r.get("equivariance_error"), 3),
                               _f(r.get("group_equivariance_error"), 3), _f(r.get("train_mse")),
                               r.get("dropped_chunks"), r.get("skipped_steps"), r.get("integrator"),
                               _f(r.get("seconds"), 3)] for r in rows]})
    return evidence


def _thesis(name: str):
    """Table 2.2's rollout error of the model ``name`` (None where the table has none)."""
    kind = "HNN" if "HNN" in name else "N-ODE"
    column = "MLP" if name.startswith("MLP") else name.rsplit(" ", 1)[-1]
    return TABLE_2_2[kind].get(column)


def paper_settings_of(p: dict, n_parts: int, seeds: int) -> str:
    if p["schedule"] == "paper":
        return (f"the thesis's (appendix A.1.9-A.1.10): 500 training chunks, 500 held-out 30 s rollouts, 2000 steps "
                f"at Adam 3e-3, 3 layers of 128 channels, {seeds} seeds (the thesis: 3 trials); Table 2.2's Neural "
                "ODEs over SO(2) and D6 are not run")
    q = p["schedule"]
    return (f"{n_parts} of the claim's {len(ROLLOUT_PARTS) + len(CONSERVE_PARTS)} parts, {q['train']} training "
            f"chunks, {q['test']} held-out 30 s rollouts, {q['epochs']} steps at Adam {q['lr']:g}, 3 layers of "
            f"{q['channels']} channels, {seeds} seeds (the thesis: 500 chunks, 500 rollouts, 2000 steps at 3e-3, 128 "
            "channels, 3 trials)")


#: Table 2.2's rollout errors of the judged rollout parts: (kind, group) -> (EMLP, the MLP of that kind)
PAPER_ROLLOUT = {("hnn", "O2eR3()"): (0.012, 0.028), ("hnn", "SO2eR3()"): (0.015, 0.028),
                 ("hnn", "DkeR3(6)"): (0.013, 0.028), ("node", "O2eR3()"): (0.019, 0.048)}
#: the paper's own numbers read by the rollout parts' statistic against their threshold
PAPER_NUMBERS = tuple(paper_reading(ROLLOUT_PARTS[(kind, g)], {"tested": tested, "baseline": mlp}, log_rollout_ratio,
                                    ">", dict(CRITERIA[-1].thresholds)["log10_rollout_ratio_above"],
                                    f"Table 2.2 ({'HNNs' if kind == 'hnn' else 'N-ODEs'})")
                      for (kind, g), (tested, mlp) in PAPER_ROLLOUT.items())


@claim("emlp-pendulum", "thesis", "§2.7.2, Table 2.2, Figure 2.6",
       "On the double spring pendulum, EMLP Hamiltonian networks over O(2), SO(2) and D6 (rotations about z) have "
       "lower rollout errors than the MLP Hamiltonian network; enforcing the continuous rotation symmetry in the "
       "EMLP-HNN yields conservation of angular momentum about z, the discrete D6 approximate conservation, while "
       "the coarser D2 does not, and no Neural ODE conserves it.",
       paper_value="rollout error (Table 2.2, HNNs): EMLP O(2) 0.012(2), SO(2) 0.015(3), D6 0.013(2), MLP 0.028; "
                   "Neural ODEs: EMLP O(2) 0.019, MLP 0.048; angular momentum conserved by the O(2) and SO(2) "
                   "EMLP-HNNs, approximately by D6's, not by D2's nor by any Neural ODE (Figure 2.6; its numbers are "
                   "not in the text)",
       seconds={"quick": 30, "full": 47000}, criteria=CRITERIA, null=NULL,
       paper_settings="quick: Table 2.2's Neural ODE rollout over O(2) and the O(2) EMLP-HNN's conservation at a "
                      "short schedule, 3 seeds; full: every part at the thesis's settings, 3 seeds",
       chosen_on=tuning.chosen_on("emlp-pendulum-quick-steps") + PART_NOTE,
       retuned_from=("DECLARED: chosen on the verdict seeds: the quick part (the Neural ODE rollout in place of the "
                     "HNN comparison) and its short schedule were picked after an exploration over seeds 0-5 at "
                     "10-150 steps (module docstring)"),
       later=(extends(BASELINE_TEXT, BASELINE_DATE, BASELINE_REASON),),
       paper_numbers=PAPER_NUMBERS)
def measure(profile) -> Outcome:
    from dataclasses import asdict, replace

    from ..device import pick_device
    from ..nn.hamiltonian import MOMENTUM_FLOOR, PAPER, DynamicsSettings, pendulum_data, run_pendulum

    p = plan(profile)
    base = PAPER if p["schedule"] == "paper" else DynamicsSettings(**p["schedule"])
    settings = replace(base, device=profile.device).check()
    seeds = profile.seeds(quick=3, full=PAPER_SEEDS)
    main_models, null_models = models_of(p), null_models_of(p)
    jobs = [(seed, "main", main_models) for seed in seeds] + [(seed, "null", null_models) for seed in seeds]
    short = short_models_of(p)
    short_settings = replace(settings, epochs=p["conserve_steps"]) if short else settings

    def settings_of(model, group):
        return short_settings if (model, group) in short else settings

    total = sum(settings_of(*mg).steps() for _, _, m in jobs for mg in m) or 1
    done, rows, data = 0, [], {}
    for seed, role, models in jobs:
        for model, group in models:
            profile.checkpoint()
            if seed not in data:
                data[seed] = pendulum_data(settings, seed, control=profile.control)
                rows.append({"model": "still", "group": None, "seed": seed, "role": "baseline",
                             "rollout_error": still_error(data[seed]), "label": "no motion (trivial baseline)"})

            def relay(record, base=done, role=role, seed=seed, model=model):
                if record.get("kind") == "step":
                    what = f"{record.get('model', model)}" + (" (null, reseeded)" if role == "null" else "")
                    profile.progress((base + record["step"]) / total, f"seed {seed} {what}: step {record['step']} "
                                                                      f"of {record['steps']}")

            offset = NULL_SEED_OFFSET if role == "null" else 0
            these = settings_of(model, group)
            out = run_pendulum((model,), (group,) if group else (), these, seed=seed + offset, progress=relay,
                               control=profile.control, data=data[seed])
            done += these.steps()
            for r in out:
                rows.append({k: v for k, v in r.items() if k not in ("samples", "curve")}
                            | {"seed": seed, "weight_seed": seed + offset, "role": role, "steps": these.steps()})
    profile.progress(1.0, "done")
    schedule = {k: v for k, v in asdict(settings).items() if k not in ("device", "samples")}
    the_parts = len(p["rollout"]) + len(p["conserve"])
    out_settings = {"schedule": "paper (dynamics.PAPER)" if p["schedule"] == "paper" else "quick", **schedule,
                    "steps per model": settings.steps(), "optimiser": "Adam",
                    "models": list(dict.fromkeys(label(m, g) for m, g in main_models)),
                    "seeds": seeds, "null weight seeds": [s + NULL_SEED_OFFSET for s in seeds],
                    "rollout parts": [ROLLOUT_PARTS[k] for k in p["rollout"]],
                    "conservation parts": list(p["conserve"]),
                    "steps of the models only a conservation part reads": (
                        {label(*mg): short_settings.steps() for mg in short} or None),
                    "conserved below": CONSERVED, "approximately conserved below": APPROX,
                    "momentum floor": MOMENTUM_FLOOR, "training integrator": f"RK4, {settings.substeps} step(s) per "
                                                                              f"0.2 s observation interval",
                    "evaluation": f"dopri5 at rtol {settings.rtol:g}, atol {settings.atol:g}, float64, 30 s",
                    "dtype": "float32 (training), float64 (evaluation)", "device": str(pick_device(settings.device)),
                    "science": "lab.nn.hamiltonian.run_pendulum"}
    return assess(rows, out_settings, p, quick=not profile.full,
                  paper_settings=paper_settings_of(p, the_parts, len(seeds)))
