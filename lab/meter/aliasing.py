"""The aliasing study: which small CNN on the digits is least equivariant, which layers carry the error, and the
equivariance gap between training, test and out-of-distribution inputs (thesis sections 4.2, 4.5-4.6, Figures 4.4,
4.6 and 4.7).

For each variant of ``lab.meter.cnn.MODELS`` and seed, ``run`` trains the model on a fixed split of the digits
(one class held out, below) and measures, in float64:

* ``LEE`` (eq. 4.4, ``lab.equivariance.lie.lee``) under each transformation (default translate-x, translate-y, rotate;
  units per pixel and per radian, ``lab.equivariance.transforms``) on each input set, with its standard error over inputs;
* on the test inputs, the layer-wise decomposition ``L_X f = sum_i C_i`` (eq. 4.6, ``lab.meter.layerwise``), each
  ``C_i`` exact (one Jacobian-vector product per layer, not probes), summed per kind of layer
  (``lab.meter.cnn.LAYER_KINDS``: conv, downsampling, nonlinearity, pooling, linear, other).  Two summaries per
  kind ``k`` with vector ``C_k = sum_{i in k} C_i``:

  - ``share``: ``E<C_k, L> / E|L|^2``, the kind's part of ``|L|^2`` -- these add up to exactly 1 over the kinds
    (since ``sum_k C_k = L``), so "downsampling and nonlinearities carry most of the error" is a statement about
    numbers that add up; a share is negative when a kind cancels error made elsewhere;
  - ``norm``: ``E|C_k|``, what the thesis plots (Figure 4.4); these need not add up (only ``|L| <= sum |C_k|``).

Outputs.  The thesis measures the Lie derivative of the softmax probabilities (appendix A.3.1.3): ``output="probs"``
(default) appends a softmax, whose own Lie derivative is zero (its input is invariant) so the layer list is the
network's; ``"logits"`` measures the class scores.  Probabilities saturate on confident inputs, which by itself
lowers LEE where the model is sure (mostly training inputs): report both when reading the gap.

Input sets (``INPUTS``): ``train`` and ``test`` (the split's), and two out-of-distribution sets:

* ``heldout``: the digits of the class left out of training (``holdout``, default 9): real digits, the same pixel
  grid, strokes and spectrum, but a shape the model never saw -- the nearer kind of OOD, as the thesis's CIFAR-100
  is to ImageNet;
* ``noise``: Gaussian images with the training digits' per-pixel mean and standard deviation: far off the manifold,
  and (independent pixels) with a flat spectrum, so more high-frequency content for downsampling and activations to
  alias -- the farther kind, as the thesis's medical images are.

Each set is measured on its first ``samples`` images (all of a smaller set); the same images for every model.

Nothing here is tuned to make the thesis's rankings hold: ``summarize`` reports whether they do (per transformation
and in the mean over seeds).  What the defaults gave (seeds 0-2, width 16, 100 epochs, 256 images per set, CPU,
float64 measurement; test accuracy 0.974 stride, 0.941 blur, 0.972 smooth, 0.957 blur-smooth; 14 345 parameters
each), test LEE of the probabilities / of the logits, mean over seeds:

==============  ==================  ==================  ==================
model           translate-x         translate-y         rotate
==============  ==================  ==================  ==================
cnn-stride      0.154  / 160        0.093  / 127        0.41 / 1170
cnn-blur        0.023  / 18.5       0.021  / 13.0       1.07 / 533
cnn-smooth      0.127  / 171        0.087  / 134        0.55 / 1180
cnn-blur-smooth 0.050  / 26.6       0.026  / 17.3       1.08 / 567
==============  ==================  ==================  ==================

* Blur-Pool lowers translation LEE in every seed, probabilities and logits alike (7-10x on the logits).  Under
  rotation it lowers the logits' LEE (3/3 seeds) but not the probabilities' (0/3): the strided models are more
  confident, and a saturated softmax hides its logits' error.
* The smooth activation (SiLU) does not lower LEE after training (probabilities 1-2 of 3 seeds per translation, 0/3
  for rotation; logits 1-2/3, 2/3); untrained, with the same weights, it does by 5-40x in every seed tried (and so
  does Blur-Pool): training undoes the activation's advantage here.
* Which layers: under translation, downsampling + nonlinearities carry all of ``|L|^2`` in every model and seed
  (the stride-1 circular convolutions commute exactly); the strided convolutions take 0.93-0.96 of it in the strided
  models (mean over seeds; 0.84-1.20 per seed, the activations' share going negative where it cancels), and with
  Blur-Pool the activations take 0.96-1.00 (blur layers 0.00-0.04): the blur removes the downsampling's share and
  leaves the nonlinearities'.  Under rotation the 3 x 3 convolutions are not rotation-equivariant and carry
  0.10-0.38 (strided) to 0.72-0.97 (blurred) of it per seed, so "downsampling and nonlinearities carry most" fails
  for rotation in the blurred models.
* The equivariance gap (Figure 4.7): on the probabilities train < test < held-out class, and test < noise, in 3/3
  seeds for nearly every model and transformation (train LEE ~1e-4 where training accuracy is 1.0); on the logits
  there is no gap (0/3 seeds for every model and transformation: train and test within 13 % of each other, the
  held-out class and the noise as often below test as above): here the gap is the softmax's saturation on inputs
  the model is sure of, not a less equivariant map off the training data.
* The meter's setting matters for the first finding: with the thesis's bilinear interpolation (section 4.6) Blur-Pool's
  advantage shrinks to 2-3x on translate-x and vanishes on translate-y (logits, 3 seeds), with circular or
  reflection padding alike (padding changes nothing here).  A likely cause, not investigated further: the
  bilinear right derivative is a one-sided difference, centred half a pixel off at each resolution, so a 4 x 4
  feature map and the 8 x 8 input are moved about points half a pixel apart in input units -- an error of the
  representation that no low-pass filter removes.  Bicubic's derivative is centred at every size.
* On 2 x 2 maps the periodic bicubic translation generator is exactly zero (the taps at +-1 pixel coincide), so the
  layers after the second downsampling carry no translation error in this representation; it is attributed upstream
  (the sum is unaffected).
"""
from __future__ import annotations

import copy
import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import nn

from ..config import Config, ConfigError, option
from .cnn import (CONV_PADDINGS, DEFAULT_BATCH, DEFAULT_BLUR, DEFAULT_EPOCHS, DEFAULT_LR, DEFAULT_WIDTH, LAYER_KINDS,
                  MODELS, TrainSettings, digits_data, layer_kind, parameter_count, train)
from .layerwise import layerwise_lie_derivative
from ..equivariance.lie import lee_per_input
from ..equivariance.transforms import INTERPOLATIONS, PADDINGS, TRANSFORMS, ImageTransform, MeterError

#: the input sets, nearest the training data first (Figure 4.7's order)
INPUTS = ("train", "test", "heldout", "noise")
#: what the Lie derivative is taken of
STUDY_OUTPUTS = ("probs", "logits")
DEFAULT_TRANSFORMS = ("translate-x", "translate-y", "rotate")


@dataclass
class AliasingConfig(Config):
    """The study's settings (defaults: about 4 minutes on one CPU core for the four models and 3 seeds)."""

    models: tuple[str, ...] = option(tuple(MODELS), "comma list of the CNN variants", choices=tuple(MODELS))
    transforms: tuple[str, ...] = option(DEFAULT_TRANSFORMS, "comma list of transformations", choices=TRANSFORMS)
    inputs: tuple[str, ...] = option(INPUTS, "comma list of input sets (train, test, heldout class, noise)",
                                     choices=INPUTS)
    seeds: int = option(3, "seeds per model (split, weights and batch order)", low=1, high=20)
    seed: int = option(0, "first seed", low=0)
    width: int = option(DEFAULT_WIDTH, "channels of the first convolution (then 2x, 2x)", low=1, high=256)
    epochs: int = option(DEFAULT_EPOCHS, "training epochs", low=1, high=1000)
    batch: int = option(DEFAULT_BATCH, "batch size", low=1, high=4096)
    lr: float = option(DEFAULT_LR, "Adam learning rate", low=0, positive=True)
    holdout: int | None = option(9, "digit class kept out of training (the 'heldout' inputs); none: train on all",
                                 low=0, high=9)
    samples: int = option(256, "images per input set in each measurement", low=2, high=100_000)
    output: str = option("probs", "probs: softmax probabilities (the thesis); logits: class scores",
                         choices=STUDY_OUTPUTS)
    interpolation: str = option(INTERPOLATIONS[0], "image resampling of the transformations", choices=INTERPOLATIONS)
    padding: str = option(PADDINGS[0], "what the transformations read outside the image", choices=PADDINGS)
    conv_padding: str = option("circular", "the convolutions' padding", choices=CONV_PADDINGS)
    blur: int = option(DEFAULT_BLUR, "BlurPool's binomial filter size", low=1, high=7)
    layerwise: bool = option(True, "decompose the test-input Lie derivative by layer")
    device: str = option("auto", "training device: auto (CUDA when present), cpu or cuda")

    def check(self):
        if "heldout" in self.inputs and self.holdout is None:
            raise ConfigError("the 'heldout' inputs need a held-out class: give holdout or drop heldout from inputs")
        if self.interpolation == "fourier":
            bad = [t for t in self.transforms if t not in ("translate-x", "translate-y", "brighten")]
            if bad:
                raise ConfigError(f"fourier interpolation shifts images: {bad[0]} needs bicubic or bilinear")
        if len(set(self.models)) != len(self.models) or len(set(self.transforms)) != len(self.transforms):
            raise ConfigError("models and transforms must not repeat")

    def settings(self) -> TrainSettings:
        return TrainSettings(self.epochs, self.batch, self.lr)

    def train_size(self) -> int:
        """Training images of every split (the same count for every seed)."""
        return len(digits_data(self.seed, holdout=self.holdout).x_train)

    def total_steps(self) -> int:
        """Optimiser steps of the whole study, exact."""
        return len(self.models) * self.seeds * self.settings().steps(self.train_size())

    def measurements(self) -> int:
        """Lie-derivative measurements (one per model, seed, transformation and input set; the layer-wise
        decomposition of the test set counts as one more each)."""
        per = len(self.inputs) + (self.layerwise and "test" in self.inputs)
        return len(self.models) * self.seeds * len(self.transforms) * per


@dataclass
class AliasingResult:
    """What ``run`` returns: the validated ``config``, every measurement as a row, and their ``summary``.

    ``rows`` are plain dicts, each with its model and seed, told apart by ``"kind"``: ``"model"`` (parameters,
    train and test accuracy, steps, final loss), ``"lee"`` (one transformation on one input set: ``lee``,
    ``stderr``, ``n``), and with the layer-wise split ``"layer"`` (one per layer) and ``"layer-kind"`` (one per
    kind of layer), each with its ``norm`` and ``share`` (``measure``, ``kind_summary``).  ``summary`` is
    ``summarize(rows)``: the means over seeds and the thesis's rankings.  ``status`` is ``"finished"``, or
    ``"stopped"`` when ``control`` ended the study early (the rows then hold what was measured before).
    """

    config: AliasingConfig
    rows: list = field(default_factory=list)  # plain dicts, "kind": "model" | "lee" | "layer" | "layer-kind"
    summary: dict = field(default_factory=dict)
    status: str = "finished"


# ---------------------------------------------------------------------------------------------- measuring
def with_softmax(model: nn.Module) -> nn.Sequential:
    """``model`` followed by a softmax over classes (the thesis's outputs); the model's layers keep their names
    under ``net.``."""
    return nn.Sequential(OrderedDict(net=model, softmax=nn.Softmax(dim=1)))


def measurable(model: nn.Module, output: str = "probs") -> nn.Module:
    """A float64, eval-mode, CPU copy of ``model`` (and its softmax for ``"probs"``): the layer-wise sums then hold
    to ~1e-15 and the same numbers come out on any device."""
    if output not in STUDY_OUTPUTS:
        raise MeterError(f"unknown output {output!r}: choose one of {', '.join(STUDY_OUTPUTS)}")
    m = copy.deepcopy(model).cpu().double().eval()
    return with_softmax(m) if output == "probs" else m


def _strip(name: str) -> str:
    return name[4:] if name.startswith("net.") else name


def kind_contributions(model: nn.Module, decomposition) -> dict[str, torch.Tensor]:
    """The decomposition's ``C_i`` summed per kind of layer (``LAYER_KINDS``, every kind present, zeros for kinds
    the model lacks) plus ``"unattributed"``: these vectors add up to ``decomposition.total`` exactly."""
    modules = dict(model.named_modules())
    out = {k: torch.zeros_like(decomposition.total) for k in LAYER_KINDS}
    for c in decomposition.layers:
        name = c.name.split("#")[0]
        out[layer_kind(modules[name]) if name in modules else "other"] += c.contribution
    out["unattributed"] = decomposition.unattributed if decomposition.unattributed is not None \
        else torch.zeros_like(decomposition.total)
    return out


def _flat(t):
    return t.reshape(t.shape[0], -1)


def kind_summary(model: nn.Module, decomposition) -> list[dict]:
    """Per kind: ``share`` = ``E<C_k, L> / E|L|^2`` (adds up to 1 over kinds and unattributed), ``lee`` = ``E<C_k,
    L> / dim`` (adds up to the LEE), ``norm`` = ``E|C_k|`` (Figure 4.4's quantity), and the number of layers."""
    parts = kind_contributions(model, decomposition)
    L = _flat(decomposition.total)
    dim = L.shape[1]
    total_sq = float(L.pow(2).sum(1).mean())
    modules = dict(model.named_modules())
    counts = {k: 0 for k in parts}
    for c in decomposition.layers:
        name = c.name.split("#")[0]
        counts[layer_kind(modules[name]) if name in modules else "other"] += 1
    rows = []
    for k, C in parts.items():
        dot = float((_flat(C) * L).sum(1).mean())
        rows.append({"layer_kind": k, "layers": counts[k], "share": dot / total_sq if total_sq > 0 else float("nan"),
                     "lee": dot / dim, "norm": float(torch.linalg.vector_norm(_flat(C), dim=1).mean())})
    return rows


def _layer_rows(net: nn.Module, d) -> list[dict]:
    """Per hooked call: name (without the softmax wrapper's ``net.``), module class, kind, ``E|C_i|`` and
    ``E<C_i, L> / E|L|^2``."""
    L = _flat(d.total)
    total_sq = float(L.pow(2).sum(1).mean())
    modules = dict(net.named_modules())
    rows = []
    for c in d.layers:
        base = c.name.split("#")[0]
        dot = float((_flat(c.contribution) * L).sum(1).mean())
        rows.append({"name": _strip(c.name), "module": c.module,
                     "kind": layer_kind(modules[base]) if base in modules else "other",
                     "contribution": c.norm, "share": dot / total_sq if total_sq > 0 else float("nan")})
    return rows


def measure(model: nn.Module, inputs: dict[str, torch.Tensor], transforms=DEFAULT_TRANSFORMS, output: str = "probs",
            interpolation: str = INTERPOLATIONS[0], padding: str = PADDINGS[0], layerwise_on: str | None = "test",
            control=None, tick=None) -> list[dict]:
    """Rows for one trained model: ``{"kind": "lee", transform, inputs, lee, stderr, n}`` per transformation and input
    set, and with ``layerwise_on`` (an input set's name) ``"layer"`` rows (name, module, layer_kind, norm, share)
    and ``"layer-kind"`` rows (``kind_summary``) for that set.  ``tick()`` is called after each measurement."""
    from ..control import checkpoint

    net = measurable(model, output)
    rows = []
    for kind in transforms:
        T = ImageTransform(kind, interpolation, padding)
        for name, x in inputs.items():
            checkpoint(control)
            x64 = x.detach().cpu().double()
            per = lee_per_input(net, x64, T).detach()
            n = per.numel()
            rows.append({"kind": "lee", "transform": kind, "inputs": name, "lee": float(per.mean()),
                         "stderr": float(per.std() / math.sqrt(n)) if n > 1 else float("nan"), "n": int(n)})
            if tick:
                tick()
        if layerwise_on is not None and layerwise_on in inputs:
            checkpoint(control)
            x64 = inputs[layerwise_on].detach().cpu().double()
            d = layerwise_lie_derivative(net, x64, T)
            for r in _layer_rows(net, d):
                rows.append({"kind": "layer", "transform": kind, "inputs": layerwise_on, "layer": r["name"],
                             "module": r["module"], "layer_kind": r["kind"], "norm": r["contribution"],
                             "share": r["share"]})
            for r in kind_summary(net, d):
                rows.append({"kind": "layer-kind", "transform": kind, "inputs": layerwise_on, **r})
            if tick:
                tick()
    return rows


def lee_report(model: nn.Module, x: torch.Tensor, transform: str, output: str = "probs", layerwise: bool = False,
               interpolation: str = INTERPOLATIONS[0], padding: str = PADDINGS[0]) -> dict:
    """One model, one transformation, one batch: ``{"lee", "stderr", "n", "unit", "output", "layers"}`` with, when
    ``layerwise``, ``layers`` = ``[{"name", "module", "kind", "contribution", "share"}]`` in layer order
    (``contribution`` = ``E|C_i|``, the thesis's per-layer number; ``share`` = ``E<C_i, L> / E|L|^2``, adding up to
    1), else ``[]``.  What ``lab lie-derivative --json`` prints."""
    from ..equivariance.transforms import UNITS

    net = measurable(model, output)
    T = ImageTransform(transform, interpolation, padding)
    x64 = x.detach().cpu().double()
    per = lee_per_input(net, x64, T).detach()
    n = per.numel()
    out = {"lee": float(per.mean()), "stderr": float(per.std() / math.sqrt(n)) if n > 1 else float("nan"),
           "n": int(n), "unit": f"per {UNITS[transform]}", "output": output, "layers": []}
    if layerwise:
        out["layers"] = _layer_rows(net, layerwise_lie_derivative(net, x64, T))
    return out


def input_sets(data, names=INPUTS, samples: int = 256, seed: int = 0) -> dict[str, torch.Tensor]:
    """The first ``samples`` images of each named set of ``data`` (``lab.data.digits.DigitsData``); ``noise`` draws
    ``samples`` images (``DigitsData.noise``, seeded)."""
    out = {}
    for name in names:
        if name == "train":
            out[name] = data.x_train[:samples]
        elif name == "test":
            out[name] = data.x_test[:samples]
        elif name == "heldout":
            if len(data.x_heldout) == 0:
                raise MeterError("no held-out class in this split: build it with digits_data(holdout=...)")
            out[name] = data.x_heldout[:samples]
        elif name == "noise":
            out[name] = data.noise(samples, seed)
        else:
            raise MeterError(f"unknown input set {name!r}: choose one of {', '.join(INPUTS)}")
    return out


# ---------------------------------------------------------------------------------------------- the study
def run(config: AliasingConfig | None = None, progress=None, control=None) -> AliasingResult:
    """Train and measure every model and seed (see the module docstring); records stream to ``progress``:
    ``started``, ``progress`` (done/total in optimiser steps plus measurements), ``epoch`` and ``result``."""
    from ..control import Stopped
    from ..device import pick_device
    from ..control import progress_record

    config = (config or AliasingConfig()).validate()
    emit = progress or (lambda record: None)
    device = pick_device(config.device)
    settings = config.settings()
    steps_one = settings.steps(config.train_size())
    total = config.total_steps() + config.measurements()
    done = 0
    result = AliasingResult(config)
    emit({"kind": "started", "models": list(config.models), "seeds": config.seeds, "device": str(device),
          "total": total, "total_steps": config.total_steps()})
    t0 = time.monotonic()
    try:
        for s in range(config.seeds):
            seed = config.seed + s
            data = digits_data(seed, holdout=config.holdout)
            xs = input_sets(data, config.inputs, config.samples, seed)
            for name in config.models:
                def relay(rec, base=done, name=name, seed=seed):
                    emit(rec)
                    emit(progress_record(base + rec["done"], total, f"training {name} (seed {seed}): epoch "
                                                                   f"{rec['epoch']}/{rec['epochs']}"))

                tr = train(name, data, settings, seed, config.width, device, control, relay, config.conv_padding)
                if tr.status == "stopped":
                    raise Stopped()
                done += steps_one
                row = {"kind": "model", "model": name, "seed": seed, "params": parameter_count(tr.model),
                       "train_accuracy": tr.train_accuracy, "test_accuracy": tr.test_accuracy, "steps": tr.steps,
                       "final_loss": tr.losses[-1] if tr.losses else float("nan")}
                result.rows.append(row)
                emit({"kind": "result", **row})

                def tick(name=name, seed=seed):
                    nonlocal done
                    done += 1
                    emit(progress_record(done, total, f"measuring {name} (seed {seed})"))

                for r in measure(tr.model, xs, config.transforms, config.output, config.interpolation,
                                 config.padding, "test" if config.layerwise else None, control, tick):
                    r = {"model": name, "seed": seed, **r}
                    result.rows.append(r)
                    if r["kind"] == "lee":
                        emit({"kind": "result", **r})
    except Stopped:
        result.status = "stopped"
    result.summary = summarize(result.rows)
    emit(progress_record(done, total, f"{result.status} in {time.monotonic() - t0:.0f} s"))
    return result


def _mean(vals):
    vals = [v for v in vals if v is not None and math.isfinite(v)]
    return float(np.mean(vals)) if vals else float("nan")


def summarize(rows: list[dict]) -> dict:
    """Means over seeds and the thesis's rankings, each ``True``/``False`` (``None`` when a model or set is missing):

    * ``blur_below_stride`` / ``smooth_below_stride`` / ``blur_smooth_below_stride``: test LEE of the variant below
      ``cnn-stride``'s (Figures 4.4 and 4.6);
    * ``aliasing_layers_carry_most``: downsampling + nonlinearity share of ``|L|^2`` above 1/2 for every model;
    * ``gap``: LEE train < test < heldout, and test < noise (Figure 4.7);

    each per transformation, and per seed (``*_seeds``: how many seeds the ranking held in)."""
    models = list(dict.fromkeys(r["model"] for r in rows if r["kind"] == "model"))
    transforms = list(dict.fromkeys(r["transform"] for r in rows if r["kind"] == "lee"))
    seeds = sorted({r["seed"] for r in rows if r["kind"] == "model"})
    lee = {(r["model"], r["seed"], r["transform"], r["inputs"]): r["lee"] for r in rows if r["kind"] == "lee"}
    share = {(r["model"], r["seed"], r["transform"], r["layer_kind"]): r["share"] for r in rows
             if r["kind"] == "layer-kind"}
    out = {"models": {}, "rankings": {}}
    for m in models:
        acc = [r for r in rows if r["kind"] == "model" and r["model"] == m]
        entry = {"params": acc[0]["params"], "train_accuracy": _mean([r["train_accuracy"] for r in acc]),
                 "test_accuracy": _mean([r["test_accuracy"] for r in acc]), "lee": {}, "shares": {}}
        for t in transforms:
            entry["lee"][t] = {i: _mean([lee.get((m, s, t, i)) for s in seeds])
                               for i in INPUTS if any((m, s, t, i) in lee for s in seeds)}
            ks = {k: _mean([share.get((m, s, t, k)) for s in seeds]) for k in (*LAYER_KINDS, "unattributed")
                  if any((m, s, t, k) in share for s in seeds)}
            if ks:
                entry["shares"][t] = ks
        out["models"][m] = entry

    def held(pred):  # in the seed mean, and in how many seeds
        mean = pred(lambda key: _mean([lee.get((key[0], s, *key[1:])) for s in seeds]),
                    lambda key: _mean([share.get((key[0], s, *key[1:])) for s in seeds]))
        per = [pred(lambda key, s=s: lee.get((key[0], s, *key[1:]), float("nan")),
                    lambda key, s=s: share.get((key[0], s, *key[1:]), float("nan"))) for s in seeds]
        return {"mean": mean, "seeds": sum(bool(p) for p in per), "of": len(seeds)}

    def below(a, b, t):
        def pred(L, S):
            x, y = L((a, t, "test")), L((b, t, "test"))
            return None if not (math.isfinite(x) and math.isfinite(y)) else bool(x < y)
        return pred

    for t in transforms:
        r = {}
        for variant, key in (("cnn-blur", "blur_below_stride"), ("cnn-smooth", "smooth_below_stride"),
                             ("cnn-blur-smooth", "blur_smooth_below_stride")):
            if variant in models and "cnn-stride" in models:
                r[key] = held(below(variant, "cnn-stride", t))
        if share:
            def carry(L, S, t=t):
                vals = [S((m, t, "downsampling")) + S((m, t, "nonlinearity")) for m in models]
                return None if not all(math.isfinite(v) for v in vals) else all(v > 0.5 for v in vals)
            r["aliasing_layers_carry_most"] = held(carry)
        for m in models:
            def gap(L, S, m=m, t=t):
                v = {i: L((m, t, i)) for i in INPUTS}
                if not all(math.isfinite(v[i]) for i in ("train", "test", "heldout")):
                    return None
                ok = v["train"] < v["test"] < v["heldout"]
                return bool(ok and (not math.isfinite(v["noise"]) or v["test"] < v["noise"]))
            r[f"gap:{m}"] = held(gap)
        out["rankings"][t] = r
    return out


def table(result_or_rows) -> str:
    """The study as plain text: one line per model and transformation (accuracy, LEE per input set, shares)."""
    rows = result_or_rows.rows if isinstance(result_or_rows, AliasingResult) else result_or_rows
    s = summarize(rows)
    lines = []
    for m, e in s["models"].items():
        lines.append(f"{m}: {e['params']} parameters, accuracy train {e['train_accuracy']:.3f} test "
                     f"{e['test_accuracy']:.3f}")
        for t, v in e["lee"].items():
            lee = "  ".join(f"{i} {x:.3g}" for i, x in v.items())
            sh = e["shares"].get(t, {})
            shares = "  ".join(f"{k} {x:+.2f}" for k, x in sh.items() if k != "unattributed" and abs(x) > 5e-3)
            lines.append(f"  {t:12s} LEE {lee}" + (f"  | shares of |L|^2: {shares}" if shares else ""))
    for t, r in s["rankings"].items():
        lines.append(f"{t}: " + ", ".join(f"{k} {v['mean']} ({v['seeds']}/{v['of']} seeds)" for k, v in r.items()))
    return "\n".join(lines)
