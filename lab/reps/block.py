"""``Block``: one tensor-product block of a representation, a frozen value.

A representation expands into blocks (thesis section 2.5.1): tensor products of leaf representations
(``V``, ``V*``, a user rep, ...) placed at known positions of the natural vec layout.  The solvers work
block by block and solve every distinct block once, so blocks compare and hash by value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class Block:
    """Entries ``offset + index`` of a representation's layout carry the tensor product of ``factors``.

    ``factors`` is a tuple of bound leaf representations (empty for a scalar); ``index=None`` means
    ``arange(size)``, otherwise a read-only int array of the block's positions in row-major tensor order.
    Equal blocks have equal factors, size, offset and index; the hash leaves the index out.
    """

    factors: tuple = ()
    size: int = 1
    offset: int = 0
    index: np.ndarray | None = None

    def __post_init__(self):
        if self.index is not None:
            idx = np.asarray(self.index, dtype=np.int64)
            idx.setflags(write=False)
            object.__setattr__(self, "index", idx)

    def __eq__(self, other):
        if not isinstance(other, Block):
            return NotImplemented
        if (self.factors, self.size, self.offset) != (other.factors, other.size, other.offset):
            return False
        if self.index is None or other.index is None:
            return self.index is None and other.index is None
        return bool(np.array_equal(self.index, other.index))

    def __hash__(self):
        return hash((self.factors, self.size, self.offset))

    def positions(self) -> np.ndarray:
        idx = np.arange(self.size) if self.index is None else self.index
        return idx + self.offset

    @property
    def contiguous(self) -> bool:
        return self.index is None

    @property
    def dims(self) -> tuple[int, ...]:
        """The dimension of every factor: the block is an array of this shape in row-major order."""
        return tuple(f.size for f in self.factors)

    @property
    def label(self) -> str:
        return factors_to_text(self.factors)

    def shifted(self, offset: int) -> "Block":
        return Block(self.factors, self.size, self.offset + offset, self.index)


def factors_to_text(factors: tuple) -> str:
    """``T(2)``, ``T(1,1)``, ``V``, ``V.T*V``, ``L2*V``: how a block is written."""
    if not factors:
        return "Scalar"
    roles = [getattr(f, "tensor_role", None) for f in factors]
    if None not in roles:
        p, q = roles.count("V"), roles.count("V*")
        if roles == ["V"] * p + ["V*"] * q:
            return f"T({p},{q})" if q else ("V" if p == 1 else f"T({p})")
    return "*".join(str(f) for f in factors)
