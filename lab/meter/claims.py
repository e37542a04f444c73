"""Claims of Finzi's thesis, chapter 4 (the Lie derivative as a measure of learned equivariance), measured with the
lab's equivariance meter (``lab.meter``) on models the lab builds and trains here (no pretrained ImageNet model can be
downloaded: the thesis's hundreds of models are not reproduced, its statements are read on a small digits CNN).

Every claim is judged part by part (``lab.reproduce.claim.part``): one statistic read on the claim's draws and on
its null's draws (seeds: weights, data split and batch order), each judged by the same rule on the 95 % bootstrap
interval of the mean over draws (``lab.reproduce.stats``).  With three draws that interval reaches the smallest
(or largest) draw, so a ``>`` rule asks every seed to clear the threshold.

* ``lee-zero-for-equivariant`` (§4.4, appendix A.3.1.1: the Lie derivative along every generator is zero exactly
  when the model is equivariant).  EMLP networks over O(3) and SO(2) (the ``lab lie-derivative`` presets
  ``emlp-o3``, ``emlp-so2``: float64), weights and Gaussian inputs drawn at each seed: per seed, the largest LEE
  over the Lie-algebra generators relative to the output's scale ``E|f|^2 / dim`` (``worst_relative_lee``); a part
  per group, its interval wholly below ``ZERO_TOL`` (1e-24: a relative Lie derivative of 1e-12, float64 rounding).
  Null: MLPs with the same reps and sizes (``mlp-o3`` and its SO(2) twin) drawn at the same seeds, read by the same
  function (they are not equivariant: "and vice versa").
* ``lee-layerwise-sums`` (§4.4, eq. 4.6; kind ``lab``: an identity of the method, checked on the lab's
  implementation).  On the trained digits CNNs, strided and blurred, under translate-x, translate-y and rotation,
  per seed: the contributions ``C_i`` laid beside the model's Lie derivative ``L`` on a batch of test images, read by
  ``relative_residual`` = ``|L - S| / |L|`` (norms over the whole batch: per image, one whose softmax is saturated
  has a Lie derivative near 1e-10 and its own relative residual reads rounding) with ``S = sum_i C_i`` (eq. 4.6,
  vectors); interval below ``SUM_TOL`` (1e-10, float64).  Null: the competing reading the thesis warns against
  ("the sum of norms may differ from the norm of the sum"): the contributions' norms laid along ``L``,
  ``S = (sum_i |C_i|) L / |L|`` per image, read by the same residual on the same decompositions (it is zero only
  where the norms add up).  The decomposition with its largest layer left out is reported beside it.
* ``lee-aliasing`` (§4.5-4.6, Figures 4.4 and 4.6): "In all the CNNs, much of the equivariance error comes from
  downsampling and non-linearities" and Blur-Pool "decreases the equivariance error".  Three registered versions of
  the criterion (``ALIAS_V1``, ``ALIAS_V2``, ``ALIAS_V3``); the report shows this run under each.

  - v1 (first registered): on seed means, (a) downsampling + nonlinearity layers carry more than half of
    ``|L|^2`` in the strided and the blurred CNN, and (b) the blurred CNN's LEE lies below the strided one's by more
    than ``Z`` = 2 standard errors of the difference.  The full profile (seeds 0-2, 2026-11-25) read 1.91 and 1.92
    standard errors (translate-x, translate-y).
  - v2 (the same day, after that run): part (b) loosened to "their one-standard-error bars do not overlap"
    (``apart`` above ``BARS`` = 1; about z > 1.06 here, half the evidence of v1).  Kept as registered, not judged
    as the claim's verdict.
  - v3 (issue 46, the verdict): part (b) as a paired per-image difference, per seed, on the same test images:
    ``paired_drop`` = mean over the images of LEE(strided) - LEE(blurred), one draw per seed (so seed-to-seed
    variance is in the interval, and per-image variance in each draw's mean), judged on the percentile-bootstrap
    interval of the mean over seeds (wholly above 0); a part per translation.  Part (a) is not judged: under the
    meter's periodic translation the stride-1 circular convolutions, the global pooling and the classifier commute
    exactly with the translation, so downsampling and activations carry all of ``|L|^2`` in *every* CNN built from
    these layers, trained or not -- no null can fail it.  Its shares are reported (which kind carries it: strided
    convolutions in the strided CNN, activations once Blur-Pool removes the downsampling's share).

  Null (every version): the same CNN with the blur replaced by an identity (a ``BlurPool`` of size 1: stride-1
  convolutions sampled at every second pixel) in the blurred CNN's place, trained the same way at the same seeds.
  Built at the same seed it starts as the strided CNN's function (a stride-2 convolution is a stride-1 one sampled
  at every second pixel, and the ReLU commutes with the sampling) and trains as it up to rounding, so part (b)
  must fail for it: what it reads is the drift of a separately trained twin.  Reported, not judged: rotation (the
  3 x 3 convolutions are not rotation-equivariant), the logits, and (full profile) the smooth activation: the thesis
  names "an activation function with a wide spectrum" as a source of aliasing but does not claim a smooth activation
  lowers the error (the study found it does not after training, ``lab.meter.aliasing``).
* ``lee-equivariance-gap`` (§4.6, Figure 4.7): "models are less equivariant on test data than train, and this gap
  grows for OOD inputs".  On the softmax probabilities (the thesis's outputs, appendix A.3), per seed, over the
  strided and the blurred CNN under translate-x, translate-y and rotation (six cells): the mean over the cells of
  log10 LEE(later set) / LEE(earlier set), a part per step of Figure 4.7's order: (i) train < test, (ii) test < a
  held-out digit class (the near OOD set), (iii) test < Gaussian noise with the digits' pixel moments (the far one);
  each interval over seeds wholly above 0.  Null: the same models at initialisation (the seed's weights, untrained)
  on the same inputs, read by the same function: if a step came from the inputs alone (noise's flat spectrum, the
  held-out class's shapes) it would hold there too, and that part then has no power.  v1 (the order at every cell
  on seed means) is judged beside it.  The logits are a reported variant (full profile).

Determinism.  Everything is seeded from the profile's seed (split, weights, batch order, noise images), and the
family computes on one torch thread (``_one_thread``): the lab fits its thread pool to the machine's load
(``lab.threads``), and a different thread count sums in a different order, which training amplifies.

Profiles.  ``full``: the aliasing study's defaults (``lab.meter.aliasing``: width 16, 100 epochs, batch 64, Adam
3e-3, digit 9 held out, 3 seeds, 256 images per input set, 256 for the layer-wise decomposition under translation and
rotation).  ``quick`` (CI): 3 seeds, 30 epochs of batch 64 at Adam 5e-3, chosen by the tuning probe
``meter-quick-training`` on seeds 100-102 (apart from the verdict seeds): the cheapest of four settings at which all
three CNNs reach a test accuracy of 0.8 on every tuning seed (``TRAINING_CANDIDATES``; the blurred CNN learns slowly,
and at the former 13 epochs at Adam 2e-2, chosen on the verdict seeds, it read 0.64 at seed 100), 64 images per
input set, 16 for the layer-wise decomposition (a decomposition costs about as much as
ten LEE readings: the first seed's under translation for every model, the later seeds' under translate-x for the
strided and blurred CNNs; the shares of v1-v2's part (a) are then read on the first seed), no logits or
smooth-activation variants for the gap.  The report gives every model's training and test accuracy
per seed.  The three CNNs (strided, blurred, the
null's unblurred), their per-image LEE and their layer-wise decompositions are computed once per profile and shared
by the three CNN claims (``profile.memo``); the report carries every number.
"""
from __future__ import annotations

import math

from ..reproduce.claim import FIRST_REGISTERED, Criterion, Outcome, claim, extends
from ..errors import LabError
from ..threads import one_thread as _one_thread  # the family computes on one torch thread
from ..reproduce.stats import Rule, null_words, part, with_replaced
from ..reproduce import tuning
from ..reproduce.tuning import probe
from ..reproduce.stats import mean as _mean  # a float sum of every replicate (math.fsum)

#: relative LEE (LEE / (E|f|^2 / dim)) at or below which a model counts as equivariant (float64 rounding, squared)
ZERO_TOL = 1e-24
#: |L - S| / |L| at or below which the contributions add up (float64)
SUM_TOL = 1e-10
#: v1 of lee-aliasing: "blur lowers the error" by more than this many standard errors of the difference
Z = 2.0
#: v2 of lee-aliasing: the two LEEs' one-standard-error bars apart, (LEE_stride - LEE_blur) / (se_stride + se_blur)
#: above this
BARS = 1.0
#: v1-v2 of lee-aliasing, part (a): a share of |L|^2 above this is "most"
MOST = 0.5
#: v3 of lee-aliasing: the paired per-image drop LEE(strided) - LEE(blurred) above this (interval over seeds)
DROP = 0.0
#: lee-equivariance-gap: the mean log10 ratio of a later input set's LEE to an earlier one's above this
GAP = 0.0
#: the presets whose Lie derivative must vanish, and their nulls (an MLP with the same reps)
ZERO_MODELS = {"emlp-o3": ("O(3)", "2*V", "Scalar+V"), "emlp-so2": ("SO(2)", "2*V", "Scalar+V")}
NULL_OF = {"emlp-o3": "mlp-o3", "emlp-so2": "mlp-so2"}
#: the CNNs the claims read, and the null's
CNNS = ("cnn-stride", "cnn-blur")
NOBLUR = "cnn-noblur"
ALIAS_TRANSFORMS = ("translate-x", "translate-y")
GAP_TRANSFORMS = ("translate-x", "translate-y", "rotate")
SETS = ("train", "test", "heldout", "noise")
#: lee-equivariance-gap's parts: (earlier set, later set, part name)
STEPS = (("train", "test", "(i) train below test"), ("test", "heldout", "(ii) test below the held-out class"),
         ("test", "noise", "(iii) test below noise"))
HOLDOUT = 9
#: a CNN whose test accuracy is below this did not train (chance is 1/9 with the held-out class; the quick models
#: reach 0.80-0.99): its seed is an invalid draw, replaced by the next seed (issue 62: at seed 3 a blurred CNN read
#: 0.089)
TRAINED_MIN = 0.5
#: at most this many invalid seeds are replaced per run of the shared CNNs
REPLACE_BUDGET = 3
#: quick: the layer-wise decompositions (about ten LEE readings' cost each) of the first seed under translation,
#: every model; of the later seeds the strided and blurred CNNs under translate-x (``layerwise_later``)
QUICK = {"seeds": 3, "epochs": 30, "batch": 64, "lr": 5e-3, "samples": 64, "layerwise_samples": 16,
         "layerwise_transforms": ALIAS_TRANSFORMS, "layerwise_later": ("translate-x",), "zero_samples": 64,
         "zero_seeds": 3, "logits_everywhere": True}


#: the quick training settings the tuning probe ``meter-quick-training`` chose among, cheapest first
TRAINING_CANDIDATES = {"13 epochs, batch 64, Adam 2e-2": {"epochs": 13, "batch": 64, "lr": 2e-2},
                       "20 epochs, batch 64, Adam 1e-2": {"epochs": 20, "batch": 64, "lr": 1e-2},
                       "30 epochs, batch 64, Adam 5e-3": {"epochs": 30, "batch": 64, "lr": 5e-3},
                       "50 epochs, batch 64, Adam 3e-3": {"epochs": 50, "batch": 64, "lr": 3e-3}}
#: how quick's training was chosen before the probe (layer 2's version of the CNN claims was registered with it)
DECLARED_TRAINING = ("DECLARED: chosen on the verdict seeds: quick's 13 epochs of batch 64 at Adam 2e-2 were picked "
                     "on training accuracy over seeds 0-2 among 12-25 epochs, batch 32-128 and Adam 3e-3 to 3e-2 "
                     "(lab/meter/claims.py docstring)")
ALIAS_V2_NOTE = "; criterion v2 was loosened after the full run on seeds 0-2 (v3 is judged)"
#: when the logits parts of lee-aliasing and lee-equivariance-gap were registered
LOGITS_DATE = "2026-12-02"
#: the probe's rule: every CNN fits (the blurred one's underfitting confounded its comparison with the strided one)
FITTED_MIN = 0.8


@probe("meter-quick-training", "the quick CNNs' epochs, batch and learning rate",
       f"the cheapest at which the strided, blurred and unblurred CNNs all reach a test accuracy of at least "
       f"{FITTED_MIN:g} on every tuning seed", TRAINING_CANDIDATES,
       lambda readings: all(a >= FITTED_MIN for r in readings.values() for a in r.values()),
       lambda: {k: QUICK[k] for k in ("epochs", "batch", "lr")},
       ("lee-layerwise-sums", "lee-aliasing", "lee-equivariance-gap"))
def _probe_training(value, seed) -> dict:
    """Test accuracy of the three quick CNNs trained at ``value`` on tuning seed ``seed``, trained as
    ``trained_cnns`` trains them (``Probe.run`` reads on one thread, as the claims measure)."""
    from .cnn import TrainSettings, digits_data

    data, settings = digits_data(seed, holdout=HOLDOUT), TrainSettings(value["epochs"], value["batch"], value["lr"])
    return {name: round(float(train_cnn(name, data, settings, seed, "cpu").test_accuracy), 4)
            for name in (*CNNS, NOBLUR)}


def train_cnn(name: str, data, settings, seed: int, device, control=None):
    """One of the shared CNNs trained on ``data`` (``NOBLUR``: the blurred CNN with the blur an identity, the
    null of lee-aliasing)."""
    from .cnn import DEFAULT_WIDTH, build, train

    model = build("cnn-blur", DEFAULT_WIDTH, data.classes, seed, blur=1) if name == NOBLUR else name
    return train(model, data, settings, seed, DEFAULT_WIDTH, device, control)


def plan(profile) -> dict:
    """The settings of ``profile`` (see the module docstring)."""
    from .cnn import DEFAULT_BATCH, DEFAULT_EPOCHS, DEFAULT_LR

    return profile.pick(quick=dict(QUICK, smooth=False),
                        full={"seeds": 3, "epochs": DEFAULT_EPOCHS, "batch": DEFAULT_BATCH, "lr": DEFAULT_LR,
                              "samples": 256, "layerwise_samples": 256, "layerwise_transforms": GAP_TRANSFORMS,
                              "layerwise_later": GAP_TRANSFORMS,
                              "zero_samples": 256, "zero_seeds": 3,
                              "logits_everywhere": True, "smooth": True})


def _f(x, digits: int = 4):
    if x is None:
        return None
    x = float(x)
    return float(f"{x:.{digits}g}") if math.isfinite(x) else x





def _history_entry(holds, null_holds, measured, why: str) -> dict:
    return {"holds": None if holds is None else bool(holds), "null_holds": None if null_holds is None
            else bool(null_holds), "measured": measured, "why": why}


# ---------------------------------------------------------------------------------------------- statistics
def worst_relative_lee(draw) -> float:
    """The largest LEE over the Lie-algebra generators relative to the output's scale ``E|f|^2 / dim``, of one model
    on one batch (a draw: ``{"relative": [per generator]}``, ``relative_lee``)."""
    return float(max(draw["relative"]))


def relative_lee(model, x) -> list[float]:
    """Per Lie-algebra generator: ``LEE / (E|f|^2 / dim)`` of ``model`` on ``x`` (float64; EMLP and MLP alike)."""
    import torch

    from ..equivariance.lie import generator_lee

    with torch.no_grad():
        scale = float(model(x).pow(2).mean())
    return [v / scale for v in generator_lee(model, x)]


def relative_residual(draw) -> float:
    """``|L - S| / |L|``, norms over the whole batch: ``L`` the model's Lie derivative, ``S`` what the layers are
    said to add up to (a draw: ``{"L", "S"}``, tensors of shape (N, ...))."""
    import torch

    L, S = draw["L"], draw["S"]
    den = float(torch.linalg.vector_norm(L))
    return float(torch.linalg.vector_norm(L - S)) / den if den > 0 else math.nan


def vector_sum(decomposition):
    """eq. 4.6: ``S = sum_i C_i`` (vectors)."""
    return sum(c.contribution for c in decomposition.layers)


def norms_along(decomposition):
    """The null's reading: the contributions' norms laid along ``L``, ``S = (sum_i |C_i|) L / |L|`` per image (zero
    residual exactly where the norms add up to ``|L|``)."""
    import torch

    L = decomposition.total
    flat = L.reshape(len(L), -1)
    norm = torch.linalg.vector_norm(flat, dim=1)
    total = sum(c.norms for c in decomposition.layers)
    unit = torch.where(norm[:, None] > 0, flat / norm.clamp_min(1e-300)[:, None], torch.zeros_like(flat))
    return (total[:, None] * unit).reshape(L.shape)


def paired_drop(draw) -> float:
    """Mean over the same images of ``LEE(strided) - LEE(other)`` (a draw: one seed's per-image LEE arrays
    ``{"strided", "other"}``): above 0 when the other CNN is more equivariant on these images."""
    import numpy as np

    a, b = np.asarray(draw["strided"], dtype=float), np.asarray(draw["other"], dtype=float)
    if a.shape != b.shape:
        raise ValueError("a paired difference needs the same images for both models")
    return float(np.mean(a - b))


def log_gap(low: str, high: str):
    """The statistic of one step of Figure 4.7's order: the mean over (model, transformation) cells of
    ``log10 LEE(high) / LEE(low)`` (a draw: one seed's ``{cell: {input set: LEE}}``)."""

    def statistic(draw) -> float:
        vals = []
        for sets in draw.values():
            a, b = sets.get(low, math.nan), sets.get(high, math.nan)
            vals.append(math.log10(b / a) if a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)
                        else math.nan)
        return _mean(vals) if vals else math.nan

    statistic.__name__ = f"mean log10 LEE({high}) / LEE({low})"
    return statistic


# ---------------------------------------------------------------------------------------------- v1-v2 readings
def apart(high: tuple, low: tuple) -> float:
    """(mean_high - mean_low) / (se_high + se_low) for two (mean, standard error) pairs: above 1 when ``low``'s
    one-standard-error bar lies wholly below ``high``'s (lee-aliasing v2)."""
    (a, sa), (b, sb) = high, low
    se = sa + sb
    return (a - b) / se if se > 0 else (math.inf if a > b else -math.inf if a < b else 0.0)


def z_difference(high: tuple, low: tuple) -> float:
    """(mean_high - mean_low) / sqrt(se_high^2 + se_low^2): standard errors of the difference (lee-aliasing v1)."""
    (a, sa), (b, sb) = high, low
    se = math.hypot(sa, sb)
    return (a - b) / se if se > 0 else (math.inf if a > b else -math.inf if a < b else 0.0)


def seed_mean(per_seed) -> tuple[float, float]:
    """(mean over seeds of the per-seed mean LEE, standard error of that mean from the per-image standard errors:
    ``sqrt(sum se^2) / seeds``), the reading of v1 and v2, from per-seed per-image arrays."""
    import numpy as np

    means, ses = [], []
    for per in per_seed:
        per = np.asarray(per, dtype=float)
        means.append(float(per.mean()))
        ses.append(float(per.std(ddof=1) / math.sqrt(per.size)) if per.size > 1 else math.nan)
    return _mean(means), math.sqrt(sum(s * s for s in ses)) / len(ses)


def alias_old_parts(lee: dict, shares: dict, version: int, blurred: str = "cnn-blur") -> dict:
    """v1 (``version`` 1: z of the difference above ``Z``) or v2 (error bars ``apart`` above ``BARS``): per
    translation, part (b)'s number and part (a)'s shares.  ``lee`` = {(model, transform): (seed mean, se)},
    ``shares`` = {(model, transform): downsampling + nonlinearity share}."""
    read = z_difference if version == 1 else apart
    out = {}
    for t in ALIAS_TRANSFORMS:
        out[f"{t} blur below stride"] = read(lee[("cnn-stride", t)], lee[(blurred, t)])
        for m in ("cnn-stride", blurred):
            out[f"{t} {'cnn-blur' if m == blurred else m} share"] = shares[(m, t)]
    return out


def alias_old_met(parts: dict, version: int) -> bool:
    bar = Z if version == 1 else BARS
    ok = []
    for k, v in parts.items():
        if v is None or not math.isfinite(v):
            ok.append(False)
        else:
            ok.append(v > bar if k.endswith("blur below stride") else v > MOST)
    return bool(ok) and all(ok)


def ordered(lee: dict) -> bool:
    """Figure 4.7's order on one model and transformation: train < test < heldout, and test < noise (v1)."""
    v = {k: lee.get(k, math.nan) for k in SETS}
    if not all(math.isfinite(x) for x in v.values()):
        return False
    return v["train"] < v["test"] < v["heldout"] and v["test"] < v["noise"]


def gap_met(measured: dict) -> bool:
    return bool(measured) and all(ordered(v) for v in measured.values())


# ------------------------------------------------------------------------------------------ lee-zero-for-equivariant
#: v1 as first registered (kept verbatim: the register's fingerprint)
ZERO_V1 = (f"for each EMLP (over O(3) and SO(2)), the LEE along every Lie-algebra generator relative to the "
           f"output scale E|f|^2/dim is at most {ZERO_TOL:g} (zero to float64 rounding)")
ZERO_CRITERION = (f"for each EMLP (over O(3) and SO(2)), weights and Gaussian inputs drawn at each seed: the largest "
                  f"LEE over the Lie-algebra generators relative to the output scale E|f|^2/dim, the 95 % interval "
                  f"of its mean over seeds wholly below {ZERO_TOL:g} (zero to float64 rounding); a part per group")
ZERO_NULL = ("MLPs with the same input and output reps and sizes (not equivariant), drawn at the same seeds and read "
             "by the same function: they must not meet it")
ZERO_PARTS = tuple(f"{group}: the EMLP's Lie derivative is zero" for group, _, _ in ZERO_MODELS.values())
ZERO_CRITERIA = (Criterion(1, ZERO_V1, FIRST_REGISTERED),
                 Criterion(2, ZERO_CRITERION, "2026-11-27",
                           reason="issue 46: judged per group on draws at several seeds (weights and inputs), the "
                                  "MLP null read by the same function at the same seeds (v1 read one seed's worst "
                                  "generator)", thresholds=(("ZERO_TOL", ZERO_TOL),), parts=ZERO_PARTS))


def assess_zero(draws: dict, null_draws: dict, settings: dict | None = None, paper_settings: str = "") -> Outcome:
    """``draws``: {EMLP preset: [{"seed", "relative": [per generator]}]}; ``null_draws``: {the same presets: the MLP
    twins' draws at the same seeds}."""
    rule = Rule("<", ZERO_TOL)
    parts = [part(name, worst_relative_lee, draws[m], null_draws[m], rule,
                  f"{NULL_OF[m]}: an MLP with the same reps and sizes at the same seeds", exact=True)
             for name, m in zip(ZERO_PARTS, ZERO_MODELS)]
    worst = {m: max(worst_relative_lee(d) for d in v) for m, v in draws.items()}
    null_worst = {NULL_OF[m]: min(worst_relative_lee(d) for d in v) for m, v in null_draws.items()}
    v1 = all(w <= ZERO_TOL for w in worst.values())
    v1_null = all(max(worst_relative_lee(d) for d in v) <= ZERO_TOL for v in null_draws.values())
    seeds = sorted({d["seed"] for v in draws.values() for d in v})
    history = {1: _history_entry(v1, v1_null, {m: _f(w, 3) for m, w in worst.items()},
                                 f"every generator at every seed ({len(seeds)} seeds) at most {ZERO_TOL:g}; the "
                                 f"MLPs' the same")}
    note = ("Worst relative LEE over generators and seeds: " + ", ".join(f"{m} {v:.3g}" for m, v in worst.items())
            + "; the MLPs with the same reps (null), smallest over seeds: "
            + ", ".join(f"{m} {v:.3g}" for m, v in null_worst.items())
            + ".  Models at initialisation (equivariance is a property of the EMLP's parameterisation, not of "
              "training); inputs Gaussian, float64, forward-mode Jacobian-vector products (lab.equivariance.lie).  An "
              "exact identity: every seed must read rounding, and the MLPs' interval lies orders of magnitude "
              "above the tolerance.")
    rows = [[m, d["seed"], k, _f(x, 3), x <= ZERO_TOL] for src in (draws, {NULL_OF[m]: v for m, v in
                                                                           null_draws.items()})
            for m, v in src.items() for d in v for k, x in enumerate(d["relative"])]
    labels = list(worst) + list(null_worst)
    evidence = [{"kind": "bar", "title": "Largest LEE over generators and seeds relative to E|f|^2/dim (EMLP: zero to "
                                         "rounding; MLP with the same reps, smallest over seeds: the null)",
                 "ylabel": "relative LEE", "logy": True, "labels": labels,
                 "series": {"relative LEE": [_f(max(x, 1e-300), 3) for x in (*worst.values(),
                                                                              *null_worst.values())]}},
                {"kind": "table", "title": "Relative LEE per seed and Lie-algebra generator",
                 "columns": ["model", "seed", "generator", "relative LEE", f"<= {ZERO_TOL:g}"], "rows": rows}]
    return Outcome(measured={m: _f(v, 3) for m, v in worst.items()}, settings=dict(settings or {}),
                   evidence=evidence, note=note, criterion=ZERO_CRITERION, parts=parts, history=history,
                   paper_settings=paper_settings,
                   replicates={"what": f"seeds {', '.join(str(s) for s in seeds)} (weights and inputs)",
                               "claim": len(seeds), "null": len(seeds)})


# ---------------------------------------------------------------------------------------------- lee-layerwise-sums
SUMS_V1 = (f"on the trained strided and blurred digits CNNs, under translation and rotation: "
           f"|L_X f - sum_i C_i| / |L_X f| <= {SUM_TOL:g} (eq. 4.6, vector contributions, float64) for every "
           f"model and transformation")
SUMS_CRITERION = (f"on the trained strided and blurred digits CNNs, per seed, model and transformation measured "
                  f"(translate-x and translate-y; rotation too in the full profile), on a batch of test images: "
                  f"|L_X f - S| / |L_X f| with S = sum_i C_i (eq. 4.6, vector contributions, norms over the batch, "
                  f"float64), the 95 % interval of its mean over "
                  f"these draws wholly below {SUM_TOL:g}")
SUMS_NULL = ("the contributions' norms laid along L_X f, S = (sum_i |C_i|) L/|L| per image (the sum of norms, which "
             "the thesis warns may differ from the norm of the sum), read by the same residual on the same "
             "decompositions: it must not meet the tolerance")
SUMS_PART = "the contributions add up to L_X f (vectors)"
SUMS_CRITERIA = (Criterion(1, SUMS_V1, FIRST_REGISTERED),
                 Criterion(2, SUMS_CRITERION, "2026-11-27",
                           reason="issue 46: every (seed, model, transformation) a draw, the null (the norms laid "
                                  "along L) read by the same residual on the same draws (v1 compared a mean "
                                  "mismatch of norms, another statistic, on the seed mean)",
                           thresholds=(("SUM_TOL", SUM_TOL),), parts=(SUMS_PART,)))


def assess_sums(draws: list, null_draws: list, settings: dict | None = None, rows=(), paper_settings: str = "",
                old_null: dict | None = None) -> Outcome:
    """``draws``: [{"key": "model transform", "seed", "L", "S"}] with ``S`` the vector sum; ``null_draws``: the
    same decompositions with ``S`` the norms laid along ``L``; ``rows``: [model, transform, layer, kind, E|C_i|]
    for the evidence (first seed); ``old_null``: {key: mean over images of |sum |C_i| - |L|| / |L|} (v1's null)."""
    p = part(SUMS_PART, relative_residual, draws, null_draws, Rule("<", SUM_TOL),
             "the norms laid along L: S = (sum_i |C_i|) L/|L|", exact=True)
    by_key: dict = {}
    for d, r, n in zip(draws, p.replicates, p.null_replicates):
        by_key.setdefault(d["key"], []).append((r, n))
    worst = {k: max(r for r, _ in v) for k, v in by_key.items()}
    null_low = {k: min(n for _, n in v) for k, v in by_key.items()}
    failing = [k for k, v in worst.items() if not (math.isfinite(v) and v <= SUM_TOL)]
    history = {}
    if old_null is not None:
        history[1] = _history_entry(not failing, all(math.isfinite(v) and v <= SUM_TOL for v in old_null.values()),
                                    {k: _f(v, 3) for k, v in worst.items()},
                                    "the worst seed's residual per (model, transformation) at most "
                                    f"{SUM_TOL:g}; its null the seed mean of the per-image mismatch of the norms "
                                    "|sum |C_i| - |L|| / |L|")
    text = []
    if failing:
        text.append("Not met at " + ", ".join(f"{k} ({worst[k]:.3g})" for k in failing) + ".")
    text.append("Worst relative residual of the vector sum over seeds: " + ", ".join(f"{k} {v:.2g}" for k, v in
                                                                                   worst.items())
                + "; of the norms laid along L (null), smallest over seeds: "
                + ", ".join(f"{k} {v:.3g}" for k, v in null_low.items()) + ".")
    text.append("The contributions are exact (one Jacobian-vector product per layer, lab.meter.layerwise), not the "
                "thesis's probe estimates of their norms; the lab's own check of the method (eq. 4.6), not an "
                "experiment of the thesis.")
    evidence = [{"kind": "bar", "title": "Relative mismatch with L_X f: the vector sum of the C_i (eq. 4.6, worst "
                                         "seed) and their norms laid along L (null, smallest seed)",
                 "ylabel": "relative residual", "logy": True, "labels": list(worst),
                 "series": {"|L - sum C_i| / |L|": [_f(max(v, 1e-300), 3) for v in worst.values()],
                            "|L - (sum |C_i|) L/|L|| / |L| (null)": [_f(null_low[k], 3) for k in worst]}}]
    if rows:
        evidence.append({"kind": "table", "title": "Per layer: E|C_i| (the thesis's per-layer number; first seed)",
                         "columns": ["model", "transformation", "layer", "kind", "E|C_i|"],
                         "rows": [list(r[:4]) + [_f(r[4], 3)] for r in rows]})
    return Outcome(measured={k: _f(v, 3) for k, v in worst.items()}, settings=dict(settings or {}),
                   evidence=evidence, note="  ".join(text), criterion=SUMS_CRITERION, parts=[p], history=history,
                   paper_settings=paper_settings,
                   replicates={"what": f"(seed, model, transformation): seeds "
                                       f"{', '.join(str(s) for s in sorted({d['seed'] for d in draws}))} x "
                                       f"{', '.join(by_key)}", "claim": len(draws), "null": len(null_draws)})


# ---------------------------------------------------------------------------------------------- lee-aliasing
#: v1 as first registered (2026-11-25; text recovered from git history, commit e921c07's parent)
ALIAS_V1 = ("under translate-x and translate-y, on the softmax probabilities of test inputs, seed means: (a) "
            "downsampling + nonlinearity layers carry more than 0.5 of |L|^2 in the strided and the blurred CNN; "
            "(b) the blurred CNN's LEE lies below the strided one's by more than 2 standard errors of the difference")
#: v2, the text of commit e921c07 verbatim (registered in criteria.json as this claim's first version before issue 46)
ALIAS_V2 = ("under translate-x and translate-y, on the softmax probabilities of test inputs, seed means: (a) "
            "downsampling + nonlinearity layers carry more than 0.5 of |L|^2 in the strided and the blurred CNN; "
            "(b) the blurred CNN's LEE lies below the strided one's, their one-standard-error bars (over images, "
            "the thesis's error bars) apart")
ALIAS_CRITERION = ("under translate-x and translate-y, on the softmax probabilities of the same test images: per "
                   "seed, the mean over the images of the paired difference LEE(strided CNN) - LEE(blurred CNN); "
                   f"the 95 % interval of its mean over seeds wholly above {DROP:g}, a part per translation.  "
                   "Downsampling and nonlinearities' share of |L|^2 (v1-v2's part (a)) is reported, not judged: "
                   "under the meter's periodic translation it is 1 in every CNN built from these layers, so no null "
                   "can fail it")
ALIAS_NULL = ("the same CNN with the blur replaced by an identity (stride-1 convolutions sampled at every second "
              "pixel: the strided CNN's function), trained the same way at the same seeds, in the blurred CNN's "
              "place: it must not come out below the strided CNN")
ALIAS_PARTS = tuple(f"(b) {t}: blurred below strided, paired per image" for t in ALIAS_TRANSFORMS)
ALIAS_LOGITS_PARTS = tuple(f"(b) {t}: blurred below strided on the logits, paired per image" for t in ALIAS_TRANSFORMS)
#: the confidence confound (issue 62): a model sure of its answer has a saturated softmax, whose small Jacobian
#: shrinks the Lie derivative of the probabilities whatever the network's equivariance; the class scores before the
#: softmax (logits) have no such factor
CONFOUND = ("the confidence confound controlled: every part also judged on the class scores before the softmax "
            "(logits), where a confident model's saturated softmax cannot shrink the Lie derivative")
ALIAS_CRITERIA = (
    Criterion(1, ALIAS_V1, FIRST_REGISTERED),
    Criterion(2, ALIAS_V2, "2026-11-25",
              reason="loosened after the full run (seeds 0-2) read 1.91 and 1.92 standard errors of the difference "
                     "against v1's margin of 2 (commit e921c07): one standard error over images per model, as the "
                     "thesis draws its error bars (Figure 4.6), bars apart -- about z > 1.06 here"),
    Criterion(3, ALIAS_CRITERION, "2026-11-27",
              reason="issue 46: v2 was loosened after a run had failed v1; part (b) re-judged as a paired per-image "
                     "difference on the same images with seed-to-seed variance included (per-seed paired means, "
                     "percentile-bootstrap interval over seeds); part (a) dropped as a judged part (met by "
                     "construction under periodic translation: its null cannot fail)",
              thresholds=(("DROP", DROP),), parts=ALIAS_PARTS))


def assess_aliasing(per_image: dict, shares: dict, settings: dict | None = None, accuracy: dict | None = None,
                    variants=(), kind_rows=(), paper_settings: str = "", logits: dict | None = None) -> Outcome:
    """``per_image``: {(model, transform): [per seed: the per-image LEE array on the same test images]} for
    cnn-stride, cnn-blur and the null's cnn-noblur; ``shares``: {(model, transform): [per seed: downsampling +
    nonlinearity share of |L|^2]} (reported; v1-v2's part (a)); ``kind_rows``: [model, transform, kind, share];
    ``logits``: ``per_image`` on the class scores (the confound-controlled parts; None: the probabilities only)."""

    parts, drops = [], {}
    for source, names in ((per_image, ALIAS_PARTS), (logits, ALIAS_LOGITS_PARTS)):
        if source is None:
            continue
        for name, t in zip(names, ALIAS_TRANSFORMS):
            s, b, n = (source[(m, t)] for m in ("cnn-stride", "cnn-blur", NOBLUR))
            parts.append(part(name, paired_drop, [{"strided": x, "other": y} for x, y in zip(s, b)],
                              [{"strided": x, "other": y} for x, y in zip(s, n)], Rule(">", DROP),
                              "the unblurred twin (the strided CNN's function) in the blurred CNN's place, same "
                              "seeds and images" + ("" if source is per_image else ", on the logits")))
            if source is per_image:
                drops[t] = parts[-1]
    lee = {k: seed_mean(v) for k, v in per_image.items()}
    share = {k: _mean(v) for k, v in shares.items()}
    history = {}
    for version in (1, 2):
        got = alias_old_parts(lee, share, version)
        null_got = alias_old_parts(lee, share, version, blurred=NOBLUR)
        history[version] = _history_entry(
            alias_old_met(got, version), alias_old_met(null_got, version),
            {k: _f(v, 3) for k, v in got.items() if k.endswith("below stride")}
            | {"null " + k: _f(v, 3) for k, v in null_got.items() if k.endswith("below stride")},
            f"on seed means over {len(per_image[('cnn-stride', ALIAS_TRANSFORMS[0])])} seeds: (b) "
            + ("standard errors of the difference above 2" if version == 1 else
               "one-standard-error bars apart (above 1)")
            + f"; (a) the shares on the layer-wise batch of {len(shares[('cnn-stride', ALIAS_TRANSFORMS[0])])} "
              f"seed(s) (quick decomposes the first only); the null: the unblurred twin in the blurred CNN's place")
    text = []
    for t in ALIAS_TRANSFORMS:
        p = drops[t]
        (a, sa), (b, sb), (n, sn) = (lee[(m, t)] for m in ("cnn-stride", "cnn-blur", NOBLUR))
        per_seed = ", ".join(f"{v:.3g}" for v in p.replicates)
        null_seed = ", ".join(f"{v:.3g}" for v in p.null_replicates)
        text.append(f"{t}: paired drop per seed {per_seed} (interval {p.interval[0]:.3g} to {p.interval[1]:.3g}, "
                    f"{'met' if p.holds else 'not met'}); the unblurred twin's {null_seed} "
                    f"({null_words(p)}).  Seed means: strided {a:.3g} +- {sa:.2g}, "
                    f"blurred {b:.3g} +- {sb:.2g} (blurred / strided {b / a:.2f}), twin {n:.3g} "
                    f"+- {sn:.2g}; downsampling + nonlinearity share strided {share[('cnn-stride', t)]:.3f}, "
                    f"blurred {share[('cnn-blur', t)]:.3f}, twin {share[(NOBLUR, t)]:.3f}.")
    text.append("Part (a) of v1-v2 is not judged: under periodic translation the circular stride-1 convolutions, "
                "the global pooling and the classifier commute exactly, so downsampling and nonlinearities carry all "
                "of |L|^2 in any such CNN (the twin too); the shares say which kind carries it.")
    for v in variants:
        text.append(f"Variant '{v['name']}' ({v['what']}): {v['measured']}, {'met' if v['holds'] else 'not met'} "
                    f"(reported, not judged).")
    names = ["cnn-stride", "cnn-blur", NOBLUR]
    evidence = [{"kind": "bar", "title": "Test LEE of the softmax probabilities under translation (seed mean; thesis "
                                         "Figure 4.6 left: Blur-Pool lowers it)", "ylabel": "LEE (per pixel^2)",
                 "labels": list(ALIAS_TRANSFORMS),
                 "series": {m: [_f(lee[(m, t)][0], 3) for t in ALIAS_TRANSFORMS] for m in names}},
                {"kind": "table", "title": "Paired drop LEE(strided) - LEE(other) per seed, on the same test images",
                 "columns": ["transformation", "other", "seed", "paired drop"],
                 "rows": [[t, other, k, _f(v, 3)] for t in ALIAS_TRANSFORMS
                          for other, vals in (("cnn-blur", drops[t].replicates), (NOBLUR, drops[t].null_replicates))
                          for k, v in enumerate(vals)]}]
    if kind_rows:
        evidence.append({"kind": "table", "title": "Share of |L|^2 per kind of layer (test inputs, seed mean; adds up "
                                                   "to 1 per model and transformation)",
                         "columns": ["model", "transformation", "kind", "share"],
                         "rows": [list(r[:3]) + [_f(r[3], 3)] for r in kind_rows]})
    measured = {t: {"paired drop": _f(drops[t].measured, 3), "twin": _f(drops[t].null_measured, 3),
                    "strided": _f(lee[("cnn-stride", t)][0], 3), "blurred": _f(lee[("cnn-blur", t)][0], 3)}
                for t in ALIAS_TRANSFORMS}
    return Outcome(measured=measured, settings=dict(settings or {}), evidence=evidence, note="  ".join(text),
                   criterion=ALIAS_CRITERION, parts=parts, accuracy=accuracy, variants=list(variants),
                   history=history, paper_settings=paper_settings,
                   replicates={"what": "seeds (training: split, weights, batch order), each a paired mean over the "
                                       "same test images", "claim": len(drops[ALIAS_TRANSFORMS[0]].replicates),
                               "null": len(drops[ALIAS_TRANSFORMS[0]].null_replicates)})


# ---------------------------------------------------------------------------------------------- lee-equivariance-gap
GAP_V1 = ("on the softmax probabilities, seed means, for the strided and the blurred CNN under translate-x, "
          "translate-y and rotation: LEE train < test < held-out digit class, and test < Gaussian noise "
          "(Figure 4.7's order)")
GAP_CRITERION = (f"on the softmax probabilities, per seed, over the strided and the blurred CNN under translate-x, "
                 f"translate-y and rotation: the mean over these six of log10 LEE(later set) / LEE(earlier set), "
                 f"the 95 % interval of its mean over seeds wholly above {GAP:g}, a part per step of Figure 4.7's "
                 f"order: (i) train < test, (ii) test < a held-out digit class, (iii) test < Gaussian noise")
GAP_NULL = ("the same models at initialisation (the seed's weights, untrained) on the same inputs, read by the same "
            "function: a step must not hold there (it would if the inputs alone made it)")
GAP_PARTS = tuple(name for _, _, name in STEPS)
GAP_LOGITS_PARTS = tuple(f"{name}, on the logits" for name in GAP_PARTS)
GAP_CRITERIA = (Criterion(1, GAP_V1, FIRST_REGISTERED),
                Criterion(2, GAP_CRITERION, "2026-11-27",
                          reason="issue 46: each step of the order judged on its own over seeds (v1: every cell on "
                                 "seed means, one reading of the whole order; quick read one seed), against the "
                                 "untrained models read by the same function",
                          thresholds=(("GAP", GAP),), parts=GAP_PARTS))


def assess_gap(draws: list, null_draws: list, settings: dict | None = None, accuracy: dict | None = None,
               variants=(), paper_settings: str = "", logits: tuple | None = None) -> Outcome:
    """``draws`` / ``null_draws``: per seed, {"model transform": {"train", "test", "heldout", "noise": LEE}} of the
    trained models and of the same models at initialisation; ``logits``: (draws, null_draws) on the class scores
    (the confound-controlled parts; None: the probabilities only)."""
    parts = [part(name, log_gap(low, high), draws, null_draws, Rule(">", GAP),
                  "the same models at initialisation, the same inputs") for low, high, name in STEPS]
    if logits is not None:
        parts += [part(name, log_gap(low, high), logits[0], logits[1], Rule(">", GAP),
                       "the same models at initialisation, the same inputs, on the logits")
                  for (low, high, _), name in zip(STEPS, GAP_LOGITS_PARTS)]
    cells = list(draws[0])
    mean = {k: {s: _mean(d[k][s] for d in draws) for s in SETS} for k in cells}
    null_mean = {k: {s: _mean(d[k][s] for d in null_draws) for s in SETS} for k in cells}
    history = {1: _history_entry(gap_met(mean), gap_met(null_mean),
                                 f"{sum(ordered(v) for v in mean.values())} of {len(mean)}",
                                 f"the whole order at every (model, transformation) on means over {len(draws)} "
                                 f"seeds; the null: the same at initialisation "
                                 f"({sum(ordered(v) for v in null_mean.values())} of {len(null_mean)})")}
    text = []
    for p in parts:
        text.append(f"{p.name}: per seed " + ", ".join(f"{v:.3g}" for v in p.replicates)
                    + f" (interval {p.interval[0]:.3g} to {p.interval[1]:.3g}, {'met' if p.holds else 'not met'}); "
                    f"at initialisation " + ", ".join(f"{v:.3g}" for v in p.null_replicates)
                    + f" ({null_words(p)}).")
    per_seed = [sum(ordered(d[k]) for k in cells) for d in draws]
    text.append(f"The whole order per cell: met at {', '.join(str(n) for n in per_seed)} of {len(cells)} cells per "
                f"seed; on seed means at {sum(ordered(v) for v in mean.values())} of {len(cells)}.")
    for v in variants:
        text.append(f"Variant '{v['name']}' ({v['what']}): {v['measured']}, {'met' if v['holds'] else 'not met'} "
                    f"(reported, not judged).")
    text.append("In-distribution sets are the digits' train and test split; the held-out class (digit 9, never "
                "trained on) stands for the thesis's near OOD set, Gaussian noise with the digits' pixel moments for "
                "its far one.  Probabilities saturate where the model is sure, which by itself lowers LEE on "
                "training inputs.")
    evidence = [{"kind": "bar", "title": f"LEE of the probabilities by input set, {k} (thesis Figure 4.7; seed mean, "
                                         f"trained and at initialisation)", "ylabel": "LEE", "logy": True,
                 "labels": list(SETS),
                 "series": {"trained": [_f(mean[k][s], 3) for s in SETS],
                            "at initialisation (null)": [_f(null_mean[k][s], 3) for s in SETS]}}
                for k in cells[:2]]
    evidence.append({"kind": "table", "title": "LEE by input set per seed (probabilities)",
                     "columns": ["model transformation", "model state", "seed", *SETS, "order met"],
                     "rows": [[k, state, i, *[_f(d[k][s], 3) for s in SETS], ordered(d[k])]
                              for k in cells for state, src in (("trained", draws),
                                                                ("initialisation (null)", null_draws))
                              for i, d in enumerate(src)]})
    measured = {p.name: _f(p.measured, 3) for p in parts}
    return Outcome(measured=measured, settings=dict(settings or {}), evidence=evidence, note="  ".join(text),
                   criterion=GAP_CRITERION, parts=parts, accuracy=accuracy, variants=list(variants),
                   history=history, paper_settings=paper_settings,
                   replicates={"what": "seeds (training: split, weights, batch order)", "claim": len(draws),
                               "null": len(null_draws)})


# ---------------------------------------------------------------------------------------------- the shared runs
def _cnn_settings(p) -> dict:
    return {"seeds": p["seeds"], "epochs": p["epochs"], "batch": p["batch"], "lr": p["lr"], "width": 16,
            "held-out class": HOLDOUT, "images per input set": p["samples"],
            "images in the layer-wise decomposition": p["layerwise_samples"], "measured in": "float64 (CPU)",
            "threads": 1, "interpolation": "bicubic, periodic (lab.equivariance.transforms defaults)"}


def _cnn_paper_settings(p) -> str:
    return (f"a small CNN on scikit-learn's 8 x 8 digits (width 16, {p['seeds']} seeds, {p['epochs']} epochs, "
            f"{p['samples']} images per input set) stands in for the thesis's pretrained ImageNet models; bicubic "
            f"periodic transformations (the thesis: bilinear, reflection padding)")


def untrained(entry: dict) -> str | None:
    """Why a seed's draw is invalid -- one of its CNNs did not train (test accuracy below ``TRAINED_MIN``) -- or None.

    >>> class T: test_accuracy = 0.089
    >>> untrained({"models": {"cnn-blur": T()}})
    'cnn-blur did not train (test accuracy 0.089 < 0.5)'
    """
    low = [(name, tr.test_accuracy) for name, tr in entry["models"].items() if tr.test_accuracy < TRAINED_MIN]
    return "; ".join(f"{name} did not train (test accuracy {acc:.3g} < {TRAINED_MIN:g})" for name, acc in low) or None


def trained_cnns(profile) -> list:
    """Per seed: the digits split, its input sets and the strided, blurred and unblurred (null) CNNs trained at the
    profile's settings (one torch thread); shared by the three CNN claims.  A seed whose CNN did not train
    (``untrained``) is an invalid draw, replaced by the next unused seed up to ``REPLACE_BUDGET`` times
    (``lab.reproduce.stats.replicate``); ``replaced_draws`` lists them."""
    p = plan(profile)

    def make():
        from ..control import Stopped
        from ..reproduce.stats import replicate
        from .aliasing import input_sets
        from .cnn import TrainSettings, digits_data

        settings = TrainSettings(p["epochs"], p["batch"], p["lr"])
        names = (*CNNS, NOBLUR) + (("cnn-smooth",) if p["smooth"] else ())
        count = {"k": 0}

        def draw(seed):
            data = digits_data(seed, holdout=HOLDOUT)
            entry = {"seed": seed, "data": data, "inputs": input_sets(data, SETS, p["samples"], seed), "models": {}}
            for name in names:
                profile.checkpoint()
                profile.progress(min(count["k"] / (len(names) * p["seeds"]), 1.0), f"training {name} (seed {seed})")
                tr = train_cnn(name, data, settings, seed, profile.device, profile.control)
                if tr.status == "stopped":
                    raise Stopped()
                entry["models"][name] = tr
                count["k"] += 1
            return entry

        with _one_thread():
            out, _, invalid = replicate(draw, profile.seeds(p["seeds"], p["seeds"]), untrained, REPLACE_BUDGET)
        if not out:
            raise LabError(f"no seed's CNNs trained ({len(invalid)} seeds tried, the replacement budget spent): "
                           + "; ".join(f"seed {d['seed']}: {d['why']}" for d in invalid))
        return {"runs": out, "replaced": invalid}

    made = profile.memo(_cnns_key(profile), make, label=f"digits CNNs ({p['seeds']} seeds, {p['epochs']} epochs)")
    return made["runs"]


def _cnns_key(profile) -> tuple:
    """The memo key of the shared CNNs (``trained_cnns``, read back by ``replaced_draws``)."""
    return ("meter-cnns", profile.name, profile.seed)


def replaced_draws(profile) -> list:
    """The seeds ``trained_cnns`` found invalid and replaced ([{"seed", "why"}]; empty when every model trained or
    before it ran)."""
    made = profile.peek(_cnns_key(profile))
    return list(made["replaced"]) if made else []


def _accuracy(runs) -> dict:
    models = runs[0]["models"]
    acc = {m: _f(_mean(r["models"][m].test_accuracy for r in runs), 3) for m in models}
    return {"digits (test accuracy, seed mean)": acc | {"chance": _f(1 / runs[0]["data"].classes, 3)},
            "digits (test accuracy per seed)": {m: [_f(r["models"][m].test_accuracy, 3) for r in runs]
                                                for m in models},
            "digits (training accuracy, seed mean)": {m: _f(_mean(r["models"][m].train_accuracy for r in runs), 3)
                                                      for m in models}}


def per_image_lee(profile, output: str = "probs", untrained: bool = False) -> dict:
    """{(seed, model, transform, input set): per-image LEE (numpy, float64)} of the shared CNNs: the strided and
    blurred CNNs on every set and transformation (the logits on the test set under translation unless the profile
    measures them everywhere), the unblurred twin on the test set under translation; ``untrained``: the strided and
    blurred CNNs at initialisation."""
    p = plan(profile)
    runs = trained_cnns(profile)

    def make():
        from .aliasing import measurable
        from .cnn import DEFAULT_WIDTH, build
        from ..equivariance.lie import lee_per_input
        from ..equivariance.transforms import ImageTransform

        out = {}
        with _one_thread():
            for r in runs:
                for name, tr in r["models"].items():
                    if name == "cnn-smooth" and output != "probs":
                        continue
                    if name not in CNNS and (untrained or (output != "probs" and name != NOBLUR)):
                        continue  # the unblurred twin (lee-aliasing's null): trained, on the test set
                    model = build(name, DEFAULT_WIDTH, r["data"].classes, r["seed"]) if untrained else tr.model
                    net = measurable(model, output)
                    everywhere = name in CNNS and (output == "probs" or p["logits_everywhere"])
                    sets = SETS if everywhere else ("test",)
                    for t in (GAP_TRANSFORMS if everywhere else ALIAS_TRANSFORMS):
                        T = ImageTransform(t)
                        for s in sets:
                            profile.checkpoint()
                            x = r["inputs"][s].detach().cpu().double()
                            out[(r["seed"], name, t, s)] = lee_per_input(net, x, T).detach().numpy()
        return out

    return profile.memo(("meter-lee", profile.name, profile.seed, output, untrained), make,
                        label="LEE per image of the digits CNNs "
                              f"({output}{', at initialisation' if untrained else ''})")


def decompositions(profile) -> dict:
    """{(seed, model, transform): the layer-wise decomposition's summary} on the first ``layerwise_samples`` test
    images (probabilities): ``L`` (the Lie derivative), ``vector`` (sum_i C_i), ``norms`` (the norms laid along L),
    ``largest`` (its largest layer's name and mean |C| / |L|), ``shares`` ({layer kind: share of |L|^2}), ``layers``
    ([name, kind, E|C_i|]).  At the first seed the strided and blurred CNNs under the profile's
    ``layerwise_transforms`` (quick: translation; full: rotation too) and the twin under translation; at the later
    seeds the strided and blurred CNNs under ``layerwise_later`` and the twin under translation only in the full
    profile."""
    p = plan(profile)
    runs = trained_cnns(profile)

    def make():
        import torch

        from .aliasing import kind_summary, measurable
        from .cnn import layer_kind
        from .layerwise import layerwise_lie_derivative
        from ..equivariance.transforms import ImageTransform

        out = {}
        with _one_thread():
            for r in runs:
                x = r["inputs"]["test"][:p["layerwise_samples"]].detach().cpu().double()
                later = r is not runs[0]
                for name in (*CNNS, NOBLUR):
                    if name == NOBLUR and later and not profile.full:
                        continue
                    net = measurable(r["models"][name].model, "probs")
                    modules = dict(net.named_modules())
                    for t in (ALIAS_TRANSFORMS if name == NOBLUR else
                              p["layerwise_later"] if later else p["layerwise_transforms"]):
                        profile.checkpoint()
                        d = layerwise_lie_derivative(net, x, ImageTransform(t))
                        L = d.total
                        norm = torch.linalg.vector_norm(L.reshape(len(x), -1), dim=1)
                        ok = norm > 0
                        big = max(d.layers, key=lambda c: c.norm)
                        drop = float((torch.linalg.vector_norm(big.contribution.reshape(len(x), -1), dim=1)[ok]
                                      / norm[ok]).mean()) if ok.any() else math.nan
                        mis = float(((sum(c.norms for c in d.layers) - norm).abs()[ok] / norm[ok]).mean()) \
                            if ok.any() else math.nan
                        out[(r["seed"], name, t)] = {
                            "L": L, "vector": vector_sum(d), "norms": norms_along(d),
                            "largest": (big.name[4:] if big.name.startswith("net.") else big.name, drop),
                            "norm mismatch": mis,
                            "shares": {k["layer_kind"]: k["share"] for k in kind_summary(net, d)},
                            "layers": [[c.name[4:] if c.name.startswith("net.") else c.name,
                                        layer_kind(modules[c.name.split("#")[0]])
                                        if c.name.split("#")[0] in modules else "other", c.norm]
                                       for c in d.layers]}
        return out

    return profile.memo(("meter-layerwise", profile.name, profile.seed), make,
                        label="layer-wise decompositions of the digits CNNs")


# ---------------------------------------------------------------------------------------------- the claims
@claim("lee-zero-for-equivariant", "thesis", "§4.4, appendix A.3.1.1",
       "If for all i = 1, ..., d: L_{X_i}(f) = 0 (and the exponential map is surjective) then for all g in G: "
       "f(rho_1(g)x) = rho_2(g)f(x) and for all x in the domain, and vice versa.",
       paper_value="the Lie derivative along every generator is zero for an equivariant model",
       seconds={"quick": 6, "full": 12}, criterion=ZERO_CRITERION, null=ZERO_NULL, criteria=ZERO_CRITERIA,
       paper_settings="EMLPs over O(3) and SO(2) and MLPs with the same reps, drawn at 3 seeds, on Gaussian inputs "
                      "(the thesis states the identity, appendix A.3.1.1; no experiment)",
       chosen_on=("the lab lie-derivative presets emlp-o3 and emlp-so2 and their MLP twins, untrained, in float64; "
                  "nothing tuned (no record of tuning; the meter's quick training settings do not enter)"))
def measure_zero(profile) -> Outcome:
    import torch

    from .presets import PRESET_CHANNELS, PRESET_LAYERS, build_model
    from ..groups import parse_group
    from ..nn.models import MLP

    p = plan(profile)
    draws, null_draws = {m: [] for m in ZERO_MODELS}, {m: [] for m in ZERO_MODELS}
    seeds = profile.seeds(p["zero_seeds"], p["zero_seeds"])
    with _one_thread():
        for name, (group, rin, rout) in ZERO_MODELS.items():
            for seed in seeds:
                profile.checkpoint()
                model = build_model(name, seed)
                if NULL_OF[name] == "mlp-o3":
                    null_model = build_model("mlp-o3", seed)
                else:
                    with torch.random.fork_rng(devices=[]):
                        torch.manual_seed(seed)
                        null_model = MLP(rin, rout, parse_group(group), channels=PRESET_CHANNELS,
                                         layers=PRESET_LAYERS, dtype=torch.float64).eval()
                g = torch.Generator().manual_seed(seed)
                x = torch.randn(p["zero_samples"], model.rep_in.size, dtype=torch.float64, generator=g)
                draws[name].append({"seed": seed, "relative": relative_lee(model, x)})
                null_draws[name].append({"seed": seed, "relative": relative_lee(null_model, x)})
    settings = {"models": {m: f"EMLP {v[1]} -> {v[2]} over {v[0]}" for m, v in ZERO_MODELS.items()},
                "channels": PRESET_CHANNELS, "layers": PRESET_LAYERS, "inputs": f"{p['zero_samples']} Gaussian",
                "seeds": seeds, "dtype": "float64", "threads": 1}
    return assess_zero(draws, null_draws, settings,
                       f"EMLPs over O(3) and SO(2) and MLPs with the same reps ({PRESET_CHANNELS} channels, "
                       f"{PRESET_LAYERS} layers), drawn at {len(seeds)} seeds, on {p['zero_samples']} Gaussian inputs "
                       f"(the thesis states the identity, appendix A.3.1.1; no experiment)")


@claim("lee-layerwise-sums", "thesis", "§4.4, eq. 4.6",
       "L_X(NN) = sum_{i=1}^N df_{N:i+1} L_X f_i.  Importantly, the sum of norms may differ from the norm of the sum.",
       paper_value="the contributions C_i = df_{N:i+1} L_X f_i add up to the model's Lie derivative (as vectors)",
       seconds={"quick": 12, "full": 200}, kind="lab", criterion=SUMS_CRITERION, null=SUMS_NULL,
       criteria=SUMS_CRITERIA,
       paper_settings="trained digits CNNs (8 x 8 digits, 3 seeds) stand in for the thesis's pretrained ImageNet "
                      "models; exact contributions, not the thesis's probe estimates of their norms",
       chosen_on=tuning.chosen_on("meter-quick-training"), retuned_from=DECLARED_TRAINING)
def measure_sums(profile) -> Outcome:
    p = plan(profile)
    runs = trained_cnns(profile)
    dec = decompositions(profile)
    draws, null_draws, rows, old_null, drop, largest = [], [], [], {}, {}, {}
    first = runs[0]["seed"]
    for (seed, m, t), d in dec.items():
        if m not in CNNS:
            continue
        key = f"{m} {t}"
        draws.append({"key": key, "seed": seed, "L": d["L"], "S": d["vector"]})
        null_draws.append({"key": key, "seed": seed, "L": d["L"], "S": d["norms"]})
        old_null.setdefault(key, []).append(d["norm mismatch"])
        drop.setdefault(key, []).append(d["largest"][1])
        largest[key] = d["largest"][0]
        if seed == first:
            rows += [[m, t, *layer] for layer in d["layers"]]
    out = assess_sums(draws, null_draws, dict(_cnn_settings(p), transforms=list(p["layerwise_transforms"]),
                                              inputs=f"the first {p['layerwise_samples']} test images"), rows,
                      _cnn_paper_settings(p) + "; exact contributions, not the thesis's probe estimates of their "
                                               "norms", {k: _mean(v) for k, v in old_null.items()})
    out.variants = [{"name": f"without {largest[k]}", "what": f"{k}: the decomposition with its largest layer left "
                                                               f"out, mean |C_largest| / |L| (seed mean)",
                     "measured": _f(_mean(v), 3), "holds": _mean(v) <= SUM_TOL} for k, v in drop.items()]
    out.accuracy = _accuracy(runs)
    with_replaced(out.parts, replaced_draws(profile))
    return out


@claim("lee-aliasing", "thesis", "§4.5-4.6, Figures 4.4 and 4.6",
       "In all the CNNs, much of the equivariance error comes from downsampling and non-linearities (Figure 4.4).  "
       "Blur-Pool [Zhang 2019], an architectural change to improve equivariance, decreases the equivariance error "
       "(Figure 4.6).",
       paper_value="Figure 4.4: downsampling and non-linearities carry much of the error in every CNN; Figure 4.6: "
                   "Blur-Pool lowers ResNet-50's translation LEE (its numbers are not in the text)",
       seconds={"quick": 15, "full": 60}, criterion=ALIAS_CRITERION, null=ALIAS_NULL, criteria=ALIAS_CRITERIA,
       paper_settings="a strided and a Blur-Pool CNN on 8 x 8 digits (3 seeds) stand in for ResNet-50 with and "
                      "without Blur-Pool on ImageNet (Figure 4.6)",
       chosen_on=tuning.chosen_on("meter-quick-training") + ALIAS_V2_NOTE,
       retuned_from=DECLARED_TRAINING + ALIAS_V2_NOTE,
       later=(extends("  Part (b) judged on the logits too, a part per translation, against the same null on the "
                      "logits: " + CONFOUND + ".", LOGITS_DATE,
                      "issue 62: " + CONFOUND + "; the probabilities' parts kept beside them", ALIAS_LOGITS_PARTS),))
def measure_aliasing(profile) -> Outcome:
    p = plan(profile)
    runs = trained_cnns(profile)
    lee = per_image_lee(profile, "probs")
    dec = decompositions(profile)
    seeds = [r["seed"] for r in runs]
    per_image = {(m, t): [lee[(s, m, t, "test")] for s in seeds] for m in (*CNNS, NOBLUR) for t in ALIAS_TRANSFORMS}
    # downsampling + nonlinearity shares (reported; v1-v2's part (a)) at the seeds decomposed (quick: the first)
    share_seeds = [s for s in seeds if all((s, m, t) in dec for m in (*CNNS, NOBLUR) for t in ALIAS_TRANSFORMS)]
    carry = {(m, t): [dec[(s, m, t)]["shares"].get("downsampling", 0.0)
                      + dec[(s, m, t)]["shares"].get("nonlinearity", 0.0) for s in share_seeds]
             for m in (*CNNS, NOBLUR) for t in ALIAS_TRANSFORMS}
    drop_rule = Rule(">", DROP)

    def drops(source, t, other="cnn-blur"):
        return [paired_drop({"strided": source[(s, "cnn-stride", t, "test")], "other": source[(s, other, t, "test")]})
                for s in seeds]

    variants = []
    rot = drops(lee, "rotate")
    rot_share = {m: _mean(dec[(s, m, "rotate")]["shares"].get("downsampling", 0.0)
                          + dec[(s, m, "rotate")]["shares"].get("nonlinearity", 0.0) for s in seeds) for m in CNNS
                 if (seeds[0], m, "rotate") in dec}  # the full profile decomposes rotation too
    variants.append({"name": "rotation", "what": "the paired drop under rotation, per seed (not judged: the 3 x 3 "
                                                 "convolutions are not rotation-equivariant)"
                                                 + (", and the shares" if rot_share else ""),
                     "measured": {"paired drop per seed": [_f(v, 3) for v in rot],
                                  **{f"{m} share": _f(v, 3) for m, v in rot_share.items()}},
                     "holds": drop_rule.judge(rot)[0]})
    logits = per_image_lee(profile, "logits")
    logits_per_image = {(m, t): [logits[(s, m, t, "test")] for s in seeds] for m in (*CNNS, NOBLUR)
                        for t in ALIAS_TRANSFORMS}
    variants.append({"name": "part (a) of v1-v2", "what": "downsampling + nonlinearity share of |L|^2, mean over "
                                                          f"seeds {', '.join(str(s) for s in share_seeds)} (1 by "
                                                          "construction under periodic translation; not judged)",
                     "measured": {f"{m} {t}": _f(_mean(v), 3) for (m, t), v in carry.items()},
                     "holds": all(_mean(v) > MOST for (m, _), v in carry.items() if m in CNNS)})
    if "cnn-smooth" in runs[0]["models"]:
        zs = {t: drops(lee, t, "cnn-smooth") for t in ALIAS_TRANSFORMS}
        variants.append({"name": "smooth activation", "what": "SiLU in place of ReLU: the paired drop against the "
                                                              "strided CNN (not a claim of the thesis)",
                         "measured": {f"{t} paired drop per seed": [_f(v, 3) for v in vals] for t, vals in zs.items()},
                         "holds": all(drop_rule.judge(v)[0] for v in zs.values())})
    kind_rows = []
    for m in (*CNNS, NOBLUR):
        for t in ALIAS_TRANSFORMS:
            kinds = dec[(seeds[0], m, t)]["shares"]
            for k in kinds:
                v = _mean(dec[(s, m, t)]["shares"][k] for s in share_seeds)
                if abs(v) > 5e-3:
                    kind_rows.append([m, t, k, v])
    out = assess_aliasing(per_image, carry, _cnn_settings(p), _accuracy(runs), variants, kind_rows,
                          _cnn_paper_settings(p) + "; ResNet-50 with and without Blur-Pool on ImageNet in the "
                                                   "thesis (Figure 4.6)", logits=logits_per_image)
    with_replaced(out.parts, replaced_draws(profile))
    return out


@claim("lee-equivariance-gap", "thesis", "§4.6, Figure 4.7",
       "We find that vision models do indeed have an equivariance gap: models are less equivariant on test data than "
       "train, and this gap grows for OOD inputs as shown in Figure 4.7.",
       paper_value="Figure 4.7: LEE train < test < CIFAR-100 < out-of-distribution medical images, for CNNs and ViTs "
                   "(its numbers are not in the text)",
       seconds={"quick": 8, "full": 20}, criterion=GAP_CRITERION, null=GAP_NULL, criteria=GAP_CRITERIA,
       paper_settings="digits CNNs (3 seeds) with digit 9 held out and Gaussian noise stand in for ImageNet train / "
                      "test, CIFAR-100 and two medical sets over pretrained CNNs and ViTs (Figure 4.7)",
       chosen_on=tuning.chosen_on("meter-quick-training"), retuned_from=DECLARED_TRAINING,
       later=(extends("  Each step judged on the logits too, against the untrained models' logits: " + CONFOUND + ".",
                      LOGITS_DATE, "issue 62: " + CONFOUND + " (training inputs are the ones a model is surest of); "
                      "the probabilities' parts kept beside them", GAP_LOGITS_PARTS),))
def measure_gap(profile) -> Outcome:
    p = plan(profile)
    runs = trained_cnns(profile)
    seeds = [r["seed"] for r in runs]

    def by_seed(source):
        return [{f"{m} {t}": {s: float(source[(seed, m, t, s)].mean()) for s in SETS} for m in CNNS
                 for t in GAP_TRANSFORMS} for seed in seeds]

    draws = by_seed(per_image_lee(profile, "probs"))
    null_draws = by_seed(per_image_lee(profile, "probs", untrained=True))
    logits = by_seed(per_image_lee(profile, "logits"))
    null_logits = by_seed(per_image_lee(profile, "logits", untrained=True))
    met = [sum(ordered(d[k]) for k in d) for d in logits]
    variants = [{"name": "logits, the whole order", "what": "the whole order per cell on the class scores, per seed",
                 "measured": f"{', '.join(str(n) for n in met)} of {len(logits[0])}",
                 "holds": all(n == len(logits[0]) for n in met)}]
    out = assess_gap(draws, null_draws, dict(_cnn_settings(p), transforms=list(GAP_TRANSFORMS)), _accuracy(runs),
                     variants, _cnn_paper_settings(p) + "; ImageNet train / test, CIFAR-100 and two medical sets "
                                                        "over pretrained CNNs and ViTs in the thesis (Figure 4.7)",
                     logits=(logits, null_logits))
    with_replaced(out.parts, replaced_draws(profile))
    return out
