"""Experiment family ``rpp``: the Residual Pathway Priors chapter's levels of symmetry (Finzi's thesis, section
3.5.1, Figure 3.2; issue 28).

MLP, EMLP and RPP-EMLP on one regime of ``lab.rpp.tasks``: the data with an *exact* symmetry the models are built
with, an *approximate* one (the modified inertia: ``--variant original``, the authors' code, the default;
``thesis``, the thesis's formula as printed, whose added term is about 20 times the inertia itself, so that every
model's test MSE on it is on that term's scale; the default until 2026-11-27, which saved runs without the setting
still read as) or a *misspecified* one (the models over SL(3), the data O(3)).  Each model
is trained on ``--seeds`` seeds (data and weights); ``--json`` gives every seed's test MSE and equivariance error
(under the data's declared group: O(3) for the three inertia regimes, O2eR3() for the pendulum's).  RPP-EMLP
trains on its prior's objective (``--prior``: the thesis's MAP prior, variances 1e5 / 1, by default;
``runner-inertia``, ``runner-pendulum``: the authors' runners' weight decays), ``--prior-free`` /
``--prior-equivariant`` override a pathway's prior variance (``lab.rpp.train``).  ``--scale paper`` is the
thesis's training (A.2.3.1: 1000 train and 1000 test points, 500 epochs of batch 500, 3 x 384 channels, 10 seeds);
the default ``small`` keeps the thesis's data, width and batch and trains 80 epochs (160 steps), 3 seeds: about a
minute on an idle 2-core CPU (measured: one seed 23 s, start included, of which MLP 2.0 s, EMLP 7.0 s, RPP-EMLP
10.5 s; two to three times that while other jobs share the CPU).  Fewer points or smaller batches were no cheaper
way there: 500 points, RPP 3.6 against EMLP 1.9; batch 100, RPP-EMLP diverged.

``--task pendulum``: the three models as Hamiltonian networks on the double spring pendulum (``lab.rpp.pendulum``:
chapter 2's training loop, RPP-EMLP on its prior's objective, the summed likelihood of the chunks for the
thesis's prior); *exact* the plain pendulum, *approximate* the windy one (``--wind``: its eps, the thesis's 0.01),
*misspecified* the models over SO(3); every equivariance error under the data's declared O2eR3().  Test MSE: the
rollouts' MSE on held-out chunks (the thesis's test set), in float64.  ``--scale paper`` is A.2.3.1's (500 train
and 500 test chunks, 1000 epochs of one full batch, 3 x 128 channels, 10 seeds); ``small`` chapter 2's fast data
and width (64 chunks, 32 channels), 64 test chunks, 40 epochs, 3 seeds: about 70 s on an idle 2-core CPU (one
seed 22 s: MLP 1.5 s, EMLP 9.5 s, RPP-EMLP 11 s; twice that while other jobs share it).  ``--variant`` is
inertia's, ``--wind`` the pendulum's.

What the fast defaults show (``tests/test_rpp_approximate.py`` has the numbers): on approximate inertia as the
authors' code makes it (the default) RPP-EMLP's median test MSE over seeds 0-2 is below both MLP's and EMLP's, its
mean is not (seed 1 goes astray); on the thesis's formula (whose cubic term dominates the data) it is below EMLP but
above the MLP.
On the pendulum (measured on a shared 2-core CPU, seeds 0-2, test MSE; predicting no motion: 0.069, 0.065, 0.073)
40 epochs leave MLP and EMLP barely below that (exact: MLP 0.058, 0.060, 0.067, EMLP 0.061, 0.057, 0.064) and
RPP-EMLP well below (0.042, 0.034, 0.044, its free pathway 30% of its weights), in every regime alike
(approximate: MLP 0.060, 0.058, 0.069, EMLP 0.060, 0.059, 0.065, RPP 0.042, 0.033, 0.045; misspecified, SO(3):
MLP as exact, EMLP 0.067, 0.064, 0.072 -- an SO(3)-invariant H cannot see gravity -- RPP 0.054, 0.046, 0.059):
a faster start, not yet the thesis's pattern, at this budget.

>>> from lab.rpp.family import RPPConfig, FAMILY
>>> cfg = RPPConfig(symmetry="exact", size=20, test=20, channels=16, layers=1, epochs=2, seeds=1)
>>> out = FAMILY.summary(FAMILY.run(cfg))
>>> out["task"], out["symmetry"], sorted(out["models"]), len(out["models"]["rpp"]["test_mse"])
('inertia', 'exact', ['emlp', 'mlp', 'rpp'], 1)
>>> out["models"]["emlp"]["equivariance_error"][0] < 1e-4 < out["models"]["mlp"]["equivariance_error"][0]
True
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ..config import SEED_HIGH, Config, ConfigError, option
from ..experiments.family import Family, progress_record

TASKS = ("inertia", "pendulum")
SYMMETRIES = ("exact", "approximate", "misspecified")
#: approximate inertia's modified inertia (``lab.rpp.tasks.VARIANTS``, spelled here: lab --help imports no torch): the
#: authors' code (the default) or the thesis's formula as printed
VARIANTS = ("original", "thesis")
#: a saved run's settings that predate a change of default, read as that run ran (``RPPConfig.saved_settings``):
#: {option: the default until then}.  Approximate inertia's variant was the thesis's formula until 2026-11-27.
SAVED_DEFAULTS = {"variant": "thesis"}
MODELS = ("mlp", "emlp", "rpp")
PRIOR_NAMES = ("thesis", "runner-inertia", "runner-pendulum")
SCALES = ("small", "paper")
#: training points, test points and seeds of each scale (the thesis: 1000 / 1000, 10 trials)
TRAIN_POINTS = {"small": 1000, "paper": 1000}
TEST_POINTS = {"small": 1000, "paper": 1000}
SEEDS = {"small": 3, "paper": 10}
EPS = 0.01  # the windy pendulum's default strength (lab.rpp.tasks.EPS, spelled here: lab --help imports no torch)
#: progress units per optimiser step of each model: its step time over the MLP's, times 2, rounded (measured on a
#: 2-core CPU at 384 channels, O(3) inertia, batch 100 / 500: MLP 4.3 / 11.5 ms, EMLP 24 / 51 ms, RPP-EMLP 26 / 59 ms),
#: so that the ETA holds from the first, cheap model on
STEP_WEIGHTS = {"mlp": 2, "emlp": 9, "rpp": 10}
#: the same for the pendulum's Hamiltonian networks, one unit an MLP step (measured on a 2-core CPU at the fast
#: defaults, 32 channels, 64 chunks, RK4 at 0.2 s: MLP 11 ms, EMLP 198 ms, RPP-EMLP 216 ms over O2eR3(); over SO(3)
#: EMLP 183, RPP-EMLP 200; at the paper's 128 channels, 500 chunks, RK4 at 0.1 s, noisier: MLP 0.14 s, EMLP 2.2,
#: RPP-EMLP 3.8, over SO(3) 4.7 and 4.3)
PENDULUM_STEP_WEIGHTS = {"mlp": 1, "emlp": 18, "rpp": 20}


@dataclass
class RPPConfig(Config):
    """The settings of a levels-of-symmetry run (``lab rpp``; Finzi's thesis, section 3.5.1, Figure 3.2): MLP, EMLP
    and RPP-EMLP trained on one regime (``symmetry``: exact, approximate or misspecified) of ``task``, inertia or the
    double spring pendulum, for ``seeds`` seeds each.

    Its fields are declared with ``option(...)``.  ``task`` is the dispatch field: ``variant`` (the approximate
    inertia's modified inertia, the authors' code or the thesis's formula) applies to inertia only, ``wind`` (the
    approximate pendulum's eps) to the pendulum only, and both to the approximate regime only.  ``prior``,
    ``prior_free`` and ``prior_equivariant`` set RPP-EMLP's objective (the thesis's MAP prior by default).  Settings
    left None come from ``scale`` (``small``: fast defaults; ``paper``: the thesis's training, appendix A.2.3.1).
    ``saved_settings`` reads a saved run's config as that run ran; ``check()`` refuses inconsistent settings and
    data over the memory limit before any work.
    """

    dispatch = "task"

    task: str = option("inertia", "the regression task (inertia) or the dynamics one (pendulum: Hamiltonian "
                                  "networks on the double spring pendulum)", choices=TASKS)
    symmetry: str = option("approximate", "the level of symmetry (thesis Figure 3.2): exact (the models' group is "
                                          "the data's), approximate (the data only nearly have it), misspecified "
                                          "(the models' group is wrong: SL(3) for inertia, SO(3) for the "
                                          "pendulum)", choices=SYMMETRIES)
    variant: str = option(VARIANTS[0], "approximate inertia: the modified inertia as the authors' code computes it "
                                       "(original: I + 0.3 (I z) z^T, its added term about 0.17 times I) or as the "
                                       "thesis prints it (thesis: I + 0.3 I^2 zz^T I, its added term about 20 times "
                                       "I: the data, and every model's test MSE, on that term's scale)",
                          choices=VARIANTS, only=("inertia",))
    wind: float = option(EPS, "approximate pendulum: the wind's strength eps of H = H0 + eps H1 (the thesis: "
                              "0.01; 0: no wind)", low=0, high=100, only=("pendulum",))
    models: tuple[str, ...] = option(MODELS, "comma list of mlp, emlp, rpp", choices=MODELS)
    prior: str = option("thesis", "RPP-EMLP's objective: thesis (MAP, summed NLL + Gaussian priors 1e5 / 1) or "
                                  "the authors' runners' weight decays on a mean loss", choices=PRIOR_NAMES)
    prior_free: float | None = option(None, "the free pathway's prior variance (default: the prior's; 0: no free "
                                            "pathway)", low=0)
    prior_equivariant: float | None = option(None, "the equivariant pathway's prior variance (default: the "
                                                   "prior's; 0: no equivariant pathway)", low=0)
    scale: str = option("small", "small: fast defaults; paper: the thesis's training (appendix A.2.3.1)",
                        choices=SCALES)
    seeds: int | None = option(None, "seeds per model (default: small 3, paper 10, the thesis's trials)", low=1,
                               high=100)
    seed: int = option(0, "first seed (data and weights)", low=0, high=SEED_HIGH)
    weight_offset: int = option(0, "added to each seed for the models' weights and batch order only, not the data "
                                   "(0: the seed's own; otherwise a reseeded replicate on the same data draws)",
                                low=0, high=10**9, ui=False)
    size: int | None = option(None, "training points (inertia: 1000, the thesis's) or chunks (pendulum: small 64, "
                                    "paper 500)", low=2, high=10_000_000)
    test: int | None = option(None, "test points (inertia: 1000) or chunks (pendulum: small 64, paper 500)", low=1,
                              high=10_000_000)
    epochs: int | None = option(None, "epochs (inertia: small 80, paper 500; pendulum: small 40, paper 1000)", low=1,
                                high=1_000_000)
    channels: int | None = option(None, "hidden channels (inertia: 384, the thesis's; pendulum: small 32, paper "
                                        "128)", low=1, high=8192)
    layers: int | None = option(None, "hidden layers (default 3)", low=1, high=64)
    batch: int | None = option(None, "batch size (default 500)", low=1, high=1_000_000)
    lr: float = option(3e-3, "Adam learning rate", low=0, positive=True)
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")

    def check(self) -> None:
        from ..device import check_device_name
        from .train import objective

        self.device = check_device_name(self.device)
        if self.variant != VARIANTS[0] and self.symmetry != "approximate":
            raise ConfigError(f"variant applies to --symmetry approximate only, not to {self.symmetry} (leave it "
                              f"out)")
        if self.wind != EPS and self.symmetry != "approximate":
            raise ConfigError(f"wind applies to --symmetry approximate only, not to {self.symmetry} (leave it out)")
        if "rpp" in self.models:
            objective(self.prior, self.prior_equivariant, self.prior_free)  # both 0: a LabError before any work
        elif (self.prior, self.prior_free, self.prior_equivariant) != ("thesis", None, None):
            raise ConfigError("prior, prior_free and prior_equivariant apply to the rpp model only (add it to "
                              "--models or leave them out)")
        self.regime().data.check(self.train_points + self.test_points)  # the data's bytes, refused before work

    @classmethod
    def saved_settings(cls, data):
        """A saved run's ``config`` as this version reads it (``load``): an option it lacks takes the default it ran
        under (``SAVED_DEFAULTS``), and a variant saved where it did not apply (every regime but approximate
        inertia stored the then default) takes today's default, so that the run rebuilds unchanged.  Anything but a
        dict is handed back as it is (``from_dict`` says what is wrong with it).

        >>> RPPConfig.saved_settings({"task": "inertia", "symmetry": "approximate"})["variant"]
        'thesis'
        >>> RPPConfig.from_dict(RPPConfig.saved_settings({"symmetry": "exact", "variant": "thesis"})).variant
        'original'
        """
        if not isinstance(data, dict):
            return data
        out = {k: data.get(k, v) for k, v in SAVED_DEFAULTS.items()} | dict(data)
        if (out.get("task", "inertia"), out.get("symmetry", cls.option_named("symmetry").default)) != \
                ("inertia", "approximate"):
            out["variant"] = cls.option_named("variant").default
        return out

    # ------------------------------------------------------------------ what the settings mean
    def regime(self):
        """The ``lab.rpp.tasks.Regime`` these settings train on."""
        from . import regime

        approximate = self.symmetry == "approximate"
        pendulum = self.task == "pendulum"
        return regime(self.task, self.symmetry, variant=self.variant if approximate and not pendulum else None,
                      eps=self.wind if approximate and pendulum else None)

    @property
    def train_points(self) -> int:
        """Training points (inertia) or chunks (pendulum)."""
        if self.task == "pendulum":
            return self.pendulum_settings().train
        return self.size if self.size is not None else TRAIN_POINTS[self.scale]

    @property
    def test_points(self) -> int:
        if self.task == "pendulum":
            return self.pendulum_settings().test
        return self.test if self.test is not None else TEST_POINTS[self.scale]

    def pendulum_settings(self):
        """The pendulum's ``lab.nn.hamiltonian.DynamicsSettings``: ``lab.rpp.pendulum``'s ``SMALL`` or ``PAPER`` with
        this config's overrides."""
        from .pendulum import PAPER, SMALL

        base = PAPER if self.scale == "paper" else SMALL
        over = {k: v for k, v in (("train", self.size), ("test", self.test), ("epochs", self.epochs),
                                  ("channels", self.channels), ("layers", self.layers), ("batch", self.batch))
                if v is not None}
        return replace(base, lr=self.lr, **over)

    def steps_per_model(self) -> int:
        """Optimiser steps of one model on one seed."""
        if self.task == "pendulum":
            return self.pendulum_settings().steps()
        return self.schedule().steps(self.train_points)

    def step_weights(self) -> dict:
        return PENDULUM_STEP_WEIGHTS if self.task == "pendulum" else STEP_WEIGHTS

    @property
    def seed_count(self) -> int:
        return self.seeds if self.seeds is not None else SEEDS[self.scale]

    def schedule(self):
        from .train import PAPER, SMALL

        base = PAPER if self.scale == "paper" else SMALL
        over = {k: v for k, v in (("channels", self.channels), ("layers", self.layers), ("batch", self.batch),
                                  ("max_epochs", self.epochs)) if v is not None}
        return replace(base, lr=self.lr, **over)

    def total_steps(self) -> int:
        """Optimiser steps of the whole run, exact."""
        return len(self.models) * self.seed_count * self.steps_per_model()

    def total_work(self) -> int:
        """Progress units of the whole run: every model's steps times its step weight (``STEP_WEIGHTS``, the
        pendulum's ``PENDULUM_STEP_WEIGHTS``)."""
        weights = self.step_weights()
        return self.seed_count * self.steps_per_model() * sum(weights[m] for m in self.models)

    def data_bytes(self) -> int:
        """Bytes the data of one seed take to make (``RegressionTask.cost``, ``DoubleSpringPendulum.cost``)."""
        return self.regime().data.cost(self.train_points + self.test_points)


@dataclass
class RPPResult:
    config: RPPConfig
    regime: str  # e.g. inertia-approximate
    group: str  # the EMLP's and RPP-EMLP's group
    data_group: str  # the group every equivariance error is measured under (the data's declared one)
    target_symmetry_error: float  # of the targets alone under the models' group (lab.rpp.tasks)
    rows: list = field(default_factory=list)  # one per (model, seed): numbers and curve
    status: str = "finished"


def run(config: RPPConfig, progress=None, control=None) -> RPPResult:
    """Train every model on every seed; records stream to ``progress`` (``started``, ``progress``, ``epoch``,
    ``result``)."""
    from ..control import Stopped, checkpoint
    from ..device import pick_device
    from . import target_symmetry_error
    from .train import train_model

    config = config.validate()
    emit = progress or (lambda record: None)
    reg = config.regime()
    task = reg.data
    device = pick_device(config.device)
    pendulum = config.task == "pendulum"
    schedule = None if pendulum else config.schedule()
    settings = config.pendulum_settings() if pendulum else None
    n, seeds = config.train_points, config.seed_count
    steps = config.steps_per_model()
    weights = config.step_weights()
    total, done = config.total_work(), 0
    result = RPPResult(config, reg.name, reg.group, task.group, float("nan"))
    emit({"kind": "started", "task": config.task, "symmetry": config.symmetry, "regime": reg.name,
          "group": reg.group, "data_group": task.group, "models": list(config.models), "seeds": seeds,
          "size": n, "device": str(device), "total_steps": config.total_steps(), "data_bytes": config.data_bytes()})
    emit(progress_record(0, total, "measuring the targets' symmetry"))
    t0 = time.monotonic()
    try:
        checkpoint(control)
        result.target_symmetry_error = target_symmetry_error(reg, n=256, seed=config.seed)
        for s in range(seeds):
            seed = config.seed + s
            checkpoint(control)
            if pendulum:
                from .pendulum import pendulum_chunks

                data = pendulum_chunks(task, settings, seed=seed, control=control)
            else:
                data = (*task.make(n, seed=2 * seed), *task.make(config.test_points, seed=2 * seed + 1))
            for model in config.models:
                w = weights[model]

                def relay(row, base=done, model=model, seed=seed, w=w):
                    emit(row | {"seed": seed})
                    emit(progress_record(base + w * round(row["epoch"] / row["epochs"] * steps), total,
                                         f"{model} (seed {seed}): epoch {row['epoch']}/{row['epochs']}"))

                kw = dict(seed=seed + config.weight_offset, device=device, progress=relay, control=control,
                          prior=config.prior, prior_equivariant=config.prior_equivariant, prior_free=config.prior_free)
                if pendulum:
                    from .pendulum import train as train_pendulum

                    out = train_pendulum(model, reg, data, settings, record_every=max(1, steps // 20), **kw)
                else:
                    out = train_model(model, reg, data, schedule, record_every=max(1, schedule.epochs(n) // 20), **kw)
                out.pop("net")
                done += w * steps
                row = {k: v for k, v in out.items() if k != "curve"} | {"seed": seed}
                result.rows.append(row | {"curve": out["curve"]})
                emit({"kind": "result", **row})
    except Stopped:
        result.status = "stopped"
    emit(progress_record(done, total, f"{result.status} in {time.monotonic() - t0:.0f} s"))
    return result


def summary(result: RPPResult) -> dict:
    """``{"task", "symmetry", "models": {name: {"test_mse": [one per seed], "equivariance_error": [one per seed],
    "train_mse": [...]}}}`` (the ``lab rpp --json`` object; RPP-EMLP also ``free_fraction``, the mean
    ``|W_free| / |W|`` of its linear layers, per seed; the pendulum's models also ``rollout_error``), plus
    ``regime``, ``variant`` (approximate inertia, else None), ``wind`` (approximate pendulum: eps, else None),
    ``still_mse`` (the pendulum, per seed: the test MSE of predicting no motion, ``lab.rpp.pendulum``; else None),
    ``mean_mse`` (the regression tasks, per seed: the test MSE of predicting the training targets' mean; else None),
    ``group`` (the models'), ``data_group`` (the equivariance errors' group), ``target_symmetry_error`` (of the
    targets alone under the models' group), ``prior``, ``scale``, ``size`` (training points or chunks), ``test``,
    ``epochs``, ``seeds``, ``status``."""
    cfg = result.config
    pendulum = cfg.task == "pendulum"
    models = {}
    for m in cfg.models:
        rows = sorted((r for r in result.rows if r["model"] == m), key=lambda r: r["seed"])
        models[m] = {k: [r[k] for r in rows] for k in ("test_mse", "equivariance_error", "train_mse")}
        if pendulum:
            models[m]["rollout_error"] = [r["rollout_error"] for r in rows]
        if m == "rpp":
            models[m]["free_fraction"] = [r["free_fraction"] for r in rows]
    tse = result.target_symmetry_error
    approximate = cfg.symmetry == "approximate"
    epochs = cfg.pendulum_settings().epochs if pendulum else cfg.schedule().epochs(cfg.train_points)
    return {"task": cfg.task, "symmetry": cfg.symmetry, "regime": result.regime,
            "variant": cfg.variant if approximate and not pendulum else None,
            "wind": cfg.wind if approximate and pendulum else None,
            "still_mse": [v for _, v in sorted({r["seed"]: r["still_mse"] for r in result.rows}.items())]
            if pendulum else None,
            "mean_mse": None if pendulum else
            [v for _, v in sorted({r["seed"]: r.get("mean_mse") for r in result.rows}.items())],
            "group": result.group,
            "data_group": result.data_group, "target_symmetry_error": None if tse != tse else tse,
            "prior": cfg.prior, "prior_free": cfg.prior_free, "prior_equivariant": cfg.prior_equivariant,
            "scale": cfg.scale, "size": cfg.train_points, "test": cfg.test_points, "epochs": epochs,
            "seeds": cfg.seed_count, "seed_list":
            sorted({r["seed"] for r in result.rows}), "status": result.status, "models": models}


def text(result: RPPResult) -> str:
    s = summary(result)
    variant = f" ({s['variant']} variant)" if s["variant"] else ""
    if s["wind"] is not None:
        variant = f" (wind eps = {s['wind']:g})"
    tse = s["target_symmetry_error"]
    what = "chunks (Hamiltonian networks)" if s["task"] == "pendulum" else "points"
    lines = [f"{s['regime']}{variant}: models over {s['group']}"
             + (f" (the targets' own equivariance error under it: {tse:.2g})" if tse is not None else ""),
             f"{s['size']} training {what}; test MSE per seed, equivariance error under the data's declared group "
             f"{s['data_group']} (worst over seeds); {s['status']}",
             f"{'model':<7}{'mean':>12}" + "".join(f"{'seed ' + str(k):>12}" for k in s["seed_list"])
             + f"{'equiv. err':>12}"]
    for m, v in s["models"].items():
        vals = v["test_mse"]
        mean = sum(vals) / len(vals) if vals else None
        worst = max(v["equivariance_error"]) if v["equivariance_error"] else None
        cells = [mean, *vals, worst]
        lines.append(f"{m:<7}" + "".join(f"{x:>12.3g}" if x is not None else f"{'-':>12}" for x in cells))
    for key, name, words in (("still_mse", "still", "predicting no motion"),
                             ("mean_mse", "mean", "predicting the training targets' mean")):
        base = [x for x in (s[key] or ()) if x is not None]
        if base:  # the trivial baseline on the same scale, a row like the models'
            lines.append(f"{name:<7}" + "".join(f"{x:>12.3g}" for x in (sum(base) / len(base), *base))
                         + f"  ({words})")
    if s["models"].get("rpp", {}).get("free_fraction"):
        ff = s["models"]["rpp"]["free_fraction"]
        lines.append(f"rpp free fraction |W_free|/|W| (prior {s['prior']}): " + ", ".join(f"{x:.3g}" for x in ff))
    return "\n".join(lines)


def save(result: RPPResult, directory=None):
    from .store import save_rpp

    curves = [c | {"seed": r["seed"]} for r in result.rows for c in r["curve"]]
    rows = [{k: v for k, v in r.items() if k != "curve"} for r in result.rows]
    return save_rpp(result.config.to_dict(), rows, curves, summary(result), directory, result.status)


def load(path, root=None):
    """A saved run (``lab.rpp.store.load_rpp``), its ``config`` as this version reads it (``saved_settings``)."""
    from .store import load_rpp

    run = load_rpp(path, root)
    if isinstance(run.meta.get("config"), dict):
        run.meta["config"] = RPPConfig.saved_settings(run.meta["config"])
    return run


def results_dir(directory=None):
    from .store import rpp_dir

    return rpp_dir(directory)


# ------------------------------------------------------------------------------------------ what a pane reads
# The Symmetry regimes view reaches the science only through this module (issue 26: panes go through the
# families' declarations).

def list_runs(directory=None) -> list:
    """Saved rpp runs in ``directory``'s runs folder (``results_dir``), newest first."""
    from .store import list_rpp

    return list_rpp(directory)


def saved_summary(path) -> dict:
    """The summary saved with the run at ``path`` (its metadata file, refused over the ``run_bytes`` limit before
    it is read); a ``LabError`` when it cannot be read."""
    from pathlib import Path

    from ..limits import check_load
    from .store import FIELDS, KIND
    from ..runstore import META, read_meta

    check_load(Path(path) / META)
    return read_meta(path, KIND, FIELDS).get("summary") or {}


def regime_groups(task: str) -> dict:
    """{symmetry: the models' group} of ``task``'s regimes (none for a regime ``lab.rpp`` does not know)."""
    from ..errors import LabError
    from . import regime

    out = {}
    for s in SYMMETRIES:
        try:
            out[s] = regime(task, s).group
        except LabError:
            pass
    return out


FAMILY = Family(
    order=60,
    pane="lab.rpp.pane:RPPRegimes",
    claims=("lab.rpp.claims",),
    name="rpp", title="Residual pathway priors", config=RPPConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True, runs="lab.rpp.store:RUNS",
    help="MLP, EMLP and RPP-EMLP where the symmetry is exact, approximate or misspecified (thesis ch. 3)",
    description="Finzi's thesis, chapter 3 (Figure 3.2): residual pathway priors. MLP, EMLP and RPP-EMLP (an "
                "EMLP with a free pathway in every layer and a prior favouring the equivariant one) on data whose "
                "symmetry is exact, approximate or misspecified; each seed's test MSE and equivariance error. "
                "--scale paper is the thesis's training (10 seeds).")
