"""Claims of the MSR report (meta-learning symmetries with sparse reparametrization): Table I and Figs. 2-3.

Both claims train Zhou et al.'s meta-learner (``lab.sharing.msr``, their code's defaults: 1 support / 19 query
samples, 32 tasks per meta-batch, Adam 1e-3, 1000 outer steps, U ~ N(0, 0.01²), v0 ~ N(0, (1/n_out)²), learned
inner lr from 0.1) at every λ of a small grid, λ = 0 included, and pick λ on **meta-validation** tasks
(``choose_lambda``); the meta-test tasks only report.  The report does not state its λ.

Profiles.  ``full``: the report's settings — 70 inputs (Zhou et al.), the five rank/kernel settings, 20/50/100/1000
meta-training tasks, 300 validation and 300 test tasks, λ ∈ {0, 0.01, 0.03, 0.1, 0.3, 1}.  ``quick`` (CI): the
five settings with 20 tasks on 30 inputs, 100 validation and 100 test tasks, λ ∈ {0, 0.03, 0.1}; the optimiser
settings are the full ones.
"""
from __future__ import annotations

from .claim import Outcome, claim

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


def _plan(profile) -> dict:
    return profile.pick(
        quick={"n_in": 30, "grid": (0.0, 0.03, 0.1), "val_tasks": 100, "test_tasks": 100, "task_counts": (20,)},
        full={"n_in": 70, "grid": (0.0, 0.01, 0.03, 0.1, 0.3, 1.0), "val_tasks": 300, "test_tasks": 300,
              "task_counts": (20, 50, 100, 1000)})


def _common(profile) -> dict:
    """The meta-learning settings both profiles share (Zhou et al.'s)."""
    return {"steps": 1000, "meta_batch": 32, "outer_lr": 1e-3, "inner_lr": 0.1, "inner_steps": 1, "support": 1,
            "prox": "report", "sparsity": "exclusive", "samples": 20, "seed": profile.seed,
            "dtype": profile.dtype or "float32", "device": profile.device}


def _name(rank: int, kernel: int) -> str:
    return f"rank{rank} kernel{kernel}"


def _choice(profile, rank: int, kernel: int, tasks: int, on_run=None):
    """``choose_lambda`` for one setting, shared between the two claims of a profile."""
    plan, common = _plan(profile), _common(profile)

    def make():
        from ..sharing.msr import LocallyConnected, choose_lambda

        family = LocallyConnected(n_in=plan["n_in"], kernel=kernel, rank=rank, samples=common["samples"],
                                  seed=profile.seed)
        kw = {k: v for k, v in common.items() if k not in ("samples",)}
        return choose_lambda(family, tasks, grid=plan["grid"], val_tasks=plan["val_tasks"],
                             test_tasks=plan["test_tasks"], on_run=on_run, control=profile.control, **kw)

    key = ("msr-choice", rank, kernel, tasks, plan["n_in"], plan["grid"], plan["val_tasks"], plan["test_tasks"],
           tuple(sorted((k, str(v)) for k, v in common.items())))
    return profile.memo(key, make)


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


def _runner(profile, total: int, label: str, start: int = 0):
    """on_run for ``choose_lambda``: progress over ``total`` runs of this claim, ``start`` of them done before."""
    state = {"done": start}

    def on_run(i, n, lam, res):
        state["done"] += 1
        profile.progress(min(state["done"] / total, 1.0), f"{label}, lambda={lam:g}: test loss {res.test_loss:.3f}")

    return state, on_run


@claim("msr-sparsity-few-tasks", "msr", "Table I (20 tasks)",
       "With 20 meta-training tasks, exclusive sparsity lowers the test loss in all five rank/kernel settings "
       "(by 28-55 %).", paper_value="-28 % to -55 %", seconds={"quick": 30, "full": 1200})
def measure_sparsity_few_tasks(profile) -> Outcome:
    plan = _plan(profile)
    counts = plan["task_counts"]
    runs = len(SETTINGS) * len(counts) * len(plan["grid"])
    choices = {}
    for rank, kernel in SETTINGS:
        for tasks in counts:
            profile.checkpoint()
            _, on_run = _runner(profile, runs, f"{_name(rank, kernel)}, {tasks} tasks", start=len(choices) * len(
                plan["grid"]))
            choices[(rank, kernel, tasks)] = _choice(profile, rank, kernel, tasks, on_run=on_run)
    profile.progress(1.0, "done")

    measured, summary_rows, evidence = {}, [], []
    for rank, kernel in SETTINGS:
        ch = choices[(rank, kernel, 20)]
        name = _name(rank, kernel)
        change = 100 * ch.relative_change
        measured[name] = round(change, 1)
        i0, ip = ch.grid.index(0.0), ch.grid.index(ch.picked)
        pb, ps = PAPER_20[(rank, kernel)]
        summary_rows.append([name, ch.picked, _f(ch.val[i0]), _f(ch.val[ip]), _f(ch.test[i0]), _f(ch.test[ip]),
                             round(change, 1), _f(pb), _f(ps), round(100 * (ps / pb - 1), 1)])
    evidence.append({"kind": "table", "title": "20 meta-training tasks: lambda picked on validation tasks; test loss "
                                               "at the pick against lambda = 0",
                     "columns": ["setting", "lambda picked", "val loss (lambda=0)", "val loss (picked)",
                                 "test loss (lambda=0)", "test loss (picked)", "test change %", "paper without",
                                 "paper with", "paper change %"],
                     "rows": summary_rows})
    for rank, kernel in SETTINGS:
        ch = choices[(rank, kernel, 20)]
        name = _name(rank, kernel)
        evidence.append({"kind": "table", "title": f"{name}, 20 tasks: every lambda (picked on validation tasks)",
                         "columns": ["lambda", "validation loss", "test loss", "picked"],
                         "rows": [[g, _f(v), _f(t), "<- picked" if g == ch.picked else ""]
                                  for g, v, t in zip(ch.grid, ch.val, ch.test)]})
    for rank, kernel in SETTINGS:
        ch = choices[(rank, kernel, 20)]
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
    if len(counts) > 1:
        rows = []
        for rank, kernel in SETTINGS:
            for tasks in counts:
                ch = choices[(rank, kernel, tasks)]
                paper = PAPER_TABLE.get((rank, kernel, tasks), (None, None))
                rows.append([_name(rank, kernel), tasks, ch.picked, _f(ch.base_test), _f(ch.picked_test),
                             round(100 * ch.relative_change, 1), _f(paper[0]), _f(paper[1])])
        evidence.append({"kind": "table", "title": "Table I, every task count (lambda picked on validation tasks)",
                         "columns": ["setting", "tasks", "lambda picked", "test loss (lambda=0)",
                                     "test loss (picked)", "change %", "paper without", "paper with"],
                         "rows": rows})
    holds = all(v < 0 for v in measured.values())
    criterion = ("holds if, with 20 meta-training tasks, the meta-test loss at the lambda picked on meta-validation "
                 "tasks (grid with 0) is strictly lower than at lambda = 0 in every setting measured")
    lowered = [k for k, v in measured.items() if v < 0]
    note = (f"Relative change of the meta-test loss (%), lambda chosen on {plan['val_tasks']} meta-validation tasks "
            f"drawn apart from the {plan['test_tasks']} meta-test tasks; every lambda uses the same training tasks, "
            f"initialisation and meta-batches.  Lower in {len(lowered)} of {len(measured)} settings.  "
            "Cause of the earlier lab measurement (-0.6 % to +4 % at lambda 1e-3): mainly the layer size.  The "
            "gain comes from overfitting that a 20-task U has room for: rank 2 kernel 3 with Zhou et al.'s "
            "optimiser and lambda from {0, 0.003, 0.03, 0.3} on validation tasks gives -4 % on 12 inputs, -13 % on "
            "30 and -37 % on 70, while the lambda = 0 query loss on the training tasks falls (0.61, 0.26, 0.10) "
            "and its test loss does not (0.79, 0.61, 1.10).  The old lambda (1e-3, a prox step of 1e-5 for 600 "
            "steps) also shrank U 5-17 times less in total than the lambdas picked here (0.03-0.1 at lr 1e-3 for "
            "1000 steps).  "
            "Fixed against Zhou et al.'s code: U init 0.1 -> 0.01, v0 init std 1/sqrt(n_out) -> 1/n_out, "
            "10/10 -> 1/19 support/query samples (resampled per step), Adam lr 1e-2 -> 1e-3, 600 -> 1000 steps, "
            "16 -> 32 tasks per meta-batch, latent 3*rank -> 3, 6, 30, query losses summed over tasks, inner lr "
            "learned as is (not its log), float32.  The report's lambda is not stated; its eq. 7 prox "
            "(Yoon & Hwang's form) is used; the kernel-5 latent sizes are rank*kernel (not stated).  The "
            "meta-batch of 32 exceeds 20 tasks: every outer step uses all 20."
            )
    if not profile.full:
        note += "  Quick profile: 30 inputs instead of 70 (smaller effect) and a 3-value lambda grid."
    settings = dict(_settings(profile), task_counts=list(counts), criterion=criterion)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note)


@claim("msr-sparser-U", "msr", "Figs. 2-3",
       "Exclusive sparsity makes the learned symmetry matrix U visibly sparser.", paper_value="sparser U",
       seconds={"quick": 10, "full": 300})
def measure_sparser_u(profile) -> Outcome:
    import numpy as np

    from ..sharing.msr import band_fraction, hoyer, small_fraction

    plan = _plan(profile)
    figure_settings = profile.pick(quick=tuple((r, k, 20) for r, k, _ in FIGURE_SETTINGS), full=FIGURE_SETTINGS)
    runs = len(figure_settings) * len(plan["grid"])
    measured, rows, evidence = {}, [], []
    holds = True
    for rank, kernel, tasks in figure_settings:
        profile.checkpoint()
        _, on_run = _runner(profile, runs, f"{_name(rank, kernel)}, {tasks} tasks", start=len(rows) * len(plan["grid"]))
        ch = _choice(profile, rank, kernel, tasks, on_run=on_run)
        lam = ch.picked_sparse
        base, sparse = ch.results[0.0], ch.results[lam]
        n_out, n_in = plan["n_in"] - kernel + 1, plan["n_in"]
        pics = {"without": base.max_abs(n_out, n_in), "with": sparse.max_abs(n_out, n_in)}
        h0, h1 = hoyer(base.U), hoyer(sparse.U)
        s0, s1 = small_fraction(base.U, SMALL), small_fraction(sparse.U, SMALL)
        b0, b1 = band_fraction(pics["without"], kernel), band_fraction(pics["with"], kernel)
        name = f"{_name(rank, kernel)}, {tasks} tasks"
        measured[name] = {"hoyer without": _f(h0, 3), "hoyer with": _f(h1, 3),
                          "near-zero without": _f(s0, 3), "near-zero with": _f(s1, 3)}
        sparser = h1 > h0 and s1 > s0
        holds = holds and sparser
        rows.append([name, lam, _f(h0, 3), _f(h1, 3), _f(s0, 3), _f(s1, 3), _f(b0, 3), _f(b1, 3),
                     _f(ch.test[ch.grid.index(0.0)]), _f(ch.test[ch.grid.index(lam)]), "yes" if sparser else "no"])
        evidence.append({"kind": "matrix", "title": f"{name}: max over the latent axis of |U| (output x input)",
                         "matrices": {"without sparsity": [[_f(x, 3) for x in row] for row in pics["without"]],
                                      f"exclusive sparsity, lambda = {lam:g}": [[_f(x, 3) for x in row]
                                                                                 for row in pics["with"]]}})
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
    evidence.insert(0, {"kind": "table", "title": "Sparsity of U without and with exclusive sparsity (lambda: the "
                                                  "nonzero lambda picked on validation tasks)",
                        "columns": ["setting", "lambda", "Hoyer without", "Hoyer with", "near-zero without",
                                    "near-zero with", "band share without", "band share with",
                                    "test loss without", "test loss with", "sparser"],
                        "rows": rows})
    criterion = ("holds if in every setting both the Hoyer sparsity of the entries of |U| and the fraction of "
                 f"entries below {SMALL:g} x max|U| are strictly larger with exclusive sparsity (lambda: the "
                 "nonzero grid value with the lowest meta-validation loss) than without")
    note = ("Hoyer measure (sqrt(n) - |u|_1/|u|_2)/(sqrt(n) - 1) over all entries of U (0: all equal, 1: one "
            "nonzero); near-zero: entries below 1e-3 of the largest; band share (not part of the criterion): the "
            "share of the max-|U| picture on the true locally connected band.  Settings: the report's Figs. 2-3 "
            "(rank 1 kernel 3 with 20 tasks, rank 2 and rank 5 kernel 5 with 50 tasks).")
    if not profile.full:
        note += "  Quick profile: all three with 20 tasks on 30 inputs (the runs of msr-sparsity-few-tasks)."
    settings = dict(_settings(profile), figure_settings=[list(s) for s in figure_settings], criterion=criterion,
                    near_zero_relative=SMALL)
    return Outcome(measured=measured, holds=holds, settings=settings, evidence=evidence, note=note)
