"""EMLP's ``SO11p()`` (``lab.groups.matrix``): the boosts of 1+1-dimensional Minkowski space, SO+(1,1) on (t, x)
with metric diag(-1, 1).  Checked against independent facts: samples preserve the metric, have determinant 1 and
keep the time direction; the solved invariant counts equal the count of weight-zero vectors (in light-cone
coordinates a boost of rapidity phi is diag(e^phi, e^-phi), so V has weights +1, -1 and V* the same; the invariants of
V^p (x) V*^q are the sign sequences of length p + q that sum to zero)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg

import lab
from lab.groups import GROUPS, SO11p, group_catalog, group_footprint, parse_group
from lab.reps import T

ETA = np.diag([-1.0, 1.0])


def test_samples_and_the_algebra_are_boosts():
    G = parse_group("SO11p()")
    assert type(G) is SO11p and G == SO11p() and G.d == 2 and G.num_lie == 1 and G.num_discrete == 0
    samples = G.sample(20, rng=0)
    assert not np.allclose(samples, samples[0])  # they vary
    for g in samples:
        assert np.allclose(g.T @ ETA @ g, ETA) and np.isclose(np.linalg.det(g), 1) and g[0, 0] >= 1
    K = G.lie[0]
    assert np.allclose(K.T @ ETA + ETA @ K, 0)  # the Lie algebra of O(1,1)
    boost = scipy.linalg.expm(0.8 * K)
    assert np.allclose(boost, [[np.cosh(0.8), np.sinh(0.8)], [np.sinh(0.8), np.cosh(0.8)]])


def _weight_zero(p: int, q: int) -> int:
    k = p + q
    return math.comb(k, k // 2) if k % 2 == 0 else 0


@pytest.mark.parametrize("p, q", [(1, 0), (2, 0), (1, 1), (3, 0), (2, 1), (4, 0), (2, 2), (3, 3)])
def test_invariant_counts_are_the_weight_zero_counts(p, q):
    assert T(p, q)(SO11p()).solve().rank == _weight_zero(p, q)


def test_it_is_listed_and_costed():
    assert GROUPS["SO11p"] is SO11p and lab.SO11p is SO11p and "SO11p" in lab.__all__
    assert "SO11p()" in dict(group_catalog())
    assert group_footprint("SO11p()").d == 2 and group_footprint("SO11p()*S(3)").d == parse_group("SO11p()*S(3)").d
