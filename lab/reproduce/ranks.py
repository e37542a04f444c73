"""Claim of Finzi's thesis (appendix A.1.5): the ranks of the equivariant subspaces of tensor representations."""
from __future__ import annotations

from .claim import Outcome, claim


@claim("ranks-thesis", "thesis", "appendix A.1.5, Tables A.1-A.8",
       "The symmetric subspace rank r of tensors T_k for Z_n, S_n, SO(n), O(n), Sp(n), the Lorentz group and "
       "SU(n).", paper_value="Tables A.1-A.8")
def measure(profile):
    return Outcome(measured=None, holds=None, note="not measured yet")
