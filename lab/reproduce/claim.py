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
    evidence shows; for one that holds, anything a reviewer should know (a deviation from the paper);
    ``criterion``: the criterion in words with its numbers (default: the claim's declared criterion);
    ``null``: the same criterion applied to a baseline that must fail it (``Null``; see ``judge``);
    ``accuracy``: for claims measured on trained models, what the models reached, beside the verdict
      ({experiment: {"nom": .., "aug": .., "equi": .., "chance": .., "majority": ..}});
    ``variants``: named variants run side by side (a hypothesis about the reference code, the lab's own
      improvement): [{"name", "what", "measured", "holds"}], reported, never deciding ``holds``.
    """

    measured: Any
    holds: bool | None
    settings: dict = field(default_factory=dict)
    evidence: list = field(default_factory=list)
    note: str = ""
    criterion: str = ""
    null: "Null | None" = None
    accuracy: dict | None = None
    variants: list = field(default_factory=list)


@dataclass
class Null:
    """A claim's null check: the claim's own criterion applied to a baseline that must fail it (a random or
    all-singletons partition, an untrained model, lambda = 0, an unaugmented run).  ``holds`` True means the
    criterion cannot tell the claim from the baseline at these settings: the claim is then reported as "no power
    at these settings", never as holding."""

    baseline: str  # what the baseline is, in words
    measured: Any  # what the criterion reads on the baseline
    holds: bool  # the criterion applied to the baseline

    def to_dict(self) -> dict:
        return {"baseline": self.baseline, "measured": self.measured, "holds": bool(self.holds)}


def judge(criterion: Callable[[Any], bool], measured, baseline: str, null_measured) -> tuple[bool, Null]:
    """(holds, Null): one criterion applied to the measurement and to the baseline, so that both are judged by
    the same function."""
    return bool(criterion(measured)), Null(baseline, null_measured, bool(criterion(null_measured)))


@dataclass(frozen=True)
class Claim:
    id: str
    paper: str  # short name of the seed paper (see PAPERS)
    where: str  # section / table / figure
    claim: str  # the paper's statement
    paper_value: Any  # the paper's number or words (None where it states none)
    measure: Callable[["Profile"], Outcome]
    seconds: dict = field(default_factory=dict)  # rough expected seconds per profile on a 2-core CPU (for ETAs)
    kind: str = "claim"  # see KINDS
    criterion: str = ""  # the criterion in words (the outcome may restate it with its numbers)
    null: str = ""  # the baseline the criterion must fail, in words


#: what a registered check is: the paper's own claim, a hypothesis the paper proposes but leaves untested, or the
#: lab's own check of a method the paper describes (not an experiment of the paper)
KINDS = {"claim": "the paper's claim", "hypothesis": "the paper's hypothesis (proposed, not tested by the paper)",
         "lab": "the lab's own check (not an experiment of the paper)"}

#: the seed papers (``../shared/seeds``), by the short names claims use: their own titles and authors
PAPERS = {
    "dynamics": "Optimization Dynamics of Equivariant and Augmented Neural Networks (Nordenfors, Ohlsson & Flinth)",
    "sharing": "Equivariance Discovery by Learned Parameter-Sharing (Yeh et al., poster)",
    "msr": "Meta-Learning Symmetries with Sparse Reparametrization (student report)",
    "thesis": "Understanding and Incorporating Mathematical Inductive Biases in Neural Networks (Finzi, PhD thesis, "
              "NYU 2023)",
    "ensembles": "Ensembles Learn Equivariance Through Data Augmentation (Nordenfors, poster)",
}

#: what each seed paper claims that no check covers yet, in words (the report lists them under the paper)
UNCOVERED = {
    "dynamics": ["Proposition 3 and Fig. 2: strict local minima of the augmented model are a subset of the "
                 "equivariant model's (stability of equivariant stationary points)",
                 "§4.2: the first-order decoupling of the dynamics on E and its orthogonal complement"],
    "sharing": ["the sum-of-numbers experiment with the reference's embedding network and Neumann-series "
                "hypergradient (the lab runs a linear read-out)", "the paper's additional experiments (not in the "
                "poster)"],
    "msr": ["the Kronecker-factored symmetry matrix (eq. 2) for larger latent sizes"],
    "thesis": ["chapter 2 (EMLP): Figure 2.5's EMLPs over subgroups (SO(5), SO(3), SO(1,3), SO+(1,3)), and Table "
               "2.2's Neural ODE rollouts (the EMLP N-ODEs over O(2), SO(2), D6 against the MLP N-ODE; §2.7.2's "
               "Hamiltonian networks and conservation laws are covered)",
               "chapter 3: §3.5.2's posterior levels of equivariance and prior-variance study, §3.5.3-3.6 (RPP-Conv "
               "on CIFAR-10 and UCI, reinforcement learning)",
               "chapter 4: the study of hundreds of pretrained ImageNet models (Figures 4.1, 4.5, 4.6 right, A.3: "
               "equivariance against accuracy, model and data scale, training recipe; ViTs and Mixers against CNNs), "
               "Figure 4.4's comparison with integer- and fractional-translation metrics, and Figure 4.7's gap on "
               "ImageNet, CIFAR-100 and medical images (the lab measures the Lie derivative, its layer-wise sum, "
               "Blur-Pool's effect and the gap on a digits CNN it trains)",
               "chapter 5: data-dependent priors and transfer learning (Tables 5.1-5.2's right columns, Figure "
               "5.1a), the FiLM projector, the CIFAR / ImageNet / SVHN bounds and Figure 5.3 on CIFAR-10 (the lab "
               "bounds an MLP, a CNN and a C4 GCNN on the 8 x 8 digits; MNIST through lab bound --data mnist is not "
               "judged by a claim)"],
    "ensembles": ["the invariant MNIST task itself (the lab runs the poster's experiment on scikit-learn's 8 x 8 "
                  "digits; real MNIST through the IDX loader is not wired to lab ensembles yet)",
                  "the three settings on the Perm graph and teacher-student tasks are run by lab ensembles --task "
                  "perm|custom, not judged by a claim"],
}

#: every claim, in report order (filled by the claim modules on import)
CLAIMS: dict[str, Claim] = {}

#: the public claim ids, in report order (a contract: later families append theirs)
CLAIM_IDS = ("dyn-equi-in-E", "dyn-aug-follows-equi-exact-orbit", "dyn-perm-aug-vs-nom", "dyn-trans-aug-vs-nom",
             "dyn-rot-aug-near-nom", "dyn-relative-dimensions", "dyn-e2-ordering", "share-conv-exact",
             "share-gaussian-gap-bound", "share-gaussian-pd", "share-sum", "share-group", "msr-sparsity-few-tasks",
             "msr-sparser-U", "ranks-thesis",
             # claims and hypotheses added with the null checks (appended: the order above is a contract)
             "dyn-aug-leaves-E", "dyn-penalty-hypothesis", "msr-benefit-fades", "msr-exclusive-vs-group",
             "thesis-krylov-residual", "emlp-data-efficiency", "emlp-pendulum", "rpp-regimes",
             "lee-zero-for-equivariant", "lee-layerwise-sums", "lee-aliasing", "lee-equivariance-gap",
             "ens-exact-group-average", "ens-error-falls-with-M", "ens-assumptions-matter",
             "pac-nonvacuous", "pac-equivariance-compresses", "pac-shuffled-pixels", "pac-shuffled-labels-vacuous",
             "lie-discovery-recovers")


def claim(id: str, paper: str, where: str, text: str, paper_value=None, seconds: dict | None = None,
          kind: str = "claim", criterion: str = "", null: str = ""):
    """Register ``measure(profile) -> Outcome`` as claim ``id``: ``criterion`` in words and ``null``, the baseline
    it must fail (every real claim declares both; ``tests/test_reproduce_runner.py`` checks it)."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}: choose from {', '.join(KINDS)}")

    def register(measure):
        CLAIMS[id] = Claim(id, paper, where, text, paper_value, measure, dict(seconds or {}), kind, criterion, null)
        return measure

    return register


class Profile:
    """The settings every claim reads: ``name`` (quick/full), the device and dtype for training, a directory of
    data the user already has (MNIST IDX files), and a progress callback ``progress(fraction, message)`` for the
    claim being measured.  ``memo(key, make)`` shares one expensive run between claims of the same profile
    (the Perm training behind three dynamics claims); the seconds a shared run takes are its own, not the
    claim's that happened to ask first (``shared``: label -> {"seconds", "built_by", "used_by"})."""

    def __init__(self, name: str = "quick", device: str = "auto", dtype: str | None = None, data: str | None = None,
                 progress: Callable[[float, str], None] | None = None, control=None, seed: int = 0):
        if name not in PROFILES:
            raise LabError(f"unknown profile {name!r}: choose quick or full")
        self.name, self.device, self.dtype, self.data, self.seed = name, device, dtype, data, seed
        self.progress = progress or (lambda fraction, message: None)
        self.control = control
        self._memo: dict = {}
        self.shared: dict = {}  # label -> {"seconds", "built_by", "used_by"}
        self._labels: dict = {}  # memo key -> label
        self.current: str | None = None  # the claim being measured (set by the runner)
        self._building = 0  # nesting depth of memo builds (only the outermost is timed apart)
        self.shared_seconds = 0.0  # seconds of outermost shared builds so far (the runner subtracts them)

    @property
    def full(self) -> bool:
        return self.name == "full"

    def pick(self, quick, full):
        """``full`` under the full profile (the paper's settings), else ``quick``."""
        return full if self.full else quick

    def memo(self, key, make: Callable[[], Any], label: str | None = None):
        """``make()`` once per profile under ``key``; ``label`` names the shared run in the report (default: the
        key as text).  Its seconds are recorded apart from the claim that asked first."""
        label = self._labels.setdefault(key, label or " ".join(str(k) for k in (key if isinstance(key, tuple)
                                                                                  else (key,))))
        if key not in self._memo:
            t0, nested = time.perf_counter(), self._building > 0
            self._building += 1
            try:
                self._memo[key] = make()
            finally:
                self._building -= 1
            seconds = time.perf_counter() - t0
            if self._building == 0:
                self.shared_seconds += seconds
            self.shared[label] = {"seconds": round(seconds, 3), "built_by": self.current, "used_by": []}
            if nested:  # built inside another shared run: its seconds are part of that run's too
                self.shared[label]["nested"] = True
        entry = self.shared.get(label)
        if entry is not None and self.current and self.current not in entry["used_by"]:
            entry["used_by"].append(self.current)
        return self._memo[key]

    def peek(self, key):
        """What ``memo`` holds under ``key``, or None (nothing is computed)."""
        value = self._memo.get(key)
        if value is not None:
            entry = self.shared.get(self._labels.get(key))
            if entry is not None and self.current and self.current not in entry["used_by"]:
                entry["used_by"].append(self.current)
        return value

    def checkpoint(self) -> None:
        from ..control import checkpoint

        checkpoint(self.control)


def measure(claim_: Claim, profile: Profile) -> tuple[Outcome, float]:
    """(outcome, seconds) of one claim."""
    t0 = time.perf_counter()
    outcome = claim_.measure(profile)
    return outcome, time.perf_counter() - t0
