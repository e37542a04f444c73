"""Solved bases for the layers, one per pair of object types, from the engine's solvers and cache.

A layer ``rep_in >> rep_out`` is never solved as one big rep: ``U >> U`` for the thesis's 384 channels of SO(3)
has 7 400 basis elements over 65 000 entries (a dense Q of 3.9 GB).  It is block diagonal by object types instead:
the block between every copy of type a and every copy of type b is a combination of the few matrices that solve
``a >> b`` (SO(3): T(2) >> T(2) has 3).  So each pair of types is solved once (``rep.solve()``: the engine's
solvers, its disk cache) and kept here as a tensor (r, d_b, d_a) -- the solver's orthonormal basis, so that
coefficients drawn N(0, s^2) give the projection of a matrix of N(0, s^2) entries (the EMLP library's init).

>>> from lab.groups import SO
>>> from lab.reps import T, V
>>> from lab.nn.objects import RepObjects
>>> a, = RepObjects(V(SO(3))).types
>>> b, = RepObjects(T(2)(SO(3))).types
>>> map_basis(a, b, SO(3)).shape            # V -> T(2) under SO(3): the Levi-Civita symbol
(1, 9, 3)
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np


def _dense(Q) -> np.ndarray:
    return np.asarray(Q.toarray() if hasattr(Q, "toarray") else Q)


@lru_cache(maxsize=4096)
def _solved(a, b, group) -> np.ndarray:
    Q = _dense((a.rep(group) >> b.rep(group)).solve().Q)  # rows: (out, in) row-major (``lab.reps.layout``)
    return np.ascontiguousarray(Q.T.reshape(Q.shape[1], b.dim, a.dim))


def map_basis(a, b, group) -> np.ndarray:
    """The equivariant maps from objects of type ``a`` to objects of type ``b``: (r, dim b, dim a), orthonormal
    in the Frobenius product (r may be 0)."""
    return _solved(a, b, group)


def invariant_basis(b, group) -> np.ndarray:
    """The invariant vectors of type ``b`` (an equivariant bias): (r, dim b)."""
    from .objects import ObjectType

    return _solved(ObjectType((), 1), b, group)[:, :, 0]
