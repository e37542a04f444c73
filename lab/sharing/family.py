"""Experiment family ``sharing`` (method 1 of Yeh et al.): learn the sharing matrix A of vec(W) = A ψ from data
by bi-level optimisation, and compare the snapped partition with the true one.

Faithful by default (``lab.sharing.bilevel`` says which step is the poster's, the reference code's and the
lab's): the poster's penalties (entropy and the nuclear norm, ``--rank-penalty columns`` for the reference code's
column-norm surrogate), the reference code's optimiser settings per task, argmax snapping.  The lab's merge pass
after snapping (not in the poster) runs only with ``--merge``; ``--merge-tolerance`` is its tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..config import SEED_HIGH, Config, ConfigError, option
from ..experiments.family import Family, progress_record

from .defaults import DEFAULTS as TASK_DEFAULTS, RANK_PENALTIES

TASKS = tuple(TASK_DEFAULTS)


@dataclass
class SharingConfig(Config):
    """The settings of a learned parameter-sharing run (``lab discover``, method 1 of Yeh et al.'s poster
    "Equivariance Discovery by Learned Parameter-Sharing"): learn the sharing matrix A of vec(W) = A ψ by bi-level
    optimisation on ``task``, for ``trials`` seeds, and score the snapped partition against the true one.

    Its fields are declared with ``option(...)``.  ``task`` is the dispatch field: the options declared for one task
    (``K``, ``blocks``, ``samples``, ``split`` and ``sigma`` for ``gaussian``; ``group``, ``rep_in`` and ``rep_out``
    for ``group``; ``positions`` for ``sum``) apply to that task only.  ``steps``, ``lr``, ``restarts`` and
    ``weight_decay`` left None take the task's defaults (``with_defaults``: the reference code's optimiser settings
    where it has them).  The defaults are the poster's objective (entropy and nuclear-norm penalties) with argmax
    snapping; ``merge`` and ``rank_penalty="columns"`` are named departures.  ``check()`` refuses inconsistent
    gaussian settings and a group task that is not a permutation group or is over the size limits.
    """

    dispatch = "task"

    task: str = option("gaussian", "gaussian, conv, group, sum: learn the sharing A (method 1); msr: meta-learn "
                       "a symmetry matrix U with sparsity (method 2)", choices=TASKS)
    K: int = option(5, "gaussian: weight entries", low=2, high=400, only=("gaussian",))
    blocks: int = option(3, "gaussian: true blocks", low=1, high=400, only=("gaussian",))
    samples: int = option(100, "gaussian: the number of samples", low=4, high=1_000_000, only=("gaussian",))
    split: float = option(0.3, "gaussian: training fraction r", low=0, high=1, positive=True, only=("gaussian",))
    sigma: float = option(1.0, "gaussian: noise level", low=0, only=("gaussian",))
    group: str = option("Z(4)", "group task: a permutation group", only=("group",))
    rep_in: str = option("V", "group task: input rep", only=("group",))
    rep_out: str = option("V", "group task: output rep", only=("group",))
    positions: int = option(5, "sum task: sequence positions", low=2, high=50, only=("sum",))
    steps: int | None = option(None, "outer steps (default: the task's: gaussian and conv 1000 as the reference "
                               "code, group 800, sum 400)", low=1, high=10_000_000)
    lr: float | None = option(None, "outer learning rate (default: the task's: gaussian 2e-2 RMSprop, conv 0.1 "
                              "Adam as the reference code; group and sum 0.1 Adam)", low=0, positive=True)
    entropy: float = option(1e-2, "weight of the entropy penalty H(A)", low=0)
    nuclear: float = option(1e-2, "weight of the low-rank penalty of A (--rank-penalty)", low=0)
    rank_penalty: str = option("nuclear", "the low-rank penalty: nuclear = the nuclear norm ||A||_* (the poster); "
                               "columns = the sum of A's column norms (the reference code's surrogate, "
                               "trace(sqrt(A^T A)) with an elementwise sqrt)", choices=RANK_PENALTIES)
    restarts: int | None = option(None, "random restarts, batched; the lowest final validation loss is kept "
                                  "(default: 3, group task 8)", low=1, high=1000)
    weight_decay: float | None = option(None, "the outer optimiser's weight decay on the logits (default: the "
                                        "task's: gaussian 1e-4 as the reference code's RMSprop, else 0)", low=0)
    merge: bool = option(False, "the lab's merge pass (not in the poster or the reference code): after argmax "
                         "snapping, merge blocks greedily while the validation loss rises at most --merge-tolerance")
    merge_tolerance: float = option(0.02, "the merge pass's tolerance: the fraction one merge may raise the "
                                    "validation loss by (used with --merge)", low=0)
    trials: int = option(1, "independent trials (seeds seed, seed+1, ...)", low=1, high=10_000)
    seed: int = option(0, "random seed", low=0, high=SEED_HIGH)

    def check(self) -> None:
        if self.split >= 1:
            raise ConfigError(f"split (the training fraction r) must be below 1, got {self.split:g}")
        if self.task == "gaussian" and self.blocks > self.K:
            raise ConfigError(f"blocks ({self.blocks}) cannot exceed K ({self.K})")
        if self.task == "group":  # the texts are parsed and sized here, nothing is built (lab.limits)
            from .. import limits
            from ..groups import group_footprint
            from ..reps.parse import parse_rep
            from ..reps.rep import dimension_over

            footprint = group_footprint(self.group)
            if footprint is not None and (footprint.lie or footprint.matrix_generators):
                raise ConfigError(f"{self.group} is not a permutation group: its equivariant layers are not a "
                                  "sharing pattern")
            for text in (self.rep_in, self.rep_out):
                rep = parse_rep(text)
                if footprint is not None:
                    limits.check("rep_size", dimension_over(rep, footprint.d), f"the rep {text} over {self.group}")

    def with_defaults(self) -> "SharingConfig":
        """A copy with the task's defaults filled in for steps, lr and restarts."""
        filled = {k: TASK_DEFAULTS[self.task][k] for k in ("steps", "lr", "restarts", "weight_decay")
                  if getattr(self, k) is None}
        return self.replace(**filled)


def make_task(config: SharingConfig, seed: int):
    """The task a config describes, drawn with ``seed`` (the one place tasks are built from settings)."""
    from .tasks import GaussianTask, conv_task, group_task, sum_task

    if config.task == "gaussian":
        return GaussianTask(K=config.K, blocks=config.blocks, samples=config.samples, split=config.split,
                            sigma=config.sigma, seed=seed)
    if config.task == "conv":
        return conv_task(seed=seed)
    if config.task == "group":
        return group_task(config.group, config.rep_in, config.rep_out, seed=seed)
    return sum_task(positions=config.positions, seed=seed)


def memory_bytes(config: SharingConfig) -> int | None:
    """What a run of ``config`` allocates at most (bytes, an exact int from the settings; None where not
    estimated: the small fixed-size tasks)."""
    from .tasks import group_task_bytes

    if config.task != "group":
        return None
    config = config.with_defaults()
    return group_task_bytes(config.group, config.rep_in, config.rep_out, restarts=config.restarts)


def check_memory(config: SharingConfig, limit=None) -> None:
    """Refuse a run whose estimate is over the memory limit (``lab.solvers.memory``) before building anything."""
    from ..solvers import memory

    need = memory_bytes(config)
    if need is not None:
        memory.check(f"the group task {config.rep_in} >> {config.rep_out} of {config.group} "
                     f"({config.restarts} restarts)", need, memory.memory_limit(limit))


@dataclass
class SharingRunResult:
    config: SharingConfig
    tasks: list = field(default_factory=list)
    results: list = field(default_factory=list)  # lab.sharing.SharingResult per finished trial
    status: str = "finished"


def run(config: SharingConfig, progress=None, control=None) -> SharingRunResult:
    """Learn the sharing of ``config.trials`` tasks (seeds seed, seed+1, ...).

    >>> from lab.sharing.family import FAMILY, SharingConfig
    >>> result = FAMILY.run(SharingConfig(task="conv"))  # the faithful defaults: 1000 steps, no merge pass
    >>> FAMILY.summary(result)["partition_distance"]     # the convolution's sharing, recovered exactly
    0.0
    """
    from .bilevel import learn_sharing
    from .tasks import weight_shape

    config = config.validate().with_defaults()
    check_memory(config)
    emit = progress or (lambda record: None)
    out = SharingRunResult(config)
    total = config.trials * config.steps
    for t in range(config.trials):
        seed = config.seed + t
        task = make_task(config, seed)
        emit({"kind": "task", "trial": t, "gt": task.gt, "shape": weight_shape(task), "task": config.task})

        def on_step(rec, A, t=t):
            emit({"kind": "step", "trial": t, "rec": rec, "A": A})
            emit(progress_record(t * config.steps + rec["step"], total, f"trial {t + 1}, step {rec['step']}"))

        res = learn_sharing(task, steps=config.steps, lr=config.lr, entropy=config.entropy, nuclear=config.nuclear,
                            restarts=config.restarts, seed=seed, weight_decay=config.weight_decay,
                            rank_penalty=config.rank_penalty, merge=config.merge,
                            merge_tolerance=config.merge_tolerance, on_step=on_step, control=control)
        out.tasks.append(task)
        out.results.append(res)
        emit({"kind": "result", "trial": t, "labels": res.labels, "snapped": res.snapped, "merged": res.merged,
              "selection": res.selection, "partition_distance": res.partition_distance,
              "snapped_distance": res.snapped_distance})
        if control is not None and control.stopped:
            out.status = "stopped"
            break
    return out


def summary(result: SharingRunResult) -> dict:
    """The ``lab discover --json`` object: means over trials."""
    rs, cfg = result.results, result.config
    if not rs:
        return {"task": cfg.task, "trials": 0, "partition_distance": None, "steps_per_second": None}
    out = {"task": cfg.task, "trials": len(rs),
           "partition_distance": float(np.mean([r.partition_distance for r in rs])),
           "steps_per_second": float(np.mean([r.steps_per_second for r in rs]))}
    if rs[0].mse_gap is not None:
        out["mse_gap"] = float(np.mean([r.mse_gap for r in rs]))
        out["gap_bound"] = result.tasks[-1].gap_bound()
    if rs[0].test_loss is not None:
        out["test_loss"] = float(np.mean([r.test_loss for r in rs]))
        out["gt_test_loss"] = float(np.mean([r.gt_test_loss for r in rs]))
    diverged = sum(bool(getattr(r, "diverged", False)) for r in rs)
    if diverged:
        out["diverged_trials"] = diverged  # their losses may be NaN or infinite (null in --json)
    if cfg.merge:  # the distance of the argmax snapping alone, before the lab's merge pass
        out["snapped_partition_distance"] = float(np.mean([r.snapped_distance for r in rs]))
    out.update(_stability(result))
    if len(rs) == 1:
        out["labels"] = rs[0].labels.tolist()
        out["ground_truth"] = result.tasks[0].gt.tolist()
    return out


def _stability(result: SharingRunResult) -> dict:
    """Whether the argmax snapping settled (``lab.sharing.partition.stability``, over the last ``STABLE_WINDOW``
    snapshots of each trial): ``partition_stable`` (every trial snapped one partition over its window with no
    undecided row), ``stable_share`` (the most frequent partition's share of the window's snapshots, mean over
    trials), ``modal_partition_distance`` (that partition's distance to the truth, mean over trials),
    ``stability_window`` (snapshots), ``undecided_margin``; one trial: ``undecided_rows`` (rows of the final A whose
    two largest entries are within the margin), their ``undecided_splits`` and ``partition_stability`` (in
    words).  Nothing when no trial recorded snapshots."""
    from .partition import STABLE_WINDOW, UNDECIDED_MARGIN, partition_distance

    read = [(r.stability, t.gt) for r, t in zip(result.results, result.tasks) if r.stability is not None]
    if not read:
        return {}
    out = {"partition_stable": all(s.stable for s, _ in read),
           "stable_share": float(np.mean([s.share for s, _ in read])),
           "modal_partition_distance": float(np.mean([partition_distance(s.labels, gt) for s, gt in read])),
           "stability_window": STABLE_WINDOW, "undecided_margin": UNDECIDED_MARGIN}
    if len(result.results) == 1:
        s = read[0][0]
        out |= {"undecided_rows": s.undecided, "undecided_splits": [list(p) for p in s.splits],
                "partition_stability": s.describe()}
    return out


def text(result: SharingRunResult) -> str:
    return "\n".join(f"{k:<20} {v}" for k, v in summary(result).items())


def save(result: SharingRunResult, directory=None):
    """``config.json`` (settings, status, summary), ``history.csv`` (every trial), ``A_history.npz`` (last trial)."""
    from .store import save_sharing

    history = [dict(rec, trial=t) for t, r in enumerate(result.results) for rec in r.history]
    last = result.results[-1] if result.results else None
    info = summary(result)
    if last is not None:
        info.update(labels=last.labels.tolist(), ground_truth=result.tasks[-1].gt.tolist(),
                    mse_gap=last.mse_gap, test_loss=last.test_loss, snapped=last.snapped.tolist(),
                    merged=last.merged, scored_partition_distance=last.partition_distance)
    return save_sharing(result.config.to_dict(), history, last.A_history if last else [], info, directory,
                        result.status)


def load(path, root=None):
    """A saved run (``lab.sharing.store.load_sharing``); with ``root`` only a run inside that directory."""
    from .store import load_sharing

    return load_sharing(path, root)


def results_dir(directory=None):
    from .store import sharing_dir

    return sharing_dir(directory)


# ------------------------------------------------------------------------------------------ what a pane reads
# The Sharing discovery pane reaches the science only through this module (issue 26: panes go through the
# families' declarations, so that a change inside lab/sharing/ stays behind one seam).

def list_runs(directory=None, trained_only: bool = False) -> list:
    """Saved sharing and msr runs in ``directory``'s runs folder, newest first (``trained_only``: leave out runs
    stopped before their first step)."""
    from .store import list_sharing

    return list_sharing(directory, trained_only=trained_only)


def weight_shape(config: SharingConfig, seed: int | None = None) -> tuple[int, int]:
    """The shape of the weight matrix W whose entries the task of ``config`` partitions (for drawing W)."""
    from .tasks import weight_shape as shape

    return shape(make_task(config, config.seed if seed is None else seed))


def best_step(history):
    """The step of a method-1 history with the least partition distance, and that distance (``None``: none)."""
    from .partition import best_step as best

    return best(history)


def read_snapshot(A, gt, snapped=None):
    """What a snapshot of A reads as against the true partition ``gt``: the matrix scored, its distance and block
    count (``lab.sharing.partition.read_snapshot``)."""
    from .partition import read_snapshot as read

    return read(A, gt, snapped)


def snapped_matrix(A, labels=None):
    """The 0/1 matrix of a hard partition in the columns of A: A's argmax per row, or ``labels`` (the run's
    final, possibly merged partition) (``lab.sharing.partition.snapped_matrix``)."""
    from .partition import snapped_matrix as snapped

    return snapped(A, labels)


def curves(path):
    """(method, curves, meta) of a saved run of the sharing store for ``lab compare``: method 1's losses and
    partition distance, or method 2's outer losses per model; means over trials at each step."""
    import pandas as pd

    from ..compare import empty_curves
    from .store import load_sharing

    run = load_sharing(path)
    history = run.history
    if history.empty:
        return "sharing", empty_curves(), run.meta
    if "outer_loss" in history.columns:
        by = ["label", "step"] if "label" in history.columns else ["step"]
        g = history.groupby(by, as_index=False, sort=False)["outer_loss"].mean()
        series = g["label"] if "label" in g.columns else ""
        return "msr", pd.DataFrame({"metric": "outer_loss", "series": series, "step": g.step,
                                    "value": g.outer_loss}), run.meta
    parts = []
    g = history.groupby("step", as_index=False).mean(numeric_only=True)
    for column, metric, series in (("upper", "loss", "validation (upper)"), ("lower", "loss", "training (lower)"),
                                   ("partition_distance", "partition_distance", "")):
        if column in g.columns:
            parts.append(pd.DataFrame({"metric": metric, "series": series, "step": g.step, "value": g[column]}))
    return "sharing", pd.concat(parts, ignore_index=True) if parts else empty_curves(), run.meta


def applicable(config: dict) -> dict:
    """The settings that apply to a saved sharing run: a method-1 task's own fields (method 2's: all)."""
    return config if config.get("task") == "msr" else SharingConfig.applicable(config)


FAMILY = Family(
    order=30, command="discover",
    pane="lab.sharing.pane:SharingDiscovery", tab=30, run_css=".shr",
    claims=("lab.sharing.claims",),
    papers=(("sharing", "Equivariance Discovery by Learned Parameter-Sharing (Yeh et al., poster)"),),
    name="sharing", title="Sharing discovery", config=SharingConfig, run=run, summary=summary, text=text,
    save=save, load=load, results_dir=results_dir, cli_saves=True, runs="lab.sharing.store:RUNS",
    curves=curves, applicable=applicable,
    help="learn a parameter-sharing matrix A from data (Yeh et al.)",
    description="Bi-level learning of vec(W) = A psi (Yeh et al.), faithful by default: the poster's objective "
                "(validation loss + entropy + nuclear norm) with the reference code's optimiser settings, argmax "
                "snapping; reports the partition distance to the truth. Lab extensions are named: --merge (a merge "
                "pass after snapping, not in the poster), --rank-penalty columns (the reference code's surrogate).")
