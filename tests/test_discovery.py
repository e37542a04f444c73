"""Learning a continuous symmetry from data (issue 33, the science so far): on the rotated plane the learned
generator is the hidden rotation S^-1 J S (small principal angle), by the gradient method and by the exact spectral
one; on a function with no symmetry none is reported; the learned algebra's structure constants; and the engine
taking a learned group with an explicit tolerance, its basis the connected group's (SO(2)'s, not O(2)'s)."""
from __future__ import annotations

import numpy as np
import pytest

from lab.discovery.algebra import LearnedGroup, learned_group, principal_angles, structure_constants, tolerant_basis
from lab.discovery.learn import (GAP, TAU, FitSettings, choose_count, fit, learn_gradient, learn_spectral,
                                 next_outside, refine_closure, split, symmetry_form, truth_vectors)
from lab.discovery.tasks import get_task

FAST = FitSettings(hidden=64, layers=3, steps=800)


@pytest.fixture(scope="module")
def plane():
    t = get_task("rotated-plane")
    # seed 0 at 2 000 points (the family's default is 4 000: over eight seeds two kept nothing at 2 000, their
    # symmetry's loss 0.0057 and 0.030 of chance; seed 0's is 0.0004)
    X, Y = t.make(2000, 0)
    model, _, _ = fit(X, Y, FAST)
    return t, symmetry_form(model, X, output_action=False)


def test_the_rotated_plane_symmetry_is_found_in_its_hidden_basis(plane):
    t, (C, D) = plane
    truth = truth_vectors(t.truth(), False)
    for learned in (learn_spectral(C, D, 3), learn_gradient(C, D, 3, steps=600, restarts=2)):
        assert learned.kept == 1, (learned.method, learned.losses)
        angle = principal_angles(learned.vectors[:1], truth)
        assert np.degrees(angle.max()) < 5, (learned.method, np.degrees(angle))
        assert learned.losses[1] > 10 * learned.losses[0]  # the next direction is far from a symmetry
    # the generator is not the plain rotation J: the basis is sheared
    J = np.array([[0.0, -1.0], [1.0, 0.0]]).ravel()
    assert np.degrees(principal_angles(learned.vectors[:1], J[None]).max()) > 10


def test_no_symmetry_is_reported_as_none():
    t = get_task("none")
    X, Y = t.make(1000, 0)
    model, _, _ = fit(X, Y, FAST)
    C, D = symmetry_form(model, X, output_action=False)
    for learned in (learn_spectral(C, D, 3), learn_gradient(C, D, 3, steps=600, restarts=2)):
        assert learned.kept == 0 and learned.losses.min() >= TAU, learned.losses


#: the O(5) task's fast settings (the claim's quick profile): 3 000 points, a 96-wide MLP fitted by 1 500 L-BFGS
#: iterations, twelve candidates
O5_FIT = FitSettings(hidden=96, layers=3, steps=1500)


@pytest.fixture(scope="module")
def o5():
    t = get_task("o5")
    X, Y = t.make(3000, 0)
    model, _, _ = fit(X, Y, O5_FIT)
    return t, symmetry_form(model, X[:2000], output_action=False)


def test_o5_so5_is_recovered_at_the_fast_settings_with_the_connected_groups_basis(o5):
    from lab import SO, parse_rep

    t, (C, D) = o5
    truth = truth_vectors(t.truth(), False)
    assert len(truth) == 10
    for learned in (learn_spectral(C, D, 12), learn_gradient(C, D, 12, restarts=2)):
        # the count is cut at the gap (the partial symmetries, rotating x1 or x2 alone, sit below the threshold too)
        assert learned.kept == 10 and learned.gap_ratio >= GAP, (learned.method, learned.losses)
        assert np.all(learned.losses[10:] < TAU)  # a threshold alone would have kept twelve
        angle = np.degrees(principal_angles(learned.vectors[:10], truth).max())
        assert angle < 10, (learned.method, angle)
    kept = learned.vectors[:10]
    A = [split(v, 10, 1, False)[0] for v in kept]
    _, vin, _ = learned_group(A, None, tol=0.2)
    tb = tolerant_basis(vin >> vin, tol=0.2)
    connected = parse_rep("2*V >> 2*V", SO(5)).solve().rank
    assert connected == 4 and tb.rank == connected and tb.gap["ratio"] > 3
    # the lab's closure refinement: the span moves onto a Lie algebra, closer to so(5), the gap at the cut wider
    refined = refine_closure(C, D, kept, 10, 1, False, weight=0.1)
    before, after = structure_constants(A)[1], structure_constants([split(v, 10, 1, False)[0] for v in refined])[1]
    assert after < before / 5, (before, after)
    new_angle = np.degrees(principal_angles(refined, truth).max())
    assert new_angle < angle / 2, (angle, new_angle)
    _, rin, _ = learned_group([split(v, 10, 1, False)[0] for v in refined], None, tol=0.2)
    closed = tolerant_basis(rin >> rin, tol=0.2)
    assert closed.rank == connected and closed.gap["ratio"] > tb.gap["ratio"]


def test_choose_count_cuts_at_the_gap_below_the_threshold():
    # ten at the noise level, two broken ones below the threshold, the next above: cut at ten
    losses = [1e-4 * (1 + 0.1 * i) for i in range(10)] + [2e-3, 2.2e-3]
    assert choose_count(losses, 0.02, tau=5e-3)[0] == 10
    # no gap of GAP anywhere: every candidate under the threshold, and the ratio says it is not sharp
    kept, ratio = choose_count([1e-3, 1.5e-3, 2e-3], 2.5e-3, tau=5e-3)
    assert kept == 3 and ratio < GAP
    assert choose_count([0.01, 0.2], 0.5, tau=5e-3) == (0, None)  # nothing below: none
    assert choose_count([1e-4, 0.05, 0.3], None, tau=5e-3)[0] == 1  # the gap above the threshold still cuts


def test_next_outside_is_the_next_generalized_eigenvalue():
    import scipy.linalg

    rng = np.random.default_rng(0)
    m = 25
    G, H = rng.standard_normal((2, m, m))
    C, D = G @ G.T + 1e-3 * np.eye(m), H @ H.T + m * np.eye(m)  # a symmetric form and a positive-definite size
    evals, evecs = scipy.linalg.eigh(C, D)
    level = float(np.mean(evals))
    # the span of the first k generalized eigenvectors: the best direction outside it is the (k+1)-th
    # (D-orthogonal complement vs Euclidean: compare with the brute force over the Euclidean complement)
    V = evecs[:, :3].T
    got = next_outside(C, D, V, level)
    Q = scipy.linalg.null_space(V)
    brute = scipy.linalg.eigh(Q.T @ C @ Q, Q.T @ D @ Q, eigvals_only=True)[0] / level
    assert got == pytest.approx(brute, rel=1e-8) and got >= evals[0] / level


def test_structure_constants_of_so3_and_of_a_set_that_does_not_close():
    L = [np.zeros((3, 3)) for _ in range(3)]
    for (i, j, k) in ((1, 2, 0), (2, 0, 1), (0, 1, 2)):
        L[k][i, j], L[k][j, i] = -1.0, 1.0
    c, residual = structure_constants(L)
    assert residual < 1e-12
    assert np.allclose(c[0, 1], [0, 0, 1]) or np.allclose(c[0, 1], [0, 0, -1])
    assert np.allclose(c, -c.transpose(1, 0, 2))
    E12, E21 = np.zeros((3, 3)), np.zeros((3, 3))
    E12[0, 1], E21[1, 0] = 1.0, 1.0
    assert structure_constants([E12, E21])[1] == pytest.approx(1.0)  # [E12, E21] = E11 - E22: outside their span
    assert structure_constants([np.diag([1.0, 0, 0]), E12])[1] < 1e-12  # [diag(1,0,0), E12] = E12: closes


def test_a_learned_group_is_solved_with_its_tolerance_and_gives_the_connected_groups_basis(plane):
    from lab import O, SO, parse_rep

    t, (C, D) = plane
    learned = learn_spectral(C, D, 1)
    A, _ = split(learned.vectors[0], 2, 1, False)
    G, vin, vout = learned_group([A], None, tol=1e-2)
    assert isinstance(G, LearnedGroup) and vout.size == 1
    tb = tolerant_basis(vin >> vin, tol=1e-2)
    so2, o2 = parse_rep("V >> V", SO(2)).solve().rank, parse_rep("V >> V", O(2)).solve().rank
    assert (so2, o2) == (2, 1) and tb.rank == so2  # an algebra fixes the identity component only
    assert tb.gap["ratio"] > 10  # the cut falls in a wide gap
    # the engine's own solver takes the group with its stated tolerance (dense)
    assert (vin >> vin).solve(cache=False).rank == so2
    # exact generators (the truth itself): the same rank, also in a wide gap (any one generator A commutes with I
    # and with A, so both kernels are exactly two-dimensional: the two gaps are rounding over rounding, not ordered)
    _, exact_v, _ = learned_group([t.truth()[0][0]], None, tol=1e-6)
    exact = tolerant_basis(exact_v >> exact_v, tol=1e-6)
    assert exact.rank == 2 and exact.gap["ratio"] > 10


def test_the_engines_truth_for_o5_has_so5s_basis():
    t = get_task("o5")
    A = [a for a, _ in t.truth()]
    G, vin, _ = learned_group(A, None, tol=1e-8)
    assert len(A) == 10 and tolerant_basis(vin >> vin, tol=1e-8).rank == 4  # Hom_SO(5)(2V, 2V): 2 x 2 blocks


def _module(fn):
    """A torch function of x (one point or a batch) as a module ``symmetry_form`` can take (a parameter only so that
    it finds the device)."""
    import torch

    class Function(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.p = torch.nn.Parameter(torch.zeros(1, dtype=torch.float64))

        def forward(self, X):
            return fn(X[None])[0] if X.ndim == 1 else fn(X)

    return Function()


def _along(target, X, A, e=1e-6):
    """The derivative of ``target`` along the flow x -> x + t A x at each row of X (central differences)."""
    return (target(X + e * X @ A.T) - target(X - e * X @ A.T)) / (2 * e)


def _true_inertia(X):
    """The inertia function itself, in torch (5 masses, then 5 positions) -> row-major I."""
    import torch

    m, r = X[:, :5], X[:, 5:].reshape(-1, 5, 3)
    eye = torch.eye(3, dtype=X.dtype)
    r2 = (r ** 2).sum(-1)
    return (m[..., None, None] * (r2[..., None, None] * eye - r[..., :, None] * r[..., None, :])).sum(1).reshape(-1, 9)


def test_inertias_truth_is_the_whole_symmetry_algebra_of_its_function():
    """The inertia task's truth (gl(3) on the positions, five mass-position trades) against independent facts: each
    generator's flow leaves I equivariant (central differences of the target itself), the 14 close under the bracket
    with the engine's so(3) inside their span, and 14 is the dimension of the true function's exact symmetries --
    the null space of its symmetry form, less the generators acting only outside the outputs' (symmetric) span."""
    from lab.discovery.learn import output_range, quotient
    from lab.data.regression import inertia_target

    t = get_task("inertia")
    pairs = t.truth()
    X, Y = t.make(400, 3)
    for A, B in pairs:
        assert np.abs(_along(inertia_target, X, A) - Y @ B.T).max() < 1e-6 * np.abs(Y).max()
    assert structure_constants([np.block([[A, np.zeros((20, 9))], [np.zeros((9, 20)), B]])
                                for A, B in pairs])[1] < 1e-10
    P = output_range(Y)
    assert round(np.trace(P)) == 6  # symmetric 3 x 3 matrices
    T = quotient(truth_vectors(pairs, True), 20, 9, P)
    assert np.linalg.matrix_rank(T) == 14
    so3 = t.posed_truth()  # the thesis's posing of the task (SO(3)), through the engine
    assert t.posed == "SO(3)" and len(so3) == 3
    assert principal_angles(quotient(truth_vectors(so3, True), 20, 9, P), T).max() < 1e-8
    C, D = symmetry_form(_module(_true_inertia), X, output_action=True)
    w, V = np.linalg.eigh(C)
    null = V[:, w < 1e-10 * w.max()]  # exact symmetries of the function (and of its trivial output directions)
    assert np.linalg.matrix_rank(quotient(null.T, 20, 9, P), tol=1e-6) == 14
    # the search space: orthonormal coordinates of the quotient's representatives (A, B P)
    from lab.discovery.learn import quotient_basis

    Q = quotient_basis(20, 9, P)
    v = np.random.default_rng(0).standard_normal((3, 481))
    assert Q.shape == (481, 400 + 54) and np.allclose(Q.T @ Q, np.eye(454))
    assert np.allclose(v @ Q @ Q.T, quotient(v, 20, 9, P))
    # a generator acting only outside the outputs' span is invisible to the quotient
    trivial = np.zeros((1, 481))
    trivial[0, 400:] = np.outer(np.ones(9), np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 0.0]]).ravel()).ravel()
    assert np.abs(quotient(trivial, 20, 9, P)).max() < 1e-12


def test_lorentzs_truth_is_so13_and_the_trade_between_the_lepton_pairs():
    """so(1,3) (the engine's) and one dilation: the amplitude is unchanged along each (central differences of the
    target), and 7 is the dimension of the true function's exact symmetries (its form's null space, the function
    written in torch from the thesis's formula and checked against the target)."""
    import torch

    from lab.data.regression import scattering_target

    t = get_task("lorentz")
    pairs = t.truth()
    X, Y = t.make(600, 2)
    for A, _ in pairs:
        assert np.abs(_along(scattering_target, X, A)).max() < 1e-7 * np.abs(Y).max()
    T = truth_vectors(pairs, False)
    assert np.linalg.matrix_rank(T) == 7
    assert t.posed == "SO+(1,3)" and principal_angles(truth_vectors(t.posed_truth(), False), T).max() < 1e-8

    eta = torch.diag(torch.tensor([1.0, -1.0, -1.0, -1.0], dtype=torch.float64))

    def amplitude(X):
        P = X.reshape(-1, 4, 4)
        q, p, qt, pt = P[:, 0], P[:, 1], P[:, 2], P[:, 3]

        def dot(a, b):
            return a[:, 0] * b[:, 0] - (a[:, 1:] * b[:, 1:]).sum(-1)

        def tensor(a, b):
            o = a[:, :, None] * b[:, None, :]
            return o + o.transpose(1, 2) - (dot(a, b) - dot(a, a))[:, None, None] * eta

        return 4 * torch.einsum("nab,ac,bd,ncd->n", tensor(p, pt), eta, eta, tensor(q, qt))[:, None]

    f = _module(amplitude)
    with torch.no_grad():
        assert np.allclose(f(torch.as_tensor(X)).numpy(), Y, rtol=1e-10, atol=1e-12 * np.abs(Y).max())
    C, _ = symmetry_form(f, X, output_action=False)
    w, V = np.linalg.eigh(C)
    null = V[:, w < 1e-10 * w.max()].T
    assert len(null) == 7 and principal_angles(null, T).max() < 1e-6


def test_the_family_lists_agree_with_the_science():
    from lab.discovery.learn import METHODS as M
    from lab.discovery.tasks import DISCOVERY, TASKS as T
    from lab.discovery.family import METHODS, SIZES, TASKS

    from lab.discovery.algebra import TOL
    from lab.discovery.learn import OPTIMIZERS as OP
    from lab.discovery.family import OPTIMIZERS, DiscoveryConfig

    assert TASKS == T and METHODS == M and OPTIMIZERS == OP
    assert DiscoveryConfig.option_named("tol").default == TOL
    assert DiscoveryConfig.option_named("threshold").default == TAU
    assert SIZES == {n: (t.d_in, t.d_out) for n, t in DISCOVERY.items()}


def _main(capsys, *args):
    from lab.cli import main

    try:
        code = main(["discover-lie", *args])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def test_discover_lie_json_contract_and_none(capsys, tmp_path, monkeypatch):
    import json

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    # seed 0 keeps the plane's generator at 2 000 points (the default 4 000 is for every seed); a short loop
    code, out, err = _main(capsys, "--task", "rotated-plane", "--json", "--samples", "2000", "--loop-epochs", "20")
    assert code == 0, err
    s = json.loads(out)
    assert {"generators", "principal_angles", "structure_constants", "basis_rank", "singular_gap", "test_mse"} <= set(s)
    assert len(s["generators"]) == 1 and np.degrees(max(s["principal_angles"])) < 5
    assert s["basis_rank"] == s["true_basis_rank"] == 2 and set(s["test_mse"]) == {"mlp", "emlp_true", "emlp_learned"}
    assert s["posed_group"] is None and s["posed_group_angles"] == []  # the plane is posed with its whole symmetry
    assert "identity component" in s["basis_group"] and "SO(2)" in s["basis_group"]  # the report says whose basis
    code, out, err = _main(capsys, "--task", "none", "--json", "--method", "spectral", "--samples", "1000")
    s = json.loads(out)
    assert s["generators"] == [] and s["found"] == 0 and "threshold" in s["none_reason"] and s["basis_group"] is None


@pytest.mark.parametrize("args,words", [(("--generators", "9"), "more than the 4 directions"),
                                        (("--task", "o6"), "invalid choice"), (("--tol", "0"), "tol must be above")])
def test_bad_input_is_one_line(capsys, args, words):
    code, out, err = _main(capsys, *args, "--no-save")
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_a_learned_algebra_round_trips_through_a_saved_run_and_the_rep_language(tmp_path):
    from lab import parse_rep
    from lab.discovery.family import FAMILY, DiscoveryConfig, learned_rep, load
    from lab.reps.registry import unregister_rep

    result = FAMILY.run(DiscoveryConfig(task="rotated-plane", samples=2000, loop_epochs=0))
    path = FAMILY.save(result, tmp_path)
    meta, A, B = load(path)
    assert np.allclose(A[0], result.generators[0][0]) and meta["summary"]["found"] == 1
    # the meter (forward-mode JVPs) measures the fitted model along the learned generator as the symmetry form
    # (reverse-mode Jacobians) does
    s = meta["summary"]
    assert s["test_mse"]["emlp_learned"] is None and "skipped" in s["test_mse"]["why"]  # --loop-epochs 0
    assert len(s["meter_lee"]) == 1 and s["meter_lee"][0] == pytest.approx(s["meter_lee_form"][0], rel=1e-8)
    rep = learned_rep(path, name="PlaneV")
    try:
        maps = parse_rep("PlaneV >> PlaneV", rep.group)
        assert maps.solve(cache=False).rank == 2  # through the engine's own solver, at the run's tolerance
    finally:
        unregister_rep("PlaneV")


def test_the_loop_trains_mlp_and_emlp_over_the_true_and_the_learned_group():
    from lab.discovery.loop import compare

    t = get_task("rotated-plane")
    X, Y = t.make(1000, 0)
    Xt, Yt = t.make(500, 1)
    A = t.truth()[0][0]
    nearby = A + 0.01 * np.random.default_rng(0).standard_normal(A.shape)  # a learned generator, 1 % off
    out = compare(X, Y, Xt, Yt, [(nearby, np.zeros((1, 1)))], t.truth(), False, 1e-2, epochs=60)
    assert out["why"] is None and all(0 < out[k] < 1 for k in ("mlp", "emlp_true", "emlp_learned"))
    # which EMLP scores lower is not asserted: at this budget one seed's errors vary 2-5x between seeds (issue 48,
    # measured on the default run), so their order is noise; the loop's seed spread says so (test_discovery_loop)
