"""Experiment family ``meter``: the equivariance meter as a command, ``lab lie-derivative`` (thesis chapter 4,
sections 4.4-4.6; issue 29).

One model, one transformation, one set of inputs: how equivariant is it, and (``--layerwise``) which layer breaks it.

* ``--model cnn-stride|cnn-blur|cnn-smooth|cnn-blur-smooth``: the small digits CNN of ``lab.meter.cnn`` in that
  variant, trained here on its seeded split of scikit-learn's digits (class 9 held out, as in the aliasing study,
  so that ``--inputs heldout`` exists; ``--epochs`` 100 by default, the study's: 1 900 Adam steps, 7-13 s on a shared
  2-core CPU, after which every variant reaches 0.94-0.97 test accuracy -- at 10 or 30 epochs the blurred variants
  underfit (0.65, 0.91 on seed 0), which would confound their LEE with their accuracy), then
  measured by ``lab.meter.aliasing.lee_report``: ``LEE = E_x |L_X f(x)|^2 / dim(out)`` (eq. 4.4) of the softmax
  probabilities (the thesis's outputs; ``--output logits`` for the class scores) under ``--transform`` on the first
  ``--samples`` images of ``--inputs`` (train, test, the held-out class, or pixel-statistics noise), in float64.
  ``--layerwise`` adds each layer's contribution ``C_i`` (eq. 4.6) in layer order: ``contribution`` = ``E|C_i|``
  (the thesis's per-layer number) and ``share`` = ``E<C_i, L> / E|L|^2``.  The vectors ``C_i`` add up to ``L_X f``
  exactly, so the shares add up to 1; the norms do not: only ``|L_X f| <= sum_i |C_i|`` holds.
* ``--model emlp-o3|emlp-so2|emlp-s4|mlp-o3|mlp-s4`` (``PRESETS``): a network over a group the engine knows, with its
  weights drawn at ``--seed`` (untrained: equivariance is a property of the architecture, not of training), on
  ``--samples`` Gaussian input vectors, in float64.  Only ``--transform generators`` applies: the Lie derivative
  along every Lie-algebra generator of the group (``lab.equivariance.lie.generator_lee``; ``"lee"`` is the *worst*
  generator's), and the relative error ``|f(rho_in(g) x) - rho_out(g) f(x)| / |f(x)|`` for the group's discrete
  generators and ``DISCRETE_ELEMENTS`` sampled elements (``discrete_equivariance_errors``; the mean over inputs per
  element).  A finite group (S(4)) has no Lie algebra: its ``"lee"`` is then the worst discrete relative error, and
  ``"measure"`` says which of the two ``"lee"`` holds.  An EMLP's numbers are zero to float64 rounding, an MLP's
  with the same reps are not.
* ``--model PATH``: a run saved by this command (``lab.meter.store``: its weights as ``weights.npz``, no pickle),
  whose model is measured again, not retrained: another transformation, other inputs, the layer-wise split.

Cost before work (``MeterConfig.costs``, in ``check()``): the exact training steps, input values (images x 64
pixels, vectors x the input rep's size) and measurements, and an estimate of the measurement's memory from the
model's own layer sizes, refused over the memory limit (``lab.limits.check_memory``) with one line.

>>> from lab.meter.family import FAMILY, MeterConfig
>>> out = FAMILY.summary(FAMILY.run(MeterConfig(model="emlp-o3", transform="generators", samples=16)))
>>> out["measure"], len(out["generators"]), out["lee"] < 1e-20
('lee', 3, True)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from ..config import SEED_HIGH, Config, ConfigError, option
from .presets import (BATCH, CNN_MODELS, EPOCHS, LR, MODELS, PRESET_CHANNELS,  # noqa: F401 (re-exported)
                             PRESET_LAYERS, PRESETS, WIDTH, Preset, build_model)
from ..experiments.family import Family, progress_record
from .cli import AUDIT

# These lists are ``lab.meter``'s, spelled here because ``lab --help`` imports no torch (and ``lab.meter`` does);
# tests/test_meter_family.py checks that they agree.
#: ``lab.equivariance.transforms.TRANSFORMS``: image flows (pixels, radians, log-scale, ...)
IMAGE_TRANSFORMS = ("translate-x", "translate-y", "rotate", "scale", "shear", "hyperbolic", "stretch", "brighten")
#: ``lab.meter.aliasing.INPUTS``
INPUTS = ("train", "test", "heldout", "noise")
#: ``lab.meter.aliasing.STUDY_OUTPUTS``
OUTPUTS = ("probs", "logits")
#: ``lab.equivariance.transforms.INTERPOLATIONS`` and ``PADDINGS`` (the first of each is the default)
INTERPOLATIONS = ("bicubic", "bilinear", "fourier")
PADDINGS = ("circular", "reflection", "border", "zeros")
GENERATORS = "generators"
TRANSFORMS = (*IMAGE_TRANSFORMS, GENERATORS)
#: the digits class kept out of training (the ``heldout`` inputs), the aliasing study's default
HOLDOUT = 9
#: sampled group elements of the discrete check (after the group's own discrete generators)
DISCRETE_ELEMENTS = 8
#: memory of a measurement per activation value, in float64 values: primal and tangent of every layer's output,
#: the layer-wise split's recorded inputs, own Lie derivatives and downstream tangents, autograd's graph for the
#: double-backward path (EMLP's bilinear layer): a generous bound, not a measurement
MEMORY_FACTOR = 8


def _model_help() -> str:
    presets = "; ".join(f"{k}: {p.description}" for k, p in PRESETS.items())
    return (f"a CNN trained here on the digits ({', '.join(CNN_MODELS)}), a matrix-group preset ({presets}), or "
            f"PATH: a run saved by lab lie-derivative (its model measured again, not retrained)")


@dataclass
class MeterConfig(Config):
    """The settings of one equivariance measurement (``lab lie-derivative``; Finzi's thesis, chapter 4, sections
    4.4-4.6): how equivariant one ``model`` is under one ``transform`` on one set of inputs, and with ``layerwise``
    which layer breaks it.

    Its fields are declared with ``option(...)``.  ``model`` is a CNN variant trained here on the digits, a
    matrix-group preset (``PRESETS``; only ``transform="generators"`` applies to those, and the CNN-only options
    keep their defaults), or the path of a run saved by this command, measured again, not retrained.  ``inputs``,
    ``samples``, ``output``, ``interpolation`` and ``padding`` say what is measured and how; ``seed``, ``epochs``
    and ``device`` how the CNN is trained.  ``check()`` refuses options that do not apply to the model and computes
    the run's exact sizes (``costs``), refused over the memory limit before any work.
    """

    model: str = option("cnn-stride", _model_help(), metavar="MODEL|PATH")
    transform: str = option("translate-x", "the transformation: an image flow (CNNs; units per pixel, per radian) "
                                           "or generators (the presets: every Lie-algebra generator of the group, "
                                           "and the discrete check)", choices=TRANSFORMS)
    layerwise: bool = option(False, "split the Lie derivative into each layer's contribution C_i (CNNs)")
    inputs: str = option("test", "the CNN's inputs: its training or test images, the held-out digit class, or noise "
                                 "with the training pixels' mean and deviation", choices=INPUTS)
    samples: int = option(256, "inputs measured (the first N of the set, all of a smaller one; the presets: N "
                               "Gaussian vectors)", low=1, high=100_000)
    seed: int = option(0, "seed of the data split, the weights, the batch order and the noise or Gaussian inputs",
                       low=0, high=SEED_HIGH)
    epochs: int = option(EPOCHS, f"the CNN's training epochs (batch {BATCH}, Adam {LR:g}; 19 steps an epoch)",
                         low=1, high=1000)
    output: str = option("probs", "what the CNN's Lie derivative is of: softmax probabilities (the thesis) or logits",
                         choices=OUTPUTS)
    interpolation: str = option(INTERPOLATIONS[0], "image resampling of the transformation (bicubic: C1, so the "
                                                   "derivative is two-sided)", choices=INTERPOLATIONS)
    padding: str = option(PADDINGS[0], "what the transformation reads outside the image", choices=PADDINGS)
    device: str = option("auto", "the CNN's training device: auto (CUDA when present), cpu or cuda (every "
                                 "measurement runs in float64 on the CPU)")

    def check(self) -> None:
        from ..device import check_device_name

        self.device = check_device_name(self.device)
        kind = self.model_kind()
        if kind in ("emlp", "mlp"):
            if self.transform != GENERATORS:
                raise ConfigError(f"--transform {self.transform} does not apply to {self.model} (a network on "
                                  f"vectors of {self.preset().rep_in} over {self.preset().group}): use --transform "
                                  f"generators")
            for name in ("layerwise", "inputs", "epochs", "output", "interpolation", "padding"):
                self._default_only(name, f"{self.model} (a matrix-group preset)")
        else:
            if self.transform == GENERATORS:
                raise ConfigError(f"--transform generators applies to the matrix-group presets "
                                  f"({', '.join(PRESETS)}), not to a CNN on images: choose one of "
                                  f"{', '.join(IMAGE_TRANSFORMS)}")
            from ..equivariance.transforms import ImageTransform, MeterError

            try:
                ImageTransform(self.transform, self.interpolation, self.padding)
            except MeterError as err:
                raise ConfigError(str(err)) from None
        if self.is_path():
            for name in ("seed", "epochs"):
                self._default_only(name, "a saved model (it brings its own)")
        self.costs()  # sizes computed, refused over the memory limit before any work

    def _default_only(self, name: str, what: str) -> None:
        o = self.option_named(name)
        if getattr(self, name) != o.default:
            raise ConfigError(f"--{name.replace('_', '-')} does not apply to {what} (leave it out)")

    # ------------------------------------------------------------------ what the settings mean
    def is_path(self) -> bool:
        return self.model not in MODELS

    def saved(self):
        """The saved run ``--model PATH`` names (``lab.meter.store.SavedMeter``); a ``ConfigError`` when it is
        not one."""
        from ..errors import LabError

        if not self.is_path():
            return None
        cached = self.__dict__.get("_saved")
        if cached is not None and cached[0] == self.model:
            return cached[1]
        path = Path(self.model)
        if not path.is_dir():
            raise ConfigError(f"unknown model {self.model!r}: choose one of {', '.join(MODELS)}, or give the "
                              f"directory of a run saved by lab lie-derivative")
        from .store import load_meter

        try:
            saved = load_meter(path, weights=True)
            if saved.model not in MODELS:
                raise LabError(f"it was made from {saved.model!r}, a model this lab does not know")
            saved.module = saved.model_module(build_model)
        except LabError as err:
            raise ConfigError(f"--model {self.model}: {err}") from None
        self.__dict__["_saved"] = (self.model, saved)
        return saved

    def model_kind(self) -> str:
        """``cnn``, ``emlp`` or ``mlp`` (a saved run: its model's)."""
        if self.model in CNN_MODELS:
            return "cnn"
        if self.model in PRESETS:
            return PRESETS[self.model].kind
        return self.saved().kind

    def preset_name(self) -> str:
        """The model's name in ``MODELS`` (a saved run: the one it was made from)."""
        return self.model if not self.is_path() else self.saved().model

    def preset(self) -> Preset:
        return PRESETS[self.preset_name()]

    def train_settings(self):
        from .cnn import TrainSettings

        return TrainSettings(self.epochs, BATCH, LR)

    def costs(self) -> dict:
        """Exact sizes of the run: ``train_steps``, ``input_values`` (inputs x values per input), ``measurements``,
        and ``memory_bytes``, an estimate (``MEMORY_FACTOR``) from the model's own layer sizes; refuses a run over
        the memory limit with one line (``lab.limits.check_memory``)."""
        from ..limits import check_memory

        kind = self.model_kind()
        steps = 0
        if kind == "cnn":
            from .cnn import digits_data

            data = digits_data(self.data_seed(), holdout=HOLDOUT)
            n = self.samples if self.inputs == "noise" else min(self.samples, len(_input_pool(data, self.inputs)))
            if not self.is_path():
                steps = self.train_settings().steps(len(data.x_train))
            per_input, activations = 64, _activation_values(self.build(data.classes), (1, 1, 8, 8))
            measurements = 1 + self.layerwise
        else:
            n = self.samples
            model = self.build()
            per_input = model.rep_in.size
            activations = _activation_values(model, (1, per_input))
            measurements = model.group.num_lie + 1
        need = n * (per_input + activations) * 8 * MEMORY_FACTOR
        check_memory(f"measuring {self.model} on {n} inputs", need)
        return {"train_steps": steps, "inputs": n, "input_values": n * per_input, "activation_values": n * activations,
                "measurements": measurements, "memory_bytes": need}

    def data_seed(self) -> int:
        return self.saved().seed if self.is_path() else self.seed

    def build(self, classes: int = 9):
        """The untrained model (a CNN variant, a preset at ``--seed``) this config names; a saved run's with its
        weights."""
        if self.is_path():
            return self.saved().module
        return build_model(self.model, self.seed, classes)


def _input_pool(data, name: str):
    return {"train": data.x_train, "test": data.x_test, "heldout": data.x_heldout}[name]


def _activation_values(model, shape) -> int:
    """Values every leaf module outputs for one input of ``shape`` (one forward pass with hooks)."""
    import torch

    total = [0]

    def hook(module, args, out):
        if isinstance(out, torch.Tensor):
            total[0] += out.numel()

    dtype = next(model.parameters()).dtype
    handles = [m.register_forward_hook(hook) for m in model.modules() if not list(m.children())]
    try:
        with torch.no_grad():
            model(torch.zeros(shape, dtype=dtype))
    finally:
        for h in handles:
            h.remove()
    return total[0]


@dataclass
class MeterResult:
    config: MeterConfig
    kind: str  # cnn, emlp, mlp
    preset: str  # the MODELS entry the model is
    source: str  # "trained", "preset" or the saved run's path
    report: dict = field(default_factory=dict)  # the measurement (lee_report's keys, or the generators')
    training: dict | None = None  # steps, accuracies, seed (CNNs)
    costs: dict = field(default_factory=dict)
    status: str = "finished"
    net: object = None  # the measured model (torch), for saving and the dashboard; not in the summary


def run(config: MeterConfig, progress=None, control=None) -> MeterResult:
    """Train (a CNN) or build (a preset) or load (a saved run) the model, then measure it; records: ``started``,
    ``progress`` (training steps, then one unit per measurement), ``epoch`` (training) and ``result``."""
    from ..control import Stopped, checkpoint

    config = config.validate()
    emit = progress or (lambda record: None)
    costs = config.costs()
    kind, name = config.model_kind(), config.preset_name()
    source = "trained" if kind == "cnn" and not config.is_path() else "preset" if not config.is_path() \
        else str(Path(config.model))
    result = MeterResult(config, kind, name, source, costs=costs)
    total = costs["train_steps"] + costs["measurements"]
    emit({"kind": "started", "model": config.model, "preset": name, "model_kind": kind, "transform": config.transform,
          "total": total, **costs})
    emit(progress_record(0, total, f"{'training' if costs['train_steps'] else 'measuring'} {name}"))
    t0 = time.monotonic()
    done = 0
    try:
        checkpoint(control)
        if kind == "cnn":
            done = _run_cnn(config, result, emit, control, total)
        else:
            done = _run_preset(config, result, emit, control, total)
        emit({"kind": "result", "lee": result.report["lee"]})
    except Stopped:
        result.status = "stopped"
    emit(progress_record(done, total, f"{result.status} in {time.monotonic() - t0:.1f} s"))
    return result


def _run_cnn(config: MeterConfig, result: MeterResult, emit, control, total: int) -> int:
    from ..control import Stopped, checkpoint
    from .aliasing import input_sets, lee_report
    from .cnn import accuracy, digits_data, train

    data = digits_data(config.data_seed(), holdout=HOLDOUT)
    if config.is_path():
        saved = config.saved()
        net, done = saved.module, 0
        result.training = saved.meta["summary"].get("training")
    else:
        def relay(rec):
            emit(rec)
            emit(progress_record(rec["done"], total, f"training {config.model}: epoch {rec['epoch']}/{rec['epochs']}"))

        tr = train(config.model, data, config.train_settings(), config.seed, WIDTH, config.device, control, relay)
        if tr.status == "stopped":
            raise Stopped()
        net, done = tr.model, tr.steps
        result.training = {"steps": tr.steps, "epochs": config.epochs, "batch": BATCH, "lr": LR, "seed": config.seed,
                           "train_accuracy": tr.train_accuracy, "test_accuracy": tr.test_accuracy,
                           "final_loss": tr.losses[-1] if tr.losses else None, "holdout": HOLDOUT,
                           "losses": [float(v) for v in tr.losses]}
    result.net = net
    checkpoint(control)
    x = input_sets(data, (config.inputs,), config.samples, config.data_seed())[config.inputs]
    report = lee_report(net, x, config.transform, config.output, config.layerwise, config.interpolation,
                        config.padding)
    done += 1 + config.layerwise
    emit(progress_record(done, total, f"measured {result.preset}"))
    labels = {"train": data.y_train, "test": data.y_test}.get(config.inputs)  # heldout and noise: no right class
    report["accuracy_on_inputs"] = accuracy(net, x, labels[:len(x)]) if labels is not None else None
    result.report = report
    return done


def _run_preset(config: MeterConfig, result: MeterResult, emit, control, total: int) -> int:
    import torch

    from ..control import checkpoint
    from ..equivariance.lie import discrete_equivariance_errors, generator_lee

    net = config.build()
    result.net = net
    g = torch.Generator().manual_seed(int(config.data_seed()))
    x = torch.randn((config.samples, net.rep_in.size), generator=g, dtype=torch.float64)
    group = net.group
    checkpoint(control)
    lie = generator_lee(net, x)
    done = len(lie)
    emit(progress_record(done, total, f"Lie derivatives of {result.preset} along {len(lie)} generators"))
    checkpoint(control)
    errs = discrete_equivariance_errors(net, x, n=DISCRETE_ELEMENTS, seed=config.data_seed())
    per_element = [float(v) for v in errs.mean(dim=1)]
    done += 1
    emit(progress_record(done, total, f"discrete check of {result.preset}"))
    nd = group.num_discrete
    with torch.no_grad():
        y = net(x)
    scale = float(y.pow(2).mean())  # E|f(x)|^2 / dim(out): what a LEE is small against
    rows = [{"index": k, "name": f"lie {k}", "kind": "lie", "lee": v, "relative": v / scale if scale > 0 else None}
            for k, v in enumerate(lie)]
    discrete = [{"index": k, "name": f"discrete {k}", "kind": "discrete", "error": per_element[k]} for k in range(nd)]
    if lie:
        measure, worst = "lee", max(lie)
    else:
        for r in discrete:
            r["lee"] = r["error"]  # a finite group has no Lie algebra: "lee" holds the discrete relative error
        rows = discrete
        measure, worst = "relative-error", max(per_element)
    p = PRESETS[result.preset]
    result.report = {
        "lee": worst, "lee_over": "max over generators" if lie else "max over discrete generators and sampled elements",
        "measure": measure, "generators": rows, "discrete_generators": discrete,
        "discrete_error": {"max": max(per_element), "mean": sum(per_element) / len(per_element),
                           "elements": len(per_element), "sampled": DISCRETE_ELEMENTS},
        "group": p.group, "rep_in": p.rep_in, "rep_out": p.rep_out, "n": int(config.samples),
        "output_scale": scale, "relative": worst / scale if lie and scale > 0 else None,
        "unit": "per unit generator" if lie else "relative (|f(gx) - g f(x)| / |f(x)|)"}
    return done


def summary(result: MeterResult) -> dict:
    """The ``lab lie-derivative --json`` object: ``lee`` (a float; None when stopped before measuring) and, with
    ``--layerwise`` only, ``layers`` = ``[{"name", "contribution", "module", "kind", "share"}]`` in layer order
    (``contribution`` = ``E|C_i|``; ``share`` = ``E<C_i, L> / E|L|^2``, adding up to 1), plus ``model``,
    ``model_kind`` (cnn, emlp, mlp), ``preset``, ``source`` (trained, preset, or the saved run's path),
    ``transform``, ``status``, ``costs`` (``MeterConfig.costs``) and the measurement's own keys.  CNNs: ``stderr``
    (over inputs), ``n``, ``unit``, ``output``, ``inputs``, ``interpolation``, ``padding``, ``training`` (steps,
    accuracies, seed, the per-epoch mean training loss ``losses``) and ``accuracy_on_inputs``.  Presets: ``generators`` = ``[{"index", "name", "kind", "lee"}]``
    (Lie generators; a finite group's discrete generators, their ``lee`` the relative error), ``measure`` (lee or
    relative-error: what ``lee`` holds), ``lee_over`` (the max over generators), ``discrete_generators``,
    ``discrete_error`` (max and mean over elements of the mean relative error over inputs), ``group``, ``rep_in``,
    ``rep_out``, ``output_scale`` (``E|f|^2 / dim``) and ``relative`` (``lee`` over it)."""
    cfg = result.config
    rep = dict(result.report)
    layers = rep.pop("layers", [])
    out = {"lee": rep.pop("lee", None), "model": cfg.model, "model_kind": result.kind, "preset": result.preset,
           "source": result.source, "transform": cfg.transform, "status": result.status, "costs": result.costs}
    if result.kind == "cnn":
        out |= {"inputs": cfg.inputs, "samples": cfg.samples, "output": cfg.output,
                "interpolation": cfg.interpolation, "padding": cfg.padding, "training": result.training}
    else:
        out |= {"inputs": "gaussian", "samples": cfg.samples, "seed": cfg.seed}
    out |= rep
    if cfg.layerwise:
        out["layers"] = layers
    return out


def text(result: MeterResult) -> str:
    s = summary(result)
    if s["status"] == "stopped" and s["lee"] is None:
        return f"{s['model']}: stopped before the measurement"
    if s["model_kind"] == "cnn":
        tr = s.get("training") or {}
        made = (f"trained {tr.get('steps')} steps, test accuracy {tr.get('test_accuracy', float('nan')):.3f}"
                if tr else "saved")
        lines = [f"{s['preset']} ({made}{'' if s['source'] == 'trained' else ', from ' + s['source']}): LEE under "
                 f"{s['transform']} = {s['lee']:.4g} +- {s['stderr']:.2g} {s['unit']} ({s['n']} {s['inputs']} inputs, "
                 f"{'softmax probabilities' if s['output'] == 'probs' else 'logits'}, {s['interpolation']} "
                 f"interpolation, {s['padding']} padding)"]
        if "layers" in s:
            lines.append("layer contributions in layer order: E|C_i| and share E<C_i, L>/E|L|^2. The vectors C_i add "
                         "up to L_X f (the shares to 1); the norms do not: only |L_X f| <= sum_i |C_i| holds.")
            lines.append(f"  {'layer':<10}{'module':<20}{'kind':<14}{'E|C_i|':>12}{'share':>10}")
            for r in s["layers"]:
                lines.append(f"  {r['name']:<10}{r['module']:<20}{r['kind']:<14}{r['contribution']:>12.4g}"
                             f"{r['share']:>+10.3f}")
        return "\n".join(lines)
    lines = [f"{s['preset']}: {PRESETS[s['preset']].description}; weights at seed {s['seed']} (untrained), "
             f"{s['n']} Gaussian inputs, float64"]
    if s["measure"] == "lee":
        lines.append("LEE along each Lie-algebra generator: "
                     + ", ".join(f"{r['name']} {r['lee']:.3g}" for r in s["generators"])
                     + f"; worst {s['lee']:.3g} (relative to E|f|^2/dim: {s['relative']:.3g})")
    else:
        lines.append(f"{s['group']} is finite (no Lie algebra): relative error |f(gx) - g f(x)|/|f(x)| per discrete "
                     f"generator: " + ", ".join(f"{r['name']} {r['lee']:.3g}" for r in s["generators"])
                     + f"; lee (worst element) {s['lee']:.3g}")
    d = s["discrete_error"]
    k = d["elements"] - d["sampled"]
    lines.append(f"discrete check ({k} discrete generator{'' if k == 1 else 's'} + {d['sampled']} sampled "
                 f"elements): relative error max {d['max']:.3g}, mean {d['mean']:.3g}")
    return "\n".join(lines)


def save(result: MeterResult, directory=None):
    from .store import save_meter

    return save_meter(result.config.to_dict(), summary(result), result.kind, result.preset, result.net, directory,
                      result.status)


def load(path, root=None):
    from .store import load_meter

    return load_meter(path, root)


def results_dir(directory=None):
    from .store import meter_dir

    return meter_dir(directory)


def list_runs(directory=None) -> list:
    """The saved meter runs in ``results_dir(directory)``, newest first."""
    from .store import list_meter

    return list_meter(directory)


def saved_kind(path) -> str:
    """The model kind (cnn, emlp, mlp) of the run saved at ``path``, from its ``config.json`` (no weights read); a
    ``LabError`` when it is not a meter run."""
    from .store import load_meter

    return load_meter(path).kind


#: inputs of a saved CNN run drawn along their flow by ``saved_view`` (the dashboard's example picker)
VIEW_EXAMPLES = 4
#: the digits' class names as the models number them (class ``HOLDOUT`` is left out: those above it move down one)
DIGIT_NAMES = tuple(f"digit {d}" for d in range(10) if d != HOLDOUT)


def saved_view(path, root=None, examples: int = VIEW_EXAMPLES, control=None) -> dict:
    """What the Equivariance meter tab draws of a saved run, off the event loop: ``summary`` (the ``--json``
    object), ``config``, ``status``, ``name``, ``layers`` (``cumulative_contributions`` of its layer-wise rows, in
    layer order; [] without ``--layerwise``) and, for a CNN, ``examples``: ``transformed_example`` of the first
    ``examples`` inputs of the set it was measured on (its model rebuilt from ``weights.npz``; none when it kept no
    model) and ``classes`` (their names).  Only a run inside ``root`` when given."""
    from ..control import checkpoint
    from .example import cumulative_contributions
    from .store import load_meter

    saved = load_meter(path, root, weights=True)
    summary = saved.meta["summary"]
    out = {"summary": summary, "config": saved.meta["config"], "status": saved.meta["status"],
           "name": saved.path.name, "path": str(saved.path), "kind": saved.kind, "examples": [], "classes": None,
           "layers": cumulative_contributions(summary.get("layers") or [])}
    if saved.kind != "cnn" or saved.weights is None:
        return out
    from .aliasing import input_sets
    from .cnn import digits_data
    from .example import transformed_example

    checkpoint(control)
    net = saved.model_module(build_model)
    data = digits_data(saved.seed, holdout=HOLDOUT)
    name = summary.get("inputs", "test")
    x = input_sets(data, (name,), max(1, int(examples)), saved.seed)[name]
    for i in range(min(int(examples), len(x))):
        checkpoint(control)
        out["examples"].append(transformed_example(net, x[i], summary["transform"], summary.get("output", "probs"),
                                                   summary.get("interpolation", INTERPOLATIONS[0]),
                                                   summary.get("padding", PADDINGS[0])))
    out["classes"] = list(DIGIT_NAMES)
    return out


FAMILY = Family(
    order=70, command="lie-derivative",
    pane="lab.meter.pane:EquivarianceMeter", tab=60, run_css=".meter",
    claims=("lab.meter.claims",),
    name="meter", title="Equivariance meter", config=MeterConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True, runs="lab.meter.store:RUNS", commands=(AUDIT,),
    help="the Lie derivative of a model: how equivariant it is, and which layer breaks it (thesis ch. 4)",
    description="Finzi's thesis, chapter 4: the local equivariance error LEE = E|L_X f|^2 / dim(out) (eq. 4.4) of a "
                "small digits CNN trained here (strided, blurred or smooth) under an image transformation, with "
                "--layerwise each layer's contribution (eq. 4.6); or of an EMLP / MLP over a matrix group along "
                "every generator (--transform generators). A saved run (PATH) is measured again without training.")
