"""Experiment family ``ensembles``: do ensembles trained under augmentation become equivariant, and on what does it
depend?  ``lab ensembles`` (Nordenfors & Flinth's poster; issue 30).

One run: a pool of ``pool_factor x members`` small CNNs (``lab.ensembles.network``) trained at once by projected SGD
under data augmentation on scikit-learn's digits, a rotation-invariant task under C4 (the poster's invariant MNIST
task, at 8 x 8), in one of the three settings that test the theorem's assumptions (``--setting``):

* ``invariant`` -- (i) the layer space L invariant (cross-shaped filter support) and the initial distribution
  invariant (centred Gaussian): the theorem says the ensemble mean is equivariant at every time, so a finite
  ensemble's error falls as 1/sqrt(M);
* ``noninvariant-init`` -- (ii) L invariant, the initial mean leaning one way (the filters' top rows);
* ``noninvariant-space`` -- (iii) L not invariant (filters on the top-left 2 x 2 corner).

How each assumption is verified is in ``lab.ensembles.network`` (``check_assumptions``: the support's mask against
its rotations; the Gaussian init by its mean pattern); the summary carries the verdicts.  At ``records`` times during
training (the first at initialisation, the last at the end), the ensemble metrics of ``lab.ensembles.metrics`` are
measured per size M in 1, 2, 4, ..., ``members`` (sub-ensembles drawn ``resamples`` times from the pool) on
``test_points`` held-out digits (``test``) and as many noise images with the digits' pixel statistics (``noise``,
out of distribution).  The ensemble averages logits (``--average probs``: probabilities).

Cost before work (``EnsemblesConfig.costs``): the exact member-steps (pool x steps), the parameters, and an estimate of
the memory of one batched step and of the recorded orbits, refused over the memory limit in one line.

``--task perm`` and ``--task custom [--group G]`` run the same experiment on the training-dynamics models and data
(``lab.ensembles.vectors``: the Perm graph task under S(n); the teacher-student task for any finite signed-permutation
group), the three settings on the first layer (its support, its initial mean), the metrics on the identity and three
sampled group elements (the groups are too large to enumerate; exact orbit averaging is digits-only).

>>> from lab.ensembles.family import FAMILY, EnsemblesConfig
>>> s = FAMILY.summary(FAMILY.run(EnsemblesConfig(members=2, steps=2, channels=2, test_points=8, records=2)))
>>> s["sizes"], len(s["equivariance_error"]), s["assumptions"]["theorem_applies"]
([1, 2], 2, True)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ..config import SEED_HIGH, Config, ConfigError, option
from ..experiments.family import Family, progress_record

# These lists are ``lab.ensembles``'s, spelled here because ``lab --help`` imports no torch; tests check they agree.
#: ``lab.ensembles.network.SETTINGS``
SETTINGS = ("invariant", "noninvariant-init", "noninvariant-space")
#: ``lab.ensembles.train.AUGMENTS``; ``lab.ensembles.metrics.AVERAGES``
AUGMENTS = ("sampled", "orbit", "none")
AVERAGES = ("logits", "probs")
TASKS = ("digits", "perm", "custom")
#: ``lab.ensembles.vectors.VECTOR_TASKS``: the dynamics models on vectors (``lab.tasks.nordenfors``)
VECTOR_TASKS = ("perm", "custom")
#: the digits' 8 x 8 images and classes; parameters of a member's layers per channel (for the cost)
SIDE, CLASSES = 8, 10
#: MNIST's 28 x 28 images are area-averaged to this side (the dynamics paper's; even, so 2 x 2 pooling commutes with
#: the rotations)
MNIST_SIDE = 14
INPUT_SETS = ("test", "noise")
#: what each setting's layer space and initialisation are, in words, and whether each is invariant -- the verdicts
#: ``lab.ensembles.network.check_assumptions`` computes (the support's mask against its rotations, the Gaussian's
#: mean pattern), spelled here so that a pane can show them before any torch is imported; tests check they agree
SETTING_ASSUMPTIONS = {
    "invariant": {"space": ("cross-shaped 3 × 3 filter support", True),
                  "init": ("centred Gaussian", True)},
    "noninvariant-init": {"space": ("cross-shaped 3 × 3 filter support", True),
                          "init": ("Gaussian whose mean leans to the filters' top rows", False)},
    "noninvariant-space": {"space": ("filters on the top-left 2 × 2 corner only", False),
                           "init": ("centred Gaussian", True)},
}


#: the same for the vector tasks (``lab.ensembles.vectors``: the first layer's support and initial mean)
VECTOR_ASSUMPTIONS = {
    "invariant": {"space": ("every weight free", True), "init": ("centred Gaussian", True)},
    "noninvariant-init": {"space": ("every weight free", True),
                          "init": ("Gaussian whose mean leans to input coordinate 0", False)},
    "noninvariant-space": {"space": ("first layer reads the first half of the input only", False),
                           "init": ("centred Gaussian", True)},
}


def assumptions(setting: str, task: str = "digits") -> dict:
    """The theorem's assumptions for ``setting`` (on ``task``'s networks) as ``check_assumptions`` gives them
    (``space_invariant``, ``init_invariant``, ``theorem_applies``) plus their words (``space``, ``init``), without
    torch."""
    if setting not in SETTING_ASSUMPTIONS:
        raise ConfigError(f"unknown setting {setting!r}: choose one of {', '.join(SETTINGS)}")
    a = (VECTOR_ASSUMPTIONS if task in VECTOR_TASKS else SETTING_ASSUMPTIONS)[setting]
    space, init = a["space"][1], a["init"][1]
    return {"space_invariant": space, "init_invariant": init, "theorem_applies": space and init,
            "space": a["space"][0], "init": a["init"][0]}


@dataclass
class EnsemblesConfig(Config):
    """The settings of one ensembles run (``lab ensembles``; Nordenfors & Flinth's poster): a pool of
    ``pool_factor`` x ``members`` small networks trained at once by projected SGD under augmentation, and the
    ensemble metrics measured per ensemble size at ``records`` times during training.

    Its fields are declared with ``option(...)``.  ``task`` is the invariant task (rotated digits under C4, the
    poster's; or the training-dynamics models' ``perm`` and ``custom`` tasks), ``setting`` which of the theorem's
    assumptions hold (``invariant``, ``noninvariant-init``, ``noninvariant-space``), ``augment`` and ``average``
    how members are trained and averaged.  ``data`` (MNIST's IDX files) applies to the digits task only, ``group``
    to the custom task only.  ``check()`` refuses options that do not apply to the task and computes the run's
    exact sizes (``costs``), refused over the memory limit before any work.
    """

    task: str = option("digits", "the invariant task: rotation-invariant digits under C4 (the poster's), the Perm "
                                 "graph task (connectivity under S(n)) or the custom teacher-student task (--group), "
                                 "the last two on the training-dynamics models", choices=TASKS)
    setting: str = option("invariant", "which of the theorem's assumptions hold: both (invariant), not the invariant "
                                       "initialisation (noninvariant-init), not the invariant layer space "
                                       "(noninvariant-space)", choices=SETTINGS)
    members: int = option(16, "the largest ensemble size M (sizes 1, 2, 4, ..., M)", low=1, high=4096)
    pool_factor: int = option(4, "the pool trained is this many times M; sub-ensembles are drawn from it", low=1,
                              high=64)
    steps: int = option(200, "SGD steps of every member", low=1, high=1_000_000)
    channels: int = option(8, "channels of each of the three convolutions", low=1, high=256)
    batch: int = option(32, "mini-batch of every member (the authors': 32)", low=1, high=4096)
    lr: float = option(0.01, "SGD learning rate (the authors': 0.01)", low=0, positive=True)
    augment: str = option("sampled", "data augmentation: each sample rotated by a random element (the poster's), all "
                                     "four rotations averaged (the expected augmented loss), or none (a baseline)",
                          choices=AUGMENTS)
    average: str = option("logits", "what the ensemble averages: logits (the authors' code) or probabilities",
                          choices=AVERAGES)
    resamples: int = option(20, "sub-ensembles drawn per size", low=1, high=10_000)
    records: int = option(6, "times the metrics are measured during training (the first at initialisation, the last "
                             "at the end)", low=2, high=1000)
    test_points: int = option(200, "held-out digits (and as many noise images) the metrics are measured on", low=1,
                              high=100_000)
    data: str | None = option(None, "a directory holding MNIST's IDX files (train and t10k; never downloaded): the "
                                    "digits task on MNIST at 14 x 14 instead of scikit-learn's 8 x 8 digits",
                              metavar="DIR")
    group: str | None = option(None, "the custom task's group: a finite signed-permutation group the engine knows "
                                     "(default S(6)); --task custom only")
    seed: int = option(0, "seed of the data split, the members' initialisations, batches and rotations", low=0,
                       high=SEED_HIGH)
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")

    def check(self) -> None:
        from ..device import check_device_name

        self.device = check_device_name(self.device)
        if self.data is not None:
            if self.task != "digits":
                raise ConfigError(f"--data applies to --task digits (MNIST), not {self.task}")
            from ..data.mnist import MnistError, find

            try:
                for split in ("train", "t10k"):
                    for kind in ("images", "labels"):
                        find(self.data, split, kind)
            except MnistError as err:
                raise ConfigError(f"--data {self.data}: {err}") from None
        if self.group is not None and self.task != "custom":
            raise ConfigError(f"--group applies to --task custom (the {self.task} task has its own group)")
        if self.task in VECTOR_TASKS:
            if self.channels != self.option_named("channels").default:
                raise ConfigError(f"--channels applies to --task digits (the {self.task} task's network has the "
                                  f"training-dynamics channels)")
            if self.augment == "orbit":
                raise ConfigError(f"--augment orbit enumerates the group: --task digits only (the {self.task} "
                                  f"task's group is too large)")
            from ..errors import LabError

            try:
                self.vector_task()
            except LabError as err:
                raise ConfigError(str(err)) from None
        self.costs()

    def side(self) -> int:
        """The images' side: 8 (scikit-learn's digits) or ``MNIST_SIDE`` (MNIST from ``--data``)."""
        return MNIST_SIDE if self.data is not None else SIDE

    def vector_task(self):
        """``(experiment, model)`` of a vector task (``lab.ensembles.vectors.build_task``), built once."""
        key = (self.task, self.seed, self.group)
        cached = self.__dict__.get("_vector")
        if cached is None or cached[0] != key:
            from .vectors import build_task

            cached = (key, build_task(self.task, self.seed, self.group))
            self.__dict__["_vector"] = cached
        return cached[1]

    # ------------------------------------------------------------------ what the settings mean
    def sizes(self) -> list[int]:
        """1, 2, 4, ... up to ``members`` (``members`` itself always last)."""
        out, m = [], 1
        while m < self.members:
            out.append(m)
            m *= 2
        return out + [self.members]

    @property
    def pool(self) -> int:
        return self.members * self.pool_factor

    def record_steps(self) -> list[int]:
        """The steps at which the metrics are measured: ``records`` of them, evenly spaced from 0 to ``steps``."""
        n = min(self.records, self.steps + 1)
        return sorted({round(i * self.steps / (n - 1)) for i in range(n)})

    def member_seeds(self) -> list[int]:
        """Member m's seed: its own stream whatever the pool's size."""
        return [self.seed * 1_000_003 + m for m in range(self.pool)]

    def costs(self) -> dict:
        """Exact ``member_steps`` (pool x steps), ``parameters`` (every member's), ``metric_evaluations`` (records x
        input sets x |G| x test points x pool forward passes), and ``memory_bytes``, an estimate of one batched step
        (activations and gradients of every member's batch, 4 rotations with orbit averaging) plus the recorded
        orbits; refused over the memory limit (``lab.limits.check_memory``)."""
        from ..limits import check_memory

        chunk = min(self.pool, 64)
        if self.task in VECTOR_TASKS:
            _, model = self.vector_task()
            per_member = sum(s.c_out * s.c_in * sp.n_out * sp.n_in + (s.c_out * sp.n_out if s.bias else 0)
                             for s, sp in zip(model.specs, model.spaces))
            width = sum(s.c_out * sp.n_out for s, sp in zip(model.specs, model.spaces))
            activations = self.batch * width * 4
            orbit_values = self.pool * 4 * self.test_points * 2 + chunk * 4 * self.test_points * width
        else:
            side = self.side()
            per_member = (self.channels * 9 + 2 * self.channels * self.channels * 9
                          + CLASSES * self.channels * (side // 2) ** 2)
            batch = self.batch * (4 if self.augment == "orbit" else 1)
            activations = batch * self.channels * side * side * 3 * 4  # three layers, kept for backward, copies
            orbit_values = (self.pool * 4 * self.test_points * CLASSES
                            + chunk * 4 * self.test_points * self.channels * side * side * 3)
        step_values = self.pool * (activations + 3 * per_member)
        need = 8 * (step_values + orbit_values)
        check_memory(f"training {self.pool} members", need)
        return {"member_steps": self.pool * self.steps, "pool": self.pool, "parameters": self.pool * per_member,
                "metric_evaluations": len(self.record_steps()) * len(INPUT_SETS) * 4 * self.test_points * self.pool,
                "memory_bytes": need}


@dataclass
class EnsemblesResult:
    config: EnsemblesConfig
    records: list = field(default_factory=list)  # one row per recorded step, input set and size
    assumptions: dict = field(default_factory=dict)
    accuracy: dict = field(default_factory=dict)
    losses: list = field(default_factory=list)  # median member loss per step
    example: dict = field(default_factory=dict)  # one held-out digit along its orbit (``orbit_example``)
    costs: dict = field(default_factory=dict)
    device: str = "cpu"
    seconds: float = 0.0
    status: str = "finished"


def run(config: EnsemblesConfig, progress=None, control=None) -> EnsemblesResult:
    """Train the pool and measure it; records: ``started``, ``progress`` (member-steps), ``loss`` (median member loss,
    every step), ``record`` (metrics rows of one recorded step) and ``result``."""
    import torch

    from ..control import Stopped
    from ..device import pick_device
    from . import TrainSettings, size_curve

    config = config.validate()
    emit = progress or (lambda record: None)
    costs = config.costs()
    device = pick_device(config.device)
    if config.task in VECTOR_TASKS:
        task = _vector_task(config, device)
    else:
        task = _digits_task(config, device)
    result = EnsemblesResult(config, assumptions=task["assumptions"], costs=costs, device=str(device))
    inputs, labels = task["inputs"], task["labels"]
    sizes, record_at, pool = config.sizes(), set(config.record_steps()), config.pool
    total = costs["member_steps"]
    emit({"kind": "started", "task": config.task, "setting": config.setting, "sizes": sizes, "pool": pool,
          "steps": config.steps, "record_steps": sorted(record_at), "assumptions": result.assumptions,
          "device": str(device), "total": total, **costs})
    emit(progress_record(0, total, f"training {pool} members"))
    t0 = time.monotonic()
    params = task["init"]()

    def measure(step: int) -> None:
        from . import ensemble_output

        rows = []
        for name, x in inputs.items():
            orbit = task["orbit"](params, x)
            for r in size_curve(orbit, sizes, config.resamples, seed=config.seed + step, average=config.average):
                rows.append({"step": step, "inputs": name, **r})
            if name == "test":
                if config.task not in VECTOR_TASKS:
                    result.example = orbit_example(orbit, x, config.average, EXAMPLE_INDEX)
                    result.example["label"] = int(labels[EXAMPLE_INDEX])  # its true class
                pred = ensemble_output(orbit[:, 0], config.average).argmax(-1)
                member = (orbit[:, 0].argmax(-1) == labels).to(torch.float64).mean(1)
                result.accuracy = {"ensemble": float((pred == labels).to(torch.float64).mean()),
                                   "member_median": float(member.median()), "step": step}
        result.records += rows
        emit({"kind": "record", "step": step, "rows": rows})

    def on_step(step, losses):
        result.losses.append(float(losses.median()))
        emit({"kind": "loss", "step": step, "loss": result.losses[-1]})
        if step in record_at:
            measure(step)
        emit(progress_record(step * pool, total, f"step {step}/{config.steps} of {pool} members"))

    try:
        if 0 in record_at:
            measure(0)
        task["train"](params, TrainSettings(config.steps, config.batch, config.lr, config.augment), control, on_step)
    except Stopped:
        result.status = "stopped"
    result.seconds = time.monotonic() - t0
    s = summary(result)
    emit({"kind": "result", "slope": s["slope"], "equivariance_error": s["equivariance_error"]})
    emit(progress_record(len(result.losses) * pool, total, f"{result.status} in {result.seconds:.1f} s"))
    return result


def _digits_task(config: EnsemblesConfig, device) -> dict:
    """The poster's task: C4 on scikit-learn's digits, the small CNNs of ``lab.ensembles.network``."""
    from . import check_assumptions, init_members, orbit_logits, train

    data = digits_or_mnist(config)
    return {"assumptions": check_assumptions(config.setting),
            "inputs": {"test": data.x_test[:config.test_points].to(device),
                       "noise": data.noise(config.test_points, config.seed).to(device)},
            "labels": data.y_test[:config.test_points].to(device),
            "init": lambda: init_members(config.pool, config.channels, config.setting, config.member_seeds(),
                                         side=config.side(), device=device),
            "orbit": orbit_logits,
            "train": lambda params, settings, control, on_step: train(
                params, data.x_train, data.y_train, settings, config.member_seeds(), config.setting, control=control,
                on_step=on_step)}


def digits_or_mnist(config: EnsemblesConfig):
    """The images of the digits task: scikit-learn's digits split at the seed (``lab.data.digits.digits_data``), or,
    with ``--data``, MNIST's train and t10k sets from the user's IDX files at ``MNIST_SIDE`` (``lab.data.mnist``),
    in the same ``DigitsData`` form (its ``noise`` then has MNIST's pixel statistics)."""
    import torch

    from ..data.digits import DigitsData, digits_data

    if config.data is None:
        return digits_data(config.seed)
    from ..data.mnist import load_mnist

    xtr, ytr = load_mnist(config.data, "train", size=MNIST_SIDE)
    xte, yte = load_mnist(config.data, "t10k", size=MNIST_SIDE)

    def images(a):
        return torch.as_tensor(a, dtype=torch.float32)[:, None]

    return DigitsData(images(xtr), torch.as_tensor(ytr, dtype=torch.int64), images(xte),
                      torch.as_tensor(yte, dtype=torch.int64), images(xte[:0]), None, int(config.seed))


def _vector_task(config: EnsemblesConfig, device) -> dict:
    """The Perm graph or teacher-student task on the training-dynamics models (``lab.ensembles.vectors``): the last
    quarter of the experiment's data (at most ``test_points``) held out, noise with the inputs' per-coordinate mean
    and deviation out of distribution, the metrics on the identity and ``ORBIT_SAMPLES`` sampled elements."""
    import torch

    from .vectors import (check_assumptions_vectors, init_vector_members, orbit_elements, orbit_scores,
                                     train_vectors)

    exp, model = config.vector_task()
    model = type(model)(exp.group, exp.specs, dtype=torch.float32, device=device, grid=exp.grid)
    X, y = exp.X.to(torch.float32), exp.y
    held = min(config.test_points, len(X) // 4)
    x_train, y_train, x_test, y_test = X[:-held], y[:-held], X[-held:].to(device), y[-held:].to(device)
    g = torch.Generator().manual_seed(int(config.seed) + 5)
    noise = x_train.mean(0) + x_train.std(0) * torch.randn((held, *X.shape[1:]), generator=g)
    elements = orbit_elements(exp.group, config.seed)
    return {"assumptions": check_assumptions_vectors(model, config.setting, config.seed),
            "inputs": {"test": x_test, "noise": noise.to(device)},
            "labels": y_test.to(torch.int64),
            "init": lambda: init_vector_members(model, config.pool, config.setting, config.member_seeds(),
                                                device=device),
            "orbit": lambda params, x: orbit_scores(model, params, x, elements, exp.in_rep),
            "train": lambda params, settings, control, on_step: train_vectors(
                model, params, x_train.to(device), y_train, settings, config.member_seeds(), config.setting,
                exp.in_rep, control=control, on_step=on_step)}


#: the held-out digit drawn along its orbit
EXAMPLE_INDEX = 0


def orbit_example(orbit, x, average: str, index: int = EXAMPLE_INDEX) -> dict:
    """One held-out digit along its orbit: ``images`` (|G| x H x W, the input rotated by 0, 90, 180, 270 degrees),
    the whole pool's ensemble probabilities on each (``ensemble``, |G| x classes) and member 0's alone (``member``),
    as plain lists."""
    import torch

    from . import ensemble_output, rotate_images

    ens = torch.softmax(ensemble_output(orbit[:, :, index], average), -1)
    one = torch.softmax(orbit[0, :, index], -1)
    images = torch.stack([rotate_images(x[index, 0], k) for k in range(orbit.shape[1])])
    return {"index": index, "images": images.cpu().tolist(), "ensemble": ens.cpu().tolist(),
            "member": one.cpu().tolist(), "members": int(orbit.shape[0])}


def _final(records: list, inputs: str) -> list:
    steps = [r["step"] for r in records if r["inputs"] == inputs]
    if not steps:
        return []
    last = max(steps)
    return sorted((r for r in records if r["inputs"] == inputs and r["step"] == last), key=lambda r: r["size"])


def _curve(rows: list) -> dict:
    from .metrics import fit_slope

    sizes = [r["size"] for r in rows]
    out = {"sizes": sizes, "equivariance_error": [r["equivariance_error"] for r in rows],
           "divergence": [r["divergence"] for r in rows],
           "orbit_same_prediction": [r["orbit_same_prediction"] for r in rows]}
    out["slope"] = fit_slope(sizes, out["equivariance_error"]) if len(sizes) > 1 else math.nan
    return out


def latest_curve(records: list, inputs: str = "test") -> dict | None:
    """The metrics against M at the latest recorded step of ``records`` (``record`` rows, as the run sends them or
    a saved run's table holds them) on ``inputs``: ``sizes``, ``equivariance_error``, ``divergence``,
    ``orbit_same_prediction``, ``slope`` (as in the summary) and ``step``; None before any row.  What a pane draws
    while a run goes on, the summary's numbers once it ends."""
    rows = _final(records, inputs)
    return {**_curve(rows), "step": rows[0]["step"]} if rows else None


def summary(result: EnsemblesResult) -> dict:
    """The ``lab ensembles --json`` object: ``sizes`` ([1, ..., M]), ``equivariance_error``, ``divergence``,
    ``orbit_same_prediction`` (means over the resamples, one per size, on the held-out digits at the last recorded
    step) and ``slope`` (the fitted log-log slope of the error against M); plus ``step`` (that step), ``noise`` (the
    same keys on the out-of-distribution noise images), ``assumptions`` (space_invariant, init_invariant,
    theorem_applies), ``accuracy`` (the ensemble's and the median member's on the held-out digits), ``task``,
    ``setting``, ``members``, ``pool``, ``steps``, ``steps_done``, ``augment``, ``average``, ``device``,
    ``seconds``, ``costs``, ``status`` and ``example`` (``orbit_example`` at the last recorded step, with the digit's
    true class as ``label``)."""
    cfg = result.config
    test = _final(result.records, "test")
    out = _curve(test) if test else {"sizes": cfg.sizes(), "equivariance_error": [], "divergence": [],
                                     "orbit_same_prediction": [], "slope": math.nan}
    out["step"] = test[0]["step"] if test else None
    noise = _final(result.records, "noise")
    out["noise"] = _curve(noise) if noise else None
    out |= {"assumptions": result.assumptions, "accuracy": result.accuracy, "task": cfg.task,
            "setting": cfg.setting, "members": cfg.members, "pool": cfg.pool, "steps": cfg.steps,
            "steps_done": len(result.losses), "augment": cfg.augment, "average": cfg.average,
            "device": result.device, "seconds": result.seconds, "costs": result.costs, "status": result.status,
            "example": result.example or None}
    return out


def text(result: EnsemblesResult) -> str:
    s = summary(result)
    a = s["assumptions"]
    lines = [f"{s['setting']} ({'the theorem applies' if a['theorem_applies'] else 'the theorem does not apply'}: "
             f"layer space {'invariant' if a['space_invariant'] else 'NOT invariant'}, initialisation "
             f"{'invariant' if a['init_invariant'] else 'NOT invariant'}); {s['pool']} members trained "
             f"{s['steps_done']}/{s['steps']} steps, {s['augment']} augmentation, {s['status']} in "
             f"{s['seconds']:.1f} s on {s['device']}"]
    if s["accuracy"]:
        lines.append(f"held-out accuracy: ensemble of {s['pool']} {s['accuracy']['ensemble']:.3f}, median member "
                     f"{s['accuracy']['member_median']:.3f}")
    if s["equivariance_error"]:
        lines.append(f"{'M':>6}{'error':>12}{'sym. KL':>12}{'same pred.':>12}   (held-out digits, step {s['step']})")
        for m, e, d, o in zip(s["sizes"], s["equivariance_error"], s["divergence"], s["orbit_same_prediction"]):
            lines.append(f"{m:>6}{e:>12.4g}{d:>12.4g}{o:>12.3f}")
        lines.append(f"log-log slope of the error against M: {s['slope']:.3f} (-0.5: the 1/sqrt(M) law of an "
                     f"equivariant mean)" + (f"; on noise {s['noise']['slope']:.3f}" if s["noise"] else ""))
    return "\n".join(lines)


def save(result: EnsemblesResult, directory=None):
    from .store import save_ensembles

    return save_ensembles(result.config.to_dict(), summary(result), result.records, directory, result.status)


def load(path, root=None):
    from .store import load_ensembles

    return load_ensembles(path, root)


def saved_summary(path) -> dict:
    """The summary saved with the run at ``path`` (its metadata file only, refused over the ``run_bytes`` limit
    before it is read); a ``LabError`` when it cannot be read."""
    from pathlib import Path

    from .store import FIELDS, KIND
    from ..limits import check_load
    from ..runstore import META, read_meta

    check_load(Path(path) / META)
    return read_meta(path, KIND, FIELDS).get("summary") or {}


def results_dir(directory=None):
    from .store import ensembles_dir

    return ensembles_dir(directory)


def list_runs(directory=None) -> list:
    from .store import list_ensembles

    return list_ensembles(directory)


FAMILY = Family(
    order=80,
    pane="lab.ensembles.pane:Ensembles", tab=70, run_css=".ens",
    claims=("lab.ensembles.claims",),
    papers=(("ensembles", "Ensembles Learn Equivariance Through Data Augmentation (Nordenfors, poster)"),),
    name="ensembles", title="Ensembles", config=EnsemblesConfig, run=run, summary=summary, text=text, save=save,
    load=load, results_dir=results_dir, cli_saves=True, runs="lab.ensembles.store:RUNS", headline="slope",
    help="ensembles trained under augmentation become equivariant: the theorem's two assumptions tested",
    description="Nordenfors & Flinth: if the layer space is invariant and the initialisation invariantly "
                "distributed, the ensemble mean trained under data augmentation is equivariant at every time. A pool "
                "of small CNNs on the rotation-invariant digits task under C4 in setting invariant, "
                "noninvariant-init or noninvariant-space; the ensemble's equivariance error, symmetric KL and "
                "orbit-same-prediction against the ensemble size M, and the fitted log-log slope.")
