"""The EMLP chapter's tasks (lab.emlp): each target has its declared symmetry exactly, under the lab's own groups
and representations (so the layouts are the lab's), and loses it under maps outside the group (the checks have
power); the pendulum conserves energy and L_z along torchdiffeq's trajectories, and L_z stops being conserved when
wind breaks the rotations about z.  Shapes, seeding and the size limits too.  No model is involved."""
from dataclasses import replace

import numpy as np
import pytest
import torch

from lab.data.pendulum import WINDY, angular_momentum_z
from lab.data.regression import (INERTIA, O5, PENDULUM, SCATTERING, SCATTERING_ORIGINAL, TASKS, get_task, make,
                                 task_group, task_reps)
from lab.data.regression import inertia_target, minkowski, scattering_target
from lab.errors import GroupError, LabError, MemoryLimitError
from lab.groups import parse_group
from lab.reps import parse_rep

REGRESSION = [O5, INERTIA, SCATTERING, SCATTERING_ORIGINAL]
# the integrator's tolerance for the conservation tests (the task's default is the thesis's 2e-6)
TIGHT = dict(rtol=1e-8, atol=1e-8)
SMALL_PENDULUM = replace(PENDULUM, n_steps=50, **TIGHT)  # 10 s


def act(rep, g, X):
    """rho(g) applied to every row of X (n, size), by the lab's rep."""
    return rep.act(g, np.asarray(X, dtype=np.float64).T).T


def rel_err(a, b):
    return float(np.max(np.abs(a - b)) / (np.max(np.abs(b)) + 1e-300))


# ------------------------------------------------------------------------------------------- declarations
def test_registry_declares_reps_and_groups_the_lab_parses():
    assert list(TASKS) == ["o5", "inertia", "scattering", "pendulum"]
    for name, task in TASKS.items():
        assert get_task(name) is task
        for text in {task.group, *task.groups}:
            rep_in, rep_out = task_reps(task, text)
            assert (rep_in.size, rep_out.size) == (task.d_in, task.d_out), (name, text)
        assert task_group(task.group).d in (3, 4, 5)
    assert [str(r) for r in task_reps(INERTIA)] == ["5*Scalar + 5*V", "T(2)"]
    assert parse_rep(O5.rep_in + ">>" + O5.rep_out, O5.group).size == 10
    with pytest.raises(LabError, match="unknown EMLP task"):
        get_task("mnist")
    with pytest.raises(GroupError):
        task_group("O3eR3()")


@pytest.mark.parametrize("task", REGRESSION, ids=lambda t: t.name)
def test_make_shapes_dtypes_and_seeding(task):
    X, Y = task.make(50, seed=3)
    assert X.shape == (50, task.d_in) and Y.shape == (50, task.d_out)
    assert X.dtype == Y.dtype == np.float32
    X2, Y2 = task.make(50, seed=3)
    assert np.array_equal(X, X2) and np.array_equal(Y, Y2)
    X3, _ = task.make(50, seed=4)
    assert not np.allclose(X, X3)
    X64, Y64 = task.make(50, seed=3, dtype=np.float64)
    assert X64.dtype == np.float64 and np.allclose(X64, X) and np.allclose(Y64, Y, rtol=1e-5, atol=1e-5)
    assert np.all(np.isfinite(Y64))
    assert task.make(0)[0].shape == (0, task.d_in)
    if task.name in TASKS:
        assert np.array_equal(make(task.name, 50, seed=3)[0], X)


def test_pendulum_make_shapes_and_seeding():
    task = replace(PENDULUM, n_steps=20)
    X, Y = task.make(6, seed=1)
    assert X.shape == Y.shape == (6, 12) and X.dtype == np.float32
    X2, Y2 = task.make(6, seed=1)
    assert np.array_equal(X, X2) and np.array_equal(Y, Y2)
    assert not np.allclose(task.make(6, seed=2)[0], X)
    ts, zs = task.trajectories(3, seed=0)
    assert ts.shape == (20,) and zs.shape == (3, 20, 12) and np.allclose(np.diff(ts), 0.2)


def test_sizes_are_refused_before_anything_is_built(monkeypatch):
    with pytest.raises(MemoryLimitError):
        O5.make(10**15)  # 10^15 samples: refused from the arithmetic alone
    with pytest.raises(MemoryLimitError):
        PENDULUM.make(10**12)
    monkeypatch.setenv("LAB_MEMORY_LIMIT", "1MB")
    assert PENDULUM.cost(10_000) > 2**20 and INERTIA.cost(100_000) > 2**20
    with pytest.raises(MemoryLimitError):
        PENDULUM.trajectories(10_000)
    with pytest.raises(MemoryLimitError):
        INERTIA.make(100_000)
    INERTIA.make(100)  # small work still passes
    for bad in (-1, 2.5, True, "10"):
        with pytest.raises(LabError):
            O5.make(bad)
    with pytest.raises(LabError):
        O5.make(5, dtype=np.int64)
    with pytest.raises(LabError, match="chunk_len"):
        replace(PENDULUM, n_steps=3).make(2)
    assert isinstance(O5.cost(10**30), int)  # exact integers, no overflow


# ------------------------------------------------------------------------------------------- regression targets
@pytest.mark.parametrize("group", ["O(5)", "SO(5)"])
def test_o5_target_is_invariant(group):
    G = parse_group(group)
    rep_in, rep_out = task_reps(O5, G)
    X, Y = O5.make(200, seed=0, dtype=np.float64)
    for g in G.sample(6, rng=1):
        assert rel_err(O5.target(act(rep_in, g, X)), act(rep_out, g, Y)) < 1e-12
    # power: a generic linear map of R^5 changes the target
    A = np.random.default_rng(2).standard_normal((5, 5))
    assert rel_err(O5.target(act(rep_in, A, X)), Y) > 1e-2


def test_o5_target_formula():
    x1 = np.array([3.0, 0, 0, 0, 0])
    x2 = np.array([0, 2.0, 0, 0, 0])
    assert np.isclose(O5.target(np.concatenate([x1, x2])[None])[0, 0], np.sin(3.0) - 4.0)  # orthogonal: no cosine
    assert np.isclose(O5.target(np.concatenate([x1, x1])[None])[0, 0], np.sin(3.0) - 13.5 + 1.0)


@pytest.mark.parametrize("group", ["O(3)", "SO(3)"])
def test_inertia_target_is_equivariant(group):
    G = parse_group(group)
    rep_in, rep_out = task_reps(INERTIA, G)
    X, Y = INERTIA.make(200, seed=0, dtype=np.float64)
    gs = G.sample(6, rng=1)
    if group == "O(3)":
        assert np.any(np.linalg.det(gs) < 0)  # reflections are tested too
    for g in gs:
        assert rel_err(INERTIA.target(act(rep_in, g, X)), act(rep_out, g, Y)) < 1e-12
    # power: a non-orthogonal linear map (positions x -> A x, output by T(2)'s rule A I A^T) is not a symmetry
    A = np.eye(3) + 0.3 * np.random.default_rng(2).standard_normal((3, 3))
    assert rel_err(INERTIA.target(act(rep_in, A, X)), act(rep_out, A, Y)) > 1e-2


def test_inertia_target_values_and_inputs():
    # one mass 2 at distance 3 on the x axis (the others at the origin): I = 2 * 9 * diag(0, 1, 1)
    X = np.zeros((1, 20))
    X[0, :5] = [2, 1, 1, 1, 1]
    X[0, 5:8] = [3, 0, 0]
    assert np.allclose(inertia_target(X).reshape(3, 3), 18 * np.diag([0, 1, 1]))
    # an off-diagonal entry, row-major: I_xy = -m x y
    X[0, 5:8] = [1, 2, 0]
    I = inertia_target(X).reshape(3, 3)
    assert np.isclose(I[0, 1], -4) and np.isclose(I[1, 0], -4) and np.allclose(I, I.T)
    Xs, Ys = INERTIA.make(500, seed=0, dtype=np.float64)
    assert np.all(Xs[:, :5] > 0)  # softplus masses
    eig = np.linalg.eigvalsh(Ys.reshape(-1, 3, 3))
    assert np.all(eig > 0)  # an inertia tensor of masses off one line is positive definite


def scattering_closed_form(X, variant):
    """|M|^2 from Minkowski products alone: an independent derivation of the contraction."""
    P = X.reshape(-1, 4, 4)
    q, p, qt, pt = P[:, 0], P[:, 1], P[:, 2], P[:, 3]
    a = minkowski(q, qt) - minkowski(q, q)
    b = minkowski(p, pt) - minkowski(p, p)
    if variant == "thesis":  # (q^mu qt^nu + q^nu qt^mu) contracted with (p_mu pt_nu + p_nu pt_mu) etc.
        s = 2 * (minkowski(q, p) * minkowski(qt, pt) + minkowski(q, pt) * minkowski(qt, p))
        y = 4 * (s - 2 * b * minkowski(q, qt) - 2 * a * minkowski(p, pt) + 4 * a * b)
    else:
        y = 4 * (minkowski(q, p) * minkowski(qt, pt) - b * minkowski(q, qt) - a * minkowski(p, pt) + 4 * a * b)
    return y[:, None]


@pytest.mark.parametrize("variant", ["thesis", "original"])
def test_scattering_target_formula(variant):
    X, _ = SCATTERING.make(100, seed=0, dtype=np.float64)
    assert np.allclose(scattering_target(X, variant), scattering_closed_form(X, variant), rtol=1e-12, atol=1e-14)
    assert np.std(X) == pytest.approx(0.25, rel=0.1)  # momenta ~ N(0, 1)/4


@pytest.mark.parametrize("task", [SCATTERING, SCATTERING_ORIGINAL], ids=lambda t: t.name)
@pytest.mark.parametrize("group", ["SO13p()", "SO13()", "O13()"])
def test_scattering_target_is_lorentz_invariant(task, group):
    G = parse_group(group)
    rep_in, rep_out = task_reps(task, G)
    X, Y = task.make(200, seed=0, dtype=np.float64)
    for g in G.sample(6, rng=1):
        Xg = act(rep_in, g, X)
        assert not np.allclose(Xg, X)
        scale = 64 * np.max(np.linalg.norm(Xg, axis=1)) ** 4  # bounds the size of the terms summed
        assert np.max(np.abs(task.target(Xg) - act(rep_out, g, Y))) < 1e-13 * scale
    # power: a Euclidean rotation mixing time and space is orthogonal but not a Lorentz map; nor is a generic map
    R = parse_group("SO(4)").sample(rng=2)
    A = np.random.default_rng(3).standard_normal((4, 4))
    for M in (R, A):
        assert rel_err(task.target(act(rep_in, M, X)), Y) > 1e-2


# ------------------------------------------------------------------------------------------- the pendulum
def _states(n, seed=0):
    return torch.as_tensor(PENDULUM.initial_conditions(n, np.random.default_rng(seed)))


def test_pendulum_hamiltonian_and_vector_field():
    z = torch.zeros(12, dtype=torch.float64)
    z[2], z[5] = -1.0, -3.0  # spring 1 at rest, spring 2 stretched by 1, at rest
    assert float(PENDULUM.H(z)) == pytest.approx(1.0 - 1.0 - 3.0)  # (|q1-q2| - 1)^2 has no 1/2 (as the original)
    F = PENDULUM.vector_field(z)
    assert torch.allclose(F[:6], torch.zeros(6, dtype=torch.float64))  # dq/dt = p = 0
    # dp1/dt: gravity -1 and spring 2 pulling down by 2*1; dp2/dt: gravity -1, spring 2 pulling up by 2
    assert torch.allclose(F[6:], torch.tensor([0, 0, -3.0, 0, 0, 1.0], dtype=torch.float64))
    # J grad H against central differences of H
    zs = _states(3)
    F = PENDULUM.vector_field(zs)
    eps = 1e-6
    grad = torch.stack([(PENDULUM.H(zs + eps * e) - PENDULUM.H(zs - eps * e)) / (2 * eps)
                        for e in torch.eye(12, dtype=torch.float64)], dim=-1)
    assert torch.allclose(F, torch.cat([grad[:, 6:], -grad[:, :6]], dim=-1), atol=1e-7)
    assert torch.equal(F[:, :6], zs[:, 6:])  # unit masses: dq/dt = p


@pytest.mark.parametrize("group", ["O2eR3()", "SO2eR3()", "DkeR3(6)"])
def test_pendulum_hamiltonian_symmetry(group):
    G = task_group(group)
    rep = parse_rep(PENDULUM.rep_in, G)
    zs = _states(20)
    gs = G.sample(8, rng=1)
    assert np.allclose(gs[:, 2], [0, 0, 1]) and np.allclose(gs @ gs.transpose(0, 2, 1), np.eye(3))
    if group != "SO2eR3()":
        assert np.any(np.linalg.det(gs) < 0)
    H, F = PENDULUM.H(zs), PENDULUM.vector_field(zs)
    for g in gs:
        zg = torch.as_tensor(act(rep, g, zs.numpy()))
        assert torch.allclose(PENDULUM.H(zg), H, rtol=1e-13, atol=1e-13)
        assert np.allclose(PENDULUM.vector_field(zg).numpy(), act(rep, g, F.numpy()), rtol=1e-12, atol=1e-12)
    # power: a rotation tilting the z axis (SO(3), the RPP chapter's mis-specified group) moves gravity
    S = parse_group("SO(3)").sample(rng=2)
    zS = torch.as_tensor(act(parse_rep("4*V", "SO(3)"), S, zs.numpy()))
    assert (PENDULUM.H(zS) - H).abs().max() > 1e-2
    # and wind breaks the rotations about z
    windy = replace(PENDULUM, wind=WINDY)
    g = task_group("SO2eR3()").sample(rng=3)
    assert not np.allclose(g, np.eye(3))
    zg = torch.as_tensor(act(rep, g, zs.numpy()))
    assert (windy.H(zg) - windy.H(zs)).abs().max() > 1e-3


def test_pendulum_conserves_energy_and_angular_momentum():
    """Along torchdiffeq's dopri5 trajectories at rtol = atol = 1e-8 over 10 s: H within 1e-5 and L_z within 1e-6
    of their initial values (observed: ~1e-6 and ~3e-8).  With wind, H is still conserved but L_z is not."""
    z0 = PENDULUM.initial_conditions(4, np.random.default_rng(0))
    zs = SMALL_PENDULUM.integrate(z0)
    assert zs.shape == (4, 50, 12)
    H, L = SMALL_PENDULUM.H(zs), angular_momentum_z(zs)
    assert (H - H[:, :1]).abs().max() < 1e-5
    assert (L - L[:, :1]).abs().max() < 1e-6
    assert (zs - zs[:, :1]).abs().max() > 0.5  # it moved
    windy = replace(SMALL_PENDULUM, wind=WINDY)
    ws = windy.integrate(z0)
    Hw, Lw = windy.H(ws), angular_momentum_z(ws)
    assert (Hw - Hw[:, :1]).abs().max() < 1e-5
    assert (Lw - Lw[:, :1]).abs().max(dim=1).values.min() > 1e-3  # every trajectory's L_z drifts


def test_pendulum_flow_is_equivariant():
    G = task_group("O2eR3()")
    rep = parse_rep("4*V", G)
    z0 = PENDULUM.initial_conditions(3, np.random.default_rng(5))
    task = replace(SMALL_PENDULUM, n_steps=15)
    zs = task.integrate(z0).numpy()
    for g in G.sample(2, rng=6):
        zg = task.integrate(act(rep, g, z0)).numpy()
        assert np.allclose(zg, act(rep, g, zs.reshape(-1, 12)).reshape(zs.shape), atol=1e-5)


def test_pendulum_chunks_and_pairs_come_from_the_trajectories():
    task = replace(PENDULUM, n_steps=20)
    ts, zs = task.trajectories(5, seed=7, dtype=np.float64)
    tc, Z = task.chunks(5, seed=7, dtype=np.float64)
    assert Z.shape == (5, 5, 12) and np.allclose(tc, [0, 0.2, 0.4, 0.6, 0.8])
    for i in range(5):  # each chunk is one of the four consecutive 5-point chunks of its trajectory
        hits = [s for s in range(0, 20, 5) if np.array_equal(zs[i, s:s + 5], Z[i])]
        assert len(hits) == 1
    X, Y = task.make(5, seed=7, dtype=np.float64)
    assert np.array_equal(X, Z[:, 0]) and np.array_equal(Y, Z[:, 1])
    # Y is X carried dt forward by the dynamics (to the task's tolerance)
    fwd = replace(task, **TIGHT).integrate(X, ts=[0.0, 0.2])[:, 1].numpy()
    assert np.allclose(fwd, Y, atol=1e-4)
