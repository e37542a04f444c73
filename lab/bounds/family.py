"""Experiment family ``bounds``: does symmetry make models simpler?  PAC-Bayes compression bounds, equivariant vs not
(thesis chapter 5; ``lab bound``; the science in ``lab.bounds``).

One run: one model (``--model mlp|cnn|gcnn``, comparable parameter counts) on one dataset (``--data``), and for every
subspace dimension d of ``--dims`` Algorithm 2 of the thesis -- train theta = theta_0 + P w, quantize w with learned
levels, arithmetic-code it, bound -- so that the bound itself chooses d (Figure 5.1b: training error, compressed
size and bound against d).  The union over the dims searched is paid in the description (log2 of their number, in
bits); every bound holds with probability 1 - delta (0.05).  ``d = 0`` is allowed: the initialisation itself.

Cost before work (``BoundsConfig.costs``): the model's parameter count D, the random numbers each projector holds,
the training steps, and the memory they need, refused over the memory limit in one line.

>>> from lab.bounds.family import FAMILY, BoundsConfig
>>> s = FAMILY.summary(FAMILY.run(BoundsConfig(dims="0,4", steps=2, quant_steps=2, train_points=64)))
>>> [r["d"] for r in s["dims"]], 0 < s["best_bound"] <= 1
([0, 4], True)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ..config import SEED_HIGH, Config, ConfigError, option
from ..experiments.family import Family, progress_record

# These lists are ``lab.bounds``'s, spelled here because ``lab --help`` imports no torch; tests check they agree.
#: ``lab.bounds.data.DATASETS`` / ``ROTATIONS``
DATASETS = ("digits", "rotated-digits", "shuffled-pixels", "shuffled-labels", "mnist")
ROTATIONS = ("c4", "continuous")
#: ``lab.bounds.models.MODELS``
MODELS = ("mlp", "cnn", "gcnn")
#: ``lab.bounds.projectors.PROJECTORS`` plus ``auto`` (dense while D x d <= 2^22 numbers, else kron-product)
PROJECTOR_CHOICES = ("auto", "dense", "kron-sum", "kron-product")
#: ``lab.bounds.quantize.LEVEL_INITS``
LEVEL_INITS = ("uniform", "kmeans")
#: the digits' side and classes (MNIST: 28)
SIDE, MNIST_SIDE, CLASSES = 8, 28, 10
#: the error of guessing among ten classes: a bound at or above it says nothing (vacuous)
GUESS_ERROR = 1 - 1 / CLASSES
#: the digits' training set (1 797 images, 20 % held out for the reported test error)
DIGITS_TRAIN = 1797 - round(0.2 * 1797)
MNIST_TRAIN = 60_000


def parse_dims(text: str) -> list[int]:
    """``"50,100,200"`` -> [50, 100, 200]: distinct non-negative integers, in increasing order."""
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise ConfigError("--dims needs at least one subspace dimension (e.g. 50,100,200)")
    out = []
    for p in parts:
        if not p.isdigit() or len(p) > 9:
            raise ConfigError(f"--dims: {p!r} is not a non-negative whole number below 10^9")
        out.append(int(p))
    if len(set(out)) != len(out):
        raise ConfigError(f"--dims lists a dimension twice: {text}")
    return sorted(out)


@dataclass
class BoundsConfig(Config):
    """The settings of one compression-bound run (``lab bound``; Finzi's thesis, chapter 5): PAC-Bayes bounds of
    one ``model`` on one dataset (``data``) for every subspace dimension d of ``dims``, the bound choosing d.

    Its fields are declared with ``option(...)``.  ``dims`` is a comma-separated text of distinct non-negative
    dimensions (``dim_list`` reads it); ``projector``, ``levels`` and ``level_init`` set the random subspace and the
    quantization, ``steps``/``lr`` and ``quant_steps``/``quant_lr`` the two training phases per d.  ``rotation``
    applies to ``data="rotated-digits"`` only and ``data_dir`` (MNIST's IDX files) to ``data="mnist"`` only.
    ``check()`` refuses inconsistent settings and a d larger than the model's parameter count (``parameters``),
    and computes the run's sizes (``costs``), refused over the memory limit before any work.
    """

    data: str = option("digits", "the training data: scikit-learn's digits, rotated digits (a rotation-invariant task; "
                                 "--rotation), digits with one fixed shuffle of their pixels, digits with shuffled "
                                 "labels, or MNIST from --data-dir", choices=DATASETS)
    model: str = option("cnn", "the model: an MLP, a CNN, or a C4-equivariant GCNN built from the engine's filter "
                               "bases (comparable parameter counts)", choices=MODELS)
    dims: str = option("50,100,200,400", "the subspace dimensions d searched, comma-separated (the bound chooses "
                                         "among them and pays log2 of their number in bits)", metavar="D1,D2,...")
    rotation: str = option("c4", "rotated digits: each image rotated by a multiple of 90 degrees (c4) or a uniform "
                                 "angle (continuous, bilinear); --data rotated-digits only", choices=ROTATIONS)
    data_dir: str | None = option(None, "the directory of MNIST's IDX files (train and t10k; never downloaded); "
                                        "--data mnist only", metavar="DIR")
    width: int = option(16, "CNN channels (the GCNN has width/2 fields of 4 orientations; the MLP's hidden width is "
                            "matched to the CNN's parameter count)", low=2, high=1024)
    projector: str = option("auto", "the random subspace: dense Gaussian (Li et al.), Kronecker sum or Kronecker "
                                    "product (thesis section 5.4.1); auto: dense while D x d <= 2^22 numbers",
                            choices=PROJECTOR_CHOICES)
    levels: int = option(7, "quantization levels L (appendix A.4.5.4: 7; at least 2: one level codes nothing and its "
                            "prior over levels is not normalizable)", low=2, high=256)
    level_init: str = option("uniform", "how the levels start: uniform between the weights' extremes (the thesis's "
                                        "Figure 5.3 setting) or k-means", choices=LEVEL_INITS)
    steps: int = option(600, "Adam steps training w in the subspace, per d", low=0, high=10_000_000)
    lr: float = option(0.02, "learning rate of the subspace training", low=0, positive=True)
    batch: int = option(128, "mini-batch size", low=1, high=1_000_000)
    quant_steps: int = option(300, "quantization-aware training steps (w and the levels together), per d", low=0,
                              high=10_000_000)
    quant_lr: float = option(0.003, "learning rate of the quantization-aware training", low=0, positive=True)
    train_points: int | None = option(None, "use only the first N training points (default: all)", low=1,
                                      high=10_000_000)
    seed: int = option(0, "seed of the split, the initialisation theta_0, the projector and the batches", low=0,
                       high=SEED_HIGH)
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")

    def check(self) -> None:
        from ..device import check_device_name

        self.device = check_device_name(self.device)
        self.dim_list()
        if self.rotation != self.option_named("rotation").default and self.data != "rotated-digits":
            raise ConfigError(f"--rotation applies to --data rotated-digits, not {self.data}")
        if self.data == "mnist":
            if self.data_dir is None:
                raise ConfigError("--data mnist needs --data-dir DIR (the directory of MNIST's IDX files)")
            from ..data.mnist import MnistError, find

            try:
                for split in ("train", "t10k"):
                    for kind in ("images", "labels"):
                        find(self.data_dir, split, kind)
            except MnistError as err:
                raise ConfigError(f"--data-dir {self.data_dir}: {err}") from None
        elif self.data_dir is not None:
            raise ConfigError(f"--data-dir applies to --data mnist, not {self.data}")
        D = self.parameters()
        for d in self.dim_list():
            if d == 1:  # the levels are min(levels, d): one, whose code (a point mass) the range coder cannot build
                raise ConfigError("--dims: d = 1 leaves one quantization level (L = min(levels, d)), which has no "
                                  "arithmetic code: give d = 0 (the initialisation itself) or d >= 2")
            if d > D:
                raise ConfigError(f"--dims: d = {d} is larger than the model's {D} parameters")
        self.costs()

    def dim_list(self) -> list[int]:
        return parse_dims(self.dims)

    def side(self) -> int:
        return MNIST_SIDE if self.data == "mnist" else SIDE

    def training_points(self) -> int:
        n = MNIST_TRAIN if self.data == "mnist" else DIGITS_TRAIN
        return min(n, self.train_points) if self.train_points else n

    def parameters(self) -> int:
        """D: the model's parameter count, from the sizes alone (``lab.bounds.models.model_parameters``)."""
        from .models import model_parameters

        return model_parameters(self.model, self.width, self.side(), CLASSES)

    def projector_for(self, d: int) -> str:
        if self.projector != "auto":
            return self.projector
        from .subspace import auto_projector

        return auto_projector(self.parameters(), d)

    def hyperparameter_bits(self) -> float:
        """The bits paid for choosing d among the dims searched (appendix A.4.2)."""
        return math.log2(len(self.dim_list()))

    def costs(self) -> dict:
        """Exact ``parameters`` (D), ``projector_numbers`` (the largest projector's random numbers), ``steps`` (every
        d's training and quantization steps), ``training_points``, and ``memory_bytes``: the largest projector plus
        the activations of one batch (float32, kept for backward), refused over the memory limit."""
        from .projectors import projector_numbers
        from ..limits import check_memory

        D, dims, side = self.parameters(), self.dim_list(), self.side()
        numbers = max(projector_numbers(self.projector_for(d), D, d) for d in dims)
        channels = max(self.width, 4 * max(self.width // 2, 1)) if self.model != "mlp" else 1
        activations = self.batch * (channels * side * side * 3 + side * side) * 4 * 3
        eval_batch = 2048 * (channels * side * side * 2 + side * side) * 4
        need = 4 * (numbers + 8 * D) + activations + eval_batch
        check_memory(f"bounds for the {self.model} at d = {max(dims)}", need)
        return {"parameters": D, "projector_numbers": numbers, "steps": len(dims) * (self.steps + self.quant_steps),
                "training_points": self.training_points(), "memory_bytes": need}


@dataclass
class BoundsResult:
    config: BoundsConfig
    rows: list = field(default_factory=list)  # one per subspace dimension: ``lab.bounds.subspace.compute_bound``
    losses: list = field(default_factory=list)  # (d, phase, step, loss) every few steps
    costs: dict = field(default_factory=dict)
    n: int = 0
    device: str = "cpu"
    seconds: float = 0.0
    status: str = "finished"


#: a ``loss`` record is sent every this many steps
LOSS_EVERY = 10


def run(config: BoundsConfig, progress=None, control=None) -> BoundsResult:
    """Compute the bound at every d of ``config.dims``; records: ``started``, ``progress`` (steps), ``loss`` (every
    ``LOSS_EVERY`` steps: d, phase "train" or "quantize", step, loss), ``dim`` (one d's row, as it finishes) and
    ``result``."""
    from .data import bound_data
    from .models import build_model
    from .subspace import BoundSettings, compute_bound
    from ..control import Stopped
    from ..device import pick_device

    config = config.validate()
    emit = progress or (lambda record: None)
    costs = config.costs()
    device = pick_device(config.device)
    data = bound_data(config.data, config.seed, config.rotation, config.data_dir, config.train_points)
    result = BoundsResult(config, costs=costs, n=data.n, device=str(device))
    dims, total = config.dim_list(), costs["steps"]
    per_d = config.steps + config.quant_steps
    emit({"kind": "started", "model": config.model, "data": config.data, "dims": dims, "n": data.n,
          "device": str(device), "total": total, **costs})
    emit(progress_record(0, total, f"bounds for the {config.model} on {config.data}"))
    settings = BoundSettings(steps=config.steps, lr=config.lr, batch=config.batch, levels=config.levels,
                             level_init=config.level_init, quant_steps=config.quant_steps, quant_lr=config.quant_lr,
                             projector=config.projector)
    extra = config.hyperparameter_bits()
    t0 = time.monotonic()
    try:
        for i, d in enumerate(dims):
            done = i * per_d

            def on_step(phase, step, steps, loss, d=d, done=done):
                k = step + (config.steps if phase == "quantize" else 0)
                if step % LOSS_EVERY == 0 or step == steps:
                    result.losses.append((d, phase, step, loss))
                    emit({"kind": "loss", "d": d, "phase": phase, "step": step, "loss": loss})
                    emit(progress_record(done + k, total, f"d = {d}: {phase} step {step}/{steps}"))

            model = build_model(config.model, config.width, data.side, data.classes, seed=config.seed)
            row = compute_bound(model, data, d, settings, seed=config.seed, extra_bits=extra, device=device,
                                control=control, on_step=on_step)
            result.rows.append(row)
            emit({"kind": "dim", "row": row})
            emit(progress_record(done + per_d, total, f"d = {d}: bound {row['bound']:.3f}"))
    except Stopped:
        result.status = "stopped"
    result.seconds = time.monotonic() - t0
    s = summary(result)
    emit({"kind": "result", "best_bound": s["best_bound"], "best_dim": s["best_dim"]})
    emit(progress_record(sum(per_d for _ in result.rows), total, f"{result.status} in {result.seconds:.1f} s"))
    return result


#: the keys of each ``dims`` entry of the summary (the first four are the issue's contract)
DIM_KEYS = ("d", "train_error", "compressed_bits", "bound", "train_error_float", "test_error", "coded_bits",
            "ideal_bits", "kl", "levels_used", "seconds")


def best_row(rows: list) -> dict | None:
    """The row with the lowest bound (the smallest d among ties)."""
    return min(rows, key=lambda r: (r["bound"], r["d"])) if rows else None


def summary(result: BoundsResult) -> dict:
    """The ``lab bound --json`` object: ``best_bound``, ``best_dim``, ``dims`` (one entry per d: ``d``,
    ``train_error`` (the quantized model's, what the bound uses), ``compressed_bits`` (the whole description),
    ``bound``, and ``train_error_float``, ``test_error``, ``coded_bits`` (arithmetic coding), ``ideal_bits``
    (ceil(d H) + 2), ``kl`` (nats), ``levels_used``, ``seconds``); plus ``best_test_error``, ``guess_error``
    (0.9: a bound at or above it is vacuous), ``vacuous``, ``model``, ``data``, ``rotation``, ``parameters`` (D),
    ``n`` (training points), ``delta``, ``hyperparameter_bits``, ``levels``, ``projector``, ``device``,
    ``seconds``, ``costs`` and ``status``."""
    from .bound import DELTA

    cfg = result.config
    best = best_row(result.rows)
    return {"best_bound": best["bound"] if best else None, "best_dim": best["d"] if best else None,
            "dims": [{k: r[k] for k in DIM_KEYS} for r in result.rows],
            "best_test_error": best["test_error"] if best else None, "guess_error": GUESS_ERROR,
            "vacuous": (best["bound"] >= GUESS_ERROR) if best else None, "model": cfg.model, "data": cfg.data,
            "rotation": cfg.rotation if cfg.data == "rotated-digits" else None, "parameters": result.costs.get(
                "parameters"), "n": result.n, "delta": DELTA, "hyperparameter_bits": cfg.hyperparameter_bits(),
            "levels": cfg.levels, "projector": cfg.projector, "device": result.device, "seconds": result.seconds,
            "costs": result.costs, "status": result.status}


def text(result: BoundsResult) -> str:
    s = summary(result)
    lines = [f"{s['model']} ({s['parameters']} parameters) on {s['data']}"
             + (f" ({s['rotation']})" if s["rotation"] else "") + f", n = {s['n']}: {len(s['dims'])} subspace "
             f"dimensions, {s['status']} in {s['seconds']:.1f} s on {s['device']}",
             f"{'d':>8}{'train err':>11}{'test err':>10}{'size (bits)':>13}{'KB':>8}{'bound':>8}"]
    for r in s["dims"]:
        lines.append(f"{r['d']:>8}{r['train_error']:>11.3f}{r['test_error']:>10.3f}{r['compressed_bits']:>13.0f}"
                     f"{r['compressed_bits'] / 8192:>8.3f}{r['bound']:>8.3f}")
    if s["best_bound"] is not None:
        lines.append(f"best bound {s['best_bound']:.3f} at d = {s['best_dim']} (95 % confidence; guessing errs "
                     f"{GUESS_ERROR:.1f}: {'vacuous' if s['vacuous'] else 'non-vacuous'}); its test error "
                     f"{s['best_test_error']:.3f}; {s['hyperparameter_bits']:.2f} bits paid for choosing d")
    return "\n".join(lines)


def compare(config: BoundsConfig, models, progress=None, control=None, on_result=None) -> list[BoundsResult]:
    """``run`` for each of ``models`` on ``config``'s data and settings (the pane's job): the records of each run
    carry ``"model"``, progress counts over all of them; stops after the run that was stopped.  ``on_result(result)``
    is called as each model's run ends (the pane saves it then, so a later model's failure loses nothing)."""
    from dataclasses import replace

    from ..control import Stopped, checkpoint

    emit = progress or (lambda record: None)
    configs = [replace(config, model=m).validate() for m in models]
    steps = [c.costs()["steps"] for c in configs]
    weights = [1] * len(configs)
    if len(configs) > 1:  # progress counts work, not steps: each model's steps weighted by what one costs, so that
        # the ETA holds from the first, cheap model on (a GCNN step costs many MLP steps)
        emit(progress_record(0, 1, "measuring each model's step"))
        try:
            weights = _step_weights(configs, control)
        except Stopped:
            return []
    totals = [w * n for w, n in zip(weights, steps)]
    results, offset, t0 = [], 0, time.monotonic()
    for cfg, total, w in zip(configs, totals, weights):
        def tagged(record, offset=offset, model=cfg.model, w=w):
            if record.get("kind") == "progress":
                record = {**record, "done": offset + w * record["done"], "total": sum(totals)}
            emit({**record, "model": model})

        try:
            checkpoint(control)
        except Stopped:
            break
        res = run(cfg, tagged, control)
        results.append(res)
        if on_result is not None:
            on_result(res)
        offset += total
        if res.status == "stopped":
            break
    if len(configs) > 1 and results:
        # the last word is the whole job's, not its last model's ("finished in 47 s" under "1:22 elapsed"); a
        # stopped model counts only the subspace dimensions it finished
        last = results[-1]
        done = offset
        if last.status == "stopped":
            done += weights[len(results) - 1] * len(last.rows) * (last.config.steps + last.config.quant_steps) \
                - totals[len(results) - 1]
        emit(progress_record(done, sum(totals), f"{len(results)} models {last.status} in "
                                                f"{time.monotonic() - t0:.1f} s"))
    return results


def step_seconds(config: BoundsConfig, repeats: int = 2) -> float:
    """Seconds of one subspace training step of ``config``'s model at its middle d (its projector included), on a
    batch of its data: the median of ``repeats`` steps after one warm-up.  The model is built and thrown away;
    torch's random state is left as it was."""
    import torch

    from .data import bound_data
    from .models import build_model
    from .subspace import Subspace
    from ..control import median_seconds
    from ..device import pick_device

    device = pick_device(config.device)
    dims = config.dim_list()
    d = max(1, dims[len(dims) // 2])
    state = torch.random.get_rng_state()
    try:
        data = bound_data(config.data, config.seed, config.rotation, config.data_dir, config.train_points)
        model = build_model(config.model, config.width, data.side, data.classes, seed=config.seed)
        net = Subspace(model, d, config.projector, seed=config.seed).to(device)
        x, y = data.x_train[:config.batch].to(device), data.y_train[:config.batch].to(device)
        opt = torch.optim.Adam([net.w], lr=config.lr)

        def one():
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

        return float(median_seconds(one, repeats))
    finally:
        torch.random.set_rng_state(state)


def _step_weights(configs, control=None) -> list[int]:
    """Progress units per step of each config's model (``progress_weights`` of its ``step_seconds``)."""
    from ..control import checkpoint, progress_weights

    seconds = {}
    for k, cfg in enumerate(configs):
        checkpoint(control)
        seconds[k] = step_seconds(cfg)
    return list(progress_weights(seconds).values())


def save(result: BoundsResult, directory=None):
    from .store import save_bounds

    return save_bounds(result.config.to_dict(), summary(result), result.rows, directory, result.status)


def load(path, root=None):
    from .store import load_bounds

    return load_bounds(path, root)


def results_dir(directory=None):
    from .store import bounds_dir

    return bounds_dir(directory)


def list_runs(directory=None) -> list:
    from .store import list_bounds

    return list_bounds(directory)


FAMILY = Family(
    order=90, command="bound",
    pane="lab.bounds.pane:GeneralizationBounds", tab=80, run_css=".bnd",
    claims=("lab.bounds.claims",),
    name="bounds", title="Generalization bounds", config=BoundsConfig, run=run, summary=summary, text=text, save=save,
    load=load, results_dir=results_dir, cli_saves=True, runs="lab.bounds.store:RUNS",
    help="PAC-Bayes compression bounds: is the equivariant model more compressible, hence provably better?",
    description="Thesis chapter 5: train in a random subspace theta = theta_0 + P w, quantize w with learned levels, "
                "arithmetic-code it, and bound the error with Catoni's PAC-Bayes bound under the universal prior "
                "(delta = 0.05), at every subspace dimension of --dims; the bound chooses d.  MLP, CNN or "
                "C4-equivariant GCNN on digits, rotated digits, shuffled pixels, shuffled labels or MNIST.")
