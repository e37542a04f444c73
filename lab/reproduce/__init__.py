"""``lab reproduce``: every claim of the seed papers measured by one command, with a report (HTML and JSON).

``claim`` defines what a claim is (with its criterion and its null check: the same criterion applied to a
baseline that must fail it); ``dynamics``, ``dynamics_theory``, ``sharing``, ``msr``, ``ranks``, ``krylov``,
``emlp``, ``emlp_pendulum``, ``rpp``, ``meter`` (thesis chapter 4: the Lie derivative) and ``ensembles`` (the
ensembles poster), ``bounds`` (thesis chapter 5: PAC-Bayes compression bounds) and ``discovery`` (the lab's own
check of learned Lie-algebra generators) declare the claims of each paper; ``runner`` measures them (resumable: finished claims are kept under the output directory); ``report``
writes ``report.json`` and ``report.html``.

>>> from lab.reproduce import claim_ids
>>> claim_ids()[:2]
['dyn-equi-in-E', 'dyn-aug-follows-equi-exact-orbit']
"""
from __future__ import annotations

from ..experiments import FAMILIES as _FAMILIES
from ..experiments.plugins import claim_modules as _claim_modules
from .claim import CLAIM_IDS, CLAIMS, KINDS, PAPERS, PROFILES, UNCOVERED, Claim, Null, Outcome, Profile, judge  # noqa: F401

#: the modules that declare claims (the families' manifests: ``Family.claims``), imported on first use (they import
#: torch when a claim runs, not here)
CLAIM_MODULES = _claim_modules(_FAMILIES)


def load_claims() -> dict:
    """Import every claim module and return the registry (id -> Claim) in report order."""
    import importlib

    for name in CLAIM_MODULES:
        importlib.import_module(name)
    order = {cid: i for i, cid in enumerate(CLAIM_IDS)}
    return dict(sorted(CLAIMS.items(), key=lambda kv: order.get(kv[0], len(order))))


def claim_ids() -> list[str]:
    return list(load_claims())
