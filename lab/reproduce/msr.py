"""Claims of the MSR report (meta-learning symmetries with sparse reparametrization): Table I, §III.A, Figs. 2-3.

Every claim trains Zhou et al.'s meta-learner (``lab.sharing.msr``, their code's defaults: 1 support / 19 query
samples, 32 tasks per meta-batch, Adam 1e-3, 1000 outer steps, U ~ N(0, 0.01²), v0 ~ N(0, (1/n_out)²), learned
inner lr from 0.1) at every λ of a small grid, λ = 0 included, and picks λ on **meta-validation** tasks; the
meta-test tasks only report.  The report does not state its λ.  The λ = 0 run of a setting is one run shared by
exclusive (eq. 7) and group (eq. 6) sparsity; the 20-task runs are shared by the four claims.

Profiles.  ``full``: the report's settings — 70 inputs (Zhou et al.), the five rank/kernel settings, 20/50/100/1000
meta-training tasks, 300 validation and 300 test tasks, λ ∈ {0, 0.01, 0.03, 0.1, 0.3, 1}.  ``quick`` (CI): the
five settings with 20 tasks (and the four with a 1000-task entry in Table I at 1000 tasks) on 30 inputs, 100
validation and 100 test tasks, λ ∈ {0, 0.03, 0.1}; the optimiser settings are the full ones.
"""
from __future__ import annotations

from .claim import Outcome, claim, judge

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
#: msr-sparsity-few-tasks: the reduction of the meta-test loss (%) every setting must reach: Table I's smallest at 20
#: tasks (rank 2 kernel 5: 3.146 -> 2.26, -28.2 %)
REDUCTION = 28.0
#: msr-sparser-U: the least gain in band share (the fraction of max-|U| on the true band) with exclusive sparsity
BAND_MARGIN = 0.1
#: msr-benefit-fades: the least rise (percentage points) of the mean change from 20 to 1000 tasks (Table I: 53.7)
FADE_MARGIN = 10.0
#: msr-exclusive-vs-group: how much lower (%) exclusive sparsity's test loss must be than group sparsity's
GROUP_MARGIN = 10.0


def _plan(profile) -> dict:
    return profile.pick(
        quick={"n_in": 30, "grid": (0.0, 0.03, 0.1), "val_tasks": 100, "test_tasks": 100, "task_counts": (20, 1000),
               "fade_settings": FADE_SETTINGS, "group_scaled": (0.1,)},
        full={"n_in": 70, "grid": (0.0, 0.01, 0.03, 0.1, 0.3, 1.0), "val_tasks": 300, "test_tasks": 300,
              "task_counts": (20, 50, 100, 1000), "fade_settings": SETTINGS,
              "group_scaled": (0.01, 0.03, 0.1, 0.3, 1.0)})


def _common(profile) -> dict:
    """The meta-learning settings both profiles share (Zhou et al.'s)."""
    return {"steps": 1000, "meta_batch": 32, "outer_lr": 1e-3, "inner_lr": 0.1, "inner_steps": 1, "support": 1,
            "prox": "report", "sparsity": "exclusive", "samples": 20, "seed": profile.seed,
            "dtype": profile.dtype or "float32", "device": profile.device}


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


def _runs(profile, rank: int, kernel: int, tasks: int, sparsity: str, lams, n_in: int, shared: bool = True) -> dict:
    """{lambda: MSRResult} of one setting trained at every lambda of ``lams`` with ``sparsity`` (same training
    tasks, initialisation and meta-batches for every lambda: one seed); shared between the claims of a profile
    when ``shared``."""
    plan, common = _plan(profile), _common(profile)

    def make():
        from ..sharing.msr import LocallyConnected, meta_learn

        family = LocallyConnected(n_in=n_in, kernel=kernel, rank=rank, samples=common["samples"], seed=profile.seed)
        kw = {k: v for k, v in common.items() if k not in ("samples", "sparsity")}
        out = {}
        for lam in lams:
            profile.checkpoint()
            out[lam] = meta_learn(family, tasks=tasks, sparsity=sparsity if lam > 0 else "none", lam=lam,
                                  val_tasks=plan["val_tasks"], test_tasks=plan["test_tasks"], control=profile.control,
                                  **kw)
        return out

    if not shared:
        return make()
    key = ("msr-runs", rank, kernel, tasks, n_in, sparsity, tuple(lams), plan["val_tasks"], plan["test_tasks"],
           tuple(sorted((k, str(v)) for k, v in common.items())))
    what = "no sparsity (lambda = 0)" if sparsity == "none" else f"{sparsity} sparsity, lambda " + ", ".join(
        f"{g:g}" for g in lams)
    label = f"MSR {_name(rank, kernel)}, {tasks} tasks, {n_in} inputs: {what}"
    return profile.memo(key, make, label=label)


def _choice(profile, rank: int, kernel: int, tasks: int, sparsity: str = "exclusive", n_in: int | None = None,
            shared: bool = True):
    """One setting trained at every lambda of the grid (0 included; the lambda = 0 run is the same for every
    sparsity), lambda picked on meta-validation tasks: a ``lab.sharing.msr.LambdaChoice``."""
    import numpy as np

    from ..sharing.msr import LambdaChoice

    plan = _plan(profile)
    n_in = n_in or plan["n_in"]
    grid = sorted({float(g) for g in plan["grid"]} | {0.0})
    results = dict(_runs(profile, rank, kernel, tasks, "none", (0.0,), n_in, shared))
    results.update(_runs(profile, rank, kernel, tasks, sparsity, tuple(g for g in grid if g > 0), n_in, shared))
    val = [results[g].val_loss for g in grid]
    test = [results[g].test_loss for g in grid]
    sparse = [g for g in grid if g > 0]
    return LambdaChoice(grid, val, test, grid[int(np.nanargmin(val))],
                        sparse[int(np.nanargmin([results[g].val_loss for g in sparse]))], results)


def _settings(profile) -> dict:
    plan = _plan(profile)
    out = dict(_common(profile), n_in=plan["n_in"], n_out_by_kernel={str(k): plan["n_in"] - k + 1 for k in (3, 5)},
               lambda_grid=list(plan["grid"]), val_tasks=plan["val_tasks"], test_tasks=plan["test_tasks"],
               latent={_name(r, k): _latent(r, k) for r, k in SETTINGS}, profile=profile.name)
    out["prox_step"] = "lambda * outer_lr after every outer Adam step, groups = the entries of U per input feature"
    return out


def _latent(rank, kernel):
    from ..sharing.msr import latent_size

    return latent_size(rank, kernel)


def _f(x, digits=4):
    return None if x is None else float(f"{float(x):.{digits}g}")


def _progress(profile, done: int, total: int, message: str) -> None:
    profile.progress(min(done / total, 1.0), message)


def _pct(x) -> float:
    return round(100 * float(x), 1)


# ---------------------------------------------------------------------------------------------- Table I, 20 tasks
@claim("msr-sparsity-few-tasks", "msr", "Table I (20 tasks)",
       "With 20 meta-training tasks, exclusive sparsity lowers the test loss in all five rank/kernel settings "
       "(by 28-55 %).", paper_value="-28 % to -55 %", seconds={"quick": 50, "full": 400},
       criterion=f"with 20 meta-training tasks, the meta-test loss at the lambda picked on meta-validation tasks is "
                 f"at least {REDUCTION:g} % below the loss at lambda = 0 in every setting (Table I's smallest "
                 "reduction)",
       null="group sparsity (eq. 6, the same grouping by input feature, lambda picked the same way on the same "
            "grid) in place of exclusive sparsity")
def measure_sparsity_few_tasks(profile) -> Outcome:
    plan = _plan(profile)
    choices, group = {}, {}
    for i, (rank, kernel) in enumerate(SETTINGS):
        _progress(profile, i, len(SETTINGS), f"{_name(rank, kernel)}, 20 tasks")
        choices[(rank, kernel)] = _choice(profile, rank, kernel, 20)
        group[(rank, kernel)] = _choice(profile, rank, kernel, 20, sparsity="group")
    profile.progress(1.0, "done")

    measured = {_name(r, k): _pct(choices[(r, k)].relative_change) for r, k in SETTINGS}
    null_measured = {_name(r, k): _pct(group[(r, k)].relative_change) for r, k in SETTINGS}
    summary_rows, evidence = [], []
    for rank, kernel in SETTINGS:
        ch, gr = choices[(rank, kernel)], group[(rank, kernel)]
        i0, ip = ch.grid.index(0.0), ch.grid.index(ch.picked)
        pb, ps = PAPER_20[(rank, kernel)]
        summary_rows.append([_name(rank, kernel), ch.picked, _f(ch.val[i0]), _f(ch.val[ip]), _f(ch.test[i0]),
                             _f(ch.test[ip]), _pct(ch.relative_change), gr.picked, _pct(gr.relative_change),
                             _f(pb), _f(ps), _pct(ps / pb - 1)])
    evidence.append({"kind": "table", "title": "20 meta-training tasks: lambda picked on validation tasks; test loss "
                                               "at the pick against lambda = 0 (exclusive sparsity; group sparsity "
                                               "picked the same way: the null check)",
                     "columns": ["setting", "lambda picked", "val loss (lambda=0)", "val loss (picked)",
                                 "test loss (lambda=0)", "test loss (picked)", "test change %",
                                 "group: lambda picked", "group: test change %", "paper without", "paper with",
                                 "paper change %"],
                     "rows": summary_rows})
    gap_rows = []
    for rank, kernel in SETTINGS:
        ch = choices[(rank, kernel)]
        base, pick = ch.results[0.0], ch.results[ch.picked]
        gap_rows.append([_name(rank, kernel), ch.picked, _f(base.history[-1]["outer_loss"]), _f(base.test_loss),
                         _f(pick.history[-1]["outer_loss"]), _f(pick.test_loss)])
    evidence.append({"kind": "table", "title": "20 tasks: query loss on the training tasks (last outer step) against "
                                               "the meta-test loss, at lambda = 0 and at the picked lambda",
                     "columns": ["setting", "lambda picked", "training query loss (lambda=0)", "test loss (lambda=0)",
                                 "training query loss (picked)", "test loss (picked)"],
                     "rows": gap_rows})
    evidence.append({"kind": "bar", "title": f"20 tasks: change of the meta-test loss at the picked lambda (%); "
                                             f"the criterion asks for -{REDUCTION:g} % or lower in every setting",
                     "ylabel": "change of the test loss (%)", "labels": [_name(r, k) for r, k in SETTINGS],
                     "series": {"exclusive sparsity (measured)": list(measured.values()),
                                "group sparsity (measured, null check)": list(null_measured.values()),
                                "exclusive sparsity (paper, Table I)": [_pct(PAPER_20[s][1] / PAPER_20[s][0] - 1)
                                                                        for s in SETTINGS]},
                     "logy": False})
    for rank, kernel in SETTINGS:
        ch = choices[(rank, kernel)]
        evidence.append({"kind": "table", "title": f"{_name(rank, kernel)}, 20 tasks: every lambda of exclusive "
                                                   "sparsity (picked on validation tasks)",
                         "columns": ["lambda", "validation loss", "test loss", "picked"],
                         "rows": [[g, _f(v), _f(t), "<- picked" if g == ch.picked else ""]
                                  for g, v, t in zip(ch.grid, ch.val, ch.test)]})
    for rank, kernel in SETTINGS:
        ch = choices[(rank, kernel)]
        nz = [i for i, g in enumerate(ch.grid) if g > 0]
        i0 = ch.grid.index(0.0)
        evidence.append({"kind": "line", "title": f"{_name(rank, kernel)}, 20 tasks: loss against lambda "
                                                  f"(picked: {ch.picked:g})",
                         "xlabel": "lambda (exclusive sparsity)", "ylabel": "MSE after adaptation",
                         "x": [ch.grid[i] for i in nz],
                         "series": {"test tasks": [_f(ch.test[i]) for i in nz],
                                    "validation tasks": [_f(ch.val[i]) for i in nz],
                                    "test tasks, lambda = 0": [_f(ch.test[i0])] * len(nz),
                                    "validation tasks, lambda = 0": [_f(ch.val[i0])] * len(nz)},
                         "logx": True, "logy": False})

    def criterion_fn(changes):
        return all(v <= -REDUCTION for v in changes.values())

    holds, null = judge(criterion_fn, measured, "group sparsity (eq. 6, grouped by input feature) with lambda picked "
                                                "on the same validation tasks from the same grid, in place of "
                                                "exclusive sparsity: its test-loss change (%) per setting",
                        null_measured)
    criterion = (f"holds if, with 20 meta-training tasks on {plan['n_in']} inputs, the meta-test loss at the lambda "
                 f"picked on {plan['val_tasks']} meta-validation tasks (grid {list(plan['grid'])}, 0 included) is at "
                 f"least {REDUCTION:g} % below the loss at lambda = 0 in every setting ({REDUCTION:g} %: the smallest "
                 "reduction of Table I at 20 tasks)")
    met = [k for k, v in measured.items() if v <= -REDUCTION]
    lowered = [k for k, v in measured.items() if v < 0]
    note = (f"Relative change of the meta-test loss (%), lambda chosen on {plan['val_tasks']} meta-validation tasks "
            f"drawn apart from the {plan['test_tasks']} meta-test tasks; every lambda uses the same training tasks, "
            f"initialisation and meta-batches.  Lower in {len(lowered)} of {len(measured)} settings, by at least "
            f"{REDUCTION:g} % in {len(met)}.  A grid containing lambda = 0 can only tie or lower the validation "
            "loss, so the criterion asks for the paper's smallest reduction, not for any reduction; the null check "
            "applies it to group sparsity chosen the same way (the regulariser the report found worse), which "
            "shows that picking lambda on validation tasks does not by itself give the reduction.  Settings: Zhou "
            "et al.'s optimiser and task family (1 support / 19 query samples resampled every step, 32 tasks per "
            "meta-batch (all 20 when there are 20), Adam 1e-3, 1000 outer steps, U ~ N(0, 0.01^2), v0 ~ N(0, "
            "(1/n_out)^2), latent 3, 6, 30 for ranks 1, 2, 5 at kernel 3, inner lr learned from 0.1, float32); the "
            "prox is the report's eq. 7 after every outer step with step lambda * outer lr; the report states "
            "neither its lambda nor the kernel-5 latent sizes (rank * kernel here).")
    if not profile.full:
        note += (f"  Quick profile: {plan['n_in']} inputs instead of the report's 70 and a {len(plan['grid'])}-value "
                 "lambda grid.  The gain comes from the room a 20-task U has to fit its training tasks (the table "
                 "of training query loss against test loss): on 70 inputs U has 5-6 times as many entries, and the "
                 "full profile measures the criterion there.")
    if not holds:
        note += (f"  Not met at these settings: the largest reduction measured is {-min(measured.values()):.1f} % "
                 f"against Table I's {REDUCTION:g}-55 %.")
    settings = dict(_settings(profile), task_counts=[20], criterion=criterion, reduction_percent=REDUCTION)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note,
                   criterion=criterion, null=null)


# ---------------------------------------------------------------------------------------------- Figs. 2-3
@claim("msr-sparser-U", "msr", "Figs. 2-3",
       "Exclusive sparsity makes the learned symmetry matrix U visibly sparser, capturing the locally connected "
       "structure.", paper_value="sparser U", seconds={"quick": 1, "full": 30},
       criterion=f"in every setting of Figs. 2-3, the share of the max-|U| picture on the true locally connected "
                 f"band is at least {BAND_MARGIN:g} higher with exclusive sparsity than without",
       null="a random U (i.i.d. Gaussian entries, same shape: band share = the band's area fraction) in place of "
            "the U learned with exclusive sparsity")
def measure_sparser_u(profile) -> Outcome:
    import numpy as np

    from ..sharing.msr import band_fraction, hoyer, small_fraction

    plan = _plan(profile)
    figure_settings = profile.pick(quick=tuple((r, k, 20) for r, k, _ in FIGURE_SETTINGS), full=FIGURE_SETTINGS)
    rng = np.random.default_rng([profile.seed, 7])
    measured, null_measured, rows, evidence = {}, {}, [], []
    for i, (rank, kernel, tasks) in enumerate(figure_settings):
        _progress(profile, i, len(figure_settings), f"{_name(rank, kernel)}, {tasks} tasks")
        ch = _choice(profile, rank, kernel, tasks)
        lam = ch.picked_sparse
        base, sparse = ch.results[0.0], ch.results[lam]
        n_out, n_in = plan["n_in"] - kernel + 1, plan["n_in"]
        random_u = rng.standard_normal(sparse.U.shape)
        pics = {"without": base.max_abs(n_out, n_in), "with": sparse.max_abs(n_out, n_in),
                "random": np.abs(random_u).reshape(n_out, n_in, -1).max(-1)}
        h0, h1 = hoyer(base.U), hoyer(sparse.U)
        s0, s1 = small_fraction(base.U, SMALL), small_fraction(sparse.U, SMALL)
        b0, b1, br = (band_fraction(pics[k], kernel) for k in ("without", "with", "random"))
        name = f"{_name(rank, kernel)}, {tasks} tasks"
        measured[name] = {"band share without": _f(b0, 3), "band share with": _f(b1, 3),
                          "band share random U": _f(br, 3), "band area": _f(kernel / n_in, 3),
                          "hoyer without": _f(h0, 3), "hoyer with": _f(h1, 3),
                          "near-zero without": _f(s0, 3), "near-zero with": _f(s1, 3)}
        null_measured[name] = {"band share without": _f(b0, 3), "band share with": _f(br, 3)}
        rows.append([name, lam, _f(b0, 3), _f(b1, 3), _f(br, 3), _f(kernel / n_in, 3), _f(h0, 3), _f(h1, 3),
                     _f(s0, 3), _f(s1, 3), _f(ch.test[ch.grid.index(0.0)]), _f(ch.test[ch.grid.index(lam)])])
        top = float(max(pics["without"].max(), pics["with"].max()))
        evidence.append({"kind": "matrix", "title": f"{name}: max over the latent axis of |U| (output x input); "
                                                    f"the true band is W[o, o:o+{kernel}]",
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
        evidence.append({"kind": "bar", "title": f"{name}: distribution of |U| / max|U| (Fig. 3)",
                         "ylabel": "fraction of entries", "labels": [f"{a:.1f}-{b:.1f}" for a, b in
                                                                     zip(edges[:-1], edges[1:])],
                         "series": hist, "logy": True})
    names = list(measured)
    evidence.insert(0, {"kind": "bar", "title": "Share of the max-|U| picture on the true locally connected band",
                        "ylabel": "band share", "labels": names,
                        "series": {"without sparsity": [measured[n]["band share without"] for n in names],
                                   "exclusive sparsity": [measured[n]["band share with"] for n in names],
                                   "random U (null check)": [measured[n]["band share random U"] for n in names],
                                   "band area fraction": [measured[n]["band area"] for n in names]},
                        "logy": False})
    evidence.insert(0, {"kind": "table", "title": "U without and with exclusive sparsity (lambda: the nonzero lambda "
                                                  "picked on validation tasks): band share (the criterion), Hoyer "
                                                  "sparsity and near-zero fraction (side evidence)",
                        "columns": ["setting", "lambda", "band share without", "band share with",
                                    "band share random U", "band area fraction", "Hoyer without", "Hoyer with",
                                    "near-zero without", "near-zero with", "test loss without", "test loss with"],
                        "rows": rows})

    def criterion_fn(m):
        return all(v["band share with"] - v["band share without"] >= BAND_MARGIN for v in m.values())

    holds, null = judge(criterion_fn, measured, "a random U (i.i.d. N(0, 1) entries, the shape of the learned U) in "
                                                "place of the U learned with exclusive sparsity: its band share "
                                                "(the band's area fraction, kernel / inputs)", null_measured)
    criterion = (f"holds if in every setting the share of the max-|U| picture (output x input) that lies on the true "
                 f"locally connected band W[o, o:o+kernel] is at least {BAND_MARGIN:g} higher with exclusive "
                 "sparsity (lambda: the nonzero grid value with the lowest meta-validation loss) than without")
    gains = {n: round(m["band share with"] - m["band share without"], 3) for n, m in measured.items()}
    note = ("Band share: the fraction of the picture's total on the band where the true layers have weights (1: U "
            "builds only weights a locally connected layer can have; a structureless U gets the band's area "
            f"fraction, kernel / inputs).  Gain in band share per setting: {gains}.  Side evidence, not part of the "
            "criterion (the prox zeroes entries, so it makes U sparser by construction): Hoyer's measure (sqrt(n) "
            "- |u|_1/|u|_2)/(sqrt(n) - 1) over all entries of U (0: all equal, 1: one nonzero) and the fraction "
            f"of entries below {SMALL:g} of the largest.  Settings: the report's Figs. 2-3 (rank 1 kernel 3 with "
            "20 tasks, rank 2 and rank 5 kernel 5 with 50 tasks).")
    if not profile.full:
        note += (f"  Quick profile: all three with 20 tasks on {plan['n_in']} inputs (the runs of "
                 "msr-sparsity-few-tasks).")
    settings = dict(_settings(profile), figure_settings=[list(s) for s in figure_settings], criterion=criterion,
                    near_zero_relative=SMALL, band_margin=BAND_MARGIN)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note,
                   criterion=criterion, null=null)


# ---------------------------------------------------------------------------------------------- Table I, all counts
@claim("msr-benefit-fades", "msr", "Table I, §III.A",
       "Exclusive sparsity achieves better results when there are fewer tasks: its benefit at 20 meta-training "
       "tasks fades by 1000.", paper_value="mean change -39.5 % at 20 tasks, +14.2 % at 1000 (the four settings "
                                           "with a 1000-task entry)",
       seconds={"quick": 30, "full": 700},
       criterion=f"the mean relative change of the meta-test loss at 1000 meta-training tasks is at least "
                 f"{FADE_MARGIN:g} percentage points above the mean change at 20 tasks (lambda picked on "
                 "validation tasks at each count)",
       null="the 20-task changes in place of the 1000-task ones (no change with the number of tasks)")
def measure_benefit_fades(profile) -> Outcome:
    plan = _plan(profile)
    counts, fade_settings = plan["task_counts"], plan["fade_settings"]
    choices, total, done = {}, len(fade_settings) * len(counts), 0
    for rank, kernel in fade_settings:
        for tasks in counts:
            _progress(profile, done, total, f"{_name(rank, kernel)}, {tasks} tasks")
            # 20 tasks and the figures' settings: runs shared with the other msr claims; the rest: this claim's own
            shared = tasks == 20 or (rank, kernel, tasks) in FIGURE_SETTINGS
            choices[(rank, kernel, tasks)] = _choice(profile, rank, kernel, tasks, shared=shared)
            done += 1
    profile.progress(1.0, "done")

    scored = [s for s in fade_settings if (s[0], s[1], 1000) in PAPER_TABLE]  # the settings Table I has at 1000

    def mean_change(tasks, fixed=False):
        out = []
        for rank, kernel in scored:
            ch = choices[(rank, kernel, tasks)]
            lam = choices[(rank, kernel, 20)].picked if fixed else ch.picked
            out.append(ch.test[ch.grid.index(lam)] / ch.base_test - 1)
        return _pct(sum(out) / len(out))

    measured = {"mean change at 20 tasks": mean_change(20), "mean change at 1000 tasks": mean_change(1000)}
    measured["difference"] = round(measured["mean change at 1000 tasks"] - measured["mean change at 20 tasks"], 1)
    null_measured = {"mean change at 20 tasks": measured["mean change at 20 tasks"],
                     "mean change at 1000 tasks": measured["mean change at 20 tasks"], "difference": 0.0}

    def criterion_fn(m):
        return m["mean change at 1000 tasks"] - m["mean change at 20 tasks"] >= FADE_MARGIN

    holds, null = judge(criterion_fn, measured, "the 20-task changes in place of the 1000-task ones", null_measured)
    fixed = {"mean change at 20 tasks": measured["mean change at 20 tasks"],
             "mean change at 1000 tasks": mean_change(1000, fixed=True)}
    fixed["difference"] = round(fixed["mean change at 1000 tasks"] - fixed["mean change at 20 tasks"], 1)
    variants = [{"name": "one lambda for every task count",
                 "what": "at 1000 tasks, the lambda picked on validation tasks at 20 tasks (the report appears to "
                         "use one lambda throughout; a grid with 0 picked at 1000 tasks cannot show sparsity "
                         "hurting, as Table I does at 1000 tasks)",
                 "measured": fixed, "holds": bool(criterion_fn(fixed))}]

    rows = []
    for rank, kernel in fade_settings:
        for tasks in counts:
            ch = choices[(rank, kernel, tasks)]
            fixed_lam = choices[(rank, kernel, 20)].picked
            pw, pv = PAPER_TABLE.get((rank, kernel, tasks), (None, None))
            rows.append([_name(rank, kernel), tasks, ch.picked, _f(ch.base_test), _f(ch.picked_test),
                         _pct(ch.relative_change), fixed_lam,
                         _pct(ch.test[ch.grid.index(fixed_lam)] / ch.base_test - 1), _f(pw), _f(pv),
                         None if pw is None else _pct(pv / pw - 1)])
    evidence = [{"kind": "table", "title": "Table I, every task count measured, beside the paper's values (test "
                                           "losses; lambda picked on validation tasks at each count)",
                 "columns": ["setting", "tasks", "lambda picked", "test loss (lambda=0)", "test loss (picked)",
                             "change %", "lambda picked at 20 tasks", "change % at that lambda", "paper without",
                             "paper with", "paper change %"],
                 "rows": rows},
                {"kind": "bar", "title": "Change of the meta-test loss with exclusive sparsity (%), by number of "
                                         "meta-training tasks",
                 "ylabel": "change of the test loss (%)",
                 "labels": [f"{_name(r, k)}, {t}" for r, k in scored for t in counts],
                 "series": {"measured (lambda picked at each count)":
                            [_pct(choices[(r, k, t)].relative_change) for r, k in scored for t in counts],
                            "measured (lambda picked at 20 tasks)":
                            [_pct(choices[(r, k, t)].test[choices[(r, k, t)].grid.index(choices[(r, k, 20)].picked)]
                                  / choices[(r, k, t)].base_test - 1) for r, k in scored for t in counts],
                            "paper (Table I)": [_pct(PAPER_TABLE[(r, k, t)][1] / PAPER_TABLE[(r, k, t)][0] - 1)
                                                for r, k in scored for t in counts]},
                 "logy": False}]
    criterion = (f"holds if the mean relative change of the meta-test loss over {', '.join(_name(*s) for s in scored)}"
                 f" (the settings Table I reports at 1000 tasks) is at least {FADE_MARGIN:g} percentage points higher "
                 "(less negative) with 1000 meta-training tasks than with 20 (lambda picked on "
                 f"{plan['val_tasks']} meta-validation tasks at each count; Table I: -39.5 % and +14.2 %)")
    note = ("The number of tasks is the size of the pool the meta-batches are drawn from: the steps (1000) and the "
            "meta-batch (32, all 20 tasks at 20) are the same at every count, so only the variety of training tasks "
            "changes.  With lambda = 0 in the grid and lambda picked on validation tasks, the change at a count is "
            "at most about 0 when sparsity does not help (the pick is 0); Table I's positive changes at 1000 tasks "
            "(sparsity hurting) need a lambda chosen without looking at that count, which the variant 'one lambda "
            "for every task count' shows.  rank5 kernel3 has no 1000-task entry in Table I and is left out of the "
            "means.")
    zero = [_name(r, k) for r, k in scored if choices[(r, k, 1000)].picked == 0.0]
    note += (f"  Measured: at 1000 tasks the validation tasks pick lambda = 0 in {len(zero)} of {len(scored)} "
             f"settings{' (' + ', '.join(zero) + ')' if zero else ''}; the largest reduction at 1000 tasks is "
             f"{-min(min(_pct(choices[(r, k, 1000)].relative_change) for r, k in scored), 0.0):.1f} %.")
    if not profile.full:
        note += (f"  Quick profile: 20 and 1000 tasks only, on {plan['n_in']} inputs, "
                 f"{len(plan['grid'])}-value lambda grid; the full profile adds 50 and 100 tasks and rank5 kernel3.")
    settings = dict(_settings(profile), task_counts=list(counts), criterion=criterion, fade_margin=FADE_MARGIN,
                    fade_settings=[_name(*s) for s in fade_settings], scored_settings=[_name(*s) for s in scored])
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note,
                   criterion=criterion, null=null, variants=variants)


# ---------------------------------------------------------------------------------------------- §III.A, group
@claim("msr-exclusive-vs-group", "msr", "§III.A",
       "Exclusive sparsity appeared to have much better results than group sparsity (both grouping the weights "
       "by input feature).", paper_value="exclusive much better (no numbers)", seconds={"quick": 10, "full": 150},
       criterion=f"with 20 meta-training tasks and lambda picked on validation tasks for each regulariser, the "
                 f"meta-test loss with exclusive sparsity is at least {GROUP_MARGIN:g} % below the loss with group "
                 "sparsity in every setting",
       null="no sparsity (lambda = 0) in place of exclusive sparsity")
def measure_exclusive_vs_group(profile) -> Outcome:
    plan = _plan(profile)
    from ..sharing.msr import band_fraction

    measured, null_measured, rows, per_lambda, variant, variant_rows = {}, {}, [], [], {}, []
    for i, (rank, kernel) in enumerate(SETTINGS):
        _progress(profile, i, len(SETTINGS), f"{_name(rank, kernel)}, 20 tasks")
        ex, gr = _choice(profile, rank, kernel, 20), _choice(profile, rank, kernel, 20, sparsity="group")
        name = _name(rank, kernel)
        measured[name] = _pct(ex.picked_test / gr.picked_test - 1)
        null_measured[name] = _pct(ex.base_test / gr.picked_test - 1)
        n_out, n_in = plan["n_in"] - kernel + 1, plan["n_in"]
        band = {k: band_fraction(c.results[c.picked_sparse].max_abs(n_out, n_in), kernel) for k, c in
                (("exclusive", ex), ("group", gr))}
        # the variant: group sparsity also on its own scale (the grid times group_scale), picked on validation
        scale = group_scale(n_out, _latent(rank, kernel))
        own = tuple(float(f"{scale * g:.3g}") for g in _plan(profile)["group_scaled"])
        runs = {**gr.results, **_runs(profile, rank, kernel, 20, "group", own, n_in, shared=False)}  # its own
        best = min(runs, key=lambda g: runs[g].val_loss)
        variant[name] = _pct(ex.picked_test / runs[best].test_loss - 1)
        variant_rows.append([name, _f(scale, 3), ", ".join(f"{g:g}" for g in own), best,
                             _f(runs[best].test_loss), variant[name]])
        rows.append([name, ex.picked, gr.picked, _f(ex.base_test), _f(ex.picked_test), _f(gr.picked_test),
                     measured[name], null_measured[name], _f(band["exclusive"], 3), _f(band["group"], 3)])
        per_lambda.append({"kind": "table", "title": f"{name}, 20 tasks: every lambda of group sparsity (picked on "
                                                     "validation tasks)",
                           "columns": ["lambda", "validation loss", "test loss", "picked"],
                           "rows": [[g, _f(v), _f(t), "<- picked" if g == gr.picked else ""]
                                    for g, v, t in zip(gr.grid, gr.val, gr.test)]})
    profile.progress(1.0, "done")

    def criterion_fn(m):
        return all(v <= -GROUP_MARGIN for v in m.values())

    holds, null = judge(criterion_fn, measured, "no sparsity (lambda = 0) in place of exclusive sparsity: the "
                                                "change (%) of its test loss against group sparsity's", null_measured)
    evidence = [{"kind": "table", "title": "Exclusive against group sparsity, 20 tasks (lambda picked on validation "
                                           "tasks for each; band share of the U at the nonzero lambda picked)",
                 "columns": ["setting", "exclusive: lambda", "group: lambda", "test loss (lambda=0)",
                             "test loss (exclusive)", "test loss (group)", "exclusive vs group %",
                             "lambda = 0 vs group % (null check)", "band share (exclusive)", "band share (group)"],
                 "rows": rows},
                {"kind": "bar", "title": "Meta-test loss at the lambda picked on validation tasks, 20 tasks",
                 "ylabel": "MSE after adaptation", "labels": [r[0] for r in rows],
                 "series": {"no sparsity": [r[3] for r in rows], "exclusive sparsity": [r[4] for r in rows],
                            "group sparsity": [r[5] for r in rows]},
                 "logy": False},
                {"kind": "table", "title": "Variant: group sparsity on its own scale (lambda from the grid, 0 and "
                                           "the scaled values, picked on validation tasks)",
                 "columns": ["setting", "scale", "scaled lambdas", "group: lambda picked", "test loss (group)",
                             "exclusive vs group %"],
                 "rows": variant_rows}] + per_lambda
    variants = [{"name": "group sparsity on its own scale",
                 "what": "group sparsity's lambda also from the grid's values times the scale that makes its prox "
                         "shrink a group's l2 norm at initialisation as much as the exclusive prox does (eq. 6 "
                         "shrinks the norm by lambda s, eq. 7 by about lambda s |u_g|_1 sqrt(m), m entries per group; "
                         f"scale = 0.01 sqrt(2/pi) m^1.5), values {list(_plan(profile)['group_scaled'])} scaled; "
                         "picked on the same validation tasks",
                 "measured": variant, "holds": bool(criterion_fn(variant))}]
    criterion = (f"holds if, with 20 meta-training tasks on {plan['n_in']} inputs and lambda picked on "
                 f"{plan['val_tasks']} meta-validation tasks for each regulariser from the same grid "
                 f"{list(plan['grid'])}, the meta-test loss with exclusive sparsity is at least {GROUP_MARGIN:g} % "
                 "below the loss with group sparsity in every setting")
    note = ("Both regularisers group the entries of U by input feature (every entry building a weight that "
            "multiplies one input) and take one proximal step after every outer step with step lambda * outer lr: "
            "group sparsity by eq. 6 (shrinks each group's l2 norm, so whole input features compete), exclusive by "
            "eq. 7 (entries compete within a group).  The report gives one lambda for both in Algorithm 1 and "
            "states none, so both are picked from the same grid on the same validation tasks.  The null check puts "
            "the unregularised run in place of exclusive sparsity: it shows whether 'better than group' is just "
            "'group sparsity is harmful'.  At the same lambda the group prox moves U far less than the exclusive "
            "one (it shrinks a whole group's norm by lambda s, the exclusive prox every entry by lambda s |u_g|_1); "
            "the variant 'group sparsity on its own scale' adds lambdas scaled to match the shrinkage at "
            "initialisation.")
    group_gap = max(abs(v) for v in null_measured.values())
    own_picks = sum(1 for r in variant_rows if r[3] in [float(x) for x in r[2].split(", ")])
    note += (f"  Measured: group sparsity's test loss is within {group_gap:.1f} % of the unregularised run's in every "
             f"setting; on its own scale the validation tasks pick a scaled lambda in {own_picks} of "
             f"{len(variant_rows)} settings.")
    if not profile.full:
        note += (f"  Quick profile: {plan['n_in']} inputs, a {len(plan['grid'])}-value lambda grid, one scaled "
                 "lambda per setting for the variant (the grid's largest times the scale).")
    settings = dict(_settings(profile), task_counts=[20], criterion=criterion, group_margin_percent=GROUP_MARGIN)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note,
                   criterion=criterion, null=null, variants=variants)
