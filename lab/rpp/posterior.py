"""Posterior levels of equivariance (thesis section 3.5.2): how equivariant do RPP-EMLPs become on data that are
exactly symmetric, and on data that are only nearly so?

The thesis: "Using samples from a deep ensemble to query points of high density in the posterior we estimate how the
distribution over equivariance error progresses through training ... We train one deep ensemble on the inertia
dataset which exhibits perfect symmetry, and another on the modified inertia dataset which has only partial symmetry,
with each deep ensemble being comprised of 10 individual models using the same procedure as in Section 3.5.1 ...
throughout training the models trained on the modified inertia concentrate around solutions with substantially
higher equivariance error than models trained on the dataset with the exact symmetry."

What is measured.  Eq. 3.3, ``EquivErr(f, x) = RelErr(rho_2(g) f(x), f(rho_1(g) x))``, ``RelErr(a, b) = |a - b| /
(|a| + |b|)`` (``lab.nn.check.thesis_equivariance_errors``), under O(3) (the data's declared group in both regimes),
averaged over ``held_out`` test inputs, each with its own sampled element of O(3).  The inputs and elements are drawn
once (from ``seed``) and reused at every record, by every member and for both datasets (the inertia and the modified
inertia share their inputs: the same draw, other targets), so a curve moves only because the model does (with
``data="per-member"`` the inputs are each member's own test points; the elements stay the same).  The
measure is scale-free, so it is taken in the units the network trains in (inputs divided by the training set's rms,
as ``lab.nn.train.fit`` does).

The ensemble.  A deep ensemble samples one posterior: the same data, members that differ only in their random start
(and their batch order, which ``fit`` draws from the same seed).  So by default (``data="shared"``) every member of an
ensemble trains on one draw of the data (``seed``), member ``k`` with weight seed ``seed + k``.  The authors'
Ensembles script (``experiments/Ensembles/modified_inertia.py``) instead draws a fresh dataset for each of its 10
trials: ``data="per-member"`` (member ``k`` on the draw of seed ``seed + k``), which mixes data noise into the spread.
The same script trains 50 epochs, records every 5 and uses weight decays (free 1, equivariant 1e-4) on a mean loss;
the default here is the thesis's procedure of 3.5.1 (its MAP prior, variances 1e5 / 1, ``prior="thesis"``) on the
script's 50 epochs and records (``POSTERIOR``).  The script measures a batch-level error with an extra ``|g - I|`` in
the denominator (the EMLP test suite's scale-adjusted error); eq. 3.3 as the thesis writes it has none.

Cost before work.  ``plan`` computes the exact number of optimiser steps (members x datasets x ``Schedule.steps``)
and checks the sizes and the memory the data and the measure need against the lab's limits (``lab.limits``) before
anything is drawn or built; a refused request raises a ``LabError`` and emits nothing.  Progress records
(``lab.control.progress_record``) count optimiser steps, so the done/total ratio gives an ETA; ``control``
(``lab.control``) pauses and stops between steps.  A stopped run returns the rows recorded so far; its summary counts
only the members that finished.

>>> from dataclasses import replace
>>> out = posterior_levels(members=2, size=40, test=40, held_out=16, record_every=1,
...                        schedule=replace(POSTERIOR, channels=16, layers=1, max_epochs=2, batch=20))
>>> len(out["rows"]), sorted(out["rows"][0])   # 2 datasets x 2 members x 2 records
(8, ['epoch', 'equivariance_error', 'free_fraction', 'member', 'symmetry', 'test_mse'])
>>> out["total_steps"], sorted(out["summary"]), out["summary"]["exact"]["members"]
(16, ['approximate', 'exact'], 2)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import torch

from ..control import Stopped, checkpoint
from ..data.sizes import check_count
from ..nn.train import Schedule, _rms
from ..errors import LabError
from .tasks import VARIANTS, regime
from .train import PRIOR_NAMES, SMALL, objective, train_rpp

#: the datasets of the two ensembles (``lab.rpp.tasks``): inertia (exact O(3)) and modified inertia (approximate)
SYMMETRIES = ("exact", "approximate")
#: how the members get their data: one draw for the whole ensemble (a deep ensemble: the default) or one draw per
#: member (the authors' Ensembles script)
DATA_DRAWS = ("shared", "per-member")
#: the thesis's ensembles have 10 members; the bound keeps a typo from starting days of work (the rpp family's seeds)
MAX_MEMBERS = 100
#: the default training: the fast schedule of ``lab.rpp.train`` (the thesis's width, batch and learning rate) for
#: the authors' Ensembles script's 50 epochs: 100 steps a member at 1000 points
POSTERIOR = replace(SMALL, max_epochs=50)
#: records: every 5 epochs (the Ensembles script's ``save_every``); held-out inputs of the measure (at most the test
#: points)
RECORD_EVERY = 5
HELD_OUT = 256
SIZE, TEST = 1000, 1000  # the thesis's 1000 train and 1000 test points (A.2.3.1)


class PosteriorError(LabError, ValueError):
    """Settings the posterior-levels study cannot run: an unknown dataset, draw or prior, a bad count."""


@dataclass(frozen=True)
class Plan:
    """What a call will do, computed before any work: the exact optimiser steps and the bytes checked."""

    symmetries: tuple[str, ...]
    members: int
    steps_per_member: int  # optimiser steps of one member (``Schedule.steps(size)``)
    total_steps: int  # members x datasets x steps_per_member, exact
    epochs: int
    records: int  # records per member (every ``record_every`` epochs and the last)
    held_out: int  # test inputs the equivariance error is averaged over
    data_bytes: int  # what drawing the data and holding the measure's inputs and rho(g) stacks take


def plan(members: int = 10, symmetries=SYMMETRIES, variant: str = "thesis", schedule: Schedule = POSTERIOR,
         size: int = SIZE, test: int = TEST, held_out: int | None = None,
         record_every: int = RECORD_EVERY, data: str = "shared", prior: str = "thesis",
         prior_equivariant: float | None = None, prior_free: float | None = None) -> Plan:
    """The cost of ``posterior_levels`` with these settings (exact integers, nothing drawn or built); a
    ``PosteriorError`` for bad settings, a ``MemoryLimitError`` (``lab.limits``) when the data and the measure's
    tensors are over the memory limit.  Both are ``LabError``."""
    from .. import limits

    members = check_count(members, "members")
    if not 1 <= members <= MAX_MEMBERS:
        raise PosteriorError(f"members must be between 1 and {MAX_MEMBERS}, got {members}")
    if isinstance(symmetries, str):
        symmetries = (symmetries,)
    symmetries = tuple(symmetries)
    if not symmetries or any(s not in SYMMETRIES for s in symmetries) or len(set(symmetries)) != len(symmetries):
        raise PosteriorError(f"symmetries must be distinct ones of {', '.join(SYMMETRIES)}, got {symmetries!r}")
    if variant not in VARIANTS:
        raise PosteriorError(f"unknown modified inertia variant {variant!r}: {' or '.join(VARIANTS)}")
    if data not in DATA_DRAWS:
        raise PosteriorError(f"unknown data draw {data!r}: {' or '.join(DATA_DRAWS)}")
    if prior not in PRIOR_NAMES:
        raise PosteriorError(f"unknown prior {prior!r}: one of {', '.join(PRIOR_NAMES)}")
    if not isinstance(schedule, Schedule):
        raise PosteriorError(f"schedule must be a lab.nn.train.Schedule, got {type(schedule).__name__}")
    size, test = check_count(size, "size"), check_count(test, "test")
    held_out = min(HELD_OUT, test) if held_out is None else held_out  # the default: at most the test points
    held_out, record_every = check_count(held_out, "held_out"), check_count(record_every, "record_every")
    if size < 2 or test < 1 or held_out < 1 or record_every < 1:
        raise PosteriorError(f"size must be at least 2 and test, held_out, record_every at least 1 (got size {size}, "
                             f"test {test}, held_out {held_out}, record_every {record_every})")
    if held_out > test:
        raise PosteriorError(f"held_out ({held_out}) is drawn from the test points: at most test ({test})")
    objective(prior, prior_equivariant, prior_free, size, 9)  # both variances 0: a LabError before any work
    steps = schedule.steps(size)
    epochs = schedule.epochs(size)
    records = epochs // record_every + (epochs % record_every != 0)
    draws = len(symmetries) * (members if data == "per-member" else 1)
    task = regime("inertia", "exact").data
    d_in, d_out = task.d_in, task.d_out
    # every draw of train and test data (``RegressionTask.cost``: float64 while made), and the measure's rho(g)
    # stacks with its inputs and outputs (float64 while stacked, float32 copies; bounded by 8 bytes an entry twice)
    data_bytes = draws * task.cost(size + test) + 16 * held_out * (d_in * d_in + d_out * d_out + 4 * (d_in + d_out))
    limits.check_memory(f"the posterior-levels study's data ({draws} draws of {size:,} + {test:,} points)",
                        data_bytes)
    return Plan(symmetries, members, steps, members * len(symmetries) * steps, epochs, records, held_out,
                data_bytes)


def _measure(task, group, X_test, X_train, held_out: int, seed: int, device):
    """The eq. 3.3 measure on ``held_out`` test inputs, each with its own element of ``group`` (drawn once from
    ``seed``): a ``record(net)`` hook for ``fit`` that returns ``{"equivariance_error": mean}``."""
    from ..nn.check import thesis_equivariance_errors

    rep_in, rep_out = task.reps(group)
    rng = np.random.default_rng(seed)
    gs = group.sample(held_out, rng)
    rho_in = torch.as_tensor(np.stack([rep_in.rho(g) for g in gs]).real, dtype=torch.float32, device=device)
    rho_out = torch.as_tensor(np.stack([rep_out.rho(g) for g in gs]).real, dtype=torch.float32, device=device)
    x = torch.as_tensor(X_test[:held_out] / _rms(X_train), dtype=torch.float32, device=device)  # fit's scaling

    def record(net) -> dict:
        return {"equivariance_error": float(thesis_equivariance_errors(net, x, rho_in, rho_out).mean())}

    return record


def posterior_levels(members: int = 10, symmetries=SYMMETRIES, variant: str = "thesis",
                     schedule: Schedule = POSTERIOR, size: int = SIZE, test: int = TEST,
                     held_out: int | None = None, seed: int = 0, prior: str = "thesis",
                     prior_equivariant: float | None = None, prior_free: float | None = None,
                     record_every: int = RECORD_EVERY, data: str = "shared", device="cpu", progress=None,
                     control=None) -> dict:
    """Train a deep ensemble of ``members`` RPP-EMLPs (``lab.rpp.train.train_rpp``, its prior's objective) on each
    dataset of ``symmetries`` -- ``"exact"``: inertia; ``"approximate"``: modified inertia (``variant``: the thesis's
    formula or the authors' code) -- and record the thesis's equivariance error (eq. 3.3, module docstring) through
    training.

    Returns ``{"rows": [{"symmetry", "member", "epoch", "equivariance_error", "test_mse", "free_fraction"}, ...],
    "summary": {symmetry: {"members", "median", "q25", "q75", "iqr", "final": [one per member], "test_mse_median"}},
    "status": "finished" | "stopped", "total_steps", "epochs", "settings": {...}}``; ``summary`` is over the final
    records of the members that finished.  ``progress`` gets ``{"kind": "started", ...}``, ``{"kind":
    "posterior", **row}`` and ``progress`` records (done/total in optimiser steps)."""
    from ..device import pick_device
    from ..data.regression import task_group
    from ..control import progress_record

    cost = plan(members, symmetries, variant, schedule, size, test, held_out, record_every, data, prior,
                prior_equivariant, prior_free)
    symmetries, held_out = cost.symmetries, cost.held_out
    seed = check_count(seed, "seed")
    emit = progress or (lambda record: None)
    device = device if isinstance(device, torch.device) else pick_device(device)  # a DeviceError before work
    steps, total = cost.steps_per_member, cost.total_steps
    per_epoch = steps // cost.epochs
    settings = {"members": cost.members, "symmetries": list(symmetries), "variant": variant, "size": size,
                "test": test, "held_out": held_out, "seed": seed, "prior": prior, "prior_free": prior_free,
                "prior_equivariant": prior_equivariant, "record_every": record_every, "data": data,
                "epochs": cost.epochs, "channels": schedule.channels, "layers": schedule.layers,
                "batch": schedule.batch, "lr": schedule.lr, "device": str(device)}
    emit({"kind": "started", "total_steps": total, **settings})
    emit(progress_record(0, total, "drawing the data"))
    rows, finals, status, done = [], {s: [] for s in symmetries}, "finished", 0
    try:
        for sym in symmetries:
            reg = regime("inertia", sym, variant=variant if sym == "approximate" else None)
            task, group = reg.data, task_group(reg.group)
            symmetry = task_group(task.group)  # the data's declared group: O(3) for both datasets
            drawn = None
            for k in range(cost.members):
                checkpoint(control)
                draw = seed + k if data == "per-member" else seed
                if drawn is None or drawn[0] != draw:
                    Xtr, Ytr = task.make(size, seed=2 * draw)
                    Xte, Yte = task.make(test, seed=2 * draw + 1)
                    drawn = (draw, (Xtr, Ytr, Xte, Yte), _measure(task, symmetry, Xte, Xtr, held_out, seed, device))
                _, arrays, record = drawn

                def relay(row, base=done, sym=sym, k=k):
                    out = {"symmetry": sym, "member": k, "epoch": row["epoch"],
                           "equivariance_error": row["equivariance_error"], "test_mse": row["test_mse"],
                           "free_fraction": row["free_fraction"]}
                    rows.append(out)
                    emit({"kind": "posterior", **out})
                    emit(progress_record(base + row["epoch"] * per_epoch, total,
                                         f"{sym} ensemble, member {k + 1}/{cost.members}: epoch "
                                         f"{row['epoch']}/{row['epochs']}"))

                train_rpp(task, group, arrays, schedule, prior=prior, prior_equivariant=prior_equivariant,
                          prior_free=prior_free, seed=seed + k, device=device, progress=relay, control=control,
                          record_every=record_every, symmetry=symmetry, record=record)
                done += steps
                finals[sym].append(rows[-1])
    except Stopped:
        status = "stopped"
    emit(progress_record(done, total, status))
    return {"rows": rows, "summary": {s: _summary(finals[s]) for s in symmetries}, "status": status,
            "total_steps": total, "epochs": cost.epochs, "settings": settings}


def _summary(finals: list[dict]) -> dict:
    """Median and interquartile range of the members' final equivariance errors (the thesis's boxes are IQRs)."""
    errs = [r["equivariance_error"] for r in finals]
    if not errs:
        nan = float("nan")
        return {"members": 0, "median": nan, "q25": nan, "q75": nan, "iqr": nan, "final": [],
                "test_mse_median": nan}
    q25, med, q75 = (float(v) for v in np.percentile(errs, [25, 50, 75]))
    return {"members": len(errs), "median": med, "q25": q25, "q75": q75, "iqr": q75 - q25, "final": errs,
            "test_mse_median": float(np.median([r["test_mse"] for r in finals]))}


def text(out: dict) -> str:
    """The summary in lines: per dataset, the median and IQR of the final equivariance error over members."""
    s = out["settings"]
    lines = [f"posterior levels of equivariance: {s['members']} RPP-EMLPs per dataset, {s['epochs']} epochs, "
             f"{s['size']} points, prior {s['prior']}, modified inertia: {s['variant']} ({out['status']})",
             f"{'dataset':<12}{'members':>8}{'median':>11}{'q25':>11}{'q75':>11}{'test MSE':>11}"]
    for sym, v in out["summary"].items():
        lines.append(f"{sym:<12}{v['members']:>8}" + "".join(
            f"{x:>11.3g}" if math.isfinite(x) else f"{'-':>11}"
            for x in (v["median"], v["q25"], v["q75"], v["test_mse_median"])))
    return "\n".join(lines)
