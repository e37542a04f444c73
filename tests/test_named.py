"""Names of basis elements (lab.reps.named): δ/ε tensors, checked against tensors built here by loops."""
from __future__ import annotations

import itertools

import numpy as np

from lab.basis.family import layer
from lab.plots.coloring import basis_coloring
from lab.reps.named import SUB, element_names


def _delta_product(d, pairs, k):
    """Σ over index tuples: 1 where every pair of indices is equal (built by loops, not einsum)."""
    t = np.zeros((d,) * k)
    for idx in itertools.product(range(d), repeat=k):
        t[idx] = float(all(idx[a] == idx[b] for a, b in pairs))
    return t


def _parse(name):
    """'δᵢₗδⱼₖ' -> [(0, 3), (1, 2)] (letters i, j, k, l, ... numbered in order)."""
    back = {v: "ijklmnpqrs".index(k) for k, v in SUB.items()}
    return [tuple(back[c] for c in part) for part in name.split("δ")[1:]]


def test_the_isotropic_rank_4_tensors_of_so3_are_the_three_delta_pairings():
    """The invariants of SO(3) in T(4) are δᵢⱼδₖₗ, δᵢₖδⱼₗ, δᵢₗδⱼₖ (the classical isotropic tensors): each drawn
    element is named by one of them, and equals that tensor up to scale."""
    for rep, rep_out in (("T(4)", None), ("T(2)", "T(2)")):
        data = basis_coloring(layer("SO(3)", rep, rep_out))
        assert sorted(data.names) == sorted(["δᵢⱼδₖₗ", "δᵢₖδⱼₗ", "δᵢₗδⱼₖ"])
        B = np.asarray(layer("SO(3)", rep, rep_out).solution.basis("canonical"))
        for col, name in zip(B.T, data.names):
            t = _delta_product(3, _parse(name), 4).ravel()
            assert np.allclose(col / np.abs(col).max(), t / np.abs(t).max())


def _names(group, rep):
    sol = layer(group, rep).solution
    k = int(rep[2:-1])
    return element_names(np.asarray(sol.basis("canonical")), sol.rep.group.d, 1, k - 1)


def test_levi_civita_is_named_where_it_is_invariant_and_nowhere_else():
    assert _names("SO(3)", "T(3)") == ["εᵢⱼₖ"]
    assert sorted(_names("SO(2)", "T(2)")) == ["δᵢⱼ", "εᵢⱼ"]
    assert _names("O(2)", "T(2)") == ["δᵢⱼ"]  # a reflection flips ε: not invariant
    assert sorted(_names("SO(4)", "T(4)")) == sorted(["δᵢⱼδₖₗ", "δᵢₖδⱼₗ", "δᵢₗδⱼₖ", "εᵢⱼₖₗ"])


def test_an_element_that_is_no_short_delta_sum_stays_unnamed():
    rng = np.random.default_rng(0)
    B = np.asarray(layer("SO(3)", "T(2)", "T(2)").solution.basis("canonical")) @ rng.standard_normal((3, 3))
    assert element_names(B, 3, 2, 2) == [None, None, None]  # irrational mixtures: no name
    assert element_names(B, 3, None, 2) == [None, None, None]  # not a plain tensor power: nothing is named


def test_the_pictures_show_the_names():
    import holoviews as hv

    from lab.plots.coloring_hv import gallery_plot
    from lab.plots.coloring_mpl import coloring_figure

    data = basis_coloring(layer("SO(3)", "T(4)"))
    texts = [e.text for e in gallery_plot(data) if isinstance(e, hv.Text)]
    assert sorted(texts) == sorted(f"{i}: {n}" for i, n in enumerate(data.names))
    titles = [ax.get_title() for ax in coloring_figure(data).axes]
    assert all(any(t == f"element {i}: {n}" for t in titles) for i, n in enumerate(data.names))
