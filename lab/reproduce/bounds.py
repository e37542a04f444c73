"""Claims of thesis chapter 5 (PAC-Bayes compression bounds), measured with ``lab bound`` (``lab.experiments.bounds``;
the science in ``lab.bounds``) on scikit-learn's digits: every bound at 95 % confidence (delta = 0.05), the
data-independent universal prior, the subspace dimension chosen by the bound among the profile's dims (the union
paid in bits).

* ``pac-nonvacuous`` (section 5.5.1).  The CNN's best bound on the digits is below the error of guessing among ten
  classes (0.9).  Null: the same trained network described without compression -- its D float32 weights, 32 D bits
  -- must give a vacuous bound.
* ``pac-equivariance-compresses`` (section 5.6, appendix A.4.6, Figure A.5).  On rotated digits (each image at its
  own multiple of 90 degrees) the C4-equivariant GCNN's best bound is at least ``MARGIN`` below the ordinary CNN's.
  Null: the same comparison on the unrotated digits, where the thesis finds the benefit disappears (a
  rotation-invariant model cannot tell a 6 from a 9 there).
* ``pac-shuffled-pixels`` (section 5.6, Figure 5.3 centre).  Read as the figure draws it -- the bound against the
  subspace dimension, CNN and MLP of the same size: the CNN's bound minus the MLP's, averaged over the dims searched
  (the same description sizes), rises by at least ``SHUFFLE_MARGIN`` when the pixels are shuffled (one fixed
  permutation), and is not below zero after (the CNN no better than the MLP; an MLP on permuted pixels is the same
  model up to its random draw).  Null: a second split of the unshuffled digits (seed 1) in place of the shuffled
  pixels.  The best bounds are reported beside: on the 8 x 8 digits at the full profile the CNN's best bound is only
  0.01 below the MLP's (its edge is at small d), so the best-bound reading has little edge to lose.
* ``pac-shuffled-labels-vacuous`` (section 5.6, Figure 5.3 right, appendix A.4.1.1).  With the training labels
  shuffled every bound -- every d, MLP and CNN -- is vacuous (at or above 0.9).  Null: the same models and dims on
  the true labels.

Profiles.  ``full``: the family's defaults (600 subspace steps, 300 quantization-aware steps, 7 levels) at dims 50,
100, 200, 400, 800.  ``quick`` (CI): dims 100, 300; 400 and 150 steps.  The runs are shared between the claims
(``profile.memo``).
"""
from __future__ import annotations

import math

from .claim import Outcome, claim, judge

#: the GCNN's best bound below the CNN's by at least this much on rotated digits
MARGIN = 0.05
#: shuffling the pixels worsens the CNN's best bound by at least this much more than the MLP's
SHUFFLE_MARGIN = 0.02
GUESS = 0.9
QUICK = {"dims": "100,300", "steps": 400, "quant_steps": 150}
FULL = {"dims": "50,100,200,400,800", "steps": 600, "quant_steps": 300}


def plan(profile) -> dict:
    return dict(profile.pick(quick=QUICK, full=FULL))


def _f(x, digits: int = 4):
    x = float(x)
    return float(f"{x:.{digits}g}") if math.isfinite(x) else x


def bound_run(profile, data: str, model: str, seed: int = 0) -> dict:
    """The summary of one ``lab bound`` run of ``profile``'s settings (shared between claims)."""
    def make():
        from ..experiments.bounds import FAMILY, BoundsConfig

        cfg = BoundsConfig(data=data, model=model, seed=seed, device=profile.device, **plan(profile))
        return FAMILY.summary(FAMILY.run(cfg, control=profile.control))

    return profile.memo(("bounds", data, model, seed), make, label=f"bound {model} on {data} seed {seed}")


# ---------------------------------------------------------------------------------------------- criteria
def nonvacuous_met(m: dict) -> bool:
    return math.isfinite(m["best_bound"]) and m["best_bound"] < GUESS


def compresses_met(m: dict) -> bool:
    """The equivariant model's best bound at least ``MARGIN`` below the CNN's."""
    return m["gcnn"] <= m["cnn"] - MARGIN


def shuffled_met(m: dict) -> bool:
    """The CNN's mean bound gap to the MLP rises by ``SHUFFLE_MARGIN`` with shuffled pixels, and is >= 0 after."""
    return m["gap_after"] - m["gap_before"] >= SHUFFLE_MARGIN and m["gap_after"] >= 0


def vacuous_met(bounds: dict) -> bool:
    """Every bound at or above the guessing error."""
    return bool(bounds) and all(b >= GUESS for b in bounds.values())


NONVACUOUS_CRITERION = f"the CNN's best bound on the digits below {GUESS} (the error of guessing among ten classes)"
NONVACUOUS_NULL = "the same trained network described without compression (32 bits for each of its D weights)"
COMPRESSES_CRITERION = f"on rotated digits (C4) the GCNN's best bound at least {MARGIN} below the CNN's"
COMPRESSES_NULL = "the same comparison on the unrotated digits"
SHUFFLED_CRITERION = (f"the CNN's bound minus the MLP's, averaged over the subspace dimensions searched, rises by at "
                      f"least {SHUFFLE_MARGIN} when the pixels are shuffled and is not below 0 after")
SHUFFLED_NULL = "a second split of the unshuffled digits (seed 1) in place of the shuffled pixels"
VACUOUS_CRITERION = f"with shuffled labels every bound (every d, MLP and CNN) at or above {GUESS}"
VACUOUS_NULL = "the same models and dimensions on the true labels"


def _bound_curves(title: str, runs: dict) -> dict:
    dims = [r["d"] for r in next(iter(runs.values()))["dims"]]
    return {"kind": "line", "title": title, "xlabel": "subspace dimension d", "ylabel": "bound on the test error",
            "logx": True, "logy": False, "x": dims,
            "series": {name: [_f(r["bound"], 3) for r in s["dims"]] for name, s in runs.items()}}


def _table(runs: dict) -> dict:
    return {"kind": "table", "title": "Best bound per run (95 % confidence)",
            "columns": ["run", "best bound", "at d", "its train error", "its test error", "size (bits)"],
            "rows": [[name, _f(s["best_bound"], 3), s["best_dim"],
                      _f(next(r for r in s["dims"] if r["d"] == s["best_dim"])["train_error"], 3),
                      _f(s["best_test_error"], 3),
                      _f(next(r for r in s["dims"] if r["d"] == s["best_dim"])["compressed_bits"], 5)]
                     for name, s in runs.items()]}


# ---------------------------------------------------------------------------------------------- the claims
@claim("pac-nonvacuous", "thesis", "chapter 5, section 5.5.1 and Table 5.2",
       "We present our bounds for the data-independent prior in Table 5.2. We derive the first non-vacuous bounds on "
       "FashionMNIST, CIFAR-10, and CIFAR-100 without data-dependent priors.",
       paper_value="MNIST: 11.6 % with the data-independent prior (LeNet-5); the lab: digits, a bound below 0.9",
       seconds={"quick": 4, "full": 25}, criterion=NONVACUOUS_CRITERION, null=NONVACUOUS_NULL)
def measure_nonvacuous(profile) -> Outcome:
    from ..bounds.bound import bound_from_bits

    run = bound_run(profile, "digits", "cnn")
    best = next(r for r in run["dims"] if r["d"] == run["best_dim"])
    D, n = run["parameters"], run["n"]
    raw = bound_from_bits(best["train_error_float"], 32 * D + run["hyperparameter_bits"], n)
    measured = {"best_bound": run["best_bound"]}
    null_measured = {"best_bound": raw["bound"]}
    holds, null = judge(nonvacuous_met, measured, NONVACUOUS_NULL, null_measured)
    null.measured = {"best_bound": _f(raw["bound"], 3), "bits": 32 * D}
    note = (f"CNN ({D} parameters), n = {n} digits: best bound {run['best_bound']:.3f} at d = {run['best_dim']} "
            f"({best['compressed_bits']:.0f} bits = {best['compressed_bits'] / 8192:.3f} KB; quantized train error "
            f"{best['train_error']:.3f}, test error {run['best_test_error']:.3f}).  Uncompressed, the same network "
            f"takes {32 * D} bits and its bound is {raw['bound']:.3f}.")
    evidence = [_bound_curves("CNN on the digits: the bound against d", {"CNN": run}), _table({"CNN, digits": run})]
    return Outcome(measured={"best_bound": _f(run["best_bound"], 3), "best_dim": run["best_dim"]}, holds=holds,
                   settings=plan(profile), evidence=evidence, note=note, criterion=NONVACUOUS_CRITERION, null=null,
                   accuracy={"digits": {"cnn test error": _f(run["best_test_error"], 3), "guessing": GUESS}})


@claim("pac-equivariance-compresses", "thesis", "chapter 5, section 5.6 and appendix A.4.6 (Figure A.5)",
       "As shown in Figure A.5 (a), when paired with the rotationally symmetric RotMNIST dataset, the rotationally "
       "equivariant model achieves better bounds and is more compressible than its non equivariant counterpart "
       "despite having the same number of parameters.",
       paper_value="C8 WideResNet below the WideResNet on RotMNIST, not on MNIST; the lab: C4 GCNN vs CNN, digits",
       seconds={"quick": 10, "full": 60}, criterion=COMPRESSES_CRITERION, null=COMPRESSES_NULL)
def measure_compresses(profile) -> Outcome:
    rot = {m: bound_run(profile, "rotated-digits", m) for m in ("cnn", "gcnn")}
    plain = {m: bound_run(profile, "digits", m) for m in ("cnn", "gcnn")}
    measured = {m: rot[m]["best_bound"] for m in rot}
    null_measured = {m: plain[m]["best_bound"] for m in plain}
    holds, null = judge(compresses_met, measured, COMPRESSES_NULL, null_measured)
    null.measured = {k: _f(v, 3) for k, v in null_measured.items()}
    note = (f"Rotated digits: GCNN {measured['gcnn']:.3f} ({rot['gcnn']['parameters']} parameters) against CNN "
            f"{measured['cnn']:.3f} ({rot['cnn']['parameters']}); test errors {rot['gcnn']['best_test_error']:.3f} "
            f"and {rot['cnn']['best_test_error']:.3f}.  Unrotated digits: GCNN {null_measured['gcnn']:.3f}, CNN "
            f"{null_measured['cnn']:.3f}.")
    evidence = [_bound_curves("Rotated digits: the bound against d", {"GCNN (C4)": rot["gcnn"], "CNN": rot["cnn"]}),
                _bound_curves("Unrotated digits (null): the bound against d",
                              {"GCNN (C4)": plain["gcnn"], "CNN": plain["cnn"]}),
                _table({"GCNN, rotated": rot["gcnn"], "CNN, rotated": rot["cnn"], "GCNN, digits": plain["gcnn"],
                        "CNN, digits": plain["cnn"]})]
    return Outcome(measured={k: _f(v, 3) for k, v in measured.items()}, holds=holds, settings=plan(profile),
                   evidence=evidence, note=note, criterion=COMPRESSES_CRITERION, null=null)


def mean_gap(cnn: dict, mlp: dict) -> float:
    """The CNN's bound minus the MLP's, averaged over the dims both searched (Figure 5.3's curves)."""
    b = {r["d"]: r["bound"] for r in mlp["dims"]}
    gaps = [r["bound"] - b[r["d"]] for r in cnn["dims"] if r["d"] in b]
    return sum(gaps) / len(gaps) if gaps else math.nan


def _shuffle_reading(before: dict, after: dict) -> dict:
    return {"gap_before": mean_gap(before["cnn"], before["mlp"]), "gap_after": mean_gap(after["cnn"], after["mlp"])}


@claim("pac-shuffled-pixels", "thesis", "chapter 5, section 5.6 (Figure 5.3 centre)",
       "However, when the image structure is broken by shuffling the pixels, we find that CNNs are no better at "
       "generalizing than MLPs. [...] MLPs do not suffer when this structure is broken since they never used it in "
       "the first place.",
       paper_value="CIFAR-10: the CNN's bound worse than the MLP's on shuffled pixels",
       seconds={"quick": 8, "full": 60}, criterion=SHUFFLED_CRITERION, null=SHUFFLED_NULL)
def measure_shuffled(profile) -> Outcome:
    before = {m: bound_run(profile, "digits", m) for m in ("cnn", "mlp")}
    after = {m: bound_run(profile, "shuffled-pixels", m) for m in ("cnn", "mlp")}
    twin = {m: bound_run(profile, "digits", m, seed=1) for m in ("cnn", "mlp")}
    measured, null_measured = _shuffle_reading(before, after), _shuffle_reading(before, twin)
    holds, null = judge(shuffled_met, measured, SHUFFLED_NULL, null_measured)
    null.measured = {k: _f(v, 3) for k, v in null_measured.items()}
    best = {f"{m}_{k}": runs[m]["best_bound"] for k, runs in (("before", before), ("after", after))
            for m in ("cnn", "mlp")}
    note = (f"The CNN's bound minus the MLP's, averaged over d = {', '.join(str(r['d']) for r in before['cnn']['dims'])}:"
            f" {measured['gap_before']:+.3f} on the digits, {measured['gap_after']:+.3f} on shuffled pixels; on a "
            f"second split of the digits {null_measured['gap_after']:+.3f}.  Best bounds, digits -> shuffled pixels: "
            f"CNN {best['cnn_before']:.3f} -> {best['cnn_after']:.3f}, MLP {best['mlp_before']:.3f} -> "
            f"{best['mlp_after']:.3f} (second split: CNN {twin['cnn']['best_bound']:.3f}, MLP "
            f"{twin['mlp']['best_bound']:.3f}).")
    evidence = [_bound_curves("Digits and shuffled pixels: the bound against d",
                              {"CNN, digits": before["cnn"], "MLP, digits": before["mlp"],
                               "CNN, shuffled pixels": after["cnn"], "MLP, shuffled pixels": after["mlp"]}),
                _table({"CNN, digits": before["cnn"], "MLP, digits": before["mlp"],
                        "CNN, shuffled pixels": after["cnn"], "MLP, shuffled pixels": after["mlp"],
                        "CNN, digits seed 1 (null)": twin["cnn"], "MLP, digits seed 1 (null)": twin["mlp"]})]
    return Outcome(measured={**{k: _f(v, 3) for k, v in measured.items()},
                             **{f"best_{k}": _f(v, 3) for k, v in best.items()}}, holds=holds,
                   settings=plan(profile), evidence=evidence, note=note, criterion=SHUFFLED_CRITERION, null=null)


@claim("pac-shuffled-labels-vacuous", "thesis", "chapter 5, section 5.6 (Figure 5.3 right) and appendix A.4.1.1",
       "When the structure of the dataset is entirely broken by shuffling the labels, the compressibility of the "
       "models (both for CNNs and MLPs) which fit the random labels is lost. Regardless of the subspace dimension "
       "used, our generalization bounds are all at 100% error.",
       paper_value="every bound vacuous on shuffled labels", seconds={"quick": 5, "full": 40},
       criterion=VACUOUS_CRITERION, null=VACUOUS_NULL)
def measure_vacuous(profile) -> Outcome:
    labels = {m: bound_run(profile, "shuffled-labels", m) for m in ("cnn", "mlp")}
    true = {m: bound_run(profile, "digits", m) for m in ("cnn", "mlp")}

    def every(runs):
        return {f"{m} d={r['d']}": r["bound"] for m, s in runs.items() for r in s["dims"]}

    measured, null_measured = every(labels), every(true)
    holds, null = judge(vacuous_met, measured, VACUOUS_NULL, null_measured)
    null.measured = {"lowest bound": _f(min(null_measured.values()), 3)}
    low = min(measured, key=measured.get)
    note = (f"Shuffled labels: the lowest of {len(measured)} bounds is {measured[low]:.3f} ({low}); the quantized "
            f"models' train errors {min(r['train_error'] for s in labels.values() for r in s['dims']):.2f}-"
            f"{max(r['train_error'] for s in labels.values() for r in s['dims']):.2f}.  True labels: lowest "
            f"{min(null_measured.values()):.3f}.")
    evidence = [_bound_curves("Shuffled labels: the bound against d",
                              {"CNN, shuffled labels": labels["cnn"], "MLP, shuffled labels": labels["mlp"],
                               "CNN, true labels (null)": true["cnn"], "MLP, true labels (null)": true["mlp"]})]
    return Outcome(measured={"lowest bound": _f(measured[low], 3), "bounds": len(measured)}, holds=holds,
                   settings=plan(profile), evidence=evidence, note=note, criterion=VACUOUS_CRITERION, null=null)
