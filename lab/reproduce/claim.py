"""What a reproducible claim is: its identity (id, paper, where, the paper's words and number) and a function that
measures it under a profile (``quick`` or ``full``).  No torch here: the command line lists claims without it.

A claim module (``lab/reproduce/dynamics.py``, ``sharing.py``, ``msr.py``, ``ranks.py``; later families add
theirs) declares its claims with ``@claim(...)`` on a function ``measure(profile) -> Outcome``.  The function picks
its settings with ``profile.pick(quick=..., full=...)`` (``full`` = the paper's own settings), runs the lab's
public functions, and returns what it measured, whether the claim holds, and the evidence (tables and curves)
the report draws.  It never tunes a setting on test data: where a setting is chosen, it is chosen on validation
data, and the outcome says so.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import LabError

PROFILES = ("quick", "full")


@dataclass
class Outcome:
    """The result of measuring one claim.

    ``measured``: a JSON value (a number, a short text or a small dict) comparable with the paper's value;
    ``holds``: True / False, or None where the claim has no pass/fail form;
    ``settings``: every setting the measurement used (the report prints them);
    ``evidence``: figure specs (``line``/``bar``) and tables (``table``), see ``lab.plots.reproduce_mpl``;
    ``note``: for a claim that does not hold, the cause found (defect fixed, setting, regime) and what the
    evidence shows; for one that holds, anything a reviewer should know (a deviation from the paper).
    """

    measured: Any
    holds: bool | None
    settings: dict = field(default_factory=dict)
    evidence: list = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str  # short name of the seed paper (see PAPERS)
    where: str  # section / table / figure
    claim: str  # the paper's statement
    paper_value: Any  # the paper's number or words (None where it states none)
    measure: Callable[["Profile"], Outcome]
    seconds: dict = field(default_factory=dict)  # rough expected seconds per profile on a 2-core CPU (for ETAs)


#: the seed papers (``../shared/seeds``), by the short names claims use
PAPERS = {
    "dynamics": "Nordenfors, Ohlsson & Flinth, Optimization dynamics of equivariant and augmented neural networks",
    "sharing": "Yeh et al., Equivariance discovery by learned parameter-sharing (poster)",
    "msr": "Meta-learning symmetries with sparse reparametrization (student report)",
    "thesis": "Finzi, Inductive biases in deep learning (thesis)",
}

#: every claim, in report order (filled by the claim modules on import)
CLAIMS: dict[str, Claim] = {}

#: the public claim ids, in report order (a contract: later families append theirs)
CLAIM_IDS = ("dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom",
             "dyn-rot-aug-near-nom", "dyn-relative-dimensions", "dyn-e2-ordering", "share-conv-exact",
             "share-gaussian-gap-bound", "share-gaussian-pd", "share-sum", "share-group", "msr-sparsity-few-tasks",
             "msr-sparser-U", "ranks-thesis")


def claim(id: str, paper: str, where: str, text: str, paper_value=None, seconds: dict | None = None):
    """Register ``measure(profile) -> Outcome`` as claim ``id``."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}")

    def register(measure):
        CLAIMS[id] = Claim(id, paper, where, text, paper_value, measure, dict(seconds or {}))
        return measure

    return register


class Profile:
    """The settings every claim reads: ``name`` (quick/full), the device and dtype for training, a directory of
    data the user already has (MNIST IDX files), and a progress callback ``progress(fraction, message)`` for the
    claim being measured.  ``memo(key, make)`` shares one expensive run between claims of the same profile
    (the Perm training behind three dynamics claims)."""

    def __init__(self, name: str = "quick", device: str = "auto", dtype: str | None = None, data: str | None = None,
                 progress: Callable[[float, str], None] | None = None, control=None, seed: int = 0):
        if name not in PROFILES:
            raise LabError(f"unknown profile {name!r}: choose quick or full")
        self.name, self.device, self.dtype, self.data, self.seed = name, device, dtype, data, seed
        self.progress = progress or (lambda fraction, message: None)
        self.control = control
        self._memo: dict = {}

    @property
    def full(self) -> bool:
        return self.name == "full"

    def pick(self, quick, full):
        """``full`` under the full profile (the paper's settings), else ``quick``."""
        return full if self.full else quick

    def memo(self, key, make: Callable[[], Any]):
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def peek(self, key):
        """What ``memo`` holds under ``key``, or None (nothing is computed)."""
        return self._memo.get(key)

    def checkpoint(self) -> None:
        from ..control import checkpoint

        checkpoint(self.control)


def measure(claim_: Claim, profile: Profile) -> tuple[Outcome, float]:
    """(outcome, seconds) of one claim."""
    t0 = time.perf_counter()
    outcome = claim_.measure(profile)
    return outcome, time.perf_counter() - t0
