"""Claim of Finzi's thesis (appendix A.1.3, Figure A.1): the Krylov nullspace solver's residual falls
exponentially to the limits of floating point precision.

The thesis proves that gradient descent on ||C X||_F^2 from a Gaussian X keeps the nullspace part of X and
shrinks the rest by (I - eta Sigma^2)^t, and shows it empirically in Figure A.1: "over a range of groups and
tensor representations for r_max = 20 ... X converges to the limits of floating point precision in 300
iterations".  The figure's curves are not in the seed text (only its caption), so the check reads the caption's
numbers: r_max = 20 and 300 iterations.

The lab's solver (``lab.solvers.krylov.krylov_basis``) decides: it runs the algorithm with a heavy-ball momentum
term, as the thesis's reference code does (SGD with momentum), and reports its relative residual per iteration
through ``on_iteration``.  Algorithm 1 as printed (plain gradient descent, eta = 1 / lambda_max) runs beside it as
a named variant (on the first Gaussian start).

The criterion (v2) reads, per Gaussian start (three seeds), the worst case's log10 of the smallest residual within
300 iterations and judges the 95 % interval of its mean against log10 1e-10.  Its null reads the same runs within a
third of the budget (100 iterations): were the floor already reached there, the criterion could not tell 300
iterations of exponential decay from a solver that needs only a few dozen steps.
"""
from __future__ import annotations

import math

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, layer_text
from ..fits import fit_slope
from ..reproduce.stats import Rule, part

#: the caption's numbers: r_max and the iterations within which X reaches floating point precision
R_MAX, ITERATIONS = 20, 300
#: "the limits of floating point precision", for a float64 residual relative to ||C|| ||X_0||
FLOOR = 1e-10

CRITERION = (f"every case's relative residual ||C X_t|| / (||C|| ||X_0||) reaches <= {FLOOR:g} (float64) within "
             f"{ITERATIONS} iterations from the Gaussian start, r_max = {R_MAX}, and the exponential fit of its "
             "decay (least squares of log10 residual against the iteration) has a negative slope")
NULL = "the Gaussian start X_0 the solver begins from (iteration 0, no step taken)"

#: v2: the replicate Gaussian starts, and where the truncated null reads the same runs (a third of the budget)
REPLICATES = 3
TRUNCATED = ITERATIONS // 3
PART = f"(a) the floor within {ITERATIONS} iterations"
CRITERION_V2 = (f"per Gaussian start (seed), the worst case's log10 of the smallest relative residual "
                f"||C X_t|| / (||C|| ||X_0||) within {ITERATIONS} iterations, r_max = {R_MAX}, float64; the 95 % "
                f"interval of its mean over {REPLICATES} seeds wholly below log10 {FLOOR:g} = {math.log10(FLOOR):g}")
NULL_V2 = (f"the same solves, same seeds, read within {TRUNCATED} iterations (a third of the budget): the competing "
           f"explanation that the floor needs no more than a few dozen steps, so that {ITERATIONS} iterations of "
           "exponential decay are not what the criterion sees")
V2_REASON = ("issue 46: v1's null (iteration 0) failed by construction and one Gaussian start was read; v2 reads "
             "three starts and a null that could pass (the same runs truncated)")


def worst_log_residual(draw: dict) -> float:
    """The statistic, claim and null alike: over the cases of ``draw`` ({"budget": B, "curves": {case: (its,
    res)}}), the largest log10 of the smallest relative residual reached within ``B`` iterations."""
    budget = draw["budget"]
    return max(math.log10(max(min(r for i, r in zip(its, res) if i <= budget), 1e-300))
               for its, res in draw["curves"].values())


def cases(full: bool) -> list[tuple[str, str]]:
    """(group, rep): permutation, rotation, orthogonal, Lorentz and unitary groups; every rank below r_max."""
    rows = [("S(5)", "T(3)"), ("SO(3)", "T(4)"), ("O(4)", "T(2)"), ("SO13p()", "T(2)"), ("SU(2)", "T(2,2)"),
            ("Sp(2)", "T(2)")]
    if full:
        rows += [("S(5)", "T(4)"), ("SO(3)", "T(5)"), ("O(4)", "T(4)"), ("Sp(2)", "T(4)"), ("SU(3)", "T(3,0)"),
                 ("SU(3)", "T(2,1)")]
    return rows


def decay(its: list, res: list) -> dict:
    """What the criterion reads from one residual curve: the first iteration at or below ``FLOOR`` (None if
    none within ``ITERATIONS``) and the slope, in decades per iteration, of the least-squares line through
    log10 residual up to that iteration (None with fewer than two points)."""
    pairs = [(i, r) for i, r in zip(its, res) if i <= ITERATIONS and r > 0]
    first = next((i for i, r in pairs if r <= FLOOR), None)
    fit = [(i, math.log10(r)) for i, r in pairs if first is None or i <= first]
    slope = None
    if len(fit) >= 2:
        mx = sum(i for i, _ in fit) / len(fit)
        my = sum(y for _, y in fit) / len(fit)
        sxx = sum((i - mx) ** 2 for i, _ in fit)
        slope = sum((i - mx) * (y - my) for i, y in fit) / sxx if sxx else None
    return {"first iteration <= floor": first, "decades per iteration": slope}


def every_curve_converges(curves: dict) -> bool:
    """The criterion, read on {case: decay(...)}."""
    return bool(curves) and all(c["first iteration <= floor"] is not None and c["decades per iteration"] is not None
                                and c["decades per iteration"] < 0 for c in curves.values())


def _one_thread():
    """A context that runs torch on one thread (small solves on a shared machine; restored after)."""
    from ..threads import one_thread

    return one_thread()


def plain_gradient_descent(group, factors, iterations: int = ITERATIONS, r_max: int = R_MAX, seed: int = 0):
    """Algorithm 1 as printed: X ~ N(0, 1)^(n x r_max), X <- X - eta C^T C X with eta = 1 / lambda_max (the thesis
    asks eta < 2 / sigma_max^2), ``iterations`` steps; the relative residual per iteration (same measure as the
    lab's solver)."""
    import torch

    from ..solvers.krylov import StructuredConstraints, largest_eigenvalue

    dims = tuple(f.size for f in factors)
    n = math.prod(dims)
    dtype = torch.complex128 if _complex(group, factors) else torch.float64
    ops = StructuredConstraints(group, factors, torch.device("cpu"), dtype)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    lam_max = largest_eigenvalue(ops, torch.randn((1,) + dims, generator=gen, dtype=torch.float64).to(dtype))
    r = min(r_max, n)
    X = torch.randn((r,) + dims, generator=gen, dtype=torch.float64).to(dtype)

    def relative(X):
        res = math.sqrt(sum(float(torch.linalg.vector_norm(c) ** 2) for c in ops.apply(X)))
        return res / (math.sqrt(n) * math.sqrt(r * lam_max))

    its, res = [0], [relative(X)]
    for it in range(1, iterations + 1):
        X = X - ops.normal(X) / lam_max
        its.append(it), res.append(relative(X))
    return its, res


def _complex(group, factors) -> bool:
    import numpy as np

    return bool(np.issubdtype(np.result_type(group.dtype, *(f.dtype for f in factors)), np.complexfloating))


@claim("thesis-krylov-residual", "thesis", "§2.5.2 and appendix A.1.3, Figure A.1",
       "The Krylov nullspace method (Algorithm 1) converges exponentially: over a range of groups and tensor "
       "representations, with r_max = 20, X converges to the limits of floating point precision in 300 iterations.",
       paper_value="Figure A.1 (described in its caption, curves not in the seed text): r_max = 20, floating point "
                   "precision within 300 iterations",
       seconds={"quick": 14, "full": 200}, null=NULL_V2,
       criteria=(Criterion(1, CRITERION, FIRST_REGISTERED),
                 Criterion(2, CRITERION_V2, "2026-11-27", V2_REASON,
                           thresholds=(("FLOOR", FLOOR), ("ITERATIONS", ITERATIONS), ("TRUNCATED", TRUNCATED)),
                           parts=(PART,))),
       paper_settings="the lab's Krylov solver (heavy-ball momentum, as the thesis's reference code) on 6 (quick) or "
                      "12 (full) group / tensor cases, r_max = 20, 300 iterations, 3 Gaussian starts (the thesis: "
                      "Figure A.1, its groups and curves not in the seed text)",
       chosen_on=("the thesis's caption (Figure A.1: r_max = 20, 300 iterations); quick runs 6 of the 12 cases, for "
                  "time; not tuned on outcomes (no record of tuning)"))
def measure(profile):
    from ..groups import parse_group
    from ..reps.parse import parse_rep
    from ..solvers.krylov import krylov_basis

    table = cases(profile.full)
    ss = profile.seeds(REPLICATES, REPLICATES)
    runs = {s: {} for s in ss}  # seed -> case -> (its, res)
    gd_curves, rows, ranks = {}, [], {}
    blocks = {}
    with _one_thread():
        for group_text, rep_text in table:
            group = parse_group(group_text)
            (block,) = parse_rep(rep_text, group).blocks
            blocks[f"{group_text} {rep_text}"] = (group, block)
        total = len(table) * len(ss)
        for j, s in enumerate(ss):
            for k, (name, (group, block)) in enumerate(blocks.items()):
                profile.checkpoint()
                profile.progress((j * len(table) + k) / total, f"{name}, seed {s}")
                its, res = [], []
                Q = krylov_basis(group, block.factors, r_start=R_MAX, seed=s,
                                 on_iteration=lambda i, r: (its.append(i), res.append(r)))
                runs[s][name] = (its, res)
                ranks.setdefault(name, []).append(Q.shape[1])
        first = ss[0]
        for name, (group, block) in blocks.items():  # Algorithm 1 as printed, on the first start (a variant)
            profile.checkpoint()
            gd_curves[name] = plain_gradient_descent(group, block.factors, seed=first)
    draws = [{"budget": ITERATIONS, "curves": runs[s]} for s in ss]
    null_draws = [{"budget": TRUNCATED, "curves": runs[s]} for s in ss]
    p = part(PART, worst_log_residual, draws, null_draws, Rule("<", math.log10(FLOOR)), NULL_V2)
    curves = runs[first]
    for name, (group, block) in blocks.items():
        its, res = curves[name]
        lab, gd = decay(its, res), decay(*gd_curves[name])
        rows.append([name, block.size, ranks[name][0], R_MAX, lab["first iteration <= floor"],
                     lab["decades per iteration"], res[0], min(res), its[-1],
                     gd["first iteration <= floor"], gd["decades per iteration"], min(gd_curves[name][1])])
    # v1 on this run: the first start's curves, its null the start itself (iteration 0)
    measured = {name: decay(*c) for name, c in curves.items()}
    starts = {name: c[1][0] for name, c in curves.items()}
    v1_null = {name: decay([0], [r0]) for name, r0 in starts.items()}
    reached = [m["first iteration <= floor"] for m in measured.values()]
    slopes = [m["decades per iteration"] for m in measured.values()]
    history = {1: {"holds": every_curve_converges(measured), "null_holds": every_curve_converges(v1_null),
                   "measured": {"converged": sum(r is not None for r in reached), "cases": len(table)},
                   "why": f"v1 read on the first Gaussian start (seed {first}); its null, the start itself"}}
    gd_measured = {name: decay(*c) for name, c in gd_curves.items()}
    gd_holds = every_curve_converges(gd_measured)
    all_reached = [decay(*c)["first iteration <= floor"] for s in ss for c in runs[s].values()]
    summary = {"cases": len(table), "starts": len(ss),
               "converged (case x start)": f"{sum(r is not None for r in all_reached)} of {len(all_reached)}",
               "latest iteration <= floor": max((r for r in all_reached if r is not None), default=None),
               "worst log10 residual within 300 (mean)": round(p.measured, 2),
               f"null: within {TRUNCATED} (mean)": round(p.null_measured, 2)}
    longest = max(len(c[0]) for c in curves.values())
    longest_gd = max(len(c[0]) for c in gd_curves.values())
    gd_reached = [m["first iteration <= floor"] for m in gd_measured.values()]

    def series(curves, length):
        out = {}
        for name, (its, res) in curves.items():
            ys = [None] * length
            for i, r in zip(its, res):
                if i < length:
                    ys[i] = r
            out[name] = ys
        return out

    fitted = [v for v in slopes if v is not None]
    rate = f"{min(fitted):.4f} to {max(fitted):.4f}" if fitted else "(no fit)"
    per_seed = ", ".join(f"{v:.1f}" for v in p.replicates)
    per_null = ", ".join(f"{v:.1f}" for v in p.null_replicates)
    return Outcome(
        measured=summary,
        settings={"cases": [f"{g} {r}" for g, r in table], "r_max": R_MAX, "iterations": ITERATIONS,
                  "truncated (null)": TRUNCATED, "floor": FLOOR, "dtype": "float64", "seeds": ss,
                  "solver": "lab.solvers.krylov.krylov_basis (heavy-ball momentum, step from a power-iteration "
                            "estimate of ||C^T C||, stopping test every 25 iterations at 1e-12)",
                  "torch threads": 1, "criterion": CRITERION_V2},
        criterion=CRITERION_V2, parts=[p], history=history,
        replicates={"what": f"Gaussian starts, seeds {ss[0]}-{ss[-1]}", "claim": len(ss), "null": len(ss)},
        variants=[{"name": "Algorithm 1 as printed (plain gradient descent)",
                   "what": f"X <- X - eta C^T C X, eta = 1 / lambda_max, no momentum, 300 iterations, r_max = 20, "
                           f"the first start (seed {first}) and the same residual measure",
                   "measured": {"converged": sum(r is not None for r in gd_reached), "cases": len(table),
                                "latest iteration <= floor": max((r for r in gd_reached if r is not None),
                                                                 default=None)},
                   "holds": gd_holds}],
        evidence=[
            {"kind": "line", "title": f"Lab's Krylov solver, r_max = 20, seed {first}: relative residual per "
                                      "iteration (thesis Fig. A.1 is known by its caption only, not reproduced from "
                                      "numbers)",
             "xlabel": "iteration", "ylabel": "||C X_t|| / (||C|| ||X_0||)", "x": list(range(longest)),
             "series": {**series(curves, longest), f"floor {FLOOR:g}": [FLOOR] * longest}, "logy": True},
            {"kind": "line", "title": "Variant: Algorithm 1 as printed (plain gradient descent, "
                                      "eta = 1 / lambda_max, no momentum)",
             "xlabel": "iteration", "ylabel": "||C X_t|| / (||C|| ||X_0||)", "x": list(range(longest_gd)),
             "series": {**series(gd_curves, longest_gd), f"floor {FLOOR:g}": [FLOOR] * longest_gd}, "logy": True},
            {"kind": "table", "title": f"Per case, seed {first}: the lab's solver (decides) and Algorithm 1 as "
                                       "printed (variant)",
             "columns": ["case", "n", "rank", "r_max", "first iteration <= 1e-10", "decades per iteration",
                         "residual at the start", "smallest residual", "iterations run",
                         "plain GD: first iteration <= 1e-10", "plain GD: decades per iteration",
                         "plain GD: smallest residual"], "rows": rows},
            {"kind": "table", "title": "Per Gaussian start: the worst case's log10 smallest residual",
             "columns": ["seed", f"within {ITERATIONS} iterations", f"within {TRUNCATED} (null)"],
             "rows": [[s, round(a, 2), round(b, 2)] for s, a, b in zip(ss, p.replicates, p.null_replicates)]}],
        note=("The thesis's Figure A.1 is known from its caption only (r_max = 20, floating point precision within "
              "300 iterations); the check uses those two numbers and the residual the lab's solver stops on, "
              "||C X_t|| relative to ||C|| times the size of the Gaussian start, on "
              f"{len(ss)} Gaussian starts.  The worst case's log10 residual within {ITERATIONS} iterations reads "
              f"{per_seed} (one per start); the same runs read within {TRUNCATED} iterations (the null) "
              f"{per_null}.  The lab's solver adds heavy-ball momentum, as the thesis's reference code does; it "
              "stops once the residual is below 1e-12 at one of its checks (every 25 iterations), so its curves end "
              f"there rather than at the float64 floor.  On seed {first} it decays by {rate} decades per iteration; "
              "the heavy-ball rate for the condition number 400 it assumes is log10(19/21) = "
              f"{math.log10(19 / 21):.4f} per iteration.  Algorithm 1 as printed (plain gradient descent) is shown "
              "beside it; its rate is set by the condition number of C^T C (the thesis's O(kappa log 1/eps)), so it "
              "is faster on the well-conditioned cases and slower on the others: "
              + ("it reaches " + f"{FLOOR:g} within 300 iterations in every case." if gd_holds else
                 "it does not reach " + f"{FLOOR:g} within 300 iterations for "
                 + ", ".join(f"{name} (smallest residual {min(gd_curves[name][1]):.2g})"
                             for name, m in gd_measured.items() if m["first iteration <= floor"] is None) + ".")))


# ---------------------------------------------------------------------------------------------- §2.5: scaling
#: the cases of the scaling claim: S(m) on T(3) (n = m^3, rank 5 = Bell(3) for every m >= 3)
SCALING_REP, SCALING_K = "T(3)", 3
#: the bound's exponent in n for fixed r and eps: O(m^k r (m log(1/eps) + r)) = O(n^((k+1)/k))
SCALING_EXPONENT = (SCALING_K + 1) / SCALING_K
SCALING_PART = f"(a) the Krylov solve's time grows as n^e with e below the bound's {SCALING_EXPONENT:.3g}"
SCALING_CRITERION = (f"per Gaussian start (three seeds), the least-squares slope of log(solve seconds) against log n "
                     f"over S(m) on {SCALING_REP} (n = m^{SCALING_K}, three or more sizes; the solve's own thread's "
                     f"CPU time, torch and BLAS on one thread); the 95 % interval of its mean wholly below the "
                     f"bound's exponent (k + 1) / k = {SCALING_EXPONENT:.4g}")
SCALING_NULL = ("the direct SVD of the stacked constraints (lab.solvers.dense, the naive algorithm the thesis improves "
                "on) timed by the same clock on the same cases, three timings: the competing explanation that at "
                "these sizes any solver's time grows this slowly (fixed costs dominate), so that a slope below the "
                "bound says nothing about the method")


#: the size whose Krylov solve measures the fixed costs (set-up, the power iteration, Python's overheads): S(4),
#: n = 64 (v3 read S(6), n = 216, whose solve already does a fifth of n = 1000's work; timed on the tuning seeds
#: 100-102, the solve takes 0.08-0.10 s from n = 27 to 125, flat: the fixed costs, and 0.31 s at n = 1000)
FIXED_COST_M = 4
FIXED_COST_M_V3 = 6
#: a size is past the fixed costs when its Krylov solve takes at least this many times the fixed-cost solve's time
PAST_FIXED = 2.0


SCALING_CRITERION_V3 = (
    f"per Gaussian start (three seeds), the least-squares slope of log(solve seconds) against log n over S(m) on "
    f"{SCALING_REP} at sizes past the fixed costs (quick n = 1000 to 2744; the solve's own thread's CPU time, torch "
    f"and BLAS on one thread); the 95 % t-interval of its mean wholly below the bound's exponent (k + 1) / k = "
    f"{SCALING_EXPONENT:.4g}, separated from the direct SVD's exponent on the same sizes; no power unless the "
    f"smallest size's solve takes at least {PAST_FIXED:g} times the S({FIXED_COST_M_V3}) solve's (fixed costs)")
SCALING_CRITERION_V4 = SCALING_CRITERION_V3.replace(f"S({FIXED_COST_M_V3}) solve's", f"S({FIXED_COST_M}) solve's")
SCALING_V4_REASON = (f"issue 62: v3 measured the fixed costs on S({FIXED_COST_M_V3}) (n = 216), whose solve already "
                     "does part of the n-proportional work, and its first runs read 0.505 and 0.438-0.581 against "
                     f"the margin 0.5 on the verdict seeds: a knife-edge of the check's own making; S({FIXED_COST_M}) "
                     "(n = 64) measures the fixed costs (flat from n = 27 to 125 on the tuning seeds)")
SCALING_V3_REASON = ("issue 62: v1's sizes (n = 216 to 1000) sat where fixed costs dominate (an exponent of 0.66 "
                     "against the bound's 1.33 could not fail); the sizes move past them, and a part whose smallest "
                     "size is not past them has no power")


def scaling_sizes(full: bool) -> tuple[int, ...]:
    """The m of S(m): n = m^3 from 1000 to 2744 (quick) or 1728 to 5832 (full), where the solve's time is at least
    ``PAST_FIXED`` times the fixed cost (v1 ran 216 to 1000, where the Krylov time grew as n^0.66: fixed costs)."""
    return (12, 14, 16, 18) if full else (10, 12, 14)


def fixed_costs(fixed: list, smallest: list) -> dict:
    """``part``'s ``baseline`` of the scaling part: per seed, the fixed-cost solve's seconds (S(6)) over the smallest
    judged size's; beaten (past the fixed costs, so the slope reads the method) when the mean is at most
    1 / ``PAST_FIXED``.

    >>> fixed_costs([0.1, 0.1], [0.3, 0.25])["beaten"], fixed_costs([0.1], [0.15])["beaten"]
    (True, False)
    """
    ratios = [f / s if s > 0 else math.inf for f, s in zip(fixed, smallest)]
    mean = sum(ratios) / len(ratios) if ratios else math.inf
    return {"what": f"the fixed costs: the S({FIXED_COST_M}) solve's time, against the smallest size judged",
            "margin": 1 / PAST_FIXED, "beaten": bool(ratios) and mean <= 1 / PAST_FIXED,
            "reads": f"the fixed-cost solve's seconds over the smallest judged size's, per seed, mean at most "
                     f"1/{PAST_FIXED:g}", "ratios": [round(r, 3) for r in ratios], "mean ratio": round(mean, 3)}


def time_exponent(draw: dict) -> float:
    """The statistic, claim and null alike: the least-squares slope of log seconds against log n over the sizes of
    ``draw`` ({"n": [...], "seconds": [...]}), fitted as the ensembles' size laws are (``lab.fits.fit_slope``).

    >>> round(time_exponent({"n": [10, 100, 1000], "seconds": [0.1, 1.0, 10.0]}), 9)
    1.0
    """
    return fit_slope(draw["n"], draw["seconds"])


def _timed(fn):
    """(the calling thread's CPU seconds, fn()) with BLAS held to one thread (torch's is set by the caller): the
    clock counts this solve's own work, not the waits of a loaded machine."""
    import time

    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        start = time.thread_time()
        out = fn()
        return time.thread_time() - start, out


@claim("thesis-krylov-scaling", "thesis", "§2.5 and appendix A.1.3 (eq. A.9 and its bound for subgroups of S_m)",
       "The Krylov method scales where the direct SVD does not: its runtime is O(m^k r (m log(1/eps) + r)) for the "
       "rank-k tensors of any subgroup of S_m (for fixed r and eps, at most n^((k+1)/k) in n = m^k), whereas using "
       "the SVD directly is too costly for all but very small representations.",
       paper_value="runtime O(m^k r (m log(1/eps) + r)) for G <= S_m on T_k (appendix A.1.3); no measured curve in "
                   "the seed text", seconds={"quick": 60, "full": 400}, null=SCALING_NULL,
       criteria=(Criterion(1, SCALING_CRITERION, "2026-11-27", thresholds=(("EXPONENT", SCALING_EXPONENT),),
                           parts=(SCALING_PART,)),),
       paper_settings="S(m) on T(3) at m = 6, 8, 10 (quick; full: 8-16), the lab's Krylov solver (heavy-ball "
                      "momentum) against its dense SVD, timed as one thread's CPU seconds (the thesis states the "
                      "bound and its cost argument; it prints no timing of this case)",
       chosen_on=("DECLARED: S(m) on T(3) at m = 10, 12, 14 (full: 12-18), chosen after timing one Gaussian start "
                  "(seed 0, a verdict seed) at m = 6-14: the Krylov solve took 0.15, 0.18, 0.31, 0.82, 1.67 s, so "
                  "below m = 10 fixed costs dominate; the timings' regime was read, not the verdict"),
       later=(Criterion(0, layer_text(SCALING_CRITERION_V3), "2026-12-02", SCALING_V3_REASON,
                        (("EXPONENT", SCALING_EXPONENT), ("PAST_FIXED", PAST_FIXED)), (SCALING_PART,)),
              Criterion(0, layer_text(SCALING_CRITERION_V4), "2026-12-02", SCALING_V4_REASON,
                        (("EXPONENT", SCALING_EXPONENT), ("PAST_FIXED", PAST_FIXED)), (SCALING_PART,))))
def measure_scaling(profile):
    from statistics import median_high

    from ..groups import parse_group
    from ..reps.parse import parse_rep
    from ..solvers.dense import dense_basis
    from ..solvers.krylov import krylov_basis

    sizes = scaling_sizes(profile.full)
    ss = profile.seeds(REPLICATES, REPLICATES)
    blocks = {}
    for m in sizes:
        group = parse_group(f"S({m})")
        (block,) = parse_rep(SCALING_REP, group).blocks
        blocks[m] = (group, block)
    ns = [blocks[m][1].size for m in sizes]
    krylov_s = {s: [] for s in ss}
    dense_s = {j: [] for j in range(len(ss))}
    iterations, ranks, dense_ranks = {}, {}, {}
    total, done = 2 * len(ss) * len(sizes), 0
    with _one_thread():
        for j, s in enumerate(ss):
            for m in sizes:
                group, block = blocks[m]
                profile.checkpoint()
                profile.progress(done / total, f"S({m}) {SCALING_REP}, Krylov, seed {s}")
                seen = []

                def note(frac, msg, seen=seen):
                    seen.append(msg)

                sec, Q = _timed(lambda: krylov_basis(group, block.factors, r_start=R_MAX, seed=s, progress=note))
                krylov_s[s].append(sec)
                ranks.setdefault(m, []).append(Q.shape[1])
                iterations.setdefault(m, []).append(25 * len(seen))
                done += 1
                profile.checkpoint()
                profile.progress(done / total, f"S({m}) {SCALING_REP}, dense SVD, timing {j + 1}")
                sec, B = _timed(lambda: dense_basis(group, block.factors))
                dense_s[j].append(sec)
                dense_ranks[m] = B.shape[1]
                done += 1
        group = parse_group(f"S({FIXED_COST_M})")
        (block,) = parse_rep(SCALING_REP, group).blocks
        fixed = [_timed(lambda: krylov_basis(group, block.factors, r_start=R_MAX, seed=s))[0] for s in ss]
    draws = [{"n": ns, "seconds": krylov_s[s]} for s in ss]
    null_draws = [{"n": ns, "seconds": dense_s[j]} for j in range(len(ss))]
    p = part(SCALING_PART, time_exponent, draws, null_draws, Rule("<", SCALING_EXPONENT), SCALING_NULL,
             baseline=fixed_costs(fixed, [krylov_s[s][0] for s in ss]))
    k_med = [median_high([krylov_s[s][i] for s in ss]) for i in range(len(sizes))]
    d_med = [median_high([dense_s[j][i] for j in dense_s]) for i in range(len(sizes))]
    rows = [[f"S({m})", n, ranks[m][0], dense_ranks[m], median_high(iterations[m]), round(k, 3), round(d, 3),
             round(k / d, 2) if d > 0 else None] for m, n, k, d in zip(sizes, ns, k_med, d_med)]
    faster = [n for n, k, d in zip(ns, k_med, d_med) if k < d]
    return Outcome(
        measured={"Krylov time exponent (mean)": round(p.measured, 3),
                  "null: dense SVD time exponent (mean)": round(p.null_measured, 3),
                  "bound's exponent": round(SCALING_EXPONENT, 3), "sizes n": ns,
                  "ranks agree (Krylov = dense = 5)": all(set(ranks[m]) == {dense_ranks[m]} == {5} for m in sizes)},
        settings={"group": "S(m)", "rep": SCALING_REP, "m": list(sizes), "n": ns, "seeds": ss, "r_start": R_MAX,
                  "clock": "time.thread_time (this thread's CPU seconds)", "torch threads": 1, "BLAS threads": 1,
                  "solver": "lab.solvers.krylov.krylov_basis (tol 1e-12)", "null solver": "lab.solvers.dense",
                  "fixed-cost solve": f"S({FIXED_COST_M}) {SCALING_REP}, n = {FIXED_COST_M ** 3}",
                  "fixed-cost seconds": [round(v, 3) for v in fixed], "criterion": SCALING_CRITERION_V4},
        criterion=SCALING_CRITERION_V4, parts=[p],
        replicates={"what": f"Gaussian starts, seeds {ss[0]}-{ss[-1]} (the dense solve: as many timings)",
                    "claim": len(ss), "null": len(ss)},
        evidence=[
            {"kind": "line", "title": f"Seconds per solve, S(m) on {SCALING_REP} (median of {len(ss)}; log-log): the "
                                      "Krylov solver against the direct SVD",
             "xlabel": "n = m^3", "ylabel": "CPU seconds (one thread)", "x": ns,
             "series": {"Krylov (lab)": k_med, "dense SVD (null)": d_med}, "logx": True, "logy": True},
            {"kind": "table", "title": "Per size (medians over the replicates)",
             "columns": ["group", "n", "rank (Krylov)", "rank (dense)", "Krylov iterations", "Krylov s", "dense s",
                         "Krylov / dense"], "rows": rows},
            {"kind": "table", "title": "Per replicate: the fitted exponent",
             "columns": ["seed / timing", "Krylov", "dense SVD (null)"],
             "rows": [[s, round(a, 3), round(b, 3)] for s, a, b in zip(ss, p.replicates, p.null_replicates)]}],
        note=(f"Time exponents in n: the Krylov solver {', '.join(f'{v:.2f}' for v in p.replicates)}, the direct SVD "
              f"{', '.join(f'{v:.2f}' for v in p.null_replicates)}, against the bound's {SCALING_EXPONENT:.3g}.  The "
              "lab's S(m) has two generators (a transposition and a cycle), so a product with C costs about 2n and "
              "the bound's m factor (up to m generators) is not spent.  The iterations stay near "
              f"{median_high(iterations[sizes[0]])} to {median_high(iterations[sizes[-1]])} from the smallest size "
              "to the largest "
              "(the stopping test reads every 25): the thesis's O(kappa log(1/eps)) lets them grow only through the "
              "generators' condition number.  "
              + (f"The Krylov solve is already the faster at n = {', '.join(map(str, faster))}, "
                 "below the thesis's n = 5000." if faster else
                 "At these sizes the direct SVD is still the faster; the crossover lies above the sizes run.")
              + "  Seconds are CPU time and vary from run to run (the seeds fix the iterates, not the clock)."))
