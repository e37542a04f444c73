"""Claims of Yeh et al. (learned parameter sharing poster): the running example, the Gaussian analysis, the
sum-of-numbers experiment and a permutation-group layer.

Every claim runs method 1 as the poster describes it (``lab.sharing.bilevel``: validation loss + 1e-2 entropy +
1e-2 nuclear norm, the reference code's optimiser settings, argmax snapping) -- the *faithful* run, which decides
``holds``.  Side by side, where they change anything (``settings["variants"]`` names them):

* ``merge`` -- the same run's snapped partition after the lab's merge pass (``merge=True``; not in the poster);
* ``columns`` -- the reference code's low-rank penalty, the sum of A's column norms (``rank_penalty="columns"``),
  which is what ``trace(sqrt(AᵀA))`` computes with an elementwise sqrt and what produced the poster's numbers.

The optimisations are a few hundred K x K parameters each: they run on the CPU whatever ``profile.device``.
Nothing is tuned on test data: every setting is the poster's, the reference code's or the task's declared default.
"""
from __future__ import annotations

import math

from .claim import Outcome, claim

FAITHFUL = "faithful (poster)"
MERGE = "with the lab's merge pass"
COLUMNS = "reference code's column-norm penalty"
VARIANTS = {"faithful": "rank_penalty=nuclear, merge=False (the defaults)",
            "merge": "the faithful run's snapped partition after the lab's merge pass (merge=True, tolerance 0.02)",
            "columns": "rank_penalty=columns (the reference code's surrogate), merge=False"}


def _mean(xs):
    xs = [float(x) for x in xs]
    return sum(xs) / len(xs) if xs else None


def _run(task_factory, seeds, profile, label, fraction=(0.0, 1.0), **kw):
    """learn_sharing on ``task_factory(seed)`` for each seed (merge pass on: the result keeps both the snapped and
    the merged partition).  Returns a list of (task, result)."""
    from ..sharing.bilevel import learn_sharing

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
    (``learn_sharing_batch``); {blocks: [per-trial dict]}.  Shared between the two Gaussian claims through
    ``profile.memo``."""
    from ..sharing.bilevel import learn_sharing_batch
    from ..sharing.tasks import GaussianTask

    def make():
        profile.checkpoint()
        seeds = [profile.seed + t for t in range(trials)]
        tasks = [GaussianTask(K=5, blocks=b, samples=100, split=split, sigma=1.0, seed=s) for b in blocks
                 for s in seeds]
        lo, hi = fraction
        label = f"gaussian r={split}, {form}, {len(tasks)} trials in one batch"
        results = learn_sharing_batch(tasks, seeds * len(blocks), rank_penalty=form, merge=True,
                                      control=profile.control,
                                      progress=lambda done, total: profile.progress(lo + (hi - lo) * done / total,
                                                                                    label))
        profile.checkpoint()
        out = {}
        for i, (t, r) in enumerate(zip(tasks, results)):
            out.setdefault(blocks[i // trials], []).append(
                {"pd": r.snapped_distance, "pd_merge": r.partition_distance, "gap": t.mse_gap(r.snapped),
                 "gap_merge": r.mse_gap, "bound": t.gap_bound(), "snapped": r.snapped, "gt": t.gt,
                 "diverged": r.diverged})
        return out

    return profile.memo(("sharing-gaussian", tuple(blocks), split, trials, form), make)


def _matrices(A, labels, gt):
    """The relaxed A, the scored 0/1 matrix and A_gt in A's block order (plain lists for the report)."""
    import numpy as np

    from ..plots.style import order
    from ..sharing.partition import selection_matrix, snapped_matrix

    rows, cols = order(A, gt)
    S = snapped_matrix(A, labels)
    G = selection_matrix(gt)
    return {"relaxed A (softmax)": np.round(A[np.ix_(rows, cols)], 4).tolist(),
            "snapped A (0/1, scored)": S[np.ix_(rows, cols)].tolist(),
            "A_gt": G[rows].tolist()}


# ---------------------------------------------------------------------------------------------- running example
@claim("share-conv-exact", "sharing", "Running example (Convolution); Approach",
       "The sharing of a convolution (kernel [2, 1] on R^3) is recovered from data: partition distance 0.",
       paper_value=0, seconds={"quick": 3, "full": 30})
def conv_exact(profile):
    from ..sharing.defaults import DEFAULTS
    from ..sharing.tasks import conv_task

    trials = profile.pick(quick=1, full=10)
    seeds = [profile.seed + t for t in range(trials)]
    from ..sharing.partition import is_refinement

    runs = _run(lambda s: conv_task(seed=s), seeds, profile, "conv", (0.0, 0.5))
    cols = _run(lambda s: conv_task(seed=s), seeds, profile, "conv, columns", (0.5, 1.0), rank_penalty="columns")
    pds = [r.snapped_distance for _, r in runs]
    merged = [r.partition_distance for _, r in runs]
    columns = [r.snapped_distance for _, r in cols]
    task, first = runs[0]
    d = DEFAULTS["conv"]
    settings = {"kernel": [2.0, 1.0], "length": 3, "train": 50, "val": 100, "noise": 0.0, "trials": trials,
                "seeds": seeds, "steps": d["steps"], "lr": d["lr"], "optimizer": d["optimizer"],
                "restarts": d["restarts"], "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear",
                "merge": False, "variants": VARIANTS,
                "criterion": "holds if the faithful partition distance is 0 in every trial"}
    evidence = [{"kind": "matrix", "title": f"convolution, seed {seeds[0]}: relaxed A, the snapped matrix the "
                                            "partition distance is computed from, and A_gt",
                 "matrices": _matrices(first.A, first.snapped, task.gt)},
                {"kind": "table", "title": "partition distance per trial",
                 "columns": ["seed", FAITHFUL, MERGE, COLUMNS, "blocks found (faithful)", "test MSE (faithful)",
                             "test MSE, A_gt"],
                 "rows": [[s, int(r.snapped_distance), int(r.partition_distance), int(c.snapped_distance),
                           int(r.snapped.max() + 1), float(t.refit_loss(r.snapped)), float(r.gt_test_loss)]
                          for s, (t, r), (_, c) in zip(seeds, runs, cols)]}]
    holds = all(p == 0 for p in pds)
    note = ("Settings of the reference demo (50 train / 100 validation, Adam lr 0.1, 1000 steps; kernel [2, 1] as "
            "the poster, the demo uses [1, 2]); 3 restarts where the demo runs one. ")
    if not holds:
        wrong = [(t, r) for t, r in runs if r.snapped_distance > 0]
        finer = sum(is_refinement(r.snapped, t.gt) for t, r in wrong)
        note += (f"{len(wrong)} of {trials} faithful runs snap to a partition up to {max(pds)} entries away from "
                 f"the truth, {finer} of them finer than the truth (a true block split over columns holding the "
                 "same value: the same function, the test MSE equals A_gt's). The poster's nuclear norm rewards "
                 "that spread of a row over duplicate columns; the merge pass (max PD "
                 f"{max(merged)}) and the reference code's column-norm penalty (max PD {max(columns)}) undo it. ")
    return Outcome(measured=_mean(pds), holds=holds, settings=settings, evidence=evidence, note=note.strip())


# ---------------------------------------------------------------------------------------------- Gaussian data
@claim("share-gaussian-gap-bound", "sharing", "Results, Claim (Gaussian data, Eq. 1)",
       "With probability 1 - alpha (alpha < exp(-K/10)) the MSE gap of the learned sharing is below "
       "sigma^2 ((1-r)/(r|D|) (rk(A_gt) - 1) - 40 ln(alpha)/((1-r)|D|)).", paper_value="gap <= bound",
       seconds={"quick": 6, "full": 1800})
def gaussian_gap_bound(profile):
    splits = profile.pick(quick=(0.3, 0.5, 0.7), full=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9))
    trials = profile.pick(quick=10, full=200)
    K, blocks = 5, 1
    alpha = math.exp(-K / 10)
    rows, per_split = [], {}
    for i, r in enumerate(splits):
        part = (i / len(splits), (i + 1) / len(splits))
        runs = _gaussian(profile, (blocks,), r, trials, "nuclear", part)[blocks]
        within = _mean([t["gap"] <= t["bound"] for t in runs])
        per_split[r] = within
        rows.append([r, _mean([t["gap"] for t in runs]), _mean([t["gap_merge"] for t in runs]), runs[0]["bound"],
                     within, _mean([t["gap_merge"] <= t["bound"] for t in runs]), _mean([t["pd"] for t in runs])])
    worst = min(per_split.values())
    all_runs = [t for r in splits for t in _gaussian(profile, (blocks,), r, trials, "nuclear")[blocks]]
    holds = worst >= 1 - alpha
    measured = {"fraction_within_bound": _mean([t["gap"] <= t["bound"] for t in all_runs]),
                "worst_split_fraction": worst, "one_minus_alpha": 1 - alpha,
                "mean_gap": _mean([t["gap"] for t in all_runs]),
                "bound_at_r": {str(r): row[3] for r, row in zip(splits, rows)}}
    settings = {"K": K, "blocks": blocks, "samples": 100, "sigma": 1.0, "splits": list(splits), "trials": trials,
                "alpha": alpha, "steps": 1000, "lr": 2e-2, "optimizer": "rmsprop", "weight_decay": 1e-4,
                "restarts": 3, "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear", "merge": False,
                "variants": {k: VARIANTS[k] for k in ("faithful", "merge")},
                "criterion": "holds if at every split r the fraction of trials with MSE gap <= the bound is at least "
                             "1 - alpha, alpha = exp(-K/10) (the poster's probability)"}
    x = [float(r) for r in splits]
    evidence = [
        {"kind": "line", "title": "MSE gap of the learned sharing against the poster's bound (K = 5, |D| = 100, "
                                  "one true block)", "xlabel": "split r = |T| / |D|", "ylabel": "MSE gap",
         "x": x, "series": {f"mean gap, {FAITHFUL}": [row[1] for row in rows],
                            f"mean gap, {MERGE}": [row[2] for row in rows], "bound": [row[3] for row in rows]},
         "logx": False, "logy": False},
        {"kind": "line", "title": "fraction of trials within the bound", "xlabel": "split r = |T| / |D|",
         "ylabel": "fraction", "x": x,
         "series": {FAITHFUL: [row[4] for row in rows], MERGE: [row[5] for row in rows],
                    "1 - alpha": [1 - alpha] * len(x)}, "logx": False, "logy": False},
        {"kind": "table", "title": "per split",
         "columns": ["r", "mean gap", "mean gap (merge)", "bound", "within bound", "within bound (merge)",
                     "mean partition distance"], "rows": rows}]
    note = (f"alpha = exp(-K/10) = {alpha:.3f}, so the poster's bound is claimed with probability "
            f"{1 - alpha:.3f}. Settings of the reference code's exp2 (K = 5, one true block, |D| = 100, r from 0.1 to "
            "0.9, 200 trials). The gap is MSE(theta_val) - MSE(theta_gt), both refitted on train + validation; it can "
            "be negative. Both estimates are refitted on all of D, so the gap is about (blocks found - true blocks) "
            f"x sigma^2/|D|: the mean gap {measured['mean_gap']:.3f} against bounds from {min(r[3] for r in rows):.3f}"
            " leaves the bound loose in this setting. ")
    if not holds:
        note += f"At the worst split only {worst:.2f} of the trials are within the bound. "
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note.strip())


@claim("share-gaussian-pd", "sharing", "Analysis on Gaussian data (the paper's additional experiments)",
       "On Gaussian data the partition distance of the learned sharing falls as the number of true blocks grows.",
       paper_value="falling with the number of blocks", seconds={"quick": 18, "full": 2400})
def gaussian_pd(profile):
    from scipy.stats import spearmanr

    from ..sharing.partition import is_refinement

    trials = profile.pick(quick=10, full=200)
    block_counts = (1, 2, 3, 4, 5)
    split = 0.3
    faithful, merged, columns, refine, rows = [], [], [], [], []
    nuclear_runs = _gaussian(profile, block_counts, split, trials, "nuclear", (0.0, 0.5))
    column_runs = _gaussian(profile, block_counts, split, trials, "columns", (0.5, 1.0))
    for b in block_counts:
        runs, cols = nuclear_runs[b], column_runs[b]
        faithful.append(_mean([t["pd"] for t in runs]))
        merged.append(_mean([t["pd_merge"] for t in runs]))
        columns.append(_mean([t["pd"] for t in cols]))
        wrong = [t for t in runs if t["pd"] > 0]
        refine.append(_mean([is_refinement(t["snapped"], t["gt"]) for t in wrong]))
        rows.append([b, faithful[-1], merged[-1], columns[-1], len(wrong), refine[-1]])
    rho = spearmanr(block_counts, faithful).statistic if len(set(faithful)) > 1 else float("nan")
    rho = float(rho)
    holds = bool(rho < 0 and faithful[0] > faithful[-1])
    measured = {"blocks": list(block_counts), "faithful": faithful, "merge": merged, "columns": columns,
                "spearman_rho": None if math.isnan(rho) else rho}
    settings = {"K": 5, "samples": 100, "split": split, "sigma": 1.0, "blocks": list(block_counts), "trials": trials,
                "steps": 1000, "lr": 2e-2, "optimizer": "rmsprop", "weight_decay": 1e-4, "restarts": 3,
                "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear", "merge": False, "variants": VARIANTS,
                "criterion": "holds if the faithful mean partition distance falls with the number of true blocks: "
                             "Spearman rank correlation < 0 and PD(1 block) > PD(5 blocks)"}
    evidence = [
        {"kind": "line", "title": "mean partition distance against the number of true blocks (K = 5, |D| = 100, "
                                  "r = 0.3)", "xlabel": "true blocks rk(A_gt)", "ylabel": "mean partition distance",
         "x": list(block_counts), "series": {FAITHFUL: faithful, MERGE: merged, COLUMNS: columns},
         "logx": False, "logy": False},
        {"kind": "table", "title": "mean partition distance per number of true blocks",
         "columns": ["true blocks", FAITHFUL, MERGE, COLUMNS, "faithful trials with PD > 0",
                     "of which finer than the truth"], "rows": rows}]
    wrong_fine = [x for x in refine if x is not None]
    note = (f"With the lab's merge pass the mean partition distance is at most {max(merged):.2f} in every setting "
            "(the 0.00 the lab reported before the merge pass was made optional) because the faithful method's "
            f"errors are over-splits (a fraction {_mean(wrong_fine) if wrong_fine else float('nan'):.2f} of the "
            "faithful trials with PD > 0 snap to a partition finer than the truth: two columns holding the same "
            "mean fit as well as one), and merging blocks while the validation loss rises at most 2 % undoes "
            "exactly those; that flattens the poster's trend, so it is not the default. The over-splitting is "
            "strongest with few true blocks (more entries share a block that can be split) and comes largely from "
            "the poster's nuclear norm: a row spread over two columns holding the same block has a lower nuclear "
            "norm than the hard choice, while the reference code's column-norm sum is indifferent to it "
            "(series 'columns').")
    if not holds:
        note = (f"The faithful partition distance does not fall (Spearman rho = {rho:.2f}). " + note)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note)


# ---------------------------------------------------------------------------------------------- sum of numbers
@claim("share-sum", "sharing", "Experiments (Sum of Numbers)",
       "Regressing the sum of a sequence of number words, the learned sharing recovers the permutation "
       "invariance (partition distance to the true sharing) and regresses the sum.", paper_value=None,
       seconds={"quick": 4, "full": 120})
def sum_of_numbers(profile):
    from ..sharing.defaults import DEFAULTS
    from ..sharing.tasks import sum_task

    lengths = profile.pick(quick=(5,), full=(2, 4, 6, 8, 10))
    runs_per = profile.pick(quick=1, full=5)
    test = profile.pick(quick=1000, full=100_000)
    seeds = [profile.seed + s for s in range(runs_per)]
    rows, faithful_all, row_max = [], [], []
    series = {FAITHFUL: [], MERGE: [], COLUMNS: []}
    loss = {FAITHFUL: [], COLUMNS: [], "A_gt (one block)": []}
    n = len(lengths)
    for i, L in enumerate(lengths):
        make = lambda s, L=L: sum_task(positions=L, test=test, seed=s)  # noqa: E731
        runs = _run(make, seeds, profile, f"sum, {L} positions", (i / n, (i + 0.5) / n))
        cols = _run(make, seeds, profile, f"sum, {L} positions, columns", ((i + 0.5) / n, (i + 1) / n),
                    rank_penalty="columns")
        pd_f = [r.snapped_distance for _, r in runs]
        faithful_all += pd_f
        row_max += [float(r.A.max(1).mean()) for _, r in runs]
        series[FAITHFUL].append(_mean(pd_f))
        series[MERGE].append(_mean([r.partition_distance for _, r in runs]))
        series[COLUMNS].append(_mean([r.snapped_distance for _, r in cols]))
        faithful_loss = [t.refit_loss(r.snapped) for t, r in runs]
        loss[FAITHFUL].append(_mean(faithful_loss))
        loss[COLUMNS].append(_mean([r.test_loss for _, r in cols]))
        loss["A_gt (one block)"].append(_mean([r.gt_test_loss for _, r in runs]))
        rows.append([L, series[FAITHFUL][-1], series[MERGE][-1], series[COLUMNS][-1], loss[FAITHFUL][-1],
                     loss[COLUMNS][-1], loss["A_gt (one block)"][-1]])
    holds = all(p == 0 for p in faithful_all)
    d = DEFAULTS["sum"]
    measured = {"positions": list(lengths), "partition_distance": series[FAITHFUL],
                "test_mse": loss[FAITHFUL], "test_mse_gt": loss["A_gt (one block)"],
                "partition_distance_columns": series[COLUMNS], "partition_distance_merge": series[MERGE]}
    settings = {"positions": list(lengths), "runs": runs_per, "seeds": seeds, "train": 100, "val": 150, "test": test,
                "label_noise": 0.5, "steps": d["steps"], "lr": d["lr"], "optimizer": d["optimizer"],
                "restarts": d["restarts"], "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear",
                "merge": False, "variants": VARIANTS,
                "criterion": "holds if the faithful partition distance to the true sharing (all positions one "
                             "block) is 0 in every run; the test MSE is reported against the true sharing's"}
    x = [float(L) for L in lengths]
    evidence = [
        {"kind": "bar" if n == 1 else "line", "title": "partition distance to the true sharing (one block)",
         **({"labels": [f"{L} positions" for L in lengths]} if n == 1 else
            {"xlabel": "sequence length (positions)", "x": x, "logx": False}),
         "ylabel": "mean partition distance", "series": series, "logy": False},
        {"kind": "bar" if n == 1 else "line", "title": "noiseless test MSE after refitting on train + validation",
         **({"labels": [f"{L} positions" for L in lengths]} if n == 1 else
            {"xlabel": "sequence length (positions)", "x": x, "logx": False}),
         "ylabel": "test MSE", "series": loss, "logy": False},
        {"kind": "table", "title": "sum of numbers",
         "columns": ["positions", "PD " + FAITHFUL, "PD merge", "PD columns", "test MSE " + FAITHFUL,
                     "test MSE columns", "test MSE A_gt"], "rows": rows}]
    note = ("The poster states no number. Data as the reference code (digits 1-9 in every position, +-0.5 uniform "
            "label noise, 100 train / 150 validation, noiseless test set); the model is the lab's linear read-out "
            "per position with the expected-loss closed form as the lower level (the reference trains an embedding "
            "network with a Neumann-series implicit hypergradient, an L1 loss and early stopping), so the test MSE "
            "is not comparable with the paper's.")
    if not holds:
        note = (f"With the poster's nuclear norm the relaxed A stays soft (its rows' largest entry "
                f"{_mean(row_max):.2f} on average; a 0/1 A has 1, the uniform A 1/K): a row spread over columns "
                "holding the same weights lowers the nuclear norm (the uniform A has rank 1 and norm 1, a hard single "
                "block sqrt(K)) while the validation loss barely tells the columns apart, so argmax snapping splits "
                "the single block. The reference code's column-norm penalty, indifferent to that spread, gives mean "
                f"partition distances {series[COLUMNS]}, the merge pass {series[MERGE]}. " + note)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note)


# ---------------------------------------------------------------------------------------------- permutation group
@claim("share-group", "sharing", "Contribution: recovering shift and permutation equivariance",
       "The sharing of a permutation-group equivariant layer is recovered from data.", paper_value=0,
       seconds={"quick": 6, "full": 60})
def group_layer(profile):
    from ..sharing.defaults import DEFAULTS
    from ..sharing.tasks import group_task

    group, rep = "S(4)", "V"
    trials = profile.pick(quick=1, full=10)
    seeds = [profile.seed + t for t in range(trials)]
    make = lambda s: group_task(group, rep, rep, seed=s)  # noqa: E731
    runs = _run(make, seeds, profile, f"{group} {rep}>>{rep}", (0.0, 0.5))
    cols = _run(make, seeds, profile, f"{group} {rep}>>{rep}, columns", (0.5, 1.0), rank_penalty="columns")
    pds = [r.snapped_distance for _, r in runs]
    holds = all(p == 0 for p in pds)
    d = DEFAULTS["group"]
    task, first = runs[0]
    settings = {"group": group, "rep_in": rep, "rep_out": rep, "train": 60, "val": 100, "noise": 0.1,
                "trials": trials, "seeds": seeds, "steps": d["steps"], "lr": d["lr"], "optimizer": d["optimizer"],
                "restarts": d["restarts"], "entropy": 1e-2, "nuclear": 1e-2, "rank_penalty": "nuclear",
                "merge": False, "variants": VARIANTS,
                "criterion": "holds if the faithful partition distance to the orbit partition is 0 in every trial"}
    measured = {"partition_distance": _mean(pds), "merge": _mean([r.partition_distance for _, r in runs]),
                "columns": _mean([r.snapped_distance for _, r in cols]), "K": int(task.K),
                "true_blocks": int(task.gt.max() + 1)}
    evidence = [
        {"kind": "matrix", "title": f"{group} {rep} >> {rep}, seed {seeds[0]} (faithful): relaxed A, the snapped "
                                    "matrix the partition distance is computed from, and A_gt",
         "matrices": _matrices(first.A, first.snapped, task.gt)},
        {"kind": "table", "title": "per trial",
         "columns": ["seed", "PD " + FAITHFUL, "PD merge", "PD columns", "blocks found (faithful)", "test MSE",
                     "test MSE, A_gt"],
         "rows": [[s, int(r.snapped_distance), int(r.partition_distance), int(c.snapped_distance),
                   int(r.snapped.max() + 1), float(task_.refit_loss(r.snapped)), float(r.gt_test_loss)]
                  for s, (task_, r), (_, c) in zip(seeds, runs, cols)]}]
    from ..sharing.partition import is_refinement

    wrong = [(r, t.gt) for t, r in runs if r.snapped_distance > 0]
    finer = sum(is_refinement(r.snapped, gt) for r, gt in wrong)
    note = ("The group task is the lab's (the poster reports shift and permutation equivariance recovered; the "
            "reference code has no group-layer experiment): y = W x + 0.1 noise with W a random S(4)-equivariant "
            "layer on V (2 shared values: diagonal and off-diagonal), 60 train / 100 validation.")
    if not holds:
        row_max = _mean([float(r.A.max(1).mean()) for r, _ in wrong])
        note = (f"{len(wrong)} of {trials} faithful runs miss the orbit partition ({finer} of them with a partition "
                f"finer than the truth). In those the relaxed A stays soft (its rows' largest entry {row_max:.3f} on "
                f"average; a 0/1 A has 1, the uniform A 1/K = {1 / task.K:.3f}): the poster's nuclear norm is lower "
                "for a row spread over columns holding the same value (down to 1 for the uniform A, against "
                "sum_j sqrt(n_j) for a hard partition), so true blocks are spread over several columns and argmax "
                "splits them or snaps noise. See 'PD merge' (the lab's merge pass) and 'PD columns' (the reference "
                "code's column-norm penalty) in the table. " + note)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note)
