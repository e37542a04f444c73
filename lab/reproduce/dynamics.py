"""Claims of Nordenfors, Ohlsson & Flinth (training dynamics): section 5, appendices D and E.

The Perm, Trans and Rot trainings are shared between claims (``profile.memo``).  Settings:

* ``full``: the paper's (§5 and appendix D): ``scale="paper"``, 30 runs, 50 steps, L = 25 augmentation passes,
  the paper's learning rate (the config's paper table where it has one, else the authors' code: the paper's
  text lost the number), plus sweeps over L for the evidence;
* ``quick``: a reduced regime of the same kind: the lab's ``small`` data and widths, 3 runs, the lab's small
  preset of steps and passes (Perm 40 x L = 10, Trans 30 x 5, Rot 30 x 4), the paper's learning rate (so the
  dynamics stay in the gradient-flow regime the paper studies).  Nothing is chosen on the outcome.

The distances are the lab's (``Trainer.records``): norms ‖Π_{E⊥}A‖ and ‖A − A0‖ over the layers with E ≠ L.
The authors' code recorded and plotted squared norms (``layer_equivariance`` in ``opt_utils.py``), so the
ratios the paper's figures show are the squares of the norm ratios: both are reported.
"""
from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from .claim import Outcome, claim

#: the learning rates of the authors' code (train_permutation.py 1e-4, train_translation.py and
#: train_rotation.py 1e-5, train_different_groups.py 5e-5); the paper's "the learning rate is equal to ..." lost
#: its number in the text we have
REFERENCE_LR = {"perm": 1e-4, "trans": 1e-5, "rot": 1e-5}
E2_LR = 5e-5
#: quick: the lab's small preset of steps and passes per experiment (pinned here so the CI check is stable)
QUICK = {"perm": dict(steps=40, aug_passes=10), "trans": dict(steps=30, aug_passes=5),
         "rot": dict(steps=30, aug_passes=4)}
QUICK_RUNS = 3
#: full: §5 (30 runs, 50 steps, 25 passes)
FULL = dict(runs=30, steps=50, aug_passes=25)
#: the L sweeps of the evidence (the main run's L is added); aug-only runs, Nom is shared (it does not depend on L)
SWEEP_L = {"quick": {"perm": (2, 5), "trans": (2,)},
           "full": {"perm": (5, 10, 50, 100), "trans": (5, 10, 50)}}
#: the criterion of the Aug/Nom claims, on the squared ratio (what the paper plotted): two orders of magnitude
SQUARED_MAX = 1e-2
#: ‖Π_{E⊥}A‖ / ‖A‖ counted as rounding, per training dtype
EQUI_TOL = {"float64": 1e-10, "float32": 1e-4}
#: ‖A_aug − A_equi‖ / ‖A_equi − A0‖ counted as rounding, per training dtype (rounding grows over the steps)
FOLLOW_TOL = {"float64": 1e-8, "float32": 1e-3}
#: Rot: "the shifts orthogonal to E are very small compared with the total shifts"
ROT_SMALL = 0.1
#: appendix E.2's expected order of Aug/Nom (largest first)
E2_ORDER = ("Rot", "OneDTrans", "Trans", "TransRot")


# ---------------------------------------------------------------------------------------------- settings
def _fields() -> set:
    from ..dynamics.config import DynamicsConfig

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
    from ..dynamics.config import DynamicsConfig

    paper = DynamicsConfig(experiment=experiment, scale="paper").validate()
    small = DynamicsConfig(experiment=experiment, scale="small").validate()
    if paper.lr != small.lr:
        return paper.lr, "the lab's paper table"
    return fallback, "the authors' code"


def _settings(profile, experiment: str) -> dict:
    if profile.full:
        lr, source = _paper_lr(experiment, REFERENCE_LR[experiment])
        return dict(scale="paper", **FULL, lr=lr, lr_source=source)
    return dict(scale="small", runs=QUICK_RUNS, **QUICK[experiment], lr=REFERENCE_LR[experiment],
                lr_source="the authors' code")


def _config(profile, experiment: str, settings: dict, **more):
    from ..dynamics import DynamicsConfig

    kw = {k: v for k, v in settings.items() if k != "lr_source"}
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
    from ..dynamics import Trainer

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
    return profile.memo(("dyn-main", experiment), lambda: _train(profile, experiment, settings, share=share))


def _medians(trainer):
    """(steps, {strategy: (median ‖Π_{E⊥}A‖, median ‖A − A0‖)}) over live runs, per step."""
    from ..dynamics.metrics import medians

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


# ---------------------------------------------------------------------------------------------- Aug vs Nom
def _ratio_claim(profile, experiment: str) -> Outcome:
    main = _main_run(profile, experiment, share=(0.0, 0.6))
    steps, med = _medians(main)
    nom_E, aug_E = med["nom"][0][-1], med["aug"][0][-1]
    ratio = aug_E / nom_E
    squared = ratio ** 2
    L0 = main.config.aug_passes
    # Aug/Nom against steps (from the main run)
    step_ratio = [(a / n if a is not None and n else None) for a, n in zip(med["aug"][0], med["nom"][0])]
    xs = steps[1:]
    ys = step_ratio[1:]
    steps_slope = _slope(xs[len(xs) // 4:], ys[len(ys) // 4:])
    # Aug/Nom against L: aug-only runs from the same A0 (Nom does not depend on L)
    settings = _settings(profile, experiment)
    Ls = sorted(set(SWEEP_L[profile.name].get(experiment, ())) | {L0})
    sweep = {}
    others = [L for L in Ls if L != L0]
    for k, L in enumerate(others):
        key = ("dyn-sweep", experiment, L)
        tr = profile.memo(key, lambda L=L, k=k: _train(
            profile, experiment, {**settings, "aug_passes": L}, strategies=("aug",), label=f"{experiment} L={L}",
            share=(0.6 + 0.4 * k / len(others), 0.6 + 0.4 * (k + 1) / len(others))))
        sweep[L] = tr.summary()["aug"]["dist_from_E"] / nom_E
    sweep[L0] = ratio
    L_ratio = [sweep[L] for L in Ls]
    L_slope = _slope(Ls, L_ratio)
    holds = squared <= SQUARED_MAX
    name = experiment.capitalize()
    ref_L = [L_ratio[Ls.index(L0)] * math.sqrt(L0 / L) for L in Ls]
    ref_t = [ys[-1] * math.sqrt(xs[-1] / t) for t in xs]
    evidence = [
        {"kind": "line", "title": f"{name}: median ||Pi_perp A|| over training", "xlabel": "step",
         "ylabel": "median ||Pi_perp A||", "x": steps,
         "series": {s: [max(v, 1e-300) if v is not None else None for v in med[s][0]] for s in ("nom", "aug", "equi")},
         "logx": False, "logy": True},
        {"kind": "line", "title": f"{name}: Aug/Nom against the augmentation passes L (final step)",
         "xlabel": "L", "ylabel": "Aug/Nom of median ||Pi_perp A||", "x": Ls,
         "series": {"measured": L_ratio, "1/sqrt(L) through the main run": ref_L}, "logx": True, "logy": True},
        {"kind": "line", "title": f"{name}: Aug/Nom against steps (L = {L0})", "xlabel": "step",
         "ylabel": "Aug/Nom of median ||Pi_perp A||", "x": xs,
         "series": {"measured": ys, "1/sqrt(steps) through the last step": ref_t}, "logx": True, "logy": True},
        {"kind": "table", "title": f"{name}: final medians",
         "columns": ["strategy", "median ||Pi_perp A||", "median ||A - A0||", "median accuracy"],
         "rows": [[s, v["dist_from_E"], v["dist_from_init"], v["accuracy"]] for s, v in main.summary().items()]},
    ]
    return Outcome(
        measured={"aug_over_nom": ratio, "aug_over_nom_squared": squared,
                  "exponent_in_L": L_slope, "exponent_in_steps": steps_slope},
        holds=holds,
        settings={**settings, "seed": profile.seed, "sweep_L": Ls, "dtype": _dtype_name(main),
                  "criterion": f"(Aug/Nom of the final median ||Pi_perp A||)^2 <= {SQUARED_MAX:g}: at least two orders "
                               "of magnitude in the squared norm the paper plotted"},
        evidence=evidence,
        note=(f"The paper's figure plots the squared norm sum ||Pi_perp A||^2 (the authors' layer_equivariance), so its "
              f"'several orders of magnitude' are of the squared ratio; here the norm ratio is {ratio:.3g} and its square "
              f"{squared:.3g}. " + ("" if holds else "The squared ratio is above the criterion. ") +
              f"Aug's leftover outside E is sampling noise that averages as 1/sqrt(L x steps), Nom's is a systematic "
              f"drift: fitted exponents {_fmt(L_slope)} in L and {_fmt(steps_slope)} in steps (both -1/2 expected; the "
              "issue's Aug/Nom 0.090, 0.049, 0.022 at L = 10, 40, 160 give -0.51). The quick regime has fewer passes "
              "and steps than the paper's L = 25 and 50 steps, so its ratio is larger than at full."))


def _fmt(x):
    return "n/a" if x is None else f"{x:.2f}"


@claim("dyn-perm-aug-vs-nom", "dynamics", "§5.1, Fig. 1 (Perm)",
       "Perm: the Aug model stays much closer to E than Nom; the shift orthogonal to E is smaller by several "
       "orders of magnitude.", paper_value="several orders of magnitude (of the plotted squared norm)",
       seconds={"quick": 14, "full": 900})
def perm_aug_vs_nom(profile) -> Outcome:
    return _ratio_claim(profile, "perm")


@claim("dyn-trans-aug-vs-nom", "dynamics", "§5.1, Fig. 1 (Trans)",
       "Trans: the Aug model stays much closer to E than Nom; the shift orthogonal to E is smaller by several "
       "orders of magnitude.", paper_value="several orders of magnitude (of the plotted squared norm)",
       seconds={"quick": 16, "full": 1800})
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

    from ..dynamics.action import all_elements

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


@claim("dyn-rot-aug-near-nom", "dynamics", "§5.1, Fig. 1 (Rot)",
       "Rot: the Aug and Nom models are much closer to each other than in Perm and Trans, and the shifts "
       "orthogonal to E are very small compared with the total shifts.", paper_value=None,
       seconds={"quick": 20, "full": 1800})
def rot_aug_near_nom(profile) -> Outcome:
    ratios, rows = {}, []
    for k, name in enumerate(("perm", "trans", "rot")):
        tr = _main_run(profile, name, share=(k / 3, (k + 1) / 3))
        s = tr.summary()
        ratios[name] = s["aug"]["dist_from_E"] / s["nom"]["dist_from_E"]
        rows.append([name, tr.config.aug_passes, tr.config.steps, tr.config.lr, s["nom"]["dist_from_E"],
                     s["aug"]["dist_from_E"], ratios[name], ratios[name] ** 2,
                     s["nom"]["dist_from_E"] / s["nom"]["dist_from_init"],
                     s["aug"]["dist_from_E"] / s["aug"]["dist_from_init"]])
    rot = _main_run(profile, "rot")
    s = rot.summary()
    small = {k: s[k]["dist_from_E"] / s[k]["dist_from_init"] for k in ("nom", "aug")}
    larger = ratios["rot"] > ratios["perm"] and ratios["rot"] > ratios["trans"]
    is_small = all(v < ROT_SMALL for v in small.values())
    diag = _reference_rot_drift(rot)
    holds = larger and is_small
    measured = {"aug_over_nom": {k: v for k, v in ratios.items()}, "rot_perp_over_shift": small,
                "rot_ratio_largest": larger}
    if diag:
        measured["reference_code_prediction"] = diag["reference_flattened"]
    evidence = [{"kind": "table", "title": "Aug/Nom per experiment (final medians; norms, squares in the next column)",
                 "columns": ["experiment", "L", "steps", "lr", "Nom ||Pi_perp A||", "Aug ||Pi_perp A||", "Aug/Nom",
                             "(Aug/Nom)^2", "Nom ||Pi_perp A||/||A-A0||", "Aug ||Pi_perp A||/||A-A0||"],
                 "rows": rows},
                {"kind": "bar", "title": "Aug/Nom of the final median ||Pi_perp A||", "ylabel": "Aug/Nom",
                 "labels": [r[0] for r in rows], "series": {"lab (uniform C4 / S(n) / Z(N)^2 augmentation)":
                                                            [r[6] for r in rows]}, "logy": True}]
    if diag:
        evidence.append({"kind": "table", "title": "Rot: Aug's drift rate off E against Nom's at A0 (gradient flow)",
                         "columns": ["augmentation draws", "||Pi_perp E_g[rho(g) grad]|| / ||Pi_perp grad||"],
                         "rows": [["uniform C4 (the lab; the paper's text)", diag["uniform_C4"]],
                                  ["authors' Rotate on flattened images (§5 Rot): identity 2/5, half-turn 3/5",
                                   diag["reference_flattened"]],
                                  ["authors' Rotate on 2-D images (E.2 Rot): identity 2/5, each turn 1/5 (exactly 1/5)",
                                   diag["reference_2d"]]]})
    cause = ""
    if not larger:
        cause = (f"Rot's Aug/Nom ({ratios['rot']:.3g}) is not larger than Perm's ({ratios['perm']:.3g}) and Trans's "
                 f"({ratios['trans']:.3g}). The lab draws rotations uniformly from C4, as the paper's text says; then "
                 "Aug's expected gradient at an equivariant point lies in E and only sampling noise leaves it, so "
                 "Aug/Nom ~ 1/sqrt(L x batches x steps) as in Perm and Trans, whatever the group. The authors' code "
                 "does not draw uniformly: Rotate uses random.randint(0, 4) (five values, two of them the identity) "
                 "and on the Rot experiment's flattened images its reshape to N x N is discarded, so every other "
                 "draw reverses the flattened image (a half-turn): identity 2/5, half-turn 3/5. That average is not "
                 "Pi_E and leaves a systematic drift off E like Nom's")
        if diag:
            cause += (f": at A0 it keeps {diag['reference_flattened']:.2f} of Nom's drift rate off E (uniform C4: "
                      f"{diag['uniform_C4']:.1g}), which accounts for the paper's 'Aug close to Nom' in Rot. ")
        else:
            cause += ". "
    if not is_small:
        cause += (f"The shifts off E are not below {ROT_SMALL} of the total shifts for both models: Nom "
                  f"{small['nom']:.3g}, Aug {small['aug']:.3g}. ")
    return Outcome(
        measured=measured, holds=holds,
        settings={"experiments": {n: _settings(profile, n) for n in ("perm", "trans", "rot")}, "seed": profile.seed,
                  "criterion": f"Rot's Aug/Nom (final median ||Pi_perp A||) larger than Perm's and Trans's, and for "
                               f"Rot's Nom and Aug ||Pi_perp A|| / ||A - A0|| < {ROT_SMALL}"},
        evidence=evidence,
        note=cause or ("Rot's Aug stays closer to Nom than Perm's and Trans's do, and its shifts off E are small "
                       f"against the total (Nom {small['nom']:.3g}, Aug {small['aug']:.3g})."))


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


def _ratio_rows(experiment, group_text, n, arch):
    """Closed form and solver dims of each block with E != L: rows and the two overall ratios."""
    from ..dynamics.projection import LayerSpace
    from ..groups import parse_group

    G = parse_group(group_text)
    rows, cf, sv, equal = [], [0, 0], [0, 0], True
    for rep_in, rep_out, c_in, c_out in arch:
        space = LayerSpace(G, rep_in, rep_out)
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


@claim("dyn-relative-dimensions", "dynamics", "appendix E.1, Table 1",
       "dim E / dim L of the layers with E != L: much larger for Rot (about 1/4) than for Perm and Trans.",
       paper_value={"perm": "15/n^4 and 2/n^2 per block (n = 10)", "trans": "N^2/N^4 and 1/N^2 per block",
                    "rot": "1/4"}, seconds={"quick": 6, "full": 30})
def relative_dimensions(profile) -> Outcome:
    from ..dynamics.experiments import build
    from ..dynamics.model import BatchedMLP

    rows, table, equal = [], [], True
    sizes = {}
    # 1. the paper's own sizes (appendix D / the authors' code)
    for k, (name, (group, n, arch)) in enumerate(PAPER_ARCH.items()):
        r, cf, sv, ok = _ratio_rows(name, group, n, arch)
        rows += r
        equal &= ok and cf == sv
        table.append([name, "paper (authors' sizes)", group, float(cf), float(sv), cf == sv])
        sizes[name] = float(sv)
        profile.progress((k + 1) / 6, f"{name}: paper sizes")
        profile.checkpoint()
    # 2. the lab's architectures at its paper scale: the trainer's own layer dims (dim_ratio), few data
    tiny = {"perm": {"graphs": 4}, "trans": {"images": 20}, "rot": {"images": 4}}
    lab_ratio = {}
    for k, name in enumerate(("perm", "trans", "rot")):
        exp = build(name, "paper", profile.seed, **tiny[name])
        model = BatchedMLP(exp.group, exp.specs)
        dims = model.dims()
        eq = [d for d, sp in zip(dims, model.spaces) if not sp.trivial]
        sv = Fraction(sum(d[0] for d in eq), sum(d[1] for d in eq))
        n = exp.group.d if name == "perm" else math.isqrt(exp.group.d)
        arch = [(s.rep_in, s.rep_out, s.c_in, s.c_out) for s in exp.specs]
        r, cf, sv2, ok = _ratio_rows(name, str(exp.group), n, arch)
        rows += r
        equal &= ok and cf == sv and sv == sv2
        lab_ratio[name] = float(sv)
        table.append([name, "lab paper scale", str(exp.group), float(cf), float(sv), cf == sv])
        profile.progress((k + 4) / 6, f"{name}: lab paper scale")
        profile.checkpoint()
    rot_largest = sizes["rot"] > 10 * max(sizes["perm"], sizes["trans"]) and \
        lab_ratio["rot"] > 10 * max(lab_ratio["perm"], lab_ratio["trans"])
    holds = equal and rot_largest
    return Outcome(
        measured={"paper_sizes": sizes, "lab_paper_scale": lab_ratio},
        holds=holds,
        settings={"paper_architectures": {k: {"group": g, "layers": [list(a) for a in arch]}
                                          for k, (g, n, arch) in PAPER_ARCH.items()},
                  "criterion": "the closed forms equal the solver's dim E and dim L for every block (exact integers) "
                               "and Rot's dim E / dim L is more than 10 x Perm's and Trans's"},
        evidence=[{"kind": "table", "title": "dim E / dim L (layers with E != L)",
                   "columns": ["experiment", "sizes", "group", "closed form", "solver", "equal"], "rows": table},
                  {"kind": "table", "title": "Per block: closed form against the solver",
                   "columns": ["experiment", "group", "block", "closed dim E", "closed dim L", "solver dim E",
                               "solver dim L", "equal"], "rows": rows}],
        note="Closed forms written here from the paper's appendix E.1 (Maron et al.'s 15 and 2 for S(n), N^2 "
             "convolutions, orbits of 4) and compared with the lab's solver ranks. Paper sizes follow the authors' "
             "code (Perm n = 10 with 32 and 64 channels; Trans and Rot N = 14; the paper's text lost the numbers); "
             "the lab's paper scale uses its own data sizes (Trans on the 8 x 8 digits unless MNIST is given, Rot "
             "N = 20)." + ("" if holds else " A closed form and the solver disagree: see the per-block table."))


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
    from ..dynamics.experiments import build

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


@claim("dyn-e2-ordering", "dynamics", "appendix E.2, Fig. 6",
       "Same Trans architecture and data under four groups: the relative drift of Aug from E (against Nom) is "
       "largest for Rot, then OneDTrans, Trans and TransRot, in the order of dim E / dim L.",
       paper_value="Rot > OneDTrans > Trans > TransRot", seconds={"quick": 14, "full": 3600})
def e2_ordering(profile) -> Outcome:
    from ..dynamics.experiments import reldim_groups
    from ..dynamics.reldim import relative_dimension

    n = 8
    main = profile.peek(("dyn-main", "trans"))
    if main is not None:
        n = math.isqrt(main.exp.group.d)
    groups = reldim_groups(n)
    lr, source = E2_LR, "the authors' code (train_different_groups.py; the main Trans rate is another)"
    if profile.full:
        kw = dict(runs=FULL["runs"], steps=FULL["steps"], aug_passes=FULL["aug_passes"], scale="paper", images=None)
    else:
        kw = dict(runs=3, steps=20, aug_passes=5, scale="small", images=200)
    extra = {k: v for k, v in _passthrough(profile, "trans").items() if k != "device"}
    total = len(groups) * kw["steps"]
    order = list(groups)

    def on_step(setting, trainer, records):
        done = order.index(setting) * kw["steps"] + trainer.step
        profile.progress(done / total, f"E.2 {setting}: step {trainer.step}/{kw['steps']}")

    df = relative_dimension(groups, seed=profile.seed, lr=lr, device=profile.device, settings=extra,
                            on_step=on_step, control=profile.control, **kw)
    profile.checkpoint()
    rows = df.to_dict("records")
    by = {r["setting"]: r for r in rows}
    measured_order = sorted(by, key=lambda s: -by[s]["aug_over_nom"])
    holds = tuple(measured_order) == E2_ORDER
    dims_rows = []
    for r in rows:
        closed = _e2_closed_ratio(r["setting"], n, profile.seed, kw["scale"], r["group"])
        dims_rows.append([r["setting"], r["group"], None if closed is None else float(closed),
                          float(r["dim_E_over_dim_L"]), closed is not None and
                          abs(float(closed) - float(r["dim_E_over_dim_L"])) <= 1e-12])
    table = [[r["setting"], r["group"], float(r["dim_E_over_dim_L"]), float(r["nom_dist_from_E"]),
              float(r["aug_dist_from_E"]), float(r["aug_over_nom"]), float(r["aug_over_nom"]) ** 2] for r in rows]
    tr_ratio = by.get("Trans", {}).get("aug_over_nom")
    trr_ratio = by.get("TransRot", {}).get("aug_over_nom")
    close = (f" Trans and TransRot: {tr_ratio:.3g} against {trr_ratio:.3g}; the paper remarks that these two differ "
             "little although their relative dimensions differ by a factor of about 4, so a simple linear relation "
             "is too naive.") if tr_ratio and trr_ratio else ""
    return Outcome(
        measured={"order": measured_order, "aug_over_nom": {r[0]: r[5] for r in table}},
        holds=holds,
        settings={**kw, "lr": lr, "lr_source": source, "groups": groups, "seed": profile.seed,
                  "criterion": "the settings sorted by Aug/Nom of the final median ||Pi_perp A|| (largest first) are "
                               "Rot, OneDTrans, Trans, TransRot"},
        evidence=[{"kind": "table", "title": "Appendix E.2: the Trans architecture under four groups",
                   "columns": ["setting", "group", "dim E / dim L", "Nom ||Pi_perp A||", "Aug ||Pi_perp A||",
                               "Aug/Nom", "(Aug/Nom)^2"], "rows": table},
                  {"kind": "bar", "title": "Aug/Nom against dim E / dim L", "ylabel": "value",
                   "labels": [r[0] for r in table],
                   "series": {"Aug/Nom": [r[5] for r in table], "dim E / dim L": [r[2] for r in table]},
                   "logy": True},
                  {"kind": "table", "title": "dim E / dim L: closed form (Burnside counts) against the solver",
                   "columns": ["setting", "group", "closed form", "solver", "equal"], "rows": dims_rows}],
        note=("The order matches. " if holds else
              f"The measured order {' > '.join(measured_order)} differs from the paper's {' > '.join(E2_ORDER)}. ") +
             "In the lab the draws are uniform and the learning rate is the paper's (the gradient-flow regime), so "
             "Aug's expected gradient at an equivariant point lies in E and its drift off E is sampling noise: "
             "Aug/Nom ~ c / sqrt(L x batches x steps) with c of order one for every group (the identity "
             "E_g ||Pi_perp rho(g) G||^2 = ||Pi_perp G||^2 does not involve dim E), and the order is set by run-to-run "
             f"noise ({kw['runs']} runs). The authors' draws are biased to the identity: random.randint(0, n) has n + 1 "
             "values and both 0 and n are the identity, so a cyclic factor of order n keeps exactly 1/(n + 1) of "
             "Nom's systematic drift rate off E (Rot, C4 on 2-D images: 1/5; OneDTrans: 1/(N + 1)), and Trans and "
             "TransRot keep less (products of two or three such factors), i.e. the paper's order; 1/(|G| + 1) tracks "
             "dim E / dim L ~ 1/|G|, which would explain the correlation the paper saw (a hypothesis from the code, "
             "not rerun here)." + close)
