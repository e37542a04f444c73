"""Claims of Yeh et al. (learned parameter sharing poster): the running example, the Gaussian analysis, the
sum-of-numbers experiment -- and, apart from the poster's, the lab's own checks (``kind="lab"``): the partition
distance on Gaussian data (the reference code's experiment, no statement of the poster) and a permutation-group
layer (the lab's task).

Every claim runs method 1 as the poster describes it (``lab.sharing.bilevel``: validation loss + 1e-2 entropy +
1e-2 nuclear norm, the reference code's optimiser settings, argmax snapping) -- the *faithful* run, which decides
``holds``.  Side by side, where they change anything (``settings["variants"]`` names them, ``Outcome.variants``
judges them by the same criterion, never deciding ``holds``):

* ``merge`` -- the same run's snapped partition after the lab's merge pass (``merge=True``; not in the poster);
* ``columns`` -- the reference code's low-rank penalty, the sum of A's column norms (``rank_penalty="columns"``),
  which is what ``trace(sqrt(AᵀA))`` computes with an elementwise sqrt and what produced the poster's numbers.

Every criterion is also applied to a baseline that must fail it (``Outcome.null``, ``claim.judge``): a random
partition -- the method's own starting point, a random A (softmax of N(0, 0.1) logits, as the method initialises
it) snapped to its argmax per row, i.e. every entry in a uniformly random column -- or the all-singletons partition
(no sharing).  Both are drawn beside the learned sharing in the figures.

The optimisations are a few hundred K x K parameters each: they run on the CPU whatever ``profile.device``.
Nothing is tuned on test data: every setting is the poster's, the reference code's or the task's declared default.
"""
from __future__ import annotations

import math

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, judge
from ..reproduce.stats import Part, Rule, part

FAITHFUL = "faithful (poster)"
MERGE = "with the lab's merge pass"
COLUMNS = "reference code's column-norm penalty"
RANDOM = "random partition (a random A, snapped)"
SINGLETONS = "all singletons (no sharing)"
VARIANTS = {"faithful": "rank_penalty=nuclear, merge=False (the defaults)",
            "merge": "the faithful run's snapped partition after the lab's merge pass (merge=True, tolerance 0.02)",
            "columns": "rank_penalty=columns (the reference code's surrogate), merge=False"}
#: random partitions drawn per trial (the random baseline's mean is over trials x draws)
DRAWS = 20
#: every A matrix item is drawn on 0..1: a softmax A, a 0/1 matrix and A_gt all live there
UNIT = [0.0, 1.0]


def _mean(xs):
    xs = [float(x) for x in xs]
    return sum(xs) / len(xs) if xs else None


def random_labels(K: int, rng):
    """A random partition as method 1 starts from it: A = softmax of N(0, 0.1) K x K logits (the reference code's
    initialisation), snapped to its argmax per row (softmax keeps the argmax: every entry lands in a uniformly
    random column)."""
    from .partition import canonical

    return canonical((0.1 * rng.standard_normal((K, K))).argmax(1))


def _random_partitions(K: int, seed: int, draws: int = DRAWS) -> list:
    """``draws`` random partitions (``random_labels``) for the trial of ``seed`` (their own stream, not the data's)."""
    import numpy as np

    rng = np.random.default_rng([int(seed), 0x5EED])
    return [random_labels(K, rng) for _ in range(draws)]


def _baselines(gt, seed: int) -> dict:
    """Partition distances of the random baseline (one per draw) and of all singletons to ``gt``."""
    import numpy as np

    from .partition import partition_distance

    K = len(gt)
    return {"random": [partition_distance(lab, gt) for lab in _random_partitions(K, seed)],
            "singletons": partition_distance(np.arange(K), gt)}


def _positive(value):
    """``value`` where a log axis can draw it, else None (a gap in the line)."""
    return value if value is not None and value > 0 else None


def _variant(name: str, measured, criterion) -> dict:
    return {"name": {"merge": MERGE, "columns": COLUMNS}[name], "what": VARIANTS[name], "measured": measured,
            "holds": bool(criterion(measured))}


def _run(task_factory, seeds, profile, label, fraction=(0.0, 1.0), **kw):
    """learn_sharing on ``task_factory(seed)`` for each seed (merge pass on: the result keeps both the snapped and
    the merged partition).  Returns a list of (task, result)."""
    from .bilevel import learn_sharing

    out = []
    lo, hi = fraction
    for i, seed in enumerate(seeds):
        profile.checkpoint()
        task = task_factory(seed)
        res = learn_sharing(task, seed=seed, merge=True, record_every=10**9, control=profile.control, **kw)
        out.append((task, res))
        profile.progress(lo + (hi - lo) * (i + 1) / len(seeds), f"{label}: trial {i + 1}/{len(seeds)}")
    return out


def _gaussian(profile, blocks, split: float, trials: int, form: str, fraction=(0.0, 1.0)) -> dict:
    """Trials of the poster's Gaussian experiment (K = 5, |D| = 100, σ = 1; seeds profile.seed … + trials − 1 as
    the reference's 0 … 199) for each number of true blocks in ``blocks``, all in one batch
    (``learn_sharing_batch``); {blocks: [per-trial dict]}, each trial with its baselines' gaps and partition
    distances (``DRAWS`` random partitions, all singletons).  Shared between the two Gaussian claims through
    ``profile.memo``."""
    import numpy as np

    from .bilevel import learn_sharing_batch
    from .partition import partition_distance
    from .tasks import GaussianTask

    label = (f"Gaussian data, r = {split}, {form} penalty: {trials} trials for each of {len(blocks)} numbers of "
             "true blocks in one batch")

    def make():
        profile.checkpoint()
        seeds = [profile.seed + t for t in range(trials)]
        tasks = [GaussianTask(K=5, blocks=b, samples=100, split=split, sigma=1.0, seed=s) for b in blocks
                 for s in seeds]
        lo, hi = fraction
        results = learn_sharing_batch(tasks, seeds * len(blocks), rank_penalty=form, merge=True,
                                      control=profile.control,
                                      progress=lambda done, total: profile.progress(lo + (hi - lo) * done / total,
                                                                                    label))
        profile.checkpoint()
        out = {}
        for i, (t, r) in enumerate(zip(tasks, results)):
            randoms = _random_partitions(t.K, seeds[i % trials])
            out.setdefault(blocks[i // trials], []).append(
                {"pd": r.snapped_distance, "pd_merge": r.partition_distance, "gap": t.mse_gap(r.snapped),
                 "gap_merge": r.mse_gap, "bound": t.gap_bound(), "snapped": r.snapped, "gt": t.gt,
                 "diverged": r.diverged, "random_gaps": [t.mse_gap(lab) for lab in randoms],
                 "random_pd": [partition_distance(lab, t.gt) for lab in randoms],
                 "singletons_gap": t.mse_gap(np.arange(t.K)),
                 "singletons_pd": partition_distance(np.arange(t.K), t.gt)})
        return out

    return profile.memo(("sharing-gaussian", tuple(blocks), split, trials, form), make, label=label)


def _matrix_item(title: str, A, labels, gt) -> dict:
    """A matrix evidence item: the relaxed A, the scored 0/1 matrix and A_gt in A's block order, each drawn on the
    fixed range 0..1 (a near-uniform softmax A must look near-uniform)."""
    import numpy as np

    from .partition import block_order as order
    from .partition import selection_matrix, snapped_matrix

    rows, cols = order(A, gt)
    S = snapped_matrix(A, labels)
    G = selection_matrix(gt)
    mats = {"relaxed A (softmax)": np.round(A[np.ix_(rows, cols)], 4).tolist(),
            "snapped A (0/1, scored)": S[np.ix_(rows, cols)].tolist(),
            "A_gt": G[rows].tolist()}
    return {"kind": "matrix", "title": title, "matrices": mats, "vmin": UNIT[0], "vmax": UNIT[1],
            "ranges": {label: list(UNIT) for label in mats}}


def _exact_criterion(pd_of):
    """The criterion of the three recovery claims, on what ``pd_of`` reads from a measurement: partition distance 0
    in every trial (a mean partition distance of 0: distances are never negative)."""
    def criterion(measured) -> bool:
        values = pd_of(measured)
        values = values if isinstance(values, list) else [values]
        return all(v is not None and float(v) == 0 for v in values)

    return criterion


#: an exact recovery (partition distance 0) as an interval rule: partition distances are whole numbers, so with at
#: most 20 draws the 95 % interval of their mean lies below 0.05 only when every draw is 0 (one draw of 1 among n
#: puts the interval's top at 1/n or higher)
EXACT = 0.05
#: the date the criteria of issue 46 (parts, replicates, nulls with teeth) were declared
REVISED = "2026-11-27"
#: trials of the three recovery claims at the quick profile: three, so that a threshold is judged on an interval
#: (one trial leaves none: the statistics layer reads it as no power); 1 before issue 62
QUICK_TRIALS = 3


def partition_distance_to_truth(draw) -> int:
    """The statistic of the exact-recovery claims, read on every claim draw (the learned, snapped partition of a
    trial) and every null draw (a random partition as the method starts from it): (labels, truth) -> PD."""
    from .partition import partition_distance

    labels, gt = draw
    return int(partition_distance(labels, gt))


def _null_seeds(profile, claim_draws: int) -> list:
    """The null's seeds: as many as the claim's draws, at least 3."""
    return [profile.seed + i for i in range(max(3, int(claim_draws)))]


def _exact_part(name: str, runs, profile, gt) -> Part:
    """Part "partition distance 0": the faithful snapped partition of every trial against a random partition (the
    method's own start: a random A snapped) at as many seeds (at least 3), by ``partition_distance_to_truth``."""
    draws = [(r.snapped, t.gt) for t, r in runs]
    null_draws = [(_random_partitions(len(gt), s, 1)[0], gt) for s in _null_seeds(profile, len(draws))]
    return part(name, partition_distance_to_truth, draws, null_draws, Rule("<", EXACT),
                "a random partition (a random A as the method initialises it, snapped), one per seed", exact=True)


def _exact_text(what: str) -> str:
    return (f"{what}: the 95 % interval of the mean faithful partition distance over the trials lies below "
            f"{EXACT:g} (partition distances are whole numbers: with at most 20 trials, 0 in every trial); null: a "
            "random partition as the method starts from it, one per seed at as many seeds (at least 3), read the "
            "same way")


# ---------------------------------------------------------------------------------------------- running example
CONV_V1 = "the faithful partition distance to Flatten(K)'s sharing is 0 in every trial"


@claim("share-conv-exact", "sharing", "Running example (Convolution); Approach",
       "The sharing of a convolution (kernel [2, 1] on R^3) is recovered from data: partition distance 0.",
       paper_value=0, seconds={"quick": 14, "full": 30},
       null="a random partition (a random A as the method initialises it, snapped), one per seed at 3 or more seeds",
       criteria=(Criterion(1, CONV_V1, FIRST_REGISTERED),
                 Criterion(2, _exact_text("(a) recovered"), REVISED,
                           reason="issue 46: judged as a part on an interval, with the null (a random partition) "
                                  "drawn at 3 or more seeds and read by the same statistic",
                           thresholds=(("EXACT", EXACT),), parts=("(a) recovered",))),
       paper_settings="the poster's running example (kernel [2, 1] on R^3) at the reference demo's sizes (50 train / "
                      "100 validation, Adam lr 0.1, 1000 steps), 3 restarts; quick: 3 trials, full: 10 (the poster "
                      "shows one example)",
       chosen_on=("the reference demo's sizes and optimiser for the poster's running example; quick: 3 trials, "
                  "for time; nothing tuned on outcomes (module docstring: the poster's, the reference code's or the "
                  "task's defaults)"))
def conv_exact(profile):
    from .defaults import DEFAULTS
    from .partition import is_refinement
    from .tasks import conv_task

    trials = profile.pick(quick=QUICK_TRIALS, full=10)
    seeds = [profile.seed + t for t in range(trials)]
    runs = _run(lambda s: conv_task(seed=s), seeds, profile, "conv", (0.0, 0.5))
    cols = _run(lambda s: conv_task(seed=s), seeds, profile, "conv, columns", (0.5, 1.0), rank_penalty="columns")
    pds = [r.snapped_distance for _, r in runs]
    merged = [r.partition_distance for _, r in runs]
    columns = [r.snapped_distance for _, r in cols]
    base = [_baselines(t.gt, s) for s, (t, _) in zip(seeds, runs)]
    random_pd = _mean([p for b in base for p in b["random"]])
    task, first = runs[0]
    criterion = _exact_criterion(lambda m: m)
    v1_holds, v1_null = judge(criterion, _mean(pds), "random partition", random_pd)
    recovered = _exact_part("(a) recovered", runs, profile, task.gt)
    holds = recovered.holds
    criterion_text = f"holds if {_exact_text('(a) recovered')} (K = 6 entries, 3 true blocks; {trials} trial(s))"
    d = DEFAULTS["conv"]
    settings = {"kernel": [2.0, 1.0], "length": 3, "train": 50, "val": 100, "noise": 0.0, "trials": trials,
                "seeds": seeds, "steps": d["steps"], "lr": d["lr"], "optimizer": d["optimizer"],
                "restarts": d["restarts"], "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear",
                "merge": False, "variants": VARIANTS, "random_draws": DRAWS, "criterion": criterion_text}
    evidence = [_matrix_item(f"convolution, seed {seeds[0]}: relaxed A, the snapped matrix the partition distance "
                             "is computed from, and A_gt", first.A, first.snapped, task.gt),
                {"kind": "bar", "title": "partition distance to the true sharing (K = 6 entries)",
                 "labels": ["convolution [2, 1] on R^3"], "ylabel": "mean partition distance",
                 "series": {FAITHFUL: [_mean(pds)], MERGE: [_mean(merged)], COLUMNS: [_mean(columns)],
                            RANDOM: [random_pd], SINGLETONS: [_mean([b["singletons"] for b in base])]},
                 "logy": False},
                {"kind": "table", "title": "partition distance per trial",
                 "columns": ["seed", FAITHFUL, MERGE, COLUMNS, "random partition (mean of draws)", SINGLETONS,
                             "blocks found (faithful)", "test MSE (faithful)", "test MSE, A_gt"],
                 "rows": [[s, int(r.snapped_distance), int(r.partition_distance), int(c.snapped_distance),
                           _mean(b["random"]), int(b["singletons"]), int(r.snapped.max() + 1),
                           float(t.refit_loss(r.snapped)), float(r.gt_test_loss)]
                          for s, (t, r), (_, c), b in zip(seeds, runs, cols, base)]}]
    note = ("Settings of the reference demo (50 train / 100 validation, Adam lr 0.1, 1000 steps; kernel [2, 1] as "
            "the poster, the demo uses [1, 2]); 3 restarts where the demo runs one. The random partition the "
            f"method starts from is {random_pd:.2f} entries away from the truth on average, all singletons "
            f"{base[0]['singletons']}. ")
    if not holds:
        wrong = [(t, r) for t, r in runs if r.snapped_distance > 0]
        finer = sum(is_refinement(r.snapped, t.gt) for t, r in wrong)
        note += (f"{len(wrong)} of {trials} faithful runs snap to a partition up to {max(pds)} entries away from "
                 f"the truth, {finer} of them finer than the truth (a true block split over columns holding the "
                 "same value: the same function, the test MSE equals A_gt's). The poster's nuclear norm rewards "
                 "that spread of a row over duplicate columns; the merge pass (max PD "
                 f"{max(merged)}) and the reference code's column-norm penalty (max PD {max(columns)}) undo it. ")
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds, "measured": _mean(pds),
                   "why": f"v1 on this run's {trials} trial(s): partition distance 0 in every trial; its null, the "
                          f"mean of {DRAWS} random partitions per trial ({random_pd:.2f}), read the same way"}}
    settings["null_seeds"] = _null_seeds(profile, trials)
    return Outcome(measured=_mean(pds), settings=settings, evidence=evidence, note=note.strip(),
                   criterion=criterion_text, parts=[recovered], history=history,
                   variants=[_variant("merge", _mean(merged), criterion),
                             _variant("columns", _mean(columns), criterion)])


# ---------------------------------------------------------------------------------------------- Gaussian data
GAUSSIAN_BLOCKS = (1, 2, 3, 4, 5)
GAP_V1 = ("at every split r and every number of true blocks rk(A_gt) >= 2, the fraction of trials whose MSE gap is "
          "at most the poster's bound is at least 1 - alpha, alpha = exp(-K/10)")
GAP_V2 = ("(a) within the bound: per trial, the fraction of the tested settings (every split r, every rk(A_gt) >= 2) "
          "whose MSE gap is at most the poster's bound; the 95 % interval of its mean over the trials lies above "
          "1 - alpha, alpha = exp(-K/10) (K = 5); null: a random partition per trial and setting, read the same way")


def fraction_within_bound(draw) -> float:
    """The statistic of share-gaussian-gap-bound, read on a trial's learned partitions and on a random partition
    at the same trial: the fraction of its (gap, bound) pairs, one per tested setting, with gap <= bound."""
    return _mean([gap <= bound for gap, bound in draw])


@claim("share-gaussian-gap-bound", "sharing", "Results, Claim (Gaussian data, Eq. 1)",
       "With probability 1 - alpha (alpha < exp(-K/10)) the MSE gap of the learned sharing is below "
       "sigma^2 ((1-r)/(r|D|) (rk(A_gt) - 1) - 40 ln(alpha)/((1-r)|D|)).", paper_value="gap <= bound",
       seconds={"quick": 9, "full": 9000},
       null="a random partition (a random A as the method initialises it, snapped) in place of the learned one, one "
            "per trial",
       criteria=(Criterion(1, GAP_V1, FIRST_REGISTERED),
                 Criterion(2, GAP_V2, REVISED,
                           reason="issue 46: the trials are the replicates: each trial's fraction of the tested "
                                  "settings (split r, rk >= 2) within the bound, judged on the 95 % interval of "
                                  "the mean over trials; the null (a random partition per trial) read by the same "
                                  "statistic",
                           thresholds=(("1 - alpha", round(1 - math.exp(-0.5), 6)),), parts=("(a) within the bound",))),
       paper_settings="K = 5, |D| = 100, sigma = 1, block means 3 apart as the reference code; quick: splits r in "
                      "{0.3, 0.5, 0.7} x 10 trials, full: r = 0.1 ... 0.9 x 200 trials (the reference code's grid)",
       chosen_on=("the reference code's Gaussian setup; quick: 3 of its splits x 10 trials, for time; nothing tuned "
                  "on outcomes (module docstring: the poster's, the reference code's or the task's defaults)"))
def gaussian_gap_bound(profile):
    splits = profile.pick(quick=(0.3, 0.5, 0.7), full=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9))
    trials = profile.pick(quick=10, full=200)
    K, blocks = 5, GAUSSIAN_BLOCKS
    tested = tuple(b for b in blocks if b > 1)
    alpha = math.exp(-K / 10)
    runs = {r: _gaussian(profile, blocks, r, trials, "nuclear", (i / len(splits), (i + 1) / len(splits)))
            for i, r in enumerate(splits)}

    def gaps(trial, key):
        return trial["random_gaps"] if key == "random" else [trial[key]]

    def fraction(r, b, key):
        return _mean([g <= t["bound"] for t in runs[r][b] for g in gaps(t, key)])

    def summary(key):
        within = {str(r): {str(b): fraction(r, b, key) for b in blocks} for r in splits}
        pooled = [g <= t["bound"] for r in splits for b in tested for t in runs[r][b] for g in gaps(t, key)]
        return {"worst_fraction": min(within[str(r)][str(b)] for r in splits for b in tested),
                "fraction_within_bound": _mean(pooled), "within_bound": within}

    def criterion(m) -> bool:
        return m["worst_fraction"] >= 1 - alpha

    measured = dict(summary("gap"), one_minus_alpha=1 - alpha,
                    mean_gap=_mean([t["gap"] for r in splits for b in tested for t in runs[r][b]]),
                    bound={str(r): {str(b): runs[r][b][0]["bound"] for b in blocks} for r in splits},
                    tested_blocks=list(tested))
    random_m = summary("random")
    singles = summary("singletons_gap")
    merge_m = summary("gap_merge")
    v1_holds, v1_null = judge(criterion, measured, "random partition", random_m)
    draws = [[(runs[r][b][i]["gap"], runs[r][b][i]["bound"]) for r in splits for b in tested] for i in range(trials)]
    null_draws = [[(runs[r][b][i]["random_gaps"][0], runs[r][b][i]["bound"]) for r in splits for b in tested]
                  for i in range(trials)]
    within = part("(a) within the bound", fraction_within_bound, draws, null_draws, Rule(">", 1 - alpha),
                  "a random partition (the method's start: a random A, snapped) per trial and setting")
    holds = within.holds
    criterion_text = (f"holds if, per trial, the fraction of the tested settings (splits r in {list(splits)}, "
                      f"rk(A_gt) in {list(tested)}) whose MSE gap is at most the poster's bound has a 95 % interval "
                      f"of its mean over the {trials} trials wholly above 1 - alpha = {1 - alpha:.3f}, alpha = "
                      "exp(-K/10) (K = 5), and a random partition per trial and setting, read the same way, does not; "
                      "rk(A_gt) = 1 is shown but not tested (every partition refines one block: none can exceed the "
                      "bound)")
    settings = {"K": K, "blocks": list(blocks), "tested_blocks": list(tested), "samples": 100, "sigma": 1.0,
                "psi_gt": "3 * arange(rk)", "splits": list(splits), "trials": trials, "alpha": alpha,
                "steps": 1000, "lr": 2e-2, "optimizer": "rmsprop", "weight_decay": 1e-4, "restarts": 3,
                "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear", "merge": False,
                "variants": {k: VARIANTS[k] for k in ("faithful", "merge")}, "random_draws": DRAWS,
                "criterion": criterion_text}
    rows = []
    for r in splits:
        for b in blocks:
            ts = runs[r][b]
            rows.append([r, b, ts[0]["bound"], _mean([t["gap"] for t in ts]), _mean([t["gap_merge"] for t in ts]),
                         _mean([g for t in ts for g in t["random_gaps"]]), _mean([t["singletons_gap"] for t in ts]),
                         fraction(r, b, "gap"), fraction(r, b, "gap_merge"), fraction(r, b, "random"),
                         fraction(r, b, "singletons_gap"), _mean([t["pd"] for t in ts])])
    worst_over_splits = {key: [min(fraction(r, b, key) for r in splits) for b in blocks]
                         for key in ("gap", "gap_merge", "random", "singletons_gap")}
    r0 = 0.3 if 0.3 in splits else splits[0]
    at_r0 = [row for row in rows if row[0] == r0]
    evidence = [
        {"kind": "bar", "title": "fraction of trials within the poster's bound at the worst split r (K = 5, "
                                 f"|D| = 100); the criterion asks at least 1 - alpha = {1 - alpha:.3f} for rk >= 2",
         "ylabel": "fraction within the bound", "labels": [f"rk = {b}" for b in blocks],
         "series": {FAITHFUL: worst_over_splits["gap"], MERGE: worst_over_splits["gap_merge"],
                    RANDOM: worst_over_splits["random"], SINGLETONS: worst_over_splits["singletons_gap"]},
         "logy": False},
        {"kind": "line", "title": f"mean MSE gap against the poster's bound at r = {r0} (K = 5, |D| = 100; a mean "
                                  "gap <= 0, as good as A_gt, is not drawn on the log scale)",
         "xlabel": "true blocks rk(A_gt)", "ylabel": "MSE gap", "x": list(blocks),
         "series": {"bound": [row[2] for row in at_r0], f"mean gap, {FAITHFUL}": [_positive(row[3]) for row in at_r0],
                    f"mean gap, {RANDOM}": [_positive(row[5]) for row in at_r0],
                    f"mean gap, {SINGLETONS}": [_positive(row[6]) for row in at_r0]}, "logx": False, "logy": True},
        {"kind": "table", "title": "per split r and number of true blocks",
         "columns": ["r", "true blocks", "bound", "mean gap", "mean gap (merge)", "mean gap (random)",
                     "mean gap (singletons)", "within bound", "within bound (merge)", "within bound (random)",
                     "within bound (singletons)", "mean partition distance"], "rows": rows}]
    sing_one = [t["singletons_gap"] for r in splits for t in runs[r][1]]
    bound_min = min(row[2] for row in rows)
    random_gap_min = min(g for r in splits for b in tested for t in runs[r][b] for g in t["random_gaps"]
                         if g > bound_min) if any(
        g > bound_min for r in splits for b in tested for t in runs[r][b] for g in t["random_gaps"]) else None
    note = (f"alpha = exp(-K/10) = {alpha:.3f} (the boundary of the poster's alpha < exp(-K/10)), so the bound is "
            f"claimed with probability {1 - alpha:.3f}; -40 ln(alpha) = 4K = 20. Data as the reference code's "
            "(K = 5, |D| = 100, sigma = 1, block means 0, 3, 6, ..., A_gt uniform among the partitions into rk "
            "blocks). The gap is MSE(theta_val) - MSE(theta_gt), both refitted on train + validation; it can be "
            "negative. The bound is loose against over-splitting: a partition finer than A_gt costs only its extra "
            "blocks' estimation noise, about (blocks found - rk) sigma^2/|D| on average, so all singletons cost "
            f"about (K - rk) sigma^2/|D|, 0.04 at one block (measured {_mean(sing_one):.3f} on average, at most "
            f"{max(sing_one):.3f}), against bounds of at least {bound_min:.3f}, and pass everywhere. What the bound "
            "can fail is a partition that merges true blocks of different means: n1 entries of mean m1 merged with "
            "n2 of mean m2 cost n1 n2/(n1 + n2) (m1 - m2)^2 beyond the noise, at least 4.5 here (means 3 apart). "
            "That is why rk(A_gt) = 1 (every partition refines it) tests nothing and is left out of the criterion. "
            "A trial's A_gt and its random partitions are the same at every split (one "
            "seed per trial). The random partition is within the bound in "
            f"{random_m['worst_fraction']:.2f} to {max(fraction(r, b, 'random') for r in splits for b in tested):.2f}"
            f" of its draws at the tested settings (fewer with more true blocks), against 1 - alpha = "
            f"{1 - alpha:.3f}")
    note += (f"; its gaps above the bound start at {random_gap_min:.2f}. " if random_gap_min is not None else ". ")
    note += (f"The learned sharing is within the bound in {measured['fraction_within_bound']:.2f} of the tested "
             f"trials (worst setting {measured['worst_fraction']:.2f}): its errors are over-splits, which the bound "
             "allows. ")
    if not holds:
        from .partition import is_refinement

        bad = [(r, b, t) for r in splits for b in tested for t in runs[r][b] if t["gap"] > t["bound"]]
        merges = sum(not is_refinement(t["snapped"], t["gt"]) for _, _, t in bad)
        worst = min(((r, b) for r in splits for b in tested), key=lambda rb: fraction(rb[0], rb[1], "gap"))
        note = (f"At r = {worst[0]}, rk = {worst[1]} only {fraction(*worst, 'gap'):.2f} of the trials are within "
                f"the bound. Of the {len(bad)} trials above the bound, {merges} snap to a partition that merges "
                "true blocks of different means (not a refinement of A_gt). " + note)
    variants = [{"name": MERGE, "what": VARIANTS["merge"], "measured": merge_m, "holds": criterion(merge_m)}]
    measured["singletons_worst_fraction"] = singles["worst_fraction"]
    measured["per_trial_fraction"] = within.measured
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds,
                   "measured": {"worst_fraction": measured["worst_fraction"],
                                "random_worst_fraction": random_m["worst_fraction"]},
                   "why": f"v1 on this run's {trials} trials: the worst (r, rk) setting's fraction of trials within "
                          f"the bound against 1 - alpha; its null, {DRAWS} random partitions per trial, the same way"}}
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note.strip(),
                   criterion=criterion_text, parts=[within], history=history, variants=variants)


PD_V1 = ("at every number of true blocks rk(A_gt) < K, the faithful mean partition distance is below all "
         "singletons' (K - rk) and below a random partition's")
#: "below" in share-gaussian-pd: a margin of a twentieth of an entry, so that a tie (a difference of whole partition
#: distances of exactly 0) is not below
BELOW = -0.05
PD_V2 = ("per trial, at its worst number of true blocks rk(A_gt) < K: (a) the faithful partition distance minus all "
         "singletons' (K - rk) and (b) minus the mean of the trial's reference random partitions; each part holds if "
         f"the 95 % interval of its mean over the trials lies below {BELOW:g} (a tie at 0 is not below); null: a "
         "further random partition per trial (not among the reference ones) in place of the learned one, read by "
         "the same statistics")


def _worst_rk(draw, reference) -> float:
    """max over the tested rk of PD(draw's partition at rk) - reference(rk, trial): a draw is one trial's
    {rk: (labels, truth, trial)}."""
    from .partition import partition_distance

    return max(float(partition_distance(labels, gt)) - reference(rk, trial) for rk, (labels, gt, trial)
               in draw.items())


def pd_minus_singletons(draw) -> float:
    """Statistic (a) of share-gaussian-pd: at the trial's worst rk, its partition distance minus all singletons'."""
    return _worst_rk(draw, lambda rk, trial: float(trial["singletons_pd"]))


def pd_minus_random(draw) -> float:
    """Statistic (b) of share-gaussian-pd: at the trial's worst rk, its partition distance minus the mean of the
    trial's reference random partitions (draws 2 ... DRAWS; the first is the null's)."""
    return _worst_rk(draw, lambda rk, trial: _mean(trial["random_pd"][1:]))


@claim("share-gaussian-pd", "sharing", "Analysis on Gaussian data; the reference code's partition-distance "
                                       "experiment (the lab's reading)",
       "The lab's reading of the reference code's partition-distance experiment on data following Eq. (1) (the "
       "poster states no result of it): the partition distance between the recovered A_val and A_gt is below that "
       "of no sharing (all singletons) and of a random partition at every number of true blocks rk(A_gt) < K.",
       paper_value=None, seconds={"quick": 5, "full": 2400}, kind="lab",
       null="a random partition per trial (the method's start) in place of the learned one",
       criteria=(Criterion(1, PD_V1, FIRST_REGISTERED),
                 Criterion(2, PD_V2, REVISED,
                           reason="issue 46: the v1 null (all singletons against its own distance K - rk) failed by "
                                  "construction; the trials are now the replicates, each comparison a part judged "
                                  "on an interval, with a random partition per trial as the competing explanation",
                           thresholds=(("BELOW", BELOW),),
                           parts=("(a) below no sharing", "(b) below a random partition"))),
       paper_settings="the reference code's experiment (K = 5, |D| = 100, sigma = 1, r = 0.3; the poster reports "
                      "no result of it); quick: 10 trials per number of true blocks, full: 200 (the reference's)",
       chosen_on=("the reference code's experiment (r = 0.3); quick: 10 trials per block count, for time; nothing "
                  "tuned on outcomes (module docstring: the poster's, the reference code's or the task's defaults)"))
def gaussian_pd(profile):
    from scipy.stats import spearmanr

    from .partition import is_refinement

    trials = profile.pick(quick=10, full=200)
    K, block_counts = 5, GAUSSIAN_BLOCKS
    tested = [b for b in block_counts if b < K]
    split = 0.3
    faithful, merged, columns, random_pd, singles, refine, rows = [], [], [], [], [], [], []
    nuclear_runs = _gaussian(profile, block_counts, split, trials, "nuclear", (0.0, 0.5))
    column_runs = _gaussian(profile, block_counts, split, trials, "columns", (0.5, 1.0))
    for b in block_counts:
        runs, cols = nuclear_runs[b], column_runs[b]
        faithful.append(_mean([t["pd"] for t in runs]))
        merged.append(_mean([t["pd_merge"] for t in runs]))
        columns.append(_mean([t["pd"] for t in cols]))
        random_pd.append(_mean([p for t in runs for p in t["random_pd"]]))
        singles.append(_mean([t["singletons_pd"] for t in runs]))
        wrong = [t for t in runs if t["pd"] > 0]
        refine.append(_mean([is_refinement(t["snapped"], t["gt"]) for t in wrong]))
        rows.append([b, faithful[-1], merged[-1], columns[-1], random_pd[-1], singles[-1], len(wrong), refine[-1]])

    def criterion(pds) -> bool:
        return all(pds[i] < singles[i] and pds[i] < random_pd[i] for i, b in enumerate(block_counts) if b < K)

    v1_holds, v1_null = judge(criterion, faithful, "all singletons", singles)
    draws = [{b: (nuclear_runs[b][i]["snapped"], nuclear_runs[b][i]["gt"], nuclear_runs[b][i]) for b in tested}
             for i in range(trials)]
    null_draws = [{b: (_random_partitions(K, profile.seed + i, 1)[0], nuclear_runs[b][i]["gt"], nuclear_runs[b][i])
                   for b in tested} for i in range(trials)]
    null_text = "a further random partition per trial (the method's start: a random A, snapped)"
    parts = [part("(a) below no sharing", pd_minus_singletons, draws, null_draws, Rule("<", BELOW), null_text),
             part("(b) below a random partition", pd_minus_random, draws, null_draws, Rule("<", BELOW), null_text)]
    holds = all(p.holds for p in parts)
    rho = float(spearmanr(block_counts, faithful).statistic) if len(set(faithful)) > 1 else float("nan")
    measured = {"blocks": list(block_counts), "faithful": faithful, "merge": merged, "columns": columns,
                "random": random_pd, "singletons": singles, "spearman_rho": None if math.isnan(rho) else rho}
    criterion_text = (f"holds if, per trial at its worst number of true blocks rk(A_gt) in {tested} (K = 5; at "
                      "rk = K all singletons is the truth), (a) the faithful partition distance minus all singletons' "
                      f"K - rk and (b) minus the mean of the trial's {DRAWS - 1} reference random partitions have 95 % "
                      f"intervals of their means over the {trials} trials wholly below {BELOW:g} (a tie at 0 is not "
                      "below), and a further random "
                      "partition per trial, read the same way, does not")
    settings = {"K": K, "samples": 100, "split": split, "sigma": 1.0, "blocks": list(block_counts),
                "tested_blocks": tested, "trials": trials, "steps": 1000, "lr": 2e-2, "optimizer": "rmsprop",
                "weight_decay": 1e-4, "restarts": 3, "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear",
                "merge": False, "variants": VARIANTS, "random_draws": DRAWS, "criterion": criterion_text}
    evidence = [
        {"kind": "line", "title": "mean partition distance against the number of true blocks (K = 5, |D| = 100, "
                                  "r = 0.3)", "xlabel": "true blocks rk(A_gt)", "ylabel": "mean partition distance",
         "x": list(block_counts), "series": {FAITHFUL: faithful, MERGE: merged, COLUMNS: columns, RANDOM: random_pd,
                                             SINGLETONS: singles},
         "logx": False, "logy": False},
        {"kind": "table", "title": "mean partition distance per number of true blocks",
         "columns": ["true blocks", FAITHFUL, MERGE, COLUMNS, "random partition", SINGLETONS,
                     "faithful trials with PD > 0", "of which finer than the truth"], "rows": rows}]
    wrong_fine = [x for x in refine if x is not None]
    fine_text = f"{_mean(wrong_fine):.2f}" if wrong_fine else "none"
    note = ("The poster reports no partition distance on Gaussian data; the reference code's experiment measures "
            "it against the number of true blocks, and this check reads it against two estimators a referee would "
            "compare with: no sharing (all singletons, partition distance K - rk) and the random partition the "
            "method starts from. Each is a part, read per trial at the trial's worst number of true blocks; the "
            "null is a further random partition per trial: where it too is below no sharing, part (a) has no power. "
            f"The faithful method's errors are over-splits (a fraction {fine_text} of its trials with PD > 0 snap "
            "to a partition finer than the truth: two columns holding the same mean fit as well as one); they are "
            "most frequent with few true blocks (more entries share a block that can be split) and come largely "
            "from the poster's nuclear norm: a row spread over two columns holding the same block has a lower "
            "nuclear norm than the hard choice, while the reference code's column-norm sum is indifferent to it "
            f"(series '{COLUMNS}'). The lab's merge pass undoes over-splits (mean partition distance at most "
            f"{max(merged):.2f}). ")
    if not math.isnan(rho):
        note += (f"The faithful partition distance against the number of true blocks has Spearman rho = {rho:.2f} "
                 "(reported, not tested: the poster states no trend). ")
    if not holds:
        fails = [f"rk = {b}: {faithful[i]:.2f} against {singles[i]:.0f} (singletons) and {random_pd[i]:.2f} (random)"
                 for i, b in enumerate(block_counts) if b < K and not (faithful[i] < singles[i]
                                                                        and faithful[i] < random_pd[i])]
        note = ("The faithful partition distance is not below both baselines at " + "; ".join(fails) + ". With "
                f"the reference code's column-norm penalty it is {[round(x, 2) for x in columns]}, with the merge "
                f"pass {[round(x, 2) for x in merged]} (rk = 1 ... 5). " + note)
    variants = [_variant("merge", merged, criterion), _variant("columns", columns, criterion)]
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds, "measured": {"faithful": faithful[:len(tested)]},
                   "why": f"v1 on this run's {trials} trials: the mean partition distance per rk against all "
                          "singletons' and the random partitions' means; its null, all singletons, the same way "
                          "(it cannot be below itself)"}}
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note.strip(),
                   criterion=criterion_text, parts=parts, history=history, variants=variants)


# ---------------------------------------------------------------------------------------------- sum of numbers
SUM_V1 = "the faithful partition distance to the true sharing (all positions one block) is 0 in every run"


@claim("share-sum", "sharing", "Experiments (Sum of Numbers)",
       "Regressing the sum of a sequence of number words, the learned sharing recovers the permutation "
       "invariance (partition distance to the true sharing) and regresses the sum.", paper_value=None,
       seconds={"quick": 7, "full": 120},
       null="a random partition (a random A as the method initialises it, snapped), one per seed at 3 or more seeds "
            "and length",
       criteria=(Criterion(1, SUM_V1, FIRST_REGISTERED),
                 Criterion(2, _exact_text("(a) recovered at every length"), REVISED,
                           reason="issue 46: judged as a part on an interval, with the null (a random partition) "
                                  "drawn at 3 or more seeds per length and read by the same statistic",
                           thresholds=(("EXACT", EXACT),), parts=("(a) recovered at every length",))),
       paper_settings="digits 1-9 in every position, +-0.5 label noise, 100 train / 150 validation as the reference "
                      "code, but a linear read-out per position with the closed-form lower level (the reference: an "
                      "embedding network, Neumann-series hypergradient); quick: length 5, 3 runs; full: lengths 2-10, "
                      "5 runs each",
       chosen_on=("the reference code's data sizes with the lab's linear read-out; quick: length 5, 3 runs, for "
                  "time; nothing tuned on outcomes (module docstring: the poster's, the reference code's or the "
                  "task's defaults)"))
def sum_of_numbers(profile):
    from .defaults import DEFAULTS
    from .tasks import sum_task

    lengths = profile.pick(quick=(5,), full=(2, 4, 6, 8, 10))
    runs_per = profile.pick(quick=QUICK_TRIALS, full=5)
    test = profile.pick(quick=1000, full=100_000)
    seeds = [profile.seed + s for s in range(runs_per)]
    rows, faithful_all, row_max, draws, null_draws = [], [], [], [], []
    series = {FAITHFUL: [], MERGE: [], COLUMNS: [], RANDOM: [], SINGLETONS: []}
    loss = {FAITHFUL: [], COLUMNS: [], "A_gt (one block)": []}
    n = len(lengths)
    for i, L in enumerate(lengths):
        make = lambda s, L=L: sum_task(positions=L, test=test, seed=s)  # noqa: E731
        runs = _run(make, seeds, profile, f"sum, {L} positions", (i / n, (i + 0.5) / n))
        cols = _run(make, seeds, profile, f"sum, {L} positions, columns", ((i + 0.5) / n, (i + 1) / n),
                    rank_penalty="columns")
        base = [_baselines(t.gt, s) for s, (t, _) in zip(seeds, runs)]
        pd_f = [r.snapped_distance for _, r in runs]
        faithful_all += pd_f
        draws += [(r.snapped, t.gt) for t, r in runs]
        gt = runs[0][0].gt
        null_draws += [(_random_partitions(len(gt), s, 1)[0], gt) for s in _null_seeds(profile, len(runs))]
        row_max += [float(r.A.max(1).mean()) for _, r in runs]
        series[FAITHFUL].append(_mean(pd_f))
        series[MERGE].append(_mean([r.partition_distance for _, r in runs]))
        series[COLUMNS].append(_mean([r.snapped_distance for _, r in cols]))
        series[RANDOM].append(_mean([p for b in base for p in b["random"]]))
        series[SINGLETONS].append(_mean([b["singletons"] for b in base]))
        faithful_loss = [t.refit_loss(r.snapped) for t, r in runs]
        loss[FAITHFUL].append(_mean(faithful_loss))
        loss[COLUMNS].append(_mean([r.test_loss for _, r in cols]))
        loss["A_gt (one block)"].append(_mean([r.gt_test_loss for _, r in runs]))
        rows.append([L, series[FAITHFUL][-1], series[MERGE][-1], series[COLUMNS][-1], series[RANDOM][-1],
                     series[SINGLETONS][-1], loss[FAITHFUL][-1], loss[COLUMNS][-1], loss["A_gt (one block)"][-1]])
    criterion = _exact_criterion(lambda m: m["partition_distance"])
    d = DEFAULTS["sum"]
    measured = {"positions": list(lengths), "partition_distance": series[FAITHFUL],
                "test_mse": loss[FAITHFUL], "test_mse_gt": loss["A_gt (one block)"],
                "partition_distance_columns": series[COLUMNS], "partition_distance_merge": series[MERGE],
                "partition_distance_random": series[RANDOM], "partition_distance_singletons": series[SINGLETONS]}
    v1_holds, v1_null = judge(criterion, measured, "random partition", {"partition_distance": series[RANDOM]})
    recovered = part("(a) recovered at every length", partition_distance_to_truth, draws, null_draws,
                     Rule("<", EXACT), "a random partition (a random A as the method initialises it, snapped), one "
                                       "per seed and length", exact=True)
    holds = recovered.holds
    criterion_text = (f"holds if {_exact_text('(a) recovered at every length')} (lengths {list(lengths)}, all "
                      f"positions one block; {runs_per} run(s) per length); the test MSE is reported against the "
                      "true sharing's")
    settings = {"positions": list(lengths), "runs": runs_per, "seeds": seeds, "train": 100, "val": 150, "test": test,
                "label_noise": 0.5, "steps": d["steps"], "lr": d["lr"], "optimizer": d["optimizer"],
                "restarts": d["restarts"], "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear",
                "merge": False, "variants": VARIANTS, "random_draws": DRAWS, "criterion": criterion_text}
    x = [float(L) for L in lengths]
    evidence = [
        {"kind": "bar" if n == 1 else "line",
         "title": "partition distance to the true sharing (one block), beside the random partition the method "
                  "starts from and no sharing",
         **({"labels": [f"{L} positions" for L in lengths]} if n == 1 else
            {"xlabel": "sequence length (positions)", "x": x, "logx": False}),
         "ylabel": "mean partition distance", "series": series, "logy": False},
        {"kind": "bar" if n == 1 else "line", "title": "noiseless test MSE after refitting on train + validation",
         **({"labels": [f"{L} positions" for L in lengths]} if n == 1 else
            {"xlabel": "sequence length (positions)", "x": x, "logx": False}),
         "ylabel": "test MSE", "series": loss, "logy": False},
        {"kind": "table", "title": "sum of numbers",
         "columns": ["positions", "PD " + FAITHFUL, "PD merge", "PD columns", "PD random partition",
                     "PD all singletons", "test MSE " + FAITHFUL, "test MSE columns", "test MSE A_gt"],
         "rows": rows}]
    note = ("The poster states no number. Data as the reference code (digits 1-9 in every position, +-0.5 uniform "
            "label noise, 100 train / 150 validation, noiseless test set); the model is the lab's linear read-out "
            "per position with the expected-loss closed form as the lower level (the reference trains an embedding "
            "network with a Neumann-series implicit hypergradient, an L1 loss and early stopping), so the test MSE "
            f"is not comparable with the paper's. The random partition the method starts from is {series[RANDOM]} "
            f"entries away from the truth on average, all singletons {series[SINGLETONS]}.")
    if not holds:
        note = (f"The faithful partition distance is {series[FAITHFUL]}. With the poster's nuclear norm the relaxed "
                f"A stays soft (its rows' largest entry {_mean(row_max):.2f} on average; a 0/1 A has 1, the uniform "
                "A 1/K): a row spread over columns holding the same weights lowers the nuclear norm (the uniform A "
                "has rank 1 and norm 1, a hard single block sqrt(K)) while the validation loss barely tells the "
                "columns apart, so argmax snapping splits the single block. The reference code's column-norm "
                f"penalty, indifferent to that spread, gives mean partition distances {series[COLUMNS]}, the merge "
                f"pass {series[MERGE]}. " + note)
    variants = [_variant("merge", {"partition_distance": series[MERGE]}, criterion),
                _variant("columns", {"partition_distance": series[COLUMNS]}, criterion)]
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds, "measured": {"partition_distance": series[FAITHFUL]},
                   "why": f"v1 on this run's {runs_per} run(s) per length: partition distance 0 in every run; its "
                          "null, "
                          f"the mean of {DRAWS} random partitions per run, read the same way"}}
    settings["null_seeds"] = _null_seeds(profile, runs_per)
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note,
                   criterion=criterion_text, parts=[recovered], history=history, variants=variants)


# ---------------------------------------------------------------------------------------------- permutation group
GROUP_V1 = "the faithful partition distance to the orbit partition is 0 in every trial"


@claim("share-group", "sharing", "The lab's task (the poster's contribution: recovering shift and permutation "
                                 "equivariance)",
       "The lab's own check of method 1 on a task of its own (not an experiment of the poster): the sharing of an "
       "S(4)-equivariant linear layer on V is recovered from data, partition distance 0.", paper_value=None,
       seconds={"quick": 18, "full": 60}, kind="lab",
       null="a random partition (a random A as the method initialises it, snapped), one per seed at 3 or more seeds",
       criteria=(Criterion(1, GROUP_V1, FIRST_REGISTERED),
                 Criterion(2, _exact_text("(a) recovered"), REVISED,
                           reason="issue 46: judged as a part on an interval, with the null (a random partition) "
                                  "drawn at 3 or more seeds and read by the same statistic",
                           thresholds=(("EXACT", EXACT),), parts=("(a) recovered",))),
       paper_settings="the lab's own task (no experiment of the poster): a random S(4)-equivariant layer on V, 60 "
                      "train / 100 validation, noise 0.1; quick: 3 trials, full: 10",
       chosen_on=("the lab's task's declared defaults (60 train / 100 validation, noise 0.1); quick: 3 trials, for "
                  "time; nothing tuned on outcomes (module docstring: the poster's, the reference code's or the "
                  "task's defaults)"))
def group_layer(profile):
    from .defaults import DEFAULTS
    from .partition import is_refinement
    from .tasks import group_task

    group, rep = "S(4)", "V"
    trials = profile.pick(quick=QUICK_TRIALS, full=10)
    seeds = [profile.seed + t for t in range(trials)]
    make = lambda s: group_task(group, rep, rep, seed=s)  # noqa: E731
    runs = _run(make, seeds, profile, f"{group} {rep}>>{rep}", (0.0, 0.5))
    cols = _run(make, seeds, profile, f"{group} {rep}>>{rep}, columns", (0.5, 1.0), rank_penalty="columns")
    pds = [r.snapped_distance for _, r in runs]
    base = [_baselines(t.gt, s) for s, (t, _) in zip(seeds, runs)]
    random_pd = _mean([p for b in base for p in b["random"]])
    d = DEFAULTS["group"]
    task, first = runs[0]
    K, true_blocks = int(task.K), int(task.gt.max() + 1)
    criterion = _exact_criterion(lambda m: m["partition_distance"])
    measured = {"partition_distance": _mean(pds), "merge": _mean([r.partition_distance for _, r in runs]),
                "columns": _mean([r.snapped_distance for _, r in cols]), "random": random_pd,
                "singletons": _mean([b["singletons"] for b in base]), "K": K, "true_blocks": true_blocks}
    v1_holds, v1_null = judge(criterion, measured, "random partition", {"partition_distance": random_pd})
    recovered = _exact_part("(a) recovered", runs, profile, task.gt)
    holds = recovered.holds
    criterion_text = (f"holds if {_exact_text('(a) recovered')} (the orbit partition: {K} entries, {true_blocks} "
                      f"blocks; {trials} trial(s))")
    settings = {"group": group, "rep_in": rep, "rep_out": rep, "train": 60, "val": 100, "noise": 0.1,
                "trials": trials, "seeds": seeds, "steps": d["steps"], "lr": d["lr"], "optimizer": d["optimizer"],
                "restarts": d["restarts"], "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear",
                "merge": False, "variants": VARIANTS, "random_draws": DRAWS, "criterion": criterion_text}
    evidence = [
        _matrix_item(f"{group} {rep} >> {rep}, seed {seeds[0]} (faithful): relaxed A, the snapped matrix the "
                     "partition distance is computed from, and A_gt", first.A, first.snapped, task.gt),
        {"kind": "bar", "title": f"partition distance to the orbit partition ({K} entries, {true_blocks} blocks)",
         "labels": [f"{group} {rep} >> {rep}"], "ylabel": "mean partition distance",
         "series": {FAITHFUL: [measured["partition_distance"]], MERGE: [measured["merge"]],
                    COLUMNS: [measured["columns"]], RANDOM: [random_pd], SINGLETONS: [measured["singletons"]]},
         "logy": False},
        {"kind": "table", "title": "per trial",
         "columns": ["seed", "PD " + FAITHFUL, "PD merge", "PD columns", "PD random partition (mean of draws)",
                     "PD all singletons", "blocks found (faithful)", "test MSE", "test MSE, A_gt"],
         "rows": [[s, int(r.snapped_distance), int(r.partition_distance), int(c.snapped_distance),
                   _mean(b["random"]), int(b["singletons"]), int(r.snapped.max() + 1),
                   float(task_.refit_loss(r.snapped)), float(r.gt_test_loss)]
                  for s, (task_, r), (_, c), b in zip(seeds, runs, cols, base)]}]
    wrong = [(r, t.gt) for t, r in runs if r.snapped_distance > 0]
    finer = sum(is_refinement(r.snapped, gt) for r, gt in wrong)
    note = ("The group task is the lab's: the poster reports shift and permutation equivariance recovered, and "
            "the reference code has no group-layer experiment. y = W x + 0.1 noise with W a random "
            "S(4)-equivariant layer on V (2 shared values: diagonal and off-diagonal), 60 train / 100 validation. "
            f"The random partition the method starts from is {random_pd:.2f} entries away from the truth on "
            f"average, all singletons {measured['singletons']:.0f}.")
    if not holds:
        row_max = _mean([float(r.A.max(1).mean()) for r, _ in wrong])
        note = (f"{len(wrong)} of {trials} faithful runs miss the orbit partition ({finer} of them with a partition "
                f"finer than the truth). In those the relaxed A stays soft (its rows' largest entry {row_max:.3f} on "
                f"average; a 0/1 A has 1, the uniform A 1/K = {1 / task.K:.3f}): the poster's nuclear norm is lower "
                "for a row spread over columns holding the same value (down to 1 for the uniform A, against "
                "sum_j sqrt(n_j) for a hard partition), so true blocks are spread over several columns and argmax "
                "splits them or snaps noise. See 'PD merge' (the lab's merge pass) and 'PD columns' (the reference "
                "code's column-norm penalty) in the table. " + note)
    variants = [_variant("merge", {"partition_distance": measured["merge"]}, criterion),
                _variant("columns", {"partition_distance": measured["columns"]}, criterion)]
    history = {1: {"holds": v1_holds, "null_holds": v1_null.holds, "measured": measured["partition_distance"],
                   "why": f"v1 on this run's {trials} trial(s): partition distance 0 in every trial; its null, the "
                          f"mean of {DRAWS} random partitions per trial ({random_pd:.2f}), read the same way"}}
    settings["null_seeds"] = _null_seeds(profile, trials)
    return Outcome(measured=measured, settings=settings, evidence=evidence, note=note,
                   criterion=criterion_text, parts=[recovered], history=history, variants=variants)
