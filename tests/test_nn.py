"""EMLP in torch (``lab.nn``): equivariant for sampled group elements on every group of the EMLP library's test
suite the lab can express, by that suite's metric and tolerance (scale-adjusted relative error < 1e-4 in float32,
freshly initialised models), with the suite's ``test_equivariant_matrix`` reps; plus O(5), a product group on mixed
reps and a user-declared rep.  Every model is checked to be non-degenerate (its output moves with its input), so a
model that outputs a constant cannot pass for equivariant."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from lab.errors import LabError
from lab.groups import parse_group
from lab.nn import (EMLP, MLP, BiLinear, EquivariantLinear, GatedNonlinearity, equivariance_error, gate_indices,
                    gated, uniform_rep)
from lab.reps import Scalar, T, V, parse_rep, so3_irrep

TOL = 1e-4  # the EMLP test suite's bound, float32

# the EMLP library's test groups (tests/equivariance_tests.py), every one; ZksZnxZn is checked in
# tests/test_zkszn_group.py
SUITE_GROUPS = ["SO(2)", "SO(3)", "SO(4)", "O(2)", "O(3)", "O(4)", "SU(2)", "SU(3)", "U(2)", "U(3)", "SL(2)", "SL(3)",
                "GL(2)", "GL(3)", "C(2)", "C(3)", "C(4)", "C(8)", "D(2)", "D(3)", "D(4)", "D(8)", "S(2)", "S(4)", "S(6)",
                "Z(2)", "Z(4)", "Z(6)", "SO11p()", "SO13p()", "SO13()", "O13()", "Sp(1)", "Sp(3)", "Cube()",
                "RubiksCube()"]

# the suite's test_equivariant_matrix cases
MATRIX_CASES = [
    ("SO(3)", T(1) + 2 * T(0), T(1) + T(2) + 2 * T(0) + T(1)),
    ("SO(3)", 5 * T(0) + 5 * T(1), 3 * T(0) + T(2) + 2 * T(1)),
    ("SO(3)", 5 * (T(0) + T(1)), 2 * (T(0) + T(1)) + T(2) + T(1)),
    ("SO(4)", T(1) + 2 * T(2), (T(0) + T(3)) * T(0)),
    ("SO13p()", T(2) + 4 * T(1, 0) + T(0, 1), 10 * T(0) + 3 * T(1, 0) + 3 * T(0, 1) + T(0, 2) + T(2, 0) + T(1, 1)),
    ("Sp(2)", (V + 2 * V ** 2) * (V.T + 1 * V).T + V.T, 3 * Scalar + V + V * V.T),
    ("SU(3)", T(2, 0) + T(1, 1) + T(0) + 2 * T(0, 1), T(1, 1) + V + V.T + T(0) + T(2, 0) + T(0, 2)),
]


def _moves(model, size: int) -> bool:
    """The model's output changes with its input (not a constant, which is trivially equivariant)."""
    torch.manual_seed(1)
    dtype = next(model.parameters()).dtype
    x1, x2 = torch.randn(8, size), torch.randn(8, size)
    if dtype.is_complex:
        x1, x2 = x1 + 1j * torch.randn(8, size), x2 + 1j * torch.randn(8, size)
    with torch.no_grad():
        y1, y2 = model(x1), model(x2)
    return float((y1 - y2).abs().pow(2).mean().sqrt()) > 1e-3 * float(y1.abs().pow(2).mean().sqrt() + 1e-12)


@pytest.mark.parametrize("group", SUITE_GROUPS)
def test_emlp_is_equivariant_on_the_suites_groups(group):
    """Two EMLP blocks (linear, bilinear with its shortcut, gated nonlinearity) and the output layer, V + Scalar ->
    V + T(1,1): every group of the suite the lab has."""
    torch.manual_seed(0)
    G = parse_group(group)
    model = EMLP(V + Scalar, V + T(1, 1), G, channels=24, layers=2)
    assert _moves(model, model.rep_in.size)
    assert equivariance_error(model, n=5) < TOL


@pytest.mark.parametrize("group, rep_in, rep_out", MATRIX_CASES, ids=[c[0] + f"-{i}" for i, c in
                                                                      enumerate(MATRIX_CASES)])
def test_layers_and_emlp_are_equivariant_on_the_suites_matrix_cases(group, rep_in, rep_out):
    torch.manual_seed(0)
    G = parse_group(group)
    layer = EquivariantLinear(rep_in, rep_out, G)
    assert equivariance_error(layer, n=5) < TOL
    model = EMLP(rep_in, rep_out, G, channels=32, layers=2)
    assert _moves(model, model.rep_in.size)
    assert equivariance_error(model, n=5) < TOL


def test_emlp_on_o5_a_product_group_and_a_user_rep():
    torch.manual_seed(0)
    o5 = EMLP("2*V", "Scalar", parse_group("O(5)"), channels=48, layers=2)
    assert _moves(o5, 10) and equivariance_error(o5) < TOL
    G = parse_group("SO(3)*S(4)")  # a product group; V is the 7-dim direct sum of both actions
    mixed = EMLP(V + 2 * Scalar, T(2) + V, G, channels=40, layers=2)
    assert _moves(mixed, mixed.rep_in.size) and equivariance_error(mixed) < TOL
    so3 = parse_group("SO(3)")
    user = EMLP(so3_irrep(2) + V, so3_irrep(2)(so3) + Scalar, so3, channels=32, layers=2)  # a user-declared irrep
    assert _moves(user, user.rep_in.size) and equivariance_error(user) < TOL


def test_the_metric_has_power():
    """A model that is not equivariant fails the check by orders of magnitude: the baseline MLP."""
    torch.manual_seed(0)
    mlp = MLP("5*Scalar+5*V", "T(2)", parse_group("O(3)"), channels=32, layers=2)
    assert equivariance_error(mlp) > 1e-2
    broken = EquivariantLinear("V", "V", parse_group("SO(3)"))
    with torch.no_grad():  # a dense perturbation of the solved weight
        broken.weights["w0_0"].add_(1.0)
    assert equivariance_error(broken) < TOL  # still a multiple of the identity: equivariant
    dense = torch.nn.Linear(3, 3)
    dense.rep_in = dense.rep_out = V(parse_group("SO(3)"))
    assert equivariance_error(dense) > 1e-2


def test_the_bilinear_layer_reaches_dot_products():
    """O(3), 2V -> Scalar: gated nonlinearities alone cannot form x1.x2 (thesis appendix A.1.4): without the
    bilinear layer the output is a constant; with it, it moves."""
    torch.manual_seed(0)
    model = EMLP("2*V", "Scalar", parse_group("O(3)"), channels=24, layers=2)
    assert _moves(model, 6)
    for block in model.network[:-1]:
        block.bilinear.scale = 0.0
    assert not _moves(model, 6)


def test_weights_solve_the_constraint_and_the_bias_is_invariant():
    """W rho_in(g) = rho_out(g) W and rho_out(g) b = b for sampled g, in float64 (exact up to rounding)."""
    G = parse_group("SO(3)")
    layer = EquivariantLinear(Scalar + V + T(2), 2 * Scalar + T(2) + V, G, dtype=torch.float64)
    W, b = layer.weight().detach().numpy(), layer.bias_vector().detach().numpy()
    assert np.abs(W).max() > 0.01 and np.abs(b).max() > 0.01
    for g in G.sample(5, 0):
        Rin, Rout = layer.rep_in.rho(g), layer.rep_out.rho(g)
        assert np.allclose(W @ Rin, Rout @ W, atol=1e-12)
        assert np.allclose(Rout @ b, b, atol=1e-12)


def test_layouts_not_sorted_by_type_are_handled():
    """A rep whose objects interleave (V + Scalar + V) and one made of non-contiguous blocks ((V + V) * V)."""
    torch.manual_seed(0)
    G = parse_group("O(3)")
    for rep_in, rep_out in [(V + Scalar + V, Scalar + T(2) + V), ((V + V) * V, V + Scalar + V)]:
        layer = EquivariantLinear(rep_in, rep_out, G)
        assert equivariance_error(layer) < TOL
        model = EMLP(rep_in, rep_out, G, channels=24, layers=1)
        assert _moves(model, model.rep_in.size) and equivariance_error(model) < TOL


def test_uniform_allocation_is_the_thesis_heuristic():
    G = parse_group("SO(3)")
    assert str(uniform_rep(256, G)) == "70*Scalar + 23*V + 7*T(2) + 2*T(3)"  # thesis section 2.5
    for ch in (1, 7, 64, 384, 1000):
        assert 0 < uniform_rep(ch, G).size <= ch
    lorentz = uniform_rep(64, parse_group("SO13p()"))  # not orthogonal: ranks split over T(p, q)
    assert "V.T" in str(lorentz) and lorentz.size <= 64
    with pytest.raises(LabError):
        uniform_rep(0, G)


def test_gates_one_per_object_that_needs_one():
    G = parse_group("SO(3)")
    rep = (2 * Scalar + V + T(2))(G)
    wide = gated(rep)
    assert wide.size == rep.size + 2 and str(wide) == "4*Scalar + V + T(2)"  # the gates follow the scalars
    idx = gate_indices(rep)
    assert idx[:2].tolist() == [0, 1] and set(idx[2:5]) == {2} and set(idx[5:]) == {3}
    perm = (V + T(2))(parse_group("S(4)"))  # permutation objects are their own gates (pointwise Swish)
    assert gated(perm).size == perm.size and gate_indices(perm).tolist() == list(range(perm.size))
    x = torch.randn(3, wide.size)
    y = GatedNonlinearity(rep)(x)
    assert torch.allclose(y[:, :2], x[:, :2] * torch.sigmoid(x[:, :2]))  # Swish
    assert torch.allclose(y[:, 2:5], x[:, 4:7] * torch.sigmoid(x[:, 2:3]))
    assert torch.allclose(y[:, 5:], x[:, 7:] * torch.sigmoid(x[:, 3:4]))
    mixed = (V + Scalar + T(2))(G)  # not laid out type by type: the gathering path gives the same products
    xm = torch.randn(3, gated(mixed).size)
    ym = GatedNonlinearity(mixed)(xm)
    assert str(gated(mixed)) == "2*Scalar + V + Scalar + T(2)"
    assert torch.allclose(ym[:, :3], xm[:, 2:5] * torch.sigmoid(xm[:, :1]))
    assert torch.allclose(ym[:, 3:4], xm[:, 5:6] * torch.sigmoid(xm[:, 5:6]))
    assert torch.allclose(ym[:, 4:], xm[:, 6:] * torch.sigmoid(xm[:, 1:2]))


def test_bad_input_is_one_clear_error():
    G = parse_group("SO(3)")
    layer = EquivariantLinear("V", "V", G)
    with pytest.raises(LabError, match="3"):
        layer(torch.randn(2, 4))
    with pytest.raises(LabError):
        EquivariantLinear(V(G), V(parse_group("S(3)")))  # reps of two groups
    with pytest.raises(LabError):
        EquivariantLinear(V, V)  # no group
    with pytest.raises(LabError):
        EMLP("2*W", "Scalar", G)  # not a rep


def test_mlp_and_emlp_shapes_and_dtypes():
    G = parse_group("O(3)")
    for model in (EMLP("5*Scalar+5*V", "T(2)", G, channels=32, layers=1), MLP("5*Scalar+5*V", "T(2)", G, 32, 2)):
        out = model(torch.randn(7, 20))
        assert out.shape == (7, 9) and out.dtype == torch.float32
    assert BiLinear("V", "V", G)(torch.randn(2, 3)).abs().max() == 0  # no object can act as a map: zero


# ---------------------------------------------------------------- the optimised layers against plain references
def _bilinear_reference(layer, x):
    """The cheap bilinear layer written plainly: for every (input type b, output type a) whose map type c is an input
    type, one einsum over the first min(copies c, dim c) objects of type c, gathered by position."""
    from lab.nn.bilinear import _map_type
    from lab.nn.objects import RepObjects

    objs_in, objs_out = RepObjects(layer.rep_in), RepObjects(layer.rep_out)
    by_key = {t.factors: t for t in objs_in.types if not t.is_scalar}
    out = torch.zeros(x.shape[0], layer.rep_out.size, dtype=x.dtype)
    terms = 0
    for i, b in enumerate(objs_in.types):
        for j, a in enumerate(objs_out.types):
            c = by_key.get(_map_type(a, b))
            if c is None:
                continue
            n = min(objs_in.count(c), c.dim)
            Xb = x[:, torch.as_tensor(objs_in.positions(b))]  # (batch, copies b, dim b)
            Xc = x[:, torch.as_tensor(objs_in.positions(c)[:n])].reshape(x.shape[0], n, a.dim, b.dim)
            w = layer.weights[f"p{i}_{j}"]  # (copies a, copies b, n)
            Y = torch.einsum("ijk,zkpq,zjq->zip", w, Xc, Xb)
            pos = torch.as_tensor(objs_out.positions(a))
            out[:, pos.reshape(-1)] += Y.reshape(x.shape[0], -1)
            terms += 1
    assert terms == len(layer.weights)
    return layer.scale * out


BILINEAR_CASES = [("O(3)", "3*Scalar + 2*V + T(2) + 2*T(3)"), ("O(3)", "V + Scalar + T(2) + V + 2*Scalar"),
                  ("SO13p()", "2*Scalar + 2*V + V.T + T(1,1) + T(2)"), ("O(5)", "uniform 60")]


@pytest.mark.parametrize("group, rep", BILINEAR_CASES, ids=[f"{g}-{i}" for i, (g, _) in enumerate(BILINEAR_CASES)])
def test_bilinear_equals_a_plain_loop_of_einsums(group, rep):
    """Forward and gradients (input and weights) of the fused ``BiLinear`` equal the plain reference, and its
    gradients can be differentiated again (an HNN trains through its input gradient)."""
    G = parse_group(group)
    rep = gated(uniform_rep(60, G)) if rep.startswith("uniform") else parse_rep(rep, G)
    torch.manual_seed(0)
    layer = BiLinear(rep, rep, dtype=torch.float64)
    orders = set(layer._first_maps.values())
    x = torch.randn(6, layer.rep_in.size, dtype=torch.float64, requires_grad=True)
    y, ref = layer(x), _bilinear_reference(layer, x)
    assert ref.abs().max() > 1e-3 and torch.allclose(y, ref, atol=1e-12, rtol=1e-10)
    gy = torch.randn_like(y)
    params = list(layer.parameters())
    got = torch.autograd.grad(y, [x, *params], gy)
    want = torch.autograd.grad(ref, [x, *params], gy)
    for g1, g2 in zip(got, want):
        assert torch.allclose(g1, g2, atol=1e-12, rtol=1e-10)
    (gx,) = torch.autograd.grad((layer(x) * gy).sum(), x, create_graph=True)  # double backward
    (gx_ref,) = torch.autograd.grad((_bilinear_reference(layer, x) * gy).sum(), x, create_graph=True)
    v = torch.randn_like(gx)
    for g1, g2 in zip(torch.autograd.grad((gx * v).sum(), [x, *params]),
                      torch.autograd.grad((gx_ref * v).sum(), [x, *params])):
        assert torch.allclose(g1, g2, atol=1e-12, rtol=1e-10)
    if group == "O(5)":
        assert orders == {True, False}  # both contraction orders are exercised


@pytest.mark.parametrize("group, rep", BILINEAR_CASES[:3] + [("O(5)", "uniform 384"), ("SU(2)", "uniform 24")],
                         ids=lambda v: str(v))
def test_linear_forward_equals_the_dense_weight(group, rep):
    """``EquivariantLinear.forward`` (per pair: basis first, weights first or a dense block) equals
    ``x @ weight().T + bias_vector()`` with the dense solved W, gradients too -- with the planned ways and with every
    pair forced through each way."""
    G = parse_group(group)
    rep = uniform_rep(int(rep.split()[1]), G) if rep.startswith("uniform") else parse_rep(rep, G)
    torch.manual_seed(0)
    layer = EquivariantLinear(rep, gated(rep), dtype=torch.float64 if group != "SU(2)" else torch.complex128)
    if rep.size > 300:  # the thesis's O(5) hidden layer uses all three ways
        assert layer._p_groups and layer._m_groups and layer._d_pairs
    x = torch.randn(5, rep.size, dtype=layer.dtype, requires_grad=True)
    ref = x @ layer.weight().T + layer.bias_vector()
    gy = torch.randn_like(ref)
    params = list(layer.parameters())
    want = torch.autograd.grad(ref, [x, *params], gy)
    for mode in (None, "P", "M", "D"):
        layer._plan_forward(modes=None if mode is None else {name: mode for name, _, _ in layer._pairs})
        y = layer(x)
        assert torch.allclose(y, ref, atol=1e-10)
        for g1, g2 in zip(torch.autograd.grad(y, [x, *params], gy), want):
            assert torch.allclose(g1, g2, atol=1e-10)


def _set_path(model, path):
    for module in model.modules():
        if isinstance(module, EquivariantLinear):
            module.path = path


@pytest.mark.parametrize("group, rep_in, rep_out", [("O(5)", "2*V", "Scalar"), ("O(3)", "5*Scalar+5*V", "T(2)")],
                         ids=["O(5)", "inertia"])
def test_the_dense_and_structured_emlp_paths_agree_and_both_are_equivariant(group, rep_in, rep_out):
    """The thesis's two tasks at a reduced width, float32: the same EMLP with every linear layer on its structured
    path and on its dense path gives the same outputs and gradients to 1e-5 of their scale, and each is
    equivariant by the suite's bound (without gradients too, where ``auto`` uses the kept dense W)."""
    G = parse_group(group)
    torch.manual_seed(0)
    model = EMLP(rep_in, rep_out, G, channels=96, layers=2)
    x = torch.randn(64, model.rep_in.size)
    got = {}
    for path in ("structured", "dense"):
        _set_path(model, path)
        model.zero_grad()
        y = model(x)
        y.square().mean().backward()
        got[path] = (y.detach(), [p.grad.clone() for p in model.parameters()])
        assert _moves(model, model.rep_in.size)
        assert equivariance_error(model, n=5) < TOL
    (ys, gs), (yd, gd) = got["structured"], got["dense"]
    assert float((ys - yd).abs().max()) <= 1e-5 * float(ys.abs().max())
    for a, b in zip(gs, gd):
        assert float((a - b).abs().max()) <= 1e-5 * max(float(a.abs().max()), 1e-12)
    _set_path(model, "auto")
    assert equivariance_error(model, n=5) < TOL


def test_the_cost_model_picks_a_path_per_layer_and_bad_paths_are_refused():
    """``auto`` takes the path of lower estimated cost at the call's batch, layer by layer: in the thesis's O(5)
    EMLP at batch 500 the thin first and last layers go dense and the hidden ones structured; forming W costs the
    same at any batch, so a first layer goes structured at one sample.  A path that does not exist is one error."""
    G = parse_group("O(5)")
    model = EMLP("2*V", "Scalar", G, channels=384, layers=3)
    layers = [m for m in model.modules() if isinstance(m, EquivariantLinear)]
    for layer in layers:
        for n in (1, 64, 500):
            structured, dense = layer._path_costs(n)
            assert structured > 0 and dense > 0
            assert layer.chosen_path(n) == ("dense" if dense < structured else "structured")
    assert [layer.chosen_path(500) for layer in layers] == ["dense", "structured", "structured", "dense"]
    assert layers[0].chosen_path(1) == "structured"
    with pytest.raises(LabError, match="path must be one of auto, structured, dense"):
        EquivariantLinear("V", "V", G, path="fast")


def test_without_gradients_the_dense_weight_is_formed_once_until_a_weight_changes(monkeypatch):
    """An evaluation forms each layer's W once: repeated calls reuse it; an optimizer step, ``load_state_dict`` and a
    move (``.to``) each make the next call form it again, and every output equals a fresh structured one."""
    from lab.nn import adam

    G = parse_group("O(3)")
    torch.manual_seed(0)
    layer = EquivariantLinear("3*Scalar + 2*V + T(2)", "2*Scalar + V + T(2)", G)
    formed = []
    original = EquivariantLinear._sorted_weight
    monkeypatch.setattr(EquivariantLinear, "_sorted_weight", lambda self: formed.append(1) or original(self))
    x = torch.randn(7, layer.rep_in.size)

    def fresh():
        layer.path = "structured"
        try:
            with torch.no_grad():
                return layer(x)
        finally:
            layer.path = "auto"

    with torch.no_grad():
        y1, y2 = layer(x), layer(x)
    assert len(formed) == 1 and torch.equal(y1, y2) and torch.allclose(y1, fresh(), atol=1e-5)
    opt = adam(layer.parameters(), lr=0.1)
    layer(x).square().sum().backward()  # with gradients: formed per call or structured, never kept
    opt.step()
    n = len(formed)
    with torch.no_grad():
        y3 = layer(x)
    assert len(formed) == n + 1 and not torch.allclose(y3, y1) and torch.allclose(y3, fresh(), atol=1e-5)
    layer.load_state_dict({k: torch.zeros_like(v) for k, v in layer.state_dict().items()})
    with torch.no_grad():
        assert float(layer(x).abs().max()) == 0.0
    n = len(formed)
    layer.to("cpu")  # a move (device or dtype) drops the kept W
    with torch.no_grad():
        layer(x)
    assert len(formed) == n + 1
