"""Sharing discovery, method 2: proximal operators and the meta-learned symmetry matrix (MSR)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.optimize import minimize

from lab.errors import LabError
from lab.sharing.msr import (LocallyConnected, band_fraction, by_input, choose_lambda, exclusive_penalty, from_input,
                             group_penalty, hoyer, latent_size, meta_learn, prox_exclusive, prox_exclusive_report,
                             prox_group, prox_step, small_fraction)


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
    msr = meta_learn(fam, tasks=100, sparsity="exclusive", lam=0.03, test_tasks=100)
    fc = meta_learn(fam, tasks=100, model="fc", test_tasks=100)
    assert msr.test_loss < 0.5 * fc.test_loss
    picture = msr.max_abs(fam.n_out, fam.n_in)
    band = np.zeros_like(picture, dtype=bool)
    for o in range(fam.n_out):
        band[o, o:o + 3] = True
    assert picture[band].mean() > 5 * picture[~band].mean()  # U's mass sits on the convolution's band


def test_report_prox_is_yoon_hwang_and_first_order_exact(rng):
    w = torch.as_tensor(rng.standard_normal((6, 40)))
    lam = 0.01
    x = prox_exclusive_report(w, lam)
    # sign(w)(|w| − lam‖w_g‖₁)_+, written out entry by entry
    for g in range(6):
        l1 = float(w[g].abs().sum())
        for i in range(40):
            expect = np.sign(float(w[g, i])) * max(abs(float(w[g, i])) - lam * l1, 0.0)
            assert abs(float(x[g, i]) - expect) < 1e-12
    # it agrees with the exact proximal map to first order: the gap shrinks like lam² (quarter per halving)
    gaps = [float((prox_exclusive_report(w, t) - prox_exclusive(w, t)).abs().max()) for t in (1e-4, 5e-5)]
    assert 3.0 < gaps[0] / gaps[1] < 5.0
    assert float((prox_exclusive_report(w, 0.02) - prox_exclusive(w, 0.02)).abs().max()) > 1e-3  # not the same map


def test_prox_groups_are_the_input_features(rng):
    n_out, n_in, L = 4, 6, 3
    U = torch.as_tensor(rng.standard_normal((n_out * n_in, L)))
    G = by_input(U, n_out, n_in)
    assert torch.equal(from_input(G, n_out, n_in), U)
    # row i of the grouping holds exactly the entries of U that build W[:, i] (vec(W) = U v, W row-major)
    for i in range(n_in):
        rows = [o * n_in + i for o in range(n_out)]
        assert sorted(G[i].tolist()) == sorted(U[rows].reshape(-1).tolist())
    # a strong exclusive prox empties no input feature: every group keeps its largest entry
    X = prox_step(U, n_out, n_in, "exclusive", 10.0, "exact")
    assert all((by_input(X, n_out, n_in)[i] != 0).sum() >= 1 for i in range(n_in))
    assert (X == 0).float().mean() > 0.5
    # group sparsity with a large step removes whole input features
    Y = prox_step(U, n_out, n_in, "group", 1e9)
    assert torch.all(Y == 0)
    assert torch.equal(prox_step(U, n_out, n_in, "exclusive", 0.0), U)


def test_sparsity_measures():
    assert hoyer(np.eye(5)[0]) == 1.0 and abs(hoyer(np.ones(7))) < 1e-12
    assert 0 < hoyer([3, 1, 0.5, 0.1]) < 1
    assert small_fraction([1, 1e-4, 0.5, 0]) == 0.5
    pic = np.zeros((3, 5))
    for o in range(3):
        pic[o, o:o + 3] = 1
    assert band_fraction(pic, 3) == 1.0
    pic[0, 4] = 9
    assert band_fraction(pic, 3) == 0.5


def test_zhou_sizes_and_inits():
    assert [latent_size(r, 3) for r in (1, 2, 5)] == [3, 6, 30]  # train_synthetic.py
    fam = LocallyConnected(kernel=3, rank=2)
    assert (fam.n_in, fam.n_out, fam.samples) == (70, 68, 20)
    assert np.allclose(fam.M.sum(1), 1) and (fam.M > 0).all()  # softmax rows
    res = meta_learn(fam, tasks=4, steps=0, test_tasks=4)
    assert res.U.shape == (68 * 70, 6)
    assert 0.0095 < res.U.std() < 0.0105  # N(0, 0.01²)
    assert res.inner_lr == pytest.approx(0.1)
    with pytest.raises(LabError):
        meta_learn(fam, tasks=4, steps=1, support=20)


def test_lambda_is_chosen_on_validation_tasks_only():
    fam = LocallyConnected(n_in=16, kernel=3, rank=2)
    kw = dict(grid=(0.03, 1.0), val_tasks=40, steps=150, outer_lr=1e-2)
    a = choose_lambda(fam, 10, test_tasks=30, **kw)
    b = choose_lambda(fam, 10, test_tasks=60, **kw)
    assert a.grid == [0.0, 0.03, 1.0]  # 0 is always part of the grid
    assert a.picked == a.grid[int(np.argmin(a.val))] and a.picked_sparse in (0.03, 1.0)
    assert a.val == b.val and a.picked == b.picked  # other test tasks: the same choice
    assert a.test != b.test
    assert a.relative_change == pytest.approx(a.picked_test / a.base_test - 1)
    # every λ trains on the same tasks from the same start: λ = 0 is plain meta-learning without sparsity
    plain = meta_learn(fam, tasks=10, steps=150, outer_lr=1e-2, test_tasks=30)
    assert a.base_test == pytest.approx(plain.test_loss, rel=1e-6)
