"""``solve``: a representation split into its tensor blocks, each solved once by the chosen solver (or read from the
cache), assembled into a ``Solution``; installed behind ``Rep.solve`` on import (the package docstring says how)."""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from ..device import pick_device
from ..errors import SolverError
from ..reps.block import factors_to_text
from ..reps.rep import DualRep, set_solver
from . import cache as _cache
from . import cost as _cost
from . import memory
from .canonical import canonical_basis
from .choices import BASES, SOLVERS
from .dense import dense_basis
from .krylov import krylov_basis
from .orbit import orbit_basis, orbit_matrix
from .subgroup import subgroup_basis
from .verify import check_block

VERSION = 2  # 2: leaves identified by value (user reps by their matrices), one generator form


@dataclass
class BlockResult:
    """How one tensor block of a solved representation was solved (``Solution.blocks``, in the rep's block order).

    ``label`` is the block's printed rep (``T(1,1)``), ``factors`` its bound leaf reps, ``size`` its entries and
    ``rank`` the basis elements it contributes, found by ``solver``.  ``positions`` are the block's entries in the
    rep's vec layout (None when the block is the whole rep in natural order) and ``column_offset`` is its first
    column in the assembled basis ``Solution.Q``: the block's basis occupies rows ``positions`` and columns
    ``column_offset`` to ``column_offset + rank - 1``.
    """

    label: str
    factors: tuple[str, ...]
    size: int
    rank: int
    solver: str
    positions: np.ndarray | None  # None: the block is the whole rep in natural order
    column_offset: int


@dataclass
class Solution:
    """The equivariant basis of a representation and how it was obtained.

    >>> from lab import S, V
    >>> sol = (V >> V)(S(4)).solve(cache=False)      # DeepSets: the identity and the all-ones matrix
    >>> sol.rank, sol.dim, sol.solver, sol.is_sparse
    (2, 16, 'orbit', True)
    >>> [(b["rep"], b["rank"]) for b in sol.summary()["blocks"]]
    [('T(1,1)', 2)]
    """

    rep: object
    Q: object  # scipy.sparse.csc_matrix (orbit) or ndarray (size x rank)
    rank: int
    dim: int
    solver: str
    seconds: float
    blocks: list[BlockResult] = field(default_factory=list)
    labels: np.ndarray | None = None  # orbit solver: basis element of every entry (-1: none)
    signs: np.ndarray | None = None  # orbit solver: sign of every entry within its basis element
    cached: bool = False
    _canonical: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.Q)

    def basis(self, kind: str = "canonical"):
        """The basis of the equivariant space as a (dim x rank) matrix, one element per column.

        ``"solver"``: ``Q`` as solved (orthonormal columns; sparse for the orbit solver).  ``"canonical"``: the
        basis a person would draw (``lab.solvers.canonical``): for the orbit solver its 0/±1 orbit patterns
        (sparse), otherwise the sparsest reduced-row-echelon basis with exact small fractions, computed once
        and kept.  Both span the same space.

        >>> from lab import SO, T
        >>> B = (T(1) >> T(2))(SO(3)).solve(cache=False).basis()     # the Levi-Civita symbol
        >>> sorted(set(B.ravel().tolist()))
        [-1.0, 0.0, 1.0]
        """
        if kind not in BASES:
            raise SolverError(f"unknown basis {kind!r}: choose one of {', '.join(BASES)}")
        if kind == "solver":
            return self.Q
        if self.labels is not None:
            return orbit_matrix(self.labels, self.signs, self.rank, normalized=False)
        if self._canonical is None:
            self._canonical = canonical_basis(np.asarray(self.Q))
        return self._canonical

    def project(self, v):
        """Orthogonal projection ``Q Q^H v`` of a vector (size,) or matrix (size, n)."""
        v = np.asarray(v)
        return self.Q @ (self.Q.conj().T @ v)

    def projector(self) -> LinearOperator:
        """The projector onto the equivariant subspace as a LinearOperator (never a dense matrix)."""
        dtype = np.result_type(self.Q.dtype, np.float64)
        return LinearOperator((self.dim, self.dim), matvec=self.project, matmat=self.project,
                              rmatvec=self.project, dtype=dtype)

    def summary(self) -> dict:
        return {"rank": self.rank, "dim": self.dim, "solver": self.solver, "seconds": self.seconds,
                "group": str(self.rep.group), "rep": str(self.rep), "cached": self.cached,
                "blocks": [{"rep": b.label, "size": b.size, "rank": b.rank, "solver": b.solver}
                           for b in self.blocks]}


def _canonical_factors(factors):
    """The dual of a leaf that acts orthogonally acts by the same matrices: solve it as the leaf."""
    return tuple(f.inner if isinstance(f, DualRep) and f.inner.acts_orthogonally else f for f in factors)


def _base_only(factors) -> bool:
    """Every factor is V or V*: what the orbit and subgroup fast paths know how to solve."""
    return all(getattr(f, "tensor_role", None) in ("V", "V*") for f in factors)


def _block_dtype(group, factors):
    return np.result_type(group.dtype, *(f.dtype for f in factors))


def _choose(group, solver: str, factors, size: int, limit=None) -> str:
    if solver not in SOLVERS:
        raise SolverError(f"unknown solver {solver!r}: choose one of {', '.join(SOLVERS)}")
    base = _base_only(factors)
    if solver == "orbit" and not group.is_signed_permutation:
        raise SolverError(f"the orbit solver needs a (signed) permutation group; {group} is not one "
                          "(use dense or krylov)")
    if solver in ("orbit", "subgroup") and not base:
        raise SolverError(f"the {solver} solver handles tensors of V and V* only, not the block "
                          f"{factors_to_text(tuple(factors))} (use dense or krylov)")
    if solver == "subgroup" and group.finite_subgroup is None:
        raise SolverError(f"the subgroup solver needs a known finite subgroup; {group} has none (use krylov)")
    if getattr(group, "rank_tol", None) is not None and solver not in ("auto", "dense"):
        raise SolverError(f"{group} is a learned group solved with its stated tolerance: use the dense solver")
    if solver != "auto":
        return solver
    return _auto_plan(group, factors, size, memory.memory_limit(limit)).method


def _applicable(group, factors) -> list[str]:
    if getattr(group, "rank_tol", None) is not None:  # a learned group: its stated tolerance is the dense solver's
        return ["dense"]
    base = _base_only(factors)
    names = ["dense", "krylov"]
    if group.is_signed_permutation and base:
        names.insert(0, "orbit")
    if base and group.finite_subgroup is not None and group.num_lie:
        names.append("subgroup")
    return names


def _auto_plan(group, factors, size: int, limit: int) -> _cost.Cost:
    """``auto``: the orbit solver where it applies and fits (exact, sparse, linear in the block size: never
    the slow one, and its labels are what callers of permutation groups use); otherwise the method with the
    fewest estimated seconds among those whose estimated bytes fit ``limit`` (``lab.solvers.cost``)."""
    costs = _cost.costs(group, _canonical_factors(factors), size, _applicable(group, factors))
    orbit = [c for c in costs if c.method == "orbit" and c.bytes <= limit]
    return orbit[0] if orbit else _cost.cheapest(costs, limit)


def predict_seconds(rep, solver: str = "auto", memory_limit=None) -> float:
    """Estimated seconds of ``solve(rep, solver)`` from the cost model, without solving (the distinct blocks'
    chosen methods, summed); what a caller uses to decide where a solve should run.

    >>> from lab import S, SO, T
    >>> predict_seconds(T(2)(S(5))) < 0.1, predict_seconds(T(7)(SO(3)), "dense") > predict_seconds(T(7)(SO(3)))
    (True, True)
    """
    group = rep._require_group()
    limit = memory.memory_limit(memory_limit)
    seconds, seen = 0.0, set()
    for b in rep.blocks:
        factors = _canonical_factors(b.factors)
        name = _choose(group, solver, b.factors, b.size, limit)
        if (name, factors) in seen:
            continue
        seen.add((name, factors))
        seconds += _cost.costs(group, factors, b.size, [name])[0].seconds
    return seconds


def _estimate(group, solver, factors, size, limit):
    """Refuse a block before anything is allocated when the chosen method's byte estimate (an upper bound, see
    ``lab.solvers.memory``) is over the limit; also sizes the thread pools to the cores, once."""
    _cost.match_threads()
    what = f"solving the {size}-entry block {factors_to_text(tuple(factors))} of {group} with the {solver} solver"
    need = _cost.costs(group, factors, size, [solver])[0].bytes
    memory.check(what, need, limit)


#: bump a solver's number whenever a change to it could change the bases it returns: its old cache entries
#: then stop matching (they are never read again) instead of being trusted
SOLVER_VERSIONS = {"orbit": 1, "dense": 1, "krylov": 1, "subgroup": 1}


def cache_key(group, solver: str, factors) -> str:
    """The basis cache's name for a block: a hash of the whole request, so that an entry is only ever found
    again by the same question.

    Hashed: the cache format ``VERSION``, the solver's name and ``SOLVER_VERSIONS`` number, the group by value
    (``group.key``: its generator matrices and Lie algebra, not its name), the subgroup the ``subgroup`` solver
    works in, and every leaf of the block by value (``Leaf.token``: its matrices) in order.  The readable
    prefix ``v{VERSION}-{group.key}-{solver}-`` lets a person find a group's entries on disk.
    """
    h = hashlib.sha256()
    subgroup = getattr(group, "finite_subgroup", None) if solver == "subgroup" else None
    for part in (f"format={VERSION}", f"solver={solver}", f"solver_version={SOLVER_VERSIONS.get(solver, 0)}",
                 f"group={group.key}", f"d={group.d}", f"subgroup={subgroup.key if subgroup is not None else ''}",
                 f"factors={len(factors)}", *(f"leaf={f.token}" for f in factors)):
        h.update(part.encode())
        h.update(b"\n")
    return f"v{VERSION}-{group.key}-{solver}-{h.hexdigest()[:32]}"


def _solve_block(group, factors, solver, device, limit, use_disk, progress):
    key = cache_key(group, solver, factors)
    if getattr(group, "rank_tol", None) is not None:
        use_disk = False  # a learned group's basis is approximate: the disk cache's equivariance check would refuse it
    # an entry read from disk is used only if it passes an equivariance check (``lab.solvers.verify``):
    # a checksum cannot catch a wrong basis written with a fresh checksum
    hit = _cache.get(key, use_disk, verify=lambda arrays: check_block(group, factors, solver, arrays))
    if hit is not None:
        return hit, True
    if solver == "orbit":
        perms, signs = group.perms
        if len(perms) == 0:  # no generators: every entry is its own orbit
            perms, signs = np.arange(group.d)[None], np.ones((1, group.d), dtype=np.int8)
        ob = orbit_basis(perms, signs, len(factors))
        arrays = {"labels": ob.labels, "signs": ob.signs, "rank": np.array(ob.rank)}
    elif solver == "dense":
        arrays = {"Q": dense_basis(group, factors)}
    else:
        solve_block = krylov_basis if solver == "krylov" else subgroup_basis
        arrays = {"Q": solve_block(group, factors, device=pick_device(device), memory_limit=limit,
                                   progress=progress)}
    _cache.put(key, arrays, use_disk)
    return arrays, False


def solve(rep, solver: str = "auto", device: str | None = None, memory_limit=None, cache: bool = True,
          progress=None) -> Solution:
    """Solve for the equivariant basis of ``rep`` (see the module docstring); ``rep.solve()`` calls this.

    >>> from lab import SO, T
    >>> solve(T(3)(SO(3)), cache=False).rank      # the Levi-Civita symbol
    1
    >>> solve(T(3)(SO(3)), solver="orbit")
    Traceback (most recent call last):
    ...
    lab.errors.SolverError: the orbit solver needs a (signed) permutation group; SO(3) is not one (use dense or krylov)
    """
    t0 = time.perf_counter()
    group = rep._require_group()
    blocks = rep.blocks
    limit = memory.memory_limit(memory_limit)
    plan = []
    for b in blocks:
        name = _choose(group, solver, b.factors, b.size, limit)
        plan.append((b, name, _canonical_factors(b.factors)))
    for b, name, factors in {(n, f): (b, n, f) for b, n, f in plan}.values():
        _estimate(group, name, factors, b.size, limit)

    solved: dict = {}
    hits = []  # per distinct block: read from the cache (memory or disk) rather than solved now
    for i, (b, name, factors) in enumerate(plan):
        if (name, factors) not in solved:
            within = None
            if progress:
                progress(i / len(plan), f"solving block {b.label} ({b.size} entries) with {name}")
                # a block solver's own fractions (0..1 of its block) are this block's share of the whole solve,
                # so that the fraction only grows across blocks and the ETA holds
                within = (lambda f, *message, i=i: progress((i + min(max(f, 0.0), 1.0)) / len(plan), *message))
            solved[(name, factors)], hit = _solve_block(group, factors, name, device, limit, cache, within)
            hits.append(hit)
    all_cached = bool(hits) and all(hits)  # a rep with no blocks (0*V) was read from nowhere

    names = sorted({name for _, name, _ in plan})
    used = names[0] if len(names) == 1 else "+".join(names)
    size = rep.size
    results, col = [], 0
    single = len(plan) == 1 and plan[0][0].contiguous and plan[0][0].offset == 0
    if names == ["orbit"]:
        labels = np.full(size, -1, dtype=np.int32)
        signs = np.zeros(size, dtype=np.int8)
        for b, name, factors in plan:
            arr = solved[(name, factors)]
            r = int(arr["rank"])
            pos = None if single else b.positions()
            lab = arr["labels"]
            if single:
                labels, signs = lab.astype(np.int32, copy=False), arr["signs"]
            else:
                labels[pos] = np.where(lab >= 0, lab + col, -1)
                signs[pos] = arr["signs"]
            results.append(BlockResult(b.label, b.factors, b.size, r, name, pos, col))
            col += r
        Q = orbit_matrix(labels, signs, col)
    else:
        dtype = np.result_type(group.dtype, *(_block_dtype(group, f) for _, _, f in plan))
        cols = [(b, name, factors, solved[(name, factors)]) for b, name, factors in plan]
        total = sum(_block_rank(a) for *_, a in cols)
        memory.check(f"assembling the {size} x {total} basis", size * total * np.dtype(dtype).itemsize, limit)
        Q = np.zeros((size, total), dtype=dtype)
        labels = signs = None
        for b, name, factors, arr in cols:
            Qb = _block_dense(arr)
            pos = b.positions()
            Q[pos, col:col + Qb.shape[1]] = Qb
            results.append(BlockResult(b.label, b.factors, b.size, Qb.shape[1], name, None if single else pos, col))
            col += Qb.shape[1]
    seconds = time.perf_counter() - t0
    if progress:
        progress(1.0, f"rank {col} of {size} ({used}, {seconds:.2f} s)")
    return Solution(rep=rep, Q=Q, rank=col, dim=size, solver=used, seconds=seconds, blocks=results,
                    labels=labels, signs=signs, cached=all_cached)


def _block_rank(arrays) -> int:
    return int(arrays["rank"]) if "rank" in arrays else arrays["Q"].shape[1]


def _block_dense(arrays) -> np.ndarray:
    if "Q" in arrays:
        return arrays["Q"]
    return orbit_matrix(arrays["labels"], arrays["signs"], int(arrays["rank"])).toarray()


set_solver(solve)
