"""The ``Group`` class: discrete generators and a Lie-algebra basis acting on a base space R^d (or C^d).

A group is given as in the EMLP thesis (ch. 2.3): every element is ``exp(sum a_i A_i) * h_k1 * h_k2 ...``
for Lie-algebra basis matrices ``A_i`` and discrete generators ``h_k``.  Discrete generators are stored in
one form, ``Generator``: a matrix that keeps its signed-permutation form (index arrays) when it has one,
so groups acting on millions of tensor entries stay cheap.  ``discrete`` (matrices), ``perms`` and
``is_signed_permutation`` are views derived from it.  Direct products ``G1 * G2`` live here too.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.linalg

from .. import limits
from ..errors import GroupError
from .generators import Generator, digest

_FINITE_ENUMERATION_CAP = 20_000


@dataclass(frozen=True)
class Footprint:
    """What building a group allocates, from its arguments alone (exact integers, nothing built).

    ``d`` is the base dimension; permutation generators cost an int64 and an int8 per point, matrix
    generators and Lie-algebra elements a d x d matrix each (twice: the construction's stack and the
    group's own copy).
    """

    d: int
    perm_generators: int = 0
    matrix_generators: int = 0
    lie: int = 0
    itemsize: int = 8

    @property
    def bytes(self) -> int:
        return 9 * self.d * self.perm_generators + 2 * (self.matrix_generators + self.lie) * self.d**2 * self.itemsize

    def check(self, name: str) -> "Footprint":
        """``LimitError`` when the group ``name`` is over the ``group_dim`` or ``group_bytes`` limit."""
        limits.check("group_dim", self.d, f"the group {name}")
        limits.check("group_bytes", self.bytes, f"the group {name}")
        return self

    def __mul__(self, other: "Footprint") -> "Footprint":
        """The direct product: permutation generators stay permutations, matrices become Kronecker products."""
        return Footprint(self.d * other.d, self.perm_generators + other.perm_generators,
                         self.matrix_generators + other.matrix_generators, self.lie + other.lie,
                         max(self.itemsize, other.itemsize))


class Group:
    """A matrix group given by generators.

    Parameters
    ----------
    discrete : array (M, d, d), optional
        Discrete generators as matrices.
    lie : array (D, d, d), optional
        A basis of the Lie algebra.
    perms, signs : int arrays (M, d), optional
        Alternative to ``discrete`` for signed-permutation generators: generator ``k`` maps basis vector
        ``e_i`` to ``signs[k, i] * e_{perms[k, i]}``.
    generators : sequence of ``Generator``, optional
        The discrete generators in their stored form (what ``discrete`` and ``perms`` are views of).
    d : int
        The dimension of the base space (needed when there are no generators at all).
    name : str
        How the group is written, e.g. ``"S(5)"``; used in messages and plots.
    """

    description = "a group given by its generators"

    #: V splits into this many equal consecutive sub-blocks (GCNN orientation channels, image rows of
    #: Z(n)*Z(n)); plots draw faint guide lines between them
    channels: int = 1

    @staticmethod
    def footprint(*args) -> Footprint | None:
        """What ``cls(*args)`` would allocate (a named group overrides this); None: not known in advance."""
        return None

    def __new__(cls, *args, **kwargs):
        # Cost before work: a named group's size follows from its integer arguments, so a request such as
        # SO(150) or C4Grid(10000) is refused here, before its generators are built.  Arguments of the
        # wrong type are left to __init__ to report.
        if args and not kwargs and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) and a >= 1
                                       for a in args):
            fp = cls.footprint(*(int(a) for a in args))
            if fp is not None:
                fp.check(f"{cls.__name__}({', '.join(str(int(a)) for a in args)})")
        return super().__new__(cls)

    @property
    def size_footprint(self) -> Footprint:
        """The footprint of this (built) group: what a direct product with it will cost."""
        perm = sum(g.perm is not None for g in self.generators)
        return Footprint(self.d, perm, len(self.generators) - perm, self.num_lie, 16 if self.is_complex else 8)

    def __init__(self, discrete=None, lie=None, *, perms=None, signs=None, generators=None, d=None, name="G"):
        self.name = name
        gens: list[Generator] = list(generators or [])
        if perms is not None:
            perms = np.asarray(perms, dtype=np.int64)
            if perms.ndim == 1:
                perms = perms[None]
            signs = np.ones_like(perms, dtype=np.int8) if signs is None else np.asarray(signs, dtype=np.int8)
            if perms.shape != signs.shape:
                raise GroupError(f"{name}: perms and signs must have the same shape")
            gens += [Generator.from_perm(p, s, name) for p, s in zip(perms, signs)]
        if discrete is not None:
            discrete = np.asarray(discrete)
            if discrete.ndim == 2:
                discrete = discrete[None]
            if discrete.size and (discrete.ndim != 3 or discrete.shape[1] != discrete.shape[2]):
                raise GroupError(f"{name}: generators must be square d x d matrices")
            gens += [Generator.from_matrix(h) for h in discrete]
        lie_arr = None if lie is None else np.asarray(lie)
        if lie_arr is not None and lie_arr.ndim == 2:
            lie_arr = lie_arr[None]
        if lie_arr is not None and lie_arr.size and (lie_arr.ndim != 3 or lie_arr.shape[1] != lie_arr.shape[2]):
            raise GroupError(f"{name}: generators must be square d x d matrices")
        dims = {g.d for g in gens}
        if lie_arr is not None and lie_arr.size:
            dims.add(lie_arr.shape[-1])
        if d is not None:
            dims.add(int(d))
        if len(dims) != 1:
            raise GroupError(f"{name}: generators must all be square matrices of one size (got sizes {sorted(dims)})")
        self.d = dims.pop()
        self.generators: tuple[Generator, ...] = tuple(gens)
        if lie_arr is None or not lie_arr.size:
            lie_arr = np.zeros((0, self.d, self.d))
        lie_arr = np.array(lie_arr, dtype=np.complex128 if np.iscomplexobj(lie_arr) else np.float64)
        lie_arr.setflags(write=False)
        self._lie = lie_arr

    # ------------------------------------------------------------------ construction helpers
    @classmethod
    def from_generators(cls, discrete=None, lie=None, name="G", d=None) -> "Group":
        """A user's own group from discrete generator matrices and/or a Lie-algebra basis.

        Signed-permutation generators are recognised (the exact ``orbit`` solver then applies):

        >>> G = Group.from_generators(discrete=[[[0, 1], [1, 0]]], name="Swap")
        >>> G.d, G.is_signed_permutation, G.order()
        (2, True, 2)
        >>> Group.from_generators(lie=[[[0, -1], [1, 0]]], name="rot").num_lie
        1
        """
        if discrete is None and lie is None and d is None:
            raise GroupError("from_generators needs discrete generators, a Lie algebra basis, or d")
        return cls(discrete=discrete, lie=lie, d=d, name=name)

    # ------------------------------------------------------------------ generators
    finite_subgroup: "Group | None" = None
    """A finite signed-permutation subgroup on the same space, if known: enables the ``subgroup`` solver."""

    @cached_property
    def discrete(self) -> np.ndarray:
        """Discrete generators as dense matrices (M, d, d) (a read-only view of ``generators``)."""
        if not self.generators:
            out = np.zeros((0, self.d, self.d))
        else:
            out = np.stack([g.matrix for g in self.generators])
        out.setflags(write=False)
        return out

    @property
    def lie(self) -> np.ndarray:
        """Lie-algebra basis (D, d, d)."""
        return self._lie

    @property
    def num_discrete(self) -> int:
        return len(self.generators)

    @property
    def num_lie(self) -> int:
        return len(self._lie)

    @property
    def is_signed_permutation(self) -> bool:
        """All discrete generators are signed permutation matrices and there is no Lie algebra."""
        return self.num_lie == 0 and all(g.is_signed_permutation for g in self.generators)

    @property
    def is_permutation(self) -> bool:
        return self.is_signed_permutation and all(bool(np.all(g.sign == 1)) for g in self.generators)

    @cached_property
    def _perm_arrays(self) -> tuple[np.ndarray, np.ndarray]:
        perms = np.array([g.perm for g in self.generators], dtype=np.int64).reshape(-1, self.d)
        signs = np.array([g.sign for g in self.generators], dtype=np.int8).reshape(-1, self.d)
        perms.setflags(write=False)
        signs.setflags(write=False)
        return perms, signs

    @property
    def perms(self) -> tuple[np.ndarray, np.ndarray]:
        """(perms, signs) of the discrete generators, each (M, d); only for signed-permutation groups."""
        if not self.is_signed_permutation:
            raise GroupError(f"{self.name} is not a (signed) permutation group")
        return self._perm_arrays

    @cached_property
    def is_complex(self) -> bool:
        return bool(np.iscomplexobj(self._lie) or any(g.is_complex for g in self.generators))

    @property
    def dtype(self):
        return np.complex128 if self.is_complex else np.float64

    @cached_property
    def is_unitary(self) -> bool:
        """Discrete generators unitary and Lie algebra anti-Hermitian: then V* acts as conj(V)."""
        if all(g.is_signed_permutation for g in self.generators):
            ok = True
        else:
            I = np.eye(self.d)
            ok = all(np.allclose(h @ h.conj().T, I, atol=1e-10) for h in self.discrete)
        return ok and all(np.allclose(A.conj().T, -A, atol=1e-10) for A in self._lie)

    @property
    def is_orthogonal(self) -> bool:
        """Real and orthogonal: the dual representation V* equals V exactly."""
        return self.is_unitary and not self.is_complex

    @cached_property
    def discrete_dual(self) -> np.ndarray:
        """Discrete generators in the dual representation: inv(h)^T."""
        if self.is_unitary:
            out = self.discrete.conj()
        elif self.num_discrete:
            out = np.stack([np.linalg.inv(h).T for h in self.discrete])
        else:
            out = self.discrete
        out.setflags(write=False)
        return out

    @cached_property
    def lie_dual(self) -> np.ndarray:
        """Lie-algebra basis in the dual representation: -A^T."""
        out = -np.transpose(self._lie, (0, 2, 1))
        out.setflags(write=False)
        return out

    @cached_property
    def key(self) -> str:
        """A content hash of the generators: equal keys mean the same group acting the same way."""
        return digest(self.generators, self._lie, self.d)

    def __eq__(self, other):
        return isinstance(other, Group) and self.key == other.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return self.name

    def __str__(self):
        return self.name

    # ------------------------------------------------------------------ products
    def __mul__(self, other: "Group") -> "Group":
        """Direct product acting on the tensor product of base spaces (``Z(n)*Z(n)`` acts on n x n grids)."""
        if not isinstance(other, Group):
            return NotImplemented
        return DirectProduct(self, other)

    def __pow__(self, k: int) -> "Group":
        if not isinstance(k, int) or k < 1:
            raise GroupError("a group power needs a positive integer")
        out = self
        for _ in range(k - 1):
            out = out * self
        return out

    # ------------------------------------------------------------------ sampling
    def sample(self, n: int | None = None, rng=None) -> np.ndarray:
        """Random group elements as matrices: (d, d), or (n, d, d) when ``n`` is given.

        Finite groups: uniform (Schreier-Sims for signed-permutation groups, enumeration of small matrix
        groups, a long random walk beyond 20 000 elements).  Lie groups: Haar for the compact classical
        groups (overridden there); otherwise ``exp(sum a_i A_i)`` with ``a_i ~ N(0, 1/2)`` times a random
        word in the discrete generators, which reaches every component but is not Haar.
        """
        rng = np.random.default_rng(rng)
        out = np.stack([self._sample_one(rng) for _ in range(1 if n is None else n)])
        return out[0] if n is None else out

    def _sample_one(self, rng) -> np.ndarray:
        if self.num_lie == 0:
            return self._sample_finite(rng)
        coeffs = rng.normal(scale=0.5, size=self.num_lie)
        g = scipy.linalg.expm(np.tensordot(coeffs, self._lie, axes=1))
        return g @ self._random_word(rng, length=8) if self.num_discrete else g

    def _random_word(self, rng, length: int) -> np.ndarray:
        g = np.eye(self.d, dtype=self.dtype)
        gens = self.discrete
        for _ in range(length):
            k = rng.integers(self.num_discrete + 1)  # index M stands for "no generator this step"
            if k < self.num_discrete:
                g = gens[k] @ g
        return g

    def _sample_finite(self, rng) -> np.ndarray:
        if self.num_discrete == 0:
            return np.eye(self.d)
        if self.is_signed_permutation:
            p, s = self._uniform_signed_permutation(rng)
            g = np.zeros((self.d, self.d))
            g[p, np.arange(self.d)] = s
            return g
        elements = self.elements()
        if elements is not None:
            return elements[rng.integers(len(elements))]
        return self._random_word(rng, length=200)

    @cached_property
    def _sympy_group(self):
        """The group as a sympy permutation group on 2d points (i+, i-), for Schreier-Sims."""
        from sympy.combinatorics import Permutation, PermutationGroup

        d = self.d
        gens = []
        for p, s in zip(*self.perms):
            img = np.empty(2 * d, dtype=np.int64)
            neg = s < 0
            img[:d] = p + d * neg
            img[d:] = p + d * (~neg)
            gens.append(Permutation(img.tolist()))
        return PermutationGroup(gens)

    def _uniform_signed_permutation(self, rng):
        import random

        G = self._sympy_group
        # coset_unrank maps 0..|G|-1 bijectively onto G, so a uniform rank gives a uniform element
        # (Python integers: the Rubik's cube group has more than 2**63 elements).
        rank = random.Random(int(rng.integers(2**63))).randrange(int(G.order()))
        img = np.array(G.coset_unrank(rank).array_form, dtype=np.int64)
        if len(img) < 2 * self.d:
            img = np.concatenate([img, np.arange(len(img), 2 * self.d)])
        p = img[: self.d] % self.d
        s = np.where(img[: self.d] >= self.d, -1, 1)
        return p, s

    @cached_property
    def _transversal_arrays(self) -> list[np.ndarray]:
        """Schreier-Sims basic transversals as arrays (level: |orbit| x 2d images), for vectorised sampling."""
        G = self._sympy_group
        G.schreier_sims()
        size = 2 * self.d
        out = []
        for orbit, transversal in zip(G.basic_orbits, G.basic_transversals):
            rows = []
            for point in orbit:
                img = list(transversal[point].array_form)
                rows.append(img + list(range(len(img), size)))
            out.append(np.array(rows, dtype=np.int64))
        return out

    def sample_signed(self, n: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """``n`` uniform random elements of a signed-permutation group as (perms, signs), each (n, d).

        Element k maps basis vector e_j to ``signs[k, j] * e_{perms[k, j]}``.  Exactly uniform and
        vectorised: one random transversal element per Schreier-Sims level, composed as sympy's
        ``coset_unrank`` composes them (a bijection between uniform ranks and group elements).
        """
        if not self.is_signed_permutation:
            raise GroupError(f"{self.name} is not a (signed) permutation group")
        rng = np.random.default_rng(rng)
        d = self.d
        if self.num_discrete == 0:
            return np.tile(np.arange(d), (n, 1)), np.ones((n, d), dtype=np.int8)
        levels = self._transversal_arrays
        if not levels:
            img = np.tile(np.arange(2 * d), (n, 1))
        else:
            chosen = [T[rng.integers(len(T), size=n)] for T in levels]
            img = chosen[-1]
            for A in reversed(chosen[:-1]):  # h[i] = a0[a1[...a_{m-1}[i]]]
                img = np.take_along_axis(A, img, axis=1)
        first = img[:, :d]
        return first % d, np.where(first >= d, -1, 1).astype(np.int8)

    def order(self) -> int | None:
        """The number of elements for finite groups (None for Lie groups or when unknown)."""
        if self.num_lie:
            return None
        if self.num_discrete == 0:
            return 1
        if self.is_signed_permutation:
            return int(self._sympy_group.order())
        el = self.elements()
        return None if el is None else len(el)

    def elements(self, cap: int = _FINITE_ENUMERATION_CAP) -> np.ndarray | None:
        """All elements of a finite group as matrices by closure under the generators (None if > cap)."""
        if self.num_lie:
            return None
        if self.is_signed_permutation and self.order() > cap:
            return None
        gens = self.discrete
        found = {self._mat_key(np.eye(self.d)): np.eye(self.d, dtype=self.dtype)}
        frontier = list(found.values())
        while frontier:
            nxt = []
            for g in frontier:
                for h in gens:
                    x = h @ g
                    k = self._mat_key(x)
                    if k not in found:
                        if len(found) >= cap:
                            return None
                        found[k] = x
                        nxt.append(x)
            frontier = nxt
        return np.stack(list(found.values()))

    @staticmethod
    def _mat_key(m: np.ndarray) -> bytes:
        return (np.round(m, 9) + 0.0).tobytes()


class DirectProduct(Group):
    """``G1 * G2``: generators ``h (x) I`` and ``I (x) h'``, Lie algebra ``A (x) I`` and ``I (x) B``.

    ``Z(n)*Z(n)`` is the group of 2-D cyclic translations of an n x n grid (row-major).  Signed
    permutations stay signed permutations (index arithmetic, no matrices).
    """

    description = "direct product acting on the tensor product of the base spaces"

    def __init__(self, g1: Group, g2: Group):
        (g1.size_footprint * g2.size_footprint).check(f"{g1.name}*{g2.name}")
        self.factors = (g1, g2)
        d1, d2 = g1.d, g2.d
        lie = [np.kron(A, np.eye(d2)) for A in g1.lie] + [np.kron(np.eye(d1), B) for B in g2.lie]
        gens = [h.kron_identity(d2, left=False) for h in g1.generators] + \
               [h.kron_identity(d1, left=True) for h in g2.generators]
        super().__init__(lie=np.stack(lie) if lie else None, generators=gens, d=d1 * d2,
                         name=f"{g1.name}*{g2.name}")
        self.channels = d1 if d2 > 1 else 1  # blocks of d2 consecutive entries: one per first-factor index

    def _sample_one(self, rng):
        return np.kron(self.factors[0]._sample_one(rng), self.factors[1]._sample_one(rng))

    def order(self):
        o1, o2 = (g.order() for g in self.factors)
        return None if o1 is None or o2 is None else o1 * o2
