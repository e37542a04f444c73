"""Representations: homomorphism property, Lie correspondence, layouts, and the text language."""
import numpy as np
import pytest
import scipy.linalg

from lab import (O13, SO, S, Sp, SU, Z, ParseError, RepError, Scalar, T, V, parse_rep)


def test_rho_is_a_homomorphism(rng):
    G = SO(3)
    rep = parse_rep("T(2)+V.T*V+Scalar+(V+Scalar)**2", G)
    g1, g2 = G.sample(2, rng=rng)
    assert np.allclose(rep.rho(g1 @ g2), rep.rho(g1) @ rep.rho(g2))
    assert np.allclose(rep.act(g1, np.eye(rep.size)), rep.rho(g1))


@pytest.mark.parametrize("group", [SO(3), O13(), Sp(1), SU(2)])
def test_drho_is_the_derivative_of_rho(group, rng):
    rep = parse_rep("V**2 >> V + Scalar", group)
    A = np.tensordot(rng.normal(size=group.num_lie), group.lie, axes=1)
    t = 1e-6
    numeric = (rep.rho(scipy.linalg.expm(t * A)) - rep.rho(scipy.linalg.expm(-t * A))) / (2 * t)
    assert np.allclose(numeric, rep.drho(A), atol=1e-6)


def test_maps_use_matrix_layout(rng):
    """(A >> B) acts on vec(W) as W -> rho_B(g) W rho_A(g)^-1 with W of shape (|B|, |A|)."""
    G = O13()
    A, B = parse_rep("V + Scalar", G), parse_rep("T(2)", G)
    rep = A >> B
    g = G.sample(rng=rng)
    W = rng.normal(size=(B.size, A.size))
    expected = B.rho(g) @ W @ np.linalg.inv(A.rho(g))
    assert np.allclose(rep.act(g, W.ravel()).reshape(W.shape), expected)
    assert rep.size == 16 * 5


def test_sizes_and_blocks():
    G = S(4)
    rep = parse_rep("T(2)+3*V", G)
    assert rep.size == 16 + 12
    assert [b.label for b in rep.blocks] == ["T(2)", "V", "V", "V"]
    assert (T(1, 1)(G)).size == 16 and Scalar(G).size == 1
    assert (V(G) ** 3).size == 64 and (V(G) >> V(G)).size == 16


@pytest.mark.parametrize("text", ["T(2)+3*V", "V**2 >> V", "T(1,1)", "(V+Scalar).T", "2*V*3", "V.T.T",
                                  "(V+Scalar) >> (V+Scalar)", "T(0)", "V**0 + T(3,1)"])
def test_text_round_trip(text):
    G = Z(3)
    rep = parse_rep(text, G)
    again = parse_rep(str(rep), G)
    assert again.size == rep.size
    assert [(b.factors, b.size) for b in again.blocks] == [(b.factors, b.size) for b in rep.blocks]


def test_parse_matches_python_algebra():
    G = SO(3)
    assert str(parse_rep("V**2 >> V", G)) == str((V ** 2 >> V)(G))
    assert parse_rep("T(2)+3*V", G).size == (T(2) + 3 * V)(G).size


@pytest.mark.parametrize("text, position, expected", [
    ("T(2)+", 5, "a representation"),
    ("T(2", 3, "')' or ','"),
    ("V >> >> V", 5, "a representation"),
    ("V ** V", 5, "an integer exponent"),
    ("W", 0, "V, Scalar"),
    ("V + 3", 4, "a representation"),
    ("V.X", 2, "'T' after '.'"),
    ("V $ V", 2, "a name, a number"),
])
def test_parse_errors_name_position_and_expectation(text, position, expected):
    with pytest.raises(ParseError) as info:
        parse_rep(text)
    assert info.value.position == position
    assert expected in info.value.expected
    assert "\n" not in str(info.value)


def test_reps_over_different_groups_are_refused():
    with pytest.raises(RepError):
        V(S(3)) + V(Z(3))
    with pytest.raises(RepError):
        V(S(3)) >> V(Z(3))
    with pytest.raises(RepError):
        T(2).size  # unbound: no group to take the dimension from
    with pytest.raises(RepError):
        V(S(3))(Z(3))
