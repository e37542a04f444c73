"""What a reproducible claim is: its identity (id, paper, where, the paper's words and number) and a function that
measures it under a profile (``quick`` or ``full``).  No torch here: the command line lists claims without it.

A claim module (a family's ``claims*.py``: ``lab/dynamics/claims.py``, ``lab/sharing/claims_msr.py``,
``lab/basis/claims.py`` ...; a plugin's own, named in its manifest's ``claims``) declares its claims with
``@claim(...)`` on a function ``measure(profile) -> Outcome``.  The function picks its settings with
``profile.pick(quick=..., full=...)`` (``full`` = the paper's own settings), runs the lab's public functions, and
returns what it measured, whether the claim holds, and the evidence (tables and curves)
the report draws.  It never tunes a setting on test data: where a setting is chosen, it is chosen on validation
data, and the outcome says so.
"""
from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from ..errors import LabError
from ..experiments import FAMILIES as _FAMILIES
from ..experiments.plugins import papers as _papers
from .parts import LAYER, Part, _json_value, nulls_hold

PROFILES = ("quick", "full")


@dataclass
class Outcome:
    """The result of measuring one claim.

    * ``measured``: a JSON value (a number, a short text or a small dict) comparable with the paper's value;
    * ``holds``: True / False, or None where the claim has no pass/fail form;
    * ``settings``: every setting the measurement used (the report prints them);
    * ``evidence``: figure specs (``line``/``bar``) and tables (``table``), see ``lab.plots.reproduce_mpl``;
    * ``note``: for a claim that does not hold, the cause found (defect fixed, setting, regime) and what the
      evidence shows; for one that holds, anything a reviewer should know (a deviation from the paper);
    * ``criterion``: the criterion in words with its numbers (default: the claim's declared criterion);
    * ``null``: the same criterion applied to a baseline that must fail it (``Null``; see ``judge``);
    * ``accuracy``: for claims measured on trained models, what the models reached, beside the verdict
      ({experiment: {"nom": .., "aug": .., "equi": .., "chance": .., "majority": ..}});
    * ``variants``: named variants run side by side (a hypothesis about the reference code, the lab's own
      improvement): [{"name", "what", "measured", "holds"}], reported, never deciding ``holds``;
    * ``parts``: the criterion's parts, each judged on its own replicates against its own null (``Part``); where
      given, ``holds`` and ``null`` are derived from them;
    * ``replicates``: the seeds or splits measured; ``paper_settings``: this run's settings against the paper's;
    * ``history``: this run judged under each earlier registered version of the criterion (``Criterion``).
    """

    measured: Any
    holds: bool | None = None
    settings: dict = field(default_factory=dict)
    evidence: list = field(default_factory=list)
    note: str = ""
    criterion: str = ""
    null: "Null | None" = None
    accuracy: dict | None = None
    variants: list = field(default_factory=list)
    parts: list = field(default_factory=list)  # [Part]: judged one by one (see ``Part``, ``part``)
    replicates: dict | None = None  # what was replicated: {"what": "seeds 0-2", "claim": 3, "null": 3}
    paper_settings: str = ""  # one line: what was run against what the paper ran (default: the claim's)
    history: dict = field(default_factory=dict)  # earlier criterion version -> {"holds", "measured", "why"}

    def __post_init__(self):
        if self.parts:  # the verdict is the parts': every part met, and every part's null failed
            self.holds = parts_met(self.parts)
            if self.null is None:
                self.null = parts_null(self.parts)


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


def part(*args, **kwargs) -> Part:
    """``lab.reproduce.stats.part`` under its first name: claim modules written before the statistics layer 2 import
    ``part`` from here.  This light module (the command line's ``--help`` reads it) keeps numpy and scipy out, so the
    layer is imported when a claim is measured, not when the lab starts."""
    from .stats import part as judged_part  # the heavy layer: only when a claim is measured

    return judged_part(*args, **kwargs)


def parts_met(parts) -> bool | None:
    """The criterion's threshold reading over its parts: False if any part's interval does not clear its threshold,
    None if any has no pass/fail form, else True (the verdict also needs power: ``parts_verdict``)."""
    states = [p.holds for p in parts]
    if any(s is False for s in states):
        return False
    return None if any(s is None for s in states) else True


def parts_null(parts) -> Null:
    """The claim's null, part by part: it "holds" (no power) as soon as one part's claim is not separated from its
    null; a part without a null counts as no null check (see ``runner.verdict_text``)."""
    holds = nulls_hold(p.null_holds for p in parts)
    return Null("; ".join(f"{p.name}: {p.null}" for p in parts),
                {p.name: p.null_measured for p in parts}, holds)


@dataclass(frozen=True)
class Criterion:
    """One registered version of a claim's criterion: the rule in words with its numbers, its thresholds and
    parts, when it was registered, and (after the first) why it changed.  A version is fixed once registered: its
    fingerprint is kept in ``criteria.json`` (``lab.reproduce.criteria``), and a test fails when the declared
    criterion no longer matches it.  A change is a new version; the report shows this run under every version."""

    version: int
    text: str
    date: str
    reason: str = ""
    thresholds: tuple = ()  # ((name, value), ...)
    parts: tuple = ()  # the parts' names
    layer: int = 1  # the statistics layer that judges it (``LAYER``)

    def fingerprint(self) -> str:
        fields = [self.text, [[str(k), v] for k, v in self.thresholds], list(self.parts)]
        if self.layer != 1:  # a version judged by another layer is another criterion (layer 1's prints kept)
            fields.append({"layer": self.layer})
        data = json.dumps(fields, sort_keys=True, default=str)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def to_dict(self) -> dict:
        return {"version": self.version, "criterion": self.text, "date": self.date, "reason": self.reason,
                "thresholds": {str(k): v for k, v in self.thresholds}, "parts": list(self.parts),
                "layer": self.layer}


#: what ``lab reproduce --quick`` took when last measured (``lab reproduce --help`` says it; re-measure with
#: ``/usr/bin/time lab reproduce --quick --fresh`` on 2 idle cores when claims change)
QUICK_MEASURED = "measured 7 to 10 minutes wall on 2 cores, 2026-12-02"

LAYER_DATE = "2026-12-02"
LAYER_NOTE = (" Judged by statistics layer 2: each interval a t-interval on n - 1 degrees of freedom at the level "
              "printed beside it, and each part separated from its null (the claim - null interval excludes zero).")


def layer_text(text: str) -> str:
    """A criterion written for layer 1 in layer 2's words: its "95 % (bootstrap) interval" is the layer's t-interval,
    and the separation from the null is said (the text of the new version ``claim`` registers, and the criterion a
    measurement states with its numbers).

    >>> layer_text("the 95 % bootstrap interval of its mean wholly above 0")[:53]
    'the 95 % t-interval of its mean wholly above 0 Judged'
    """
    if not text or text.endswith(LAYER_NOTE):
        return text
    text = re.sub(r"95 % (?:percentile[- ])?bootstrap interval", "95 % t-interval", text)
    return re.sub(r"95 % interval", "95 % t-interval", text) + LAYER_NOTE


TUNED_DATE = "2026-12-02"
TUNED_NOTE = (" Its quick settings chosen by a tuning probe on seeds 100 and up (lab.reproduce.tuning), apart from "
              "the verdict seeds.")

LAYER_REASON = ("statistics layer 2 (issue 62): the threshold read on a t-interval on n - 1 degrees of freedom at its "
                "real level (layer 1's percentile bootstrap of three draws was their range, about a 75 % interval, "
                "printed as 95 %); the claim must be separated from its null on the same statistic (claim - null "
                "interval excludes zero), no longer the null read against the threshold; four verdicts (holds, does "
                "not hold only when the interval lies wholly on the wrong side, not shown when it straddles, no "
                "power); "
                "non-finite draws are invalid, never counted for or against the claim")


#: the date the criteria that predate versioning were first registered (the claims of issues 18-33)
FIRST_REGISTERED = "2026-11-25"


@dataclass(frozen=True)
class Claim:
    """One registered claim (``CLAIMS[id]``, made by ``@claim(...)``): what the paper says and how the lab checks it.

    ``id`` names it in the report and on the command line; ``paper`` (a key of ``PAPERS``), ``where`` (section,
    table or figure), ``claim`` (the paper's statement) and ``paper_value`` (its number or words, None where it
    states none) say what is claimed; ``measure(profile) -> Outcome`` checks it.  ``kind`` is one of ``KINDS``;
    ``criterion`` and ``null`` put the criterion and the baseline it must fail in words; ``criteria`` holds every
    registered version of the criterion (``Criterion``), oldest first, and ``current`` the one judged;
    ``seconds`` the rough expected seconds per profile on a 2-core CPU (for ETAs); ``paper_settings`` one line on
    what is run against what the paper ran; ``chosen_on`` how the settings were chosen (on seeds apart from the
    verdict seeds, from the paper, or -- declared -- after reading verdict-seed outcomes); ``paper_numbers`` the
    paper's own printed numbers, each read by the claim's statistic against its threshold (``paper_reading``: a
    criterion the paper's own numbers fail is a criterion to change).
    """

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
    criteria: tuple = ()  # every registered version (Criterion), oldest first; the last is judged
    paper_settings: str = ""  # one line: what is run against what the paper ran
    chosen_on: str = ""  # how the quick profile's settings were chosen: "seeds 100-102", "the paper", ...
    paper_numbers: tuple = ()  # the paper's printed numbers read by the criterion (``paper_reading``)

    @property
    def current(self) -> "Criterion":
        return self.criteria[-1]


#: what a registered check is: the paper's own claim, a hypothesis the paper proposes but leaves untested, or the
#: lab's own check of a method the paper describes (not an experiment of the paper)
KINDS = {"claim": "the paper's claim", "hypothesis": "the paper's hypothesis (proposed, not tested by the paper)",
         "lab": "the lab's own check (not an experiment of the paper)"}

#: the papers the claims check, by the short names claims use (their own titles and authors): declared by the
#: families' manifests (``Family.papers``), the seed papers (``../shared/seeds``) by the lab's own
PAPERS = _papers(_FAMILIES)

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
               "2.2's Neural ODE rollouts over SO(2) and D6 (the EMLP N-ODE over O(2) against the MLP N-ODE, the "
               "Hamiltonian networks' rollouts and §2.7.2's conservation laws are covered; the quick profile judges "
               "the O(2) N-ODE rollout and O(2) conservation only)",
               "chapter 2, §2.5: the cost of the block split (§2.5.1) and the O(m) bound O(m^k r (k m^2 "
               "log(1/eps) + r)) (thesis-krylov-scaling times S(m) on T(3) against the bound for subgroups of S_m and "
               "against the direct SVD; thesis-krylov-residual reads the residual; ranks-thesis checks Table A.3's "
               "Rubik's-cube ranks against orbit counts, as the table's numbers are not in the seed text)",
               "chapter 3: §3.5.2's posterior levels of equivariance and prior-variance study, §3.5.3-3.6 (RPP-Conv "
               "on CIFAR-10 and UCI, reinforcement learning)",
               "chapter 4: the study of hundreds of pretrained ImageNet models (Figures 4.1, 4.5, 4.6 right, A.3: "
               "equivariance against accuracy, model and data scale, training recipe; ViTs and Mixers against CNNs), "
               "Figure 4.4's comparison with integer- and fractional-translation metrics, and Figure 4.7's gap on "
               "ImageNet, CIFAR-100 and medical images (the lab measures the Lie derivative, its layer-wise sum, "
               "Blur-Pool's effect and the gap on a digits CNN it trains)",
               "chapter 5: data-dependent priors and transfer learning (Tables 5.1-5.2's right columns, Figure "
               "5.1a), the FiLM projector, the CIFAR / ImageNet / SVHN bounds and Figure 5.3 on CIFAR-10 (the lab "
               "bounds an MLP, a CNN and a C4 GCNN on the 8 x 8 digits; MNIST, given with lab reproduce --data DIR, "
               "is run once beside pac-nonvacuous and compared with Table 5.2's 11.6 %, not judged)",
               "chapter 5's appendix comparisons: the MDL reading (Figure A.6 right: K(h|P) + NLL against the labels' "
               "size), model size against the bound (Figure A.6 left), SGD against full-batch training (section 5.6, "
               "appendix A.4.7, Table A.23), double descent in the bound (appendix A.4.9, Figure A.7), and subspace "
               "compression against pruning across datasets (Table A.18; the lab builds its pruning baseline only as "
               "pac-nonvacuous's null, on the 8 x 8 digits)"],
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
             "lie-discovery-recovers", "dyn-converse-counterexample",
             "msr-benefit-grows-with-complexity", "thesis-krylov-scaling")


def paper_reading(part: str, printed, statistic: Callable[[Any], float], op: str, threshold: float,
                  source: str) -> dict:
    """The paper's printed numbers (``printed``, in the form the claim's ``statistic`` reads a draw) read by that
    statistic against the part's threshold: {"part", "printed", "value", "op", "threshold", "meets", "source"}.

    >>> paper_reading("(a) gain", {"simple": -52.3, "complex": -33.6}, lambda d: d["simple"] - d["complex"], "<",
    ...               0.0, "Table I")["meets"]
    True
    """
    if op not in (">", "<"):
        raise ValueError(f"paper_reading: op is '>' or '<', not {op!r}")
    value = float(statistic(printed))
    return {"part": part, "printed": _json_value(printed), "value": value, "op": op, "threshold": float(threshold),
            "meets": value > threshold if op == ">" else value < threshold, "source": source}


def extends(text: str, date: str, reason: str, parts: tuple = ()) -> Callable[[Criterion], Criterion]:
    """A ``later`` version of ``claim``: the version before it with ``text`` appended and ``parts`` added (its
    thresholds kept), registered on ``date`` for ``reason``.

    >>> v = extends("  Plus a baseline.", "2026-12-02", "why", ("(b)",))(Criterion(3, "Rule.", "d", parts=("(a)",)))
    >>> v.text, v.parts, v.reason
    ('Rule.  Plus a baseline.', ('(a)', '(b)'), 'why')
    """
    def version(last: Criterion) -> Criterion:
        return Criterion(0, last.text + text, date, reason, last.thresholds, tuple(last.parts) + tuple(parts))

    return version


def claim(id: str, paper: str, where: str, text: str, paper_value=None, seconds: dict | None = None,
          kind: str = "claim", criterion: str = "", null: str = "", criteria: tuple | list = (),
          paper_settings: str = "", chosen_on: str = "", paper_numbers: tuple | list = (), retuned_from: str = "",
          later: tuple | list = ()):
    """Register ``measure(profile) -> Outcome`` as claim ``id``: ``criterion`` in words and ``null``, the baseline
    it must fail (every real claim declares both; ``tests/test_reproduce_runner.py`` checks it).

    ``criteria``: every registered version of the criterion, oldest first (``Criterion``); without it the claim
    has one version, ``criterion`` as first registered.  ``paper_settings``: one line, what is run against what
    the paper ran ("8 x 8 digits stand in for MNIST").  ``chosen_on``: how the quick settings were chosen (see
    ``Claim``); ``paper_numbers``: the paper's printed numbers, each a ``paper_reading``.  ``retuned_from``: for a
    claim whose settings were first chosen on the verdict seeds (declared) and then chosen again by a tuning probe
    (``lab.reproduce.tuning``; ``chosen_on`` its words), the declared words layer 2's version was registered with:
    that version is kept, and a new one says the settings now come from the tuning seeds.  ``later``: versions
    registered after those two automatic ones (``Criterion``s whose ``version`` is renumbered to follow them, or
    functions of the version before them that return one, as ``extends`` makes), judged by today's layer: a change
    made after layer 2 and the retuning."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}: choose from {', '.join(KINDS)}")
    versions = tuple(criteria) or (Criterion(1, criterion, FIRST_REGISTERED),)
    if [c.version for c in versions] != list(range(1, len(versions) + 1)):
        raise ValueError(f"{id}: criterion versions must run 1, 2, ... oldest first")
    last = versions[-1]
    if last.layer < LAYER:  # judged by today's layer: a version of its own, the earlier ones kept
        declared = retuned_from or chosen_on
        reason = LAYER_REASON + (f"; settings: {declared}" if "DECLARED" in declared else "")
        versions += (Criterion(last.version + 1, layer_text(last.text), LAYER_DATE, reason, last.thresholds,
                               last.parts, LAYER),)
    if retuned_from:  # the settings chosen again, apart from the verdict seeds: a version of its own
        last = versions[-1]
        versions += (Criterion(last.version + 1, last.text + TUNED_NOTE, TUNED_DATE,
                               f"settings chosen again on the tuning seeds (issue 62), no longer on the verdict "
                               f"seeds: {chosen_on}", last.thresholds, last.parts, last.layer),)
    for c in later:
        c = c(versions[-1]) if callable(c) else c  # a function of the version before it
        versions += (replace(c, version=versions[-1].version + 1, layer=LAYER),)

    def register(measure):
        CLAIMS[id] = Claim(id, paper, where, text, paper_value, measure, dict(seconds or {}), kind,
                           versions[-1].text, null, versions, paper_settings, chosen_on, tuple(paper_numbers))
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

    def seeds(self, quick: int = 3, full: int = 3) -> list[int]:
        """The replicate seeds of a threshold claim: ``quick`` (at least 3) or ``full`` of them from the run's
        seed.  Its null gets as many draws."""
        n = self.pick(quick, full)
        return [self.seed + i for i in range(int(n))]

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
