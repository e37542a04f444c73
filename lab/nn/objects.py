"""A representation as the network sees it: typed objects (scalars, vectors, matrices, a user's rep ...) at positions.

A bound rep expands into ``Block``s (``lab.reps.block``): tensor products of leaves at known positions of its
vector.  A layer does not care where a block came from (``3*V``, ``V + V + V`` or a product of sums): it cares about
its **type** -- which leaves, in which order -- because every object of one type transforms by the same matrices, so
one solved basis serves every pair of copies.  ``RepObjects`` groups a rep's blocks by type: per type the positions
of every copy, an (m, d) index array in the copy's row-major tensor order.

For leaves that act orthogonally (``rho(g)`` orthogonal: ``SO(n)``, ``O(n)``, permutation groups...) the dual acts by
the same matrices, so ``V*`` is typed as ``V`` (``T(1,1)`` and ``T(2)`` are one type): the bilinear layer can then
contract them, as the thesis does for orthogonal groups.

>>> from lab.groups import SO
>>> from lab.reps import Scalar, T, V
>>> objs = RepObjects((2 * Scalar + V + T(1, 1))(SO(3)))
>>> [(str(t), t.dim, objs.count(t)) for t in objs.types]
[('Scalar', 1, 2), ('V', 3, 1), ('T(2)', 9, 1)]
>>> objs.positions(objs.types[1]).tolist()
[[2, 3, 4]]
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import RepError
from ..reps import DualRep, ProductRep, Rep, ScalarRep, factors_to_text


def _leaf_key(leaf):
    """A leaf as a type sees it: an orthogonally acting dual is its inner leaf (same matrices)."""
    if isinstance(leaf, DualRep) and leaf.inner.acts_orthogonally:
        return leaf.inner
    return leaf


@dataclass(frozen=True)
class ObjectType:
    """One kind of object: a tensor product of bound leaves (empty: a scalar), its dimension."""

    factors: tuple
    dim: int

    @property
    def is_scalar(self) -> bool:
        return not self.factors

    def rep(self, group) -> Rep:
        """The object's own representation (``Scalar``, the leaf, or their tensor product)."""
        if not self.factors:
            return ScalarRep(group)
        return self.factors[0] if len(self.factors) == 1 else ProductRep(list(self.factors))

    @cached_property
    def is_permutation(self) -> bool:
        """Every generator acts by a permutation matrix (no Lie algebra): pointwise nonlinearities commute with it
        (the thesis's 'regular representations'), so it needs no gate."""
        for leaf in self.factors:
            disc, lie = leaf.generators()
            if len(lie) or np.iscomplexobj(disc):
                return False
            for h in disc:
                if not (np.all((h == 0) | (h == 1)) and np.all(h.sum(0) == 1) and np.all(h.sum(1) == 1)):
                    return False
        return True

    def __str__(self):
        return factors_to_text(self.factors)


class RepObjects:
    """A bound rep's blocks grouped by ``ObjectType`` (first appearance order), with each copy's positions."""

    def __init__(self, rep: Rep):
        if getattr(rep, "group", None) is None:
            raise RepError(f"{rep} is not bound to a group: bind it (rep(G)) or give the layer a group")
        self.rep, self.group = rep, rep.group
        self.size = rep.size
        by_key: dict = {}
        for b in rep.blocks:
            key = tuple(_leaf_key(f) for f in b.factors)
            t = by_key.setdefault(key, (ObjectType(key, b.size), []))
            t[1].append(b.positions())
        self.types = [t for t, _ in by_key.values()]
        self._positions = {t: np.stack(p).astype(np.int64) for t, p in by_key.values()}

    def count(self, t: ObjectType) -> int:
        return len(self._positions[t])

    def positions(self, t: ObjectType) -> np.ndarray:
        """(copies, dim) positions of every copy of ``t``, each in row-major tensor order."""
        return self._positions[t]

    @cached_property
    def order(self) -> np.ndarray:
        """The positions type by type, copy by copy: the layout a layer computes in."""
        return np.concatenate([self._positions[t].ravel() for t in self.types]) if self.types else \
            np.zeros(0, np.int64)

    @cached_property
    def in_order(self) -> bool:
        """The rep is already laid out type by type (no permutation needed)."""
        return bool(np.array_equal(self.order, np.arange(self.size)))

    def offsets(self) -> dict:
        """Where each type's copies start in ``order``."""
        out, at = {}, 0
        for t in self.types:
            out[t] = at
            at += self._positions[t].size
        return out
