"""Claim of Finzi's thesis (appendix A.1.3, Figure A.1): the Krylov nullspace solver's residual falls
exponentially to the limits of floating point precision."""
from __future__ import annotations
