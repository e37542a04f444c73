"""One discrete generator of a group: a matrix, with its signed-permutation form when it has one.

A group stores its discrete generators in this one form.  A signed permutation is a fast path of a
matrix, not a second kind of generator: ``matrix`` is always available (built lazily from the index
arrays), and ``perm``/``sign`` are there when the matrix is a signed permutation, so the orbit solver
and the samplers never need a d x d matrix for the Rubik's cube.
"""
from __future__ import annotations

import hashlib

import numpy as np

from ..errors import GroupError


class Generator:
    """A discrete generator ``h``: ``matrix`` (d, d), and ``perm``/``sign`` (d,) when it is a signed permutation.

    ``h e_i = sign[i] e_{perm[i]}``.  Build with ``Generator.from_matrix`` (detects signed permutations)
    or ``Generator.from_perm``.  Immutable: the arrays are read-only.

    >>> g = Generator.from_matrix([[0, 1], [1, 0]])
    >>> g.perm.tolist(), g.sign.tolist()
    ([1, 0], [1, 1])
    >>> Generator.from_perm([1, 2, 0], [1, -1, 1]).matrix.astype(int).tolist()
    [[0, 0, 1], [1, 0, 0], [0, -1, 0]]
    """

    __slots__ = ("d", "perm", "sign", "_matrix")

    def __init__(self, d: int, perm=None, sign=None, matrix=None):
        self.d = d
        self.perm, self.sign, self._matrix = perm, sign, matrix
        for a in (perm, sign, matrix):
            if a is not None:
                a.setflags(write=False)

    @classmethod
    def from_perm(cls, perm, sign=None, name: str = "G") -> "Generator":
        perm = np.asarray(perm, dtype=np.int64)
        d = len(perm)
        sign = np.ones(d, dtype=np.int8) if sign is None else np.asarray(sign, dtype=np.int8)
        if perm.ndim != 1 or sign.shape != perm.shape:
            raise GroupError(f"{name}: a permutation and its signs must be 1-D arrays of one length")
        if sorted(perm.tolist()) != list(range(d)):
            raise GroupError(f"{name}: a generator is not a permutation of 0..{d - 1}")
        if np.any(np.abs(sign) != 1):
            raise GroupError(f"{name}: signs must be +1 or -1")
        return cls(d, perm=perm.copy(), sign=sign.copy())

    @classmethod
    def from_matrix(cls, h) -> "Generator":
        """The generator of a d x d matrix; keeps a signed-permutation form when the matrix is one."""
        h = np.array(h, dtype=np.complex128 if np.iscomplexobj(h) else np.float64)
        d = h.shape[-1]
        if not np.iscomplexobj(h):
            nz = np.abs(h) > 1e-12
            if np.all(nz.sum(0) == 1) and np.all(nz.sum(1) == 1):
                p = np.argmax(nz, axis=0)
                s = h[p, np.arange(d)]
                if np.allclose(np.abs(s), 1, atol=1e-12, rtol=0):
                    return cls(d, perm=p.astype(np.int64), sign=np.sign(s).astype(np.int8))
        return cls(d, matrix=h)

    @property
    def is_signed_permutation(self) -> bool:
        return self.perm is not None

    @property
    def matrix(self) -> np.ndarray:
        """The d x d matrix (built once from the signed permutation when that is how it was given)."""
        if self._matrix is None:
            m = np.zeros((self.d, self.d))
            m[self.perm, np.arange(self.d)] = self.sign
            m.setflags(write=False)
            self._matrix = m
        return self._matrix

    @property
    def is_complex(self) -> bool:
        return self.perm is None and np.iscomplexobj(self._matrix)

    def digest_into(self, h) -> None:
        """Feed the generator's identity into a hashlib object (the same for both ways of giving it)."""
        if self.perm is not None:
            h.update(b"p")
            h.update(self.perm.tobytes())
            h.update(self.sign.tobytes())
        else:
            h.update(b"m")
            h.update(np.ascontiguousarray(np.round(self._matrix, 12) + 0.0).tobytes())

    def kron_identity(self, n: int, left: bool) -> "Generator":
        """``I_n (x) h`` (``left``) or ``h (x) I_n``, keeping the signed-permutation form."""
        if self.perm is None:
            eye = np.eye(n)
            return Generator(self.d * n, matrix=np.kron(eye, self._matrix) if left else np.kron(self._matrix, eye))
        a, b = np.meshgrid(np.arange(n), np.arange(self.d), indexing="ij") if left else \
            np.meshgrid(np.arange(self.d), np.arange(n), indexing="ij")
        if left:  # index a * d + b, the generator acts on b
            perm = (a * self.d + self.perm[b]).ravel()
            sign = np.broadcast_to(self.sign[None, :], (n, self.d)).ravel()
        else:  # index a * n + b, the generator acts on a
            perm = (self.perm[a] * n + b).ravel()
            sign = np.broadcast_to(self.sign[:, None], (self.d, n)).ravel()
        return Generator(self.d * n, perm=perm.astype(np.int64), sign=np.ascontiguousarray(sign, dtype=np.int8))


def digest(generators, lie: np.ndarray, d: int) -> str:
    """A content hash of a group's generators: equal digests mean the same group acting the same way."""
    h = hashlib.sha256(f"{d}|".encode())
    for g in generators:
        g.digest_into(h)
    h.update(b"|lie")
    h.update(np.ascontiguousarray(np.round(lie, 12) + 0.0).tobytes())
    return h.hexdigest()[:24]
