"""Figure 3.2's models on the double spring pendulum: MLP, EMLP and RPP-EMLP as Hamiltonian networks (thesis 3.5.1,
appendix A.2.3.1).

Every model is a Hamiltonian network ``H_theta: 4*V -> Scalar`` of the state divided by ``state_scale`` (chapter 2,
``lab.nn.hamiltonian``), trained on the chunks of ``chunk_len = 5`` observations ``dt = 0.2`` apart (one per
trajectory) by integrating it from each chunk's first state (fixed-step RK4) and comparing with the true chunk.

* ``mlp`` / ``emlp``: exactly chapter 2's ``hnn-mlp`` / ``hnn-emlp`` (``build_model``, ``train_model``: the MSE,
  Adam); the EMLP over the regime's models' group (``O2eR3()``; ``SO(3)`` when misspecified).
* ``rpp``: ``HamiltonianNN(RPPEMLP("4*V", "Scalar", group))`` trained by the same loop on its prior's objective
  (``train_model(objective=...)``):

  - ``"thesis"`` (default): MAP, the *summed* Gaussian negative log-likelihood of the N training chunks with unit
    variance in the state's own units, ``sum_{chunks, times, coordinates} (z_hat - z)^2 / 2`` (a batch of B
    chunks stands for N / B of it: ``summed_nll``), plus the prior's penalty, whose gradient is added after the
    backward pass (``Prior.add_grad``), the variances 1e5 / 1 of the text;
  - ``"runner-pendulum"``: the authors' pendulum runner, the MSE (mean over chunks, times and coordinates) plus
    weight decays 1e-4 (equivariant) and 1 (free); ``"runner-inertia"`` is accepted too (its decays).

  ``prior_free`` / ``prior_equivariant`` override a variance as in ``lab.rpp.train.objective`` (for a runner's
  decay the mean runs over N x chunk_len x 12 squared errors).

The RPP nonlinearity's fused kernel (``lab.rpp.nn._FusedGate``) is switched off here (``build_rpp``): its
twice-differentiable backward re-traces the whole history of its input, so a Hamiltonian network integrated by
RK4 through it costs four times more per nested field evaluation (measured at 32 channels, 16 states: 0.07, 0.29,
0.99, 3.99 s for the 2nd to 5th; a training chunk nests 4 x 4 of them), where the written-out formula
(``RPPGatedNonlinearity.reference``) stays at 6 ms.  The same function; only the cost differs.

Reported per model (``train``): ``test_mse`` -- the thesis's test set is chunks, so it is the MSE of the model's
rollout over the held-out test chunks' 5 times from their first states (every point, the first included, as the
training loss), computed by ``lab.nn.hamiltonian.evaluate`` (a float64 copy, adaptive Dormand-Prince at the
task's tolerance 2e-6) on the chunk times; ``still_mse`` the same for a model that predicts no motion (each
chunk's first state held: the number a model must beat to have learned anything); ``train_mse`` the MSE on the
training chunks; ``rollout_error``
(``evaluate``'s relative state error over the test chunks); ``equivariance_error`` under the data's declared
group ``O2eR3()`` (``lab.nn.hamiltonian._equivariance``: the Hamiltonian network, for RPP the whole net, on up to 64
test states); for RPP ``free_fractions`` / ``free_fraction``; ``curve``, the training records (``kind="epoch"``
with ``epoch``/``epochs``, ``step``/``steps``, ``train_mse``: the batch's MSE before its step).

``prior_wind_grid`` is the thesis's study of the priors against the wind (section 3.5.2): RPP-EMLP's test MSE and
learned equivariance error for every wind strength x free prior variance.
"""
from __future__ import annotations

import math
import time

import numpy as np
import torch

from ..nn.hamiltonian import (SYMMETRY, DynamicsSettings, HamiltonianNN, _equivariance, build_model, evaluate,
                             state_scale, train_model)
from ..data.pendulum import STATE_DIM, state_group
from .nn import Prior, RPPEMLP, RPPGatedNonlinearity
from .train import MODELS, RPPTrainError, objective

#: the thesis's pendulum training (A.2.3.1): 500 train / 500 test chunks, 1000 epochs of one full batch, 3 x 128
#: channels, Adam 3e-3; RK4 at step 0.1 s while training (chapter 2's PAPER)
PAPER = DynamicsSettings(train=500, test=500, epochs=1000, batch=500, channels=128, layers=3, lr=3e-3, substeps=2)
#: the fast defaults (``lab rpp --task pendulum``): chapter 2's SMALL data and width (64 chunks, 32 channels, RK4 at
#: 0.2 s), 64 test chunks, fewer epochs (``lab.rpp.family`` says what they cost)
SMALL = DynamicsSettings(train=64, test=64, epochs=40, batch=500, channels=32, layers=3, lr=3e-3, substeps=1)


def pendulum_chunks(task, settings: DynamicsSettings, seed: int = 0, control=None):
    """``(ts, Z, Zt)``: the chunk times (chunk_len,), ``settings.train`` training chunks (seed ``2 seed``, float32)
    and ``settings.test`` test chunks (seed ``2 seed + 1``, float64), each (n, chunk_len, 12), of ``task``."""
    ts, Z = task.chunks(settings.train, seed=2 * seed, control=control)
    _, Zt = task.chunks(settings.test, seed=2 * seed + 1, dtype=np.float64, control=control)
    return ts, Z, Zt


def build_rpp(group, channels: int = 32, layers: int = 3, scale: float = 1.0, prior_equivariant: float = 1e5,
              prior_free: float = 1.0, device="cpu") -> HamiltonianNN:
    """RPP-EMLP as a Hamiltonian network over ``group`` (a group text on R^3, ``state_group``), of the state divided
    by ``scale``, with the fused nonlinearity off (module docstring).  Weights from torch's current seed."""
    net = RPPEMLP("4*V", "Scalar", state_group(group), channels=channels, layers=layers,
                  prior_equivariant=prior_equivariant, prior_free=prior_free)
    for m in net.modules():
        if isinstance(m, RPPGatedNonlinearity):
            m._fused = False  # the written-out formula: the fused kernel's double backward is exponential here
    return HamiltonianNN(net, scale).to(device)


def summed_nll(per: torch.Tensor, n_data: int, points: int) -> torch.Tensor:
    """The summed unit-variance Gaussian negative log-likelihood of ``n_data`` chunks (up to a constant) from a
    batch's per-chunk mean squared errors ``per`` (B,) over ``points`` squared errors each (chunk_len x 12):
    ``0.5 * sum of squared errors``, the batch standing for ``n_data / B`` of it.

    >>> float(summed_nll(torch.tensor([1.0, 3.0]), n_data=4, points=60))  # 0.5 * (60 + 180) * 4 / 2
    240.0
    """
    return 0.5 * per.sum() * points * (n_data / len(per))


def rpp_objective(obj, n_data: int, points: int):
    """``train_model``'s ``objective(per, model)`` for a ``Prior`` (the summed NLL, then the prior's gradient) or a
    ``WeightDecay`` (the mean, then the decays' gradient) on RPP-EMLP's pathways (``model.net``)."""
    summed = isinstance(obj, Prior)

    def backward(per, model):
        (summed_nll(per, n_data, points) if summed else per.mean()).backward()
        obj.add_grad(model.net)

    return backward


def chunk_errors(model, ts, Zc, settings: DynamicsSettings, control=None) -> dict:
    """``{"mse", "rollout_error", "integrator"}`` of ``model`` rolled out (``evaluate``: float64, adaptive at
    ``settings``' tolerance) from the first states of chunks ``Zc`` (n, chunk_len, 12) over their times ``ts``:
    the MSE over every point (the first included, as the training loss); a diverged entry makes it ``inf``."""
    Zc = np.asarray(Zc, dtype=np.float64)
    ev = evaluate(model, Zc[:, 0], Zc, np.asarray(ts, dtype=np.float64), settings, control=control)
    with np.errstate(over="ignore", invalid="ignore"):
        mse = float(np.mean((ev["pred"] - Zc) ** 2))
    return {"mse": mse if math.isfinite(mse) else math.inf, "rollout_error": ev["rollout_error"],
            "integrator": ev["integrator"]}


def equivariance_states(Zt, k: int = 64) -> torch.Tensor:
    """Up to ``k`` states of test chunks (n, T, 12), spread over chunks and times: where equivariance is measured."""
    flat = np.asarray(Zt).reshape(-1, STATE_DIM)
    return torch.as_tensor(flat[::max(1, len(flat) // k)][:k], dtype=torch.float32)


def train(model: str, regime, data, settings: DynamicsSettings = SMALL, seed: int = 0, device="cpu", progress=None,
          control=None, record_every: int | None = None, prior: str = "thesis",
          prior_equivariant: float | None = None, prior_free: float | None = None) -> dict:
    """Train ``model`` (``MODELS``) on a pendulum ``regime`` (``lab.rpp.tasks.Regime``) with ``data`` =
    ``pendulum_chunks(...)``; returns the numbers of the module docstring and ``net`` (the trained model).
    ``progress`` gets the training records (``{"kind": "epoch", "model", "epoch", "epochs", "step", "steps",
    "train_mse", ...}``)."""
    if model not in MODELS:
        raise RPPTrainError(f"unknown model {model!r}: one of {', '.join(MODELS)}")
    settings = settings.check()
    ts, Z, Zt = data
    chunk = Z.shape[1]
    scale = state_scale(Z)
    t0 = time.monotonic()
    torch.manual_seed(seed)
    extra, backward = {}, None
    if model == "rpp":
        obj, (v_eq, v_free) = objective(prior, prior_equivariant, prior_free, len(Z), chunk * STATE_DIM)
        net = build_rpp(regime.group, settings.channels, settings.layers, scale, v_eq, v_free, device)
        backward = rpp_objective(obj, len(Z), chunk * STATE_DIM)
    else:
        net = build_model(f"hnn-{model}", regime.group, settings.channels, settings.layers, scale, device)
    curve = []

    def relay(record):
        row = dict(record, kind="epoch", model=model, epochs=settings.epochs)
        if model == "rpp":
            row["free_fraction"] = float(np.mean(net.net.free_fractions()))
        curve.append(row)
        if progress is not None:
            progress(row)

    train_model(net, ts, Z, settings, seed=seed, progress=relay, control=control, label=model,
                record_every=record_every, objective=backward)
    test = chunk_errors(net, ts, Zt, settings, control=control)
    fit = chunk_errors(net, ts, Z, settings, control=control)
    eq = _equivariance(net.cpu(), "hnn-mlp", SYMMETRY, equivariance_states(Zt))  # "hnn-": 4*V -> Scalar
    if model == "rpp":
        fractions = [float(f) for f in net.net.free_fractions()]
        extra = {"free_fractions": fractions, "free_fraction": float(np.mean(fractions)), "prior": prior}
    still = float(np.mean((np.asarray(Zt, dtype=np.float64) - np.asarray(Zt, dtype=np.float64)[:, :1]) ** 2))
    return {"model": model, "size": len(Z), "train_mse": fit["mse"], "test_mse": test["mse"], "still_mse": still,
            "rollout_error": test["rollout_error"], "integrator": test["integrator"], "equivariance_error": eq,
            "skipped_steps": curve[-1]["skipped"] if curve else 0,
            "dropped_chunks": curve[-1]["dropped"] if curve else 0, "scale": scale,
            "seconds": time.monotonic() - t0, "curve": curve, "net": net} | extra


def prior_wind_grid(winds=(0.0, 0.01, 0.03, 0.1), prior_free=(0.01, 1.0, 100.0), settings: DynamicsSettings = SMALL,
                    seed: int = 0, prior: str = "thesis", prior_equivariant: float | None = None, device="cpu",
                    progress=None, control=None) -> list:
    """The thesis's study of the priors against the wind (section 3.5.2): RPP-EMLP over ``O2eR3()`` trained on the
    windy pendulum of every strength ``eps`` in ``winds`` (0: the plain pendulum) with every free-pathway prior
    variance in ``prior_free`` (0: no free pathway, the EMLP's function space); one plain row each::

        {"wind", "prior_free", "seed", "test_mse", "train_mse", "rollout_error", "equivariance_error" (the learned
         one, under O2eR3(): how much of the symmetry the model kept), "free_fraction", "target_symmetry_error"
         (of the windy field itself under O2eR3(): how much the data break it), "seconds"}

    The data of a wind are made once (``pendulum_chunks``, the same seed for every wind: the same initial states)
    and shared by its variances; the weights start from the same seed in every cell.  ``progress`` gets the
    training records with ``wind``, ``prior_free``, ``cell`` and ``cells`` added, and each row (``kind="cell"``).
    Costs ``len(winds) * len(prior_free) * settings.steps()`` optimiser steps; a bad wind or variance is a
    ``LabError`` before any work.

    >>> s = DynamicsSettings(train=4, test=2, epochs=1, channels=8, layers=1)
    >>> rows = prior_wind_grid(winds=(0.0,), prior_free=(0.0,), settings=s)
    >>> [(r["wind"], r["prior_free"]) for r in rows], rows[0]["equivariance_error"] < 1e-5
    ([(0.0, 0.0)], True)
    """
    from .tasks import regime, target_symmetry_error

    settings = settings.check()
    winds, variances = tuple(winds), tuple(prior_free)
    regimes = [regime("pendulum", "approximate", eps=w) for w in winds]  # a bad wind: RegimeError, here
    for v in variances:
        objective(prior, prior_equivariant, v)  # a bad variance (or both 0): a LabError, here
    for r in regimes:
        r.data.check(settings.train + settings.test)
    emit = progress or (lambda record: None)
    cells, rows = len(winds) * len(variances), []
    for w, reg in zip(winds, regimes):
        data = pendulum_chunks(reg.data, settings, seed=seed, control=control)
        tse = target_symmetry_error(reg, n=256, seed=seed)
        for v in variances:
            tag = {"wind": float(w), "prior_free": float(v), "cell": len(rows), "cells": cells}
            out = train("rpp", reg, data, settings, seed=seed, device=device, control=control, prior=prior,
                        prior_equivariant=prior_equivariant, prior_free=v,
                        progress=lambda record, tag=tag: emit(record | tag))
            row = {"wind": float(w), "prior_free": float(v), "seed": seed,
                   **{k: out[k] for k in ("test_mse", "train_mse", "rollout_error", "equivariance_error",
                                          "free_fraction", "seconds")},
                   "target_symmetry_error": tse}
            rows.append(row)
            emit({"kind": "cell", **row, "cells": cells})
    return rows
