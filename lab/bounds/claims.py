"""Claims of thesis chapter 5 (PAC-Bayes compression bounds), measured with ``lab bound`` (``lab.bounds.family``;
the science in ``lab.bounds``) on scikit-learn's 8 x 8 digits, which stand in for the thesis's MNIST, CIFAR-10 and
RotMNIST: every bound at 95 % confidence (delta = 0.05), the data-independent universal prior, the subspace dimension
chosen by the bound among the profile's dims (the union paid in bits).  Every claim is judged on replicates -- the
profile's seeds, each seed drawing its own train/test split, initialisation, projector and batches (and its own pixel
permutation, rotations or label shuffle) -- with a 95 % interval (``lab.reproduce.stats``), part by part, each part's
null read by the same statistic on other draws of the same code.

* ``pac-nonvacuous`` (section 5.5.1, Table 5.2).  The CNN's best bound on the digits is below the error of guessing
  among ten classes (0.9).  Null: the thesis's own competitor (Table A.18, "Pruning + Quant + Arith"): the same
  network's trained update magnitude-pruned to as many coordinates as the subspace's best d, fine-tuned, quantized,
  coded and bounded the same way (``lab.bounds.prune``), paying the kept positions in bits.
* ``pac-equivariance-compresses`` (section 5.6, appendix A.4.6, Figure A.5).  On rotated digits (each image at its
  own multiple of 90 degrees) the C4-equivariant GCNN's best bound is more than ``MARGIN`` below the ordinary CNN's.
  Null: the same comparison on the unrotated digits, where the thesis finds the benefit disappears.
* ``pac-shuffled-pixels`` (section 5.6, Figure 5.3 centre).  Version 3 reads the thesis's own words with the best
  bound over d: shuffling the pixels (one fixed permutation per seed) costs the CNN more than the MLP (the rise of
  the CNN's best bound minus the MLP's), and on shuffled pixels the CNN's best bound is above the MLP's.  Null for
  both: a second, independently seeded split of the unshuffled digits in place of the shuffled pixels.  Versions 1
  and 2 (one draw each, a margin of ``SHUFFLE_MARGIN``) are judged on the first seed for the report's history.
* ``pac-shuffled-labels-vacuous`` (section 5.6, Figure 5.3 right, appendix A.4.1.1).  On a subset small enough to fit
  random labels in the profile's steps: (a) at the largest d the trained models fit the shuffled labels (train error
  below ``FIT``), null: the same models at the smallest d searched, which the thesis says cannot fit them; (b) every
  bound -- every d, every model -- is vacuous (at or above 0.9), null: the same models, subset and dims on the true
  labels.

Profiles.  ``full``: 600 subspace steps, 300 quantization-aware steps, 7 levels, dims 50, 100, 200, 400, 800.
``quick`` (CI): dims 100, 400 and 1600 (chosen by the tuning probe ``bounds-quick-dims`` on seeds 100-102: the
cheapest grid with every standard run's best d inside) with fewer steps (``QUICK``).  The shuffled-labels runs use
their own settings (``LABELS_QUICK`` / ``LABELS_FULL``; quick's steps chosen by ``bounds-labels-steps``).  Every run is shared between the claims (``profile.memo``).
"""
from __future__ import annotations

import math

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, extends, paper_reading
from ..reproduce.stats import ACCURACY_MARGIN, Rule, accuracy_baseline, part
from ..reproduce import tuning
from ..reproduce.tuning import probe

#: the GCNN's best bound below the CNN's by more than this much on rotated digits
MARGIN = 0.05
#: versions 1 and 2 of pac-shuffled-pixels: the rise they asked for (one draw)
SHUFFLE_MARGIN = 0.02
GUESS = 0.9
#: pac-shuffled-labels-vacuous: the train error (before quantization) below which the random labels count as fitted
FIT = 0.1
#: quick: 100 and 300 left every run's best d at 300, the top of the grid (no power: the best may lie beyond); the
#: dims are chosen by the tuning probe ``bounds-quick-dims`` on seeds 100-102 (every standard run's best inside)
QUICK = {"dims": "100,400,1600", "steps": 200, "quant_steps": 50}
FULL = {"dims": "50,100,200,400,800", "steps": 600, "quant_steps": 300}
#: how QUICK was chosen (the report's ``chosen_on`` of the claims that read it)
QUICK_CHOSEN = ("QUICK (200 subspace and 50 quantization steps), cut from the full profile's for time; DECLARED: its "
                "dims 100, 300, 1000 were extended from 100, 300 (issue 62) after reading where seed 0's best d lay on "
                "a finer grid (seed 0 is a verdict seed; where the best lies was read, not the verdict)")
SHUFFLED_V2_NOTE = "; criterion v2 (not the judged v3) was loosened after a full run on seed 0"
#: how QUICK is chosen now
QUICK_TUNED = (tuning.chosen_on("bounds-quick-dims") + "; 200 subspace and 50 quantization steps, cut from the full "
               "profile's for time")
#: the shuffled-labels runs: a subset of the training digits, and dims up to one large enough to fit random labels
#: quick: d = 10 below 100, where the lowest bound lay at the grid's bottom (true labels: 0.79 at 100, 0.96 at 10;
#: shuffled labels: flat at 0.998 from 10 to 100); it is also part (a)'s null, the smallest d searched
LABELS_QUICK = {"dims": "10,100,2500", "steps": 500, "quant_steps": 50, "train_points": 500}
#: the part of the shuffled-labels settings the probe did not choose, as declared
LABELS_DIMS_NOTE = ("; 500 images, the MLP only; DECLARED: dims 10, 100, 2500 (10 added in issue 62 after the true "
                    "labels' lowest bound lay at the bottom, d = 100, on the verdict seeds: where the best lay was "
                    "read, not the verdict)")
LABELS_FULL = {"dims": "100,400,2500", "steps": 700, "quant_steps": 200, "train_points": 500}
#: the models of the shuffled-labels runs (quick: the MLP alone, the CNN costs three times as much a step)
LABELS_MODELS_QUICK = ("mlp",)
LABELS_MODELS_FULL = ("mlp", "cnn")
NEW = "2026-11-27"
#: the later versions (issue 62): the trivial baseline, guessing among ten classes, in the verdict
BASELINE_DATE = "2026-12-02"
BASELINE_TEXT = (f"  Every model a part reads must beat guessing among ten classes: its test accuracy at the best d at "
                 f"least {1 - GUESS:g} + {ACCURACY_MARGIN:g}, else the part has no power.")
BASELINE_REASON = ("issue 62: the trivial baseline in every learned claim: bounds of models that learned nothing "
                   "compare nothing")


def _count_words(gcnn: int, cnn: int) -> str:
    """The parameter counts against the thesis's "same number of parameters", in words.

    >>> _count_words(1000, 1000), _count_words(1100, 1000)
    ('the same count, as the thesis has', 'the GCNN has 10 % more than the CNN (the thesis: the same number)')
    """
    if gcnn == cnn:
        return "the same count, as the thesis has"
    diff = 100 * (gcnn - cnn) / cnn
    return (f"the GCNN has {abs(diff):.0f} % {'more' if diff > 0 else 'fewer'} than the CNN (the thesis: the same "
            f"number)")


def accuracies_at_best(runs) -> list:
    """1 - the test error at each run's best d (``best_test_error``), for ``accuracy_baseline``."""
    return [None if r.get("best_test_error") is None else 1 - float(r["best_test_error"]) for r in runs]


def guess_baseline(runs, reference: str) -> dict:
    """``part``'s ``baseline``: every run of ``runs`` beats guessing among ten classes by ``ACCURACY_MARGIN``."""
    return accuracy_baseline(accuracies_at_best(runs), 1 - GUESS, reference,
                             "guessing among ten classes (accuracy 0.1)")


#: the (dataset, model) runs the three standard claims read (pac-nonvacuous, -equivariance-compresses,
#: -shuffled-pixels): the grid probe reads every one
STANDARD_RUNS = (("digits", "cnn"), ("digits", "mlp"), ("digits", "gcnn"), ("rotated-digits", "cnn"),
                 ("rotated-digits", "gcnn"), ("shuffled-pixels", "cnn"), ("shuffled-pixels", "mlp"))
#: the probe ``bounds-quick-dims``'s grids, cheapest first (three dims each: the cost is the dims' sum)
DIMS_CANDIDATES = {"100,300,1000": "100,300,1000", "100,400,1600": "100,400,1600", "150,600,2400": "150,600,2400"}
#: the probe ``bounds-labels-steps``'s candidates for the shuffled-labels runs' steps, cheapest first
LABELS_STEPS_CANDIDATES = {"500 steps": 500, "700 steps": 700, "1000 steps": 1000, "1500 steps": 1500}


def run_summary(data: str, model: str, seed: int, settings: dict, device="cpu", control=None) -> dict:
    """The summary of one ``lab bound`` run (what ``bound_run`` keeps per profile, and the probes read)."""
    from .family import FAMILY, BoundsConfig

    cfg = BoundsConfig(data=data, model=model, seed=seed, device=device, **settings)
    return FAMILY.summary(FAMILY.run(cfg, control=control))


@probe("bounds-quick-dims", "the quick subspace dims of the standard PAC-Bayes runs",
       "the cheapest grid in which every standard run's best d (CNN, MLP and GCNN on the digits, rotated and "
       "shuffled-pixel digits) lies inside the grid, neither at its largest nor at its smallest d, on every tuning "
       "seed", DIMS_CANDIDATES,
       lambda rs: all(r[k] not in (min(r["dims"]), max(r["dims"])) for r in rs.values() for k in r if k != "dims"),
       lambda: QUICK["dims"], ("pac-nonvacuous", "pac-equivariance-compresses", "pac-shuffled-pixels"),
       stop_early=True)
def _probe_dims(dims: str, seed: int) -> dict:
    """The best d of every standard run at ``dims`` (QUICK's other settings) on tuning seed ``seed``."""
    out = {f"{d} {m}": run_summary(d, m, seed, {**QUICK, "dims": dims})["best_dim"] for d, m in STANDARD_RUNS}
    return {**out, "dims": [int(v) for v in dims.split(",")]}


@probe("bounds-labels-steps", "the quick shuffled-labels runs' subspace steps",
       f"the fewest steps at which the MLP fits the shuffled labels at the largest d (train error below {FIT:g}) on "
       f"every tuning seed", LABELS_STEPS_CANDIDATES,
       lambda rs: all(r["train error at the largest d"] < FIT for r in rs.values()),
       lambda: LABELS_QUICK["steps"], ("pac-shuffled-labels-vacuous",), stop_early=True)
def _probe_labels_steps(steps: int, seed: int) -> dict:
    """The MLP's train error on shuffled labels at the largest quick d, ``steps`` steps, tuning seed ``seed``."""
    top = max(int(v) for v in LABELS_QUICK["dims"].split(","))
    run = run_summary("shuffled-labels", "mlp", seed, {**LABELS_QUICK, "dims": str(top), "steps": steps})
    return {"train error at the largest d": round(float(run["dims"][0]["train_error_float"]), 4)}


def plan(profile) -> dict:
    return dict(profile.pick(quick=QUICK, full=FULL))


def labels_plan(profile) -> dict:
    return dict(profile.pick(quick=LABELS_QUICK, full=LABELS_FULL))


def labels_models(profile) -> tuple:
    return profile.pick(quick=LABELS_MODELS_QUICK, full=LABELS_MODELS_FULL)


def seeds(profile) -> list:
    """The claims' replicate seeds (each its own split, initialisation, projector and batches)."""
    return profile.seeds(quick=3, full=3)


def twin_seeds(profile) -> list:
    """Seeds of as many further, independent splits (pac-shuffled-pixels' null), after ``seeds``."""
    n = len(seeds(profile))
    return [profile.seed + n + i for i in range(n)]


def _f(x, digits: int = 4):
    x = float(x)
    return float(f"{x:.{digits}g}") if math.isfinite(x) else x


def _fs(values, digits: int = 3) -> list:
    return [_f(v, digits) for v in values]


def bound_run(profile, data: str, model: str, seed: int = 0, labels: bool = False) -> dict:
    """The summary of one ``lab bound`` run of ``profile``'s settings (``labels``: the shuffled-labels claim's
    settings), shared between claims.  ``data="mnist"`` reads MNIST's IDX files from ``profile.data``."""
    settings = labels_plan(profile) if labels else plan(profile)
    if data == "mnist":
        settings = {**settings, "data_dir": profile.data}

    def make():
        return run_summary(data, model, seed, settings, profile.device, profile.control)

    tag = f" on {settings['train_points']} points" if labels else ""
    return profile.memo(("bounds", data, model, seed, "labels" if labels else "standard"), make,
                        label=f"bound {model} on {data}{tag} seed {seed}")


def pruned_run(profile, data: str, model: str, seed: int) -> dict:
    """The pruning baseline (``lab.bounds.prune``) of ``bound_run(profile, data, model, seed)``'s network: k = its
    best d coordinates kept; a summary with ``best_bound`` like a bound run's."""
    run = bound_run(profile, data, model, seed)

    def make():
        from .data import bound_data
        from .models import build_model
        from .prune import pruned_bound
        from .subspace import BoundSettings
        from ..device import pick_device
        from .family import BoundsConfig

        cfg = BoundsConfig(data=data, model=model, seed=seed, device=profile.device, **plan(profile)).validate()
        d = run["best_dim"]
        settings = BoundSettings(steps=cfg.steps, lr=cfg.lr, batch=cfg.batch, levels=cfg.levels,
                                 level_init=cfg.level_init, quant_steps=cfg.quant_steps, quant_lr=cfg.quant_lr,
                                 projector=cfg.projector)
        row = pruned_bound(lambda: build_model(model, cfg.width, cfg.side(), 10, seed=seed), bound_data(data, seed),
                           d, d, settings, seed=seed, extra_bits=cfg.hyperparameter_bits(),
                           device=pick_device(profile.device), control=profile.control)
        return {"best_bound": row["bound"], "best_dim": row["kept"], "train_error": row["train_error"],
                "train_error_float": row["train_error_float"], "test_error": row["test_error"],
                "compressed_bits": row["compressed_bits"], "index_bits": row["index_bits"]}

    return profile.memo(("bounds-pruned", data, model, seed), make, label=f"pruned {model} on {data} seed {seed}")


# ---------------------------------------------------------------------------------------------- statistics
# Each is read on every claim draw and every null draw alike (``part``).
def best_bound(run: dict) -> float:
    """A run's best bound over the dims it searched (the pruned baseline: its one bound)."""
    return float(run["best_bound"])


def gcnn_advantage(draw: dict) -> float:
    """The CNN's best bound minus the GCNN's (positive: the equivariant model's bound is lower)."""
    return float(draw["cnn"]["best_bound"] - draw["gcnn"]["best_bound"])


def best_gap(runs: dict) -> float:
    """The CNN's best bound minus the MLP's."""
    return float(runs["cnn"]["best_bound"] - runs["mlp"]["best_bound"])


def shuffle_rise(draw: dict) -> float:
    """How much the CNN's best bound minus the MLP's rises from ``before`` (the digits) to ``after``."""
    return best_gap(draw["after"]) - best_gap(draw["before"])


def gap_after(draw: dict) -> float:
    """The CNN's best bound minus the MLP's on ``after``."""
    return best_gap(draw["after"])


def fit_error(draw: dict) -> float:
    """The worst of the models' train errors (before quantization: the trained network) at the draw's d."""
    return float(max(r["train_error_float"] for r in draw["rows"]))


def lowest_bound(draw: dict) -> float:
    """The lowest bound over every d and every model of the draw."""
    return float(min(r["bound"] for run in draw["runs"] for r in run["dims"]))


def lowest_dim(run: dict) -> int:
    """The d of a run's lowest bound (``lowest_bound``'s location; the smallest d among ties)."""
    return min(run["dims"], key=lambda r: (r["bound"], r["d"]))["d"]


# ---------------------------------------------------------------------------------------------- where the best lies
def grid(runs: dict, what: str = "the best d of each run", at=None) -> dict:
    """``part``'s ``grid`` for a statistic read on a best over the subspace dims searched: ``runs`` = {name: a
    ``bound_run`` summary} (every run the part's statistic reads, claim and null draws alike); ``at(run)``: where a
    run's best lies (default its ``best_dim``).  At the grid's edge when a run's best lies at the largest d it
    searched (a lower bound may lie above) or at the smallest, unless that is d = 0 (nothing lies below).

    >>> g = grid({"a": {"best_dim": 300, "dims": [{"d": 100}, {"d": 300}, {"d": 1000}]},
    ...           "b": {"best_dim": 1000, "dims": [{"d": 100}, {"d": 300}, {"d": 1000}]}})
    >>> g["best"], g["edges"], g["at_edge"], g["at top"]
    ([300, 1000], [100, 1000], True, ['b'])
    """
    at = at or (lambda run: run["best_dim"])
    names, best, top, bottom = list(runs), [], [], []
    for name in names:
        dims = sorted(r["d"] for r in runs[name]["dims"])
        b = at(runs[name])
        best.append(b)
        if b == dims[-1]:
            top.append(name)
        elif b == dims[0] and dims[0] > 0:
            bottom.append(name)
    every = sorted({r["d"] for run in runs.values() for r in run["dims"]})
    return {"what": f"subspace dimension d over {', '.join(map(str, every))}: {what}", "best": best, "runs": names,
            "edges": [every[0], every[-1]] if every else [], "at_edge": bool(top or bottom), "at top": top,
            "at bottom": bottom}


def _where(p) -> str:
    """Where a part's best over d lies, one sentence (empty without a grid)."""
    g = p.grid
    if not g:
        return ""
    lo, hi = g["edges"]
    counts = ", ".join(f"{d} x{g['best'].count(d)}" for d in sorted(set(g["best"])))
    edge = (f": at the top for {len(g['at top'])} and the bottom for {len(g['at bottom'])} of {len(g['best'])} "
            f"runs, so this part has no power until the grid is extended" if g["at_edge"] else ", inside the grid")
    return f"  {p.name}: the best d over {lo}..{hi} lies at {counts}{edge}."


# ---------------------------------------------------------------------------------------------- earlier criteria
def nonvacuous_met(m: dict) -> bool:
    """pac-nonvacuous v1 (one draw)."""
    return math.isfinite(m["best_bound"]) and m["best_bound"] < GUESS


def compresses_met(m: dict) -> bool:
    """pac-equivariance-compresses v1 (one draw): the GCNN's best bound at least ``MARGIN`` below the CNN's."""
    return m["gcnn"] <= m["cnn"] - MARGIN


def shuffled_met_v1(m: dict) -> bool:
    """pac-shuffled-pixels v1 (one draw, as first committed): the CNN's best bound worsens by ``SHUFFLE_MARGIN`` more
    than the MLP's, and is not below the MLP's after."""
    return (m["cnn_after"] - m["cnn_before"]) - (m["mlp_after"] - m["mlp_before"]) >= SHUFFLE_MARGIN \
        and m["cnn_after"] >= m["mlp_after"]


def shuffled_met(m: dict) -> bool:
    """pac-shuffled-pixels v2 (one draw): the CNN's mean bound gap to the MLP rises by ``SHUFFLE_MARGIN`` with
    shuffled pixels, and is >= 0 after."""
    return m["gap_after"] - m["gap_before"] >= SHUFFLE_MARGIN and m["gap_after"] >= 0


def vacuous_met(bounds: dict) -> bool:
    """pac-shuffled-labels-vacuous v1 (one draw): every bound at or above the guessing error."""
    return bool(bounds) and all(b >= GUESS for b in bounds.values())


def mean_gap(cnn: dict, mlp: dict) -> float:
    """The CNN's bound minus the MLP's, averaged over the dims both searched (Figure 5.3's curves; v2's reading)."""
    b = {r["d"]: r["bound"] for r in mlp["dims"]}
    gaps = [r["bound"] - b[r["d"]] for r in cnn["dims"] if r["d"] in b]
    return sum(gaps) / len(gaps) if gaps else math.nan


def _v1_reading(before: dict, after: dict) -> dict:
    return {"cnn_before": before["cnn"]["best_bound"], "mlp_before": before["mlp"]["best_bound"],
            "cnn_after": after["cnn"]["best_bound"], "mlp_after": after["mlp"]["best_bound"]}


def _v2_reading(before: dict, after: dict) -> dict:
    return {"gap_before": mean_gap(before["cnn"], before["mlp"]), "gap_after": mean_gap(after["cnn"], after["mlp"])}


def _history(met, measured, null_measured, why: str) -> dict:
    return {"holds": bool(met(measured)), "null_holds": bool(met(null_measured)),
            "measured": {k: _f(v, 3) for k, v in measured.items()}, "why": why}


# ---------------------------------------------------------------------------------------------- criteria
NONVACUOUS_V1 = f"the CNN's best bound on the digits below {GUESS} (the error of guessing among ten classes)"
NONVACUOUS_CRITERION = (f"(a) the CNN's best bound on the digits below {GUESS} (the error of guessing among ten "
                        f"classes): the 95 % interval of its mean over the seeds wholly below {GUESS}")
NONVACUOUS_NULL = ("the same trained network's update magnitude-pruned to as many coordinates as the subspace's best "
                   "d, fine-tuned, quantized, coded and bounded the same way (Table A.18's Pruning + Quant + Arith)")
COMPRESSES_V1 = f"on rotated digits (C4) the GCNN's best bound at least {MARGIN} below the CNN's"
COMPRESSES_CRITERION = (f"(a) on rotated digits (C4) the CNN's best bound minus the GCNN's above {MARGIN}: the 95 % "
                        f"interval of its mean over the seeds wholly above {MARGIN}")
COMPRESSES_NULL = "the same comparison on the unrotated digits (the same seeds)"
SHUFFLED_V1 = (f"shuffling the pixels worsens the CNN's best bound at least {SHUFFLE_MARGIN} more than the MLP's, "
               f"and leaves it not below the MLP's")
SHUFFLED_V2 = (f"the CNN's bound minus the MLP's, averaged over the subspace dimensions searched, rises by at least "
               f"{SHUFFLE_MARGIN} when the pixels are shuffled and is not below 0 after")
SHUFFLED_CRITERION = ("the best bound over d (the thesis's reading), on replicates over data splits: (a) shuffling "
                      "the pixels raises the CNN's best bound minus the MLP's (the 95 % interval of the mean rise "
                      "wholly above 0); (b) on shuffled pixels the CNN's best bound is above the MLP's (the interval "
                      "of the mean gap wholly above 0)")
SHUFFLED_NULL = "a second, independently seeded split of the unshuffled digits in place of the shuffled pixels"
SHUFFLED_V1_NULL = "a second split of the unshuffled digits (seed 1) in place of the shuffled pixels"
VACUOUS_V1 = f"with shuffled labels every bound (every d, MLP and CNN) at or above {GUESS}"
VACUOUS_CRITERION = (f"on a subset of the digits with shuffled labels: (a) at the largest d searched the trained "
                     f"models fit them (the worst model's train error, before quantization, below {FIT} on the 95 % "
                     f"interval over the seeds); (b) every bound (every d, every model) at or above {GUESS} (the "
                     f"interval of the seeds' lowest bound wholly above {GUESS})")
FIT_NULL = "the same models at the smallest d searched (the thesis: low dimensions cannot fit random labels)"
TRUE_NULL = "the same models, subset and dims on the true labels"
VACUOUS_NULL = f"(a) {FIT_NULL}; (b) {TRUE_NULL}"

NONVACUOUS_PARTS = ("(a) non-vacuous",)
COMPRESSES_PARTS = ("(a) the GCNN's bound lower on rotated digits",)
SHUFFLED_PARTS = ("(a) shuffling costs the CNN more", "(b) the CNN above the MLP on shuffled pixels")
VACUOUS_PARTS = ("(a) the random labels fitted", "(b) every bound vacuous")


# ---------------------------------------------------------------------------------------------- evidence
def _bound_curves(title: str, runs: dict) -> dict:
    dims = [r["d"] for r in next(iter(runs.values()))["dims"]]
    return {"kind": "line", "title": title, "xlabel": "subspace dimension d", "ylabel": "bound on the test error",
            "logx": True, "logy": False, "x": dims,
            "series": {name: [_f(r["bound"], 3) for r in s["dims"]] for name, s in runs.items()}}


def _row(s: dict) -> list:
    if "dims" not in s:  # the pruned baseline: one row
        return [_f(s["best_bound"], 3), s["best_dim"], _f(s["train_error"], 3), _f(s["test_error"], 3),
                _f(s["compressed_bits"], 5)]
    best = next(r for r in s["dims"] if r["d"] == s["best_dim"])
    return [_f(s["best_bound"], 3), s["best_dim"], _f(best["train_error"], 3), _f(s["best_test_error"], 3),
            _f(best["compressed_bits"], 5)]


def _table(runs: dict, title: str = "Best bound per run (95 % confidence)") -> dict:
    return {"kind": "table", "title": title,
            "columns": ["run", "best bound", "at d (pruned: k kept)", "its train error", "its test error",
                        "size (bits)"],
            "rows": [[name, *_row(s)] for name, s in runs.items()]}


def _seeds_text(ss) -> str:
    return f"seeds {ss[0]}-{ss[-1]}" if len(ss) > 1 else f"seed {ss[0]}"


def _iv(p) -> str:
    if p.interval is None:
        return ""
    return f" [{p.interval[0]:.3f}, {p.interval[1]:.3f}]"


def _settings(profile, **extra) -> dict:
    return {**plan(profile), "seeds": seeds(profile), **extra}


def _digits_settings(profile) -> str:
    p = plan(profile)
    return (f"8 x 8 scikit-learn digits (1 437 training images) stand in for the thesis's datasets; "
            f"{len(seeds(profile))} seeds (splits); dims {p['dims']}, {p['steps']} subspace and {p['quant_steps']} "
            f"quantization-aware steps a d, 7 levels")


# ---------------------------------------------------------------------------------------------- the claims
@claim("pac-nonvacuous", "thesis", "chapter 5, section 5.5.1 and Table 5.2",
       "We present our bounds for the data-independent prior in Table 5.2. We derive the first non-vacuous bounds on "
       "FashionMNIST, CIFAR-10, and CIFAR-100 without data-dependent priors.",
       paper_value="MNIST: 11.6 % with the data-independent prior (LeNet-5, d = 1000; pruning: 47.9 %, Table A.18); "
                   "the lab: 8 x 8 digits, a bound below 0.9",
       seconds={"quick": 22, "full": 90}, criterion=NONVACUOUS_CRITERION, null=NONVACUOUS_NULL,
       criteria=(Criterion(1, NONVACUOUS_V1, FIRST_REGISTERED),
                 Criterion(2, NONVACUOUS_CRITERION, NEW,
                           reason="judged on the interval over seeds (issue 46); the null was the uncompressed 32-bit "
                                  "network, vacuous by construction: replaced by the thesis's own competitor, "
                                  "magnitude pruning at matched sparsity (Table A.18), which can be non-vacuous",
                           thresholds=(("GUESS", GUESS),), parts=NONVACUOUS_PARTS)),
       paper_settings="8 x 8 scikit-learn digits stand in for MNIST (the thesis: MNIST, LeNet-5, d = 1000, Table "
                      "5.2); a small CNN; with --data, MNIST itself is run once beside, not judged",
       chosen_on=QUICK_TUNED, retuned_from=QUICK_CHOSEN,
       later=(extends(BASELINE_TEXT, BASELINE_DATE, BASELINE_REASON),),
       paper_numbers=(paper_reading(NONVACUOUS_PARTS[0], {"best_bound": 0.116}, best_bound, "<", GUESS,
                                   "Table 5.2 (MNIST, data-independent prior: 11.6 %)"),))
def measure_nonvacuous(profile) -> Outcome:
    ss = seeds(profile)
    runs = [bound_run(profile, "digits", "cnn", s) for s in ss]
    pruned = [pruned_run(profile, "digits", "cnn", s) for s in ss]
    p = part(NONVACUOUS_PARTS[0], best_bound, runs, pruned, Rule("<", GUESS), NONVACUOUS_NULL,
             baseline=guess_baseline(runs, "the CNNs"),
             grid=grid({f"CNN, digits, seed {s}": r for s, r in zip(ss, runs)},
                       "the best d of each claim run (the pruned null keeps as many coordinates)"))
    history = {1: _history(nonvacuous_met, {"best_bound": runs[0]["best_bound"]},
                           {"best_bound": pruned[0]["best_bound"]},
                           f"the first seed's best bound against {GUESS}, as v1 read one draw (its null, 32-bit "
                           f"weights, replaced by the pruned baseline's first seed)")}
    r0, q0 = runs[0], pruned[0]
    mnist = bound_run(profile, "mnist", "cnn", ss[0]) if profile.data else None
    note = (f"CNN ({r0['parameters']} parameters), n = {r0['n']} digits, {_seeds_text(ss)}: best bounds "
            f"{', '.join(f'{x:.3f}' for x in p.replicates)} (mean {p.measured:.3f},{_iv(p)}) at d = "
            f"{', '.join(str(r['best_dim']) for r in runs)}.  Pruned to as many coordinates (Table A.18's "
            f"competitor, the kept positions paid in bits: {q0['index_bits']:.0f} at the first seed): "
            f"{', '.join(f'{x:.3f}' for x in p.null_replicates)} (mean {p.null_measured:.3f}); the thesis's MNIST: "
            f"11.6 % with the subspace, 47.9 % with pruning.  " +
            (f"MNIST from {profile.data} (28 x 28, {mnist['n']} training images, the same CNN and settings, seed "
             f"{ss[0]}, one run, not judged): best bound {mnist['best_bound']:.3f} at d = {mnist['best_dim']} "
             f"against the thesis's 0.116 (LeNet-5, d = 1000)." if mnist else
             "MNIST is compared only when its IDX files are given (lab reproduce --data DIR).") + _where(p))
    evidence = [_bound_curves("CNN on the digits (first seed): the bound against d",
                              {"CNN": r0, **({"CNN, MNIST": mnist} if mnist else {})}),
                _table({**{f"CNN, digits, seed {s}": r for s, r in zip(ss, runs)},
                        **{f"CNN pruned (null), seed {s}": q for s, q in zip(ss, pruned)}})]
    return Outcome(measured={"best_bound": _f(p.measured, 3), "seeds": _fs(p.replicates),
                             "pruned": _fs(p.null_replicates),
                             **({"mnist_best_bound": _f(mnist["best_bound"], 3), "thesis_mnist": 0.116}
                                if mnist else {})},
                   settings=_settings(profile, model="cnn"), evidence=evidence, note=note,
                   criterion=NONVACUOUS_CRITERION, parts=[p], history=history,
                   replicates={"what": _seeds_text(ss), "claim": len(ss), "null": len(pruned)},
                   paper_settings=_digits_settings(profile) + "; the thesis: MNIST, LeNet-5, d = 1000 (Table 5.2: "
                                  "11.6 %); the null is Table A.18's pruning at matched sparsity (47.9 % on MNIST)" +
                                  ("; MNIST itself run once beside (not judged)" if mnist else
                                   "; MNIST not run (no --data)"),
                   accuracy={"digits": {"cnn test error": _f(sum(r["best_test_error"] for r in runs) / len(runs), 3),
                                        "guessing": GUESS}})


@claim("pac-equivariance-compresses", "thesis", "chapter 5, section 5.6 and appendix A.4.6 (Figure A.5)",
       "As shown in Figure A.5 (a), when paired with the rotationally symmetric RotMNIST dataset, the rotationally "
       "equivariant model achieves better bounds and is more compressible than its non equivariant counterpart "
       "despite having the same number of parameters.",
       paper_value="C8 WideResNet below the WideResNet on RotMNIST, not on MNIST; the lab: C4 GCNN vs CNN, digits",
       seconds={"quick": 85, "full": 200}, criterion=COMPRESSES_CRITERION, null=COMPRESSES_NULL,
       criteria=(Criterion(1, COMPRESSES_V1, FIRST_REGISTERED),
                 Criterion(2, COMPRESSES_CRITERION, NEW,
                           reason="judged on the 95 % interval over seeds (issue 46) instead of one draw",
                           thresholds=(("MARGIN", MARGIN),), parts=COMPRESSES_PARTS)),
       paper_settings="8 x 8 digits rotated by multiples of 90 degrees stand in for RotMNIST; a C4 GCNN and a CNN "
                      "of about the same size stand in for the C8 and plain WideResNets",
       chosen_on=QUICK_TUNED, retuned_from=QUICK_CHOSEN,
       later=(extends(BASELINE_TEXT, BASELINE_DATE,
                      BASELINE_REASON + "; the parameter counts, which the thesis matches, named beside the verdict"),))
def measure_compresses(profile) -> Outcome:
    ss = seeds(profile)
    rot = [{m: bound_run(profile, "rotated-digits", m, s) for m in ("cnn", "gcnn")} for s in ss]
    plain = [{m: bound_run(profile, "digits", m, s) for m in ("cnn", "gcnn")} for s in ss]
    p = part(COMPRESSES_PARTS[0], gcnn_advantage, rot, plain, Rule(">", MARGIN), COMPRESSES_NULL,
             baseline=guess_baseline([r[m] for r in rot for m in r], "the CNNs and GCNNs on rotated digits"),
             grid=grid({f"{m.upper()}, {name}, seed {s}": r[m] for name, runs in (("rotated", rot), ("digits", plain))
                        for s, r in zip(ss, runs) for m in ("cnn", "gcnn")},
                       "the best d of each run the statistic reads (claim and null)"))
    m0, n0 = {m: rot[0][m]["best_bound"] for m in rot[0]}, {m: plain[0][m]["best_bound"] for m in plain[0]}
    history = {1: _history(compresses_met, m0, n0, "the first seed's best bounds, as v1 read one draw")}
    note = (f"CNN minus GCNN best bound, {_seeds_text(ss)}: rotated digits "
            f"{', '.join(f'{x:+.3f}' for x in p.replicates)} (mean {p.measured:+.3f},{_iv(p)}); unrotated digits "
            f"{', '.join(f'{x:+.3f}' for x in p.null_replicates)} (mean {p.null_measured:+.3f}).  GCNN "
            f"{rot[0]['gcnn']['parameters']} parameters, CNN {rot[0]['cnn']['parameters']}: "
            f"{_count_words(rot[0]['gcnn']['parameters'], rot[0]['cnn']['parameters'])}." + _where(p))
    evidence = [_bound_curves("Rotated digits (first seed): the bound against d",
                              {"GCNN (C4)": rot[0]["gcnn"], "CNN": rot[0]["cnn"]}),
                _bound_curves("Unrotated digits (null, first seed): the bound against d",
                              {"GCNN (C4)": plain[0]["gcnn"], "CNN": plain[0]["cnn"]}),
                _table({f"{m.upper()}, {name}, seed {s}": r[m] for name, runs in (("rotated", rot), ("digits", plain))
                        for s, r in zip(ss, runs) for m in ("gcnn", "cnn")})]
    return Outcome(measured={"cnn_minus_gcnn": _f(p.measured, 3), "seeds": _fs(p.replicates),
                             "unrotated": _fs(p.null_replicates),
                             "parameters": {"gcnn": rot[0]["gcnn"]["parameters"], "cnn": rot[0]["cnn"]["parameters"]}},
                   settings=_settings(profile), evidence=evidence, note=note, criterion=COMPRESSES_CRITERION,
                   parts=[p], history=history,
                   replicates={"what": _seeds_text(ss), "claim": len(ss), "null": len(plain)},
                   paper_settings=_digits_settings(profile) + "; rotated by multiples of 90 degrees for RotMNIST; "
                                  "C4 GCNN vs CNN (the thesis: C8 vs plain WideResNet, RotMNIST and MNIST)")


@claim("pac-shuffled-pixels", "thesis", "chapter 5, section 5.6 (Figure 5.3 centre)",
       "However, when the image structure is broken by shuffling the pixels, we find that CNNs are no better at "
       "generalizing than MLPs. For this dataset, CNNs become substantially less compressible and hence our bounds "
       "show them generalizing worse than MLPs [...] MLPs do not suffer when this structure is broken since they "
       "never used it in the first place.",
       paper_value="CIFAR-10: the CNN's bound worse than the MLP's on shuffled pixels",
       seconds={"quick": 69, "full": 200}, criterion=SHUFFLED_CRITERION, null=SHUFFLED_NULL,
       criteria=(Criterion(1, SHUFFLED_V1, FIRST_REGISTERED),
                 Criterion(2, SHUFFLED_V2, FIRST_REGISTERED,
                           reason="loosened after a full run failed v1 (full profile, seed 0, 2026-11-25: CNN 0.476 "
                                  "against MLP 0.486 on shuffled pixels): the mean over d of Figure 5.3's curves in "
                                  "place of the best bound; its 0.02 margin equals the shift between two splits of "
                                  "the same data"),
                 Criterion(3, SHUFFLED_CRITERION, NEW,
                           reason="issue 46: back to the thesis's reading (the best bound over d), judged on "
                                  "replicates over data splits with an interval instead of a margin on one draw",
                           thresholds=(("RISE", 0.0), ("GAP", 0.0)), parts=SHUFFLED_PARTS)),
       paper_settings="8 x 8 digits with one fixed pixel permutation per seed stand in for CIFAR-10 with shuffled "
                      "pixels; a CNN and an MLP of about 7 300 parameters (the thesis: 500k)",
       chosen_on=QUICK_TUNED + SHUFFLED_V2_NOTE, retuned_from=QUICK_CHOSEN + SHUFFLED_V2_NOTE,
       later=(extends(BASELINE_TEXT, BASELINE_DATE, BASELINE_REASON),))
def measure_shuffled(profile) -> Outcome:
    ss, tw = seeds(profile), twin_seeds(profile)
    before = [{m: bound_run(profile, "digits", m, s) for m in ("cnn", "mlp")} for s in ss]
    after = [{m: bound_run(profile, "shuffled-pixels", m, s) for m in ("cnn", "mlp")} for s in ss]
    twin = [{m: bound_run(profile, "digits", m, t) for m in ("cnn", "mlp")} for t in tw]
    draws = [{"before": b, "after": a} for b, a in zip(before, after)]
    nulls = [{"before": b, "after": t} for b, t in zip(before, twin)]
    where = grid({f"{m.upper()}, {name}, seed {s}": r[m]
                  for name, runs, sd in (("digits", before, ss), ("shuffled pixels", after, ss),
                                         ("digits (null)", twin, tw))
                  for s, r in zip(sd, runs) for m in ("cnn", "mlp")},
                 "the best d of each run the statistics read (claim and null)")
    learned = guess_baseline([r[m] for runs in (before, after) for r in runs for m in r],
                             "the CNNs and MLPs, digits and shuffled pixels")
    rise = part(SHUFFLED_PARTS[0], shuffle_rise, draws, nulls, Rule(">", 0.0), SHUFFLED_NULL, grid=where,
                baseline=learned)
    above = part(SHUFFLED_PARTS[1], gap_after, draws, nulls, Rule(">", 0.0), SHUFFLED_NULL, grid=where,
                 baseline=learned)
    # versions 1 and 2 read one draw: the first seed, with the second seed's split of the digits as their null
    second = before[1] if len(before) > 1 else twin[0]
    why = (f"one draw, as the version was judged: seed {ss[0]}'s digits and shuffled pixels; null: seed "
           f"{ss[1] if len(ss) > 1 else tw[0]}'s split of the digits")
    history = {1: _history(shuffled_met_v1, _v1_reading(before[0], after[0]), _v1_reading(before[0], second), why),
               2: _history(shuffled_met, _v2_reading(before[0], after[0]), _v2_reading(before[0], second), why)}
    note = (f"Best bound over d, CNN minus MLP, {_seeds_text(ss)}: digits "
            f"{', '.join(f'{best_gap(b):+.3f}' for b in before)}; shuffled pixels "
            f"{', '.join(f'{x:+.3f}' for x in above.replicates)} (mean {above.measured:+.3f},{_iv(above)}); rise "
            f"{', '.join(f'{x:+.3f}' for x in rise.replicates)} (mean {rise.measured:+.3f},{_iv(rise)}).  Null, a "
            f"second split of the digits ({_seeds_text(tw)}): gap "
            f"{', '.join(f'{x:+.3f}' for x in above.null_replicates)}, rise "
            f"{', '.join(f'{x:+.3f}' for x in rise.null_replicates)}.  Version 1 on seed {ss[0]}: "
            f"{'met' if history[1]['holds'] else 'not met'}; version 2: {'met' if history[2]['holds'] else 'not met'}."
            + _where(rise))
    evidence = [_bound_curves("Digits and shuffled pixels (first seed): the bound against d",
                              {"CNN, digits": before[0]["cnn"], "MLP, digits": before[0]["mlp"],
                               "CNN, shuffled pixels": after[0]["cnn"], "MLP, shuffled pixels": after[0]["mlp"]}),
                _table({f"{m.upper()}, {name}, seed {s}": r[m]
                        for name, runs, sd in (("digits", before, ss), ("shuffled pixels", after, ss),
                                               ("digits (null)", twin, tw))
                        for s, r in zip(sd, runs) for m in ("cnn", "mlp")})]
    return Outcome(measured={"rise": _f(rise.measured, 3), "gap_after": _f(above.measured, 3),
                             "rises": _fs(rise.replicates), "gaps_after": _fs(above.replicates)},
                   settings=_settings(profile, null_seeds=tw), evidence=evidence, note=note,
                   criterion=SHUFFLED_CRITERION, parts=[rise, above], history=history,
                   replicates={"what": f"{_seeds_text(ss)} (null: {_seeds_text(tw)})", "claim": len(ss),
                               "null": len(tw)},
                   paper_settings=_digits_settings(profile) + "; one pixel permutation per seed (the thesis: "
                                  "CIFAR-10, a CNN and an MLP of 500k parameters, 100 epochs)")


@claim("pac-shuffled-labels-vacuous", "thesis", "chapter 5, section 5.6 (Figure 5.3 right) and appendix A.4.1.1",
       "When the structure of the dataset is entirely broken by shuffling the labels, the compressibility of the "
       "models (both for CNNs and MLPs) which fit the random labels is lost. Regardless of the subspace dimension "
       "used, our generalization bounds are all at 100% error. It is not possible to fit the training data using low "
       "subspace dimensions, and when using a large enough dimension to fit the data, the compressed size of the "
       "model is larger than the training data and hence the generalization bounds are vacuous.",
       paper_value="every bound vacuous on shuffled labels, for models that fit them",
       seconds={"quick": 26, "full": 1500}, criterion=VACUOUS_CRITERION, null=VACUOUS_NULL,
       criteria=(Criterion(1, VACUOUS_V1, FIRST_REGISTERED),
                 Criterion(2, VACUOUS_CRITERION, NEW,
                           reason="issue 46: v1 held because the models never fitted the random labels (train error "
                                  "0.81-0.85); now a subset small enough to fit them, a part that they are fitted, "
                                  "and intervals over seeds",
                           thresholds=(("FIT", FIT), ("GUESS", GUESS)), parts=VACUOUS_PARTS)),
       paper_settings="a 500-image subset of the 8 x 8 digits with shuffled labels stands in for CIFAR-10 with "
                      "shuffled labels",
       chosen_on=tuning.chosen_on("bounds-labels-steps") + LABELS_DIMS_NOTE,
       retuned_from=("DECLARED: chosen on the verdict seeds: the shuffled-labels runs' steps went from 500 to 700 "
                     "after reading verdict-seed numbers (referee's review; the module keeps no record); 500 images, "
                     "the MLP only; dims 10, 100, 2500 (10 added in issue 62 after the true labels' lowest bound lay "
                     "at the bottom, d = 100, on the verdict seeds)"))
def measure_vacuous(profile) -> Outcome:
    ss, models = seeds(profile), labels_models(profile)
    shuffled = [[bound_run(profile, "shuffled-labels", m, s, labels=True) for m in models] for s in ss]
    true = [[bound_run(profile, "digits", m, s, labels=True) for m in models] for s in ss]
    fitted = part(VACUOUS_PARTS[0], fit_error, [{"rows": [r["dims"][-1] for r in runs]} for runs in shuffled],
                  [{"rows": [r["dims"][0] for r in runs]} for runs in shuffled], Rule("<", FIT), FIT_NULL)
    vacuous = part(VACUOUS_PARTS[1], lowest_bound, [{"runs": runs} for runs in shuffled],
                   [{"runs": runs} for runs in true], Rule(">", GUESS), TRUE_NULL,
                   grid=grid({f"{r['model'].upper()}, {name}, seed {s}": r
                              for name, draws in (("shuffled labels", shuffled), ("true labels", true))
                              for s, runs in zip(ss, draws) for r in runs},
                             "the d of each run's lowest bound (claim and null)", at=lowest_dim))

    def every(runs):
        return {f"{r['model']} d={row['d']}": row["bound"] for r in runs for row in r["dims"]}

    history = {1: {"holds": bool(vacuous_met(every(shuffled[0]))), "null_holds": bool(vacuous_met(every(true[0]))),
                   "measured": {"lowest bound": _f(min(every(shuffled[0]).values()), 3)},
                   "why": f"one draw, as v1 read it: seed {ss[0]}'s bounds at every d (on this run's subset and "
                          f"dims); null: the true labels"}}
    quantized = [max(r["dims"][-1]["train_error"] for r in runs) for runs in shuffled]
    lp, big, small = labels_plan(profile), shuffled[0][0]["dims"][-1]["d"], shuffled[0][0]["dims"][0]["d"]
    note = (f"{lp['train_points']} training digits, shuffled labels, {', '.join(m.upper() for m in models)}, "
            f"{_seeds_text(ss)}: the worst train error before quantization at d = {big} "
            f"{', '.join(f'{x:.3f}' for x in fitted.replicates)}; at d = {small} (null) "
            f"{', '.join(f'{x:.3f}' for x in fitted.null_replicates)}; after quantization at d = {big}: "
            f"{', '.join(f'{x:.3f}' for x in quantized)}; compressed "
            f"size at d = {big}: {shuffled[0][0]['dims'][-1]['compressed_bits']:.0f} bits against the labels' "
            f"{lp['train_points'] * math.log2(10):.0f}.  Lowest bound: "
            f"{', '.join(f'{x:.3f}' for x in vacuous.replicates)}; on the true labels (null) "
            f"{', '.join(f'{x:.3f}' for x in vacuous.null_replicates)}." + _where(vacuous))
    curves = {f"{r['model'].upper()}, shuffled labels": r for r in shuffled[0]}
    curves.update({f"{r['model'].upper()}, true labels (null)": r for r in true[0]})
    evidence = [_bound_curves("Shuffled labels (first seed): the bound against d", curves),
                {"kind": "table", "title": "Train error before / after quantization and bound, per d (first seed)",
                 "columns": ["run", "d", "train error (float)", "train error (quantized)", "size (bits)", "bound"],
                 "rows": [[name, row["d"], _f(row["train_error_float"], 3), _f(row["train_error"], 3),
                           _f(row["compressed_bits"], 5), _f(row["bound"], 3)]
                          for name, r in curves.items() for row in r["dims"]]}]
    return Outcome(measured={"fit_error": _f(fitted.measured, 3), "lowest_bound": _f(vacuous.measured, 3),
                             "true_labels_lowest": _f(vacuous.null_measured, 3)},
                   settings={**lp, "models": list(models), "seeds": ss}, evidence=evidence, note=note,
                   criterion=VACUOUS_CRITERION, parts=[fitted, vacuous], history=history,
                   replicates={"what": _seeds_text(ss), "claim": len(ss), "null": len(ss)},
                   paper_settings=(f"{lp['train_points']} of the 8 x 8 digits (a subset small enough to fit random "
                                   f"labels in {lp['steps']} steps) with shuffled labels stand in for CIFAR-10; "
                                   f"{', '.join(m.upper() for m in models)} at dims {lp['dims']}; "
                                   f"{len(ss)} seeds (the thesis: CIFAR-10, CNN and MLP of 500k parameters)"))
