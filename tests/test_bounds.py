"""The compression bound's parts (issue 31), each against an independent fact: Catoni's bound against a value
computed by hand and a brute-force infimum; the description length's arithmetic; the arithmetic coder round-trips
and its length is within a word of the empirical entropy; the Kronecker projectors equal their explicit Kronecker
products and are orthonormal to the order they should be; the straight-through gradients of eq. 5.4."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lab.bounds import BoundsError, catoni_at, catoni_bound, description_bits, kl_from_bits, phi_inverse
from lab.bounds.coding import decode, empirical_entropy_bits, encode, coded_bits, ideal_bits
from lab.bounds.projectors import make_projector, projector_numbers
from lab.bounds.quantize import assign, initial_levels, quantize


def test_catoni_at_one_lambda_by_hand():
    # n = 100, train error 0.1, KL = 10 nats, delta = 0.05, alpha = 1.0001, lambda = 50, by hand:
    # ln(alpha^2 lambda) = 3.912223, ln alpha = 9.9995e-5 -> ratio 39124.2, union = 2 ln(ratio) = 21.149;
    # x = 0.1 + (1.0001 / 50)(10 + ln 20 + 21.149) = 0.1 + 0.020002 * 34.1447 = 0.78296;
    # Phi^{-1}_{0.5}(x) = (1 - e^{-0.391481}) / (1 - e^{-0.5}) = 0.323945 / 0.393469 = 0.82331
    assert catoni_at(0.1, 10.0, 100, 50.0, delta=0.05, alpha=1.0001) == pytest.approx(0.82331, abs=2e-5)


def test_the_infimum_over_lambda_is_a_brute_force_minimum():
    for err, kl, n in ((0.1, 10.0, 100), (0.02, 300.0, 1438), (0.3, 50.0, 60000), (0.0, 0.0, 1000)):
        grid = np.exp(np.linspace(1e-6, math.log(1e4 * n), 20001))
        brute = min(catoni_at(err, kl, n, float(lam)) for lam in grid)
        got = catoni_bound(err, kl, n)
        assert got <= brute + 1e-12 and got >= brute - 1e-4
        assert err <= got <= 1  # a bound on the error is never below the training error


def test_the_bound_grows_with_the_description_and_is_vacuous_when_it_outgrows_the_data():
    n = 1438
    bounds = [catoni_bound(0.05, kl_from_bits(b), n) for b in (100, 300, 1000, 3000, 10000)]
    assert all(a < b for a, b in zip(bounds, bounds[1:]))
    assert catoni_bound(0.0, kl_from_bits(n * 8), n) > 0.9  # more bits than the labels carry: vacuous
    assert catoni_bound(0.0, 0.0, 10_000) < 0.01  # nothing paid, nothing wrong: ~ln(1/delta)/n


def test_phi_inverse_is_catonis_with_the_signs():
    # Catoni's Phi^{-1}_Y(x) = (1 - e^{-Yx}) / (1 - e^{-Y}) is concave with Phi^{-1}(0) = 0, Phi^{-1}(1) = 1, so it
    # lies above x: the bound is at least the empirical term.  The thesis prints (1 - e^{Yx}) / (1 - e^Y), which lies
    # below x (convex) and would put a "bound" under the training error.
    for Y in (0.01, 0.5, 3.0):
        for x in (0.1, 0.5, 0.9):
            printed = (1 - math.exp(Y * x)) / (1 - math.exp(Y))
            assert phi_inverse(Y, x) > x > printed
        assert phi_inverse(Y, 0.0) == 0.0 and phi_inverse(Y, 1.0) == pytest.approx(1.0)


def test_description_length_and_kl_arithmetic():
    # 500 coded bits + 7 levels x 16 bits + 7 counts x ceil(log2 100) = 7 bits + 2 bits of hyperparameters
    assert description_bits(500, 7, 100, 2.0) == 500 + 112 + 49 + 2
    assert kl_from_bits(1000) == pytest.approx(1000 * math.log(2) + 2 * math.log(1000))
    with pytest.raises(BoundsError):
        catoni_bound(1.5, 1.0, 10)


def test_arithmetic_coding_round_trips_within_a_word_of_the_entropy():
    rng = np.random.default_rng(0)
    p = np.array([0.55, 0.2, 0.1, 0.07, 0.05, 0.02, 0.01])
    for d in (1, 37, 1000, 20000):
        symbols = rng.choice(7, size=d, p=p)
        words, counts = encode(symbols, 7)
        assert np.array_equal(decode(words, counts), symbols)
        h = empirical_entropy_bits(symbols)
        bits = coded_bits(symbols, 7)
        # no code beats the empirical entropy by more than the coder's 2 bits; the range coder writes 32-bit words
        assert h - 2 <= bits <= h + 64, (d, h, bits)
    assert ideal_bits(np.zeros(10, dtype=int)) == 2  # one level: H = 0
    skew = rng.choice(7, size=5000, p=p)
    flat = rng.choice(7, size=5000)
    assert coded_bits(skew, 7) < 0.8 * coded_bits(flat, 7)  # the variable-length code pays for skew, not for levels


def _explicit(kind, D, d, seed):
    """The projector assembled with numpy's kron from the same random blocks."""
    P = make_projector(kind, D, d, seed=seed, dtype=torch.float64)
    s = math.isqrt(D)
    ones = np.ones((s, 1))
    if kind == "kron-sum":
        R1, R2 = P.R1.numpy(), P.R2.numpy()
        square = (np.kron(ones, R1) + np.kron(R2, ones)) / math.sqrt(2 * D)
        return P, np.vstack([square, P.rows.numpy()])
    square = np.kron(P.Q1.numpy(), P.Q2.numpy()) / math.sqrt(D)  # (s^2, k^2)
    square = np.hstack([square, P.cols.numpy()])
    return P, np.vstack([square, P.rows.numpy()])


@pytest.mark.parametrize("kind", ["kron-sum", "kron-product"])
@pytest.mark.parametrize("D,d", [(64, 9), (70, 11), (1000, 30)])
def test_kronecker_matvec_equals_the_dense_product(kind, D, d):
    P, explicit = _explicit(kind, D, d, seed=3)
    w = torch.randn(d, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    assert np.allclose(P(w).numpy(), explicit @ w.numpy(), atol=1e-12)
    v = torch.randn(D, dtype=torch.float64)
    assert np.allclose(P.transpose(v).numpy(), explicit.T @ v.numpy(), atol=1e-12)
    assert P.numbers() == projector_numbers(kind, D, d) < D * d  # never D x d numbers


def _deviation(kind, D, d=16, seeds=4):
    devs = [float((lambda P: (P.T @ P - torch.eye(d, dtype=torch.float64)).abs().max())(
        make_projector(kind, D, d, seed=s, dtype=torch.float64).dense())) for s in range(seeds)]
    return sum(devs) / seeds


@pytest.mark.parametrize("kind,order", [("dense", -0.5), ("kron-product", -0.25), ("kron-sum", -0.25)])
def test_projectors_are_orthonormal_to_their_order(kind, order):
    """max |P^T P - I| against D: the fitted exponent is the projector's order -- D^{-1/2} for the dense Gaussian,
    D^{-1/4} for the Kronecker product (as the thesis states) and for the Kronecker sum (the thesis states D^{-1/2};
    its diagonal |R1 e_j|^2 / (2 sqrt(D)) fluctuates by O(D^{-1/4}))."""
    Ds = [1024, 4096, 16384, 65536]
    devs = [_deviation(kind, D) for D in Ds]
    slope = np.polyfit(np.log(Ds), np.log(devs), 1)[0]
    assert abs(slope - order) < 0.12, (kind, slope, devs)
    assert devs[-1] < 0.25


def test_straight_through_gradients_of_eq_5_4():
    w = torch.tensor([-1.1, -0.2, 0.05, 0.4, 0.9, 1.3], requires_grad=True)
    c = torch.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    w_hat = quantize(w, c)
    assert torch.allclose(w_hat.detach(), torch.tensor([-1.0, 0.0, 0.0, 0.0, 1.0, 1.0]), atol=1e-7)
    weights = torch.arange(1.0, 7.0)
    (w_hat * weights).sum().backward()
    assert torch.equal(w.grad, weights)  # d w_hat_i / d w_j = delta_ij
    # d w_hat_i / d c_k = 1[q(i) = k]: each level collects the gradients of the weights assigned to it
    assert torch.equal(c.grad, torch.tensor([1.0, 2.0 + 3.0 + 4.0, 5.0 + 6.0]))
    assert torch.equal(assign(w, c), torch.tensor([0, 1, 1, 1, 2, 2]))
    levels = initial_levels(torch.linspace(-2, 3, 50), 6, "uniform")
    assert torch.allclose(levels, torch.linspace(-2, 3, 6))
    km = initial_levels(torch.cat([torch.zeros(20), torch.ones(20) * 5]), 2, "kmeans")
    assert torch.allclose(km, torch.tensor([0.0, 5.0]))


def test_the_kronecker_sum_spans_at_most_2_sqrt_D_directions():
    """(1 (x) R1 + R2 (x) 1) w reshaped to sqrt(D) x sqrt(D) is a row pattern plus a column pattern: whatever d, the
    Kronecker-sum subspace has at most 2 sqrt(D) - 1 directions (plus the dense pad's rows) -- why at d near or above
    2 sqrt(D) it trains worse than the dense and Kronecker-product subspaces (bench/bounds.py)."""
    for D, d in ((400, 100), (441, 60)):
        s = math.isqrt(D)
        P = make_projector("kron-sum", D, d, seed=0, dtype=torch.float64).dense()
        assert int(torch.linalg.matrix_rank(P)) == min(2 * s - 1, d)
        assert int(torch.linalg.matrix_rank(make_projector("kron-product", D, d, dtype=torch.float64).dense())) == d
