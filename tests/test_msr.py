"""Sharing discovery, method 2: proximal operators and the meta-learned symmetry matrix (MSR)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

from lab.sharing.msr import (LocallyConnected, exclusive_penalty, group_penalty, meta_learn, prox_exclusive,
                             prox_group)


def _objective(x, w, lam, penalty):
    return 0.5 * float(((x - w) ** 2).sum()) + lam * float(penalty(x))


@pytest.mark.parametrize("lam", [0.05, 0.3, 2.0])
def test_exclusive_prox_is_the_minimiser(lam, rng):
    for _ in range(20):
        w = torch.as_tensor(rng.standard_normal((1, 5)))
        x = prox_exclusive(w, lam)
        f = lambda z: _objective(torch.as_tensor(z)[None], w, lam, exclusive_penalty)  # noqa: E731
        best = min((minimize(f, start, method="Powell", options={"xtol": 1e-10, "ftol": 1e-14})
                    for start in (w.numpy()[0], np.zeros(5), x.numpy()[0])), key=lambda r: r.fun)
        assert f(x.numpy()[0]) <= best.fun + 1e-9  # no point found by a derivative-free search does better
        assert f(x.numpy()[0]) <= f(w.numpy()[0])  # and it reduces the regularised objective


def test_group_prox_closed_form_and_kkt(rng):
    lam = 0.7
    w = torch.as_tensor(rng.standard_normal((50, 4)))
    x = prox_group(w, lam)
    norms = torch.linalg.vector_norm(w, dim=-1)
    assert torch.all(x[norms <= lam] == 0)
    live = norms > lam
    # stationarity: x − w + lam x / ‖x‖ = 0 on the groups that survive
    resid = x[live] - w[live] + lam * x[live] / torch.linalg.vector_norm(x[live], dim=-1, keepdim=True)
    assert resid.abs().max() < 1e-12
    for i in range(50):
        assert _objective(x[i:i + 1], w[i:i + 1], lam, group_penalty) <= _objective(w[i:i + 1], w[i:i + 1], lam,
                                                                                    group_penalty) + 1e-12


def test_rank_one_tasks_are_convolutions():
    fam = LocallyConnected(n_in=10, kernel=3, rank=1)
    W = fam.weights(4, np.random.default_rng(0))
    for w in W:
        rows = [w[o, o:o + 3] for o in range(fam.n_out)]
        assert all(np.allclose(r, rows[0]) for r in rows)  # one filter slid along: a convolution


def test_msr_learns_near_convolutions_and_beats_fully_connected():
    fam = LocallyConnected(n_in=12, kernel=3, rank=1)
    msr = meta_learn(fam, tasks=100, sparsity="exclusive", steps=400)
    fc = meta_learn(fam, tasks=100, model="fc", steps=400)
    assert msr.test_loss < 0.5 * fc.test_loss
    picture = msr.max_abs(fam.n_out, fam.n_in)
    band = np.zeros_like(picture, dtype=bool)
    for o in range(fam.n_out):
        band[o, o:o + 3] = True
    assert picture[band].mean() > 5 * picture[~band].mean()  # U's mass sits on the convolution's band
