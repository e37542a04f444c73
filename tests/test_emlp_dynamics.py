"""The pendulum dynamics experiment (``lab.nn.hamiltonian``): models, integration, the thesis's metrics, Noether."""
import numpy as np
import pytest
import torch

from lab.control import Control, Stopped
from lab.data.pendulum import DoubleSpringPendulum, angular_momentum_z, z_axis_group
from lab.nn.hamiltonian import (AUGMENTED, MODELS, PAPER, augment_pool, SMALL, DynamicsSettings, build_model, evaluate, geometric_mean,
                               momentum_error, momentum_errors, pendulum_data, relative_errors, rollout,
                               rollout_error, run_pendulum, to_float64, train_model)
from lab.errors import LabError
from lab.reps import parse_rep

TINY = DynamicsSettings(train=4, test=3, epochs=2, channels=16, layers=2, samples=2)


@pytest.fixture(scope="module")
def states():
    """Four held-out pendulum states (the first states of chunks), float64."""
    _, _, z0, _, _ = pendulum_data(DynamicsSettings(train=2, test=4), seed=0)
    return torch.as_tensor(z0)


def _short(n=31):
    return torch.arange(n, dtype=torch.float64) * 0.2  # 6 s: untrained fields stay bounded this long


def _drift(model, z0, rtol=1e-9):
    m = to_float64(model)
    with torch.no_grad():
        zs = rollout(m, z0, _short(), rtol=rtol, atol=rtol)
    L = angular_momentum_z(zs)
    return zs, float((L - L[:, :1]).abs().max()), float((zs - zs[:, :1]).abs().max())


# ------------------------------------------------------------------------------------------- layout
def test_state_layout_is_the_lab_rep_4V():
    """pendulum.py's z = (q1, q2, p1, p2) (four consecutive 3-vectors) is the lab's 4*V: rho(g) = I_4 (x) g, and
    the true H and L_z are invariant under it (reflections flip L_z's sign)."""
    task = DoubleSpringPendulum()
    z = torch.as_tensor(task.initial_conditions(5, 1))
    for text in ("O2eR3()", "SO2eR3()", "DkeR3(6)"):
        G = z_axis_group(text)
        for g in G.sample(4, np.random.default_rng(0)):
            rho = parse_rep("4*V", G).rho(g)
            assert np.allclose(rho, np.kron(np.eye(4), g))
            gz = z @ torch.as_tensor(rho).T
            assert torch.allclose(task.H(gz), task.H(z), atol=1e-12)
            det = np.linalg.det(g)
            assert torch.allclose(angular_momentum_z(gz), det * angular_momentum_z(z), atol=1e-12)


# ------------------------------------------------------------------------------------------- metrics
def test_relative_error_and_geometric_mean_definitions():
    a = np.array([[[3.0, 4.0], [0.0, 0.0], [1.0, 0.0], [np.nan, 1.0], [np.inf, 0.0]]])
    b = np.array([[[3.0, 4.0], [0.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]])
    e = relative_errors(a, b)
    # |a - b| / (|a| + |b|): equal -> 0, both zero -> 0, orthogonal unit vectors -> sqrt(2)/2, diverged -> 1
    assert np.allclose(e, [[0.0, 0.0, np.sqrt(2) / 2, 1.0, 1.0]])
    assert relative_errors(np.full(12, 1e200), np.ones(12)) == 1.0  # |a| overflows: still its limit, 1
    assert geometric_mean([1e-2, 1e-4], floor=1e-7) == pytest.approx(1e-3)
    assert geometric_mean([0.0, 1e-2], floor=1e-6) == pytest.approx(1e-4)  # zero counts as the floor
    assert rollout_error(a, b, floor=1e-3) == pytest.approx(np.exp(np.mean(np.log(np.maximum(e, 1e-3)))))


def test_momentum_error_is_relative_to_Lz_along_the_rollout():
    z = np.zeros((1, 3, 12))
    z[0, :, 0] = 1.0  # q1 = e_x
    z[0, :, 7] = [1.0, 1.0, 3.0]  # p1_y: L_z = 1, 1, 3
    assert np.allclose(momentum_errors(z), [[0.0, 0.0, 0.5]])  # |3 - 1| / (3 + 1)
    assert momentum_error(z, floor=1e-5) == pytest.approx((1e-5 * 1e-5 * 0.5) ** (1 / 3))


def test_rollout_error_of_the_true_field_is_tiny_and_of_a_zero_field_large(states):
    """The thesis's rollout error (30 s, 150 points) of the exact dynamics integrated another way (fixed-step RK4 of
    step 0.05 s against adaptive Dormand-Prince at 2e-6) is at the integrators' level; a model that predicts no
    motion is off by tens of percent."""
    task = DoubleSpringPendulum()
    ts = task.times()
    true = task.integrate(states, ts).numpy()
    assert true.shape == (4, 150, 12)
    pred = rollout(task.vector_field, states, ts, method="rk4", step=0.05)
    err = rollout_error(pred.numpy(), true)
    assert err < 1e-4  # measured 1.1e-5: dopri5 at 2e-6 over 30 s; trained models reach 1e-2
    still = np.broadcast_to(states.numpy()[:, None], true.shape)
    assert rollout_error(still, true) > 0.1
    assert momentum_error(true) < 1e-4  # the true flow conserves L_z (measured 2.2e-5: the floor 1e-5, tolerance)


# ------------------------------------------------------------------------------------------- conservation laws
def test_hnn_conserves_its_own_hamiltonian(states):
    """dz/dt = J grad H_theta conserves H_theta, whatever the weights: along each rollout it stays constant to the
    integrator's tolerance, while it differs between the rollouts far more."""
    torch.manual_seed(0)
    model = build_model("hnn-mlp", channels=16, layers=2)
    zs, _, moved = _drift(model, states)
    assert moved > 0.05  # the learned flow moves the states
    with torch.no_grad():
        H = to_float64(model).hamiltonian(zs)  # (4, T)
    assert float((H - H[:, :1]).abs().max()) < 1e-6  # measured 2e-10 at rtol 1e-9
    assert float(H[:, 0].std()) > 1e-3  # measured 0.018


def test_noether_rotation_invariant_hnn_conserves_Lz_untrained(states):
    """An EMLP-HNN over SO2eR3() (and O2eR3()) is invariant under rotations about z, so its flow conserves L_z
    (Noether) even with random weights; an MLP-HNN does not; the discrete D2 (rotation by pi, one reflection)
    gives no conservation law.  D6 does, here: its maps between tensors of rank < 6 are O(2)'s, and at 16 channels
    the EMLP's are of rank <= 2 (the same parameter count as O(2)'s)."""
    drifts, sizes = {}, {}
    for name, group in (("hnn-emlp", "SO2eR3()"), ("hnn-emlp", "O2eR3()"), ("hnn-mlp", None),
                        ("hnn-emlp", "DkeR3(2)"), ("hnn-emlp", "DkeR3(6)")):
        torch.manual_seed(0)
        model = build_model(name, group, channels=16, layers=2)
        _, drift, moved = _drift(model, states)
        assert moved > 0.05, (name, group)  # the learned flow moves the states (by 0.3 to 2)
        drifts[group], sizes[group] = drift, sum(p.numel() for p in model.parameters())
    # |L_z| of these states: 0.01 to 0.17; measured drifts over 6 s at rtol 1e-9: SO(2) 2e-9, O(2) 2e-13,
    # MLP 0.12, D2 0.044
    assert drifts["SO2eR3()"] < 1e-7 and drifts["O2eR3()"] < 1e-7 and drifts["DkeR3(6)"] < 1e-7
    assert sizes["DkeR3(6)"] == sizes["O2eR3()"] < sizes["DkeR3(2)"]
    assert drifts[None] > 1e-2
    assert drifts["DkeR3(2)"] > 1e-2


def test_node_emlp_does_not_conserve_Lz_but_is_equivariant(states):
    """A Neural ODE has no Hamiltonian, so no Noether: an equivariant field f(rho z) = rho f(z) still changes L_z."""
    torch.manual_seed(0)
    model = build_model("node-emlp", "SO2eR3()", channels=16, layers=2)
    _, drift, _ = _drift(model, states)
    assert drift > 1e-3


# ------------------------------------------------------------------------------------------- training and runs
def test_training_lowers_the_chunk_loss():
    ts, Z, _, _, _ = pendulum_data(DynamicsSettings(train=16, test=1), seed=0)
    torch.manual_seed(0)
    model = build_model("node-mlp", channels=32, layers=2)
    records = []
    curve = train_model(model, ts, Z, DynamicsSettings(train=16, epochs=40), progress=records.append,
                        record_every=1, label="x")
    assert len(curve) == 40 and records == curve and curve[0]["kind"] == "step" and curve[0]["model"] == "x"
    assert curve[-1]["train_mse"] < 0.5 * curve[0]["train_mse"]


def test_training_leaves_out_chunks_where_the_field_blows_up():
    """A chunk whose rollout overflows is left out of its step (counted), the step is taken on the others and the
    weights stay finite; a step where every chunk overflows is skipped."""
    from lab.nn.hamiltonian import NeuralODE

    class Net(torch.nn.Module):  # explodes where q1_x > 0, decays elsewhere
        def __init__(self, blow_all=False):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor(1.0))
            self.blow_all = blow_all

        def forward(self, z):
            up = torch.ones_like(z[..., :1], dtype=torch.bool) if self.blow_all else z[..., :1] > 0
            return self.w * torch.where(up, 1e6 * z ** 3, -z)

    ts, Z, _, _, _ = pendulum_data(DynamicsSettings(train=16, test=1), seed=0)
    positive = int((Z[:, 0, 0] > 0).sum())
    assert 0 < positive < 16
    model = NeuralODE(Net())
    curve = train_model(model, ts, Z, DynamicsSettings(train=16, epochs=3), record_every=1)
    assert [c["dropped"] for c in curve] == [positive, 2 * positive, 3 * positive]
    assert curve[-1]["skipped"] == 0 and np.isfinite(curve[-1]["train_mse"]) and torch.isfinite(model.net.w.detach())
    assert model.net.w.item() != 1.0  # steps were taken
    model = NeuralODE(Net(blow_all=True))
    curve = train_model(model, ts, Z, DynamicsSettings(train=16, epochs=2), record_every=1)
    assert curve[-1]["skipped"] == 2 and model.net.w.item() == 1.0


def test_run_pendulum_rows_samples_and_seeding():
    records = []
    rows = run_pendulum(("node-mlp", "hnn-emlp"), ("O2eR3()", "DkeR3(2)"), TINY, seed=3, progress=records.append)
    assert [(r["model"], r["group"]) for r in rows] == [("node-mlp", None), ("hnn-emlp", "O2eR3()"),
                                                        ("hnn-emlp", "DkeR3(2)")]
    for r in rows:
        assert 0 < r["rollout_error"] <= 1 and 0 < r["momentum_error"] <= 1
        assert len(r["times"]) == 150 and len(r["rollout_curve"]) == 150 and len(r["momentum_curve"]) == 150
        assert len(r["samples"]) == 2
        assert np.asarray(r["samples"][0]["pred"]).shape == (150, 12) == np.asarray(r["samples"][0]["true"]).shape
        assert r["seconds"] > 0 and len(r["curve"]) == TINY.steps()
    mlp, o2, d2 = rows
    assert o2["equivariance_error"] < 1e-4 and o2["momentum_error"] < 1e-3  # O(2): equivariant and conserving
    # D2 only, not O(2): exact (float32) under its own group, clearly not under O(2) (9e-4 at these random weights)
    assert d2["group_equivariance_error"] < 1e-5 < d2["equivariance_error"]
    assert o2["equivariance_error"] < 1e-5
    assert mlp["equivariance_error"] > 1e-2
    kinds = [r["kind"] for r in records]
    assert kinds[0] == "started" and kinds.count("result") == 3 and "step" in kinds
    again = run_pendulum(("node-mlp",), (), TINY, seed=3)[0]
    assert again["rollout_error"] == mlp["rollout_error"] and again["samples"] == mlp["samples"]
    other = run_pendulum(("node-mlp",), (), TINY, seed=4)[0]
    assert other["samples"][0]["true"] != mlp["samples"][0]["true"]


def test_run_pendulum_stops_and_rejects_bad_names():
    c = Control()
    c.stop()
    with pytest.raises(Stopped):
        run_pendulum(("hnn-mlp",), (), TINY, control=c)
    with pytest.raises(LabError):
        run_pendulum(("hnn-cnn",), (), TINY)
    with pytest.raises(LabError):
        run_pendulum(("hnn-emlp",), ("SO(2)",), TINY)  # acts on R^2, not on the 3-vectors
    with pytest.raises(LabError):
        build_model("node-emlp")  # an EMLP needs its group
    with pytest.raises(LabError):
        DynamicsSettings(epochs=0).check()


def test_presets():
    assert (PAPER.train, PAPER.test, PAPER.epochs, PAPER.channels, PAPER.layers, PAPER.lr) == (500, 500, 2000, 128,
                                                                                               3, 3e-3)
    assert PAPER.steps() == 2000 and SMALL.steps() == SMALL.epochs
    assert set(MODELS) == {"node-mlp", "node-emlp", "hnn-mlp", "hnn-emlp"}


def test_evaluate_counts_a_diverging_field_as_error_one(states):
    """A field that blows up is caught (the adaptive solver would shrink its steps forever): fixed-step RK4
    instead, and the diverged states count as relative error 1."""
    task = DoubleSpringPendulum()
    ts = task.times()
    true = task.integrate(states, ts).numpy()

    class Blowup(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor(1.0))

        def vector_field(self, z, create_graph=False):
            return self.w * z ** 2

    ev = evaluate(Blowup(), states.numpy(), true, ts, DynamicsSettings())
    assert ev["integrator"] == "rk4" and ev["rollout_error"] > 0.5


def test_augmentation_turns_true_trajectories_into_true_trajectories():
    """``augment_pool``: matrices I_4 (x) g with g in O(2) about z (orthogonal, fixing e_z up to sign, both
    components drawn); a true chunk turned by one is the true flow from the turned start (the dynamics commute)."""
    task = DoubleSpringPendulum(n_steps=5)
    pool = augment_pool(0, 64)
    assert pool.shape == (64, 12, 12)
    g = pool[:, :3, :3]
    assert not torch.allclose(pool[0], pool[1])  # not one element repeated
    for k in range(64):
        assert torch.allclose(pool[k], torch.kron(torch.eye(4, dtype=pool.dtype), g[k]))
    assert torch.allclose(g @ g.transpose(1, 2), torch.eye(3, dtype=g.dtype).expand(64, 3, 3), atol=1e-12)
    assert torch.allclose(g[:, 2, 2].abs(), torch.ones(64, dtype=g.dtype))
    assert torch.allclose(g[:, 2, :2], torch.zeros(64, 2, dtype=g.dtype))
    dets = torch.linalg.det(g)
    assert (dets > 0).any() and (dets < 0).any()  # rotations and reflections
    z0 = torch.as_tensor(task.initial_conditions(3, 0))
    zs = task.integrate(z0)  # (3, 5, 12)
    turned = torch.einsum("ij,ntj->nti", pool[5], zs)
    again = task.integrate(turned[:, 0])
    assert torch.allclose(again, turned, atol=1e-5)
    with pytest.raises(AssertionError):  # power: a non-symmetry (a turn about x) is not a true trajectory
        R = torch.tensor([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]], dtype=zs.dtype)
        off = torch.einsum("ij,ntj->nti", torch.kron(torch.eye(4, dtype=zs.dtype), R), zs)
        assert torch.allclose(task.integrate(off[:, 0]), off, atol=1e-5)


def test_augmented_mlps_train_and_report_a_held_out_chunk_mse():
    rows = run_pendulum(AUGMENTED, (), TINY, seed=1)
    assert [r["model"] for r in rows] == list(AUGMENTED)
    for r in rows:
        assert len(r["curve"]) == TINY.steps() and np.isfinite(r["curve"][-1]["train_mse"])
        assert 0 < r["test_mse"] < np.inf and 0 < r["rollout_error"] <= 1


def test_a_misspecified_so3_model_and_the_windy_pendulum():
    """The residual-pathway-priors chapter's pendulum regimes run through the same code: an EMLP-HNN over SO(3) (a
    group of R^3 that gravity breaks) is exact under SO(3) and conserves L_z (SO(3) holds the rotations about z);
    on the windy pendulum (``task=``) the true trajectories themselves do not conserve L_z."""
    from lab.data.pendulum import WINDY

    (so3,) = run_pendulum(("hnn-emlp",), ("SO(3)",), TINY, seed=1)
    assert so3["group"] == "SO(3)" and so3["group_equivariance_error"] < 1e-5
    assert so3["momentum_error"] < 1e-3
    windy = DoubleSpringPendulum(wind=WINDY, rtol=TINY.rtol, atol=TINY.atol)
    (mlp,) = run_pendulum(("node-mlp",), (), TINY, seed=1, task=windy)
    (calm,) = run_pendulum(("node-mlp",), (), TINY, seed=1)
    true_w, true_c = (np.asarray(r["samples"][0]["true"]) for r in (mlp, calm))
    lz_w, lz_c = angular_momentum_z(true_w), angular_momentum_z(true_c)
    assert np.ptp(lz_c) < 1e-4 < 1e-2 < np.ptp(lz_w)
