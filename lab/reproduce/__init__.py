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
from .claim import CLAIM_IDS, CLAIMS, KINDS, PAPERS, PROFILES, UNCOVERED, Claim, Null, Outcome, Profile, judge  # noqa: F401
from .registry import CLAIM_MODULES, claim_ids, load_claims  # noqa: F401
