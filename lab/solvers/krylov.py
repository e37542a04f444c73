"""Iterative nullspace solver (thesis Algorithm 1) in torch, with structured Kronecker products.

Minimises L(X) = ||C X||_F^2 by gradient descent from a Gaussian X (n x r_max); the nullspace part
of X never changes and the rest decays exponentially, so an SVD of the converged X yields the
nullspace.  r_max doubles until the rank found is below it.  Products with C never form a matrix:
the tensor block is held as an array of shape (r, d_1, ..., d_k) and each generator is applied along
each tensor axis with the matrices of that axis's factor (``Leaf.generators``),
``(A (x) B) vec(W) = vec(A W B^T)``.  Two refinements over the plain algorithm, both
standard for quadratics: the step size comes from a power-iteration estimate of ||C^T C||, and a
heavy-ball momentum term speeds convergence from O(kappa) to O(sqrt(kappa)) iterations.

torch is imported inside the functions that compute, so importing the solvers (and the ``lab`` command line)
stays light.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import SolverError
from . import memory

RANK_ATOL = 1e-6  # relative to the norm of a Gaussian row, sqrt(n)


class StructuredConstraints:
    """C and C^H applied to X of shape (r, d_1, ..., d_k) without forming any rho(g)."""

    def __init__(self, group, factors, device, dtype, discrete=None, lie=None):
        """``discrete``/``lie``: indices of the generators to use (default: all of them)."""
        import torch

        self.dims = tuple(f.size for f in factors)
        t = lambda a: torch.tensor(np.asarray(a), dtype=dtype, device=device)  # noqa: E731  (a copy: leaves' arrays are read-only)
        keep_d = range(group.num_discrete) if discrete is None else discrete
        keep_l = range(group.num_lie) if lie is None else lie
        mats = [f.generators() for f in factors]
        self.discrete = [[t(disc[i]) for disc, _ in mats] for i in keep_d]
        self.lie = [[t(lie_[i]) for _, lie_ in mats] for i in keep_l]

    def _axis(self, M, X, a):
        import torch

        r = X.shape[0]
        Xv = X.reshape(r * math.prod(self.dims[:a]), self.dims[a], math.prod(self.dims[a + 1:]))
        return torch.matmul(M, Xv).reshape(X.shape)

    def _rho(self, mats, X, adjoint=False):
        for a, M in enumerate(mats):
            X = self._axis(M.conj().T if adjoint else M, X, a)
        return X

    def _drho(self, mats, X, adjoint=False):
        import torch

        out = torch.zeros_like(X)
        for a, M in enumerate(mats):
            out += self._axis(M.conj().T if adjoint else M, X, a)
        return out

    def apply(self, X):
        """List of C_i X, one per generator."""
        return [self._rho(m, X) - X for m in self.discrete] + [self._drho(m, X) for m in self.lie]

    def normal(self, X):
        """C^H C X = sum_i C_i^H C_i X."""
        import torch

        out = torch.zeros_like(X)
        for m in self.discrete:
            Y = self._rho(m, X) - X
            out += self._rho(m, Y, adjoint=True) - Y
        for m in self.lie:
            out += self._drho(m, self._drho(m, X), adjoint=True)
        return out


def largest_eigenvalue(ops: StructuredConstraints, v) -> float:
    """A safe over-estimate (5 %) of the largest eigenvalue of C^H C, by 50 steps of power iteration from ``v``
    (it sets the step size of the iteration)."""
    import torch

    lam_max = 1.0
    for _ in range(50):
        w = ops.normal(v)
        lam_max = float(torch.linalg.vector_norm(w) / torch.linalg.vector_norm(v))
        v = w / torch.linalg.vector_norm(w)
    return max(lam_max, 1e-12) * 1.05


def krylov_basis(group, factors, device=None, memory_limit=None, tol=1e-12, max_iter=20000,
                 r_start=16, seed=0, progress=None, on_iteration=None) -> np.ndarray:
    """Orthonormal basis (n x rank) of the nullspace of the constraints of ``group`` on the tensor product of
    ``factors``.  ``on_iteration(it, residual)``, when given, receives the relative residual (the one the
    stopping test reads) of the start (``it`` = 0, and again after each doubling of r_max) and of every
    iteration; it only observes: the iterates and the basis are the same with or without it."""
    import torch

    dims = tuple(f.size for f in factors)
    n = math.prod(dims)
    np_dtype = np.result_type(group.dtype, *(f.dtype for f in factors))
    is_complex = np.issubdtype(np_dtype, np.complexfloating)
    dtype = torch.complex128 if is_complex else torch.float64
    device = torch.device("cpu") if device is None else device
    limit = memory.memory_limit(memory_limit)
    itemsize = 16 if is_complex else 8
    ops = StructuredConstraints(group, factors, device, dtype)
    if not ops.discrete and not ops.lie:
        return np.eye(n, dtype=np_dtype)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    shape = lambda r: (r,) + dims  # noqa: E731
    randn = lambda r: torch.randn(shape(r), generator=gen, dtype=torch.float64).to(device, dtype)  # noqa: E731

    lam_max = largest_eigenvalue(ops, randn(1))
    if not lam_max > 1e-24:  # every constraint is zero on this block (O(1)'s -1 on T(2)): all of it is invariant
        return np.eye(n, dtype=np_dtype)
    lam_min = lam_max / 400.0  # heavy-ball tuning; smaller eigenvalues still converge, just slower
    eta = 4.0 / (math.sqrt(lam_max) + math.sqrt(lam_min)) ** 2
    beta = ((math.sqrt(lam_max) - math.sqrt(lam_min)) / (math.sqrt(lam_max) + math.sqrt(lam_min))) ** 2

    r_max = min(r_start, n)
    memory.check(f"the Krylov solve of a {n}-entry block", memory.krylov_bytes(n, r_max, itemsize), limit)
    X = randn(r_max)
    prev = X.clone()
    # residuals are measured against the size of a fresh Gaussian start, so an empty nullspace
    # (X decaying to zero) converges too; nullspace directions keep singular values of order one
    x0_norm = math.sqrt(n)

    def relative(X):
        res = math.sqrt(sum(float(torch.linalg.vector_norm(c) ** 2) for c in ops.apply(X)))
        return res / (x0_norm * math.sqrt(X.shape[0] * lam_max))

    it = 0
    if on_iteration:
        on_iteration(it, relative(X))
    while True:
        converged = False
        while it < max_iter:
            step = X - eta * ops.normal(X) + beta * (X - prev)
            prev, X = X, step
            it += 1
            if on_iteration:
                on_iteration(it, relative(X))
            if it % 25 == 0:
                rel = relative(X)  # (computed again, not reused: the observed run is the unobserved one)
                if progress:
                    progress(min(0.99, math.log10(max(rel, 1e-300)) / math.log10(tol)),
                             f"krylov: iteration {it}, r_max {r_max}, residual {rel:.1e}")
                if rel < tol:
                    converged = True
                    break
        if not converged:
            raise SolverError(f"the Krylov solver did not converge in {max_iter} iterations (residual {rel:.1e})")
        mat = X.reshape(X.shape[0], n)
        s = torch.linalg.svdvals(mat)
        rank = int((s > RANK_ATOL * x0_norm).sum())
        if rank < r_max or r_max >= n:
            break
        new_r = min(2 * r_max, n)
        memory.check(f"the Krylov solve of a {n}-entry block (rank above {r_max})",
                     memory.krylov_bytes(n, new_r, itemsize), limit)
        extra = randn(new_r - r_max)
        X = torch.cat([X, extra])
        prev = torch.cat([prev, extra])
        r_max = new_r
        if on_iteration:
            on_iteration(it, relative(X))
    if rank == 0:
        return np.zeros((n, 0), dtype=np_dtype)
    # rows of mat span the nullspace: orthonormal basis from the SVD
    _, _, vh = torch.linalg.svd(mat, full_matrices=False)
    Q = vh[:rank].T  # rows of mat are combinations of the rows of vh (no conjugate)
    return Q.cpu().numpy().astype(np_dtype)
