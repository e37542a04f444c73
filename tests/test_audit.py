"""lab.equivariance (issue 29): the lab's own equivariant models pass within the dtype's tolerance, models that are not
equivariant fail by orders of magnitude, an inserted non-equivariant layer is named exactly, reps that are not
homomorphisms are refused with one line, and the float32 / float64 tolerances differ as the rule says."""
import json
import warnings

import numpy as np
import pytest
import torch
from torch import nn

from lab.equivariance import (HOM_TOLERANCE, TOLERANCE_FACTOR, AuditError, AuditWarning, HomomorphismError, audit,
                       check_rep, tolerance_for)
from lab.errors import LabError
from lab.groups import SO, O, S
from lab.nn.models import EMLP, MLP
from lab.rpp.nn import RPPEMLP
from lab.reps import UserRep, V, regular_rep, so3_irrep

EPS32, EPS64 = float(torch.finfo(torch.float32).eps), float(torch.finfo(torch.float64).eps)


def quiet_audit(*args, **kw):
    """audit() that turns an AuditWarning into an error: for models that must pass."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", AuditWarning)
        return audit(*args, **kw)


class Wrapped(nn.Module):
    """An EMLP's layers with one module inserted after block ``at``: reps and group copied from the EMLP."""

    def __init__(self, emlp, extra, at=0):
        super().__init__()
        self.rep_in, self.rep_out, self.group = emlp.rep_in, emlp.rep_out, emlp.group
        layers = list(emlp.network)
        self.network = nn.Sequential(*layers[:at + 1], extra, *layers[at + 1:])

    def forward(self, x):
        return self.network(x)


# ---------------------------------------------------------------------------------------------- the lab's models
@pytest.mark.parametrize("group, rep_in, rep_out", [(O(3), "2*V", "Scalar"), (O(3), "V", "V"), (S(4), "V", "V")])
def test_emlp_passes_the_audit(group, rep_in, rep_out):
    torch.manual_seed(0)
    model = EMLP(rep_in, rep_out, group, channels=32, layers=2)
    r = quiet_audit(model)
    assert r.ok and r.first_breaking_layer is None
    assert r.tolerance == pytest.approx(TOLERANCE_FACTOR * EPS32)
    assert r.worst < r.tolerance / 100  # measured: at most 2e-7 against 1.2e-4
    assert len(r.per_generator) == group.num_lie  # O(3): 3 generators; S(4): none
    labels = [c.label for c in r.per_element]
    assert labels[:group.num_discrete] == [f"generator {k}" for k in range(group.num_discrete)]
    assert len(labels) == group.num_discrete + 8
    judged = [c for c in r.layers if c.rep is not None]
    assert {c.source for c in judged} <= {"attribute", "child"} and all(c.ok for c in judged)
    assert [c.name for c in judged][-1] == "network"  # hooks in the order the modules ran, the outermost last
    assert any(c.name == "network.0.bilinear" for c in judged)


def test_rpp_emlp_equivariant_pathway_passes_and_its_free_pathway_is_named():
    torch.manual_seed(0)
    model = RPPEMLP("2*V", "Scalar", O(3), channels=32, layers=2, prior_free=0)
    assert quiet_audit(model).ok
    free = RPPEMLP("2*V", "Scalar", O(3), channels=32, layers=2)
    with torch.no_grad():
        for p in free.pathway_parameters()["free"]:
            p.mul_(100.0)  # the free pathway as a trained model may have it, not its tiny initial scale
    with pytest.warns(AuditWarning, match="network.0.linear"):
        r = audit(free)
    assert not r.ok and r.worst > 100 * r.tolerance  # measured: 1.2 (0.1 at the initial scale) against 1.2e-4
    assert r.first_breaking_layer == "network.0.linear"  # the first RPPLinear: its dense pathway breaks it
    equi = next(c for c in r.layers if c.name == "network.0.linear.equivariant")
    assert equi.ok  # its equivariant pathway alone is fine


def test_dynamics_equi_model_passes_and_an_unprojected_one_fails():
    """The Training dynamics' custom experiment: its teacher is an Equi model (weights projected onto E), a
    BatchedMLP driven by plain tensors, audited as a callable (no layers to walk)."""
    from lab.tasks.nordenfors import custom
    from lab.nn.batched import BatchedMLP

    e = custom("small", seed=0, group="S(6)", rep="V")
    net = BatchedMLP(e.group, e.specs)
    params = net.init([np.random.default_rng(1)])

    def f(params):
        return lambda x: net.forward(params, x[None, :, None, :])[0, :, :, 0]

    r = quiet_audit(f(params), e.group, "V", "Scalar", dtype=torch.float64)
    assert r.ok and r.dtype == "float64" and r.worst < r.tolerance
    broken = [p.clone() for p in params]
    broken[0] = broken[0] + 0.1 * torch.randn(broken[0].shape, generator=torch.Generator().manual_seed(0),
                                               dtype=broken[0].dtype)
    r = audit(f(broken), e.group, "V", "Scalar", dtype=torch.float64, warn=False)
    assert not r.ok and r.worst > 1e6 * r.tolerance and r.layers == []


# ---------------------------------------------------------------------------------------------- what fails
def test_an_mlp_fails_by_orders_of_magnitude():
    torch.manual_seed(0)
    model = MLP("2*V", "Scalar", O(3), channels=32, layers=2)
    with pytest.warns(AuditWarning, match="MLP is not equivariant under O\\(3\\)"):
        r = audit(model)
    assert not r.ok and r.worst > 0.1  # measured: 0.85
    assert all(not c.ok and c.error > 0.1 for c in r.per_generator)  # 0.6 - 0.85 along each generator
    assert r.first_breaking_layer is None  # its layers change the size: no rep known for any of them


def test_an_inserted_linear_layer_is_named():
    torch.manual_seed(0)
    emlp = EMLP("V", "V", S(4), channels=32, layers=2)
    h = emlp.hidden[0].size
    model = Wrapped(emlp, nn.Linear(h, h), at=0)
    with pytest.warns(AuditWarning, match=r"first breaking layer: network\.1 \(Linear"):
        r = audit(model)
    assert not r.ok and r.first_breaking_layer == "network.1"
    bad = next(c for c in r.layers if c.name == "network.1")
    assert bad.source == "assumed" and bad.rep == str(emlp.hidden[0]) and bad.error > 1e3 * bad.tolerance
    before = r.layers[:r.layers.index(bad)]
    assert before and all(c.ok for c in before if c.rep is not None)


def test_a_pointwise_relu_on_vector_features_is_named():
    """ReLU commutes with permutations (S(4)'s V) but not with rotations (O(3)'s V): named only in the second."""
    torch.manual_seed(0)
    assert quiet_audit(Wrapped(EMLP("V", "V", S(4), channels=32, layers=2), nn.ReLU(), at=0)).ok
    emlp = EMLP("V", "V", O(3), channels=32, layers=2)
    r = audit(Wrapped(emlp, nn.ReLU(), at=1), warn=False)
    assert not r.ok and r.first_breaking_layer == "network.2"
    assert r.to_dict()["first_breaking_layer"] == "network.2"


def test_an_inplace_relu_is_named_and_training_modes_are_restored():
    torch.manual_seed(0)
    emlp = EMLP("V", "V", O(3), channels=32, layers=2)
    model = Wrapped(emlp, nn.ReLU(inplace=True), at=0)
    model.train()
    model.network[0].eval()
    r = audit(model, warn=False)
    assert r.first_breaking_layer == "network.1"  # not network.0, whose recorded output the ReLU overwrote
    assert next(c for c in r.layers if c.name == "network.0").ok
    assert model.training and not model.network[0].training and model.network[2].training


def test_layer_reps_override_what_is_assumed():
    """A shape-preserving module is held to its input's rep unless declared otherwise: declaring the ReLU's
    output Scalar-only is wrong on purpose (size mismatch: ignored, the layer is not judged)."""
    torch.manual_seed(0)
    emlp = EMLP("V", "V", O(3), channels=32, layers=1)
    r = audit(Wrapped(emlp, nn.ReLU()), layer_reps={"network.1": "Scalar"}, warn=False)
    relu = next(c for c in r.layers if c.name == "network.1")
    assert relu.rep is None and relu.ok is None and r.first_breaking_layer == "network.2"


# ---------------------------------------------------------------------------------------------- user reps
def test_user_reps_that_are_representations_pass_the_check():
    checks = check_rep(so3_irrep(2), regular_rep(S(3)), UserRep("W", O(3), discrete=O(3).discrete, lie=O(3).lie))
    assert {(c.rep, c.check) for c in checks} == {("L2", "brackets"), ("L2", "words"), ("Reg", "words"),
                                                  ("W", "brackets"), ("W", "words")}
    assert all(c.tried > 0 and c.error < 1e-10 for c in checks)
    assert check_rep(V(S(4))) == []  # the lab's own leaves are not re-checked
    torch.manual_seed(0)
    r = quiet_audit(EMLP(V, so3_irrep(2), SO(3), channels=32, layers=1))  # computes 0: passes, see measure.py
    assert r.ok and [h.rep for h in r.homomorphism] == ["L2", "L2"]


def test_a_fake_finite_rep_is_refused_with_one_line():
    G = S(4)
    rng = np.random.default_rng(0)
    fake = UserRep("Fake", G, discrete=[np.eye(4)[rng.permutation(4)] for _ in G.discrete], check=False)
    with pytest.raises(HomomorphismError) as info:
        audit(EMLP("V", "V", G, channels=16, layers=1), G, fake, "V")
    err = info.value
    assert isinstance(err, LabError) and "\n" not in str(err)
    assert err.check == "words" and err.size > 0.1 > HOM_TOLERANCE
    assert str(err).startswith("Fake over S(4) is not a representation: rho(g h) = rho(g) rho(h)")
    assert f"{err.size:.3g}" in str(err)


def test_a_fake_lie_rep_is_refused_by_its_brackets():
    G = SO(3)
    bad = UserRep("Bad", G, lie=2 * G.lie, check=False)  # [2A, 2B] = 4[A, B] != 2[A, B]
    with pytest.raises(HomomorphismError, match=r"^Bad over SO\(3\) is not a representation: the bracket") as info:
        audit(lambda x: x, G, bad, bad)
    assert info.value.check == "brackets" and info.value.size == pytest.approx(np.sqrt(2) / 4, rel=1e-6)


# ---------------------------------------------------------------------------------------------- tolerances
def test_float32_and_float64_tolerances_differ_as_stated():
    assert tolerance_for(torch.float32) == pytest.approx(1000 * EPS32) == pytest.approx(1.1920929e-4)
    assert tolerance_for(torch.float64) == pytest.approx(1000 * EPS64) == pytest.approx(2.220446e-13)
    assert tolerance_for(torch.complex64) == tolerance_for(torch.float32)
    assert tolerance_for(torch.float64, cond=10.0) == pytest.approx(10 * tolerance_for(torch.float64))
    torch.manual_seed(0)
    r64 = quiet_audit(EMLP("V", "V", O(3), channels=32, layers=2, dtype=torch.float64))
    assert r64.dtype == "float64" and r64.tolerance == pytest.approx(1000 * EPS64) and r64.worst < r64.tolerance

    class Leaky(nn.Module):
        """x + delta * (a fixed non-equivariant map): broken by about delta."""

        def __init__(self, dtype, delta=1e-9):
            super().__init__()
            self.rep_in = self.rep_out = V(O(3))
            self.lin = nn.Linear(3, 3, bias=False, dtype=dtype)
            self.delta = delta

        def forward(self, x):
            return x + self.delta * self.lin(x)

    torch.manual_seed(0)
    assert quiet_audit(Leaky(torch.float32)).ok  # 1e-9 is below float32's rounding allowance
    r = audit(Leaky(torch.float64), warn=False)
    assert not r.ok and 1e-11 < r.worst < 1e-8  # and far above float64's
    assert audit(Leaky(torch.float64), tolerance=1e-6, warn=False).ok  # a stated tolerance replaces the rule


def test_non_compact_groups_scale_the_tolerance_by_the_condition_number():
    """SO(1,3)'s sampled boosts have ill-conditioned rho(g): rounding grows with cond, and so does the allowance."""
    from lab.groups import SO13p

    torch.manual_seed(0)
    r = quiet_audit(EMLP("V", "V", SO13p(), channels=32, layers=2))
    conds = [c.cond for c in r.per_element]
    assert r.ok and max(conds) > 10 and min(conds) >= 1 - 1e-9  # measured: 1.4 to 29
    for c in r.per_element:
        assert c.tolerance == pytest.approx(r.tolerance * c.cond, rel=1e-6)  # V -> V: cond(rho_out) = cond(rho_in)


def test_result_is_json_safe_and_readable():
    torch.manual_seed(0)
    r = audit(MLP("V", "V", S(4), channels=8, layers=1), samples=2, warn=False)
    d = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert d["ok"] is False and d["group"] == "S(4)" and len(d["per_element"]) == S(4).num_discrete + 2
    assert set(d) >= {"ok", "worst", "tolerance", "per_generator", "per_element", "layers", "first_breaking_layer"}
    text = r.text()
    assert text.startswith("audit of MLP: V -> V over S(4), float32, 16 inputs: NOT equivariant")
    assert "generator 0" in text and "sample 1" in text


def test_bad_arguments_raise_audit_errors():
    model = EMLP("V", "V", S(4), channels=8, layers=1)
    with pytest.raises(AuditError, match="x has 5 features but the input rep V has size 4"):
        audit(model, x=torch.randn(3, 5))
    with pytest.raises(AuditError, match="samples must be an integer >= 0"):
        audit(model, samples=-1)
    with pytest.raises(AuditError, match="give rep_in and rep_out"):
        audit(lambda x: x, S(4))
    with pytest.raises(AuditError, match="tolerance must be a number"):
        audit(model, tolerance="small")
