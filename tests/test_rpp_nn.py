"""Residual pathway priors (``lab.rpp.nn``), checked against facts that do not come from the module itself: a
variance of 0 on the free pathway leaves exactly the EMLP layer (same parameters, same outputs as an
``EquivariantLinear`` / ``EMLP`` loaded with them, equivariant by the EMLP test suite's metric, < 1e-4 in float32);
a variance of 0 on the equivariant pathway leaves exactly a ``torch.nn.Linear`` (and no equivariance); the default
priors break equivariance a little (the free pathway starts at 1e-3 of a dense layer); the penalty equals the sum of
squares written out by hand, and on the coefficients it equals the one on W_eq (the solved bases are orthonormal);
the runners' weight decay on a mean loss is the MAP prior of variance 1/(2 N l) on the summed loss."""
from __future__ import annotations

import math

import pytest
import torch

from lab.errors import LabError, RepError
from lab.groups import parse_group
from lab.reps import V
from lab.nn import EMLP, EquivariantLinear, GatedNonlinearity, equivariance_error, gated
from lab.rpp.nn import PRIORS, Prior, PriorError, RPPEMLP, RPPGatedNonlinearity, RPPLinear, WeightDecay

TOL = 1e-4  # the EMLP test suite's bound, float32

# (group, rep in, rep out): the groups, a Lorentz group and the pendulum's O(2) acting on R^3 among them
CASES = [
    ("SO(3)", "2*V+Scalar", "T(2)+V+Scalar"),
    ("O(5)", "2*V", "Scalar+V"),
    ("S(4)", "V+Scalar", "V+T(2)"),
    ("SO13p()", "V+2*Scalar", "T(2)+V"),
    ("O2eR3()", "4*V", "Scalar+V"),
]
IDS = [c[0] for c in CASES]


def _moves(model, size: int) -> bool:
    """The output changes with the input (a constant would be trivially equivariant)."""
    torch.manual_seed(1)
    x1, x2 = torch.randn(8, size), torch.randn(8, size)
    with torch.no_grad():
        y1, y2 = model(x1), model(x2)
    return float((y1 - y2).pow(2).mean().sqrt()) > 1e-3 * float(y1.pow(2).mean().sqrt() + 1e-12)


@pytest.mark.parametrize("group, rep_in, rep_out", CASES, ids=IDS)
def test_no_free_pathway_is_exactly_the_equivariant_layer(group, rep_in, rep_out):
    torch.manual_seed(0)
    G = parse_group(group)
    layer = RPPLinear(rep_in, rep_out, G, prior_free=0)
    assert layer.free is None and layer.pathway_parameters()["free"] == []
    assert equivariance_error(layer, n=5) < TOL and _moves(layer, layer.rep_in.size)
    # the same parameters as an EquivariantLinear, and with them the same function
    ref = EquivariantLinear(rep_in, rep_out, G)
    ref.load_state_dict(layer.equivariant.state_dict(), strict=True)
    assert {n for n, _ in layer.named_parameters()} == {"equivariant." + n for n, _ in ref.named_parameters()}
    x = torch.randn(16, layer.rep_in.size)
    with torch.no_grad():
        torch.testing.assert_close(layer(x), ref(x), rtol=0, atol=0)
        torch.testing.assert_close(layer.weight(), ref.weight(), rtol=0, atol=0)
    assert layer.free_fraction() == 0.0


@pytest.mark.parametrize("group, rep_in, rep_out", CASES, ids=IDS)
def test_no_equivariant_pathway_is_exactly_a_dense_layer(group, rep_in, rep_out):
    torch.manual_seed(0)
    G = parse_group(group)
    layer = RPPLinear(rep_in, rep_out, G, prior_equivariant=0)
    assert layer.equivariant is None and layer.pathway_parameters()["equivariant"] == []
    dense = torch.nn.Linear(layer.rep_in.size, layer.rep_out.size)
    with torch.no_grad():
        dense.weight.copy_(layer.free.weight)
        dense.bias.copy_(layer.free.bias)
    x = torch.randn(16, layer.rep_in.size)
    with torch.no_grad():
        torch.testing.assert_close(layer(x), dense(x), rtol=0, atol=0)
    assert layer.free_fraction() == 1.0
    assert equivariance_error(layer, n=5) > 1e-2  # a dense layer at init is nowhere near equivariant


@pytest.mark.parametrize("group, rep_in, rep_out", CASES, ids=IDS)
def test_default_priors_sum_the_pathways_and_break_equivariance_a_little(group, rep_in, rep_out):
    torch.manual_seed(0)
    G = parse_group(group)
    layer = RPPLinear(rep_in, rep_out, G)
    assert (layer.prior_equivariant, layer.prior_free) == (1e5, 1.0)
    x = torch.randn(16, layer.rep_in.size)
    with torch.no_grad():
        W = layer.equivariant.weight() + layer.free.weight  # the sum, from the pathways' own modules
        torch.testing.assert_close(layer.weight(), W, rtol=0, atol=0)
        torch.testing.assert_close(layer(x), x @ W.T + layer.bias_vector(), rtol=1e-5, atol=1e-5)
        frac = float(torch.linalg.norm(layer.free.weight) / torch.linalg.norm(W))
    assert layer.free_fraction() == pytest.approx(frac, rel=1e-6)
    assert 0 < layer.free_fraction() < 0.05  # the free pathway starts at 1e-3 of a dense layer
    err = layer.equivariance_error()
    assert TOL < err < 0.05  # broken, by the free pathway, only a little


def test_prior_penalty_by_hand_and_on_the_coefficients_is_on_w_eq():
    torch.manual_seed(0)
    G = parse_group("SO(3)")
    layer = RPPLinear("2*V+Scalar", "T(2)+V+Scalar", G, prior_equivariant=2.0, prior_free=0.5)
    eq = layer.equivariant
    with torch.no_grad():
        w2 = sum(float(p.pow(2).sum()) for p in eq.weights.values())  # the solved coefficients
        b2 = sum(float(p.pow(2).sum()) for p in eq.biases.values())  # the equivariant bias's
        free = float(layer.free.weight.pow(2).sum() + layer.free.bias.pow(2).sum())
        assert float(layer.prior_penalty()) == pytest.approx((w2 + b2) / (2 * 2.0) + free / (2 * 0.5), rel=1e-5)
        # the solved bases are orthonormal: |coefficients|^2 = |W_eq|_F^2 (and the biases' = |b_eq|^2)
        assert w2 == pytest.approx(float(eq.weight().pow(2).sum()), rel=1e-5)
        assert b2 == pytest.approx(float(eq.bias_vector().pow(2).sum()), rel=1e-5)
    # its gradient is theta / s^2, per pathway
    layer.zero_grad()
    layer.prior_penalty().backward()
    for p in layer.pathway_parameters()["equivariant"]:
        torch.testing.assert_close(p.grad, p.detach() / 2.0)
    for p in layer.pathway_parameters()["free"]:
        torch.testing.assert_close(p.grad, p.detach() / 0.5)
    # add_grad: the same gradient in place, for Prior and WeightDecay alike
    for reg in (Prior(2.0, 0.5), WeightDecay(equivariant=1e-3, free=3.0)):
        x = torch.randn(8, layer.rep_in.size)
        layer.zero_grad()
        (layer(x).pow(2).sum() + reg.penalty(layer)).backward()
        want = [q.grad.clone() for q in layer.parameters()]
        layer.zero_grad()
        layer(x).pow(2).sum().backward()
        reg.add_grad(layer)
        for q, w in zip(layer.parameters(), want):
            torch.testing.assert_close(q.grad, w)
    # a flat prior costs nothing; a pathway absent has nothing to cost
    flat = RPPLinear("2*V", "V", G, prior_equivariant=math.inf, prior_free=0)
    assert float(flat.prior_penalty()) == 0.0


def test_nonlinearity_free_path():
    torch.manual_seed(0)
    G = parse_group("O(3)")
    rep = "3*Scalar+2*V+T(2)"
    plain = RPPGatedNonlinearity(rep, G, prior_free=0)
    gate = GatedNonlinearity(rep, G)
    x = torch.randn(7, gated(plain.rep).size)
    assert plain.weight is None and not list(plain.parameters())
    torch.testing.assert_close(plain(x), gate(x), rtol=0, atol=0)  # exactly the gated nonlinearity
    rpp = RPPGatedNonlinearity(rep, G)
    torch.testing.assert_close(rpp.weight.detach(), torch.full((plain.rep.size,), 1e-3))  # the authors' init
    with torch.no_grad():
        rpp.weight.normal_()
    # gated(rep) puts its 3 gates (2 V, 1 T(2)) right after the 3 leading scalars: the values are the other 18
    assert gated(plain.rep).size == 21
    values = [0, 1, 2] + list(range(6, 21))
    expect = gate(x) + rpp.weight * torch.nn.functional.silu(x[:, values])
    torch.testing.assert_close(rpp(x), expect, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(rpp.reference(x), expect, rtol=1e-5, atol=1e-6)
    assert rpp._fused  # the hand-written path (_FusedGate) was the one checked
    # its backward against finite differences, in float64 (S(4): V is a permutation rep, its own gate)
    for group, r in (("O(3)", rep), ("S(4)", "2*Scalar+V+T(2)")):
        r64 = RPPGatedNonlinearity(r, parse_group(group)).double()
        with torch.no_grad():
            r64.weight.normal_()
        x64 = torch.randn(5, gated(r64.rep).size, dtype=torch.float64, requires_grad=True)
        assert r64._fused and torch.autograd.gradcheck(lambda x, w: r64(x), (x64, r64.weight))
    # a free Swish is not equivariant on vectors
    assert equivariance_error(rpp, rep_in=gated(plain.rep), rep_out=plain.rep, n=5) > 1e-2


def _emlp_state(rpp: RPPEMLP) -> dict:
    """An RPP-EMLP's (equivariant-only) parameters under EMLP's names."""
    last = len(rpp.network) - 1
    return {k.replace(".linear.equivariant.", ".linear.").replace(f"network.{last}.equivariant.", f"network.{last}."): v
            for k, v in rpp.state_dict().items()}


@pytest.mark.parametrize("group, rep_in, rep_out", [CASES[0], CASES[4]], ids=[IDS[0], IDS[4]])
def test_rpp_emlp_without_free_pathways_is_emlp(group, rep_in, rep_out):
    torch.manual_seed(0)
    G = parse_group(group)
    rpp = RPPEMLP(rep_in, rep_out, G, channels=24, layers=2, prior_free=0)
    assert rpp.pathway_parameters()["free"] == []
    assert _moves(rpp, rpp.rep_in.size) and equivariance_error(rpp, n=5) < TOL
    assert all(e < TOL for e in rpp.layer_equivariance_errors())
    assert rpp.free_fractions() == [0.0, 0.0, 0.0]
    emlp = EMLP(rep_in, rep_out, G, channels=24, layers=2)
    emlp.load_state_dict(_emlp_state(rpp), strict=True)  # the same parameters, name for name
    x = torch.randn(16, rpp.rep_in.size)
    with torch.no_grad():
        torch.testing.assert_close(rpp(x), emlp(x), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("group, rep_in, rep_out", [CASES[1], CASES[3]], ids=[IDS[1], IDS[3]])
def test_rpp_emlp_with_default_priors_is_nearly_but_not_exactly_equivariant(group, rep_in, rep_out):
    torch.manual_seed(0)
    G = parse_group(group)
    rpp = RPPEMLP(rep_in, rep_out, G, channels=32, layers=2)
    assert _moves(rpp, rpp.rep_in.size)
    assert TOL < equivariance_error(rpp, n=5) < 0.05
    errors, fractions = rpp.layer_equivariance_errors(), rpp.free_fractions()
    assert len(errors) == len(fractions) == 3
    assert all(TOL < e < 0.05 for e in errors) and all(0 < f < 0.05 for f in fractions)
    # the thesis's objective: the summed NLL plus the penalty; a few Adam steps lower it
    opt = torch.optim.Adam(rpp.parameters(), lr=3e-3)
    x, y = torch.randn(64, rpp.rep_in.size), torch.randn(64, rpp.rep_out.size)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = PRIORS["thesis"].loss(rpp, 0.5 * (rpp(x) - y).pow(2).sum(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    # without the equivariant pathway: dense layers, no bilinear layer, far from equivariant
    mlp_like = RPPEMLP(rep_in, rep_out, G, channels=32, layers=2, prior_equivariant=0)
    assert all(b.bilinear is None and b.linear.equivariant is None for b in mlp_like.network[:-1])
    assert mlp_like.free_fractions() == [1.0, 1.0, 1.0]
    assert equivariance_error(mlp_like, n=5) > 1e-2


def test_the_runners_weight_decay_is_a_tighter_map_prior():
    torch.manual_seed(0)
    G = parse_group("O(3)")
    model = RPPEMLP("5*Scalar+5*V", "T(2)", G, channels=24, layers=1)
    assert isinstance(PRIORS["thesis"], Prior) and (PRIORS["thesis"].equivariant, PRIORS["thesis"].free) == (1e5, 1)
    decay = PRIORS["runner-inertia"]
    assert isinstance(decay, WeightDecay) and (decay.equivariant, decay.free) == (1e-3, 1e2)
    assert (PRIORS["runner-pendulum"].equivariant, PRIORS["runner-pendulum"].free) == (1e-4, 1.0)
    p = model.pathway_parameters()
    with torch.no_grad():
        eq2 = sum(float(t.pow(2).sum()) for t in p["equivariant"])
        free2 = sum(float(t.pow(2).sum()) for t in p["free"])
        assert float(decay.penalty(model)) == pytest.approx(1e-3 * eq2 + 1e2 * free2, rel=1e-5)
    # N times (mean loss + decays) = summed loss + a Gaussian prior of variance 1 / (2 N l): the same gradients
    x, y = torch.randn(20, model.rep_in.size), torch.randn(20, model.rep_out.size)
    prior = decay.as_prior(20)
    assert (prior.equivariant, prior.free) == pytest.approx((1 / (2 * 20 * 1e-3), 1 / (2 * 20 * 1e2)))
    params = list(model.parameters())
    per_example = (model(x) - y).pow(2).sum(-1)
    g_decay = torch.autograd.grad(20 * decay.loss(model, per_example), params)
    g_prior = torch.autograd.grad(prior.loss(model, (model(x) - y).pow(2).sum(-1)), params)
    for a, b in zip(g_decay, g_prior):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_bad_input_raises_lab_errors():
    G, H = parse_group("O(3)"), parse_group("SO(2)")
    for bad in (-1.0, float("nan"), "wide", None):
        with pytest.raises(PriorError):
            RPPLinear("V", "V", G, prior_free=bad)
        with pytest.raises(PriorError):
            RPPEMLP("V", "Scalar", G, channels=16, layers=1, prior_equivariant=bad)
    with pytest.raises(PriorError, match="both 0"):
        RPPLinear("V", "V", G, prior_equivariant=0, prior_free=0)
    with pytest.raises(RepError):  # a rep of another group: O(3) cannot act on it
        RPPLinear(V(H), "V", G)
    with pytest.raises(RepError):
        RPPLinear("V", "V", G)(torch.randn(2, 4))  # 4 features for a 3-dim rep
    with pytest.raises(PriorError):  # a zero variance where the model has that pathway
        Prior(equivariant=1.0, free=0).penalty(RPPLinear("V", "V", G))
    with pytest.raises(PriorError):
        WeightDecay(equivariant=-1e-3, free=1.0)
    with pytest.raises(PriorError):
        PRIORS["runner-inertia"].as_prior(0)
    with pytest.raises(PriorError):
        Prior().penalty(torch.nn.Linear(3, 3))
    assert issubclass(PriorError, LabError)


def test_second_derivatives_for_hamiltonian_networks():
    """A Hamiltonian network trains through dH/dx (``create_graph``): the hand-written nonlinearity and the penalty
    must be differentiable twice, and give what autograd gives through the formulas as written."""
    import copy

    from lab.rpp.nn import _sq

    torch.manual_seed(0)
    G = parse_group("O(3)")
    nl = RPPGatedNonlinearity("2*Scalar+V+T(2)", G).double()
    with torch.no_grad():
        nl.weight.normal_()
    x = torch.randn(4, gated(nl.rep).size, dtype=torch.float64, requires_grad=True)
    assert nl._fused and torch.autograd.gradgradcheck(lambda x, w: nl(x), (x, nl.weight))
    ps = [torch.randn(3, 2, dtype=torch.float64, requires_grad=True), torch.randn(4, dtype=torch.float64,
                                                                                requires_grad=True)]
    assert torch.autograd.gradgradcheck(lambda *p: _sq(p), ps)
    # the pendulum's Hamiltonian network: dH/dz, then a loss on it, back to the parameters
    model = RPPEMLP("4*V", "Scalar", parse_group("O2eR3()"), channels=32, layers=2)
    with torch.no_grad():
        for block in model.network[:-1]:
            block.nonlinearity.weight.normal_()
    plain = copy.deepcopy(model)
    for block in plain.network[:-1]:
        block.nonlinearity._fused = False  # the two paths summed as written, autograd all the way
    z = torch.randn(16, 12)
    for m in (model, plain):
        zz = z.clone().requires_grad_(True)
        dH = torch.autograd.grad(m(zz).sum(), zz, create_graph=True)[0]
        (dH.pow(2).sum() + PRIORS["thesis"].penalty(m)).backward()
    for p, q in zip(model.parameters(), plain.parameters()):
        assert (p.grad is None) == (q.grad is None)
        if p.grad is not None:
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5)


def test_a_large_batch_takes_one_fused_matmul_with_the_same_values_and_gradients():
    """From ``FUSE_ROWS`` rows on, ``RPPLinear`` applies ``W_eq + W_free`` in one matmul: the same outputs and the same
    gradients of every parameter (both pathways) as the two pathways applied apart (two half batches below it)."""
    import torch

    from lab.groups import O
    from lab.rpp.nn import FUSE_ROWS, RPPLinear

    torch.manual_seed(0)
    layer = RPPLinear("3*Scalar+2*V+T(2)", "2*Scalar+V+T(2)", O(3))
    with torch.no_grad():
        layer.free.weight.mul_(300.0)  # a free pathway as large as the equivariant one: both matter
    x = torch.randn(2 * FUSE_ROWS - 2, layer.rep_in.size)
    fused = layer(x)
    g_fused = torch.autograd.grad(fused.pow(2).sum(), list(layer.parameters()))
    half = len(x) // 2  # below FUSE_ROWS: each half goes through the pathways apart
    apart = torch.cat([layer(x[:half]), layer(x[half:])])
    g_apart = torch.autograd.grad(apart.pow(2).sum(), list(layer.parameters()))
    assert torch.allclose(fused, apart, atol=1e-5, rtol=1e-5)
    for a, b in zip(g_fused, g_apart):
        assert torch.allclose(a, b, atol=1e-3, rtol=1e-4)
    with torch.no_grad():
        assert float(layer.free.weight.norm()) > 0.1 * float(layer.equivariant_weight().norm())
