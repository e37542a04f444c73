"""Representations built from the base representation V of a group with dual, sums and products.

Every representation is a tree of ``V``, ``V*`` and ``Scalar`` leaves joined by direct sums and tensor
products.  ``A >> B`` (linear maps from A to B) is ``B (x) A*``, ``T(p, q)`` is ``V^(x)p (x) V*^(x)q``.
The tree expands into *blocks*: tensor products of leaves (a tuple of factors such as
``('V', 'V*')``) placed at known positions of the natural vec layout.  The solvers work block by
block (thesis section 2.5.1), solving every distinct block once.

Reps can be written unbound (``T(2) + 3*V``) and bound to a group by calling them (``rep(S(5))``), or
built bound from the start (``V(S(5))``).  Combining reps of two different groups raises ``RepError``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product as iproduct

import numpy as np

from ..errors import RepError
from ..groups.base import Group
from ..kron import kron_all, kron_sum


@dataclass
class Block:
    """One tensor-product block of a representation.

    ``factors`` is a tuple of ``'V'``/``'V*'`` (empty for a scalar); the block's entries sit at
    ``offset + index`` of the representation's natural layout (``index=None`` means ``arange(size)``).
    """

    factors: tuple[str, ...]
    size: int
    offset: int = 0
    index: np.ndarray | None = None

    def positions(self) -> np.ndarray:
        idx = np.arange(self.size) if self.index is None else self.index
        return idx + self.offset

    @property
    def contiguous(self) -> bool:
        return self.index is None

    @property
    def label(self) -> str:
        return factors_to_text(self.factors)


def factors_to_text(factors: tuple[str, ...]) -> str:
    if not factors:
        return "Scalar"
    p, q = factors.count("V"), factors.count("V*")
    if all(f == "V" for f in factors[:p]) and all(f == "V*" for f in factors[p:]):
        return f"T({p},{q})" if q else ("V" if p == 1 else f"T({p})")
    return "*".join("V" if f == "V" else "V.T" for f in factors)


def _combine_groups(*groups):
    found = [g for g in groups if g is not None]
    for g in found[1:]:
        if g != found[0]:
            raise RepError(f"representations over different groups cannot be combined: {found[0]} and {g}")
    return found[0] if found else None


class Rep:
    """Base class of representation trees; see the module docstring."""

    group: Group | None = None
    precedence = 4  # for printing: 4 atom, 3 power, 2 product, 1 sum, 0 map

    # ------------------------------------------------------------------ structure
    def bind(self, group: Group) -> "Rep":
        raise NotImplementedError

    def __call__(self, group) -> "Rep":
        from ..groups import parse_group

        group = parse_group(group) if isinstance(group, str) else group
        if not isinstance(group, Group):
            raise RepError(f"a representation is bound to a Group, got {type(group).__name__}")
        if self.group is not None and self.group != group:
            raise RepError(f"this representation is already over {self.group}, cannot rebind to {group}")
        return self.bind(group)

    def _require_group(self) -> Group:
        if self.group is None:
            raise RepError(f"representation {self} is not bound to a group: call it with one, e.g. rep(S(5))")
        return self.group

    def _blocks(self, d: int) -> list[Block]:
        raise NotImplementedError

    @property
    def dual(self) -> "Rep":
        raise NotImplementedError

    @property
    def T(self) -> "Rep":
        """The dual representation V* (rho(g^-1)^T)."""
        return self.dual

    # ------------------------------------------------------------------ algebra
    def __add__(self, other):
        other = _as_rep(other)
        if other is None:
            return NotImplemented
        return SumRep([self, other])

    def __radd__(self, other):
        other = _as_rep(other)
        if other is None:
            return NotImplemented
        return SumRep([other, self])

    def __mul__(self, other):
        if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
            return _multiplicity(self, int(other))
        if isinstance(other, Rep):
            return ProductRep([self, other])
        return NotImplemented

    def __rmul__(self, other):
        if isinstance(other, (int, np.integer)) and not isinstance(other, bool):
            return _multiplicity(self, int(other))
        return NotImplemented

    def __pow__(self, k):
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0:
            raise RepError("a representation power needs a non-negative integer")
        return ScalarRep(self.group) if k == 0 else (self if k == 1 else ProductRep([self] * int(k)))

    def __rshift__(self, other):
        if not isinstance(other, Rep):
            return NotImplemented
        return ProductRep([other, self.dual], maps=(self, other))

    def __eq__(self, other):
        return isinstance(other, Rep) and str(self) == str(other) and self.group == other.group

    def __hash__(self):
        return hash((str(self), self.group))

    def __repr__(self):
        return str(self) if self.group is None else f"{self} over {self.group}"

    # ------------------------------------------------------------------ sizes and blocks
    @property
    def size(self) -> int:
        """Dimension of the representation space."""
        return sum(b.size for b in self.blocks)

    def __len__(self):
        return self.size

    @cached_property
    def blocks(self) -> list[Block]:
        """Tensor-product blocks in natural-layout order (see ``Block``)."""
        return self._blocks(self._require_group().d)

    # ------------------------------------------------------------------ group action
    def rho(self, g) -> np.ndarray:
        """Dense matrix of the representation at the group element ``g`` (a d x d base matrix)."""
        self._require_group()
        g = np.asarray(g)
        per_factor = {"V": g, "V*": np.linalg.inv(g).T}
        return self._dense_blockwise(lambda factors: kron_all([per_factor[f] for f in factors]), g)

    def drho(self, A) -> np.ndarray:
        """Dense matrix of the Lie-algebra representation at ``A`` (a d x d algebra element)."""
        self._require_group()
        A = np.asarray(A)
        per_factor = {"V": A, "V*": -A.T}
        return self._dense_blockwise(lambda factors: kron_sum([per_factor[f] for f in factors]), A)

    def _dense_blockwise(self, block_matrix, like) -> np.ndarray:
        out = np.zeros((self.size, self.size), dtype=np.result_type(like, float))
        for b in self.blocks:
            pos = b.positions()
            out[np.ix_(pos, pos)] = block_matrix(b.factors)
        return out

    def act(self, g, v) -> np.ndarray:
        """``rho(g) @ v`` computed block by block along tensor axes, without the size x size matrix."""
        self._require_group()
        g = np.asarray(g)
        gd = np.linalg.inv(g).T
        return self._apply_blockwise(lambda f: g if f == "V" else gd, v)

    def _apply_blockwise(self, mat_of_factor, v) -> np.ndarray:
        v = np.asarray(v)
        vec = v.ndim == 1
        V2 = v[:, None] if vec else v
        out = np.zeros(V2.shape, dtype=np.result_type(V2, mat_of_factor("V")))
        d = self.group.d
        for b in self.blocks:
            pos = b.positions()
            X = V2[pos].reshape((d,) * len(b.factors) + (V2.shape[1],))
            for a, f in enumerate(b.factors):
                X = np.moveaxis(np.tensordot(mat_of_factor(f), X, axes=([1], [a])), 0, a)
            out[pos] = X.reshape(b.size, -1)
        return out[:, 0] if vec else out

    # ------------------------------------------------------------------ solving
    def solve(self, solver: str = "auto", device: str | None = None, memory_limit: int | None = None,
              cache: bool = True, progress=None):
        """Solve for the equivariant basis; returns a ``Solution`` (basis, rank, solver, timing, labels)."""
        from ..solvers import solve

        return solve(self, solver=solver, device=device, memory_limit=memory_limit, cache=cache,
                     progress=progress)

    def equivariant_basis(self, solver: str = "auto", **kw):
        """Q (size x r) with orthonormal columns spanning {v : rho(g) v = v for all g}.

        A ``scipy.sparse`` matrix for orbit-solved (permutation-type) reps, a dense array otherwise.
        """
        return self.solve(solver=solver, **kw).Q

    def equivariant_projector(self, solver: str = "auto", **kw):
        """The orthogonal projector onto the equivariant subspace as a ``scipy.sparse.linalg.LinearOperator``."""
        return self.solve(solver=solver, **kw).projector()

    def orbit_labels(self, **kw):
        """(labels, signs) of every entry for orbit-solved reps: label -1 means the entry is always 0."""
        sol = self.solve(solver="orbit", **kw)
        return sol.labels, sol.signs


def _as_rep(x):
    if isinstance(x, Rep):
        return x
    return None


def _multiplicity(rep: Rep, k: int) -> Rep:
    if k < 0:
        raise RepError("a multiplicity must be non-negative")
    if k == 0:
        return SumRep([], group=rep.group)
    return rep if k == 1 else SumRep([rep] * k)


class Leaf(Rep):
    """``V``, ``V*`` or ``Scalar``."""

    def __init__(self, kind: str, group: Group | None = None):
        assert kind in ("V", "V*", "Scalar")
        self.kind = kind
        self.group = group

    def bind(self, group):
        return Leaf(self.kind, group)

    @property
    def dual(self):
        return Leaf({"V": "V*", "V*": "V", "Scalar": "Scalar"}[self.kind], self.group)

    def _blocks(self, d):
        if self.kind == "Scalar":
            return [Block((), 1)]
        return [Block((self.kind,), d)]

    def __str__(self):
        return {"V": "V", "V*": "V.T", "Scalar": "Scalar"}[self.kind]


def ScalarRep(group=None) -> Leaf:
    return Leaf("Scalar", group)


class SumRep(Rep):
    """Direct sum: blocks of the summands concatenated."""

    precedence = 1

    def __init__(self, children: list[Rep], group: Group | None = None):
        flat: list[Rep] = []
        for c in children:
            flat.extend(c.children if isinstance(c, SumRep) else [c])
        self.children = flat
        self.group = _combine_groups(group, *(c.group for c in flat))

    def bind(self, group):
        return SumRep([c.bind(group) for c in self.children], group=group)

    @property
    def dual(self):
        return SumRep([c.dual for c in self.children], group=self.group)

    def _blocks(self, d):
        out, offset = [], 0
        for c in self.children:
            size = 0
            for b in c._blocks(d):
                out.append(Block(b.factors, b.size, b.offset + offset, b.index))
                size += b.size
            offset += size
        return out

    def __str__(self):
        if not self.children:
            return "0*Scalar"
        parts, i = [], 0
        while i < len(self.children):
            c, j = self.children[i], i
            while j < len(self.children) and str(self.children[j]) == str(c):
                j += 1
            s = _wrap(c, 2)
            parts.append(s if j - i == 1 else f"{j - i}*{s}")
            i = j
        return " + ".join(parts)


class ProductRep(Rep):
    """Tensor product (row-major Kronecker layout); ``maps`` remembers ``A >> B`` for printing."""

    precedence = 2

    def __init__(self, children: list[Rep], maps: tuple[Rep, Rep] | None = None):
        flat: list[Rep] = []
        for c in children:
            flat.extend(c.children if isinstance(c, ProductRep) and c.maps is None else [c])
        self.children = flat
        self.maps = maps
        if maps is not None:
            self.precedence = 0
        self.group = _combine_groups(*(c.group for c in flat))

    def bind(self, group):
        maps = None if self.maps is None else (self.maps[0].bind(group), self.maps[1].bind(group))
        return ProductRep([c.bind(group) for c in self.children], maps=maps)

    @property
    def dual(self):
        return ProductRep([c.dual for c in self.children])

    def _blocks(self, d):
        child_blocks = [c._blocks(d) for c in self.children]
        sizes = [sum(b.size for b in bl) for bl in child_blocks]
        strides = [int(np.prod(sizes[i + 1:], dtype=np.int64)) for i in range(len(sizes))]
        if all(len(bl) == 1 and bl[0].contiguous and bl[0].offset == 0 for bl in child_blocks):
            factors = tuple(f for bl in child_blocks for f in bl[0].factors)
            return [Block(factors, int(np.prod(sizes, dtype=np.int64)))]
        out = []
        for combo in iproduct(*child_blocks):
            factors = tuple(f for b in combo for f in b.factors)
            idx = np.zeros((), dtype=np.int64)
            for b, stride in zip(combo, strides):
                idx = np.add.outer(idx, b.positions() * stride)
            out.append(Block(factors, int(idx.size), 0, idx.ravel()))
        # keep natural-layout order of first appearance so block order is deterministic
        out.sort(key=lambda b: int(b.index[0]) if b.size else 0)
        return out

    def __str__(self):
        if self.maps is not None:
            return f"{_wrap(self.maps[0], 2)} >> {_wrap(self.maps[1], 2)}"
        kinds = [c.kind if isinstance(c, Leaf) else None for c in self.children]
        if None not in kinds and "Scalar" not in kinds and kinds == sorted(kinds):  # V...V V*...V*
            p, q = kinds.count("V"), kinds.count("V*")
            return f"T({p},{q})" if q else f"T({p})"
        parts, i = [], 0
        while i < len(self.children):
            c, j = self.children[i], i
            while j < len(self.children) and str(self.children[j]) == str(c):
                j += 1
            s = _wrap(c, 3)
            parts.append(s if j - i == 1 else f"{s}**{j - i}")
            i = j
        return "*".join(parts)


def _wrap(rep: Rep, min_prec: int) -> str:
    s = str(rep)
    return f"({s})" if rep.precedence < min_prec else s


class _Base(Leaf):
    """``V``: the base representation; ``V(G)`` binds it to a group."""

    def __init__(self):
        super().__init__("V")


V = _Base()
Vstar = Leaf("V*")
Scalar = Leaf("Scalar")


def T(p: int, q: int = 0, G: Group | None = None) -> Rep:
    """Tensors of type (p, q): ``V^(x)p (x) (V*)^(x)q``."""
    for x in (p, q):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0:
            raise RepError(f"T(p, q) needs non-negative integers, got T({p}, {q})")
    leaves = [Leaf("V", G)] * p + [Leaf("V*", G)] * q
    if not leaves:
        return Leaf("Scalar", G)
    return leaves[0] if len(leaves) == 1 else ProductRep(leaves)
