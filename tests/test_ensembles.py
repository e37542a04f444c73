"""The ensembles science (issue 30): the lifted action is right, the theorem's assumptions are checked as stated, the
group-averaged ensemble is equivariant to rounding at initialisation and under exact orbit averaging (and not under
one draw of sampled augmentation: the check has power), batching changes nothing, and in setting (i) the ensemble's
error falls with M."""
from __future__ import annotations

import pytest
import torch

from lab.ensembles import (ORDER, SETTINGS, EnsembleError, TrainSettings, check_assumptions, ensemble_logits,
                           ensemble_output, fit_slope, group_average_members, init_members, invariance_metrics,
                           loop_step, orbit_logits, rotate_images, rotate_parameters, sgd_step, size_curve, train)
from lab.ensembles.network import masks
from lab.ensembles.train import Streams, _batch


def _images(n=6, seed=0):
    return torch.rand((n, 1, 8, 8), generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_the_lifted_action_moves_the_network_with_its_input(setting):
    """phi_{rho_L(g) A}(rho_X(g) x) = phi_A(x) for every rotation, every support (L invariant or not)."""
    p = init_members(2, 4, setting, [3, 4], dtype=torch.float64)
    x = _images()
    base = ensemble_logits(p, x)
    for k in range(1, ORDER):
        moved = ensemble_logits(rotate_parameters(p, k), rotate_images(x, k))
        assert torch.allclose(moved, base, rtol=0, atol=1e-12)
        assert (ensemble_logits(p, rotate_images(x, k)) - base).abs().max() > 1e-3  # one member is not invariant


def test_the_assumptions_are_checked_as_the_theorem_states_them():
    got = {s: check_assumptions(s) for s in SETTINGS}
    assert got["invariant"] == {"space_invariant": True, "init_invariant": True, "theorem_applies": True}
    assert got["noninvariant-init"]["space_invariant"] and not got["noninvariant-init"]["init_invariant"]
    assert not got["noninvariant-space"]["space_invariant"] and got["noninvariant-space"]["init_invariant"]
    with pytest.raises(EnsembleError, match="unknown setting"):
        check_assumptions("nope")


def _orbit_error(p, x):
    scores = ensemble_output(orbit_logits(p, x))
    return invariance_metrics(scores)["equivariance_error"]


def test_the_group_averaged_ensemble_is_equivariant_at_init_and_under_exact_orbit_averaging():
    d = _images(40, seed=1)
    y = torch.arange(40) % 10
    x = _images(8, seed=2)
    one = init_members(1, 4, "invariant", [7], dtype=torch.float64)
    ga = group_average_members(one)
    assert _orbit_error(ga, x) < 1e-12
    assert _orbit_error(one, x) > 1e-2  # one member alone is not
    seeds = [7] * ORDER  # every member of the orbit sees the same batches
    trained = train({k: v.clone() for k, v in ga.items()}, d, y, TrainSettings(steps=5, augment="orbit", lr=0.5),
                    seeds, "invariant")
    assert _orbit_error(trained, x) < 1e-10
    # one draw of sampled augmentation is equivariant only in expectation: the same start departs from it
    sampled = train({k: v.clone() for k, v in ga.items()}, d, y, TrainSettings(steps=5, augment="sampled", lr=0.5),
                    seeds, "invariant")
    assert _orbit_error(sampled, x) > 1e-4


def test_batched_members_train_and_predict_as_one_by_one():
    d = _images(30, seed=3)
    y = torch.arange(30) % 10
    p = init_members(3, 4, "noninvariant-space", [0, 1, 2], dtype=torch.float64)
    q = {k: v.clone() for k, v in p.items()}
    orbit_x = torch.stack([rotate_images(d, k) for k in range(ORDER)])
    s1, s2 = Streams([0, 1, 2], 30, 8), Streams([0, 1, 2], 30, 8)
    mask = masks("noninvariant-space", torch.float64)
    for _ in range(3):
        xb, yb = _batch(orbit_x, y, *s1.draw(), "sampled")
        xb2, yb2 = _batch(orbit_x, y, *s2.draw(), "sampled")
        la, lb = sgd_step(p, xb, yb, 0.1, mask), loop_step(q, xb2, yb2, 0.1, mask)
        assert torch.allclose(la, lb, rtol=0, atol=1e-12)
    for k in p:
        assert torch.allclose(p[k], q[k], rtol=0, atol=1e-12)
    # the batched ensemble's predictions are its members' one by one; the filters stay in their support
    x = _images(5, seed=4)
    batched = ensemble_logits(p, x)
    for m in range(3):
        from lab.ensembles import member_logits

        assert torch.allclose(batched[m], member_logits({k: v[m] for k, v in p.items()}, x), rtol=0, atol=1e-13)
    assert torch.all(p["conv0"][..., 2, :] == 0) and torch.all(p["conv0"][..., :, 2] == 0)


def test_in_setting_i_the_error_falls_with_the_ensemble_size():
    from lab.data.digits import digits_data

    data = digits_data(0)
    pool = 32
    p = init_members(pool, 4, "invariant", range(pool))
    train(p, data.x_train, data.y_train, TrainSettings(steps=60), range(pool), "invariant")
    rows = size_curve(orbit_logits(p, data.x_test[:100]), [1, 2, 4, 8], resamples=12)
    errs = [r["equivariance_error"] for r in rows]
    assert errs[-1] < 0.6 * errs[0]
    assert all(b < a for a, b in zip(errs, errs[1:]))
    assert rows[-1]["orbit_same_prediction"] > rows[0]["orbit_same_prediction"]
    assert -0.75 < fit_slope([1, 2, 4, 8], errs) < -0.3


def test_bad_sizes_and_settings_are_refused():
    with pytest.raises(EnsembleError, match="sizes"):
        size_curve(torch.zeros(4, ORDER, 2, 10), [1, 8])
    with pytest.raises(EnsembleError, match="augmentation"):
        TrainSettings(augment="flip")
    assert fit_slope([1], [1.0]) != fit_slope([1], [1.0])  # NaN with one point


@pytest.mark.parametrize("task", ["perm", "custom"])
def test_the_vector_tasks_lifted_action_and_assumptions(task):
    """On the dynamics models: phi_{rho_L(g) A}(rho_X(g) x) = phi_A(x) for sampled g (every setting's support), and
    the assumptions checked with the engine's signed permutations."""
    import numpy as np

    from lab.reps.action import Elements
    from lab.ensembles.vectors import (build_task, check_assumptions_vectors, init_vector_members, lift_parameters,
                                       orbit_elements, orbit_scores)

    exp, model = build_task(task, 0)
    els = orbit_elements(exp.group, 0)
    x = exp.X[:6]
    for setting in SETTINGS:
        p = init_vector_members(model, 3, setting, [0, 1, 2], dtype=torch.float64)
        base = orbit_scores(model, p, x, els, exp.in_rep)
        assert (base[:, 1:] - base[:, :1]).abs().max() > 1e-3  # one member is not invariant
        for e in range(1, len(els)):
            one = Elements(exp.group, np.repeat(els.perms[e:e + 1], 3, 0), np.repeat(els.signs[e:e + 1], 3, 0))
            moved = orbit_scores(model, lift_parameters(model, p, one), x, els, exp.in_rep)
            assert torch.allclose(moved[:, e], base[:, 0], rtol=0, atol=1e-12)
    got = {s: check_assumptions_vectors(model, s) for s in SETTINGS}
    assert got == {s: check_assumptions(s) for s in SETTINGS}  # the same verdicts as the digits' settings


def test_training_picks_the_batched_or_the_looped_step_by_width_and_both_agree(monkeypatch):
    """``train`` batches thin members on a CPU and loops over wide ones (``step_kind``), and the two ways give the
    same members (float64, to rounding)."""
    import importlib

    tr = importlib.import_module("lab.ensembles.train")  # the module (lab.ensembles.train is also its function)

    d = _images(20, seed=4)
    y = torch.arange(20) % 10
    taken = []
    for name in ("sgd_step", "loop_step"):
        real = getattr(tr, name)
        monkeypatch.setattr(tr, name, lambda *a, real=real, name=name: taken.append(name) or real(*a))
    for channels in (tr.CPU_BATCHED_MAX_CHANNELS, tr.CPU_BATCHED_MAX_CHANNELS + 1):
        p = init_members(2, channels, "invariant", [0, 1], dtype=torch.float64)
        taken.clear()
        got = tr.train({k: v.clone() for k, v in p.items()}, d, y, tr.TrainSettings(steps=2), [0, 1], "invariant")
        assert set(taken) == {"sgd_step" if channels <= tr.CPU_BATCHED_MAX_CHANNELS else "loop_step"}
        other = tr.train({k: v.clone() for k, v in p.items()}, d, y, tr.TrainSettings(steps=2), [0, 1], "invariant",
                         batched=channels > tr.CPU_BATCHED_MAX_CHANNELS)
        for k in got:
            assert torch.allclose(got[k], other[k], rtol=0, atol=1e-12) and not torch.equal(got[k], p[k])
