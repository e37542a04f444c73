"""Direct products G1 x G2 acting on the tensor product of the base spaces (R^d1 (x) R^d2)."""
from __future__ import annotations

import numpy as np

from .base import Group


class DirectProduct(Group):
    """``G1 * G2``: generators ``h (x) I`` and ``I (x) h'``, Lie algebra ``A (x) I`` and ``I (x) B``.

    ``Z(n)*Z(n)`` is the group of 2-D cyclic translations of an n x n grid (row-major).
    """

    description = "direct product acting on the tensor product of the base spaces"

    def __init__(self, g1: Group, g2: Group):
        self.factors = (g1, g2)
        d1, d2 = g1.d, g2.d
        name = f"{g1.name}*{g2.name}"
        lie = [np.kron(A, np.eye(d2)) for A in g1.lie] + [np.kron(np.eye(d1), B) for B in g2.lie]
        lie = np.stack(lie) if lie else None
        if g1.is_signed_permutation and g2.is_signed_permutation:
            perms, signs = [], []
            a, b = np.meshgrid(np.arange(d1), np.arange(d2), indexing="ij")
            for p, s in zip(*g1.perms):
                perms.append((p[a] * d2 + b).ravel())
                signs.append(np.broadcast_to(s[:, None], (d1, d2)).ravel())
            for p, s in zip(*g2.perms):
                perms.append((a * d2 + p[b]).ravel())
                signs.append(np.broadcast_to(s[None, :], (d1, d2)).ravel())
            if perms:
                super().__init__(perms=np.array(perms), signs=np.array(signs), d=d1 * d2, name=name)
            else:
                super().__init__(d=d1 * d2, name=name)
        else:
            disc = [np.kron(h, np.eye(d2)) for h in g1.discrete] + [np.kron(np.eye(d1), h) for h in g2.discrete]
            super().__init__(discrete=np.stack(disc) if disc else None, lie=lie, d=d1 * d2, name=name)

        self.channels = d1 if d2 > 1 else 1  # blocks of d2 consecutive entries: one per first-factor index

    def _sample_one(self, rng):
        return np.kron(self.factors[0]._sample_one(rng), self.factors[1]._sample_one(rng))

    def order(self):
        o1, o2 = (g.order() for g in self.factors)
        return None if o1 is None or o2 is None else o1 * o2
