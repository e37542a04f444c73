"""Experiment family ``emlp``: the thesis's chapter-2 experiments (Finzi, sections 2.6-2.7, Figure 2.5).

EMLP (with the task's group, or another one given), MLP and MLP trained with augmentation, on the O(5)-invariant
regression, the O(3) moment of inertia and the Lorentz-invariant scattering task, over dataset sizes: the
data-efficiency curve of Figure 2.5.  ``--scale paper`` is the thesis's training (appendix A.1.9: 384 channels,
min(900 000/N, 1000) epochs, 5 000 test points); the default ``small`` runs in about a minute on a laptop CPU.

>>> from lab.experiments.emlp import EMLPConfig, FAMILY
>>> cfg = EMLPConfig(task="inertia", sizes=("30",), models=("mlp", "emlp"), channels=16, epochs=2, test=50)
>>> out = FAMILY.summary(FAMILY.run(cfg))
>>> out["task"], out["sizes"], sorted(out["models"])
('inertia', [30], ['emlp', 'mlp'])
>>> out["models"]["emlp"]["equivariance_error"] < 1e-4 < out["models"]["mlp"]["equivariance_error"]
True
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ..config import Config, ConfigError, option
from .family import Family, progress_record

TASKS = ("o5", "inertia", "scattering")
MODELS = ("mlp", "mlp-aug", "emlp")
SCALES = ("small", "paper")
#: the test-set size and training schedule of each scale (``lab.emlp.train``: SMALL, PAPER)
TEST_POINTS = {"small": 1000, "paper": 5000}


@dataclass
class EMLPConfig(Config):
    task: str = option("inertia", "the chapter-2 task", choices=TASKS)
    models: tuple[str, ...] = option(MODELS, "comma list of mlp, mlp-aug, emlp", choices=MODELS)
    group: str | None = option(None, "the EMLP's group (default: the task's, e.g. O(3) for inertia; "
                                     "SO(5) or SO13p() for the thesis's variants)")
    sizes: tuple[str, ...] = option(("100", "1000"), "comma list of training-set sizes (Figure 2.5: 30 ... 30000)")
    scale: str = option("small", "small: fast defaults; paper: the thesis's training (appendix A.1.9)",
                        choices=SCALES)
    channels: int | None = option(None, "hidden channels (default 384, the thesis's)", low=1, high=8192)
    layers: int | None = option(None, "hidden layers (default 3)", low=1, high=64)
    epochs: int | None = option(None, "epochs for every size (default: small min(150000/N, 300), paper "
                                      "min(900000/N, 1000))", low=1, high=1_000_000)
    lr: float = option(3e-3, "Adam learning rate", low=0, positive=True)
    batch: int = option(500, "batch size", low=1, high=1_000_000)
    test: int | None = option(None, "test points (default: small 1000, paper 5000)", low=1, high=10_000_000)
    seeds: int = option(1, "seeds per model and size (the thesis: 3); errors are their mean", low=1, high=100)
    seed: int = option(0, "first seed (data and weights)", low=0)
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")

    def check(self) -> None:
        from ..device import check_device_name

        self.device = check_device_name(self.device)
        try:
            sizes = [int(s) for s in self.sizes]
        except ValueError:
            raise ConfigError(f"sizes must be whole numbers, got {','.join(self.sizes)}") from None
        if not sizes or min(sizes) < 2:
            raise ConfigError("every training-set size must be at least 2")
        self.sizes = tuple(str(s) for s in sizes)
        if self.group is not None:
            from ..emlp import task_group

            task_group(self.group)  # a GroupError (a LabError) names a bad group before anything is built
        task = _task(self)
        for n in sizes:  # the data's bytes, refused over the memory limit before anything is drawn
            task.check(n + self.test_points)

    # ------------------------------------------------------------------ what the settings mean
    @property
    def size_list(self) -> list[int]:
        return [int(s) for s in self.sizes]

    @property
    def test_points(self) -> int:
        return self.test if self.test is not None else TEST_POINTS[self.scale]

    def schedule(self):
        from ..emlp.train import PAPER, SMALL

        base = PAPER if self.scale == "paper" else SMALL
        over = {k: v for k, v in (("channels", self.channels), ("layers", self.layers)) if v is not None}
        base = replace(base, lr=self.lr, batch=self.batch, **over)
        if self.epochs is not None:
            base = replace(base, epoch_budget=self.epochs * 10**9, max_epochs=self.epochs)
        return base

    def total_steps(self) -> int:
        """Optimiser steps of the whole run, exact (what the limit and the ETA count)."""
        s = self.schedule()
        return len(self.models) * self.seeds * sum(s.steps(n) for n in self.size_list)


def _task(config: EMLPConfig):
    from ..emlp import get_task

    return get_task(config.task)


@dataclass
class EMLPResult:
    config: EMLPConfig
    group: str  # the EMLP's group
    rows: list = field(default_factory=list)  # one per (model, size, seed): numbers and curve
    status: str = "finished"


def run(config: EMLPConfig, progress=None, control=None) -> EMLPResult:
    """Train every model on every size (and seed); records stream to ``progress``."""
    from ..control import Stopped
    from ..device import pick_device
    from ..emlp import task_group
    from ..emlp.train import train_one

    config = config.validate()
    emit = progress or (lambda record: None)
    task = _task(config)
    group_text = config.group or task.group
    group, symmetry = task_group(group_text), task_group(task.group)
    device = pick_device(config.device)
    schedule = config.schedule()
    total, done = config.total_steps(), 0
    result = EMLPResult(config, group_text)
    emit({"kind": "started", "task": config.task, "group": group_text, "models": list(config.models),
          "sizes": config.size_list, "device": str(device), "total_steps": total})
    emit(progress_record(0, total, "building"))
    t0 = time.monotonic()
    try:
        for n in config.size_list:
            for s in range(config.seeds):
                seed = config.seed + s
                Xtr, Ytr = task.make(n, seed=2 * seed)
                Xte, Yte = task.make(config.test_points, seed=2 * seed + 1)
                for model in config.models:
                    steps = schedule.steps(n)

                    def relay(row, base=done, steps=steps, model=model):
                        frac = row["epoch"] / row["epochs"]
                        emit(row | {"seed": seed})
                        emit(progress_record(base + round(frac * steps), total,
                                             f"{model} on {n} points (seed {seed}): epoch {row['epoch']}/"
                                             f"{row['epochs']}"))

                    out = train_one(model, task, group if model == "emlp" else symmetry,
                                    (Xtr, Ytr, Xte, Yte), schedule, seed=seed, device=device, progress=relay,
                                    control=control, record_every=max(1, schedule.epochs(n) // 20),
                                    symmetry=symmetry)
                    out.pop("net")
                    done += steps
                    row = {k: v for k, v in out.items() if k != "curve"} | {"seed": seed}
                    result.rows.append(row | {"curve": out["curve"]})
                    emit({"kind": "result", **row})
    except Stopped:
        result.status = "stopped"
    emit(progress_record(done, total, f"{result.status} in {time.monotonic() - t0:.0f} s"))
    return result


def summary(result: EMLPResult) -> dict:
    """``{"task", "sizes", "group", "models": {name: {"test_mse": [mean over seeds, one per size],
    "equivariance_error": worst over sizes and seeds, "train_mse": [...]}}}`` (the ``lab emlp --json`` object)."""
    import math

    cfg = result.config
    models = {}
    for m in cfg.models:
        rows = [r for r in result.rows if r["model"] == m]
        per_size = []
        for n in cfg.size_list:
            vals = [r["test_mse"] for r in rows if r["size"] == n]
            per_size.append(sum(vals) / len(vals) if vals else None)
        train = []
        for n in cfg.size_list:
            vals = [r["train_mse"] for r in rows if r["size"] == n]
            train.append(sum(vals) / len(vals) if vals else None)
        errs = [r["equivariance_error"] for r in rows if r["equivariance_error"] is not None
                and not math.isnan(r["equivariance_error"])]
        models[m] = {"test_mse": per_size, "train_mse": train,
                     "equivariance_error": max(errs) if errs else None}
    return {"task": cfg.task, "sizes": cfg.size_list, "group": result.group, "scale": cfg.scale,
            "seeds": cfg.seeds, "status": result.status, "models": models}


def text(result: EMLPResult) -> str:
    s = summary(result)
    head = f"{s['task']}: EMLP over {s['group']}; test MSE by training-set size (mean of {s['seeds']} seed(s))"
    lines = [head, f"{'model':<10}" + "".join(f"{n:>12}" for n in s["sizes"]) + f"{'equiv. err':>12}"]
    for m, v in s["models"].items():
        cells = "".join(f"{x:>12.3g}" if x is not None else f"{'-':>12}" for x in v["test_mse"])
        e = v["equivariance_error"]
        lines.append(f"{m:<10}{cells}{e:>12.2g}" if e is not None else f"{m:<10}{cells}{'-':>12}")
    return "\n".join(lines)


def save(result: EMLPResult, directory=None):
    from ..emlp.store import save_emlp

    curves = [c | {"seed": r["seed"]} for r in result.rows for c in r["curve"]]
    rows = [{k: v for k, v in r.items() if k != "curve"} for r in result.rows]
    return save_emlp(result.config.to_dict(), rows, curves, summary(result), directory, result.status)


def load(path, root=None):
    from ..emlp.store import load_emlp

    return load_emlp(path, root)


def results_dir(directory=None):
    from ..emlp.store import emlp_dir

    return emlp_dir(directory)


FAMILY = Family(
    name="emlp", title="Equivariant models", config=EMLPConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True,
    help="train EMLP, MLP and MLP-Aug on the thesis's chapter-2 tasks over dataset sizes",
    description="Finzi's thesis, chapter 2: equivariant MLPs built from the solved bases (lab.nn) against an MLP "
                "and an MLP trained with augmentation, test MSE against the training-set size (Figure 2.5) and "
                "each model's equivariance error; --scale paper is the thesis's training.")
