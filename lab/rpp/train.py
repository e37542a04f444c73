"""Training Figure 3.2's models on a regression regime: MLP, EMLP and RPP-EMLP (thesis 3.5.1, appendix A.2.3.1).

MLP and EMLP train exactly as in chapter 2 (``lab.nn.train.train_one``: Adam, the rms scaling of inputs and
targets, a mean squared error; the EMLP over the regime's models' group, the MLP sized by the data's group).
RPP-EMLP (``lab.rpp.nn.RPPEMLP``) trains on its prior's objective, on the same scaled data, batches and schedule
(``lab.nn.train.fit``: ``train_one``'s loop with the model's own step):

* ``"thesis"`` (the default, ``PRIORS["thesis"]``): MAP with the *summed* Gaussian negative log-likelihood, unit
  variance in the scaled units, ``sum_i |f(x_i) - y_i|^2 / 2`` over the N training points (a batch of B stands for
  them: its sum times N / B), plus ``|theta_eq|^2 / (2 s_eq^2) + |theta_free|^2 / (2 s_free^2)`` with the thesis's
  ``s_eq^2 = 1e5``, ``s_free^2 = 1``.
* ``"runner-inertia"``, ``"runner-pendulum"`` (``WeightDecay``): the authors' runners, the element-wise mean squared
  error plus ``l_eq |theta_eq|^2 + l_free |theta_free|^2``.

``prior_free`` / ``prior_equivariant`` override a pathway's prior variance ``s^2`` (0: the pathway is not built, so
``prior_free=0`` is an EMLP's function space).  For a runner's weight decay a variance means the decay of the same
MAP objective: the mean runs over N x d_out squared errors, so ``l = 1 / (2 N d_out s^2)``
(``WeightDecay.as_prior`` read backwards).

Reported per model: ``train_mse`` / ``test_mse`` in the task's units, ``equivariance_error`` (``lab.nn.check``, on
test inputs) under the *data's declared* group (``regime.data.group``: O(3) for all three inertia regimes; in the
misspecified regime that is the data's own O(3), not the models' SL(3); in the approximate regime the symmetry the
data only approximately have), and for RPP-EMLP ``free_fractions`` (``|W_free| / |W|`` of each linear layer) and
their mean ``free_fraction``.  Epoch records (``{"kind": "epoch", ...}``) as ``train_one``'s.
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import torch

from ..nn.train import Schedule, fit, train_one
from ..errors import LabError
from .nn import PRIORS, Prior, RPPEMLP, _variance

MODELS = ("mlp", "emlp", "rpp")
PRIOR_NAMES = tuple(PRIORS)

#: the thesis's training (A.2.3.1): 1000 training points, 500 epochs (batch 500: 1000 steps), 3 x 384 channels
PAPER = Schedule(lr=3e-3, batch=500, channels=384, layers=3, epoch_budget=10**12, max_epochs=500)
#: the fast defaults (``lab.rpp.family``: 1000 training points, as the thesis): 80 epochs of batch 500, 160 steps
SMALL = Schedule(lr=3e-3, batch=500, channels=384, layers=3, epoch_budget=10**12, max_epochs=80)


class RPPTrainError(LabError, ValueError):
    """An unknown model or prior name, or a model with nothing to train."""


def objective(prior: str = "thesis", prior_equivariant: float | None = None, prior_free: float | None = None,
              n_data: int = 1, d_out: int = 1):
    """``(objective, (s_eq^2, s_free^2))``: the ``Prior`` or ``WeightDecay`` RPP-EMLP trains on (``PRIORS[prior]``
    with the overrides) and the variances its model is built with (0: no such pathway).

    >>> objective("thesis", prior_free=0.5)[0]
    Prior(equivariant=100000.0, free=0.5)
    >>> objective("runner-inertia", prior_free=1.0, n_data=100, d_out=5)[0].free  # 1 / (2 N d_out s^2)
    0.001
    """
    if prior not in PRIORS:
        raise RPPTrainError(f"unknown prior {prior!r}: one of {', '.join(PRIORS)}")
    base = PRIORS[prior]
    over = {k: _variance(v, f"prior_{k}") for k, v in (("equivariant", prior_equivariant), ("free", prior_free))
            if v is not None}
    if isinstance(base, Prior):
        obj = replace(base, **over)
        variances = (obj.equivariant, obj.free)
    else:
        decay = {k: (0.0 if v == 0 or math.isinf(v) else 1 / (2 * n_data * d_out * v)) for k, v in over.items()}
        obj = replace(base, **decay)
        as_prior = obj.as_prior(n_data * d_out)
        variances = tuple(over.get(k, getattr(as_prior, k)) for k in ("equivariant", "free"))
    if variances[0] == 0 and variances[1] == 0:
        raise RPPTrainError("prior_equivariant and prior_free are both 0: RPP-EMLP would have no pathway")
    return obj, variances


def train_rpp(task, group, data, schedule: Schedule, prior: str = "thesis", prior_equivariant: float | None = None,
              prior_free: float | None = None, seed: int = 0, device="cpu", progress=None, control=None,
              record_every: int = 1, label: str = "rpp", symmetry=None, record=None) -> dict:
    """Train RPP-EMLP over ``group`` on ``data`` = (X_train, Y_train, X_test, Y_test) on its prior's objective (the
    module docstring); returns ``train_one``'s keys plus ``free_fractions``, ``free_fraction``, ``prior``.
    ``record(net)``: extra keys for each epoch record, beside ``free_fraction`` (``fit``'s hook; e.g. the thesis's
    equivariance error through training, ``lab.rpp.posterior``)."""
    n = len(data[0])
    rep_in, rep_out = task.reps(group)
    obj, (v_eq, v_free) = objective(prior, prior_equivariant, prior_free, n, rep_out.size)
    torch.manual_seed(seed)
    net = RPPEMLP(rep_in, rep_out, group, channels=schedule.channels, layers=schedule.layers,
                  prior_equivariant=v_eq, prior_free=v_free).to(device)
    summed = isinstance(obj, Prior)

    def step(net, opt, xb, yb, n):
        opt.zero_grad(set_to_none=True)
        sq = (net(xb) - yb).abs().pow(2)
        loss = 0.5 * sq.sum() * (n / len(xb)) if summed else sq.mean()  # the data term; the prior's below
        loss.backward()
        obj.add_grad(net)
        opt.step()

    # train_one's loop (the same scaling, the seed's batches, records and equivariance error) with this objective
    out = fit(net, task, group, data, schedule, seed=seed, progress=progress, control=control,
              record_every=record_every, label=label, symmetry=symmetry, step=step,
              record=lambda net: {"free_fraction": float(np.mean(net.free_fractions()))}
              | (record(net) if record is not None else {}))
    fractions = [float(f) for f in net.free_fractions()]
    return out | {"free_fractions": fractions, "free_fraction": float(np.mean(fractions)), "prior": prior}


def train_model(model: str, regime, data, schedule: Schedule, seed: int = 0, device="cpu", progress=None,
                control=None, record_every: int = 1, prior: str = "thesis", prior_equivariant: float | None = None,
                prior_free: float | None = None) -> dict:
    """Train ``model`` (``MODELS``) on a regression ``regime`` (``lab.rpp.tasks.Regime``) and ``data``: the EMLP and
    RPP-EMLP over the regime's models' group, the MLP sized by the data's group; every equivariance error under the
    data's declared group (``regime.data.group``)."""
    from ..data.regression import task_group

    if model not in MODELS:
        raise RPPTrainError(f"unknown model {model!r}: one of {', '.join(MODELS)}")
    task = regime.data
    group, symmetry = task_group(regime.group), task_group(task.group)
    kw = dict(seed=seed, device=device, progress=progress, control=control, record_every=record_every)
    if model == "rpp":
        return train_rpp(task, group, data, schedule, prior=prior, prior_equivariant=prior_equivariant,
                         prior_free=prior_free, symmetry=symmetry, **kw)
    try:
        return train_one(model, task, group if model == "emlp" else symmetry, data, schedule, symmetry=symmetry,
                         **kw)
    except RuntimeError as err:  # no weight reaches the output: the loss has no gradient (autograd's words)
        if "does not require grad" not in str(err):
            raise
        raise RPPTrainError(f"the {model.upper()} over {regime.group} with {schedule.channels} channels has no "
                            f"weight that reaches its output (its hidden layers hold no {regime.group}-equivariant "
                            f"path to {task.rep_out}): use more channels") from None
