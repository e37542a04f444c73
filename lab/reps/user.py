"""Representations declared by the user: the matrices of the group's generators.

``UserRep(name, group, discrete=[rho(h_1), ...], lie=[drho(A_1), ...])`` joins the tensor algebra like
``V`` does: sums, products, duals and ``A >> B`` with it are solved by the dense and Krylov solvers,
which only need the generators (thesis eq. 2.6).  Two helpers build classic examples:
``so3_irrep(l)`` (the real (2l+1)-dimensional irreps of SO(3) from the spin-l Lie algebra) and
``regular_rep(G)`` (a finite group permuting its own elements by left multiplication).
"""
from __future__ import annotations

import hashlib
import re

import numpy as np
import scipy.linalg

from ..errors import RepError
from ..groups import SO, Group, parse_group
from .rep import Leaf

RESERVED = frozenset({"V", "Scalar", "T"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_CHECK_FLOPS = 2e8  # the finite-group homomorphism check is skipped when it would cost more
_TABLE_BYTES = 256 * 2**20  # rho(g) of a finite group: the element table is not built beyond this
_TABLE_CAP = 20_000


def check_name(name) -> str:
    """A rep name is an identifier other than V, Scalar and T (so the rep language can read it back)."""
    if not isinstance(name, str) or not _NAME.match(name) or name in RESERVED:
        raise RepError(f"a representation name must be an identifier other than V, Scalar and T, got {name!r}")
    return name


def _matrices(x, what: str, count: int, group: Group) -> np.ndarray | None:
    if x is None:
        if count:
            raise RepError(f"{group} has {count} {what} generator(s): give one matrix for each ({what}=[...])")
        return None
    try:
        a = np.asarray(x)
    except ValueError:
        raise RepError(f"the {what} matrices must be stacked as (count, n, n): square and of one size") from None
    if not np.issubdtype(a.dtype, np.number):
        raise RepError(f"the {what} matrices must be numbers, got dtype {a.dtype}")
    a = np.array(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
    if a.ndim == 2 and count == 1:
        a = a[None]
    if a.size == 0 and count == 0:
        return None
    if a.ndim != 3 or a.shape[1] != a.shape[2]:
        raise RepError(f"the {what} matrices must be square, stacked as (count, n, n); got shape {a.shape}")
    if len(a) != count:
        raise RepError(f"{group} has {count} {what} generator(s) but {len(a)} {what} matrices were given")
    if not np.all(np.isfinite(a)):
        raise RepError(f"the {what} matrices contain inf or nan")
    return a


def _coefficients(basis: np.ndarray, A: np.ndarray) -> np.ndarray | None:
    """c with sum c_i basis_i = A, or None when A is not in the span."""
    if len(basis) == 0:
        return np.zeros(0) if np.allclose(A, 0, atol=1e-10) else None
    M = basis.reshape(len(basis), -1).T
    c, *_ = np.linalg.lstsq(M, A.ravel(), rcond=None)
    if np.linalg.norm(M @ c - A.ravel()) > 1e-8 * max(1.0, np.linalg.norm(A)):
        return None
    return c


def _key(m: np.ndarray) -> bytes:
    return (np.round(m, 9) + 0.0).tobytes()


class UserRep(Leaf):
    """A representation given by the matrices of its group's generators.

    ``discrete``: rho(h_k) for every discrete generator ``group.discrete[k]`` (shape (M, n, n));
    ``lie``: drho(A_i) for every Lie-algebra basis element ``group.lie[i]`` (shape (D, n, n)), in the
    group's order.  ``size`` is only needed for a group without generators.  With ``check=True`` what is
    cheap to check is checked: shapes and counts, the bracket relations [drho(A), drho(B)] = drho([A, B]),
    rho(h) drho(A) rho(h)^-1 = drho(h A h^-1), and for small finite groups that rho is well defined on
    every element.  Equal by value: same group and same matrices (the name is only how it prints).

    >>> from lab.groups import Z
    >>> from lab.reps import V
    >>> sgn = UserRep("Sgn", Z(2), discrete=[[[-1.0]]])
    >>> sgn, sgn.size
    (Sgn over Z(2), 1)
    >>> (sgn >> sgn).solve(cache=False).rank, (sgn >> V).solve(cache=False).rank
    (1, 1)
    """

    def __init__(self, name: str, group, discrete=None, lie=None, *, size: int | None = None,
                 check: bool = True):
        group = parse_group(group) if isinstance(group, str) else group
        if not isinstance(group, Group):
            raise RepError(f"a user representation needs a Group, got {type(group).__name__}")
        disc = _matrices(discrete, "discrete", group.num_discrete, group)
        lie_m = _matrices(lie, "lie", group.num_lie, group)
        dims = {a.shape[1] for a in (disc, lie_m) if a is not None}
        if size is not None:
            dims.add(int(size))
        if len(dims) != 1:
            raise RepError("give the matrices of a group without generators a size (size=n)" if not dims else
                           f"the matrices of one representation must all have one size, got {sorted(dims)}")
        n = dims.pop()
        if n < 1:
            raise RepError(f"a representation needs size >= 1, got {n}")
        disc = np.zeros((0, n, n)) if disc is None else disc
        lie_m = np.zeros((0, n, n)) if lie_m is None else lie_m
        for a in (disc, lie_m):
            a.setflags(write=False)
        h = hashlib.sha256(f"{n}|".encode())
        for a in (disc, lie_m):
            a = np.ascontiguousarray(np.round(a, 12) + 0.0)
            h.update(f"{a.dtype.str}{a.shape}|".encode())
            h.update(a.tobytes())
        object.__setattr__(self, "name", check_name(name))
        object.__setattr__(self, "group", group)
        object.__setattr__(self, "_n", n)
        object.__setattr__(self, "_mats", (disc, lie_m))
        object.__setattr__(self, "digest", h.hexdigest()[:24])
        if check:
            self._check_lie()
            if group.num_lie == 0 and group.num_discrete:
                self._table(cap=_TABLE_CAP, flops=_CHECK_FLOPS)

    def __setattr__(self, key, value):
        raise AttributeError("representations are immutable values")

    # ------------------------------------------------------------------ the Leaf protocol
    @property
    def _identity(self):
        return ("user", self.digest)

    @property
    def size(self) -> int:
        return self._n

    def generators(self):
        return self._mats

    @property
    def dtype(self):
        return np.result_type(*self._mats, float)

    @property
    def token(self) -> str:
        return "u" + self.digest[:20]

    def bind(self, group):
        if group != self.group:
            raise RepError(f"{self.name} is a representation of {self.group}, not of {group}")
        return self

    def renamed(self, name: str) -> "UserRep":
        """The same representation printed as ``name``."""
        out = object.__new__(UserRep)
        for k, v in self.__dict__.items():
            object.__setattr__(out, k, v)
        object.__setattr__(out, "name", check_name(name))
        return out

    def __str__(self):
        return self.name

    def drho(self, A) -> np.ndarray:
        """drho at any element of the Lie algebra (a combination of ``group.lie``)."""
        c = _coefficients(self.group.lie, np.asarray(A))
        if c is None:
            raise RepError(f"the matrix is not in the Lie algebra of {self.group}: drho of {self.name} is undefined")
        return np.tensordot(c, self._mats[1], axes=1) if len(c) else np.zeros((self._n, self._n))

    def rho(self, g) -> np.ndarray:
        """rho at a group element: a generator, any element of a small finite group (from a table of
        words), or exp(drho(log g)) for an element reached by the exponential (times one generator)."""
        G, g = self.group, np.asarray(g)
        if g.shape != (G.d, G.d):
            raise RepError(f"rho needs a {G.d} x {G.d} group element, got shape {g.shape}")
        if np.allclose(g, np.eye(G.d), atol=1e-10):
            return np.eye(self._n, dtype=self.dtype)
        for h, R in zip(G.discrete, self._mats[0]):
            if np.allclose(g, h, atol=1e-10):
                return R
        if G.num_lie == 0:
            table = self._table(cap=_TABLE_CAP)
            if table is not None:
                found = table.get(_key(g))
                if found is None:
                    found = next((r for x, r in table.values() if np.allclose(x, g, atol=1e-8)), None)
                else:
                    found = found[1]
                if found is None:
                    raise RepError(f"the matrix is not an element of {G}")
                return found
        else:
            for h, R in [(None, None), *zip(G.discrete, self._mats[0])]:
                rest = g if h is None else np.linalg.solve(h, g)
                out = self._exp_of_log(rest)
                if out is not None:
                    return out if R is None else R @ out
        raise RepError(f"rho of the user representation {self.name} is known at the generators of {G}, on the "
                       "elements of small finite groups and on exp of the Lie algebra; not at this element")

    # ------------------------------------------------------------------ helpers
    def _exp_of_log(self, g):
        G = self.group
        try:
            L = scipy.linalg.logm(g)
        except Exception:  # pragma: no cover - singular input
            return None
        if not G.is_complex and np.iscomplexobj(L):
            if np.abs(L.imag).max() > 1e-8:
                return None
            L = L.real
        c = _coefficients(G.lie, L)
        if c is None or not np.allclose(scipy.linalg.expm(np.tensordot(c, G.lie, axes=1)), g, atol=1e-8):
            return None
        return scipy.linalg.expm(np.tensordot(c, self._mats[1], axes=1))

    def _check_lie(self) -> None:
        G = self.group
        disc, lie = self._mats
        scale = max(1.0, max((np.abs(a).max() for a in (disc, lie) if a.size), default=1.0))
        for i in range(G.num_lie):
            for j in range(i + 1, G.num_lie):
                c = _coefficients(G.lie, G.lie[i] @ G.lie[j] - G.lie[j] @ G.lie[i])
                if c is None:
                    continue  # the group's basis is not closed under brackets: nothing to compare with
                lhs = lie[i] @ lie[j] - lie[j] @ lie[i]
                if not np.allclose(lhs, np.tensordot(c, lie, axes=1), atol=1e-8 * scale**2):
                    raise RepError(f"{self.name}: the lie matrices break the bracket relation of generators "
                                   f"{i} and {j} of {G} ([drho(A), drho(B)] != drho([A, B])); check their order")
        for k, (h, R) in enumerate(zip(G.discrete, disc)):
            Rinv = np.linalg.pinv(R)
            for i, A in enumerate(G.lie):
                c = _coefficients(G.lie, h @ A @ np.linalg.inv(h))
                if c is not None and not np.allclose(R @ lie[i] @ Rinv, np.tensordot(c, lie, axes=1),
                                                     atol=1e-8 * scale**2):
                    raise RepError(f"{self.name}: discrete matrix {k} and lie matrix {i} break "
                                   "rho(h) drho(A) rho(h)^-1 = drho(h A h^-1)")

    def _table(self, cap: int, flops: float = np.inf):
        """{element key: (element, rho(element))} of a finite group by breadth-first search over words,
        checking that rho is well defined; None when the group is too large (or the check too costly)."""
        cached = self.__dict__.get("_element_table")
        if cached is not None:
            return cached
        G, n = self.group, self._n
        R = self._mats[0]
        e = np.eye(G.d, dtype=G.dtype)
        table = {_key(e): (e, np.eye(n, dtype=self.dtype))}
        frontier = [table[_key(e)]]
        cost_per_element = G.num_discrete * (G.d**3 + n**3)
        while frontier:
            nxt = []
            for g, r in frontier:
                for k, h in enumerate(G.discrete):
                    x, rx = h @ g, R[k] @ r
                    key = _key(x)
                    if key in table:
                        if not np.allclose(table[key][1], rx, atol=1e-7 * max(1.0, np.abs(rx).max())):
                            raise RepError(f"{self.name}: the discrete matrices do not define a representation "
                                           f"of {G} (two words for one element get different matrices)")
                        continue
                    if len(table) >= cap or len(table) * cost_per_element > flops \
                            or len(table) * n * n * 16 > _TABLE_BYTES:
                        return None
                    table[key] = (x, rx)
                    nxt.append((x, rx))
            frontier = nxt
        self.__dict__["_element_table"] = table
        return table


def so3_irrep(l: int, name: str | None = None, group=None) -> UserRep:
    """The real (2l+1)-dimensional irreducible representation of SO(3), built from its Lie algebra.

    The spin-l matrices J_x, J_y, J_z (ladder operators, ``|m>`` for m = -l..l) give the anti-Hermitian
    generators -i J_a; a unitary change to the real basis (real spherical harmonics) makes them real
    antisymmetric.  They are assigned to ``SO(3).lie`` in its order (rotations in the planes 01, 02,
    12, i.e. L_z, -L_y, L_x), so ``so3_irrep(1)`` is equivalent to ``V``.  Printed as ``L{l}``.

    >>> from lab.reps import V
    >>> L2 = so3_irrep(2)
    >>> L2, L2.size
    (L2 over SO(3), 5)
    >>> (L2 >> L2).solve(cache=False).rank, (so3_irrep(1) >> V).solve(cache=False).rank
    (1, 1)
    """
    if isinstance(l, bool) or not isinstance(l, (int, np.integer)) or l < 0:
        raise RepError(f"so3_irrep(l) needs an integer l >= 0, got {l!r}")
    G = SO(3) if group is None else (parse_group(group) if isinstance(group, str) else group)
    if G != SO(3):
        raise RepError(f"so3_irrep builds representations of SO(3), not of {G}")
    l = int(l)
    n = 2 * l + 1
    m = np.arange(-l, l + 1)
    Jp = np.zeros((n, n))
    Jp[np.arange(1, n), np.arange(n - 1)] = np.sqrt(l * (l + 1) - m[:-1] * (m[:-1] + 1))  # J+ |m> ~ |m+1>
    Jx, Jy, Jz = (Jp + Jp.T) / 2, (Jp - Jp.T) / 2j, np.diag(m).astype(complex)
    U = np.zeros((n, n), complex)  # rows: real basis (mu = -l..l), columns: |m>
    s = 1 / np.sqrt(2)
    for mu in range(-l, l + 1):
        if mu == 0:
            U[l, l] = 1
        elif mu > 0:
            U[l + mu, l - mu], U[l + mu, l + mu] = s, (-1) ** mu * s
        else:
            U[l + mu, l + mu], U[l + mu, l - mu] = 1j * s, -1j * (-1) ** mu * s
    real = []
    for J in (Jx, Jy, Jz):
        X = U @ (-1j * J) @ U.conj().T
        assert np.abs(X.imag).max() < 1e-12
        real.append(X.real)
    Lx, Ly, Lz = real
    return UserRep(f"L{l}" if name is None else name, G, lie=np.stack([Lz, -Ly, Lx]))


def regular_rep(group, name: str = "Reg", cap: int = 2000) -> UserRep:
    """The regular representation of a finite group: its elements permuted by left multiplication.

    Of size ``|G|`` (at most ``cap``); every irrep appears in it as often as its dimension, so the
    equivariant maps ``Reg >> Reg`` form a space of dimension ``|G|``.

    >>> from lab.groups import S
    >>> from lab.reps import V
    >>> R = regular_rep(S(3))
    >>> R.size, (R >> R).solve(cache=False).rank, (R >> V).solve(cache=False).rank
    (6, 6, 3)
    """
    G = parse_group(group) if isinstance(group, str) else group
    if not isinstance(G, Group) or G.num_lie:
        raise RepError(f"the regular representation needs a finite group, not {G}")
    elements = G.elements(cap=cap)
    if elements is None:
        raise RepError(f"{G} has more than {cap} elements: its regular representation is too large")
    index = {_key(g): i for i, g in enumerate(elements)}
    N = len(elements)
    mats = np.zeros((G.num_discrete, N, N))
    for k, h in enumerate(G.discrete):
        for j, g in enumerate(elements):
            mats[k, index[_key(h @ g)], j] = 1.0
    return UserRep(name, G, discrete=mats, size=N, check=False)
