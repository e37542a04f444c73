"""The RPP chapter's three symmetry regimes as data (lab.rpp): the exact targets are symmetric to rounding, the
modified inertia and the windy pendulum are not (the wind's error linear in eps), the misspecified groups are not
symmetries of the unchanged data; checked against hand computations with plain matrices (g M g^T, I_4 (x) g), not
the lab's reps alone.  The table is complete, bad names are LabErrors, seeds repeat.  No model is involved."""
import itertools
import math

import numpy as np
import pytest
import torch

from lab.data.pendulum import WINDY, angular_momentum_z
from lab.data.regression import INERTIA, PENDULUM
from lab.data.regression import inertia_inputs
from lab.errors import LabError
from lab.groups import parse_group
from lab.reps import parse_rep
from lab.rpp import (EPS, MODIFIED_INERTIA, MODIFIED_INERTIA_ORIGINAL, REGIMES, SYMMETRIES, TASKS, W0,
                     RegimeError, modified_inertia_target, regime, target_symmetry_error, target_symmetry_errors,
                     windy_pendulum)

N = 128  # samples of each symmetry error
Z = np.array([0.0, 0.0, 1.0])


def hand_inertia(x):
    """sum_i m_i (|r_i|^2 Id - r_i r_i^T) of one sample (20,), by an explicit loop."""
    m, r = x[:5], x[5:].reshape(5, 3)
    out = np.zeros((3, 3))
    for mi, ri in zip(m, r):
        out += mi * (ri @ ri * np.eye(3) - np.outer(ri, ri))
    return out


def hand_modified(x, variant):
    I = hand_inertia(x)
    if variant == "thesis":  # I + 0.3 I^2 z z^T I, literally
        return I + 0.3 * I @ I @ np.outer(Z, Z) @ I
    return I + 0.3 * np.outer(I @ Z, Z)  # the authors' ModifiedInertia: inertia + 3e-1 * v g^T, v = I z


def turn_inputs(g, x):
    """g applied to the 5 positions of an inertia sample (masses unchanged)."""
    return np.concatenate([x[:5], (x[5:].reshape(5, 3) @ g.T).reshape(-1)])


# ------------------------------------------------------------------------------------------- the table
def test_regime_table_is_complete_and_as_the_thesis_and_authors_declare():
    assert TASKS == ("inertia", "pendulum") and SYMMETRIES == ("exact", "approximate", "misspecified")
    assert list(REGIMES) == list(itertools.product(TASKS, SYMMETRIES))
    expected = {("inertia", "exact"): (INERTIA, "O(3)"),
                ("inertia", "approximate"): (MODIFIED_INERTIA_ORIGINAL, "O(3)"),  # the authors' code, by default
                ("inertia", "misspecified"): (INERTIA, "SL(3)"), ("pendulum", "exact"): (PENDULUM, "O2eR3()"),
                ("pendulum", "misspecified"): (PENDULUM, "SO(3)")}
    for key, r in REGIMES.items():
        assert regime(*key) is r and (r.task, r.symmetry) == key and r.name == "-".join(key)
        if key in expected:
            assert (r.data, r.group) == expected[key], key
        G = r.model_group()
        assert G.d == 3
        rep_in, rep_out = parse_rep(r.rep_in, G), parse_rep(r.rep_out, G)
        assert rep_in.size == r.data.d_in
        # the inertia's models map to the target; the pendulum's are Hamiltonian networks (a scalar)
        assert rep_out.size == (9 if r.task == "inertia" else 1)
        assert r.source  # each says where it comes from
    windy = REGIMES["pendulum", "approximate"].data
    assert windy.wind == pytest.approx(WINDY) and windy.wind == pytest.approx(tuple(EPS * np.array(W0)))
    assert windy.group == "O2eR3()" and windy.name == "windy-pendulum"
    # misspecified changes the models' group only: the data are the exact regime's
    for task in TASKS:
        assert REGIMES[task, "misspecified"].data is REGIMES[task, "exact"].data


def test_unknown_names_and_misplaced_options_are_lab_errors():
    assert issubclass(RegimeError, LabError)
    bad = [lambda: regime("inertias", "exact"), lambda: regime("inertia", "approx"), lambda: regime(None, "exact"),
           lambda: regime("inertia", "approximate", variant="paper"),
           lambda: regime("inertia", "exact", variant="original"),
           lambda: regime("inertia", "approximate", eps=0.02), lambda: regime("pendulum", "exact", eps=0.02),
           lambda: windy_pendulum(float("nan")), lambda: windy_pendulum("0.01"), lambda: windy_pendulum(True),
           lambda: windy_pendulum(0.01, w=(1.0, 2.0)), lambda: modified_inertia_target(np.zeros((1, 20)), "paper"),
           lambda: target_symmetry_error("inertia"), lambda: target_symmetry_error(INERTIA, measure="max")]
    for make in bad:
        with pytest.raises(RegimeError) as info:
            make()
        assert "\n" not in str(info.value)
    with pytest.raises(LabError):
        target_symmetry_error(INERTIA, n=0)
    with pytest.raises(LabError):
        target_symmetry_error(INERTIA, n=2.5)


def test_the_printed_formula_is_a_named_variant_whose_scale_is_stated():
    """The thesis's printed formula stays reachable by name; its added term is about 20 times I (the authors': 0.17),
    as the family's option says."""
    from lab.rpp.family import RPPConfig
    from lab.rpp import DEFAULT_VARIANT, VARIANTS, added_term_scale, modified_inertia

    assert DEFAULT_VARIANT == VARIANTS[0] == "original" and modified_inertia() is MODIFIED_INERTIA_ORIGINAL
    assert regime("inertia", "approximate", variant="thesis").data is MODIFIED_INERTIA
    assert 15 < added_term_scale("thesis") < 30 and 0.1 < added_term_scale("original") < 0.25
    help_ = RPPConfig.option_named("variant").help
    assert "about 20 times" in help_ and "about 0.17 times" in help_


def test_the_same_seed_gives_the_same_data():
    for task in (MODIFIED_INERTIA, MODIFIED_INERTIA_ORIGINAL):
        X1, Y1 = task.make(16, seed=4, dtype=np.float64)
        X2, Y2 = task.make(16, seed=4, dtype=np.float64)
        X3, _ = task.make(16, seed=5, dtype=np.float64)
        assert np.array_equal(X1, X2) and np.array_equal(Y1, Y2) and not np.array_equal(X1, X3)
        assert np.array_equal(X1, INERTIA.make(16, seed=4, dtype=np.float64)[0])  # the inertia's inputs
    short = windy_pendulum(n_steps=10)
    a, b, c = short.make(3, seed=1), short.make(3, seed=1), short.make(3, seed=2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and not np.array_equal(a[0], c[0])
    r = REGIMES["pendulum", "misspecified"]
    assert np.array_equal(target_symmetry_errors(r, n=8, seed=3), target_symmetry_errors(r, n=8, seed=3))
    assert not np.array_equal(target_symmetry_errors(r, n=8, seed=3), target_symmetry_errors(r, n=8, seed=4))


# ------------------------------------------------------------------------------------------- exact
@pytest.mark.parametrize("task", TASKS)
def test_exact_targets_are_symmetric_to_rounding(task):
    r = REGIMES[task, "exact"]
    errors = target_symmetry_errors(r, n=N)
    assert errors.shape == (N,) and errors.max() < 1e-10
    # the data of the misspecified regime, under their own (exact) group: symmetric too
    assert target_symmetry_error(REGIMES[task, "misspecified"].data, n=N) < 1e-10


# ------------------------------------------------------------------------------------------- modified inertia
@pytest.mark.parametrize("variant", ["thesis", "original"])
def test_modified_inertia_targets_match_the_formulas_by_hand(variant):
    task = MODIFIED_INERTIA if variant == "thesis" else MODIFIED_INERTIA_ORIGINAL
    X, Y = task.make(5, seed=7, dtype=np.float64)
    for x, y in zip(X, Y):
        assert np.allclose(y.reshape(3, 3), hand_modified(x, variant), rtol=1e-12, atol=1e-12)
    if variant == "original":  # the authors' term scales I's third column by 1.3 and leaves the rest
        I = hand_inertia(X[0])
        M = Y[0].reshape(3, 3)
        assert np.allclose(M[:, :2], I[:, :2], rtol=1e-13) and np.allclose(M[:, 2], 1.3 * I[:, 2], rtol=1e-13)


@pytest.mark.parametrize("task", [MODIFIED_INERTIA, MODIFIED_INERTIA_ORIGINAL])
def test_modified_inertia_breaks_o3(task):
    r = regime("inertia", "approximate", variant="thesis" if task is MODIFIED_INERTIA else "original")
    assert r.data is task and r.group == "O(3)"
    assert target_symmetry_error(r, n=N) > 1e-2
    # ... but only through tilts of z: the elements mapping z to +-z (O(2) about z, the flip z -> -z) keep it
    assert target_symmetry_error(task, "O2eR3()", n=N) < 1e-10
    x = task.inputs(1, np.random.default_rng(0))
    flip = np.diag([1.0, 1.0, -1.0])
    assert np.allclose(task.target(turn_inputs(flip, x[0])[None])[0].reshape(3, 3),
                       flip @ task.target(x)[0].reshape(3, 3) @ flip.T, rtol=1e-12, atol=1e-12)


def test_authors_modified_inertia_symmetry_error_by_hand_on_one_sample():
    """One sample, one element of O(3), drawn as target_symmetry_errors draws them (inputs, then the group), and
    the error |f(g x) - g f(x) g^T| / |f(x)| with plain matrices: the extra term's
    0.3 |(g I g^T z) z^T - g I z z^T g^T| / |I + 0.3 (I z) z^T|."""
    rng = np.random.default_rng(11)
    x = inertia_inputs(1, rng)[0]
    g = parse_group("O(3)").sample(1, rng=rng)[0]
    I, M = hand_inertia(x), hand_modified(x, "original")
    moved = hand_modified(turn_inputs(g, x), "original")
    by_hand = np.linalg.norm(moved - g @ M @ g.T) / np.linalg.norm(M)
    extra = 0.3 * np.linalg.norm(np.outer(g @ I @ g.T @ Z, Z) - g @ np.outer(I @ Z, Z) @ g.T) / np.linalg.norm(M)
    assert by_hand == pytest.approx(extra, rel=1e-10)
    assert by_hand > 1e-2  # g tilts z
    measured = target_symmetry_errors(MODIFIED_INERTIA_ORIGINAL, "O(3)", n=1, seed=11)
    assert measured[0] == pytest.approx(by_hand, rel=1e-10)


# ------------------------------------------------------------------------------------------- the windy pendulum
def test_windy_field_is_the_plain_field_plus_a_constant_force():
    """dz/dt = J grad(H0 + eps H1), H1 = -w.(q1 + q2): the momenta gain eps w each, the positions nothing."""
    z = torch.as_tensor(PENDULUM.initial_conditions(6, np.random.default_rng(2)))
    for eps in (0.01, 0.05):
        diff = windy_pendulum(eps).vector_field(z) - PENDULUM.vector_field(z)
        force = eps * np.array(W0)
        assert np.allclose(diff.numpy(), np.concatenate([np.zeros(6), force, force]), atol=1e-13)


def test_windy_pendulum_breaks_the_symmetry_linearly_in_eps():
    e1 = target_symmetry_error(regime("pendulum", "approximate", eps=0.01), n=N)
    e2 = target_symmetry_error(regime("pendulum", "approximate", eps=0.02), n=N)
    assert e1 > 1e-2 and e1 == pytest.approx(target_symmetry_error(REGIMES["pendulum", "approximate"], n=N))
    assert e2 / e1 == pytest.approx(2.0, rel=0.05)
    assert target_symmetry_error(regime("pendulum", "approximate", eps=0.0), n=N) < 1e-12
    # the wind breaks the rotations about z alone, too
    assert target_symmetry_error(windy_pendulum(), "SO2eR3()", n=N) > 1e-2


def test_windy_pendulum_conserves_energy_but_not_angular_momentum():
    """Along torchdiffeq's dopri5 trajectories at rtol = atol = 1e-8 over 10 s (as test_emlp_tasks): H within 1e-5;
    every trajectory's L_z drifts by more than 1e-3 (the wind's torque), while without wind it stays within 1e-6."""
    z0 = PENDULUM.initial_conditions(4, np.random.default_rng(0))
    windy = windy_pendulum(n_steps=50, rtol=1e-8, atol=1e-8)
    ws = windy.integrate(z0)
    assert ws.shape == (4, 50, 12) and (ws - ws[:, :1]).abs().max() > 0.5  # it moved
    H, L = windy.H(ws), angular_momentum_z(ws)
    assert (H - H[:, :1]).abs().max() < 1e-5
    assert (L - L[:, :1]).abs().max(dim=1).values.min() > 1e-3
    calm = windy_pendulum(0.0, n_steps=50, rtol=1e-8, atol=1e-8).integrate(z0)
    Lc = angular_momentum_z(calm)
    assert (Lc - Lc[:, :1]).abs().max() < 1e-6


# ------------------------------------------------------------------------------------------- misspecified
def test_misspecified_groups_are_not_symmetries_of_the_data():
    inertia, pendulum = REGIMES["inertia", "misspecified"], REGIMES["pendulum", "misspecified"]
    assert target_symmetry_error(inertia, n=N) > 1e-2  # SL(3): I(g x) != g I(x) g^T
    assert target_symmetry_error(pendulum, n=N) > 1e-2  # SO(3): tilts gravity
    # eq. 3.3's measure stays below 1
    assert 1e-2 < target_symmetry_error(inertia, n=N, measure="thesis") <= 1.0
    # SO(3) acts on the pendulum's 4*V by the same rotation on each of q1, q2, p1, p2, and it tilts z
    G = pendulum.model_group()
    g = G.sample(rng=5)
    assert np.allclose(parse_rep("4*V", G).rho(g), np.kron(np.eye(4), g))
    assert not np.allclose(g @ Z, Z, atol=1e-3) and math.isclose(np.linalg.det(g), 1.0)
    # the SL(3) elements drawn are not orthogonal (else the check would be O(3)'s)
    gs = inertia.model_group().sample(4, rng=6)
    assert np.allclose(np.linalg.det(gs), 1.0) and not np.allclose(gs @ gs.transpose(0, 2, 1), np.eye(3))
