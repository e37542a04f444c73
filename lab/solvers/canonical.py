"""A canonical basis of a solved equivariant space: the basis a person would write down.

The dense, Krylov and subgroup solvers return an orthonormal basis ``Q`` of the equivariant space, which is
an arbitrary rotation of any readable one (an SVD mixture).  ``canonical_basis(Q)`` spans exactly the same
space with elements that read like the textbook ones:

1. **reduced row echelon form** of ``Q^T`` (Gauss-Jordan, pivot columns taken left to right with partial
   pivoting and a tolerance): element k is 1 at its pivot entry and 0 at every other element's pivot;
2. **sparsified**: an element minus a multiple of another replaces it whenever that has fewer nonzero
   entries (the multiple that cancels the most entries), until no such step helps.  This keeps the span
   (each step is invertible) and turns, e.g., SO(3) on ``T(2) >> T(2)`` from RREF's ``δ_il δ_jk``,
   ``δ_ij δ_kl − δ_il δ_jk``, ``δ_ik δ_jl − δ_il δ_jk`` into the identity, transpose and trace patterns
   ``δ_ik δ_jl``, ``δ_il δ_jk``, ``δ_ij δ_kl`` themselves;
3. **cleaned**: each element scaled to max |entry| = 1 with its first nonzero entry real and positive, then
   entries within ``SNAP_TOL`` of a fraction with denominator at most ``MAX_DENOMINATOR`` set to it exactly
   (kept only if the cleaned basis still lies in the space); elements ordered by their first nonzero entry.

Finding the sparsest basis is NP-hard in general; step 2 is a greedy heuristic that finds it for the tensor
bases of SO(n), O(n), the Lorentz groups and their kin (products of δ, ε and η patterns), helped by an L1
exchange step (a row replaced by the least-L1 combination that keeps it, when that has fewer nonzeros).  The
pairwise step runs while ``r^2 * n`` is at most ``SPARSIFY_WORK``, the L1 step while ``r * n`` is at most
``EXCHANGE_WORK`` (a fraction of a second each at those sizes); larger spaces keep what the cheaper steps gave.

>>> import numpy as np
>>> identity_and_swap = np.array([[1., 0.], [0., 1.], [0., 1.], [1., 0.]])   # 2 x 2 matrices, flattened
>>> Q, _ = np.linalg.qr(identity_and_swap @ [[2., 1.], [-1., 3.]])          # an orthonormal mixture
>>> canonical_basis(Q).T
array([[1., 0., 0., 1.],
       [0., 1., 1., 0.]])
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

TOL = 1e-7  # entries below this (relative to the largest) are zero
SNAP_TOL = 1e-7  # an entry this close to a small fraction becomes that fraction
MAX_DENOMINATOR = 12
SPARSIFY_WORK = 2e8  # r^2 * n above which the greedy sparsification is skipped (RREF only)
MAX_SWEEPS = 20
EXCHANGE_WORK = 100_000  # r * n above which the L1 exchange step is skipped (its LPs have 2n rows)


def rref(M: np.ndarray, tol: float = TOL) -> tuple[np.ndarray, list[int]]:
    """(R, pivots): the reduced row echelon form of the rows of ``M`` (r x n), zero rows dropped, and its
    pivot columns.  Pivot columns are the leftmost columns independent of those before them (up to ``tol``
    relative to the largest entry)."""
    M = np.array(M, dtype=np.result_type(M.dtype, np.float64), copy=True)
    r, n = M.shape
    scale = float(np.abs(M).max()) if M.size else 0.0
    if scale == 0.0:
        return M[:0], []
    eps = tol * scale
    pivots: list[int] = []
    row = col = 0
    while row < r and col < n:
        live = np.flatnonzero((np.abs(M[row:, col:]) > eps).any(axis=0))
        if live.size == 0:
            break
        c = col + int(live[0])
        p = row + int(np.argmax(np.abs(M[row:, c])))
        if p != row:
            M[[row, p]] = M[[p, row]]
        M[row] /= M[row, c]
        factors = M[:, c].copy()
        factors[row] = 0
        M -= np.outer(factors, M[row])
        M[:, c] = 0
        M[row, c] = 1
        pivots.append(c)
        row += 1
        col = c + 1
    R = M[:row]
    R[np.abs(R) <= eps * max(1.0, float(np.abs(R).max()))] = 0
    return R, pivots


def _ratio_key(x: np.ndarray) -> np.ndarray:
    """Ratios rounded so that equal ones (up to rounding noise) compare equal."""
    return np.round(x, 7) + 0.0  # + 0.0: -0.0 and 0.0 are one key


def _cost(row: np.ndarray) -> tuple[int, int]:
    """What sparsification lowers: nonzero entries, then negative ones (I and swap over I - swap)."""
    return int(np.count_nonzero(row)), int(np.count_nonzero(row.real < 0))


def sparsify(R: np.ndarray, tol: float = TOL, max_sweeps: int = MAX_SWEEPS) -> np.ndarray:
    """Greedy pairwise sparsification of the rows of ``R`` (same span, see the module docstring): row i
    becomes ``R[i] - c R[j]`` when that lowers ``_cost`` (fewer nonzeros; at equal count, fewer negative
    entries), c the ratio ``R[i] / R[j]`` shared by the most common entries."""
    R = R.copy()
    r = R.shape[0]
    if r < 2:
        return R
    support = np.abs(R) > tol
    R[~support] = 0
    for _ in range(max_sweeps):
        improved = False
        nnz = support.sum(axis=1)
        overlap = support.astype(np.int32) @ support.T.astype(np.int32)
        for i in range(r):
            for j in range(r):
                # subtracting a multiple of row j cancels at most overlap[i, j] entries of row i and adds
                # the entries of row j outside row i: it cannot lower the count if 2 * overlap < nnz[j]
                if i == j or 2 * overlap[i, j] < nnz[j]:
                    continue
                both = support[i] & support[j]
                ratios = R[i, both] / R[j, both]
                keys = _ratio_key(ratios)
                values, counts = np.unique(keys, return_counts=True)
                k = int(np.argmax(counts))
                if counts[k] < nnz[j] - overlap[i, j]:
                    continue
                row = R[i] - ratios[keys == values[k]].mean() * R[j]
                row[np.abs(row) <= tol] = 0
                if _cost(row) >= _cost(R[i]):
                    continue
                R[i] = row
                support[i] = row != 0
                nnz[i] = support[i].sum()
                overlap[i, :] = overlap[:, i] = support.astype(np.int32) @ support[i].astype(np.int32)
                improved = True
        if not improved:
            break
    return R


def _l1_step(R: np.ndarray, i: int) -> np.ndarray | None:
    """The row ``R[i] + sum_j c_j R[j]`` (j != i) of least L1 norm (a least-absolute-deviations fit, as a
    linear program), or None when the solver fails.  Its coefficient on ``R[i]`` is 1, so it can replace
    ``R[i]`` without changing the span; L1 minimisation finds the sparse vectors (a vertex of the LP has at
    least r - 1 zero entries)."""
    import scipy.sparse as sp
    from scipy.optimize import linprog

    b = R[i]
    A = sp.csr_matrix(np.delete(R, i, axis=0).T)  # n x (r - 1), as sparse as the rows
    n, m = A.shape
    # variables (c, t): minimise sum t subject to -t <= b + A c <= t
    eye = sp.identity(n, format="csr")
    A_ub = sp.vstack([sp.hstack([A, -eye]), sp.hstack([-A, -eye])], format="csr")
    b_ub = np.concatenate([-b, b])
    cost = np.concatenate([np.zeros(m), np.ones(n)])
    res = linprog(cost, A_ub=A_ub, b_ub=b_ub, bounds=[(None, None)] * m + [(0, None)] * n, method="highs")
    if res.status != 0:
        return None
    return b + A @ res.x[:m]


def exchange(R: np.ndarray, tol: float = TOL, max_sweeps: int = 3) -> np.ndarray:
    """Replace rows by sparser ones from ``_l1_step`` while that lowers their number of nonzeros (real rows
    only; same span).  Rows as sparse as the sparsest are kept: the step looks for the others."""
    R = R.copy()
    if R.shape[0] < 2 or np.iscomplexobj(R):
        return R
    for _ in range(max_sweeps):
        improved = False
        nnz = np.count_nonzero(R, axis=1)
        for i in np.flatnonzero(nnz > nnz.min()):  # the sparsest rows are left as they are
            v = _l1_step(R, i)
            if v is None:
                continue
            v[np.abs(v) <= tol * max(1.0, float(np.abs(v).max()))] = 0
            if np.count_nonzero(v) < np.count_nonzero(R[i]):
                R[i] = v
                improved = True
        if not improved:
            break
    return R


def _snap(x: np.ndarray, tol: float = SNAP_TOL, max_denominator: int = MAX_DENOMINATOR,
          max_values: int = 10_000) -> np.ndarray:
    """Real entries within ``tol`` of a fraction p/q (q <= ``max_denominator``) set to it exactly (skipped when
    there are more than ``max_values`` distinct values: such a basis has no small-fraction form)."""
    flat = x.ravel().copy()
    nz = np.flatnonzero(flat)
    values, inverse = np.unique(np.round(flat[nz], 9), return_inverse=True)
    if values.size > max_values:
        return x.copy()
    fractions = np.array([float(Fraction(float(v)).limit_denominator(max_denominator)) for v in values])
    target = fractions[inverse.ravel()]
    near = np.abs(flat[nz] - target) <= tol
    flat[nz[near]] = target[near]
    return flat.reshape(x.shape)


def _clean(R: np.ndarray) -> np.ndarray:
    """Scale each row to max |entry| = 1, first nonzero entry real positive; snap to small fractions."""
    R = R.copy()
    for k in range(R.shape[0]):
        nz = np.flatnonzero(R[k])
        if nz.size == 0:
            continue
        first = R[k, nz[0]]
        R[k] *= (abs(first) / first) / np.abs(R[k]).max()
    if np.iscomplexobj(R):
        re, im = _snap(R.real), _snap(R.imag)
        return re + 1j * im if np.any(im) else re.astype(R.real.dtype)
    return _snap(R)


def _order(R: np.ndarray) -> np.ndarray:
    """Rows ordered by their first nonzero entry, then by fewest nonzeros."""
    nz = R != 0
    first = np.where(nz.any(axis=1), nz.argmax(axis=1), R.shape[1])
    return R[np.lexsort((nz.sum(axis=1), first))]


def _in_span(B: np.ndarray, Q: np.ndarray, tol: float = 1e-6) -> bool:
    """B (n x r) lies in span(Q) (orthonormal columns) and has rank r."""
    residual = B - Q @ (Q.conj().T @ B)
    return bool(np.abs(residual).max() <= tol * max(1.0, float(np.abs(B).max()))) and (
        np.linalg.matrix_rank(B, tol=1e-8 * max(1.0, float(np.abs(B).max()))) == Q.shape[1])


def canonical_basis(Q: np.ndarray, tol: float = TOL, sparsify_work: float = SPARSIFY_WORK,
                    exchange_work: float = EXCHANGE_WORK) -> np.ndarray:
    """A canonical basis (n x r, columns = elements) of the span of ``Q`` (n x r, orthonormal columns): see
    the module docstring.  Spans exactly span(Q); when a step cannot keep that (numerically degenerate
    input) the previous step's basis is returned, and ``Q`` itself as the last resort."""
    Q = np.asarray(Q)
    n, r = Q.shape
    if r == 0:
        return Q.copy()
    R, _ = rref(Q.T, tol)
    if R.shape[0] != r:  # the tolerance merged directions: keep the solver's basis
        return Q.copy()
    best = R.T
    if r * r * n <= sparsify_work:
        S = sparsify(R, tol)
        if _in_span(S.T, Q):
            best = S.T
        if r * n <= exchange_work:
            S = sparsify(exchange(best.T, tol), tol)
            if _in_span(S.T, Q):
                best = S.T
    cleaned = _order(_clean(best.T)).T
    if _in_span(cleaned, Q):
        return cleaned
    return best if _in_span(best, Q) else Q.copy()
