"""Experiment family ``msr`` (method 2): meta-learn the symmetry matrix U of vec(W) = U v (Zhou et al.) on
locally connected task families, with proximal sparsity (the MSR report), against two baselines: the same
meta-learner without sparsity and a fully connected meta-learner.  The chosen sparsity runs last, so the
last U a viewer sees is the one asked for.

Defaults are Zhou et al.'s (``train_synthetic.py``: 1 support and 19 query samples per task, 32 tasks per
meta-batch, Adam lr 1e-3, 1000 outer steps, exclusive prox as the report's eq. 7) except ``n_in``: 12 inputs
here for a quick interactive run, where Zhou et al. use 70 (``--n-in 70``; the sparsity only pays off on the
larger layer, whose U has more entries to overfit 20 tasks).  ``lam`` 0.03 is the λ that meta-validation
tasks pick most often for 20 tasks on 70 inputs (``lab.sharing.msr.choose_lambda``; the report's λ is not
stated); choose it per setting with ``choose_lambda``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..config import SEED_HIGH, Config, ConfigError, option
from ..experiments.family import Family, progress_record
from .family import load, results_dir  # method 2 runs live in the sharing store too

SPARSITY = ("exclusive", "group", "none")
#: the runs of one trial: (model, sparsity or None for the chosen one, label)
_RUNS = (("fc", "none"), ("msr", "none"), ("msr", None))


@dataclass
class MSRConfig(Config):
    """The settings of a meta-learned sharing run (``lab discover --task msr``, method 2): meta-learn the symmetry
    matrix U of vec(W) = U v (Zhou et al.) on locally connected task families, with proximal sparsity (the MSR
    report), against the same meta-learner without sparsity and a fully connected one.

    Its fields are declared with ``option(...)``; the defaults are Zhou et al.'s (1 support sample of 20 per task,
    meta-batches of 32, Adam at 1e-3, 1000 outer steps, the report's exclusive prox) except ``n_in``, 12 inputs for
    a quick run where Zhou et al. use 70.  ``lam`` is the sparsity weight λ (the prox step is λ times
    ``outer_lr``), ``prox`` the report's one-shot shrinkage or the exact proximal map (the lab's option).  ``task``
    has the one choice ``msr`` (the ``lab discover`` command picks the family by it).  ``check()`` refuses a filter
    larger than the layer and a run whose memory estimate (``msr_bytes``) is over the limit.
    """

    task: str = option("msr", "method 2: meta-learned symmetry matrix with sparsity", choices=("msr",))
    rank: int = option(1, "msr: rank of the filter basis (1 = convolution)", low=1, high=64)
    kernel: int = option(3, "msr: filter size", low=1, high=64)
    tasks: int = option(100, "msr: number of meta-training tasks", low=2, high=1_000_000)
    sparsity: str = option("exclusive", "msr: proximal sparsity on U", choices=SPARSITY)
    lam: float = option(0.03, "msr: sparsity weight λ (the prox step is λ times the outer learning rate)", low=0)
    prox: str = option("report", "msr: exclusive prox: the report's eq. 7 (Yoon & Hwang's one-shot shrinkage) or "
                                 "the exact proximal map (lab option)", choices=("report", "exact"))
    n_in: int = option(12, "msr: inputs of the locally connected layer (Zhou et al.: 70)", low=2, high=4096)
    support: int = option(1, "msr: samples per task to adapt on (of 20; the rest score)", low=1, high=19)
    meta_batch: int = option(32, "msr: tasks per meta-batch", low=1, high=100_000)
    outer_lr: float = option(1e-3, "msr: outer Adam learning rate", low=0, positive=True)
    steps: int = option(1000, "outer (meta-training) steps", low=1, high=10_000_000)
    trials: int = option(1, "independent trials (seeds seed, seed+1, ...)", low=1, high=10_000)
    seed: int = option(0, "random seed", low=0, high=SEED_HIGH)

    def check(self) -> None:
        if self.kernel > self.n_in:
            raise ConfigError(f"a filter of size {self.kernel} does not fit {self.n_in} inputs")
        from .. import limits

        limits.check_memory(f"meta-learning {self.tasks:,} tasks on {self.n_in} inputs", msr_bytes(self))


def msr_bytes(config: MSRConfig, samples: int = 20, test_tasks: int = 300) -> int:
    """An upper bound of what one meta-learning run allocates, in exact integers from the config: the true
    layers and data of the training and test tasks (``LocallyConnected.sample``), U with its gradient and
    Adam's two moments, and a meta-batch's layers and graph (x8 for autograd's saved tensors).

    >>> msr_bytes(MSRConfig()) < 2**24, msr_bytes(MSRConfig(n_in=4096, tasks=1_000_000)) > 2**40
    (True, True)
    """
    n_in, meta_batch = config.n_in, config.meta_batch
    n_out = n_in - config.kernel + 1
    D, L = n_out * n_in, 2 * config.kernel * config.rank  # latent size: at most twice rank·kernel (Zhou's rank 5)
    per_task = n_out * n_in + samples * (n_in + n_out)
    return 8 * (2 * (config.tasks + test_tasks) * per_task + 4 * D * (L + 1) + 8 * meta_batch * (D + per_task))


def run_label(model: str, sparsity: str) -> str:
    return f"msr, {sparsity} sparsity" if model == "msr" else "fully connected"


@dataclass
class MSRRunResult:
    config: MSRConfig
    rows: list = field(default_factory=list)  # per trial: {label: test loss}
    history: list = field(default_factory=list)  # outer-loss records, labelled by run
    U: dict = field(default_factory=dict)  # the last trial's learned U per run label
    shape: tuple = (0, 0)  # (n_out, n_in) of the layer
    status: str = "finished"


def run(config: MSRConfig, progress=None, control=None) -> MSRRunResult:
    """Meta-learn with the fully connected baseline, without sparsity, then with the chosen sparsity, for
    every trial; outer losses and U stream to ``progress``.

    >>> from lab.sharing.family_msr import FAMILY, MSRConfig
    >>> result = FAMILY.run(MSRConfig(tasks=8, steps=3))
    >>> sorted(k for k in FAMILY.summary(result) if k.startswith("test_loss"))
    ['test_loss', 'test_loss_fully_connected', 'test_loss_without_sparsity']
    """
    from .msr import LocallyConnected, meta_learn

    config = config.validate()
    emit = progress or (lambda record: None)
    family = LocallyConnected(n_in=config.n_in, kernel=config.kernel, rank=config.rank, seed=config.seed)
    out = MSRRunResult(config, shape=(family.n_out, family.n_in))
    runs = list(dict.fromkeys((m, s or config.sparsity) for m, s, in _RUNS))
    total = config.trials * len(runs) * config.steps
    done = 0
    emit({"kind": "layer", "n_out": family.n_out, "n_in": family.n_in})
    for t in range(config.trials):
        losses = {}
        for model, sparsity in runs:
            label = run_label(model, sparsity)

            def on_step(rec, U, label=label, base=done):
                rec = dict(rec, label=label, trial=t)
                out.history.append(rec)
                emit({"kind": "msr", "rec": rec, "U": None if U is None else U.copy(), "label": label})
                emit(progress_record(base + rec["step"] + 1, total, f"trial {t + 1}, {label}, step {rec['step']}"))

            res = meta_learn(family, tasks=config.tasks, model=model, sparsity=sparsity, lam=config.lam,
                             prox=config.prox, support=config.support, meta_batch=config.meta_batch,
                             outer_lr=config.outer_lr, steps=config.steps, seed=config.seed + t, on_step=on_step,
                             control=control)
            done += config.steps
            losses[label] = res.test_loss
            if model == "msr":
                out.U[label] = res.U
            emit({"kind": "compare", "rows": [{"model": k, "test loss": v} for k, v in losses.items()]})
            if control is not None and control.stopped:
                break
        out.rows.append(losses)
        if control is not None and control.stopped:
            out.status = "stopped"
            break
    return out


def _mean(result: MSRRunResult, label: str):
    vals = [r[label] for r in result.rows if label in r]
    return float(np.mean(vals)) if vals else None


def summary(result: MSRRunResult) -> dict:
    """The ``lab discover --task msr --json`` object (means over trials; no partition is learned).
    """
    c = result.config
    return {"task": "msr", "trials": len(result.rows), "partition_distance": None,
            "test_loss": _mean(result, run_label("msr", c.sparsity)),
            "test_loss_without_sparsity": _mean(result, run_label("msr", "none")),
            "test_loss_fully_connected": _mean(result, run_label("fc", "none")),
            "sparsity": c.sparsity, "rank": c.rank, "kernel": c.kernel, "tasks": c.tasks}


def text(result: MSRRunResult) -> str:
    return "\n".join(f"{k:<28} {v}" for k, v in summary(result).items())


def save(result: MSRRunResult, directory=None):
    from .store import save_sharing

    comparison = [{"model": k, "test loss": v} for k, v in (result.rows[-1] if result.rows else {}).items()]
    info = dict(summary(result), comparison=comparison, shape=list(result.shape))
    label = run_label("msr", result.config.sparsity)  # the chosen run's U (the picture a viewer ends on)
    U = result.U.get(label)
    if U is not None:
        info["U_label"] = label
    return save_sharing(result.config.to_dict(), result.history, [], info, directory, result.status, U=U)


FAMILY = Family(
    order=40, command="discover",
    pane="lab.sharing.pane:SharingDiscovery",
    claims=("lab.sharing.claims_msr",),
    papers=(("msr", "Meta-Learning Symmetries with Sparse Reparametrization (student report)"),),
    name="msr", title="Meta-learned sharing", config=MSRConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True, runs="lab.sharing.store:RUNS",
    help="meta-learn a symmetry matrix U with sparsity (Zhou et al.; MSR report)",
    description="MAML over locally connected task families; test loss with and without sparsity and of a fully "
                "connected meta-learner.")
