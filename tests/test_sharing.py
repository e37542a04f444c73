"""Sharing discovery, method 1 (Yeh et al.): partition distance, closed forms, hypergradient, recovery."""
from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
import torch

from lab.sharing.bilevel import learn_sharing, learn_sharing_batch, objective, rank_term
from lab.sharing.partition import (canonical, is_refinement, partition_distance, random_partition, selection_matrix,
                                   snapped_matrix, stirling2, uniform_partition)
from lab.sharing.tasks import GaussianTask, conv_task, group_task, parse_number_words, sum_task
from lab.errors import LabError


def brute_force_distance(a, b):
    """Minimum over every injective matching of a's blocks to b's blocks (padded with empty blocks)."""
    a, b = canonical(a), canonical(b)
    na, nb = a.max() + 1, b.max() + 1
    n = max(na, nb)
    best = 0
    for perm in itertools.permutations(range(n)):
        overlap = sum(int(np.sum((a == i) & (b == perm[i]))) for i in range(na))
        best = max(best, overlap)
    return a.size - best


def test_partition_distance_against_brute_force(rng):
    for _ in range(200):
        K = int(rng.integers(1, 8))
        a = rng.integers(0, int(rng.integers(1, K + 1)), K)
        b = rng.integers(0, int(rng.integers(1, K + 1)), K)
        assert partition_distance(a, b) == brute_force_distance(a, b)


def test_partition_distance_known_cases():
    a = np.array([0, 0, 1, 1, 2])
    assert partition_distance(a, a) == 0
    assert partition_distance(a, np.array([5, 5, 3, 3, 9])) == 0  # relabelled blocks
    assert partition_distance(a, np.array([0, 0, 1, 1, 1])) == 1
    assert partition_distance(np.zeros(6), np.arange(6)) == 5  # one block vs singletons: K - 1
    p = random_partition(10, 4, 0)
    assert len(set(p)) == 4


def test_gaussian_closed_form_is_the_argmin():
    task = GaussianTask(K=5, blocks=3, seed=1)
    A = torch.softmax(torch.randn(5, 5, dtype=torch.float64), -1)
    psi = task.fit(A).requires_grad_()
    relaxed = (A * (task._ybar[:, None] - psi) ** 2).sum()  # Σ_i Σ_c A_ic (ȳ_i − ψ_c)²
    (g,) = torch.autograd.grad(relaxed, psi)
    assert g.abs().max() < 1e-10


def test_linear_closed_form_minimises_the_expected_loss():
    task = conv_task()
    A = torch.softmax(torch.randn(6, 6, dtype=torch.float64), -1)
    psi = task.fit(A)
    # the expected training loss over random hard assignments (Monte Carlo) matches the closed form...
    rng = np.random.default_rng(0)
    samples = []
    for _ in range(4000):
        labels = np.array([rng.choice(6, p=a) for a in A.numpy()])
        H = torch.zeros(6, 6, dtype=torch.float64)
        H[range(6), labels] = 1
        samples.append(float(task.train_loss(H, psi)))
    assert np.mean(samples) == pytest.approx(float(task.train_loss(A, psi)), rel=0.03)
    # ...and psi is its minimiser
    p = psi.clone().requires_grad_()
    (g,) = torch.autograd.grad(task.train_loss(A, p), p)
    assert g.abs().max() < 1e-6


@pytest.mark.parametrize("make", [lambda: GaussianTask(K=4, blocks=2, samples=40, seed=3), lambda: conv_task()])
def test_hypergradient_matches_finite_differences(make):
    task = make()
    logits = 0.5 * torch.randn(1, task.K, task.K, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    logits.requires_grad_()
    obj, *_ = objective(task, logits, 1e-2, 1e-2)
    (g,) = torch.autograd.grad(obj.sum(), logits)
    h = 1e-6
    fd = torch.zeros_like(logits)
    for idx in itertools.product(range(task.K), range(task.K)):
        e = torch.zeros_like(logits)
        e[(0, *idx)] = h
        fd[(0, *idx)] = (objective(task, logits.detach() + e, 1e-2, 1e-2)[0] -
                         objective(task, logits.detach() - e, 1e-2, 1e-2)[0]).item() / (2 * h)
    torch.testing.assert_close(g, fd, rtol=1e-5, atol=1e-8)


def test_convolution_is_recovered_exactly():
    task = conv_task()
    assert task.gt.tolist() == [0, 1, 2, 2, 0, 1]  # Flatten([[2,1,0],[0,2,1]]), zeros their own block
    result = learn_sharing(task, seed=0)
    assert result.partition_distance == 0
    assert result.test_loss < 1e-10


@pytest.mark.slow
def test_gaussian_recovery_and_more_data():
    def mean_pd(samples, sigma=1.0, **kw):
        tasks = [GaussianTask(K=5, blocks=3, samples=samples, split=0.3, sigma=sigma, seed=t) for t in range(20)]
        return np.mean([r.partition_distance for r in learn_sharing_batch(tasks, list(range(20)), steps=300, **kw)])

    small = mean_pd(100, rank_penalty="columns")  # the reference code's penalty
    assert small <= 0.5
    assert mean_pd(1000, rank_penalty="columns") <= small
    assert mean_pd(1000, sigma=4.0) < mean_pd(100, sigma=4.0)  # where 100 samples do err, 10x data helps


def test_faithful_partition_distance_falls_with_the_number_of_blocks():
    """The poster's trend with the faithful defaults (no merge pass): more true blocks, fewer wrong entries."""
    def mean_pd(blocks, **kw):
        tasks = [GaussianTask(K=5, blocks=blocks, seed=t) for t in range(8)]
        return np.mean([r.partition_distance for r in learn_sharing_batch(tasks, list(range(8)), **kw)])

    assert mean_pd(1) > mean_pd(5)
    assert mean_pd(1, merge=True) == 0  # the lab's merge pass flattens it: the errors are over-splits


def test_batch_is_the_same_as_one_trial_at_a_time():
    tasks = [GaussianTask(K=4, blocks=b, samples=40, seed=s) for b, s in ((1, 0), (2, 1), (4, 2))]
    batch = learn_sharing_batch(tasks, [0, 1, 2], steps=60, merge=True)
    for task, seed, b in zip(tasks, [0, 1, 2], batch):
        one = learn_sharing(task, seed=seed, steps=60, merge=True, record_every=1000)
        np.testing.assert_allclose(b.A, one.A, atol=1e-12)
        assert b.labels.tolist() == one.labels.tolist() and b.mse_gap == pytest.approx(one.mse_gap)


def test_merge_pass_is_off_by_default_and_only_coarsens():
    task = GaussianTask(K=5, blocks=1, seed=0)
    plain = learn_sharing(task, seed=0, steps=200)
    assert not plain.merged and plain.labels.tolist() == plain.snapped.tolist()
    assert plain.partition_distance == plain.snapped_distance == partition_distance(plain.A.argmax(1), task.gt)
    merged = learn_sharing(task, seed=0, steps=200, merge=True)
    assert merged.merged and merged.snapped.tolist() == plain.snapped.tolist()
    assert is_refinement(merged.snapped, merged.labels)  # merging only unites snapped blocks
    # the scored matrix is the merged partition, in the soft A's columns
    S = merged.selection
    assert S.shape == (5, 5) and (S.sum(1) == 1).all()
    assert partition_distance(S.argmax(1), merged.labels) == 0


def test_nuclear_norm_rewards_spreading_over_duplicate_columns():
    """Independent facts behind the poster-vs-reference penalty: on a 0/1 selection matrix the nuclear norm and
    the column-norm sum agree (sum_j sqrt(n_j)); a row split over two columns of the same block lowers the
    nuclear norm (a rank-1 block [p v, (1-p) v] has norm ||v|| sqrt(p² + (1-p)²)) but not the column norms."""
    labels = np.array([0, 0, 0, 1, 1])
    S = selection_matrix(labels, 5)
    expected = np.sqrt(3) + np.sqrt(2)
    A = torch.as_tensor(S)
    assert float(rank_term(A, "nuclear")) == pytest.approx(expected)
    assert float(rank_term(A, "columns")) == pytest.approx(expected)
    spread = S.copy()
    spread[:3, 0], spread[:3, 2] = 0.5, 0.5  # block 0's rows split evenly over columns 0 and 2
    assert float(np.linalg.svd(spread, compute_uv=False).sum()) == pytest.approx(np.sqrt(3 / 2) + np.sqrt(2))
    assert float(rank_term(torch.as_tensor(spread), "nuclear")) < expected
    assert float(rank_term(torch.as_tensor(spread), "columns")) == pytest.approx(expected)
    with pytest.raises(LabError):
        rank_term(A, "trace")


def test_uniform_partition_draws_every_partition_equally(rng):
    assert [stirling2(5, k) for k in range(1, 6)] == [1, 15, 25, 10, 1]
    assert stirling2(10, 4) == 34105
    counts = {}
    for _ in range(6000):
        p = uniform_partition(5, 3, rng)
        assert p.max() == 2
        counts[tuple(p)] = counts.get(tuple(p), 0) + 1
    assert len(counts) == 25  # every partition of 5 entries into 3 blocks
    expected = 6000 / 25
    assert sum((c - expected) ** 2 / expected for c in counts.values()) < 60  # chi² with 24 dof: p < 1e-4


def test_snapped_matrix_and_refinement():
    A = np.array([[0.1, 0.8, 0.1], [0.2, 0.7, 0.1], [0.6, 0.2, 0.2]])
    assert snapped_matrix(A).tolist() == [[0, 1, 0], [0, 1, 0], [1, 0, 0]]
    assert snapped_matrix(A, [0, 0, 0]).tolist() == [[0, 1, 0]] * 3  # merged: the first entry's column
    assert is_refinement([0, 1, 2], [0, 0, 1]) and not is_refinement([0, 0, 1], [0, 1, 1])


def test_mse_gap_and_bound():
    task = GaussianTask(K=5, blocks=3, samples=100, split=0.3, seed=2)
    assert task.mse_gap(task.gt) == 0
    wrong = task.gt.copy()
    wrong[0] = (wrong[0] + 1) % 3
    assert task.mse_gap(wrong) > 0
    assert task.gap_bound() > 0


def test_sum_of_numbers_recovers_permutation_invariance():
    assert parse_number_words("one, five", 4).tolist() == [1, 5, 0, 0]
    with pytest.raises(LabError):
        parse_number_words("one, eleven", 4)
    task = sum_task(seed=0)
    assert task.phi_train[:, 0].sum((1, 2)).tolist() == [5] * 100  # every sequence fills its 5 positions
    result = learn_sharing(task, seed=0, rank_penalty="columns")  # the reference code's penalty
    assert result.partition_distance == 0 and len(set(result.labels)) == 1
    assert learn_sharing(task, seed=0, merge=True).partition_distance == 0


def test_group_task_ground_truth_is_the_orbit_partition():
    task = group_task("Z(4)")
    gt = task.gt.reshape(4, 4)
    i, j = np.indices((4, 4))
    for off in range(4):
        assert len(set(gt[(j - i) % 4 == off])) == 1  # circulant blocks
    with pytest.raises(LabError):
        group_task("SO(3)")


def test_cli_discover_json(capsys):
    from lab.cli import main

    assert main(["discover", "--task", "gaussian", "--K", "5", "--blocks", "3", "--samples", "100", "--split", "0.3",
                 "--trials", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"partition_distance", "mse_gap"} <= set(out) and out["partition_distance"] <= 1
    assert main(["discover", "--task", "conv", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["partition_distance"] == 0 and "test_loss" in out and "snapped_partition_distance" not in out
    assert main(["discover", "--task", "gaussian", "--blocks", "1", "--steps", "100", "--merge", "--json",
                 "--no-save"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["partition_distance"] <= out["snapped_partition_distance"] or out["partition_distance"] == 0
    assert main(["discover", "--task", "gaussian", "--split", "1.5"]) == 2
    assert "split" in capsys.readouterr().err
