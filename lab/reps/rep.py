"""Representations: an open value type and the tensor algebra built on it.

A representation is any ``Rep`` with a ``size``, ``rho(g)`` and ``drho(A)`` (the matrices at a group element
and a Lie-algebra element of its group), a ``dual`` and equality by value.  Leaves (``Leaf``: the base
representation ``V``, its dual ``V*``, ``Scalar``, a user's own rep) know their matrices; direct sums,
tensor products, duals, ``A >> B`` (linear maps from A to B, i.e. ``B (x) A*``) and ``T(p, q)`` (that is
``V^(x)p (x) V*^(x)q``) are built from them.  A representation expands into ``Block``s: tensor products of
leaves at known positions of the natural vec layout; the solvers work block by block.

Reps can be written unbound (``T(2) + 3*V``) and bound to a group by calling them (``rep(S(5))``), or
built bound from the start (``V(S(5))``).  Combining reps of two different groups raises ``RepError``.
Equality is by value: the same expression (sums and products flattened, scalar factors dropped) over the
same group, never by the printed text.

>>> from lab.groups import S
>>> rep = (T(2) + 3 * V)(S(4))
>>> rep, rep.size
(T(2) + 3*V over S(4), 28)
>>> rep == (V * V + V + V + V)(S(4)), (V >> V)(S(4)) == T(1, 1)(S(4))
(True, True)
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from functools import cached_property
from itertools import product as iproduct

import numpy as np

from .. import limits
from ..errors import RepError
from ..groups import Group, parse_group
from ..kron import kron_all, kron_sum
from .block import Block, factors_to_text  # noqa: F401  (factors_to_text: re-exported)

_SCALAR_FORM = ("Scalar",)

# ---------------------------------------------------------------------- the solver extension point
# Representations do not call the solvers (the solvers stand above them); ``lab.solvers`` installs its
# ``solve`` here when it is imported, and the first ``rep.solve()`` imports it when nothing is installed yet.
_solver = None


def set_solver(fn) -> None:
    """Install the function behind ``Rep.solve`` (done by ``lab.solvers`` on import)."""
    global _solver
    _solver = fn


def _get_solver():
    if _solver is None:  # the lab's own solvers, by name: they import this module, so not the other way round
        import importlib

        importlib.import_module("lab.solvers.solution")
    if _solver is None:
        raise RepError("no solver is installed: lab.solvers.solution did not install its solve")
    return _solver


def _combine_groups(*groups):
    found = [g for g in groups if g is not None]
    for g in found[1:]:
        if g != found[0]:
            raise RepError(f"representations over different groups cannot be combined: {found[0]} and {g}")
    return found[0] if found else None


class Rep:
    """Base class of representations; see the module docstring."""

    group: Group | None = None
    precedence = 4  # for printing: 4 atom, 3 power, 2 product, 1 sum, 0 map

    # ------------------------------------------------------------------ structure
    def bind(self, group: Group) -> "Rep":
        raise NotImplementedError

    def __call__(self, group) -> "Rep":
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

    def _blocks(self) -> list[Block]:
        raise NotImplementedError

    @property
    def dual(self) -> "Rep":
        raise NotImplementedError

    @property
    def T(self) -> "Rep":
        """The dual representation (``rho(g^-1)^T``)."""
        return self.dual

    # ------------------------------------------------------------------ value semantics
    @cached_property
    def _form(self) -> tuple:
        """The normal form of the expression: what equality compares (with the group)."""
        raise NotImplementedError

    def __eq__(self, other):
        if not isinstance(other, Rep):
            return NotImplemented
        return self is other or (self._form == other._form and self.group == other.group)

    def __hash__(self):
        return hash((self._form, self.group))

    def __repr__(self):
        return str(self) if self.group is None else f"{self} over {self.group}"

    # ------------------------------------------------------------------ algebra
    def __add__(self, other):
        if not isinstance(other, Rep):
            return NotImplemented
        return SumRep([self, other])

    def __radd__(self, other):
        if not isinstance(other, Rep):
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
        limits.check("tensor_order", int(k) * max(self.measure[2], 1), f"({_short(self)})**{k}")
        if k == 0:
            return ScalarRep(self.group)
        return self if k == 1 else ProductRep([self] * int(k))

    def __rshift__(self, other):
        if not isinstance(other, Rep):
            return NotImplemented
        return ProductRep([other, self.dual], maps=(self, other))

    # ------------------------------------------------------------------ sizes and blocks
    @property
    def size(self) -> int:
        """Dimension of the representation space (an exact Python integer, computed without the blocks)."""
        self._require_group()
        return self.measure[0]

    def __len__(self):
        return self.size

    @cached_property
    def measure(self) -> tuple[int | None, int, int]:
        """(dimension, number of blocks, tensor order) from the expression alone, in exact integers.

        The dimension is None while the rep is unbound; the block count is an upper bound.  This is what the
        limits (``lab.limits``) are checked against before ``blocks`` lays anything out.
        """
        raise NotImplementedError

    def check_limits(self, what: str | None = None) -> "Rep":
        """Raise ``LimitError`` (or ``MemoryLimitError``) if laying out this rep's blocks is over a limit."""
        size, n_blocks, order = self.measure
        what = what or f"the representation {_short(self)}"
        limits.check("tensor_order", order, what)
        limits.check("blocks", n_blocks, what)
        if size is not None:
            limits.check("rep_size", size, what)
            if n_blocks > 1:  # every non-contiguous block keeps an int64 index of its positions
                limits.check_memory(f"laying out the {size:,} entries of {what}", 8 * size)
        return self

    @cached_property
    def blocks(self) -> list[Block]:
        """Tensor-product blocks in natural-layout order (see ``Block``); the limits are checked first."""
        self._require_group()
        self.check_limits()
        return self._blocks()

    @cached_property
    def dtype(self):
        """complex128 when the group or a leaf acts by complex matrices, else float64."""
        leaves = {f for b in self.blocks for f in b.factors}
        return np.result_type(self._require_group().dtype, *(f.dtype for f in leaves))

    # ------------------------------------------------------------------ group action
    def rho(self, g) -> np.ndarray:
        """Dense matrix of the representation at the group element ``g`` (a d x d base matrix)."""
        self._require_group()
        g = np.asarray(g)
        mats = self._per_leaf(lambda f: f.rho(g))
        return self._dense_blockwise(lambda factors: kron_all([mats[f] for f in factors]))

    def drho(self, A) -> np.ndarray:
        """Dense matrix of the Lie-algebra representation at ``A`` (a d x d algebra element)."""
        self._require_group()
        A = np.asarray(A)
        mats = self._per_leaf(lambda f: f.drho(A))
        return self._dense_blockwise(lambda factors: kron_sum([mats[f] for f in factors]))

    def _per_leaf(self, matrix_of) -> dict:
        return {f: np.asarray(matrix_of(f)) for b in self.blocks for f in b.factors}

    def _dense_blockwise(self, block_matrix) -> np.ndarray:
        blocks = [(b, block_matrix(b.factors)) for b in self.blocks]
        out = np.zeros((self.size, self.size), dtype=np.result_type(float, *(m for _, m in blocks)))
        for b, m in blocks:
            pos = b.positions()
            out[np.ix_(pos, pos)] = m
        return out

    def act(self, g, v) -> np.ndarray:
        """``rho(g) @ v`` computed block by block along tensor axes, without the size x size matrix."""
        self._require_group()
        g = np.asarray(g)
        mats = self._per_leaf(lambda f: f.rho(g))
        v = np.asarray(v)
        vec = v.ndim == 1
        V2 = v[:, None] if vec else v
        out = np.zeros(V2.shape, dtype=np.result_type(V2, float, *mats.values()))
        for b in self.blocks:
            pos = b.positions()
            X = V2[pos].reshape(b.dims + (V2.shape[1],))
            for a, f in enumerate(b.factors):
                X = np.moveaxis(np.tensordot(mats[f], X, axes=([1], [a])), 0, a)
            out[pos] = X.reshape(b.size, -1)
        return out[:, 0] if vec else out

    # ------------------------------------------------------------------ solving
    def solve(self, solver: str = "auto", device: str | None = None, memory_limit: int | None = None,
              cache: bool = True, progress=None):
        """Solve for the equivariant basis; returns a ``Solution`` (basis, rank, solver, timing, labels)."""
        return _get_solver()(self, solver=solver, device=device, memory_limit=memory_limit, cache=cache,
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


def dimension_over(rep: Rep, d: int) -> int:
    """The dimension ``rep`` will have over a group acting on R^d, computed without the group (exact).

    >>> dimension_over(T(2) + 3 * V, 4), dimension_over(V >> V, 10**6)
    (28, 1000000000000)
    """
    if isinstance(rep, SumRep):
        return sum(dimension_over(c, d) for c in rep.children)
    if isinstance(rep, ProductRep):
        return math.prod(dimension_over(c, d) for c in rep.children)
    if isinstance(rep, TrivialRep):
        return 1
    return rep.size if rep.group is not None else d


def _short(rep) -> str:
    text = str(rep)
    return text if len(text) <= 40 else text[:37] + "..."


def _multiplicity(rep: Rep, k: int) -> Rep:
    if k < 0:
        raise RepError("a multiplicity must be non-negative")
    limits.check("multiplicity", k, f"{k}*{_short(rep)}")
    if k == 0:
        return SumRep([], group=rep.group)
    return rep if k == 1 else SumRep([rep] * k)


# ---------------------------------------------------------------------- leaves
class Leaf(Rep):
    """A representation that is not a sum or a product: the extension point of the algebra.

    A subclass is bound to a group (``self.group``) and gives its ``size`` and either ``rho(g)`` and
    ``drho(A)`` for any element, or ``generators()``: the matrices of the group's discrete generators
    (``group.discrete``) and Lie-algebra basis (``group.lie``), which is all the solvers need.  It
    compares by ``_identity`` (a hashable tuple; the group is compared separately) and prints as
    ``str()``, which must be a name the rep language can read back (see ``register_rep``).
    """

    #: "V" or "V*" for the base representation and its dual (the orbit and subgroup solvers' fast paths)
    tensor_role: str | None = None

    @cached_property
    def measure(self):
        return (self.size if self.group is not None else None, 1, 1)

    @property
    def _identity(self) -> tuple:
        raise NotImplementedError

    @cached_property
    def _form(self) -> tuple:
        return self._identity

    @property
    def dual(self) -> Rep:
        return DualRep(self)

    def _blocks(self):
        return [Block((self,), self.size)]

    def generators(self) -> tuple[np.ndarray, np.ndarray]:
        """(rho of each discrete generator (M, n, n), drho of each Lie-algebra basis element (D, n, n))."""
        return self._generators

    @cached_property
    def _generators(self):
        G = self._require_group()
        n = self.size
        disc = np.stack([np.asarray(self.rho(h)) for h in G.discrete]) if G.num_discrete else np.zeros((0, n, n))
        lie = np.stack([np.asarray(self.drho(A)) for A in G.lie]) if G.num_lie else np.zeros((0, n, n))
        return disc, lie

    @cached_property
    def dtype(self):
        return np.result_type(*self.generators(), float)

    @cached_property
    def acts_orthogonally(self) -> bool:
        """Real orthogonal rho(h) and antisymmetric drho(A): then the dual acts by the same matrices."""
        disc, lie = self.generators()
        if np.iscomplexobj(disc) or np.iscomplexobj(lie):
            return False
        eye = np.eye(self.size)
        return (all(np.allclose(h @ h.T, eye, atol=1e-10) for h in disc)
                and all(np.allclose(A.T, -A, atol=1e-10) for A in lie))

    @cached_property
    def token(self) -> str:
        """What the basis cache knows this leaf by: a hash of its generator matrices."""
        h = hashlib.sha256(type(self).__qualname__.encode())
        for a in self.generators():
            a = np.ascontiguousarray(np.round(a, 12) + 0.0)
            h.update(f"{a.dtype.str}{a.shape}".encode())
            h.update(a.tobytes())
        return "h" + h.hexdigest()[:20]


@dataclass(frozen=True, eq=False, repr=False)
class BaseRep(Leaf):
    """``V``: the base representation, the group's own matrices; ``V(G)`` binds it to a group.

    >>> from lab.groups import SO
    >>> V(SO(3)).size, V(SO(3)).rho(np.eye(3)).tolist() == np.eye(3).tolist()
    (3, True)
    """

    group: Group | None = None
    tensor_role = "V"
    token = "a"

    def bind(self, group):
        return replace(self, group=group)

    @property
    def _identity(self):
        return ("V",)

    @property
    def size(self):
        return self._require_group().d

    def rho(self, g):
        return np.asarray(g)

    def drho(self, A):
        return np.asarray(A)

    def generators(self):
        G = self._require_group()
        return G.discrete, G.lie

    @property
    def dtype(self):
        return self._require_group().dtype

    @property
    def acts_orthogonally(self):
        return self._require_group().is_orthogonal

    def __str__(self):
        return "V"


@dataclass(frozen=True, eq=False, repr=False)
class DualRep(Leaf):
    """The dual ``X*`` of a leaf: ``rho(g^-1)^T`` and ``-drho(A)^T``; ``V.T`` is the dual of ``V``."""

    inner: Leaf = None
    group: Group | None = None

    def __post_init__(self):
        if self.group is None and self.inner.group is not None:
            object.__setattr__(self, "group", self.inner.group)

    @property
    def tensor_role(self):
        return "V*" if self.inner.tensor_role == "V" else None

    def bind(self, group):
        inner = self.inner.bind(group)
        return DualRep(inner, inner.group)

    @property
    def _identity(self):
        return ("dual", self.inner._form)

    @property
    def dual(self):
        return self.inner

    @property
    def size(self):
        return self.inner.size

    def rho(self, g):
        return np.linalg.inv(self.inner.rho(g)).T

    def drho(self, A):
        return -np.asarray(self.inner.drho(A)).T

    @cached_property
    def _generators(self):
        if isinstance(self.inner, BaseRep):
            G = self._require_group()
            return G.discrete_dual, G.lie_dual
        disc, lie = self.inner.generators()
        eye = np.eye(self.size)
        if all(np.allclose(h @ h.conj().T, eye, atol=1e-10) for h in disc):
            disc_dual = disc.conj()
        else:
            disc_dual = np.stack([np.linalg.inv(h).T for h in disc]) if len(disc) else disc
        return disc_dual, -np.transpose(lie, (0, 2, 1))

    @property
    def dtype(self):
        return self.inner.dtype

    @property
    def acts_orthogonally(self):
        return self.inner.acts_orthogonally

    @cached_property
    def token(self):
        return "b" if isinstance(self.inner, BaseRep) else "d" + self.inner.token

    def __str__(self):
        return f"{_wrap(self.inner, 4)}.T"


@dataclass(frozen=True, eq=False, repr=False)
class TrivialRep(Leaf):
    """``Scalar``: the one-dimensional trivial representation (no tensor factor in a block)."""

    group: Group | None = None

    def bind(self, group):
        return replace(self, group=group)

    @property
    def _identity(self):
        return _SCALAR_FORM

    @property
    def dual(self):
        return self

    @property
    def size(self):
        return 1

    def rho(self, g):
        return np.ones((1, 1))

    def drho(self, A):
        return np.zeros((1, 1))

    def _blocks(self):
        return [Block((), 1)]

    @cached_property
    def measure(self):
        return (1, 1, 0)

    @property
    def dtype(self):
        return np.dtype(np.float64)

    acts_orthogonally = True
    token = "s"

    def __str__(self):
        return "Scalar"


def ScalarRep(group=None) -> TrivialRep:
    """``Scalar`` bound to ``group`` (or unbound)."""
    return TrivialRep(group)


# ---------------------------------------------------------------------- sums and products
def _bind_children(children: list[Rep], group) -> tuple[Rep, ...]:
    return tuple(children if group is None else (c if c.group is not None else c.bind(group) for c in children))


def _same(a: Rep, b: Rep) -> bool:
    """Printed as one repeated term (``3*V``, ``V**2``): equal in value and in text."""
    return str(a) == str(b) and a == b


class SumRep(Rep):
    """Direct sum: blocks of the summands concatenated."""

    precedence = 1

    def __init__(self, children: list[Rep], group: Group | None = None):
        flat: list[Rep] = []
        for c in children:
            flat.extend(c.children if isinstance(c, SumRep) else [c])
        self.group = _combine_groups(group, *(c.group for c in flat))
        self.children = _bind_children(flat, self.group)

    def bind(self, group):
        return SumRep([c.bind(group) for c in self.children], group=group)

    @property
    def dual(self):
        return SumRep([c.dual for c in self.children], group=self.group)

    @cached_property
    def _form(self):
        forms = tuple(c._form for c in self.children)
        return forms[0] if len(forms) == 1 else ("sum", forms)

    @cached_property
    def measure(self):
        parts = [c.measure for c in self.children]
        size = None if any(p[0] is None for p in parts) else sum(p[0] for p in parts)
        return (size, sum(p[1] for p in parts), max((p[2] for p in parts), default=0))

    def _blocks(self):
        out, offset = [], 0
        for c in self.children:
            blocks = c._blocks()
            out.extend(b.shifted(offset) for b in blocks)
            offset += sum(b.size for b in blocks)
        return out

    def __str__(self):
        if not self.children:
            return "0*Scalar"
        parts, i = [], 0
        while i < len(self.children):
            c, j = self.children[i], i
            while j < len(self.children) and _same(self.children[j], c):
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
        self.maps = maps
        if maps is not None:
            self.precedence = 0
        self.group = _combine_groups(*(c.group for c in flat))
        order = sum(c.measure[2] for c in flat)
        if order > limits.get("tensor_order"):
            limits.check("tensor_order", order, "*".join(_short(c) for c in flat[:3]) + ("*..." if len(flat) > 3 else ""))
        self.children = _bind_children(flat, self.group)
        if maps is not None and self.group is not None:
            self.maps = _bind_children(list(maps), self.group)

    def bind(self, group):
        maps = None if self.maps is None else (self.maps[0].bind(group), self.maps[1].bind(group))
        return ProductRep([c.bind(group) for c in self.children], maps=maps)

    @property
    def dual(self):
        return ProductRep([c.dual for c in self.children])

    @cached_property
    def _form(self):
        forms: list = []
        for c in self.children:  # associativity of (x) and Scalar (x) X = X hold exactly in the layout
            f = c._form
            if f == _SCALAR_FORM:
                continue
            forms.extend(f[1] if f[0] == "prod" else [f])
        if not forms:
            return _SCALAR_FORM
        return forms[0] if len(forms) == 1 else ("prod", tuple(forms))

    @cached_property
    def measure(self):
        parts = [c.measure for c in self.children]
        size = None if any(p[0] is None for p in parts) else math.prod(p[0] for p in parts)
        n_blocks = math.prod(p[1] for p in parts)
        return (size, n_blocks, sum(p[2] for p in parts))

    def _blocks(self):
        child_blocks = [c._blocks() for c in self.children]
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
        roles = [c.tensor_role if isinstance(c, Leaf) else None for c in self.children]
        if None not in roles and roles == sorted(roles):  # V...V V*...V*
            p, q = roles.count("V"), roles.count("V*")
            return f"T({p},{q})" if q else f"T({p})"
        parts, i = [], 0
        while i < len(self.children):
            c, j = self.children[i], i
            while j < len(self.children) and _same(self.children[j], c):
                j += 1
            s = _wrap(c, 3)
            parts.append(s if j - i == 1 else f"{s}**{j - i}")
            i = j
        return "*".join(parts)


def _wrap(rep: Rep, min_prec: int) -> str:
    s = str(rep)
    return f"({s})" if rep.precedence < min_prec else s


V = BaseRep()
Vstar = DualRep(V)
Scalar = TrivialRep()


def T(p: int, q: int = 0, G: Group | None = None) -> Rep:
    """Tensors of type (p, q): ``V^(x)p (x) (V*)^(x)q``.

    >>> from lab.groups import S
    >>> T(2), T(1, 1), T(0), T(3)(S(4)).size
    (T(2), T(1,1), Scalar, 64)
    """
    for x in (p, q):
        if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 0:
            raise RepError(f"T(p, q) needs non-negative integers, got T({p}, {q})")
    limits.check("tensor_order", int(p) + int(q), f"T({p},{q})" if q else f"T({p})")
    leaves = [V if G is None else V.bind(G)] * p + [Vstar if G is None else Vstar.bind(G)] * q
    if not leaves:
        return ScalarRep(G)
    return leaves[0] if len(leaves) == 1 else ProductRep(leaves)
