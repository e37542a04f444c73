"""The claims ``lab reproduce`` knows: the modules that declare them (every family's manifest, ``Family.claims``) and the
registry they fill, in report order."""
from __future__ import annotations

from ..experiments import FAMILIES as _FAMILIES
from ..experiments.plugins import claim_modules as _claim_modules
from . import claim as _claim

#: the modules that declare claims (the families' manifests: ``Family.claims``), imported on first use (they import
#: torch when a claim runs, not here)
CLAIM_MODULES = _claim_modules(_FAMILIES)


def load_claims() -> dict:
    """Import every claim module and return the registry (id -> Claim) in report order: the lab's own claims in
    ``CLAIM_IDS``'s order, then any other (a plugin family's) in the order its module declared them."""
    import importlib

    for name in CLAIM_MODULES:
        importlib.import_module(name)
    order = {cid: i for i, cid in enumerate(_claim.CLAIM_IDS)}  # read when called (tests extend it)
    return dict(sorted(_claim.CLAIMS.items(), key=lambda kv: order.get(kv[0], len(order))))


def claim_ids() -> list[str]:
    return list(load_claims())
