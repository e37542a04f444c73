"""Claims of the MSR report (meta-learning symmetries with sparse reparametrization): Table I, §III.A, Figs. 2-3.

Every claim trains Zhou et al.'s meta-learner (``lab.sharing.msr``, their code's defaults: 1 support / 19 query
samples, 32 tasks per meta-batch, Adam 1e-3, 1000 outer steps, U ~ N(0, 0.01²), v0 ~ N(0, (1/n_out)²), learned
inner lr from 0.1) at every λ of a small grid, λ = 0 included, and picks λ on **meta-validation** tasks; the
meta-test tasks only report.  The report does not state its λ.

Replicates.  Every run is repeated at the profile's replicate seeds (the seed draws the task family's mixing M, the
training, validation and test tasks, the initialisation and the meta-batches), and every criterion is a part judged
on the 95 % interval of its statistic over the seeds (``lab.reproduce.stats``), against a null read by the same
statistic: group sparsity at a λ where it acts, a magnitude-pruned U at matched sparsity, a reseeded 20-task twin,
no sparsity.  All the runs of one (rank, kernel, tasks) setting -- every seed, every λ of both regularisers, the
reseeded twins -- are trained side by side in one stacked optimisation (``lab.sharing.msr.meta_learn_batch``, each
run as ``meta_learn`` would train it alone), shared by every claim that reads them.

Group sparsity.  At the exclusive grid's λ the group prox (eq. 6) shrinks a group's l2 norm by λ s, against about
λ s |u_g|_1 sqrt(m) for the exclusive prox (eq. 7): it leaves U as it is (the runs of criterion version 1).  Its λ
grid is therefore the exclusive grid's values times ``group_scale`` (the factor that matches the two shrinkages at
initialisation), where it acts; the report states neither λ.

Profiles.  ``full``: the report's settings — 70 inputs (Zhou et al.), the five rank/kernel settings, 20/50/100/1000
meta-training tasks, 300 validation and 300 test tasks, exclusive λ ∈ {0, 0.01, 0.03, 0.1, 0.3, 1}, 3 seeds.
``quick`` (CI): the five settings with 20 tasks (and the four with a 1000-task entry in Table I at 1000 tasks) on 30
inputs, 100 validation and 100 test tasks, exclusive λ ∈ {0, 0.03, 0.1}, 3 seeds; the optimiser settings are the
full ones.
"""
from __future__ import annotations

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, extends, paper_reading
from ..reproduce.stats import MSE_BASELINE_MARGIN, Rule, mse_baseline, part

#: the report's Table I (test losses), 20 meta-training tasks: (rank, kernel) -> (without, with exclusive sparsity)
PAPER_20 = {(1, 3): (0.675, 0.322), (2, 3): (0.919, 0.515), (5, 3): (1.364, 0.611), (2, 5): (3.146, 2.26),
            (5, 5): (1.814, 1.204)}
#: Table I, every task count: (rank, kernel, tasks) -> (without, with); rank 5 kernel 3 has no 1000-task entry
PAPER_TABLE = {
    (1, 3, 20): (0.675, 0.322), (1, 3, 50): (0.297, 1.816), (1, 3, 100): (0.342, 0.452), (1, 3, 1000): (0.294, 0.263),
    (2, 3, 20): (0.919, 0.515), (2, 3, 50): (0.471, 0.543), (2, 3, 100): (0.67, 0.671), (2, 3, 1000): (0.409, 0.596),
    (5, 3, 20): (1.364, 0.611), (5, 3, 50): (0.909, 0.5), (5, 3, 100): (0.389, 0.416),
    (2, 5, 20): (3.146, 2.26), (2, 5, 50): (1.957, 1.413), (2, 5, 100): (0.976, 0.916), (2, 5, 1000): (1.08, 1.244),
    (5, 5, 20): (1.814, 1.204), (5, 5, 50): (1.397, 0.895), (5, 5, 100): (1.096, 0.764), (5, 5, 1000): (0.628, 0.669)}
SETTINGS = ((1, 3), (2, 3), (5, 3), (2, 5), (5, 5))  # (rank, kernel), the report's order
#: the report's Figs. 2-3: (rank, kernel, tasks)
FIGURE_SETTINGS = ((1, 3, 20), (2, 5, 50), (5, 5, 50))
SMALL = 1e-3  # "near zero": below this fraction of the largest |U|
#: the settings of Table I with a 1000-task entry (msr-benefit-fades scores these)
FADE_SETTINGS = ((1, 3), (2, 3), (2, 5), (5, 5))
#: msr-benefit-grows-with-complexity: the simplest and the most complex problem of Table I (rank, kernel)
SIMPLE, COMPLEX = (1, 3), (5, 5)
#: msr-sparsity-few-tasks: the reduction of the meta-test loss (%) every setting must reach: Table I's smallest at 20
#: tasks (rank 2 kernel 5: 3.146 -> 2.26, -28.2 %)
REDUCTION = 28.0
#: msr-sparser-U: the least gain in band share (the fraction of max-|U| on the true band) with exclusive sparsity
BAND_MARGIN = 0.1
#: msr-benefit-fades: the least rise (percentage points) of the mean change from 20 to 1000 tasks (Table I: 53.7)
FADE_MARGIN = 10.0
#: msr-exclusive-vs-group: how much lower (%) exclusive sparsity's test loss must be than group sparsity's
GROUP_MARGIN = 10.0
#: the reseeded twins' seeds: the replicate seeds plus this (a fresh family, fresh tasks, a fresh initialisation)
TWIN = 1000
#: the date the criteria of issue 46 (parts on replicates, nulls with teeth) were declared
REVISED = "2026-11-27"
#: the later version of every MSR claim (issue 62): the trivial baseline in the verdict
BASELINE_DATE = "2026-12-02"
BASELINE_TEXT = (f"  The unregularised MSR runs must beat predicting zero (the targets' mean) on their test tasks: "
                 f"test loss at most {MSE_BASELINE_MARGIN:g} of its, mean over the runs read, else the part has no "
                 f"power.")
BASELINE_REASON = ("issue 62: the trivial baseline in every learned claim: changes in the test loss of meta-learners "
                   "that explain nothing of the tasks compare nothing")

#: the later version of every MSR claim: its last one with the trivial baseline added
BASELINE_VERSION = extends(BASELINE_TEXT, BASELINE_DATE, BASELINE_REASON)


def msr_baseline(choices) -> dict:
    """``part``'s ``baseline``: the unregularised run (lambda = 0) of every ``LambdaChoice`` read, its test loss
    against predicting zero on the same test tasks (``lab.sharing.msr.zero_prediction_loss``)."""
    from .msr import zero_prediction_loss

    runs = [c.results[0.0] for c in choices]
    return mse_baseline([r.test_loss for r in runs], [zero_prediction_loss(r.settings) for r in runs],
                        "predicting zero, the targets' mean", "the unregularised MSR's", quantity="test loss")
#: how the quick settings were chosen (every claim of the report)
CHOSEN_ON = ("the report's settings and Zhou et al.'s optimiser, scaled down for time (30 inputs, lambda grid 0, 0.03, "
             "0.1, 100 validation and 100 test tasks); lambda picked per run on meta-validation tasks; not tuned on "
             "outcomes (no record of tuning)")

# the criteria as first registered (kept verbatim: version 1 of each claim)
FEW_V1 = (f"with 20 meta-training tasks, the meta-test loss at the lambda picked on meta-validation tasks is "
          f"at least {REDUCTION:g} % below the loss at lambda = 0 in every setting (Table I's smallest "
          "reduction)")
SPARSER_V1 = (f"in every setting of Figs. 2-3, the share of the max-|U| picture on the true locally connected "
              f"band is at least {BAND_MARGIN:g} higher with exclusive sparsity than without")
FADES_V1 = (f"the mean relative change of the meta-test loss at 1000 meta-training tasks is at least "
            f"{FADE_MARGIN:g} percentage points above the mean change at 20 tasks (lambda picked on "
            "validation tasks at each count)")
GROUP_V1 = (f"with 20 meta-training tasks and lambda picked on validation tasks for each regulariser, the "
            f"meta-test loss with exclusive sparsity is at least {GROUP_MARGIN:g} % below the loss with group "
            "sparsity in every setting")

FEW_V2 = (f"(a) reduction: per seed, the largest (least negative) change of the 20-task meta-test loss over the "
          f"settings, at the exclusive lambda picked on meta-validation tasks (0 included) against lambda = 0; the "
          "95 % "
          f"interval of its mean over the seeds lies below -{REDUCTION:g} %; null: group sparsity at lambdas where it "
          "acts (the exclusive grid times group_scale), picked the same way, read by the same statistic")
SPARSER_V2 = (f"(a) band gain: per seed, the smallest gain over the settings of Figs. 2-3 in the share of the max-|U| "
              "picture on the true locally connected band, the U learned with exclusive sparsity (nonzero lambda "
              "picked on meta-validation tasks) against the U learned without; the 95 % interval of its mean over the "
              f"seeds lies above {BAND_MARGIN:g}; null: the U learned with group sparsity at its nonzero lambda "
              "picked on meta-validation tasks, on lambdas where it acts, in place of the exclusive U")
FADES_V2 = ("(a) fade: per seed, the mean change of the meta-test loss (lambda picked on meta-validation tasks at "
            "each "
            f"count) over the settings with a 1000-task entry in Table I, at 1000 tasks minus at 20 tasks; the 95 % "
            f"interval of its mean over the seeds lies above {FADE_MARGIN:g} percentage points; null: a reseeded "
            "20-task twin (fresh family, tasks and initialisation) in place of the 1000-task run, read by the same "
            "statistic")
GROUP_V2 = (f"(a) exclusive below group: per seed, the largest change over the settings of the 20-task meta-test loss "
            f"with exclusive sparsity against group sparsity, each at its nonzero lambda picked on meta-validation "
            f"tasks, group sparsity on lambdas where it acts (the exclusive grid times group_scale); the 95 % interval "
            f"of its mean over the seeds lies below -{GROUP_MARGIN:g} %; null: no sparsity (lambda = 0) in place of "
            "exclusive sparsity, read by the same statistic")
COMPLEXITY_V1 = ("(a) larger benefit when more complex: per seed, the change (%) of the 20-task meta-test loss at the "
                 "exclusive lambda picked on meta-validation tasks (0 included) against lambda = 0, at rank 5 kernel 5 "
                 "minus at rank 1 kernel 3; the 95 % interval of its mean over the seeds lies below 0; null: a "
                 "reseeded rank 1 kernel 3 twin (fresh family, tasks and initialisation) in place of rank 5 kernel 5, "
                 "read by the same statistic")
#: msr-benefit-grows-with-complexity v2: the least gain (loss units) of the absolute reduction, complex over simple
COMPLEXITY_GAIN = 0.0
COMPLEXITY_V2 = ("(a) larger reduction when more complex: per seed, the reduction of the 20-task meta-test loss (the "
                 "loss at lambda = 0 minus the loss at the exclusive lambda picked on meta-validation tasks, 0 "
                 "included), at rank 5 kernel 5 minus at rank 1 kernel 3; the 95 % interval of its mean over the "
                 f"seeds lies above {COMPLEXITY_GAIN:g}; null: a reseeded rank 1 kernel 3 twin (fresh family, tasks "
                 "and initialisation) in place of rank 5 kernel 5, read by the same statistic")
COMPLEXITY_V2_REASON = ("v1 read the relative change (%), and the report's own Table I fails it (20 tasks: -33.6 % at "
                        "rank 5 kernel 5 against -52.3 % at rank 1 kernel 3, a difference of +18.7 points, not below "
                        "0); v2 reads the absolute reduction of the test loss, which Table I meets (0.610 at rank 5 "
                        "kernel 5 against 0.353 at rank 1 kernel 3: +0.257).  The report does not say which it "
                        "means; an absolute reduction also grows with the unregularised loss's own scale (larger on "
                        "the harder problems), which the null (a reseeded simple twin) does not separate")


def _plan(profile) -> dict:
    return profile.pick(
        quick={"n_in": 30, "grid": (0.0, 0.03, 0.1), "group_factors": (0.03, 0.1), "val_tasks": 100,
               "test_tasks": 100, "task_counts": (20, 1000), "fade_settings": FADE_SETTINGS,
               "v1_group_grid": (0.03, 0.1),
               "figure_settings": tuple((r, k, 20) for r, k, _ in FIGURE_SETTINGS)},
        full={"n_in": 70, "grid": (0.0, 0.01, 0.03, 0.1, 0.3, 1.0), "group_factors": (0.01, 0.03, 0.1, 0.3),
              "val_tasks": 300, "test_tasks": 300, "task_counts": (20, 50, 100, 1000), "fade_settings": SETTINGS,
              "v1_group_grid": (0.01, 0.03, 0.1, 0.3, 1.0), "figure_settings": FIGURE_SETTINGS})


def _seeds(profile) -> list:
    return profile.seeds(quick=3, full=3)


def _twins(profile) -> list:
    return [s + TWIN for s in _seeds(profile)]


def _common(profile) -> dict:
    """The meta-learning settings both profiles share (Zhou et al.'s)."""
    return {"steps": 1000, "meta_batch": 32, "outer_lr": 1e-3, "inner_lr": 0.1, "inner_steps": 1, "support": 1,
            "prox": "report", "samples": 20, "dtype": profile.dtype or "float32", "device": profile.device}


def group_scale(n_out: int, latent: int, std: float = 0.01) -> float:
    """The factor that makes group sparsity's prox (eq. 6) shrink a group's l2 norm at initialisation as much as
    the exclusive prox (eq. 7) at the same lambda: eq. 6 shrinks it by lambda s, eq. 7 lowers each of the group's
    m = n_out * latent entries by lambda s |u_g|_1, about lambda s |u_g|_1 sqrt(m) on the norm; with U ~ N(0, std^2),
    E|u_g|_1 = m std sqrt(2/pi).

    >>> round(group_scale(28, 3), 1)
    6.1
    """
    import math

    m = n_out * latent
    return std * math.sqrt(2 / math.pi) * m ** 1.5


def _name(rank: int, kernel: int) -> str:
    return f"rank{rank} kernel{kernel}"


def _latent(rank, kernel):
    from .msr import latent_size

    return latent_size(rank, kernel)


def _group_grid(profile, rank: int, kernel: int) -> tuple:
    """Group sparsity's nonzero lambdas for a setting: the plan's factors times ``group_scale`` (3 digits)."""
    plan = _plan(profile)
    scale = group_scale(plan["n_in"] - kernel + 1, _latent(rank, kernel))
    return tuple(float(f"{scale * f:.3g}") for f in plan["group_factors"])


def _twinned(profile, rank: int, kernel: int) -> bool:
    """Settings with reseeded 20-task twins: the fade settings (msr-benefit-fades) and the simple problem
    (msr-benefit-grows-with-complexity)."""
    return (rank, kernel) in _plan(profile)["fade_settings"] or (rank, kernel) == SIMPLE


def _batch_runs(profile, rank: int, kernel: int, tasks: int) -> list:
    """The (seed, sparsity, lambda) runs of one setting, in a fixed order: what every claim of the profile reads."""
    plan, seeds = _plan(profile), _seeds(profile)
    sparse = [g for g in plan["grid"] if g > 0]
    runs = []
    for s in seeds:
        runs += [(s, "none", 0.0)] + [(s, "exclusive", g) for g in sparse]
        if tasks == 20 or (rank, kernel, tasks) in plan["figure_settings"]:
            runs += [(s, "group", g) for g in _group_grid(profile, rank, kernel)]
    if tasks == 20:
        # criterion version 1's group sparsity (the exclusive grid's lambdas, inert), at the first seed as v1 ran
        runs += [(seeds[0], "group", g) for g in plan["v1_group_grid"] if (seeds[0], "group", g) not in runs]
        if _twinned(profile, rank, kernel):
            for t in _twins(profile):
                runs += [(t, "none", 0.0)] + [(t, "exclusive", g) for g in sparse]
    return runs


def _batch(profile, rank: int, kernel: int, tasks: int) -> dict:
    """{(seed, sparsity, lambda): MSRResult} of every run of one setting (``_batch_runs``), trained side by side
    (``meta_learn_batch``) once per profile and shared by the claims."""
    plan, common = _plan(profile), _common(profile)
    runs = _batch_runs(profile, rank, kernel, tasks)

    def make():
        from .msr import LocallyConnected, meta_learn_batch

        profile.checkpoint()
        families = [LocallyConnected(n_in=plan["n_in"], kernel=kernel, rank=rank, samples=common["samples"], seed=s)
                    for s, _, _ in runs]
        kw = {k: v for k, v in common.items() if k != "samples"}
        results = meta_learn_batch(families, [r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs],
                                   tasks=tasks, val_tasks=plan["val_tasks"], test_tasks=plan["test_tasks"],
                                   control=profile.control, **kw)
        return dict(zip(runs, results))

    key = ("msr-batch", rank, kernel, tasks, plan["n_in"], tuple(runs), plan["val_tasks"], plan["test_tasks"],
           tuple(sorted((k, str(v)) for k, v in common.items())))
    seeds = sorted({r[0] for r in runs})
    label = (f"MSR {_name(rank, kernel)}, {tasks} tasks, {plan['n_in']} inputs: {len(runs)} runs side by side "
             f"(seeds {', '.join(map(str, seeds))}; no sparsity, exclusive and group sparsity over their lambda grids)")
    return profile.memo(key, make, label=label)


def _choice(profile, rank: int, kernel: int, tasks: int, seed: int, sparsity: str = "exclusive", grid=None):
    """One setting at one seed over a lambda grid (0 included: the unregularised run), lambda picked on
    meta-validation tasks: a ``lab.sharing.msr.LambdaChoice``.  ``grid``: the nonzero lambdas (default: the plan's
    exclusive grid, or group sparsity's scaled grid)."""
    import numpy as np

    from .msr import LambdaChoice

    runs = _batch(profile, rank, kernel, tasks)
    if grid is None:
        grid = (_group_grid(profile, rank, kernel) if sparsity == "group"
                else tuple(g for g in _plan(profile)["grid"] if g > 0))
    grid = [0.0] + sorted(float(g) for g in grid)
    results = {g: runs[(seed, "none", 0.0) if g == 0 else (seed, sparsity, g)] for g in grid}
    val = [results[g].val_loss for g in grid]
    test = [results[g].test_loss for g in grid]
    sparse = grid[1:]
    return LambdaChoice(grid, val, test, grid[int(np.nanargmin(val))],
                        sparse[int(np.nanargmin([results[g].val_loss for g in sparse]))], results)


def _settings(profile) -> dict:
    plan = _plan(profile)
    out = dict(_common(profile), n_in=plan["n_in"], n_out_by_kernel={str(k): plan["n_in"] - k + 1 for k in (3, 5)},
               lambda_grid=list(plan["grid"]), val_tasks=plan["val_tasks"], test_tasks=plan["test_tasks"],
               latent={_name(r, k): _latent(r, k) for r, k in SETTINGS}, profile=profile.name,
               seeds=_seeds(profile), sparsity="exclusive",
               group_lambda_factors=list(plan["group_factors"]),
               group_lambdas={_name(r, k): list(_group_grid(profile, r, k)) for r, k in SETTINGS})
    out["prox_step"] = "lambda * outer_lr after every outer step, groups = the entries of U per input feature"
    out["batched"] = ("every run of a (rank, kernel, tasks) setting trained side by side (meta_learn_batch), each as "
                      "meta_learn trains it alone")
    return out


def _f(x, digits=4):
    return None if x is None else float(f"{float(x):.{digits}g}")


def _progress(profile, done: int, total: int, message: str) -> None:
    profile.progress(min(done / total, 1.0), message)


def _pct(x) -> float:
    return round(100 * float(x), 1)


def _mean(xs):
    xs = [float(x) for x in xs]
    return sum(xs) / len(xs) if xs else None


def change(choice) -> float:
    """The change (%) of the meta-test loss at the lambda picked on meta-validation tasks against lambda = 0;
    ``choice``: a ``LambdaChoice``, or a pair (test loss without, with exclusive sparsity) as Table I prints a run.

    >>> round(change((0.675, 0.322)), 1)
    -52.3
    """
    if isinstance(choice, (tuple, list)):
        without, with_ = choice
        return 100 * (float(with_) / float(without) - 1)
    return 100 * float(choice.relative_change)


def reduction(choice) -> float:
    """The reduction of the meta-test loss: at lambda = 0 minus at the lambda picked on meta-validation tasks (0
    included); ``choice`` as ``change`` reads it.

    >>> round(reduction((1.814, 1.204)), 3)
    0.61
    """
    if isinstance(choice, (tuple, list)):
        without, with_ = choice
        return float(without) - float(with_)
    return float(choice.base_test) - float(choice.picked_test)


def _paper_line(profile, what: str) -> str:
    plan = _plan(profile)
    return (f"{what}; {plan['n_in']} inputs (the report: 70, Zhou et al.'s), {len(_seeds(profile))} seeds, exclusive "
            f"lambda from {list(plan['grid'])} picked on {plan['val_tasks']} validation tasks (the report states "
            "neither its lambda nor seeds), Zhou et al.'s optimiser (1000 outer steps)")


# ---------------------------------------------------------------------------------------------- Table I, 20 tasks
def worst_change(draw) -> float:
    """Statistic of msr-sparsity-few-tasks: the largest (least negative) change (%) over the settings of one seed
    ({setting: LambdaChoice}), read alike on exclusive and on group sparsity."""
    return max(change(c) for c in draw.values())


@claim("msr-sparsity-few-tasks", "msr", "Table I (20 tasks)",
       "With 20 meta-training tasks, exclusive sparsity lowers the test loss in all five rank/kernel settings "
       "(by 28-55 %).", paper_value="-28 % to -55 %", seconds={"quick": 20, "full": 1500},
       null="group sparsity (eq. 6, the same grouping by input feature) on lambdas where it acts, picked the same way "
            "on validation tasks, in place of exclusive sparsity",
       criteria=(Criterion(1, FEW_V1, FIRST_REGISTERED),
                 Criterion(2, FEW_V2, REVISED,
                           reason="issue 46: 3 seeds judged on an interval; the v1 null (group sparsity on the "
                                  "exclusive grid's lambdas) left U unchanged at those lambdas, so group sparsity "
                                  "now runs on its own scale, where it acts",
                           thresholds=(("REDUCTION", REDUCTION),), parts=("(a) reduction",))),
       paper_settings="the five rank/kernel settings of Table I with 20 meta-training tasks; quick: 30 inputs, 3 "
                      "seeds (the report: 70 inputs, one run)",
       later=(BASELINE_VERSION,),
       chosen_on=CHOSEN_ON,
       paper_numbers=(paper_reading("(a) reduction", {_name(r, k): PAPER_20[(r, k)] for r, k in SETTINGS},
                                    worst_change, "<", -REDUCTION, "Table I (20 tasks)"),))
def measure_sparsity_few_tasks(profile) -> Outcome:
    plan, seeds = _plan(profile), _seeds(profile)
    ex, gr = {}, {}
    for i, (rank, kernel) in enumerate(SETTINGS):
        _progress(profile, i, len(SETTINGS), f"{_name(rank, kernel)}, 20 tasks")
        for s in seeds:
            ex[(rank, kernel, s)] = _choice(profile, rank, kernel, 20, s)
            gr[(rank, kernel, s)] = _choice(profile, rank, kernel, 20, s, "group")
    profile.progress(1.0, "done")
    draws = [{(r, k): ex[(r, k, s)] for r, k in SETTINGS} for s in seeds]
    null_draws = [{(r, k): gr[(r, k, s)] for r, k in SETTINGS} for s in seeds]
    reduction = part("(a) reduction", worst_change, draws, null_draws, Rule("<", -REDUCTION),
                     "group sparsity on lambdas where it acts (the exclusive grid times group_scale), picked on "
                     "validation tasks, in place of exclusive sparsity", baseline=msr_baseline(ex.values()))

    measured = {_name(r, k): _f(_mean([change(ex[(r, k, s)]) for s in seeds]), 3) for r, k in SETTINGS}
    group_measured = {_name(r, k): _f(_mean([change(gr[(r, k, s)]) for s in seeds]), 3) for r, k in SETTINGS}
    # version 1, on the first seed as v1 ran: its null, group sparsity on the exclusive grid's lambdas
    s0 = seeds[0]
    v1 = {_name(r, k): _pct(ex[(r, k, s0)].relative_change) for r, k in SETTINGS}
    v1_null = {_name(r, k): _pct(_choice(profile, r, k, 20, s0, "group", plan["v1_group_grid"]).relative_change)
               for r, k in SETTINGS}
    history = {1: {"holds": all(v <= -REDUCTION for v in v1.values()),
                   "null_holds": all(v <= -REDUCTION for v in v1_null.values()),
                   "measured": v1, "why": f"v1 on seed {s0} (v1 ran one seed): the change per setting against "
                                          f"-{REDUCTION:g} %; its null, group sparsity on the exclusive grid's "
                                          f"lambdas {list(plan['v1_group_grid'])}, the same way"}}

    rows = []
    for rank, kernel in SETTINGS:
        pb, ps = PAPER_20[(rank, kernel)]
        for s in seeds:
            ch, g = ex[(rank, kernel, s)], gr[(rank, kernel, s)]
            rows.append([_name(rank, kernel), s, ch.picked, _f(ch.base_test), _f(ch.picked_test),
                         _pct(ch.relative_change),
                         g.picked, _f(g.picked_test), _pct(g.relative_change), _f(pb), _f(ps), _pct(ps / pb - 1)])
    evidence = [{"kind": "table", "title": "20 meta-training tasks, every seed: lambda picked on validation tasks; "
                                           "test loss at the pick against lambda = 0, exclusive sparsity and (the "
                                           "null) group sparsity on its own scale",
                 "columns": ["setting", "seed", "exclusive: lambda picked", "test loss (lambda=0)",
                             "test loss (exclusive, picked)", "exclusive: change %", "group: lambda picked",
                             "test loss (group, picked)", "group: change %", "paper without", "paper with",
                             "paper change %"], "rows": rows},
                {"kind": "bar", "title": f"20 tasks: change of the meta-test loss at the picked lambda (%, mean over "
                                         f"{len(seeds)} seeds); the criterion asks for -{REDUCTION:g} % or lower in "
                                         "every setting",
                 "ylabel": "change of the test loss (%)", "labels": [_name(r, k) for r, k in SETTINGS],
                 "series": {"exclusive sparsity (measured)": list(measured.values()),
                            "group sparsity on its own scale (measured, null)": list(group_measured.values()),
                            "exclusive sparsity (paper, Table I)": [_pct(PAPER_20[s][1] / PAPER_20[s][0] - 1)
                                                                    for s in SETTINGS]},
                 "logy": False}]
    for rank, kernel in SETTINGS:
        ch = ex[(rank, kernel, s0)]
        evidence.append({"kind": "table", "title": f"{_name(rank, kernel)}, 20 tasks, seed {s0}: every lambda of "
                                                   "exclusive sparsity (picked on validation tasks)",
                         "columns": ["lambda", "validation loss", "test loss", "picked"],
                         "rows": [[g, _f(v), _f(t), "<- picked" if g == ch.picked else ""]
                                  for g, v, t in zip(ch.grid, ch.val, ch.test)]})
    criterion = (f"holds if, with 20 meta-training tasks on {plan['n_in']} inputs, per seed the largest change over "
                 f"the five settings of the meta-test loss at the lambda picked on {plan['val_tasks']} meta-validation "
                 f"tasks (exclusive grid {list(plan['grid'])}) against lambda = 0 has a 95 % interval of its mean over "
                 f"seeds {seeds} wholly below -{REDUCTION:g} % (Table I's smallest reduction at 20 tasks), and group "
                 f"sparsity on its own scale (lambda = {list(plan['group_factors'])} x group_scale, picked the same "
                 "way), read by the same statistic, does not")
    note = (f"Relative change of the meta-test loss (%), lambda chosen on {plan['val_tasks']} meta-validation tasks "
            f"drawn apart from the {plan['test_tasks']} meta-test tasks; every lambda of a seed uses the same training "
            "tasks, initialisation and meta-batches.  A grid containing lambda = 0 can only tie or lower the "
            "validation loss, so the criterion asks for the paper's smallest reduction, not for any reduction; the "
            "null applies it to group sparsity chosen the same way, on lambdas where it moves U (the exclusive grid's "
            "own lambdas leave U as it is under the group prox), which shows whether picking some shrinkage of U on "
            "validation tasks gives the reduction by itself.  Settings: Zhou et al.'s optimiser and task family (1 "
            "support / 19 query samples resampled every step, 32 tasks per meta-batch (all 20 when there are 20), "
            "Adam 1e-3, 1000 outer steps, U ~ N(0, 0.01^2), v0 ~ N(0, (1/n_out)^2), latent 3, 6, 30 for ranks 1, 2, "
            "5 at kernel 3, inner lr learned from 0.1, float32); the prox is the report's eq. 7 after every outer "
            "step with step lambda * outer lr; the report states neither its lambda nor the kernel-5 latent sizes "
            "(rank * kernel here).")
    if not profile.full:
        note += (f"  Quick profile: {plan['n_in']} inputs instead of the report's 70 and a {len(plan['grid'])}-value "
                 "lambda grid; on 70 inputs U has 5-6 times as many entries to fit 20 tasks with, and the full "
                 "profile measures the criterion there.")
    if not reduction.holds:
        note += (f"  Not met at these settings: the mean change per setting is {measured} against Table I's "
                 f"-{REDUCTION:g} to -55 %.")
    settings = dict(_settings(profile), task_counts=[20], criterion=criterion, reduction_percent=REDUCTION)
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note, criterion=criterion,
                   parts=[reduction], history=history, paper_settings=_paper_line(
                       profile, "the five rank/kernel settings of Table I with 20 meta-training tasks"))


# ---------------------------------------------------------------------------------------------- Figs. 2-3
def band_gain(draw) -> float:
    """Statistic of msr-sparser-U: the smallest gain over the settings of one seed in band share, a U against the
    U learned without sparsity; a draw is {setting: (U, U without, n_out, n_in, kernel)}."""
    from .msr import band_fraction

    def band(U, n_out, n_in, kernel):
        import numpy as np

        return band_fraction(np.abs(U).reshape(n_out, n_in, -1).max(-1), kernel)

    return min(band(U, n_out, n_in, k) - band(U0, n_out, n_in, k) for U, U0, n_out, n_in, k in draw.values())


def pruned(U, keep_fraction: float):
    """``U`` with all but its ``keep_fraction`` largest-magnitude entries set to 0 (a magnitude-pruned baseline)."""
    import numpy as np

    a = np.abs(U).ravel()
    keep = int(round(keep_fraction * a.size))
    if keep >= a.size:
        return U.copy()
    out = np.zeros_like(U)
    if keep > 0:
        idx = np.argsort(-a, kind="stable")[:keep]
        out.ravel()[idx] = U.ravel()[idx]
    return out


@claim("msr-sparser-U", "msr", "Figs. 2-3",
       "Exclusive sparsity makes the learned symmetry matrix U visibly sparser, capturing the locally connected "
       "structure.", paper_value="sparser U", seconds={"quick": 11, "full": 300},
       null="the U learned with group sparsity (on lambdas where it acts, nonzero lambda picked on validation tasks) "
            "in place of the U learned with exclusive sparsity",
       criteria=(Criterion(1, SPARSER_V1, FIRST_REGISTERED),
                 Criterion(2, SPARSER_V2, REVISED,
                           reason="issue 46: 3 seeds judged on an interval; the null is the U of the other "
                                  "regulariser, group sparsity where it acts (does any shrinkage by input feature "
                                  "put U on the band?), instead of one random U",
                           thresholds=(("BAND_MARGIN", BAND_MARGIN),), parts=("(a) band gain",))),
       paper_settings="Figs. 2-3's settings (rank 1 kernel 3 with 20 tasks, rank 2 and rank 5 kernel 5 with 50); "
                      "quick: all three with 20 tasks on 30 inputs, 3 seeds (the report: 70 inputs, one run)",
       later=(BASELINE_VERSION,),
       chosen_on=CHOSEN_ON + "; Figs. 2-3's 50-task settings run at 20 tasks at quick (for time)")
def measure_sparser_u(profile) -> Outcome:
    import numpy as np

    from .msr import band_fraction, hoyer, small_fraction

    plan, seeds = _plan(profile), _seeds(profile)
    figure_settings = plan["figure_settings"]
    draws, null_draws, rows, evidence, per = [], [], [], [], {}
    for i, (rank, kernel, tasks) in enumerate(figure_settings):
        _progress(profile, i, len(figure_settings), f"{_name(rank, kernel)}, {tasks} tasks")
        for s in seeds:
            per[(rank, kernel, tasks, s)] = _choice(profile, rank, kernel, tasks, s)
            per[(rank, kernel, tasks, s, "group")] = _choice(profile, rank, kernel, tasks, s, "group")
    profile.progress(1.0, "done")
    n_in = plan["n_in"]
    for s in seeds:
        d, nd = {}, {}
        for rank, kernel, tasks in figure_settings:
            ch = per[(rank, kernel, tasks, s)]
            U, U0 = ch.results[ch.picked_sparse].U, ch.results[0.0].U
            n_out = n_in - kernel + 1
            g = per[(rank, kernel, tasks, s, "group")]
            d[(rank, kernel, tasks)] = (U, U0, n_out, n_in, kernel)
            nd[(rank, kernel, tasks)] = (g.results[g.picked_sparse].U, U0, n_out, n_in, kernel)
        draws.append(d)
        null_draws.append(nd)
    gain = part("(a) band gain", band_gain, draws, null_draws, Rule(">", BAND_MARGIN),
                "the U learned with group sparsity (nonzero lambda picked on validation tasks, on lambdas where it "
                "acts) in place of the exclusive U",
                baseline=msr_baseline([per[(r, k, t, s)] for r, k, t in figure_settings for s in seeds]))

    measured = {}
    for rank, kernel, tasks in figure_settings:
        name = f"{_name(rank, kernel)}, {tasks} tasks"
        n_out = n_in - kernel + 1
        vals = {"band share without": [], "band share with": [], "band share group": [], "band share pruned": [],
                "hoyer without": [],
                "hoyer with": [], "near-zero without": [], "near-zero with": [], "nonzero with": []}
        for s, d, nd in zip(seeds, draws, null_draws):
            U, U0 = d[(rank, kernel, tasks)][:2]
            G = nd[(rank, kernel, tasks)][0]
            P = pruned(U0, float((U != 0).mean()))
            pics = [np.abs(x).reshape(n_out, n_in, -1).max(-1) for x in (U0, U, G, P)]
            b0, b1, bg, bp = (band_fraction(p, kernel) for p in pics)
            vals["band share without"].append(b0)
            vals["band share with"].append(b1)
            vals["band share group"].append(bg)
            vals["band share pruned"].append(bp)
            vals["hoyer without"].append(hoyer(U0))
            vals["hoyer with"].append(hoyer(U))
            vals["near-zero without"].append(small_fraction(U0, SMALL))
            vals["near-zero with"].append(small_fraction(U, SMALL))
            vals["nonzero with"].append(float((U != 0).mean()))
            ch = per[(rank, kernel, tasks, s)]
            rows.append([name, s, ch.picked_sparse, _f(b0, 3), _f(b1, 3), _f(bg, 3), _f(bp, 3),
                         _f(float((U != 0).mean()), 3),
                         _f(kernel / n_in, 3), _f(hoyer(U0), 3), _f(hoyer(U), 3),
                         _f(ch.test[0]), _f(ch.test[ch.grid.index(ch.picked_sparse)])])
        measured[name] = {k: _f(_mean(v), 3) for k, v in vals.items()}
        measured[name]["band area"] = _f(kernel / n_in, 3)
        ch = per[(rank, kernel, tasks, seeds[0])]
        lam = ch.picked_sparse
        base, sparse = ch.results[0.0], ch.results[lam]
        pics = {"without": base.max_abs(n_out, n_in), "with": sparse.max_abs(n_out, n_in)}
        top = float(max(pics["without"].max(), pics["with"].max()))
        evidence.append({"kind": "matrix", "title": f"{name}, seed {seeds[0]}: max over the latent axis of |U| "
                                                    f"(output x input); the true band is W[o, o:o+{kernel}]",
                         "matrices": {"without sparsity": [[_f(x, 3) for x in row] for row in pics["without"]],
                                      f"exclusive sparsity, lambda = {lam:g}": [[_f(x, 3) for x in row]
                                                                                 for row in pics["with"]]},
                         "ranges": {"without sparsity": [0.0, _f(pics["without"].max(), 3)],
                                    f"exclusive sparsity, lambda = {lam:g}": [0.0, _f(pics["with"].max(), 3)]}
                         if top > 0 else {}})
        edges = np.linspace(0, 1, 11)
        hist = {}
        for label, U in (("without sparsity", base.U), (f"lambda = {lam:g}", sparse.U)):
            a = np.abs(U).ravel()
            rel = a / a.max() if a.max() > 0 else a
            counts, _ = np.histogram(rel, bins=edges)
            hist[label] = [_f(c / a.size, 4) for c in counts]
        evidence.append({"kind": "bar", "title": f"{name}, seed {seeds[0]}: distribution of |U| / max|U| (Fig. 3)",
                         "ylabel": "fraction of entries", "labels": [f"{a:.1f}-{b:.1f}" for a, b in
                                                                     zip(edges[:-1], edges[1:])],
                         "series": hist, "logy": True})
    names = list(measured)
    evidence.insert(0, {"kind": "bar", "title": f"Share of the max-|U| picture on the true locally connected band "
                                                f"(mean over {len(seeds)} seeds)",
                        "ylabel": "band share", "labels": names,
                        "series": {"without sparsity": [measured[n]["band share without"] for n in names],
                                   "exclusive sparsity": [measured[n]["band share with"] for n in names],
                                   "group sparsity (null)": [measured[n]["band share group"] for n in names],
                                   "without, magnitude-pruned to match": [measured[n]["band share pruned"]
                                                                          for n in names],
                                   "band area fraction": [measured[n]["band area"] for n in names]},
                        "logy": False})
    evidence.insert(0, {"kind": "table", "title": "U without and with exclusive sparsity (lambda: the nonzero lambda "
                                                  "picked on validation tasks), group sparsity's U (the null) and the "
                                                  "unregularised U magnitude-pruned to the exclusive U's nonzero "
                                                  "fraction, every seed: band share (the criterion), Hoyer sparsity "
                                                  "(side evidence)",
                        "columns": ["setting", "seed", "lambda", "band share without", "band share with",
                                    "band share group (null)", "band share pruned", "nonzero fraction with",
                                    "band area fraction",
                                    "Hoyer without", "Hoyer with", "test loss without", "test loss with"],
                        "rows": rows})
    # version 1 on the first seed, with its null (one random U per setting)
    rng = np.random.default_rng([profile.seed, 7])
    v1, v1_null = {}, {}
    for rank, kernel, tasks in figure_settings:
        U, U0, n_out, _, _ = draws[0][(rank, kernel, tasks)]
        R = rng.standard_normal(U.shape)
        b0 = band_fraction(np.abs(U0).reshape(n_out, n_in, -1).max(-1), kernel)
        v1[f"{_name(rank, kernel)}, {tasks} tasks"] = _f(band_fraction(np.abs(U).reshape(n_out, n_in, -1).max(-1),
                                                                       kernel) - b0, 3)
        v1_null[f"{_name(rank, kernel)}, {tasks} tasks"] = _f(band_fraction(np.abs(R).reshape(n_out, n_in, -1).max(-1),
                                                                            kernel) - b0, 3)
    history = {1: {"holds": all(v >= BAND_MARGIN for v in v1.values()),
                   "null_holds": all(v >= BAND_MARGIN for v in v1_null.values()), "measured": v1,
                   "why": f"v1 on seed {seeds[0]} (v1 ran one seed): the band-share gain per setting against "
                          f"{BAND_MARGIN:g}; its null, one random U per setting, the same way"}}
    criterion = (f"holds if per seed the smallest gain over the settings {[list(s) for s in figure_settings]} in the "
                 "share of the max-|U| picture (output x input) on the true locally connected band W[o, o:o+kernel], "
                 "exclusive sparsity (the nonzero lambda with the lowest meta-validation loss) against no sparsity, "
                 f"has a 95 % interval of its mean over seeds {seeds} wholly above {BAND_MARGIN:g}, and the U learned "
                 "with group sparsity (lambda = factors x group_scale, the nonzero one picked on validation tasks), "
                 "read the same way, does not")
    gains = {n: _f(m["band share with"] - m["band share without"], 3) for n, m in measured.items()}
    note = ("Band share: the fraction of the picture's total on the band where the true layers have weights (1: U "
            "builds only weights a locally connected layer can have; a structureless U gets the band's area "
            f"fraction, kernel / inputs).  Mean gain in band share per setting: {gains}.  The null asks whether any "
            "shrinkage of U by input feature does it: group sparsity's U, on lambdas where it acts, in place of the "
            "exclusive U.  Whether sparsity alone does it shows in the column 'band share pruned': the unregularised "
            "U with its smallest entries set to 0 until it has as few nonzero entries as the exclusive U (where the "
            "prox zeroes few entries this is the unregularised U itself).  Side evidence, not part of the criterion "
            "(the prox zeroes entries, "
            "so it makes U sparser by construction): Hoyer's measure (sqrt(n) - |u|_1/|u|_2)/(sqrt(n) - 1) over all "
            f"entries of U (0: all equal, 1: one nonzero) and the fraction of entries below {SMALL:g} of the "
            "largest.  Settings: the report's Figs. 2-3 (rank 1 kernel 3 with 20 tasks, rank 2 and rank 5 kernel 5 "
            "with 50 tasks).")
    if not profile.full:
        note += (f"  Quick profile: all three with 20 tasks on {plan['n_in']} inputs (the runs of "
                 "msr-sparsity-few-tasks).")
    settings = dict(_settings(profile), figure_settings=[list(s) for s in figure_settings], criterion=criterion,
                    near_zero_relative=SMALL, band_margin=BAND_MARGIN)
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note, criterion=criterion,
                   parts=[gain], history=history)


# ---------------------------------------------------------------------------------------------- Table I, all counts
def fade(draw) -> float:
    """Statistic of msr-benefit-fades: the mean change (%) over the settings at the later runs minus at the
    20-task runs; a draw is [(LambdaChoice later, LambdaChoice at 20 tasks)] over the settings."""
    return _mean([change(later) for later, _ in draw]) - _mean([change(first) for _, first in draw])


@claim("msr-benefit-fades", "msr", "Table I, §III.A",
       "Exclusive sparsity achieves better results when there are fewer tasks: its benefit at 20 meta-training "
       "tasks fades by 1000.", paper_value="mean change -39.5 % at 20 tasks, +14.2 % at 1000 (the four settings "
                                           "with a 1000-task entry)",
       seconds={"quick": 58, "full": 2400},
       null="a reseeded 20-task twin (fresh family, tasks and initialisation) in place of the 1000-task run",
       criteria=(Criterion(1, FADES_V1, FIRST_REGISTERED),
                 Criterion(2, FADES_V2, REVISED,
                           reason="issue 46: the v1 null (the 20-task changes in place of the 1000-task ones) is a "
                                  "difference of exactly 0; the null is now a reseeded 20-task twin, and 3 seeds "
                                  "are judged on an interval",
                           thresholds=(("FADE_MARGIN", FADE_MARGIN),), parts=("(a) fade",))),
       paper_settings="Table I's settings with a 1000-task entry at 20 and 1000 meta-training tasks; quick: 30 "
                      "inputs, 3 seeds (the report: 70 inputs, 20/50/100/1000 tasks, one run)",
       later=(BASELINE_VERSION,),
       chosen_on=CHOSEN_ON,
       paper_numbers=(paper_reading("(a) fade",
                                    [(PAPER_TABLE[(r, k, 1000)], PAPER_20[(r, k)]) for r, k in FADE_SETTINGS],
                                    fade, ">", FADE_MARGIN, "Table I (1000 against 20 tasks)"),))
def measure_benefit_fades(profile) -> Outcome:
    plan, seeds, twins = _plan(profile), _seeds(profile), _twins(profile)
    counts, fade_settings = plan["task_counts"], plan["fade_settings"]
    scored = [s for s in fade_settings if (s[0], s[1], 1000) in PAPER_TABLE]  # the settings Table I has at 1000
    choices, total, done = {}, len(fade_settings) * len(counts), 0
    for rank, kernel in fade_settings:
        for tasks in counts:
            _progress(profile, done, total, f"{_name(rank, kernel)}, {tasks} tasks")
            for s in seeds:
                choices[(rank, kernel, tasks, s)] = _choice(profile, rank, kernel, tasks, s)
            done += 1
        for t in twins:
            choices[(rank, kernel, 20, t)] = _choice(profile, rank, kernel, 20, t)
    profile.progress(1.0, "done")
    draws = [[(choices[(r, k, 1000, s)], choices[(r, k, 20, s)]) for r, k in scored] for s in seeds]
    null_draws = [[(choices[(r, k, 20, t)], choices[(r, k, 20, s)]) for r, k in scored] for s, t in zip(seeds, twins)]
    faded = part("(a) fade", fade, draws, null_draws, Rule(">", FADE_MARGIN),
                 "a reseeded 20-task twin (fresh family, tasks and initialisation) in place of the 1000-task run",
                 baseline=msr_baseline([c for d in draws for pair in d for c in pair]))

    def mean_change(tasks, fixed=False):
        out = []
        for s in seeds:
            for rank, kernel in scored:
                ch = choices[(rank, kernel, tasks, s)]
                lam = choices[(rank, kernel, 20, s)].picked if fixed else ch.picked
                out.append(ch.test[ch.grid.index(lam)] / ch.base_test - 1)
        return _pct(sum(out) / len(out))

    measured = {"mean change at 20 tasks": mean_change(20), "mean change at 1000 tasks": mean_change(1000)}
    measured["difference"] = round(measured["mean change at 1000 tasks"] - measured["mean change at 20 tasks"], 1)
    measured["twin difference (null)"] = _f(faded.null_measured, 3)
    s0 = seeds[0]
    v1 = {"mean change at 20 tasks": _pct(_mean([choices[(r, k, 20, s0)].relative_change for r, k in scored])),
          "mean change at 1000 tasks": _pct(_mean([choices[(r, k, 1000, s0)].relative_change for r, k in scored]))}
    v1["difference"] = round(v1["mean change at 1000 tasks"] - v1["mean change at 20 tasks"], 1)
    history = {1: {"holds": v1["difference"] >= FADE_MARGIN, "null_holds": 0.0 >= FADE_MARGIN, "measured": v1,
                   "why": f"v1 on seed {s0} (v1 ran one seed); its null, the 20-task changes in place of the "
                          "1000-task ones, is a difference of 0 by construction"}}
    fixed = {"mean change at 20 tasks": measured["mean change at 20 tasks"],
             "mean change at 1000 tasks": mean_change(1000, fixed=True)}
    fixed["difference"] = round(fixed["mean change at 1000 tasks"] - fixed["mean change at 20 tasks"], 1)
    variants = [{"name": "one lambda for every task count",
                 "what": "at 1000 tasks, the lambda picked on validation tasks at 20 tasks (the report appears to "
                         "use one lambda throughout; a grid with 0 picked at 1000 tasks cannot show sparsity "
                         "hurting, as Table I does at 1000 tasks); mean over the seeds",
                 "measured": fixed, "holds": bool(fixed["difference"] >= FADE_MARGIN)}]
    rows = []
    for rank, kernel in fade_settings:
        for tasks in counts:
            pw, pv = PAPER_TABLE.get((rank, kernel, tasks), (None, None))
            for s in seeds:
                ch = choices[(rank, kernel, tasks, s)]
                fixed_lam = choices[(rank, kernel, 20, s)].picked
                rows.append([_name(rank, kernel), tasks, s, ch.picked, _f(ch.base_test), _f(ch.picked_test),
                             _pct(ch.relative_change), fixed_lam,
                             _pct(ch.test[ch.grid.index(fixed_lam)] / ch.base_test - 1), _f(pw), _f(pv),
                             None if pw is None else _pct(pv / pw - 1)])
        for t in twins:
            ch = choices[(rank, kernel, 20, t)]
            rows.append([_name(rank, kernel), 20, t, ch.picked, _f(ch.base_test), _f(ch.picked_test),
                         _pct(ch.relative_change), ch.picked, _pct(ch.relative_change), None, None, None])
    evidence = [{"kind": "table", "title": "Table I, every task count measured at every seed (seeds from "
                                           f"{TWIN}: the reseeded 20-task twins of the null), beside the paper's "
                                           "values (test losses; lambda picked on validation tasks at each count)",
                 "columns": ["setting", "tasks", "seed", "lambda picked", "test loss (lambda=0)", "test loss (picked)",
                             "change %", "lambda picked at 20 tasks", "change % at that lambda", "paper without",
                             "paper with", "paper change %"],
                 "rows": rows},
                {"kind": "bar", "title": f"Change of the meta-test loss with exclusive sparsity (%, mean over "
                                         f"{len(seeds)} seeds), by number of meta-training tasks",
                 "ylabel": "change of the test loss (%)",
                 "labels": [f"{_name(r, k)}, {t}" for r, k in scored for t in counts],
                 "series": {"measured (lambda picked at each count)":
                            [_pct(_mean([choices[(r, k, t, s)].relative_change for s in seeds]))
                             for r, k in scored for t in counts],
                            "paper (Table I)": [_pct(PAPER_TABLE[(r, k, t)][1] / PAPER_TABLE[(r, k, t)][0] - 1)
                                                for r, k in scored for t in counts]},
                 "logy": False}]
    criterion = (f"holds if per seed the mean relative change of the meta-test loss over "
                 f"{', '.join(_name(*s) for s in scored)} (the settings Table I reports at 1000 tasks) is higher (less "
                 "negative) with 1000 meta-training tasks than with 20 by a 95 % interval of its mean over seeds "
                 f"{seeds} wholly above {FADE_MARGIN:g} percentage points (lambda picked on {plan['val_tasks']} "
                 "meta-validation tasks at each count; Table I: -39.5 % and +14.2 %), and a reseeded 20-task twin "
                 f"(seeds {twins}) in place of the 1000-task run, read the same way, does not")
    note = ("The number of tasks is the size of the pool the meta-batches are drawn from: the steps (1000) and the "
            "meta-batch (32, all 20 tasks at 20) are the same at every count, so only the variety of training tasks "
            "changes.  With lambda = 0 in the grid and lambda picked on validation tasks, the change at a count is "
            "at most about 0 when sparsity does not help (the pick is 0); Table I's positive changes at 1000 tasks "
            "(sparsity hurting) need a lambda chosen without looking at that count, which the variant 'one lambda "
            "for every task count' shows.  The null replaces the 1000-task run by a second 20-task run from fresh "
            "seeds: the difference two 20-task runs show by chance.  rank5 kernel3 has no 1000-task entry in Table "
            "I and is left out of the means.")
    zero = sum(choices[(r, k, 1000, s)].picked == 0.0 for r, k in scored for s in seeds)
    note += (f"  Measured: at 1000 tasks the validation tasks pick lambda = 0 in {zero} of "
             f"{len(scored) * len(seeds)} (setting, seed) pairs.")
    if not profile.full:
        note += (f"  Quick profile: 20 and 1000 tasks only, on {plan['n_in']} inputs, "
                 f"{len(plan['grid'])}-value lambda grid; the full profile adds 50 and 100 tasks and rank5 kernel3.")
    settings = dict(_settings(profile), task_counts=list(counts), criterion=criterion, fade_margin=FADE_MARGIN,
                    fade_settings=[_name(*s) for s in fade_settings], scored_settings=[_name(*s) for s in scored],
                    twin_seeds=twins)
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note, criterion=criterion,
                   parts=[faded], history=history, variants=variants)


# ---------------------------------------------------------------------------------------------- §III.A, group
def worst_ratio(draw) -> float:
    """Statistic of msr-exclusive-vs-group: the largest change (%) over the settings of one seed of a test loss
    against group sparsity's; a draw is {setting: (test loss, group sparsity's test loss)}."""
    return max(100 * (a / b - 1) for a, b in draw.values())


@claim("msr-exclusive-vs-group", "msr", "§III.A",
       "Exclusive sparsity appeared to have much better results than group sparsity (both grouping the weights "
       "by input feature).", paper_value="exclusive much better (no numbers)", seconds={"quick": 20, "full": 1},
       null="no sparsity (lambda = 0) in place of exclusive sparsity",
       criteria=(Criterion(1, GROUP_V1, FIRST_REGISTERED),
                 Criterion(2, GROUP_V2, REVISED,
                           reason="issue 46: at the exclusive grid's lambdas the group prox leaves U unchanged, so v1 "
                                  "compared exclusive sparsity with none; group sparsity now runs on lambdas where it "
                                  "acts (its nonzero pick), and 3 seeds are judged on an interval",
                           thresholds=(("GROUP_MARGIN", GROUP_MARGIN),), parts=("(a) exclusive below group",))),
       paper_settings="the five settings of Table I with 20 meta-training tasks, both regularisers grouped by input "
                      "feature; quick: 30 inputs, 3 seeds (the report: 70 inputs, no numbers)",
       later=(BASELINE_VERSION,),
       chosen_on=CHOSEN_ON + "; group sparsity's lambdas scaled by group_scale (set from the prox at initialisation)")
def measure_exclusive_vs_group(profile) -> Outcome:
    import numpy as np

    from .msr import band_fraction, by_input

    import torch

    plan, seeds = _plan(profile), _seeds(profile)
    ex, gr = {}, {}
    for i, (rank, kernel) in enumerate(SETTINGS):
        _progress(profile, i, len(SETTINGS), f"{_name(rank, kernel)}, 20 tasks")
        for s in seeds:
            ex[(rank, kernel, s)] = _choice(profile, rank, kernel, 20, s)
            gr[(rank, kernel, s)] = _choice(profile, rank, kernel, 20, s, "group")
    profile.progress(1.0, "done")

    def at_sparse(ch):
        return ch.test[ch.grid.index(ch.picked_sparse)]

    draws = [{(r, k): (at_sparse(ex[(r, k, s)]), at_sparse(gr[(r, k, s)])) for r, k in SETTINGS} for s in seeds]
    null_draws = [{(r, k): (ex[(r, k, s)].base_test, at_sparse(gr[(r, k, s)])) for r, k in SETTINGS} for s in seeds]
    below = part("(a) exclusive below group", worst_ratio, draws, null_draws, Rule("<", -GROUP_MARGIN),
                 "no sparsity (lambda = 0) in place of exclusive sparsity", baseline=msr_baseline(ex.values()))
    measured = {_name(r, k): _f(_mean([100 * (a / b - 1) for a, b in (d[(r, k)] for d in draws)]), 3)
                for r, k in SETTINGS}
    null_measured = {_name(r, k): _f(_mean([100 * (a / b - 1) for a, b in (d[(r, k)] for d in null_draws)]), 3)
                     for r, k in SETTINGS}
    n_in = plan["n_in"]
    rows, acts = [], []
    for rank, kernel in SETTINGS:
        n_out = n_in - kernel + 1
        for s in seeds:
            e, g = ex[(rank, kernel, s)], gr[(rank, kernel, s)]
            lam = g.picked_sparse
            U0, Ug = g.results[0.0].U, g.results[lam].U
            groups = by_input(torch.as_tensor(Ug), n_out, n_in).norm(dim=1).numpy()
            zeroed = float((groups == 0).mean())
            norm_ratio = float(np.linalg.norm(Ug) / np.linalg.norm(U0))
            val_change = 100 * (g.val[g.grid.index(lam)] / g.val[0] - 1)
            acts.append(abs(norm_ratio - 1))
            band = {k: band_fraction(c.results[c.picked_sparse].max_abs(n_out, n_in), kernel)
                    for k, c in (("exclusive", e), ("group", g))}
            rows.append([_name(rank, kernel), s, e.picked_sparse, lam, _f(e.base_test), _f(at_sparse(e)),
                         _f(at_sparse(g)), _pct(at_sparse(e) / at_sparse(g) - 1),
                         _pct(e.base_test / at_sparse(g) - 1), _f(val_change, 3), _f(norm_ratio, 3),
                         _f(zeroed, 3), _f(band["exclusive"], 3), _f(band["group"], 3)])
    s0 = seeds[0]
    per_lambda = []
    for rank, kernel in SETTINGS:
        g = gr[(rank, kernel, s0)]
        per_lambda.append({"kind": "table", "title": f"{_name(rank, kernel)}, 20 tasks, seed {s0}: every lambda of "
                                                     "group sparsity on its own scale (the nonzero one with the "
                                                     "lowest validation loss is compared)",
                           "columns": ["lambda", "validation loss", "test loss", "compared"],
                           "rows": [[lam, _f(v), _f(t), "<- compared" if lam == g.picked_sparse else ""]
                                    for lam, v, t in zip(g.grid, g.val, g.test)]})
    # version 1 on the first seed: group sparsity on the exclusive grid's lambdas, 0 included, as v1 ran
    v1, v1_null = {}, {}
    for rank, kernel in SETTINGS:
        e = ex[(rank, kernel, s0)]
        g1 = _choice(profile, rank, kernel, 20, s0, "group", plan["v1_group_grid"])
        v1[_name(rank, kernel)] = _pct(e.picked_test / g1.picked_test - 1)
        v1_null[_name(rank, kernel)] = _pct(e.base_test / g1.picked_test - 1)
    history = {1: {"holds": all(v <= -GROUP_MARGIN for v in v1.values()),
                   "null_holds": all(v <= -GROUP_MARGIN for v in v1_null.values()), "measured": v1,
                   "why": f"v1 on seed {s0} (v1 ran one seed): group sparsity on the exclusive grid's lambdas "
                          f"{list(plan['v1_group_grid'])} (0 included; where it leaves U as it is); its null, lambda "
                          "= 0 in place of exclusive sparsity, the same way"}}
    evidence = [{"kind": "table", "title": "Exclusive against group sparsity, 20 tasks, every seed (each at its "
                                           "nonzero lambda picked on validation tasks; group sparsity on its own "
                                           "scale). "
                                           "'acts': the change of group sparsity's validation loss against lambda = "
                                           "0, its |U| against the unregularised |U|, and the fraction of input "
                                           "features whose whole group it zeroed",
                 "columns": ["setting", "seed", "exclusive: lambda", "group: lambda", "test loss (lambda=0)",
                             "test loss (exclusive)", "test loss (group)", "exclusive vs group %",
                             "lambda = 0 vs group % (null)", "group: validation change %", "group: |U| / |U0|",
                             "group: inputs zeroed", "band share (exclusive)", "band share (group)"],
                 "rows": rows},
                {"kind": "bar", "title": f"Change of exclusive sparsity's meta-test loss against group sparsity's "
                                         f"(%, mean over {len(seeds)} seeds), 20 tasks; the null puts lambda = 0 in "
                                         "place of exclusive sparsity",
                 "ylabel": "change against group sparsity (%)", "labels": [_name(r, k) for r, k in SETTINGS],
                 "series": {"exclusive sparsity": list(measured.values()),
                            "no sparsity (null)": list(null_measured.values())},
                 "logy": False}] + per_lambda
    criterion = (f"holds if, with 20 meta-training tasks on {n_in} inputs, per seed the largest change over the five "
                 "settings of the meta-test loss with exclusive sparsity (nonzero lambda from "
                 f"{[g for g in plan['grid'] if g > 0]} picked on {plan['val_tasks']} meta-validation tasks) against "
                 f"group sparsity (nonzero lambda from {list(plan['group_factors'])} x group_scale, picked the same "
                 f"way) has a 95 % interval of its mean over seeds {seeds} wholly below -{GROUP_MARGIN:g} %, and no "
                 "sparsity (lambda = 0) in place of exclusive sparsity, read the same way, does not")
    note = ("Both regularisers group the entries of U by input feature (every entry building a weight that "
            "multiplies one input) and take one proximal step after every outer step with step lambda * outer lr: "
            "group sparsity by eq. 6 (shrinks each group's l2 norm, so whole input features compete), exclusive by "
            "eq. 7 (entries compete within a group).  At the same lambda the group prox moves U far less than the "
            "exclusive one (it shrinks a whole group's norm by lambda s, the exclusive prox every entry by lambda s "
            "|u_g|_1), so group sparsity's lambdas are the exclusive grid's factors times group_scale (0.01 "
            "sqrt(2/pi) m^1.5, m entries per group: the shrinkage of eq. 7 at initialisation), and each regulariser "
            "is compared at its nonzero lambda with the lowest validation loss: both act.  The null puts the "
            "unregularised run in place of exclusive sparsity: it shows whether 'better than group' is just 'group "
            "sparsity is harmful'.")
    note += (f"  Measured: group sparsity's U differs from the unregularised U by {100 * min(acts):.1f} % to "
             f"{100 * max(acts):.1f} % in norm at its compared lambda (the 'acts' columns).")
    if not profile.full:
        note += f"  Quick profile: {n_in} inputs and two nonzero lambdas per regulariser."
    settings = dict(_settings(profile), task_counts=[20], criterion=criterion, group_margin_percent=GROUP_MARGIN)
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note, criterion=criterion,
                   parts=[below], history=history, paper_settings=_paper_line(
                       profile, "the five settings of Table I with 20 tasks, both regularisers grouped by input "
                                "feature (the report gives no numbers)"))


# ---------------------------------------------------------------------------------------------- §III.A, complexity
def complexity_gain(draw) -> float:
    """Statistic of msr-benefit-grows-with-complexity: change (%) at the first run minus at the second; a draw is
    (LambdaChoice of the complex problem or of the reseeded twin, LambdaChoice of the simple problem)."""
    harder, simple = draw
    return change(harder) - change(simple)


def complexity_reduction_gain(draw) -> float:
    """Statistic of msr-benefit-grows-with-complexity (v2): the reduction of the test loss (``reduction``) at the
    first run minus at the second; a draw as ``complexity_gain`` reads it (or Table I's printed pairs).

    >>> round(complexity_reduction_gain((PAPER_20[COMPLEX], PAPER_20[SIMPLE])), 3)
    0.257
    """
    harder, simple = draw
    return reduction(harder) - reduction(simple)


COMPLEXITY_PART = "(a) larger reduction when more complex"


@claim("msr-benefit-grows-with-complexity", "msr", "§III.A (last paragraph), Table I",
       "The regularisation \"achieves better results on the test dataset when the problems are more complex\" "
       "(rank / kernel size).",
       paper_value="no number; Table I at 20 tasks: -52.3 % at rank 1 kernel 3, -33.6 % at rank 5 kernel 5",
       seconds={"quick": 20, "full": 1},
       null="a reseeded rank 1 kernel 3 twin in place of rank 5 kernel 5",
       criteria=(Criterion(1, COMPLEXITY_V1, REVISED),
                 Criterion(2, COMPLEXITY_V2, "2026-12-02", reason=COMPLEXITY_V2_REASON,
                           thresholds=(("COMPLEXITY_GAIN", COMPLEXITY_GAIN),), parts=(COMPLEXITY_PART,), layer=2)),
       paper_settings="the simplest (rank 1 kernel 3) and the most complex (rank 5 kernel 5) problem of Table I with "
                      "20 meta-training tasks (all five shown); quick: 30 inputs, 3 seeds (the report: 70 inputs, "
                      "one run)",
       later=(BASELINE_VERSION,),
       chosen_on=CHOSEN_ON,
       paper_numbers=(paper_reading(COMPLEXITY_PART, (PAPER_20[COMPLEX], PAPER_20[SIMPLE]), complexity_reduction_gain,
                                    ">", COMPLEXITY_GAIN, "Table I (20 tasks)"),))
def measure_benefit_grows(profile) -> Outcome:
    plan, seeds, twins = _plan(profile), _seeds(profile), _twins(profile)
    ch = {}
    for i, (rank, kernel) in enumerate(SETTINGS):
        _progress(profile, i, len(SETTINGS), f"{_name(rank, kernel)}, 20 tasks")
        for s in seeds:
            ch[(rank, kernel, s)] = _choice(profile, rank, kernel, 20, s)
    for t in twins:
        ch[(*SIMPLE, t)] = _choice(profile, *SIMPLE, 20, t)
    profile.progress(1.0, "done")
    draws = [(ch[(*COMPLEX, s)], ch[(*SIMPLE, s)]) for s in seeds]
    null_draws = [(ch[(*SIMPLE, t)], ch[(*SIMPLE, s)]) for s, t in zip(seeds, twins)]
    null_text = (f"a reseeded {_name(*SIMPLE)} twin (fresh family, tasks and initialisation) in place of "
                 f"{_name(*COMPLEX)}")
    grows = part(COMPLEXITY_PART, complexity_reduction_gain, draws, null_draws, Rule(">", COMPLEXITY_GAIN), null_text,
                 baseline=msr_baseline([c for pair in draws for c in pair]))
    # version 1 (the relative change) on the same draws, read by the layer that judged it (layer 1)
    relative = part("(a) larger benefit when more complex", complexity_gain, draws, null_draws, Rule("<", 0.0),
                    null_text)
    history = {1: {"holds": relative.legacy["holds"], "null_holds": relative.legacy["null_holds"],
                   "measured": {relative.name: _f(relative.measured, 3)},
                   "why": "v1 on this run's draws: the relative change (%) at rank 5 kernel 5 minus at rank 1 kernel "
                          "3, below 0, read by statistics layer 1 (percentile bootstrap; the null against the "
                          "threshold)"}}
    per = {_name(r, k): {"rank x kernel": r * k,
                         "change %": _f(_mean([change(ch[(r, k, s)]) for s in seeds]), 3),
                         "test loss (lambda=0)": _f(_mean([ch[(r, k, s)].base_test for s in seeds])),
                         "absolute reduction": _f(_mean([ch[(r, k, s)].base_test - ch[(r, k, s)].picked_test
                                                         for s in seeds]))}
           for r, k in SETTINGS}
    measured = {"reduction difference (complex - simple)": _f(grows.measured, 3),
                "twin reduction difference (null)": _f(grows.null_measured, 3),
                "reduction by setting": {n: v["absolute reduction"] for n, v in per.items()},
                "change by setting %": {n: v["change %"] for n, v in per.items()},
                "relative difference (complex - simple, v1), pp": _f(relative.measured, 3)}
    order = sorted(SETTINGS, key=lambda rk: (rk[0] * rk[1], rk))
    paper = {_name(r, k): _pct(PAPER_20[(r, k)][1] / PAPER_20[(r, k)][0] - 1) for r, k in SETTINGS}
    evidence = [{"kind": "line", "title": f"20 tasks: change of the meta-test loss at the lambda picked on validation "
                                          f"tasks (%, mean over {len(seeds)} seeds) against the problem's dimension "
                                          "rank x kernel",
                 "xlabel": "rank x kernel", "ylabel": "change of the test loss (%)",
                 "x": [float(r * k) for r, k in order],
                 "series": {"measured": [per[_name(r, k)]["change %"] for r, k in order],
                            "paper (Table I)": [paper[_name(r, k)] for r, k in order]},
                 "logx": False, "logy": False},
                {"kind": "table", "title": "20 tasks, every setting (mean over the seeds); the absolute reduction "
                                           "(test loss at lambda = 0 minus at the pick) is what v2 reads; it grows "
                                           "with the loss's own scale too",
                 "columns": ["setting", "rank x kernel", "change %", "test loss (lambda=0)", "absolute reduction",
                             "paper change %"],
                 "rows": [[n, v["rank x kernel"], v["change %"], v["test loss (lambda=0)"], v["absolute reduction"],
                           paper[n]] for n, v in ((_name(r, k), per[_name(r, k)]) for r, k in order)]},
                {"kind": "table", "title": "per seed: the statistic (v2: the reduction) on the claim's draws and on "
                                           "the null's, and v1's relative difference beside it",
                 "columns": ["seed", f"reduction {_name(*COMPLEX)}", f"reduction {_name(*SIMPLE)}", "difference",
                             "twin seed", f"reduction twin {_name(*SIMPLE)}", "twin difference (null)",
                             "v1: change % difference", "v1: twin change % difference (null)"],
                 "rows": [[s, _f(reduction(ch[(*COMPLEX, s)])), _f(reduction(ch[(*SIMPLE, s)])), _f(a), t,
                           _f(reduction(ch[(*SIMPLE, t)])), _f(b), _f(c, 3), _f(d, 3)]
                          for s, t, a, b, c, d in zip(seeds, twins, grows.replicates, grows.null_replicates,
                                                      relative.replicates, relative.null_replicates)]}]
    criterion = (f"holds if per seed the reduction of the 20-task meta-test loss (at lambda = 0 minus at the "
                 f"exclusive lambda picked on {plan['val_tasks']} meta-validation tasks, grid {list(plan['grid'])}), "
                 f"at {_name(*COMPLEX)} minus at {_name(*SIMPLE)}, has a 95 % interval of its mean over seeds {seeds} "
                 f"wholly above {COMPLEXITY_GAIN:g} (a larger benefit on the more complex problem), and a reseeded "
                 f"{_name(*SIMPLE)} twin (seeds {twins}) in place of {_name(*COMPLEX)}, read the same way, does not")
    note = ("The report's last paragraph of §III.A: 'it achieves better results on the test dataset when the problems "
            "are more complex and when we have fewer tasks' (the second half is msr-benefit-fades).  Complexity is "
            "the rank and kernel size of the locally connected family (rank x kernel: the dimension of its filters' "
            "span); the check compares the extremes of Table I, rank 1 kernel 3 (a convolution) and rank 5 kernel 5, "
            "and shows all five.  Criterion v2 reads the benefit as the absolute reduction of the test loss: v1 "
            "read it relative to the unregularised loss, and the report's own Table I fails that reading (20 tasks: "
            "-33.6 % at rank 5 kernel 5 against -52.3 % at rank 1 kernel 3), while it meets this one (0.610 against "
            "0.353).  Caveat: an absolute reduction also grows with the loss itself, which is larger on the harder "
            "problems; the null (a second run of the simple problem from fresh seeds in place of the complex one) "
            "reads seed noise, not that scale.  v1's relative reading is reported beside it (history).")
    if not profile.full:
        note += f"  Quick profile: {plan['n_in']} inputs and a {len(plan['grid'])}-value lambda grid."
    settings = dict(_settings(profile), task_counts=[20], criterion=criterion, simple=_name(*SIMPLE),
                    complex=_name(*COMPLEX), twin_seeds=twins)
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note, criterion=criterion,
                   parts=[grows], history=history)
