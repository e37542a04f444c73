"""Claims of Nordenfors, Ohlsson & Flinth (training dynamics): §5.1 (Fig. 1), appendices E.1 and E.2.

The Perm, Trans and Rot trainings are shared between claims (``profile.memo``), with the claims of
``lab.dynamics.claims_theory``.  Settings:

* ``full``: the paper's (§5 and appendix D): ``scale="paper"``, 30 runs, 50 steps, L = 25 augmentation passes,
  the paper's learning rate (the config's paper table where it has one, else the authors' code: the paper's
  text lost the number), plus sweeps over L for the evidence;
* ``quick``: the lab's ``small`` presets (``lab.tasks.nordenfors_paper.SMALL``: smaller data and widths, and the steps,
  passes and learning rate set there so that the small models train in seconds: Perm 0.01 x 40 steps, L = 10;
  Trans 0.1 x 100 steps, L = 5; Rot 0.5 x 30 steps, L = 4), 3 runs.  The quick profile departs from the
  paper's learning rates (1e-4 and 1e-5): at those rates the models do not leave their initialisation within
  tens of steps (Trans stays at chance), so a verdict would be one on untrained networks.  Nothing is chosen on
  the outcome.

The distances are the lab's (``Trainer.records``): norms ||Pi_perp A|| and ||A - A0|| over the layers with
E != L.  The authors' code recorded and plotted squared norms (``layer_equivariance`` in ``opt_utils.py``) on
linear axes, so the ratios the paper's figures show are the squares of the norm ratios: every Aug/Nom criterion
here reads the square.  Every dynamics verdict carries the accuracy the models reached (``Outcome.accuracy``), read
once per shared run (``main_accuracy``).

Replicates: the runs of the shared trainings (quick 3, full 30), each with its own A0 and augmentation draws on one
data set, as the paper's repeated runs.  Every threshold is judged per run on a 95 % interval over the runs
(``part``), and each part's null is read by the same statistic on as many draws: Nom from other A0s (run ids
R..2R-1) in Aug's place, the other setting (Trans's runs for Rot's shift ratio), another group on the same spaces
(the closed forms), or Rot's architecture under translations.
"""
from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, extends, judge
from ..reproduce.stats import ACCURACY_MARGIN, Rule, null_words, part

#: the learning rates of the authors' code (train_permutation.py 1e-4, train_translation.py and
#: train_rotation.py 1e-5, train_different_groups.py 5e-5); the paper's "the learning rate is equal to ..." lost
#: its number in the text we have
REFERENCE_LR = {"perm": 1e-4, "trans": 1e-5, "rot": 1e-5}
E2_LR = 5e-5
QUICK_RUNS = 3
#: full: §5 (30 runs, 50 steps, 25 passes)
FULL = dict(runs=30, steps=50, aug_passes=25)
#: why quick departs from the paper's learning rate (the settings and notes say it)
QUICK_LR_NOTE = ("quick uses the lab's small preset (lab/tasks/nordenfors_paper.py), not the paper's rate: at the paper's "
                 "rate the models do not leave their initialisation within the quick step budget; full keeps the "
                 "paper's settings")
#: the L sweeps of the evidence (the main run's L is added); aug-only runs, Nom is shared (it does not depend on L)
SWEEP_L = {"quick": {"perm": (2,)},
           "full": {"perm": (5, 10, 50, 100), "trans": (5, 10, 50)}}
#: the criterion of the Aug/Nom claims, on the squared ratio (what the paper plotted): two orders of magnitude
SQUARED_MAX = 1e-2
#: ‖Π_{E⊥}A‖ / ‖A‖ counted as rounding, per training dtype
EQUI_TOL = {"float64": 1e-10, "float32": 1e-4}
#: ‖A_aug − A_equi‖ / ‖A_equi − A0‖ counted as rounding, per training dtype (rounding grows over the steps)
FOLLOW_TOL = {"float64": 1e-8, "float32": 1e-3}
#: Rot: "the shifts orthogonal to E are very small compared with the total shifts": (||Pi_perp A|| / ||A - A0||)^2
#: below this (the norm ratio below 0.1)
ROT_SMALL_SQUARED = 1e-2
#: Rot: "much closer to each other than in Perm and Trans": Rot's (Aug/Nom)^2 at least this many times theirs
ROT_MARGIN = 10.0
#: appendix E.2's expected order of Aug/Nom (largest first)
E2_ORDER = ("Rot", "OneDTrans", "Trans", "TransRot")
#: E.2 at the quick profile: the Trans small preset (rate, steps, passes) on fewer digits (one mini-batch of 100 to
#: train on, 25 held out)
E2_QUICK = dict(runs=3, images=125)
#: the baselines the models' accuracy is read against
CHANCE = {"trans": 0.1}


# ---------------------------------------------------------------------------------------------- settings
def _fields() -> set:
    from .config import DynamicsConfig

    return {f.name for f in dataclasses.fields(DynamicsConfig)}


def _passthrough(profile, experiment: str) -> dict:
    """device, and dtype / data where the config has them (data only where the experiment reads images)."""
    names = _fields()
    out = {"device": profile.device}
    if profile.dtype and "dtype" in names:
        out["dtype"] = profile.dtype
    if profile.data and "data" in names and experiment == "trans":
        out["data"] = profile.data
    return out


def _paper_lr(experiment: str, fallback: float) -> tuple[float, str]:
    """The config's paper learning rate where ``scale="paper"`` has its own (the lab's paper table), else
    ``fallback`` (the authors' code)."""
    from .config import DynamicsConfig

    paper = DynamicsConfig(experiment=experiment, scale="paper").validate()
    small = DynamicsConfig(experiment=experiment, scale="small").validate()
    if paper.lr != small.lr:
        return paper.lr, "the lab's paper table"
    return fallback, "the authors' code"


def _settings(profile, experiment: str) -> dict:
    """The main run's settings: the paper's (full) or the lab's small preset (quick)."""
    from ..tasks.nordenfors_paper import setting

    if profile.full:
        lr, source = _paper_lr(experiment, REFERENCE_LR[experiment])
        return dict(scale="paper", **FULL, lr=lr, lr_source=source)
    return dict(scale="small", runs=QUICK_RUNS, steps=setting(experiment, "small", "steps"),
                aug_passes=setting(experiment, "small", "aug_passes"), lr=setting(experiment, "small", "lr"),
                lr_source="the lab's small preset (lab/tasks/nordenfors_paper.py)", lr_note=QUICK_LR_NOTE)


def _config(profile, experiment: str, settings: dict, **more):
    """The DynamicsConfig of ``settings`` (keys that are not config fields, such as ``lr_source``, are words for
    the report and are left out)."""
    from . import DynamicsConfig

    names = _fields()
    kw = {k: v for k, v in settings.items() if k in names}
    return DynamicsConfig(experiment=experiment, seed=profile.seed, **kw, **_passthrough(profile, experiment), **more)


# ---------------------------------------------------------------------------------------------- shared runs
def _norm(tensors):
    """Per-run norm of a list of (R, ...) tensors."""
    import torch

    return torch.sqrt(sum(t.flatten(1).pow(2).sum(1) for t in tensors))


def _step_norms(trainer) -> dict:
    """Per run, at the current step: ‖A_equi‖ on the layers with E ≠ L, ‖A_aug − A_equi‖ and ‖A_equi − A0‖
    over all weights (the exact-orbit comparison)."""
    import torch

    with torch.no_grad():
        out = {}
        P = trainer.params
        eq = [i for i, e in enumerate(trainer.equivariant_layers) if e]
        if "equi" in P:
            layers = trainer.model.layer_params(P["equi"])
            out["equi_norm"] = _norm([layers[i][0] for i in eq]).tolist()
            out["equi_moved"] = _norm([a - b for a, b in zip(P["equi"], trainer.A0)]).tolist()
            if "aug" in P:
                out["aug_minus_equi"] = _norm([a - b for a, b in zip(P["aug"], P["equi"])]).tolist()
        return out


def _train(profile, experiment: str, settings: dict, strategies=("nom", "aug", "equi"), label: str = "",
           share: tuple = (0.0, 1.0), **more):
    """A trained Trainer and its per-step norms (``trainer.step_norms``); progress in [share[0], share[1]]."""
    from . import Trainer

    trainer = Trainer(_config(profile, experiment, settings, strategies=tuple(strategies), **more))
    trainer.step_norms = [_step_norms(trainer)]
    steps = trainer.config.steps
    lo, hi = share

    def on_step(tr, records):
        tr.step_norms.append(_step_norms(tr))
        profile.progress(lo + (hi - lo) * tr.step / steps, f"{label or experiment}: step {tr.step}/{steps}")

    trainer.run(on_step=on_step, control=profile.control)
    profile.checkpoint()
    return trainer


def _main_run(profile, experiment: str, share=(0.0, 1.0)):
    settings = _settings(profile, experiment)
    return profile.memo(("dyn-main", experiment), lambda: _train(profile, experiment, settings, share=share),
                        label=f"{experiment}: Nom, Aug and Equi ({settings['runs']} runs)")


def _other_seeds(runs: int) -> tuple[int, ...]:
    return tuple(range(runs, 2 * runs))


def _nom_other(profile, experiment: str, share=(0.0, 1.0)):
    """Nom from as many other seeds (run ids R..2R-1: independent A0s): the unaugmented baseline put in Aug's
    place by the null checks."""
    settings = _settings(profile, experiment)
    ids = _other_seeds(settings["runs"])
    return profile.memo(("dyn-nom-other", experiment), lambda: _train(
        profile, experiment, settings, strategies=("nom",), run_ids=ids, share=share,
        label=f"{experiment}: Nom from other seeds"), label=f"{experiment}: Nom from {len(ids)} other seeds")


def _reference_rot(profile, share=(0.0, 1.0)):
    """Rot's Aug with the authors' draws (``draws="reference"``: on §5 Rot's flattened images identity 2/5,
    half-turn 3/5), from the main run's A0s."""
    settings = _settings(profile, "rot")
    return profile.memo(("dyn-ref", "rot"), lambda: _train(
        profile, "rot", settings, strategies=("aug",), draws="reference", share=share,
        label="rot: Aug with the reference's rotations"), label="rot: Aug with the reference's rotations")


def _medians(trainer):
    """(steps, {strategy: (median ‖Π_{E⊥}A‖, median ‖A − A0‖)}) over live runs, per step."""
    from .metrics import medians

    med = medians(trainer.records)
    steps = sorted(int(s) for s in med.step.unique())
    out = {}
    for s, g in med.groupby("strategy"):
        g = g.set_index("step").reindex(steps)
        out[s] = ([_f(v) for v in g.dist_from_E], [_f(v) for v in g.dist_from_init])
    return steps, out


def _f(x):
    x = float(x)
    return None if math.isnan(x) else x


def _median(values) -> float | None:
    vals = sorted(v for v in values if v is not None and not math.isnan(v))
    if not vals:
        return None
    k = len(vals) // 2
    return vals[k] if len(vals) % 2 else (vals[k - 1] + vals[k]) / 2


def _mean(values) -> float | None:
    vals = [v for v in values if v is not None and not math.isnan(v)]
    return sum(vals) / len(vals) if vals else None


def _final(trainer, strategy: str, key: str) -> list:
    """Per run (in ``run_ids`` order), the final total of ``key`` (None for a diverged run)."""
    last = {r["run"]: r for r in trainer.records
            if r["strategy"] == strategy and r["layer"] == "total" and r["step"] == trainer.step}
    return [None if last[run]["diverged"] else _f(last[run][key]) for run in trainer.run_ids]


def _slope(xs, ys) -> float | None:
    """Least-squares slope of log y against log x (positive values only)."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx if sxx else None


def _dtype_name(trainer) -> str:
    return str(trainer.params[trainer.config.strategies[0]][0].dtype).replace("torch.", "")


def _fmt(x, digits: int = 2):
    return "n/a" if x is None else f"{x:.{digits}g}" if abs(x) < 1e-2 else f"{x:.{digits}f}"


# ---------------------------------------------------------------------------------------------- accuracy
def _per_run_accuracy(trainer) -> tuple[dict, str]:
    """({strategy: [accuracy of every run's final model]}, split): on the held-out test split where the
    experiment has one, else on the (unaugmented) training data; cached on the trainer."""
    import torch

    from .train import precise_float32

    cached = getattr(trainer, "_final_accuracy", None)
    if cached is not None and cached[0] == trainer.step:
        return cached[1], cached[2]
    test = trainer.evaluate()
    if test:
        out = {s: [float(v) for v in test[s][1]] for s in trainer.config.strategies}
        split = "held-out test split"
    else:
        out, bs = {}, trainer.config.batch_size
        with torch.no_grad(), precise_float32():
            for s in trainer.config.strategies:
                correct = torch.zeros(trainer.R, dtype=torch.float64, device=trainer.device)
                seen = 0
                for i in range(0, len(trainer.X), bs):
                    xb, yb = trainer.X[i:i + bs], trainer.y[i:i + bs]
                    res = trainer.model.forward(trainer.params[s], xb.unsqueeze(0).expand(trainer.R, *xb.shape))
                    _, right, per_item = trainer._loss(res, yb)
                    correct += right
                    seen += per_item * len(xb)
                out[s] = (correct / seen).tolist()
        split = "training data (no test split, as in the paper)"
    for s, alive in trainer.alive.items():
        out[s] = [v if ok else None for v, ok in zip(out[s], alive.tolist())]
    trainer._final_accuracy = (trainer.step, out, split)
    return out, split


def _baseline_accuracy(trainer) -> dict:
    """What a model that ignores its input reaches: chance (Trans, 10 classes) or the majority class (Perm: the
    connected share; Rot: the share of mask pixels that are 0).  Rot's head (LayerNorm over the two mask channels
    of a pixel, then LeakyReLU) marks exactly one of the two masks positive at every pixel, so it cannot predict
    the all-0 background: its ``chance`` is the best input-independent prediction it allows (per pixel the
    better of the two masks)."""
    import torch

    if trainer.exp.task == "multiclass":
        return {"chance": CHANCE["trans"]}
    y = (trainer.y_test if len(trainer.X_test) else trainer.y).double()
    share = float(y.mean())
    out = {"majority": max(share, 1.0 - share)}
    if trainer.exp.task == "segmentation" and y.dim() == 3 and y.shape[1] == 2:
        p = y.mean(0)  # (2, pixels): how often each mask is 1 at each pixel
        first = (p[0] + 1 - p[1]) / 2  # mark mask 0 positive: right where it is 1 and where mask 1 is 0
        out["chance"] = float(torch.maximum(first, 1 - first).mean())
    return out


def _accuracy(trainer, strategies=None, extra=None) -> dict:
    """{strategy: median final accuracy, ..., "chance" or "majority": .., "split": ..} of one trainer; ``extra``:
    {label: (trainer, strategy)} for runs trained apart (a variant's Aug)."""
    per_run, split = _per_run_accuracy(trainer)
    out = {s: _median(per_run[s]) for s in (strategies or trainer.config.strategies)}
    for label, (tr, s) in (extra or {}).items():
        out[label] = _median(_per_run_accuracy(tr)[0][s])
    out.update(_baseline_accuracy(trainer))
    out["split"] = split
    return out


#: a part has power only where its runs' Nom (the statistic's reference) beats the trivial classifier -- chance, or
#: always the majority class where the labels are unbalanced, the larger -- by this much accuracy (median over runs):
#: distances from E compared between models that learned nothing say nothing about the paper's training dynamics
BASELINE_MARGIN = ACCURACY_MARGIN


def trivial_baseline(accuracy: dict) -> dict:
    """``part``'s ``baseline`` from ``main_accuracy`` dicts ({experiment: {"nom", "chance" or "majority", ...}}):
    beaten when every experiment's Nom beats its trivial classifier by ``BASELINE_MARGIN``.

    >>> trivial_baseline({"rot": {"nom": 0.6, "majority": 0.89}})["beaten"]
    False
    >>> trivial_baseline({"perm": {"nom": 0.87, "majority": 0.61}, "trans": {"nom": 0.94, "chance": 0.1}})["beaten"]
    True
    """
    per = {}
    for exp, acc in accuracy.items():
        trivial = max(float(acc[k]) for k in ("chance", "majority") if isinstance(acc.get(k), (int, float)))
        nom = acc.get("nom")
        per[exp] = {"nom": nom, "trivial": trivial, "split": acc.get("split"),
                    "beaten": isinstance(nom, (int, float)) and nom >= trivial + BASELINE_MARGIN}
    return {"what": "chance or always the majority class, the larger (Nom's accuracy against it)",
            "margin": BASELINE_MARGIN, "per experiment": per, "beaten": all(v["beaten"] for v in per.values())}


def main_accuracy(profile, experiment: str) -> dict:
    """The accuracy of the shared main run's final models (``_accuracy``), read once per profile under one memo
    key: every claim that reports the Perm, Trans or Rot models' accuracy reads this same dict (final models,
    unaugmented data: the held-out split where the experiment has one, else the training data)."""
    main = _main_run(profile, experiment)
    return profile.memo(("dyn-main-accuracy", experiment), lambda: _accuracy(main),
                        label=f"{experiment}: accuracy of the final models (one reading)")


# ---------------------------------------------------------------------------------------------- replicates
def _pair_draws(trainer_y, strategy_y: str, trainer_ref, strategy_ref: str = "nom") -> list[dict]:
    """Per run i (run ids in order): {"y": final ||Pi_perp A|| of ``trainer_y``'s ``strategy_y`` run i, "ref": that
    of ``trainer_ref``'s ``strategy_ref`` run i} (None for a diverged run).  A claim's draw pairs Aug with the Nom
    trained from the same A0; its null's draw pairs a Nom from another A0 with the same Nom."""
    ys = _final(trainer_y, strategy_y, "dist_from_E")
    refs = _final(trainer_ref, strategy_ref, "dist_from_E")
    return [{"y": y, "ref": r} for y, r in zip(ys, refs)]


def log10_squared_ratio(draw: dict) -> float:
    """log10 of (y / ref)^2 for one run's final ||Pi_perp A|| (the squared norm the authors plotted); NaN where a
    run diverged or a norm is 0."""
    y, ref = draw["y"], draw["ref"]
    if y is None or ref is None or not (y > 0 and ref > 0):
        return math.nan
    return 2.0 * math.log10(y / ref)


def _runs_text(trainer, null=None) -> str:
    runs = list(trainer.run_ids)
    text = (f"runs {runs[0]}-{runs[-1]} of seed {trainer.config.seed} (each its own A0 and augmentation draws, "
            "one data set, as the paper's repeated runs)")
    if null is not None:
        other = list(null.run_ids)
        text += f"; the null's Nom from runs {other[0]}-{other[-1]} (other A0s)"
    return text


def _paper_settings(profile, experiment: str, trainer) -> str:
    """One line: what this profile ran for ``experiment`` against what the paper ran (§5, appendix D)."""
    from ..tasks.nordenfors_paper import PAPER, setting

    c = trainer.config
    scale = "the paper's settings" if profile.full else "the lab's small preset (lab/tasks/nordenfors_paper.py)"
    data = {"perm": "graphs", "trans": "images", "rot": "images", "e2": "images"}[experiment]
    size = len(trainer.X) + len(getattr(trainer, "X_test", ()))
    ran = (f"{c.runs if c.run_ids is None else len(c.run_ids)} runs, {c.steps} steps, L = {c.aug_passes}, lr "
           f"{c.lr:g}, {size} {data}" + (f", {math.isqrt(trainer.exp.group.d)} x {math.isqrt(trainer.exp.group.d)}"
                                         if experiment != "perm" else "") +
           f", channels {tuple(setting(experiment, c.scale, 'channels'))}")
    if experiment in ("trans", "e2") and not profile.data:
        ran += ", scikit-learn's 8 x 8 digits stand in for MNIST"
    paper = PAPER[experiment]
    theirs = (f"30 runs, 50 epochs, L = 25, lr {paper['lr'].value:g}, {paper['data_size'].value} {data}"
              + (f", {paper['image_size'].value} x {paper['image_size'].value}" if experiment != "perm" else "") +
              f", channels {tuple(paper['channels'].value)}")
    return f"{scale}: {ran} (the paper: {theirs})"


# ---------------------------------------------------------------------------------------------- Figure 1
def _trajectory(trainer, strategy_y: str, strategy_x: str | None = None, x_trainer=None) -> dict:
    """{"runs": [{"x", "y"}, ...], "mean": {"x", "y"}}: per run, ||Pi_perp A|| of ``strategy_y`` (y) against
    ||A - A0|| of ``strategy_x`` (x, default the same strategy) at every recorded step; the mean over runs
    bold (the paper's opaque line is the average of its 30 runs)."""
    x_trainer = x_trainer or trainer
    strategy_x = strategy_x or strategy_y

    def table(tr, s):
        return {(r["run"], r["step"]): r for r in tr.records if r["strategy"] == s and r["layer"] == "total"}

    ty, tx = table(trainer, strategy_y), table(x_trainer, strategy_x)
    steps = sorted({step for _, step in ty})
    runs = []
    for run in trainer.run_ids:
        def value(t, key, step, run=run):
            r = t.get((run, step))
            return None if r is None or r["diverged"] else _f(r[key])
        runs.append({"x": [value(tx, "dist_from_init", step) for step in steps],
                     "y": [value(ty, "dist_from_E", step) for step in steps]})
    mean = {k: [_mean([r[k][i] for r in runs]) for i in range(len(steps))] for k in ("x", "y")}
    return {"runs": runs, "mean": mean}


NOM_FROM_AUG = "nom as the reference records it (x: Aug's ||A - A0||)"


def _figure1(panels: dict, title: str) -> dict:
    """The paper's Figure 1 as an evidence item: ``panels`` {panel title: trainer} (with ``extra`` series)."""
    out = {}
    for name, (tr, extra) in panels.items():
        series = {s: _trajectory(tr, s) for s in ("nom", "aug", "equi") if s in tr.config.strategies}
        if extra.get("nom_from_aug") and "aug" in tr.config.strategies:
            series[NOM_FROM_AUG] = _trajectory(tr, "nom", "aug")
        out[name] = series
    return {"kind": "trajectories", "title": title, "xlabel": "||A - A0|| (distance from the start)",
            "ylabel": "||Pi_perp A|| (distance from E)", "logx": False, "logy": False, "panels": out}


def _spread_rows(name: str, trainer) -> list:
    """Per strategy: runs, and min / median / max over runs of the final ||Pi_perp A||, ||A - A0|| and
    accuracy (the run-to-run spread)."""
    per_run, _ = _per_run_accuracy(trainer)
    rows = []
    for s in trainer.config.strategies:
        row = [name, s, trainer.R]
        for vals in (_final(trainer, s, "dist_from_E"), _final(trainer, s, "dist_from_init"), per_run[s]):
            live = [v for v in vals if v is not None]
            row += [min(live) if live else None, _median(live), max(live) if live else None]
        rows.append(row)
    return rows


SPREAD_COLUMNS = ["experiment", "strategy", "runs", "min ||Pi_perp A||", "median ||Pi_perp A||",
                  "max ||Pi_perp A||", "min ||A - A0||", "median ||A - A0||", "max ||A - A0||", "min accuracy",
                  "median accuracy", "max accuracy"]


def _spread_table(rows, title="Final values over runs: the run-to-run spread") -> dict:
    return {"kind": "table", "title": title, "columns": SPREAD_COLUMNS, "rows": rows}


# ---------------------------------------------------------------------------------------------- Aug vs Nom
def _squared_ok(squared) -> bool:
    return squared is not None and squared <= SQUARED_MAX


RATIO_CRITERION = (f"(Aug/Nom of the final median ||Pi_perp A||)^2 <= {SQUARED_MAX:g}: 'several orders of magnitude' "
                   "read on the squared norm, because the authors' layer_equivariance records the squared norm and "
                   "their figure plots it on linear axes; at least two orders of magnitude")
RATIO_NULL = ("Nom from as many other seeds (independent A0s) in Aug's place: an unaugmented model put through the "
              "same comparison, (Nom'/Nom)^2 ~ 1")
#: v2 (issue 46): the same two orders of magnitude, judged run by run on an interval instead of one ratio of medians
RATIO_LOG10_MAX = math.log10(SQUARED_MAX)
RATIO_PART = "Aug at least 100 x closer to E than Nom (squared norm)"
RATIO_CRITERION_V2 = (
    "per run (its own A0 and augmentation draws), log10 of (Aug's / Nom's final ||Pi_perp A||)^2, the squared norm "
    "the authors' layer_equivariance records and their figure plots; the 95 % bootstrap interval of its mean over "
    f"the runs wholly below {RATIO_LOG10_MAX:g} (at least two orders of magnitude)")
RATIO_NULL_V2 = ("Nom from other A0s (run ids R..2R-1) in Aug's place, run by run against the same Nom: log10 "
                 "(Nom'/Nom)^2, what an unaugmented model reads (about 0)")
RATIO_CRITERIA = (
    Criterion(1, RATIO_CRITERION, FIRST_REGISTERED),
    Criterion(2, RATIO_CRITERION_V2, "2026-11-27",
              reason="v1 read one ratio of medians over 3 runs (a single draw); v2 reads the same two orders of "
                     "magnitude per run, on a 95 % interval over the runs, against a null with as many draws",
              thresholds=(("log10_squared_ratio_max", RATIO_LOG10_MAX),), parts=(RATIO_PART,)))


#: the later version (issue 62): "several orders of magnitude" in the paper's terms, at matched distance travelled
MATCHED_PART = "Aug at least 100 x closer to E than Nom at the same distance travelled ||A - A0|| (squared norm)"
MATCHED_DATE = "2026-12-02"
MATCHED_TEXT = ("  'Several orders of magnitude' in the paper's terms: Figure 1 plots the squared norm ||Pi_perp A||^2 "
                "against the distance travelled ||A - A0||, so the reading is at least two decades of that squared "
                "norm (one decade of the norm), and a second part reads it as the figure shows it: per run, Aug's "
                "and Nom's ||Pi_perp A||^2 at the same ||A - A0|| (the smaller of the two runs' final distances, "
                f"each run's curve interpolated along its own steps), log10 of their ratio wholly below "
                f"{RATIO_LOG10_MAX:g}; the null read the same way.")
MATCHED_REASON = ("issue 62: the final-step reading compared Aug and Nom after different distances travelled (Aug "
                  "moves further from A0 at these learning rates), where the paper's Figure 1 compares them along "
                  "the distance; and 'several orders of magnitude' was printed without saying of which quantity")


def _curve(trainer, strategy: str) -> dict:
    """{run: [(||A - A0||, ||Pi_perp A||) per step, in step order]} of ``strategy``'s runs (totals over layers)."""
    out: dict = {}
    for r in sorted((r for r in trainer.records if r["strategy"] == strategy and r["layer"] == "total"),
                    key=lambda r: r["step"]):
        out.setdefault(r["run"], []).append((_f(r["dist_from_init"]), _f(r["dist_from_E"])))
    return out


def at_distance(curve, d: float) -> float | None:
    """``||Pi_perp A||`` where a run's curve ``[(||A - A0||, ||Pi_perp A||), ...]`` (step order) first reaches
    distance ``d``, linearly interpolated between the two steps around it; None where it never does or a value is
    missing.

    >>> at_distance([(0.0, 0.0), (1.0, 2.0), (3.0, 4.0)], 2.0)
    3.0
    """
    prev = None
    for x, y in curve:
        if x is None or y is None:
            return None
        if x >= d:
            if prev is None or x == prev[0]:
                return y
            t = (d - prev[0]) / (x - prev[0])
            return prev[1] + t * (y - prev[1])
        prev = (x, y)
    return None


def _matched_draws(trainer_y, strategy_y: str, trainer_ref, strategy_ref: str = "nom") -> list[dict]:
    """As ``_pair_draws``, the two runs' ||Pi_perp A|| read at the same distance travelled: the smaller of their
    final ||A - A0||."""
    ys, refs = _curve(trainer_y, strategy_y), _curve(trainer_ref, strategy_ref)
    out = []
    for run_y, run_ref in zip(trainer_y.run_ids, trainer_ref.run_ids):
        cy, cr = ys.get(run_y) or [], refs.get(run_ref) or []
        ends = [c[-1][0] for c in (cy, cr) if c and c[-1][0] is not None]
        if len(ends) < 2:
            out.append({"y": None, "ref": None, "distance": None})
            continue
        d = min(ends)
        out.append({"y": at_distance(cy, d), "ref": at_distance(cr, d), "distance": d})
    return out


def _ratio_claim(profile, experiment: str) -> Outcome:
    main = _main_run(profile, experiment, share=(0.0, 0.6))
    other = _nom_other(profile, experiment, share=(0.6, 0.7))
    steps, med = _medians(main)
    nom_E, aug_E = med["nom"][0][-1], med["aug"][0][-1]
    ratio = aug_E / nom_E
    squared = ratio ** 2
    other_E = _median(_final(other, "nom", "dist_from_E"))
    null_squared = (other_E / nom_E) ** 2
    # v2: per run, Aug against the Nom from the same A0; the null: a Nom from another A0 against the same Nom
    the_part = part(RATIO_PART, log10_squared_ratio, _pair_draws(main, "aug", main),
                    _pair_draws(other, "nom", main), Rule("<", RATIO_LOG10_MAX), RATIO_NULL_V2,
                    baseline=trivial_baseline({experiment: main_accuracy(profile, experiment)}))
    aug_matched = _matched_draws(main, "aug", main)  # read by the part and named in the note
    matched = part(MATCHED_PART, log10_squared_ratio, aug_matched,
                   _matched_draws(other, "nom", main), Rule("<", RATIO_LOG10_MAX),
                   RATIO_NULL_V2 + ", at the same distance travelled", baseline=the_part.baseline)
    holds = the_part.holds and matched.holds
    v1_holds, v1_null = judge(_squared_ok, squared, RATIO_NULL, null_squared)
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds,
                   "measured": {"aug_over_nom_squared": squared, "null": null_squared},
                   "why": f"v1 read on the ratio of the final medians over {_runs_text(main)}: "
                          f"(Aug/Nom)^2 = {squared:.3g} against {SQUARED_MAX:g}; Nom from other A0s in Aug's place "
                          f"{null_squared:.3g}"}}
    L0 = main.config.aug_passes
    # (Aug/Nom)^2 against steps (from the main run)
    step_sq = [((a / n) ** 2 if a is not None and n else None) for a, n in zip(med["aug"][0], med["nom"][0])]
    xs, ys = steps[1:], step_sq[1:]
    steps_slope = _slope(xs[len(xs) // 4:], [math.sqrt(y) if y else None for y in ys[len(ys) // 4:]])
    # Aug/Nom against L: aug-only runs from the same A0 (Nom does not depend on L)
    settings = _settings(profile, experiment)
    Ls = sorted(set(SWEEP_L[profile.name].get(experiment, ())) | {L0})
    sweep = {}
    others = [L for L in Ls if L != L0]
    for k, L in enumerate(others):
        key = ("dyn-sweep", experiment, L)
        tr = profile.memo(key, lambda L=L, k=k: _train(
            profile, experiment, {**settings, "aug_passes": L}, strategies=("aug",), label=f"{experiment} L={L}",
            share=(0.7 + 0.3 * k / len(others), 0.7 + 0.3 * (k + 1) / len(others))),
            label=f"{experiment}: Aug with L = {L}")
        sweep[L] = _median(_final(tr, "aug", "dist_from_E")) / nom_E
    sweep[L0] = ratio
    L_ratio = [sweep[L] for L in Ls]
    L_slope = _slope(Ls, L_ratio)
    name = experiment.capitalize()
    acc = main_accuracy(profile, experiment)
    # the reference's tracker: Nom's ||A - A0|| taken from the Aug model (nonaugshunt = tracker.change(augmodel))
    nom_shift = _median(_final(main, "nom", "dist_from_init"))
    aug_shift = _median(_final(main, "aug", "dist_from_init"))
    x_scale = aug_shift / nom_shift
    first = next((i for i, y in enumerate(ys) if y is not None), None)
    early = (xs[first], ys[first]) if first is not None else (None, None)
    evidence = [
        _figure1({name: (main, {"nom_from_aug": True})},
                 f"{name} (Figure 1): ||Pi_perp A|| against ||A - A0||, every run faint, the mean over "
                 f"{main.R} runs bold"),
        {"kind": "line", "title": f"{name}: median ||Pi_perp A|| over training", "xlabel": "step",
         "ylabel": "median ||Pi_perp A||", "x": steps,
         "series": {"nom": med["nom"][0], "aug": med["aug"][0],
                    "nom, other seeds (the null)": _medians(other)[1]["nom"][0]},
         "logx": False, "logy": True},
        {"kind": "line", "title": f"{name}: (Aug/Nom)^2 against steps (L = {L0})", "xlabel": "step",
         "ylabel": "(Aug/Nom of median ||Pi_perp A||)^2", "x": xs,
         "series": {"measured": ys, f"criterion {SQUARED_MAX:g}": [SQUARED_MAX] * len(xs),
                    "1/steps through the last step": [ys[-1] * xs[-1] / t for t in xs]},
         "logx": True, "logy": True},
        _spread_table(_spread_rows(name, main) + _spread_rows(f"{name} (other seeds)", other)),
    ]
    if len(Ls) > 1:
        evidence.insert(3, {"kind": "line", "title": f"{name}: (Aug/Nom)^2 against the augmentation passes L "
                            "(final step)", "xlabel": "L", "ylabel": "(Aug/Nom of median ||Pi_perp A||)^2",
                            "x": Ls, "series": {"measured": [r ** 2 for r in L_ratio],
                                                "1/L through the main run": [squared * L0 / L for L in Ls]},
                            "logx": True, "logy": True})
    variants = [{"name": "Nom recorded from the Aug model",
                 "what": "the authors' code records Nom's ||A - A0|| from the Aug model (nonaugshunt = "
                         "tracker.change(augmodel)): Nom's ||Pi_perp A|| drawn against Aug's ||A - A0||; "
                         "measured: the criterion's squared ratio and where Nom's last point lands on the x axis, "
                         "as a fraction of Nom's own ||A - A0||",
                 "measured": {"aug_over_nom_squared": squared, "nom_x_as_drawn_over_true": x_scale},
                 "holds": _squared_ok(squared)}]
    trained = (f"The models trained; accuracy on the {acc['split']}: Nom {_fmt(acc['nom'])}, Aug {_fmt(acc['aug'])}, Equi "
               f"{_fmt(acc['equi'])}, against " + (f"chance {acc['chance']:.2f}" if "chance" in acc else
                                                    f"the majority class {acc['majority']:.2f}") + ". ")
    lo, hi = the_part.interval
    nlo, nhi = the_part.null_interval
    reading = (f"Per run, log10 (Aug/Nom)^2 = {', '.join(f'{v:.2f}' for v in the_part.replicates)} (mean "
               f"{the_part.measured:.2f}, 95 % interval [{lo:.2f}, {hi:.2f}], to lie wholly below "
               f"{RATIO_LOG10_MAX:g}); Nom from other A0s in Aug's place reads "
               f"{', '.join(f'{v:.2f}' for v in the_part.null_replicates)} "
               f"(interval [{nlo:.2f}, {nhi:.2f}]), {null_words(the_part)}, so the part " +
               ("cannot tell augmentation from run-to-run variation at these settings. " if the_part.null_holds else
                "tells augmentation from run-to-run variation. ") +
               f"The ratio of the final medians (v1's reading): (Aug/Nom)^2 = {squared:.3g} (norm ratio {ratio:.3g}). ")
    if holds:
        why = (f"Aug's leftover outside E is sampling noise that averages as 1/sqrt(L x steps), Nom's a systematic "
               f"drift: fitted exponents of the norm ratio {_fmt(L_slope)} in L and {_fmt(steps_slope)} in steps "
               "(-1/2 expected in the gradient-flow regime). ")
    else:
        why = ((f"The interval reaches above {RATIO_LOG10_MAX:g}: not every run clears two orders of magnitude. "
                if squared <= SQUARED_MAX else "") +
               f"The squared ratio of the medians goes from {_fmt(early[1], 3)} at step "
               f"{early[0]} to {squared:.3g} at step {xs[-1]} (the curve against steps), while Aug moves "
               f"{aug_shift:.3g} from A0 against Nom's {nom_shift:.3g}: at this learning rate "
               f"({main.config.lr:g}, set to train the model within {main.config.steps} steps) the dynamics are far "
               "from the gradient flow the paper analyses, and Aug's component outside E, started by sampling "
               "noise, grows as Aug trains, consistent with E being unstable for the augmented dynamics (the "
               "paper's observation (i)). The paper states the effect at its own rate, where its models barely move "
               "from A0; the full profile runs the paper's settings. ")
    tracker = (f"Variant 'Nom recorded from the Aug model': the criterion compares ||Pi_perp A|| at the same step, so "
               f"it is unchanged; in the figure Nom's curve is drawn at Aug's ||A - A0||, {x_scale:.2f} of Nom's own "
               f"({'compressed' if x_scale < 1 else 'stretched'} along x), so Nom appears to leave E "
               f"{'faster' if x_scale < 1 else 'slower'} per unit of distance travelled than it does.")
    mlo, mhi = matched.interval or (math.nan, math.nan)
    at = ", ".join(f"{d['distance']:.3g}" for d in aug_matched if d["distance"] is not None)
    matched_text = (f"  At the same distance travelled (||A - A0|| = {at} per run, the smaller of Aug's and Nom's "
                    f"final), log10 (Aug/Nom)^2 = {', '.join(f'{v:.2f}' for v in matched.replicates)} (interval "
                    f"[{mlo:.2f}, {mhi:.2f}]); the null's {', '.join(f'{v:.2f}' for v in matched.null_replicates)}, "
                    f"{null_words(matched)}.")
    note = reading + trained + why + tracker + matched_text
    return Outcome(
        measured={"log10_aug_over_nom_squared": the_part.measured,
                  "log10_aug_over_nom_squared_at_matched_distance": matched.measured, "aug_over_nom": ratio,
                  "aug_over_nom_squared": squared, "exponent_in_L": L_slope, "exponent_in_steps": steps_slope},
        settings={**settings, "seed": profile.seed, "sweep_L": Ls, "dtype": _dtype_name(main),
                  "null_run_ids": list(other.run_ids), "criterion": RATIO_CRITERION_V2},
        evidence=evidence, note=note, criterion=RATIO_CRITERION_V2, accuracy={experiment: acc},
        variants=variants, parts=[the_part, matched], history=history,
        replicates={"what": _runs_text(main, other), "claim": main.R, "null": other.R},
        paper_settings=_paper_settings(profile, experiment, main))


@claim("dyn-perm-aug-vs-nom", "dynamics", "§5.1, Fig. 1 (Perm)",
       "Perm: the Aug model stays much closer to E than Nom; the shift orthogonal to E is smaller by several "
       "orders of magnitude.", paper_value="several orders of magnitude (of the plotted squared norm)",
       seconds={"quick": 6, "full": 900}, criterion=RATIO_CRITERION_V2, null=RATIO_NULL_V2, criteria=RATIO_CRITERIA,
       paper_settings="quick: the lab's small Perm preset, 3 runs (the paper: 30 runs, 50 epochs, L = 25, lr 1e-4, "
                      "1000 graphs); full: the paper's",
       chosen_on=("the lab's small presets (lab/tasks/nordenfors_paper.py SMALL), set so the small models train in seconds "
                  "(the paper's learning rates leave them untrained); nothing chosen on the outcome (module "
                  "docstring)"),
       later=(extends(MATCHED_TEXT, MATCHED_DATE, MATCHED_REASON, (MATCHED_PART,)),))
def perm_aug_vs_nom(profile) -> Outcome:
    return _ratio_claim(profile, "perm")


@claim("dyn-trans-aug-vs-nom", "dynamics", "§5.1, Fig. 1 (Trans)",
       "Trans: the Aug model stays much closer to E than Nom; the shift orthogonal to E is smaller by several "
       "orders of magnitude.", paper_value="several orders of magnitude (of the plotted squared norm)",
       seconds={"quick": 11, "full": 1800}, criterion=RATIO_CRITERION_V2, null=RATIO_NULL_V2, criteria=RATIO_CRITERIA,
       paper_settings="quick: the lab's small Trans preset on 8 x 8 digits, 3 runs (the paper: MNIST 14 x 14, 30 "
                      "runs, 50 epochs, L = 25, lr 1e-5); full: the paper's",
       chosen_on=("the lab's small presets (lab/tasks/nordenfors_paper.py SMALL), set so the small models train in seconds "
                  "(the paper's learning rates leave them untrained); nothing chosen on the outcome (module "
                  "docstring)"),
       later=(extends(MATCHED_TEXT, MATCHED_DATE, MATCHED_REASON, (MATCHED_PART,)),))
def trans_aug_vs_nom(profile) -> Outcome:
    return _ratio_claim(profile, "trans")


# ---------------------------------------------------------------------------------------------- Rot
def _reference_rot_drift(trainer) -> dict:
    """Diagnostic of the authors' rotation augmentation (``Rotate`` in datasets.py), in the gradient-flow regime.

    At an equivariant A the gradient of the risk augmented by g is the lifted action of g on the nominal gradient
    G, so with g drawn from a distribution p, Aug's drift rate off E is ||Pi_perp sum_g p(g) rho(g) G|| against
    Nom's ||Pi_perp G|| (0 for the uniform distribution: the group average is Pi_E).  ``Rotate`` draws
    ``r = random.randint(0, 4)``, five values with r = 0 and r = 4 both the identity; on the Rot experiment's
    flattened images its ``reshape`` to N x N is discarded, so r = 1, 2, 3 all reverse the flattened image (a
    half-turn): identity 2/5, half-turn 3/5.  On 2-D images (appendix E.2's Rot) it rotates: identity 2/5, each
    other rotation 1/5, which leaves exactly 1/5.  Returns the median over runs of each ratio at A0."""
    import numpy as np
    import torch

    from ..reps.action import all_elements

    els = all_elements(trainer.exp.group)
    d = trainer.exp.group.d
    ident = np.arange(d)
    order = {}
    for p in els.perms:
        q, k = p.copy(), 1
        while not np.array_equal(q, ident):
            q, k = p[q], k + 1
        order.setdefault(k, []).append(p)
    if sorted(order) != [1, 2, 4] or len(order[2]) != 1:
        return {}
    model = trainer.model
    G = trainer.gradient("nom", params=trainer.A0)[0]

    def act(perm, grads):  # rho(g) W rho(g)^T on every V -> V block: W'[a, c] = W[g^-1 a, g^-1 c]
        inv = torch.as_tensor(np.argsort(perm), device=trainer.device)
        out = []
        for spec, group in zip(model.specs, model.layer_params(grads)):
            W = group[0]
            if (spec.rep_in, spec.rep_out) == ("V", "V"):
                W = W[..., inv, :][..., :, inv]
            out.append(W)
            out.extend(group[1:])
        return out

    def perp(grads):
        proj = model.project(grads)
        layers = model.layer_params([g - p for g, p in zip(grads, proj)])
        return _norm([layers[i][0] for i, e in enumerate(trainer.equivariant_layers) if e])

    def mix(weights):
        total = [torch.zeros_like(g) for g in G]
        for w, perm in weights:
            total = [t + w * x for t, x in zip(total, act(perm, G))]
        return total

    nom = perp(G)
    quarter = order[4]
    cases = {"uniform_C4": [(0.25, ident), (0.25, order[2][0])] + [(0.25, q) for q in quarter],
             "reference_flattened": [(0.4, ident), (0.6, order[2][0])],
             "reference_2d": [(0.4, ident), (0.2, order[2][0])] + [(0.2, q) for q in quarter]}
    return {k: float(torch.median(perp(mix(w)) / nom)) for k, w in cases.items()}




ROT_CRITERION = (f"Rot's (Aug/Nom)^2 (final median ||Pi_perp A||) at least {ROT_MARGIN:g} x Perm's and Trans's "
                 "('much closer to each other': an order of magnitude in the squared norm the paper plotted), and "
                 f"for Rot's Nom and Aug (||Pi_perp A|| / ||A - A0||)^2 < {ROT_SMALL_SQUARED:g} (the shifts "
                 "orthogonal to E very small against the total shifts)")
ROT_NULL = ("Nom from other seeds in Aug's place in all three experiments (an unaugmented model: (Nom'/Nom)^2 ~ 1 "
            "everywhere, so Rot is not set apart)")


def _rot_criterion(m) -> bool:
    sq = m["aug_over_nom_squared"]
    larger = sq["rot"] >= ROT_MARGIN * max(sq["perm"], sq["trans"])
    small = all(v < ROT_SMALL_SQUARED for v in m["rot_perp_over_shift_squared"].values())
    return bool(larger and small)


def _rot_measure(finals: dict) -> dict:
    """``finals``: {experiment: {"nom": (perp, shift), "aug": (perp, shift)}} (final medians) -> the criterion's
    measurement."""
    sq = {k: (v["aug"][0] / v["nom"][0]) ** 2 for k, v in finals.items()}
    small = {s: (finals["rot"][s][0] / finals["rot"][s][1]) ** 2 for s in ("nom", "aug")}
    return {"aug_over_nom_squared": sq, "rot_perp_over_shift_squared": small,
            "rot_over_largest_other": sq["rot"] / max(sq["perm"], sq["trans"])}


def _finals(tr, strategy: str) -> tuple:
    return (_median(_final(tr, strategy, "dist_from_E")), _median(_final(tr, strategy, "dist_from_init")))


ROT_LOG10_MARGIN = math.log10(ROT_MARGIN)
ROT_LOG10_SMALL = math.log10(ROT_SMALL_SQUARED)
ROT_PART_NEAR = "(a) Rot's Aug near its Nom: (Aug/Nom)^2 10 x Perm's and Trans's"
ROT_PART_SMALL = "(b) Rot's shifts off E small against its total shifts"
ROT_CRITERION_V2 = (
    f"(a) per run i, log10 of Rot's (Aug/Nom)^2 (final ||Pi_perp A||, Aug against the Nom from the same A0) minus the "
    f"larger of Perm's and Trans's (their runs i): the 95 % interval of its mean over runs wholly above "
    f"{ROT_LOG10_MARGIN:g} (an order of magnitude in the squared norm the paper plotted); (b) per run, the larger of "
    f"Rot's Nom's and Aug's log10 (||Pi_perp A|| / ||A - A0||)^2: the 95 % interval of its mean wholly below "
    f"{ROT_LOG10_SMALL:g}")
ROT_NULL_NEAR = ("Nom from other A0s in Aug's place in all three experiments, run by run (an unaugmented model: Rot "
                 "not set apart, about 0)")
ROT_NULL_SMALL = ("the other setting: the same reading on Trans's runs (the image experiment whose Nom the paper "
                  "shows leaving E): a statistic that reads small on any trained model here would not set Rot apart")
ROT_CRITERIA = (
    Criterion(1, ROT_CRITERION, FIRST_REGISTERED),
    Criterion(2, ROT_CRITERION_V2, "2026-11-27",
              reason="v1 judged both parts together on one ratio of medians (a single draw) against one null; v2 "
                     "judges each part on its own 95 % interval over runs, each against its own null with as many "
                     "draws",
              thresholds=(("log10_margin_min", ROT_LOG10_MARGIN), ("log10_shift_ratio_max", ROT_LOG10_SMALL)),
              parts=(ROT_PART_NEAR, ROT_PART_SMALL)))


def rot_log10_margin(draw: dict) -> float:
    """log10 of Rot's (y/ref)^2 minus the larger of Perm's and Trans's (one run of each)."""
    return log10_squared_ratio(draw["rot"]) - max(log10_squared_ratio(draw["perm"]),
                                                  log10_squared_ratio(draw["trans"]))


def log10_largest_shift_off_E(draw: dict) -> float:
    """The larger over Nom and Aug of log10 (||Pi_perp A|| / ||A - A0||)^2 of one run (NaN if a run diverged)."""
    vals = []
    for perp, shift in draw.values():
        if perp is None or shift is None or not (perp > 0 and shift > 0):
            return math.nan
        vals.append(2.0 * math.log10(perp / shift))
    return max(vals)


def _shift_draws(trainer) -> list[dict]:
    """Per run: {"nom": (||Pi_perp A||, ||A - A0||), "aug": (...)} at the last step."""
    cols = {s: list(zip(_final(trainer, s, "dist_from_E"), _final(trainer, s, "dist_from_init")))
            for s in ("nom", "aug")}
    return [{s: cols[s][i] for s in cols} for i in range(trainer.R)]


@claim("dyn-rot-aug-near-nom", "dynamics", "§5.1, Fig. 1 (Rot)",
       "Rot: the Aug and Nom models are much closer to each other than in Perm and Trans, and the shifts "
       "orthogonal to E are very small compared with the total shifts.", paper_value=None,
       seconds={"quick": 37, "full": 1800}, criterion=ROT_CRITERION_V2,
       null=f"(a) {ROT_NULL_NEAR}; (b) {ROT_NULL_SMALL}", criteria=ROT_CRITERIA,
       paper_settings="quick: the lab's small Perm, Trans (8 x 8 digits) and Rot (10 x 10 shapes) presets, 3 runs "
                      "each (the paper: 30 runs, 50 epochs, L = 25, Rot on 14 x 14 shapes); full: the paper's",
       chosen_on=("the lab's small presets (lab/tasks/nordenfors_paper.py SMALL), set so the small models train in seconds "
                  "(the paper's learning rates leave them untrained); nothing chosen on the outcome (module "
                  "docstring)"))
def rot_aug_near_nom(profile) -> Outcome:
    names = ("perm", "trans", "rot")
    mains, others, rows = {}, {}, []
    for k, name in enumerate(names):
        mains[name] = _main_run(profile, name, share=(k / 4, (k + 0.8) / 4))
        others[name] = _nom_other(profile, name, share=((k + 0.8) / 4, (k + 1) / 4))
    ref = _reference_rot(profile, share=(0.75, 1.0))
    finals = {n: {s: _finals(mains[n], s) for s in ("nom", "aug")} for n in names}
    measured = _rot_measure(finals)
    null_finals = {n: {"nom": finals[n]["nom"], "aug": _finals(others[n], "nom")} for n in names}
    null_measured = _rot_measure(null_finals)
    v1_holds, v1_null = judge(_rot_criterion, measured, ROT_NULL, null_measured)
    # v2: each part per run, against its own null
    pairs = {n: _pair_draws(mains[n], "aug", mains[n]) for n in names}
    null_pairs = {n: _pair_draws(others[n], "nom", mains[n]) for n in names}
    R = min(mains[n].R for n in names)
    near = part(ROT_PART_NEAR, rot_log10_margin, [{n: pairs[n][i] for n in names} for i in range(R)],
                [{n: null_pairs[n][i] for n in names} for i in range(R)], Rule(">", ROT_LOG10_MARGIN), ROT_NULL_NEAR,
                baseline=trivial_baseline({n: main_accuracy(profile, n) for n in names}))
    small_part = part(ROT_PART_SMALL, log10_largest_shift_off_E, _shift_draws(mains["rot"]),
                      _shift_draws(mains["trans"])[:mains["rot"].R], Rule("<", ROT_LOG10_SMALL), ROT_NULL_SMALL,
                      baseline=trivial_baseline({"rot": main_accuracy(profile, "rot")}))
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds,
                   "measured": {"rot_over_largest_other": measured["rot_over_largest_other"],
                                "rot_perp_over_shift_squared": measured["rot_perp_over_shift_squared"],
                                "null_rot_over_largest_other": null_measured["rot_over_largest_other"]},
                   "why": "v1 read on the final medians over the runs (one draw per experiment), both parts together, "
                          "against Nom from other A0s in Aug's place"}}
    ref_finals = {**finals, "rot": {"nom": finals["rot"]["nom"], "aug": _finals(ref, "aug")}}
    ref_measured = _rot_measure(ref_finals)
    # the reference's tracker: Nom's ||A - A0|| from the Aug model
    tracked = {**finals, "rot": {"nom": (finals["rot"]["nom"][0], finals["rot"]["aug"][1]),
                                 "aug": finals["rot"]["aug"]}}
    tracked_measured = _rot_measure(tracked)
    for name in names:
        tr, sq = mains[name], measured["aug_over_nom_squared"][name]
        f = finals[name]
        rows.append([name, tr.config.aug_passes, tr.config.steps, tr.config.lr, f["nom"][0], f["aug"][0],
                     math.sqrt(sq), sq, (f["nom"][0] / f["nom"][1]) ** 2, (f["aug"][0] / f["aug"][1]) ** 2])
    rf = ref_finals["rot"]["aug"]
    rows.append(["rot, reference rotations", ref.config.aug_passes, ref.config.steps, ref.config.lr,
                 finals["rot"]["nom"][0], rf[0], math.sqrt(ref_measured["aug_over_nom_squared"]["rot"]),
                 ref_measured["aug_over_nom_squared"]["rot"], (finals["rot"]["nom"][0] / finals["rot"]["nom"][1]) ** 2,
                 (rf[0] / rf[1]) ** 2])
    diag = _reference_rot_drift(mains["rot"])
    if diag:
        measured["reference_code_prediction_at_A0"] = diag["reference_flattened"]
    sq = measured["aug_over_nom_squared"]
    evidence = [
        _figure1({n.capitalize(): (mains[n], {"nom_from_aug": n == "rot"}) for n in names},
                 "Figure 1: ||Pi_perp A|| against ||A - A0|| for Perm, Trans and Rot, every run faint, the mean "
                 "over runs bold"),
        {"kind": "table", "title": "(Aug/Nom)^2 per experiment (final medians) and the shifts off E against the "
                                   "total shifts",
         "columns": ["experiment", "L", "steps", "lr", "Nom ||Pi_perp A||", "Aug ||Pi_perp A||", "Aug/Nom",
                     "(Aug/Nom)^2", "Nom (||Pi_perp A||/||A-A0||)^2", "Aug (||Pi_perp A||/||A-A0||)^2"],
         "rows": rows},
        {"kind": "bar", "title": "(Aug/Nom)^2 of the final median ||Pi_perp A||", "ylabel": "(Aug/Nom)^2",
         "labels": [r[0] for r in rows], "series": {"(Aug/Nom)^2": [r[7] for r in rows]}, "logy": True},
        _spread_table([r for n in names for r in _spread_rows(n, mains[n])] + _spread_rows("rot, reference", ref)),
    ]
    if diag:
        evidence.append({"kind": "table", "title": "Rot: Aug's drift rate off E against Nom's at A0 (gradient flow)",
                         "columns": ["augmentation draws", "||Pi_perp E_g[rho(g) grad]|| / ||Pi_perp grad||"],
                         "rows": [["uniform C4 (the lab; the paper's text)", diag["uniform_C4"]],
                                  ["authors' Rotate on flattened images (§5 Rot): identity 2/5, half-turn 3/5",
                                   diag["reference_flattened"]],
                                  ["authors' Rotate on 2-D images (E.2 Rot): identity 2/5, each turn 1/5 (exactly 1/5)",
                                   diag["reference_2d"]]]})
    ref_sq = ref_measured["aug_over_nom_squared"]["rot"]
    variants = [
        {"name": "reference rotations",
         "what": "Rot's Aug trained with the authors' draws (Rotate: random.randint(0, 4), five values with 0 and 4 "
                 "the identity; on §5 Rot's flattened images the reshape is discarded, so r = 1, 2, 3 all reverse "
                 "the flattened image, a half-turn: identity 2/5, half-turn 3/5), from the same A0s; Perm and Trans "
                 "as in the main runs (Perm's torch.randperm is uniform)",
         "measured": {**ref_measured, "log10_margin_per_run": [
             rot_log10_margin({**{n: pairs[n][i] for n in names}, "rot": r})
             for i, r in enumerate(_pair_draws(ref, "aug", mains["rot"])[:R])]},
         "holds": _rot_criterion(ref_measured)},
        {"name": "Nom recorded from the Aug model",
         "what": "the authors' tracker takes Nom's ||A - A0|| from the Aug model (nonaugshunt = "
                 "tracker.change(augmodel)): Rot's Nom shift-ratio read against Aug's ||A - A0||",
         "measured": tracked_measured, "holds": _rot_criterion(tracked_measured)},
    ]
    acc = {n: dict(main_accuracy(profile, n)) for n in names}
    acc["rot"]["aug, reference rotations"] = _median(_per_run_accuracy(ref)[0]["aug"])
    small = measured["rot_perp_over_shift_squared"]
    words = [f"(Aug/Nom)^2: Perm {sq['perm']:.3g}, Trans {sq['trans']:.3g}, Rot {sq['rot']:.3g} (Rot / the larger "
             f"of the others {measured['rot_over_largest_other']:.3g}, {ROT_MARGIN:g} needed); Rot's "
             f"(||Pi_perp A|| / ||A - A0||)^2: Nom {small['nom']:.3g}, Aug {small['aug']:.3g} (below "
             f"{ROT_SMALL_SQUARED:g} needed). Nom from other seeds in Aug's place: Rot / the larger of the others "
             f"{null_measured['rot_over_largest_other']:.3g} (v1's reading, final medians). "]
    for p in (near, small_part):
        words.append(f"Part {p.name}: per run {', '.join(f'{v:.2f}' for v in p.replicates)} (mean {p.measured:.2f}, "
                     f"95 % interval [{p.interval[0]:.2f}, {p.interval[1]:.2f}]; {p.rule}); "
                     f"{'met' if p.holds else 'not met'}; its null reads "
                     f"{', '.join(f'{v:.2f}' for v in p.null_replicates)} ("
                     f"{null_words(p)}). ")
    if not near.holds:
        words.append(
            "The lab draws rotations uniformly from C4, as the paper's text says: then Aug's expected gradient at an "
            "equivariant point lies in E and only sampling noise leaves it, as in Perm and Trans, whatever the "
            "group, so nothing sets Rot apart. The authors' code does not draw uniformly: Rotate uses "
            "random.randint(0, 4) (five values, two of them the identity), and on §5 Rot's flattened images its "
            "reshape to N x N is discarded, so every other draw reverses the flattened image (a half-turn): "
            "identity 2/5, half-turn 3/5. That average is not Pi_E and leaves a systematic drift off E like Nom's"
            + (f": at A0 it keeps {diag['reference_flattened']:.2f} of Nom's drift rate off E (uniform C4: "
               f"{diag['uniform_C4']:.1g}; the table of drift rates). " if diag else ". "))
    words.append(
        f"Trained with these draws (variant 'reference rotations'), Rot's (Aug/Nom)^2 is {ref_sq:.3g} against "
        f"{sq['rot']:.3g} with uniform draws ({ref_sq / sq['rot']:.3g} times), and "
        f"{ref_measured['rot_over_largest_other']:.3g} times the larger of Perm's and Trans's. " +
        ("The variant meets the whole criterion. " if variants[0]["holds"] else
         "The variant does not meet the whole criterion: " +
         ("Rot's ratio is not ten times Perm's and Trans's" if ref_measured["rot_over_largest_other"] < ROT_MARGIN
          else "") +
         (" and " if ref_measured["rot_over_largest_other"] < ROT_MARGIN and
          max(ref_measured["rot_perp_over_shift_squared"].values()) >= ROT_SMALL_SQUARED else "") +
         ("the shifts off E are not small against the total shifts" if
          max(ref_measured["rot_perp_over_shift_squared"].values()) >= ROT_SMALL_SQUARED else "") + ". "))
    if max(small.values()) >= ROT_SMALL_SQUARED:
        words.append(f"The shifts off E are not small against the total shifts at this learning rate "
                     f"({mains['rot'].config.lr:g}): the models move far from A0 and Nom's drift off E grows with "
                     "them; the paper's 'very small' is read at its rate, where the models barely move. ")
    ra = acc["rot"]
    words.append(f"Rot's pixel accuracy (Nom {_fmt(ra['nom'])}, Aug {_fmt(ra['aug'])}, Equi {_fmt(ra['equi'])}) is read "
                 f"against {ra['chance']:.2f}, the best input-independent prediction of the paper's head (LayerNorm "
                 "over the two mask channels of a pixel, then LeakyReLU, marks exactly one mask positive at every "
                 f"pixel), not against the all-background share {ra['majority']:.2f}, which that head cannot "
                 "predict. ")
    words.append(f"Variant 'Nom recorded from the Aug model': Rot's Nom shift-ratio squared becomes "
                 f"{tracked_measured['rot_perp_over_shift_squared']['nom']:.3g} (true {small['nom']:.3g}).")
    measured = {"log10_rot_margin": near.measured, "log10_rot_shift_off_E": small_part.measured, **measured}
    return Outcome(
        measured=measured, parts=[near, small_part], history=history,
        replicates={"what": _runs_text(mains["rot"], others["rot"]) + "; Perm's and Trans's runs paired by index",
                    "claim": R, "null": R},
        paper_settings="; ".join(f"{n.capitalize()}: " + _paper_settings(profile, n, mains[n]) for n in names),
        settings={"experiments": {n: _settings(profile, n) for n in names}, "seed": profile.seed,
                  "criterion": ROT_CRITERION_V2},
        evidence=evidence, note="".join(words), criterion=ROT_CRITERION_V2, accuracy=acc, variants=variants)


# ---------------------------------------------------------------------------------------------- Table 1
#: the paper's architectures (appendix D; channel counts of the authors' code): (rep_in, rep_out, c_in, c_out)
PAPER_ARCH = {
    "perm": ("S(10)", 10, [("T(2)", "T(2)", 1, 32), ("T(2)", "Scalar", 32, 64)]),
    "trans": ("Z(14)*Z(14)", 14, [("V", "V", 1, 32), ("V", "V", 32, 32), ("V", "Scalar", 32, 32)]),
    "rot": ("C4Grid(14)", 14, [("V", "V", 1, 32), ("V", "V", 32, 32), ("V", "V", 32, 16), ("V", "V", 16, 2)]),
}


def closed_form(experiment: str, n: int, rep_in: str, rep_out: str) -> tuple[int, int] | None:
    """(dim E, dim L) of one block, from the paper's closed forms (appendix E.1): Perm (S(n) on n x n
    adjacency matrices, Maron et al.): T(2)->T(2) 15 of n^4 (n >= 4), T(2)->T(0) 2 of n^2; Trans (Z(N)^2):
    V->V the N^2 convolutions of N^4 maps, V->T(0) 1 of N^2; Rot (C4 on the N x N grid): V->V constant on
    the orbits of (pixel, pixel) pairs, (N^4 + 3)/4 for odd N (the centre pair is fixed) and N^4/4 for even N."""
    if experiment == "perm":
        return {("T(2)", "T(2)"): (15, n ** 4), ("T(2)", "Scalar"): (2, n ** 2)}.get((rep_in, rep_out))
    if experiment == "trans":
        return {("V", "V"): (n ** 2, n ** 4), ("V", "Scalar"): (1, n ** 2)}.get((rep_in, rep_out))
    if experiment == "rot":
        fixed = n % 2  # pixels fixed by the quarter and half turns
        if (rep_in, rep_out) == ("V", "V"):
            return (n ** 4 + 2 * fixed + fixed) // 4, n ** 4
        if (rep_in, rep_out) == ("V", "Scalar"):
            return (n ** 2 + 3 * fixed) // 4, n ** 2
    return None


@functools.lru_cache(maxsize=None)
def _layer_space(group_text: str, rep_in: str, rep_out: str):
    """The solver's space of one block (cached: blocks of one architecture share their reps)."""
    from ..nn.projection import LayerSpace
    from ..groups import parse_group

    return LayerSpace(parse_group(group_text), rep_in, rep_out)


def _ratio_rows(experiment, group_text, n, arch):
    """Closed form and solver dims of each block with E != L: rows and the two overall ratios."""
    rows, cf, sv, equal = [], [0, 0], [0, 0], True
    for rep_in, rep_out, c_in, c_out in arch:
        space = _layer_space(group_text, rep_in, rep_out)
        if space.trivial:
            continue
        dE, dL = space.dims(c_in, c_out)
        form = closed_form(experiment, n, rep_in, rep_out)
        fE, fL = (form[0] * c_in * c_out, form[1] * c_in * c_out) if form else (None, None)
        ok = (fE, fL) == (dE, dL)
        equal &= ok
        if form:
            cf[0] += fE
            cf[1] += fL
        sv[0] += dE
        sv[1] += dL
        rows.append([experiment, group_text, f"{c_out} x {c_in} {rep_in}->{rep_out}", fE, fL, dE, dL, ok])
    return rows, Fraction(*cf) if cf[1] else None, Fraction(*sv), equal



RELDIM_CRITERION = ("the closed forms equal the solver's dim E and dim L for every block (exact integers) and Rot's "
                    "dim E / dim L is more than 10 x Perm's and Trans's, at the paper's sizes and at the lab's paper "
                    "scale")
RELDIM_NULL = ("E = L, the unconstrained space a solver ignoring the group returns (dim E / dim L = 1 for every "
               "block)")


def _reldim_criterion(m) -> bool:
    def rot_largest(r):
        return r["rot"] > 10 * max(r["perm"], r["trans"])

    return bool(m["closed_forms_equal"] and rot_largest(m["paper_sizes"]) and rot_largest(m["lab_paper_scale"]))


RELDIM_PART_EXACT = "(a) the closed forms equal the solver"
RELDIM_PART_ROT = "(b) Rot's dim E / dim L over 10 x Perm's and Trans's"
RELDIM_EXACT_MAX = 1e-9
RELDIM_LOG10_MARGIN = 1.0
RELDIM_CRITERION_V2 = (
    "(a) per experiment and size, the largest relative difference between the closed forms' dim E and dim L and the "
    f"solver's over the blocks with E != L: below {RELDIM_EXACT_MAX:g} at every draw's interval (exact integers: 0); "
    "(b) per size (the paper's, the lab's paper scale, the lab's small scale), log10 of Rot's dim E / dim L over the "
    f"larger of Perm's and Trans's: its 95 % interval wholly above {RELDIM_LOG10_MARGIN:g} (more than 10 x)")
RELDIM_NULL_EXACT = ("the closed forms held against the solver run on another group acting on the same spaces (Perm's "
                     "S(n) closed forms against Z(n), Trans's against C4Grid(N), Rot's against Z(N) x Z(N)): a solver "
                     "whose counts did not depend on the group would agree as well")
RELDIM_NULL_ROT = ("Rot's architecture under translations Z(N) x Z(N) in Rot's place, at the same sizes: what sets Rot "
                   "apart is its architecture (every layer V -> V), not its group")
RELDIM_CRITERIA = (
    Criterion(1, RELDIM_CRITERION, FIRST_REGISTERED),
    Criterion(2, RELDIM_CRITERION_V2, "2026-11-27",
              reason="v1's null (E = L, every ratio 1) failed by construction; v2 judges the two parts apart, each "
                     "against a competing explanation read by the same statistic on at least three draws (another "
                     "group on the same spaces; Rot's architecture under translations), and adds the lab's small "
                     "scale as a third size",
              thresholds=(("relative_difference_max", RELDIM_EXACT_MAX), ("log10_margin_min", RELDIM_LOG10_MARGIN)),
              parts=(RELDIM_PART_EXACT, RELDIM_PART_ROT)))
#: the null's group per experiment, acting on the same spaces (n: nodes, or the grid's side)
RELDIM_OTHER_GROUP = {"perm": "Z({n})", "trans": "C4Grid({n})", "rot": "Z({n})*Z({n})"}


def closed_form_mismatch(draw: dict) -> float:
    """The largest relative difference between closed-form and solver dims over one architecture's blocks:
    ``draw["blocks"]`` = [(closed dim E, closed dim L, solver dim E, solver dim L), ...] (0 when they agree)."""
    worst = 0.0
    for fE, fL, dE, dL in draw["blocks"]:
        if fE is None or fL is None:
            return math.nan
        worst = max(worst, abs(fE - dE) / dE, abs(fL - dL) / dL)
    return worst


def log10_rot_over_largest_other(draw: dict) -> float:
    """log10 of Rot's dim E / dim L over the larger of Perm's and Trans's (one size)."""
    return math.log10(draw["rot"] / max(draw["perm"], draw["trans"]))


@claim("dyn-relative-dimensions", "dynamics", "appendix E.1, Table 1",
       "dim E / dim L of the layers with E != L: much larger for Rot (about 1/4) than for Perm and Trans.",
       paper_value={"perm": "15/n^4 and 2/n^2 per block (n = 10)", "trans": "N^2/N^4 and 1/N^2 per block",
                    "rot": "1/4"}, seconds={"quick": 1, "full": 30}, criterion=RELDIM_CRITERION_V2,
       null=f"(a) {RELDIM_NULL_EXACT}; (b) {RELDIM_NULL_ROT}", criteria=RELDIM_CRITERIA,
       paper_settings="exact dimension counts at the paper's sizes (the authors' code: Perm n = 10 with 32 and 64 "
                      "channels, Trans and Rot N = 14) and at the lab's paper and small scales; nothing is trained",
       chosen_on=("nothing trained or tuned: exact dimension counts at the paper's sizes (the authors' code) and at "
                  "the lab's paper and small scales"))
def relative_dimensions(profile) -> Outcome:
    from ..tasks.nordenfors import build
    from ..nn.batched import BatchedMLP

    rows, table, equal = [], [], True
    exact_draws, exact_null, ratio_draws, ratio_null = [], [], [], []
    sizes, null_rows = {}, []

    def blocks(r):
        return {"blocks": [(x[3], x[4], x[5], x[6]) for x in r]}

    def null_for(name, n, arch):
        """(the closed forms against another group's solver; Rot's architecture under translations: its ratio)"""
        other = RELDIM_OTHER_GROUP[name].format(n=n)
        r, _, sv, _ = _ratio_rows(name, other, n, arch)
        null_rows.extend([[x[0], other, *x[2:]] for x in r])
        return blocks(r), float(sv)

    # 1. the paper's own sizes (appendix D / the authors' code)
    for k, (name, (group, n, arch)) in enumerate(PAPER_ARCH.items()):
        r, cf, sv, ok = _ratio_rows(name, group, n, arch)
        rows += r
        equal &= ok and cf == sv
        table.append([name, "paper (authors' sizes)", group, float(cf), float(sv), cf == sv])
        sizes[name] = float(sv)
        exact_draws.append(blocks(r))
        nb, nsv = null_for(name, n, arch)
        exact_null.append(nb)
        if name == "rot":
            ratio_null.append({**sizes, "rot": nsv})
        profile.progress((k + 1) / 9, f"{name}: paper sizes")
        profile.checkpoint()
    ratio_draws.append(dict(sizes))
    # 2. the lab's architectures at its paper and small scales: the trainer's own layer dims, few data
    tiny = {"perm": {"graphs": 4}, "trans": {"images": 20}, "rot": {"images": 4}}
    lab_ratio = {}
    for j, scale in enumerate(("paper", "small")):
        ratios = {}
        for k, name in enumerate(("perm", "trans", "rot")):
            exp = build(name, scale, profile.seed, **tiny[name])
            model = BatchedMLP(exp.group, exp.specs)
            dims = model.dims()
            eq = [d for d, sp in zip(dims, model.spaces) if not sp.trivial]
            sv = Fraction(sum(d[0] for d in eq), sum(d[1] for d in eq))
            n = exp.group.d if name == "perm" else math.isqrt(exp.group.d)
            arch = [(s.rep_in, s.rep_out, s.c_in, s.c_out) for s in exp.specs]
            r, cf, sv2, ok = _ratio_rows(name, str(exp.group), n, arch)
            rows += r
            equal &= ok and cf == sv and sv == sv2
            ratios[name] = float(sv)
            table.append([name, f"lab {scale} scale", str(exp.group), float(cf), float(sv), cf == sv])
            exact_draws.append(blocks(r))
            nb, nsv = null_for(name, n, arch)
            exact_null.append(nb)
            if name == "rot":
                ratio_null.append({**ratios, "rot": nsv})
            profile.progress((3 * j + k + 4) / 9, f"{name}: lab {scale} scale")
            profile.checkpoint()
        ratio_draws.append(ratios)
        if scale == "paper":
            lab_ratio = ratios
    exact = part(RELDIM_PART_EXACT, closed_form_mismatch, exact_draws, exact_null, Rule("<", RELDIM_EXACT_MAX),
                 RELDIM_NULL_EXACT, exact=True)
    apart = part(RELDIM_PART_ROT, log10_rot_over_largest_other, ratio_draws, ratio_null,
                 Rule(">", RELDIM_LOG10_MARGIN), RELDIM_NULL_ROT)
    measured = {"paper_sizes": sizes, "lab_paper_scale": lab_ratio, "lab_small_scale": ratio_draws[2],
                "closed_forms_equal": bool(equal), "log10_rot_over_largest_other": apart.replicates}
    # v1, as registered: the criterion on the measurement, its null E = L (every ratio 1)
    v1_null_measured = {"paper_sizes": dict.fromkeys(sizes, 1.0), "lab_paper_scale": dict.fromkeys(lab_ratio, 1.0),
                        "closed_forms_equal": all((r[3], r[4]) == (r[6], r[6]) for r in rows)}
    v1_holds, v1_null = judge(_reldim_criterion, measured, RELDIM_NULL, v1_null_measured)
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds,
                   "measured": {k: measured[k] for k in ("paper_sizes", "lab_paper_scale", "closed_forms_equal")},
                   "why": "v1 read on the paper's sizes and the lab's paper scale, against E = L (every ratio 1)"}}
    note = ("Closed forms written here from the paper's appendix E.1 (Maron et al.'s 15 and 2 for S(n), N^2 "
            "convolutions, orbits of 4) and compared with the lab's solver ranks. Paper sizes follow the authors' "
            "code (Perm n = 10 with 32 and 64 channels; Trans and Rot N = 14; the paper's text lost the numbers); "
            "the lab's scales use their own data sizes (Trans on the 8 x 8 digits unless MNIST is given). "
            f"Part {exact.name}: the largest relative difference is {max(exact.replicates):.3g} over the "
            f"{len(exact.replicates)} (experiment, size) draws; held against another group's solver on the same "
            f"spaces it reads {', '.join(f'{v:.3g}' for v in exact.null_replicates)} "
            + (f"({null_words(exact)}: the solver does not tell the groups apart). " if exact.null_holds else
               f"({null_words(exact)}: the agreement is specific to the group). ") +
            f"Part {apart.name}: log10 of Rot's ratio over the larger of the others is "
            f"{', '.join(f'{v:.2f}' for v in apart.replicates)} at the paper's, the lab's paper and small sizes; with "
            f"Rot's architecture under translations in Rot's place, "
            f"{', '.join(f'{v:.2f}' for v in apart.null_replicates)} "
            + (f"({null_words(apart)}: its architecture alone sets Rot apart)." if apart.null_holds else
               f"({null_words(apart)}: the group, not the architecture, sets Rot apart)."))
    return Outcome(
        measured=measured, parts=[exact, apart], history=history,
        replicates={"what": "3 experiments x 3 sizes (exact counts; the null: another group on the same spaces)",
                    "claim": len(exact.replicates), "null": len(exact.null_replicates)},
        settings={"paper_architectures": {k: {"group": g, "layers": [list(a) for a in arch]}
                                          for k, (g, n, arch) in PAPER_ARCH.items()},
                  "null_groups": RELDIM_OTHER_GROUP, "criterion": RELDIM_CRITERION_V2},
        evidence=[{"kind": "table", "title": "dim E / dim L (layers with E != L)",
                   "columns": ["experiment", "sizes", "group", "closed form", "solver", "equal"], "rows": table},
                  {"kind": "table", "title": "Per block: closed form against the solver",
                   "columns": ["experiment", "group", "block", "closed dim E", "closed dim L", "solver dim E",
                               "solver dim L", "equal"], "rows": rows},
                  {"kind": "table", "title": "The null of (a): each experiment's closed forms against the solver "
                                             "under another group on the same spaces",
                   "columns": ["closed forms of", "solver's group", "block", "closed dim E", "closed dim L",
                               "solver dim E", "solver dim L", "equal"], "rows": null_rows}],
        note=note, criterion=RELDIM_CRITERION_V2)


# ---------------------------------------------------------------------------------------------- E.2
def _e2_closed(setting: str, n: int):
    """(dim E, dim L) per channel pair of the Trans architecture's blocks (V->V, V->T(0)) under the E.2 groups
    on the n x n grid, n even (appendix E.2.1; TransRot's filters constant on the C4 orbits of the torus counted
    by Burnside: (n^2 + 2 + 4 + 2) / 4)."""
    return {"Trans": ((n ** 2, n ** 4), (1, n ** 2)),
            "Rot": ((n ** 4 // 4, n ** 4), (n ** 2 // 4, n ** 2)),
            "OneDTrans": ((n ** 3, n ** 4), (n, n ** 2)),
            "TransRot": (((n ** 2 + 8) // 4, n ** 4), (1, n ** 2))}[setting]


def _e2_closed_ratio(setting: str, n: int, seed: int, scale: str, group: str) -> Fraction | None:
    """dim E / dim L of the lab's Trans architecture (its channel counts) from the closed forms."""
    from ..tasks.nordenfors import build

    if n % 2:
        return None
    try:
        specs = build("trans", scale, seed, group=group, images=20).specs
    except Exception:  # noqa: BLE001 -- e.g. a grid the bundled digits do not have: no closed-form row
        return None
    (vE, vL), (iE, iL) = _e2_closed(setting, n)
    num = den = 0
    for s in specs:
        pair = s.c_in * s.c_out
        if (s.rep_in, s.rep_out) == ("V", "V"):
            num, den = num + vE * pair, den + vL * pair
        elif (s.rep_in, s.rep_out) == ("V", "Scalar"):
            num, den = num + iE * pair, den + iL * pair
    return Fraction(num, den) if den else None




E2_CRITERION = ("the four settings sorted by (Aug/Nom)^2 of the final median ||Pi_perp A|| (largest first) are Rot, "
                "OneDTrans, Trans, TransRot")
E2_NULL = ("the same ranking with an unaugmented run in Aug's place: (Nom of the first run / median Nom of the other "
           "runs)^2 per group, which ranks the groups by run-to-run noise; a uniformly random ranking of four "
           "matches with probability 1/24")


def _e2_settings(profile) -> tuple[dict, int | None]:
    """(settings, images) of the E.2 trainings: the paper's (full) or the small Trans preset on 125 digits
    (quick)."""
    from ..tasks.nordenfors_paper import setting

    if profile.full:
        return dict(scale="paper", **FULL, lr=setting("e2", "paper", "lr"),
                    lr_source="the authors' code (train_different_groups.py)"), None
    return dict(scale="small", runs=E2_QUICK["runs"], steps=setting("e2", "small", "steps"),
                aug_passes=setting("e2", "small", "aug_passes"), lr=setting("e2", "small", "lr"),
                lr_source="the lab's small Trans preset (lab/tasks/nordenfors_paper.py)", lr_note=QUICK_LR_NOTE), \
        E2_QUICK["images"]


def _e2_order(ratios: dict) -> list:
    return sorted(ratios, key=lambda s: -ratios[s])


def _e2_criterion(order) -> bool:
    return tuple(order) == E2_ORDER


E2_TAU_MIN = 0.5
E2_PART = "the order of (Aug/Nom)^2 follows the paper's"
E2_CRITERION_V2 = (
    "per run (its own A0 and augmentation draws; run i of each group's training), Kendall's tau between the "
    "order of (Aug/Nom)^2 of the final ||Pi_perp A|| (Aug against the Nom from the same A0) over the four groups and "
    f"the paper's order {' > '.join(E2_ORDER)}: the 95 % interval of its mean over runs wholly above {E2_TAU_MIN:g} "
    "(at most about one of the six pairs swapped: the paper itself notes that Trans and TransRot differ little)")
E2_NULL_V2 = ("Nom from other A0s (run ids R..2R-1) in Aug's place, run by run against the same Nom: the order of "
              "(Nom'/Nom)^2 over the groups, what run-to-run noise ranks")
E2_CRITERIA = (
    Criterion(1, E2_CRITERION, FIRST_REGISTERED),
    Criterion(2, E2_CRITERION_V2, "2026-11-27",
              reason="v1 read one order of the medians over 3 runs (a single draw) against a null from one run; v2 "
                     "reads the order per run as Kendall's tau with the paper's, on a 95 % interval over the runs, "
                     "against Nom from other A0s with as many draws",
              thresholds=(("kendall_tau_min", E2_TAU_MIN),), parts=(E2_PART,)))


def kendall_tau_with_paper_order(draw: dict) -> float:
    """Kendall's tau between the groups ranked by log10 (y/ref)^2 of one run and the paper's order ``E2_ORDER``
    (largest first): 1 for the paper's order, -1 for its reverse (ties count 0); NaN if a run diverged."""
    vals = {g: log10_squared_ratio(draw[g]) for g in E2_ORDER}
    if any(math.isnan(v) for v in vals.values()):
        return math.nan
    score, pairs = 0, 0
    for i, a in enumerate(E2_ORDER):
        for b in E2_ORDER[i + 1:]:  # the paper expects a above b
            d = vals[a] - vals[b]
            score += (d > 0) - (d < 0)
            pairs += 1
    return score / pairs


@claim("dyn-e2-ordering", "dynamics", "appendix E.2, Fig. 6",
       "Same Trans architecture and data under four groups: the relative drift of Aug from E (against Nom) is "
       "largest for Rot, then OneDTrans, Trans and TransRot, in the order of dim E / dim L.",
       paper_value="Rot > OneDTrans > Trans > TransRot", seconds={"quick": 91, "full": 3600},
       criterion=E2_CRITERION_V2, null=E2_NULL_V2, criteria=E2_CRITERIA,
       paper_settings="quick: the small Trans preset on 125 8 x 8 digits, 3 runs per group (the paper: MNIST 14 x 14, "
                      "30 runs, 50 epochs, L = 25, lr 5e-5); full: the paper's",
       chosen_on=("the lab's small Trans preset (lab/tasks/nordenfors_paper.py SMALL) on 125 digits, set for training "
                  "speed; nothing chosen on the outcome (module docstring)"))
def e2_ordering(profile) -> Outcome:
    from ..tasks.nordenfors import reldim_groups

    n = 14 if profile.data else 8  # MNIST resized to 14 x 14, else the 8 x 8 digits
    groups = reldim_groups(n)
    settings, images = _e2_settings(profile)
    options = {"images": images} if images else {}
    weights = {"main": 1 + settings["aug_passes"], "ref": settings["aug_passes"], "other": 1}
    total = len(groups) * sum(weights.values())
    done = [0.0]

    def run(kind, setting, group, **more):
        lo = done[0] / total
        done[0] += weights[kind]
        return profile.memo(("dyn-e2", kind, setting), lambda: _train(
            profile, "trans", settings, group=group, options=options, share=(lo, done[0] / total),
            label=f"E.2 {setting} ({kind})", **more), label=f"E.2 {setting}: " + {
                "main": "Nom and Aug", "ref": "Aug with the reference's draws",
                "other": "Nom from other A0s"}[kind])

    trainers = {}
    for setting, group in groups.items():
        main = run("main", setting, group, strategies=("nom", "aug"))
        other = run("other", setting, group, strategies=("nom",), run_ids=_other_seeds(settings["runs"]))
        trainers[setting] = (main, other, run("ref", setting, group, strategies=("aug",), draws="reference"))
    ratio, null_ratio, ref_ratio, rows, dims_rows = {}, {}, {}, [], []
    for setting, (main, other, ref) in trainers.items():
        noms = _final(main, "nom", "dist_from_E")
        nom = _median(noms)
        aug = _median(_final(main, "aug", "dist_from_E"))
        aug_ref = _median(_final(ref, "aug", "dist_from_E"))
        ratio[setting], ref_ratio[setting] = (aug / nom) ** 2, (aug_ref / nom) ** 2
        null_ratio[setting] = (noms[0] / _median(noms[1:])) ** 2  # v1's null: Nom's first run against its others
        rows.append([setting, groups[setting], main.dim_ratio, nom, aug, ratio[setting], aug_ref, ref_ratio[setting],
                     (_median(_final(other, "nom", "dist_from_E")) / nom) ** 2])
        closed = _e2_closed_ratio(setting, n, profile.seed, settings["scale"], groups[setting])
        dims_rows.append([setting, groups[setting], None if closed is None else float(closed), main.dim_ratio,
                          closed is not None and abs(float(closed) - main.dim_ratio) <= 1e-12])
    order, null_order, ref_order = _e2_order(ratio), _e2_order(null_ratio), _e2_order(ref_ratio)
    v1_holds, v1_null = judge(_e2_criterion, order, E2_NULL, null_order)
    ref_holds = _e2_criterion(ref_order)
    # v2: per run i, the four groups' (Aug/Nom)^2 ranked against the paper's order; the null: Nom from other A0s
    R = min(t[0].R for t in trainers.values())
    pairs = {g: _pair_draws(t[0], "aug", t[0]) for g, t in trainers.items()}
    null_pairs = {g: _pair_draws(t[1], "nom", t[0]) for g, t in trainers.items()}
    ref_pairs = {g: _pair_draws(t[2], "aug", t[0]) for g, t in trainers.items()}
    acc = {s: _accuracy(t[0], extra={"aug, reference draws": (t[2], "aug")}) for s, t in trainers.items()}
    the_part = part(E2_PART, kendall_tau_with_paper_order, [{g: pairs[g][i] for g in groups} for i in range(R)],
                    [{g: null_pairs[g][i] for g in groups} for i in range(R)], Rule(">", E2_TAU_MIN), E2_NULL_V2,
                    baseline=trivial_baseline(acc))
    holds = the_part.holds
    ref_taus = [kendall_tau_with_paper_order({g: ref_pairs[g][i] for g in groups}) for i in range(R)]
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds,
                   "measured": {"order": order, "null_order": null_order},
                   "why": "v1 read on the order of the final medians over the runs (one draw); its null: Nom's "
                          "first run against the median of its others"}}
    labels = list(groups)
    evidence = [
        {"kind": "table", "title": "Appendix E.2: the Trans architecture under four groups (final medians)",
         "columns": ["setting", "group", "dim E / dim L", "Nom ||Pi_perp A||", "Aug ||Pi_perp A||", "(Aug/Nom)^2",
                     "Aug ||Pi_perp A||, reference draws", "(Aug/Nom)^2, reference draws",
                     "(Nom run 0 / Nom other runs)^2 (the null)"], "rows": rows},
        {"kind": "bar", "title": "(Aug/Nom)^2 per group, uniform and reference draws, beside dim E / dim L",
         "ylabel": "value", "labels": labels,
         "series": {"(Aug/Nom)^2, uniform draws": [ratio[s] for s in labels],
                    "(Aug/Nom)^2, reference draws": [ref_ratio[s] for s in labels],
                    "dim E / dim L": [trainers[s][0].dim_ratio for s in labels]}, "logy": True},
        {"kind": "trajectories", "title": "E.2 (Fig. 6): ||Pi_perp A|| against ||A - A0|| per group, every run faint, "
                                          "the mean over runs bold",
         "xlabel": "||A - A0||", "ylabel": "||Pi_perp A||", "logx": False, "logy": False,
         "panels": {s: {"nom": _trajectory(t[0], "nom"), "aug": _trajectory(t[0], "aug"),
                        "aug, reference draws": _trajectory(t[2], "aug")} for s, t in trainers.items()}},
        {"kind": "table", "title": "dim E / dim L: closed form (Burnside counts) against the solver",
         "columns": ["setting", "group", "closed form", "solver", "equal"], "rows": dims_rows},
        _spread_table([r for s, t in trainers.items() for r in _spread_rows(s, t[0]) + _spread_rows(
            f"{s}, reference draws", t[2])]),
    ]
    variants = [{"name": "reference draws",
                 "what": "Aug with the authors' draws (random.randint(0, n) per cyclic factor, n + 1 values with 0 "
                         "and n the identity: Shift, Xshift, Rotate on the 2-D images, RotoShift), from the same A0s",
                 "measured": {"order": ref_order, "aug_over_nom_squared": ref_ratio, "kendall_tau_per_run": ref_taus},
                 "holds": ref_holds}]
    tr_sq, trr_sq = ratio.get("Trans"), ratio.get("TransRot")
    lo, hi = the_part.interval
    note = (f"Per run, Kendall's tau with the paper's order: {', '.join(f'{v:.2f}' for v in the_part.replicates)} "
            f"(mean {the_part.measured:.2f}, 95 % interval [{lo:.2f}, {hi:.2f}], to lie wholly above {E2_TAU_MIN:g}): "
            + ("met. " if holds else "not met. ") +
            f"Nom from other A0s in Aug's place reads {', '.join(f'{v:.2f}' for v in the_part.null_replicates)} ("
            + f"{null_words(the_part)}). " +
            f"The order of the final medians (v1's reading) is {' > '.join(order)} against the paper's "
            f"{' > '.join(E2_ORDER)}. "
            "With uniform draws (the paper's text) Aug's expected gradient at an equivariant point lies in E and its "
            "drift off E is sampling noise: (Aug/Nom)^2 ~ c / (L x batches x steps) with c of order one for every "
            "group (the identity E_g ||Pi_perp rho(g) G||^2 = ||Pi_perp G||^2 does not involve dim E), so the "
            f"order is set by run-to-run noise ({settings['runs']} runs). The authors' draws are biased to the "
            "identity: random.randint(0, n) has n + 1 values and both 0 and n are the identity, so a cyclic factor "
            "of order n keeps 1/(n + 1) of Nom's systematic drift rate off E (Rot, C4 on 2-D images: 1/5; "
            "OneDTrans: 1/(N + 1)), and Trans and TransRot keep less (products of two or three such factors), the "
            "paper's order. Trained with these draws (variant 'reference draws'), the order of the medians is "
            f"{' > '.join(ref_order)}: " + ("the paper's order appears" if ref_holds else
                                            "not the paper's order at these settings") +
            f" (Kendall's tau per run {', '.join(f'{v:.2f}' for v in ref_taus)}). " +
            (f"Trans and TransRot: (Aug/Nom)^2 {tr_sq:.3g} against {trr_sq:.3g}; the paper remarks that these two "
             "differ little although their relative dimensions differ by a factor of about 4." if tr_sq and trr_sq
             else ""))
    first = next(iter(trainers.values()))
    return Outcome(
        measured={"kendall_tau": the_part.measured, "order": order, "aug_over_nom_squared": ratio},
        settings={**settings, "images": images or "paper", "strategies": ["nom", "aug"], "groups": groups,
                  "seed": profile.seed, "null_run_ids": list(first[1].run_ids), "criterion": E2_CRITERION_V2},
        evidence=evidence, note=note, criterion=E2_CRITERION_V2, accuracy=acc, variants=variants,
        parts=[the_part], history=history,
        replicates={"what": _runs_text(first[0], first[1]) + ", per group", "claim": R, "null": R},
        paper_settings=("the four groups on " + _paper_settings(profile, "e2", first[0])))
