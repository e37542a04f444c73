"""Experiment family ``emlp``: the thesis's chapter-2 experiments (Finzi, sections 2.6-2.7, Figures 2.5-2.6).

EMLP (with the task's group, or another one given), MLP and MLP trained with augmentation, on the O(5)-invariant
regression, the O(3) moment of inertia and the Lorentz-invariant scattering task, over dataset sizes: the
data-efficiency curve of Figure 2.5.  ``--scale paper`` is the thesis's training (appendix A.1.9: 384 channels,
min(900 000/N, 1000) epochs, 5 000 test points); the default ``small`` runs in about a minute on a laptop CPU.

``--task pendulum`` is section 2.7.2 (Table 2.2, Figure 2.6): each model learns the double spring pendulum's
dynamics as a Hamiltonian network and/or a Neural ODE (``dynamics``; models ``hnn-emlp``, ``node-mlp``, ...,
``lab.nn.hamiltonian``), the sizes are training trajectories (default 64; the thesis 500) and the EMLP's group is
one about z (default ``O2eR3()``; ``SO2eR3()``, ``DkeR3(k)``).  Each model also reports ``rollout_error`` and
``momentum_error`` (30 s rollouts from held-out states: the state's and L_z's relative errors, geometric means);
``test_mse`` is the training loss (1 s chunks) on the held-out starts.

>>> from lab.emlp.family import EMLPConfig, FAMILY
>>> cfg = EMLPConfig(task="inertia", sizes=("30",), models=("mlp", "emlp"), channels=16, epochs=2, test=50)
>>> out = FAMILY.summary(FAMILY.run(cfg))
>>> out["task"], out["sizes"], sorted(out["models"])
('inertia', [30], ['emlp', 'mlp'])
>>> out["models"]["emlp"]["equivariance_error"] < 1e-4 < out["models"]["mlp"]["equivariance_error"]
True
>>> out["models"]["emlp"]["audit_ok"], out["models"]["mlp"]["audit_ok"]   # lab.equivariance under O(3)
(True, False)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from ..config import SEED_HIGH, Config, ConfigError, option
from ..experiments.family import Family, progress_record

TASKS = ("o5", "inertia", "scattering", "pendulum")
MODELS = ("mlp", "mlp-aug", "emlp")
#: what a pendulum model learns: its Hamiltonian (``hnn``, dz/dt = J grad H) or its vector field (``node``)
DYNAMICS = ("hnn", "node")
SCALES = ("small", "paper")
#: the test-set size and training schedule of each scale (``lab.nn.train``: SMALL, PAPER)
TEST_POINTS = {"small": 1000, "paper": 5000}
#: the training-set sizes when none are given (for the pendulum: the scale's training trajectories, 64 or the
#: thesis's 500, ``lab.nn.hamiltonian`` SMALL and PAPER)
REGRESSION_SIZES = (100, 1000)


#: what each result row says of the trained model's audit (``lab.nn.train.audit_model``: ``lab.equivariance`` under
#: the data's group): the worst relative error, its verdict, the dtype's tolerance
AUDIT_KEYS = ("audit_error", "audit_ok", "audit_tolerance")


def pendulum_name(kind: str, model: str) -> str:
    """The pendulum model of ``kind`` (hnn/node) over ``model`` (mlp/mlp-aug/emlp): ``"hnn-emlp"``."""
    return f"{kind}-{model}"


@dataclass
class EMLPConfig(Config):
    """The settings of a chapter-2 run (``lab emlp``; Finzi's thesis, sections 2.6-2.7, Figures 2.5-2.6): EMLP, MLP
    and MLP with augmentation trained on ``task`` over the training-set sizes ``sizes``, for ``seeds`` seeds each.

    Its fields are declared with ``option(...)``.  ``task`` is the dispatch field: ``dynamics`` applies to the
    pendulum only, where each model is trained as a Hamiltonian network and/or a Neural ODE and ``sizes`` counts
    training trajectories.  Settings left None come from ``scale`` (``small``: fast defaults; ``paper``: the thesis's
    training, appendix A.1.9), and ``group`` None is the task's own group.  ``size_list``, ``test_points`` and
    ``model_names`` read the settings as the run uses them; ``check()`` refuses bad sizes, a group that does not
    fit the task and data over the memory limit before anything is drawn.
    """

    dispatch = "task"

    task: str = option("inertia", "the chapter-2 task", choices=TASKS)
    models: tuple[str, ...] = option(MODELS, "comma list of mlp, mlp-aug, emlp", choices=MODELS)
    dynamics: tuple[str, ...] = option(DYNAMICS, "pendulum: comma list of hnn (a Hamiltonian network), node (a "
                                                 "Neural ODE); each model is trained as each", choices=DYNAMICS,
                                       only=("pendulum",))
    group: str | None = option(None, "the EMLP's group (default: the task's, e.g. O(3) for inertia, O2eR3() for "
                                     "the pendulum; SO(5), SO13p(), SO2eR3() or DkeR3(6) for the thesis's variants)")
    sizes: tuple[str, ...] | None = option(None, "comma list of training-set sizes (default 100,1000; Figure 2.5: "
                                                 "30 ... 30000); pendulum: training trajectories (default: small "
                                                 "64, paper 500)")
    scale: str = option("small", "small: fast defaults; paper: the thesis's training (appendix A.1.9)",
                        choices=SCALES)
    channels: int | None = option(None, "hidden channels (default 384, the thesis's; pendulum: small 32, paper "
                                        "128)", low=1, high=8192)
    layers: int | None = option(None, "hidden layers (default 3)", low=1, high=64)
    epochs: int | None = option(None, "epochs for every size (default: small min(150000/N, 300), paper "
                                      "min(900000/N, 1000); pendulum: small 150, paper 2000)", low=1,
                                high=1_000_000)
    lr: float = option(3e-3, "Adam learning rate", low=0, positive=True)
    batch: int = option(500, "batch size", low=1, high=1_000_000)
    test: int | None = option(None, "test points (default: small 1000, paper 5000; pendulum: held-out "
                                    "trajectories, small 16, paper 500)", low=1, high=10_000_000)
    seeds: int = option(1, "seeds per model and size (the thesis: 3); errors are their mean", low=1, high=100)
    seed: int = option(0, "first seed (data and weights)", low=0, high=SEED_HIGH)
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")

    def check(self) -> None:
        from ..device import check_device_name

        self.device = check_device_name(self.device)
        if self.sizes is not None:
            try:
                sizes = [int(s) for s in self.sizes]
            except ValueError:
                raise ConfigError(f"sizes must be whole numbers, got {','.join(self.sizes)}") from None
            if not sizes or min(sizes) < 2:
                raise ConfigError("every training-set size must be at least 2")
            self.sizes = tuple(str(s) for s in sizes)
        if self.task == "pendulum":
            from ..data.pendulum import z_axis_group

            if not self.dynamics:
                raise ConfigError("dynamics needs at least one of hnn, node")
            if self.group is not None:
                z_axis_group(self.group)  # the pendulum's EMLP acts on 3-vectors about z: a GroupError otherwise
            self.dynamics_settings(self.size_list[0]).check()
        elif self.group is not None:
            from ..data.regression import task_group

            task_group(self.group)  # a GroupError (a LabError) names a bad group before anything is built
        task = _task(self)
        for n in self.size_list:  # the data's bytes, refused over the memory limit before anything is drawn
            task.check(n + self.test_points)

    # ------------------------------------------------------------------ what the settings mean
    @property
    def size_list(self) -> list[int]:
        if self.sizes is None:
            return [self._dynamics_base().train] if self.task == "pendulum" else list(REGRESSION_SIZES)
        return [int(s) for s in self.sizes]

    @property
    def test_points(self) -> int:
        if self.task == "pendulum":
            return self.dynamics_settings(2).test
        return self.test if self.test is not None else TEST_POINTS[self.scale]

    @property
    def model_names(self) -> list[str]:
        """The models as results name them: ``models``, or for the pendulum each of ``dynamics`` x ``models``."""
        if self.task == "pendulum":
            return [pendulum_name(k, m) for k in self.dynamics for m in self.models]
        return list(self.models)

    def _dynamics_base(self):
        from ..nn.hamiltonian import PAPER, SMALL

        return PAPER if self.scale == "paper" else SMALL

    def dynamics_settings(self, n: int):
        """The pendulum's ``lab.nn.hamiltonian.DynamicsSettings`` for ``n`` training trajectories."""
        base = self._dynamics_base()
        over = {k: v for k, v in (("channels", self.channels), ("layers", self.layers), ("epochs", self.epochs),
                                  ("test", self.test)) if v is not None}
        return replace(base, train=n, lr=self.lr, batch=self.batch, device=self.device, **over)

    def schedule(self):
        from ..nn.train import PAPER, SMALL

        base = PAPER if self.scale == "paper" else SMALL
        over = {k: v for k, v in (("channels", self.channels), ("layers", self.layers)) if v is not None}
        base = replace(base, lr=self.lr, batch=self.batch, **over)
        if self.epochs is not None:
            base = replace(base, epoch_budget=self.epochs * 10**9, max_epochs=self.epochs)
        return base

    def total_steps(self) -> int:
        """Optimiser steps of the whole run, exact (what the limit and the ETA count)."""
        if self.task == "pendulum":
            return len(self.model_names) * self.seeds * sum(self.dynamics_settings(n).steps()
                                                            for n in self.size_list)
        s = self.schedule()
        return len(self.models) * self.seeds * sum(s.steps(n) for n in self.size_list)


def _task(config: EMLPConfig):
    from ..data.regression import get_task

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
    from ..data.regression import task_group
    from ..nn.train import train_one

    config = config.validate()
    emit = progress or (lambda record: None)
    if config.task == "pendulum":
        return _run_pendulum(config, emit, control)
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


#: what a pendulum row keeps for the pane (one rollout, the true and the model's, and L_z along both)
ROLLOUT_KEYS = ("times", "rollout", "momentum_curve", "rollout_curve")


def _run_pendulum(config: EMLPConfig, emit, control) -> EMLPResult:
    """The pendulum (``lab.nn.hamiltonian.run_pendulum``) for every size and seed; its records relayed as the
    other tasks' (``epoch`` records of the training loss, ``result`` rows) so the faces draw both alike."""
    from ..control import Stopped
    from ..device import pick_device
    from ..nn.hamiltonian import pendulum_data, run_pendulum
    from ..data.pendulum import angular_momentum_z

    group_text = config.group or _task(config).group
    device = pick_device(config.device)
    result = EMLPResult(config, group_text)
    emit({"kind": "started", "task": config.task, "group": group_text, "models": config.model_names,
          "sizes": config.size_list, "device": str(device), "total_steps": config.total_steps()})
    t0 = time.monotonic()
    done, total = 0, 1
    try:
        # progress counts work, not steps: each model's steps weighted by what one costs (measured), so that the
        # ETA holds from the first, cheap model on
        emit(progress_record(0, 1, "measuring each model's step"))
        weight = _step_weights(config, group_text, str(device), control)
        total = sum(weight[name] * config.dynamics_settings(n).steps() * config.seeds
                    for n in config.size_list for name in config.model_names)
        for n in config.size_list:
            settings = replace(config.dynamics_settings(n), device=str(device))
            for s in range(config.seeds):
                seed = config.seed + s
                emit(progress_record(done, total, f"integrating {settings.train} + {settings.test} trajectories "
                                                  f"(seed {seed})"))
                data = pendulum_data(settings, seed, control=control)  # once for every model of this size and seed
                for name in config.model_names:
                    steps, w = settings.steps(), weight[name]

                    def relay(record, base=done, name=name, steps=steps, seed=seed, w=w):
                        if record["kind"] != "step":
                            return
                        emit({"kind": "epoch", "model": name, "size": n, "seed": seed, "epoch": record["step"],
                              "epochs": steps, "train_mse": record["train_mse"]})
                        emit(progress_record(base + w * record["step"], total, f"{name} on {n} trajectories "
                                             f"(seed {seed}): step {record['step']}/{steps}"))

                    row = run_pendulum((name,), (group_text,), settings, seed=seed, progress=relay,
                                       control=control, data=data)[0]
                    done += w * steps
                    sample = row["samples"][0] if row["samples"] else None
                    out = {"model": name, "size": n, "seed": seed, "group": row["group"],
                           "test_mse": row["test_mse"], "train_mse": row["train_mse"],
                           "equivariance_error": row["equivariance_error"],
                           **{k: row.get(k) for k in AUDIT_KEYS},
                           "rollout_error": row["rollout_error"], "momentum_error": row["momentum_error"],
                           "seconds": row["seconds"], "integrator": row["integrator"],
                           "times": row["times"], "rollout_curve": row["rollout_curve"],
                           "momentum_curve": row["momentum_curve"],
                           "rollout": None if sample is None else
                           {"true": sample["true"], "pred": sample["pred"],
                            "true_lz": angular_momentum_z(np.asarray(sample["true"])).tolist(),
                            "pred_lz": angular_momentum_z(np.asarray(sample["pred"])).tolist()}}
                    curve = [{"epoch": r["step"], "epochs": steps, "train_mse": r["train_mse"], "model": name,
                              "size": n} for r in row["curve"]]
                    result.rows.append(out | {"curve": curve})
                    emit({"kind": "result", **out})
    except Stopped:
        result.status = "stopped"
    emit(progress_record(done, total, f"{result.status} in {time.monotonic() - t0:.0f} s"))
    return result


def _step_weights(config: EMLPConfig, group_text: str, device: str, control) -> dict:
    """{model name: progress units per training step}: each model's measured step time
    (``lab.nn.hamiltonian.step_seconds`` at the first size's settings) over the cheapest's, times 10, rounded
    (at least 1)."""
    from ..control import checkpoint, progress_weights
    from ..nn.hamiltonian import _split, step_seconds

    settings = replace(config.dynamics_settings(config.size_list[0]), device=device)
    seconds = {}
    for name in config.model_names:
        checkpoint(control)
        seconds[name] = step_seconds(name, group_text if _split(name)[1] == "emlp" else None, settings, device)
    return progress_weights(seconds)


def summary(result: EMLPResult) -> dict:
    """``{"task", "sizes", "group", "models": {name: {"test_mse": [mean over seeds, one per size],
    "equivariance_error": worst over sizes and seeds, "audit_error": the audit's worst over sizes and seeds,
    "audit_ok": every one within tolerance (None where one was not audited), "train_mse": [...]}}}`` (the
    ``lab emlp --json`` object);
    the pendulum's models (``hnn-emlp``, ...) also have ``rollout_error`` and ``momentum_error`` (geometric means
    over seeds, one per size: the metrics are geometric means themselves); ``mean_mse`` (regression tasks: the test
    MSE of predicting the training targets' mean, mean over seeds, one per size; else None)."""
    import math

    cfg = result.config
    models = {}
    pendulum = cfg.task == "pendulum"

    def per_size(rows, key, geometric=False):
        out = []
        for n in cfg.size_list:
            vals = [r[key] for r in rows if r["size"] == n]
            if not vals:
                out.append(None)
            elif geometric:
                out.append(math.exp(sum(math.log(v) for v in vals) / len(vals)))
            else:
                out.append(sum(vals) / len(vals))
        return out

    for m in cfg.model_names:
        rows = [r for r in result.rows if r["model"] == m]
        errs = [r["equivariance_error"] for r in rows if r["equivariance_error"] is not None
                and not math.isnan(r["equivariance_error"])]
        audits = [r.get("audit_error") for r in rows]
        audited = [a for a in audits if a is not None and not math.isnan(a)]
        models[m] = {"test_mse": per_size(rows, "test_mse"), "train_mse": per_size(rows, "train_mse"),
                     "equivariance_error": max(errs) if errs else None,
                     "audit_error": max(audited) if audited else None,
                     "audit_ok": all(bool(r.get("audit_ok")) for r in rows) if rows and len(audited) == len(rows)
                     else None}
        if pendulum:
            models[m] |= {"rollout_error": per_size(rows, "rollout_error", True),
                          "momentum_error": per_size(rows, "momentum_error", True)}
    # the trivial baseline per size (regression tasks; the same data for every model): predicting the mean
    means = None if pendulum else per_size([r for r in result.rows if r.get("mean_mse") is not None], "mean_mse")
    return {"task": cfg.task, "sizes": cfg.size_list, "group": result.group, "scale": cfg.scale,
            "seeds": cfg.seeds, "status": result.status, "models": models,
            "mean_mse": means if means and any(v is not None for v in means) else None}


def _cells(values, width: int = 12) -> str:
    return "".join(f"{x:>{width}.3g}" if x is not None else f"{'-':>{width}}" for x in values)


def text(result: EMLPResult) -> str:
    s = summary(result)
    if s["task"] == "pendulum":
        head = (f"pendulum: EMLP over {s['group']}; 30 s rollouts from held-out states, by training trajectories "
                f"(geometric mean of {s['seeds']} seed(s))")
        cols = [("rollout err", "rollout_error"), ("L_z err", "momentum_error"), ("test MSE", "test_mse")]
    else:
        head = f"{s['task']}: EMLP over {s['group']}; test MSE by training-set size (mean of {s['seeds']} seed(s))"
        cols = [("", "test_mse")]
    lines = [head]
    for i, (title, key) in enumerate(cols):  # the equivariance error once, beside the first table
        if title:
            lines.append(f"{title}:")
        lines.append(f"{'model':<13}" + "".join(f"{n:>12}" for n in s["sizes"]) + (f"{'equiv. err':>12}" * (i == 0)))
        for m, v in s["models"].items():
            e = v["equivariance_error"]
            last = "" if i else f"{e:>12.2g}" if e is not None else f"{'-':>12}"
            lines.append(f"{m:<13}{_cells(v[key])}{last}")
    if s.get("mean_mse"):
        lines.append(f"{'mean':<13}{_cells(s['mean_mse'])}  (predicting the training targets' mean)")
    return "\n".join(lines)


def save(result: EMLPResult, directory=None):
    from .store import save_emlp

    curves = [c | {"seed": r["seed"]} for r in result.rows for c in r["curve"]]
    rows = [{k: v for k, v in r.items() if k != "curve" and k not in ROLLOUT_KEYS} for r in result.rows]
    kept = [i for i, r in enumerate(result.rows) if r.get("rollout") is not None]
    rollouts = None
    if kept:  # the pendulum: one held-out rollout per row, so a loaded run draws them too
        rollouts = {"rows": np.asarray(kept, dtype=np.int64),
                    "times": np.asarray(result.rows[kept[0]]["times"], dtype=float),
                    "states": np.asarray([[result.rows[i]["rollout"]["true"], result.rows[i]["rollout"]["pred"]]
                                          for i in kept], dtype=float),
                    "lz": np.asarray([[result.rows[i]["rollout"]["true_lz"], result.rows[i]["rollout"]["pred_lz"]]
                                      for i in kept], dtype=float)}
    return save_emlp(result.config.to_dict(), rows, curves, summary(result), directory, result.status, rollouts)


def load(path, root=None):
    from .store import load_emlp

    return load_emlp(path, root)


def list_runs(directory=None) -> list:
    """The saved runs under ``results_dir(directory)``, newest first."""
    from .store import list_emlp

    return list_emlp(directory)


def results_dir(directory=None):
    from .store import emlp_dir

    return emlp_dir(directory)


FAMILY = Family(
    order=50,
    pane="lab.emlp.pane:EquivariantModels", tab=50, run_css=".eqm",
    claims=("lab.emlp.claims", "lab.emlp.claims_pendulum"),
    papers=(("thesis", "Understanding and Incorporating Mathematical Inductive Biases in "
                          "Neural Networks (Finzi, PhD thesis, NYU 2023)"),),
    name="emlp", title="Equivariant models", config=EMLPConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True, runs="lab.emlp.store:RUNS",
    help="train EMLP, MLP and MLP-Aug on the thesis's chapter-2 tasks over dataset sizes",
    description="Finzi's thesis, chapter 2: equivariant MLPs built from the solved bases (lab.nn) against an MLP "
                "and an MLP trained with augmentation, test MSE against the training-set size (Figure 2.5) and "
                "each model's equivariance error; --scale paper is the thesis's training.")
