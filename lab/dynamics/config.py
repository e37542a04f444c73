"""The typed settings of a training-dynamics experiment and the experiments' defaults (no torch here).

``DynamicsConfig`` is what the CLI (``lab dynamics``), the Training dynamics pane and the notebooks fill in;
its field declarations hold every default, bound and choice list.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..config import SEED_HIGH, Config, ConfigError, option
from ..tasks.nordenfors_paper import EXPERIMENTS, INITS, SCALES, setting

STRATEGIES = ("nom", "aug", "equi", "aug_penalty", "rpp")
DTYPES = ("float32", "float64")
#: how Aug draws its group elements: uniformly (the paper's text) or as the authors' code does
#: (``lab.reps.action.reference_distribution``)
DRAWS = ("uniform", "reference")
#: settings left as None are filled from ``lab.tasks.nordenfors_paper`` (the paper's table; ``small`` shrinks it)
FILLED = ("lr", "steps", "runs", "aug_passes", "batch_size", "init", "dtype", "test_fraction")


@dataclass
class DynamicsConfig(Config):
    """The settings of one training-dynamics experiment (all strategies, all runs)."""

    experiment: str = option("perm", "the experiment (Nordenfors et al. appendix D; custom: any real group)",
                             choices=EXPERIMENTS, label="experiment")
    scale: str = option("small", "experiment size: demo (a class demo: well under a minute on a busy laptop), "
                        "small (seconds on a laptop CPU) or paper (every setting the paper's or its reference "
                        "code's: lab.tasks.nordenfors_paper)", choices=SCALES)
    runs: int | None = option(None, "independent runs, batched into one computation (default: 5, paper 30)",
                              low=1, high=10_000)
    steps: int | None = option(None, "gradient steps (default: the experiment's)", low=1, high=10_000_000)
    strategies: tuple[str, ...] = option(("nom", "aug", "equi"), "comma list of nom, aug, equi, aug_penalty, rpp",
                                         choices=STRATEGIES, label="strategy")
    lr: float | None = option(None, "learning rate (default: the experiment's)", low=0, positive=True,
                              label="the learning rate")
    seed: int = option(0, "random seed", low=0, high=SEED_HIGH)
    aug_passes: int | None = option(None, "augmentation passes L per step (default: the experiment's)", low=1,
                                    high=1_000_000)
    exact_orbit: bool = option(False, "average over every group element (small groups)")
    draws: str = option("uniform", "how Aug draws its group elements: uniform (the paper's text) or reference (the "
                        "authors' code: randint(0, n) per cyclic generator, whose both ends are the identity; on the "
                        "Rot experiment's flattened images identity 2/5, half-turn 3/5)", choices=DRAWS, ui=False)
    gamma: float = option(1.0, "penalty weight of aug_penalty", low=0)
    rpp_prior_eq: float = option(1e5, "rpp: prior variance of the equivariant pathway (thesis section 3.5.1: 1e5); "
                                 "its MAP penalty |A_eq|^2 / (2 variance N) on the trainer's mean loss",
                                 low=0, positive=True, label="the equivariant prior variance")
    rpp_prior_free: float = option(1.0, "rpp: prior variance of the free pathway (thesis: 1); smaller keeps RPP "
                                   "nearer E (-> 0: Equi)", low=0, positive=True, label="the free prior variance")
    device: str = option("auto", "auto (CUDA when present), cpu or cuda")
    group: str | None = option(None, 'custom/trans: the group, e.g. "S(6)", "C4Grid(8)"')
    rep: str | None = option(None, 'custom: the input rep, e.g. "V", "T(2)"')
    batch_size: int | None = option(None, "mini-batch size (default: the experiment's)", low=1, ui=False)
    init: str | None = option(None, "initial weights before projection onto E: reference (the authors' code), "
                              "standard (the paper's text: N(0, 1)) or fan_in (N(0, 1/fan_in), the lab's small "
                              "scale) (default: reference at paper scale)", choices=INITS, ui=False)
    dtype: str | None = option(None, "training precision (default: float32 on CUDA and at paper scale, as the "
                               "reference code; float64 on CPU at small scale)", choices=DTYPES, ui=False)
    data: str | None = option(None, "directory with MNIST IDX files (t10k-images-idx3-ubyte[.gz], "
                              "t10k-labels-idx1-ubyte[.gz]) for trans: the paper's 14 x 14 MNIST instead of the "
                              "8 x 8 digits; never downloaded", ui=False, metavar="DIR")
    test_fraction: float | None = option(None, "share of the data held out and never trained on; each strategy's "
                                         "final model is scored on it (test_accuracy; default: trans small 0.2, "
                                         "else 0 as in the paper)", low=0, high=0.9, ui=False)
    options: dict = field(default_factory=dict)  # further experiment options (images, channels, ...)
    run_ids: tuple[int, ...] | None = None  # which runs (default 0..runs-1): lets runs train one by one

    def check(self) -> None:
        """Fill the experiment's defaults and check relations between settings."""
        from ..device import check_device_name

        self.device = check_device_name(self.device)
        for key in FILLED:
            if getattr(self, key) is None:
                setattr(self, key, setting(self.experiment, self.scale, key))
        if self.data is not None and self.experiment not in ("trans",):
            raise ConfigError(f"data (MNIST) applies to the trans experiment, not {self.experiment}")
        if self.rep is not None and self.experiment != "custom":
            raise ConfigError("rep applies to the custom experiment only")
        if self.group is not None and self.experiment not in ("custom", "trans"):
            raise ConfigError(f"group applies to the custom or trans experiment, not {self.experiment}")
        self.options = {**self.options, **{k: v for k, v in (("group", self.group), ("rep", self.rep))
                                           if v is not None}}
        if self.experiment == "custom":
            _check_custom_size(self)
        if "aug_penalty" in self.strategies and self.gamma * self.lr >= 1:
            raise ConfigError(f"gamma x lr = {self.gamma * self.lr:g} >= 1 makes the penalty step unstable (it "
                              f"multiplies the part outside E by 1 - 2 gamma lr); choose gamma < {1 / self.lr:g}")
        if "rpp" in self.strategies:  # the priors' step is implicit (stable at any lr); only 1 / variance must exist
            for key in ("rpp_prior_eq", "rpp_prior_free"):
                if not math.isfinite(1.0 / getattr(self, key)):
                    raise ConfigError(f"{key} {getattr(self, key):g} is too small: 1 / variance overflows")
        if self.run_ids is not None:
            self.run_ids = tuple(int(r) for r in self.run_ids)


def custom_bytes(config: "DynamicsConfig", entries_in: int, entries_hidden: int) -> int:
    """An upper bound of what training the custom experiment allocates beyond its basis (which the solver's own
    guard covers), in exact integers: per run and strategy the equivariant layer's weights (paper-scale
    channels, 32) with gradient, momentum, initial copy and projection (x6), the activations of a batch
    through it (x4 for the backward pass), and the data (2 000 samples at paper scale)."""
    channels = 32 if config.scale == "paper" else 6
    samples = 2000 if config.scale == "paper" else 300
    models = config.runs * len(config.strategies)
    layer = entries_in * entries_hidden * channels
    batch = config.batch_size * (config.aug_passes or 1)
    return 8 * (6 * models * layer + 4 * models * batch * channels * entries_hidden + 2 * samples * entries_in)


def _check_custom_size(config: "DynamicsConfig") -> None:
    """The custom experiment sized from its texts (nothing built): rep dimension and training memory."""
    from .. import limits
    from ..groups import group_footprint
    from ..reps.parse import parse_rep
    from ..reps.rep import dimension_over
    group = config.options.get("group", "S(6)")
    rep_text = config.options.get("rep", "V")
    footprint = group_footprint(group)
    if footprint is None:
        return
    n = limits.check("rep_size", dimension_over(parse_rep(rep_text), footprint.d), f"the rep {rep_text} over {group}")
    limits.check("rep_size", n * n, f"the layer {rep_text} >> {rep_text} over {group}")
    limits.check_memory(f"training {config.runs} runs x {len(config.strategies)} strategies on {rep_text} over {group}",
                        custom_bytes(config, n, n))
