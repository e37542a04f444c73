"""Solving ``rho(g) v = v`` for a representation: solver choice, block splitting, caching, assembly.

Solvers (``solver=``):

* ``orbit``  -- exact sparse 0/+-1 bases for signed-permutation groups (``lab.solvers.orbit``);
* ``dense``  -- SVD of the stacked constraints for small blocks (``lab.solvers.dense``);
* ``krylov`` -- iterative nullspace (thesis Algorithm 1) in torch for large blocks (``lab.solvers.krylov``);
* ``subgroup`` -- for Lie groups with a known finite signed-permutation subgroup: the orbit basis of the
  subgroup, then the remaining constraints solved inside it (``lab.solvers.subgroup``);
* ``auto``   -- orbit where it applies, else the method with the fewest estimated seconds whose estimated
  bytes fit the memory limit (the cost model of ``lab.solvers.cost``).

A representation is split into its tensor blocks (thesis section 2.5.1); every distinct block is solved
once (for orthogonal groups V* = V, so ``T(1,1)`` and ``T(2)`` are the same block).  The dense and Krylov
solvers take the constraint operators from the block's leaves (``Leaf.generators``), so any
representation works with them, a user's own included; orbit and subgroup are fast paths for blocks
made of ``V`` and ``V*`` only.  ``lab.solvers.solution`` installs ``solve`` behind ``Rep.solve`` when it is
imported (the first ``rep.solve()`` imports it).
"""
from ..lazy import lazy_exports
from .choices import BASES, SOLVERS

# ``solve`` and the rest load on first use (numpy, scipy, the solvers); the first ``rep.solve()`` loads them too
__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(
    ("SOLVER_VERSIONS", "VERSION", "BlockResult", "Solution", "_applicable", "_canonical_factors", "_solve_block",
     "cache_key", "predict_seconds", "solve"), "solution"))

__all__ = ["solve", "Solution", "BlockResult", "SOLVERS", "BASES", "VERSION", "SOLVER_VERSIONS", "cache_key",
           "predict_seconds"]
