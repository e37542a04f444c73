"""Measure claims under a profile, keeping each finished claim on disk so that a run can resume.

Layout of an output directory (default: ``$LAB_RESULTS_DIR/reproduce/<profile>``, else the per-user data
directory's ``reproduce/<profile>``)::

    claims/<id>.json     one finished claim (written atomically as soon as it is measured)
    report.json          every claim of the last run, with its evidence (``lab.reproduce.report``)
    report.html          the same as a static page with the figures

A claim file is reused when its profile matches and its status is ``finished``; ``fresh=True`` measures
everything again.  A claim whose measurement raises is recorded with status ``error`` and its one-line message
(the run goes on with the next claim); a stop (Ctrl-C, ``control.stop()``) ends the run after writing the report
of what finished.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LabError
from .claim import LAYER, PROFILES, Outcome, Profile, layer_text
from .parts import nulls_hold, parts_verdict

FORMAT = 1
#: seconds assumed for a claim that declares no estimate (progress weights only)
DEFAULT_SECONDS = 10.0


class ReproduceError(LabError):
    """A bad request to ``lab reproduce`` (an unknown claim id, an unusable output directory)."""


@dataclass
class ClaimResult:
    id: str
    paper: str
    where: str
    claim: str
    paper_value: object
    measured: object
    holds: bool | None
    settings: dict
    seconds: float
    note: str = ""
    evidence: list = field(default_factory=list)
    status: str = "finished"  # finished, error, skipped (stopped before it ran)
    resumed: bool = False  # read back from an earlier run's claim file
    profile: str = "quick"
    kind: str = "claim"  # lab.reproduce.claim.KINDS
    criterion: str = ""  # in words, with its numbers
    null: dict | None = None  # {"baseline", "measured", "holds"}: the criterion applied to a baseline
    accuracy: dict | None = None  # what the trained models reached (dynamics claims)
    variants: list = field(default_factory=list)  # named variants run side by side
    criterion_met: bool | None = None  # the criterion on the measurement (``holds`` also needs power)
    shared: list = field(default_factory=list)  # [{"run", "seconds", "built_by"}]: shared runs this claim used
    parts: list = field(default_factory=list)  # [Part.to_dict()]: each part with its own verdict and null
    replicates: dict | None = None  # the seeds or splits measured, claim and null
    interval: dict | None = None  # part name -> {"low", "high", "level", "rule", "method"} where a threshold is judged
    criterion_version: int = 1
    criterion_history: list = field(default_factory=list)  # earlier versions, each with this run's verdict under it
    paper_settings: str = ""  # one line: what was run against what the paper ran
    share_seconds: float = 0.0  # this claim's share of the shared runs it used (their seconds / their users)
    criterion_registered: dict | None = None  # the judged version's {"date", "reason"}
    seed: int = 0  # the run's first replicate seed (a claim file of another seed is measured again)
    judged: str | None = None  # the statistics layer's verdict (layer 2; None in a claim file from before it)
    stats_layer: int = 1  # the statistics layer that judged the claim (``lab.reproduce.claim.LAYER``)
    chosen_on: str = ""  # how the profile's settings were chosen: the seeds (apart from the verdict seeds), the paper
    run_id: str = ""  # the run that measured it (a claim read back from another run is kept, not measured)
    paper_numbers: list | None = None  # the paper's printed numbers, each read by the claim's criterion

    #: the keys of ``lab reproduce --json`` (a contract: add, never rename)
    PUBLIC = ("id", "paper", "where", "claim", "paper_value", "measured", "holds", "settings", "seconds")
    #: added with the null checks: ``criterion`` in words, ``null_holds`` (the criterion on the baseline; True means
    #: no power), ``accuracy`` (where it applies), ``verdict`` (holds / does not hold / no power at these settings /
    #: no pass/fail form / error), ``kind``, ``null`` (the baseline and what it measured), ``variants``
    MORE = ("criterion", "null_holds", "accuracy", "verdict", "kind", "null", "variants", "criterion_met", "shared")
    #: added with registered criteria and replicates (issue 46): each part with its own verdict and null, the
    #: replicates, the judged intervals, the criterion's version and its earlier versions (this run judged under
    #: each), this run's settings against the paper's, and the claim's share of the shared runs' seconds
    REPLICATED = ("parts", "replicates", "interval", "criterion_version", "criterion_history", "paper_settings",
                  "share_seconds", "criterion_registered")
    #: added with the statistics layer 2 (issue 62): the layer that judged the claim, how its settings were chosen,
    #: whether this run measured it or read it back (``provenance``: measured / kept), the draws left out as
    #: invalid (with their seeds), the paper's printed numbers under the criterion, and the reasons behind a
    #: verdict of no power or not shown
    LAYERED = ("stats_layer", "chosen_on", "provenance", "invalid_draws", "paper_numbers", "reasons")

    @property
    def provenance(self) -> str:
        return "kept" if self.resumed else "measured"

    @property
    def invalid_draws(self) -> list:
        return [dict(d, part=p.get("name")) for p in self.parts for d in (p.get("invalid") or [])]

    @property
    def reasons(self) -> list:
        return [f"{p.get('name')}: {why}" for p in self.parts for why in (p.get("reasons") or [])]

    @property
    def null_holds(self) -> bool | None:
        return None if self.null is None else bool(self.null.get("holds"))

    @property
    def verdict(self) -> str:
        if self.status == "error":
            return "error"
        if self.judged is not None:
            return self.judged
        return verdict_text(self.status, self.criterion_met if self.criterion_met is not None else self.holds,
                            self.null_holds)

    def public(self) -> dict:
        out = {k: getattr(self, k) for k in self.PUBLIC}
        out.update(note=self.note, status=self.status, resumed=self.resumed)
        out.update({k: getattr(self, k) for k in self.MORE})
        out.update({k: getattr(self, k) for k in self.REPLICATED})
        out.update({k: getattr(self, k) for k in self.LAYERED})
        return out

    @property
    def total_seconds(self) -> float:
        """The claim's own seconds plus its share of the shared runs it used."""
        return round(float(self.seconds) + float(self.share_seconds or 0.0), 3)

    def to_dict(self) -> dict:
        return dict(self.public(), evidence=self.evidence, profile=self.profile, seed=self.seed, judged=self.judged,
                    run_id=self.run_id)

    @classmethod
    def from_dict(cls, d: dict) -> "ClaimResult":
        keys = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in keys})


#: the verdicts, in the order the summary counts them: the four of the statistics layer (holds; does not hold: the
#: interval wholly on the wrong side of the threshold; not shown: it straddles the threshold; no power), a claim
#: without a null check, one without a pass/fail form, and a measurement that raised
VERDICTS = ("holds", "does not hold", "not shown", "no power at these settings", "no null check", "no pass/fail form",
            "error")


def verdict_text(status: str, criterion_met: bool | None, null_holds: bool | None) -> str:
    """Layer 1's verdict (a claim file from before the statistics layer 2, a claim without parts): a claim holds
    only when its criterion is met *and* the same criterion fails on its baseline; met with a baseline that passes
    too, it has no power at these settings; met without a null check, it is unchecked."""
    if status == "error":
        return "error"
    if criterion_met is None:
        return "no pass/fail form"
    if not criterion_met:
        return "does not hold"
    if null_holds is None:
        return "no null check"
    return "no power at these settings" if null_holds else "holds"


@dataclass
class Report:
    profile: str
    directory: Path
    results: list[ClaimResult]
    status: str = "finished"  # or "stopped"
    device: str = "cpu"
    seconds: float = 0.0

    @property
    def json_path(self) -> Path:
        return self.directory / "report.json"

    @property
    def html_path(self) -> Path:
        return self.directory / "report.html"

    shared: dict = field(default_factory=dict)  # label -> {"seconds", "built_by", "used_by"}: runs shared by claims
    seed: int = 0  # the first replicate seed
    workers: int = 1  # processes that measured the claims (``--workers``)
    process_seconds: float | None = None  # their seconds summed (None: ``seconds``, one process)

    def counts(self) -> dict:
        c = dict.fromkeys(VERDICTS, 0)
        for r in self.results:
            c[r.verdict] += 1
        return c

    def counts_by_kind(self) -> dict:
        """{kind: {verdict: n}}: the papers' claims, the papers' hypotheses and the lab's own checks apart."""
        from .claim import KINDS

        out = {k: dict.fromkeys(VERDICTS, 0) for k in KINDS}
        for r in self.results:
            out.setdefault(r.kind, dict.fromkeys(VERDICTS, 0))[r.verdict] += 1
        return {k: v for k, v in out.items() if any(v.values())}


def output_dir(out=None, profile: str = "quick") -> Path:
    from ..runstore import runs_root

    if out:
        return Path(out)
    return runs_root(None, env_sub="reproduce", user_sub="reproduce") / profile


def select(ids=None) -> list:
    """The claims to run, in report order; ``ids``: an iterable of claim ids or a comma-separated text, or None for
    every claim.  An empty selection given explicitly (``""``, ``" , "``, ``[]``) is refused, not read as every
    claim."""
    from . import load_claims

    claims = load_claims()
    if ids is None:
        return list(claims.values())
    given = ids
    if isinstance(ids, str):
        ids = [i.strip() for i in ids.split(",") if i.strip()]
    ids = list(ids)
    if not ids:
        raise ReproduceError(f"--only: an empty selection of claims {given!r}: give one or more claim ids "
                             f"(comma-separated), or leave it out for every claim")
    unknown = [i for i in ids if i not in claims]
    if unknown:
        raise ReproduceError(f"unknown claim id {unknown[0]!r}: choose from {', '.join(claims)}")
    wanted = set(ids)
    return [c for c in claims.values() if c.id in wanted]


def _claim_file(directory: Path, cid: str) -> Path:
    return directory / "claims" / f"{cid}.json"


def _read_claim(path: Path, profile: str, seed: int = 0, version: int = 1, run_id: str = "") -> ClaimResult | None:
    """A finished claim file of the same profile, seed and criterion version, or None (missing, another profile,
    seed or version, unreadable: measured again).  It is labelled kept (``resumed``) unless this run (``run_id``, a
    run measured by several processes) measured it."""
    try:
        d = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(d, dict) or d.get("format") != FORMAT or d.get("profile") != profile \
            or d.get("status") != "finished" or d.get("seed", 0) != seed \
            or d.get("criterion_version", 1) != version:
        return None
    try:
        result = ClaimResult.from_dict(d)
    except TypeError:
        return None
    result.resumed = not (run_id and result.run_id == run_id)
    return result


def _write_json(path: Path, data: dict) -> None:
    from ..runstore import atomic_file, to_json

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as tmp:
        Path(tmp).write_text(json.dumps(to_json(data), indent=1, allow_nan=False))


def _parts(c, outcome: Outcome) -> list:
    """The outcome's parts; a claim that declares none is one part, its criterion, judged on the draws it made."""
    from .claim import Part

    if outcome.parts:
        return list(outcome.parts)
    if outcome.holds is None and outcome.null is None:
        return []
    null = outcome.null
    return [Part("criterion", outcome.holds, outcome.measured, None if null is None else bool(null.holds),
                 None if null is None else null.measured, "" if null is None else null.baseline)]


def _intervals(parts) -> dict | None:
    """part name -> the judged interval with its method and real level (and the null's, and the claim - null
    difference's)."""
    out = {p.name: {"low": p.interval[0], "high": p.interval[1], "level": p.level, "rule": p.rule,
                    "method": p.method, "null_low": (p.null_interval or [None, None])[0],
                    "null_high": (p.null_interval or [None, None])[1],
                    "difference": p.difference, "difference_method": p.difference_method}
           for p in parts if p.interval is not None}
    return out or None


def _replicates(outcome: Outcome, parts) -> dict | None:
    if outcome.replicates is not None:
        return dict(outcome.replicates)
    drawn = [len(p.replicates) for p in parts if p.replicates]
    nulls = [len(p.null_replicates) for p in parts if p.null_replicates]
    if not drawn and not nulls:
        return None
    return {"claim": min(drawn) if drawn else 1, "null": min(nulls) if nulls else 1}


def _history(c, outcome: Outcome) -> list:
    """The claim's earlier criterion versions, each with this run's verdict under it (what the measurement
    function judged; "not judged by this run" where it gave none)."""
    out = []
    for crit in c.criteria[:-1]:
        judged = outcome.history.get(crit.version) or outcome.history.get(str(crit.version)) or {}
        later = c.criteria[crit.version] if crit.version < len(c.criteria) else c.current
        if not judged and crit.layer < c.current.layer and later.layer == c.current.layer:  # the last of layer 1
            named = [p for p in outcome.parts if p.name in set(crit.parts)]  # its own, where it names them
            judged = _legacy_reading(named or list(outcome.parts))
        if not judged and crit.layer == c.current.layer:
            judged = _same_layer_reading(crit, outcome.parts)
        met = judged.get("holds")
        entry = dict(crit.to_dict(), criterion_met=met, measured=judged.get("measured"), why=judged.get("why", ""))
        entry["verdict"] = ("not judged by this run" if not judged else
                            judged.get("verdict") or verdict_text("finished", met, judged.get("null_holds")))
        out.append(entry)
    return out


def _judged_text(c, text: str) -> str:
    """A criterion an outcome states, as today's layer judges it: the current version's text where that version
    adds to it (retuned settings, a baseline, more parts), else the text with the layer's note."""
    text = layer_text(text)
    return c.current.text if c.current.text.startswith(text) else text


def _same_layer_reading(crit, parts) -> dict:
    """An earlier version judged by today's layer (it differs from the current one in how settings were chosen, a
    baseline, or parts the current one added): its verdict is that of its parts this run judged ({} when none)."""
    mine = [p for p in parts if p.name in set(crit.parts)]  # a profile may judge only some of them (quick)
    if not mine or parts_verdict(mine) is None:
        return {}
    return {"holds": all(bool(p.holds) for p in mine), "null_holds": nulls_hold(p.null_holds for p in mine),
            "measured": {p.name: p.measured for p in mine}, "verdict": parts_verdict(mine),
            "why": "this run's draws, the parts this version names, judged by the same statistics layer"}


def _legacy_reading(parts) -> dict:
    """The previous version's verdict on this run's draws when only the statistics layer changed: each part read by
    layer 1 (``Part.legacy``: the percentile bootstrap, the null against the threshold); {} without such parts."""
    readings = [p.legacy for p in parts]
    if not readings or any(not r for r in readings):
        return {}
    return {"holds": all(bool(r.get("holds")) for r in readings),
            "null_holds": nulls_hold(r.get("null_holds") for r in readings),
            "measured": {p.name: p.measured for p in parts},
            "why": "this run's draws judged by statistics layer 1 (a percentile bootstrap of the mean, printed as "
                   "95 %; the null read against the threshold)"}


def _result(c, outcome: Outcome, seconds: float, profile: str, status="finished", shared=()) -> ClaimResult:
    criterion = outcome.criterion or str(outcome.settings.get("criterion") or c.criterion or "")
    null = outcome.null.to_dict() if outcome.null is not None else None
    met = outcome.holds
    settings = dict(outcome.settings)
    judged = parts_verdict(outcome.parts) if status == "finished" else None
    if judged is not None:  # the statistics layer's verdict; ``holds`` (the contract key) True or False only then
        holds = True if judged == "holds" else (False if judged == "does not hold" else None)
        criterion = _judged_text(c, criterion)
        if isinstance(settings.get("criterion"), str):  # the settings state the criterion judged, too
            settings["criterion"] = _judged_text(c, settings["criterion"])
    else:  # layer 1: True only with power; the criterion's own answer is ``criterion_met``
        power = null is not None and not null["holds"]
        holds = met if met is not True else (True if power else None)
    parts = _parts(c, outcome)
    return ClaimResult(c.id, c.paper, c.where, c.claim, c.paper_value, outcome.measured, holds,
                       settings, round(max(float(seconds), 0.0), 3), outcome.note,
                       list(outcome.evidence), status, False, profile, c.kind, criterion, null, outcome.accuracy,
                       list(outcome.variants), met, list(shared),
                       [p.to_dict() for p in parts], _replicates(outcome, parts), _intervals(parts),
                       c.current.version if c.criteria else 1, _history(c, outcome),
                       outcome.paper_settings or c.paper_settings, 0.0,
                       {"date": c.current.date, "reason": c.current.reason} if c.criteria else None,
                       judged=judged, stats_layer=LAYER if judged is not None else 1, chosen_on=c.chosen_on,
                       paper_numbers=c.paper_numbers or None)


def _used(profile: Profile, cid: str) -> list:
    """The shared runs claim ``cid`` used: [{"run", "seconds", "built_by"}] ("nested": true for a run built inside
    another shared run, whose seconds are part of that one's)."""
    return [{"run": label, "seconds": e["seconds"], "built_by": e["built_by"], **({"nested": True} if e.get("nested")
                                                                                  else {})}
            for label, e in profile.shared.items() if cid in e["used_by"]]


def share_seconds(cid: str, shared: dict) -> float:
    """Claim ``cid``'s share of the shared runs it used: each (outermost) run's seconds divided among its users."""
    return round(sum(e["seconds"] / len(e["used_by"]) for e in shared.values()
                     if cid in (e.get("used_by") or ()) and not e.get("nested")), 3)


def shared_runs(results, measured: dict | None = None) -> dict:
    """The shared runs behind ``results`` (label -> {"seconds", "built_by", "used_by"}): those measured in this process
    (``measured``, a ``Profile.shared``) and, for claims read back from their files (a resumed run, or groups measured
    by other processes), the runs their files name."""
    out = {label: dict(e, used_by=list(e["used_by"])) for label, e in (measured or {}).items()}
    for r in results:
        for s in r.shared or ():
            e = out.setdefault(s["run"], {"seconds": s["seconds"], "built_by": s["built_by"], "used_by": [],
                                          **({"nested": True} if s.get("nested") else {})})
            if r.id not in e["used_by"]:
                e["used_by"].append(r.id)
    return out


def check_request(profile: str, device: str, data) -> str:
    """Refuse a bad profile, device or ``--data`` before anything runs (a ``ReproduceError`` naming it); returns the
    device's checked name."""
    from ..device import check_device_name

    if profile not in PROFILES:
        raise ReproduceError(f"unknown profile {profile!r}: choose quick or full")
    device = check_device_name(device)
    if data is not None and not Path(data).is_dir():
        raise ReproduceError(f"--data {data}: not a directory")
    return device


def run(ids=None, profile: str = "quick", out=None, device: str = "auto", dtype: str | None = None,
        data: str | None = None, fresh: bool = False, progress=None, control=None, write: bool = True,
        report: bool = True, seed: int = 0, run_id: str = "") -> Report:
    """Measure the claims ``ids`` (default: all) under ``profile``; returns the ``Report`` (also written as
    ``report.json`` and ``report.html`` under ``out`` unless ``write`` is False; ``report=False`` keeps only the
    finished claims' files, as a cluster's tasks do before the client writes the report).

    ``progress(record)`` receives the experiment layer's progress records (``lab.experiments.family``), weighted
    by each claim's expected seconds so that the ETA is meaningful across claims of very different sizes.
    ``run_id`` names a run measured by several processes (``lab.reproduce.cluster``): a claim file it wrote is read
    back as measured by this run, not kept from an earlier one.
    """
    from ..control import Stopped
    from ..device import pick_device
    from ..control import progress_record
    from ..jobs import error_text
    from ..threads import fixed_threads, one_thread

    device = check_request(profile, device, data)
    claims = select(ids)
    directory = output_dir(out, profile)
    if write:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise ReproduceError(f"cannot write the report under {directory}: {err}") from err
    emit = progress or (lambda record: None)
    weights = [float(c.seconds.get(profile, DEFAULT_SECONDS)) for c in claims]
    total = max(int(round(sum(weights) * 10)), 1)  # progress in tenths of an expected second
    state = {"before": 0.0, "claim": None, "weight": 0.0}

    def claim_progress(fraction: float, message: str) -> None:
        fraction = min(max(float(fraction), 0.0), 1.0)
        done = (state["before"] + fraction * state["weight"]) * 10
        emit(progress_record(int(done), total, f"{state['claim']}: {message}",
                             partial=done - int(done)))

    prof = Profile(profile, device=device, dtype=dtype, data=data, progress=claim_progress, control=control,
                   seed=int(seed))
    results, status, t0 = [], "finished", time.perf_counter()
    measured_here = set()  # the claims this process measured (a claim read back keeps its file's share)
    # the same seed gives the same numbers, whatever the machine's load and however many processes measure: one
    # torch thread (a float sum split over another number of threads rounds differently), never refitted to the load
    with fixed_threads(), one_thread():
        for c, weight in zip(claims, weights):
            state.update(claim=c.id, weight=weight)
            emit(progress_record(int(state["before"] * 10), total, f"{c.id}"))
            path = _claim_file(directory, c.id)
            kept = None if (fresh or not write) else _read_claim(path, profile, int(seed),
                                                                 c.current.version if c.criteria else 1, run_id)
            if kept is not None:
                results.append(kept)
            else:
                t1, shared0 = time.perf_counter(), prof.shared_seconds
                prof.current = c.id
                try:
                    if control is not None:
                        control.checkpoint()
                    outcome = c.measure(prof)
                    # the claim's own seconds: the shared runs it built first are timed apart (Report.shared)
                    own = time.perf_counter() - t1 - (prof.shared_seconds - shared0)
                    result = _result(c, outcome, own, profile, shared=_used(prof, c.id))
                    result.seed, result.run_id = int(seed), run_id
                except (Stopped, KeyboardInterrupt):
                    status = "stopped"
                    break
                except Exception as err:  # a failed measurement is a finding too: recorded, and the run goes on
                    outcome = Outcome(measured=None, holds=None, note=f"error: {error_text(err)}")
                    result = _result(c, outcome, time.perf_counter() - t1, profile, status="error")
                results.append(result)
                measured_here.add(c.id)
                if write and result.status == "finished":
                    _write_json(path, dict(result.to_dict(), format=FORMAT))
            state["before"] += weight
    for result in results:  # the shares, once every claim that uses a shared run is known
        if result.id in measured_here and result.status == "finished":
            result.share_seconds = share_seconds(result.id, prof.shared)
            if write and result.share_seconds:
                _write_json(_claim_file(directory, result.id), dict(result.to_dict(), format=FORMAT))
    emit(progress_record(total if status == "finished" else int(state["before"] * 10), total,
                         "report" if status == "finished" else "stopped"))
    made = Report(profile, directory, results, status, str(pick_device(device)), time.perf_counter() - t0,
                  shared=shared_runs(results, prof.shared), seed=int(seed))
    if write and report:
        from .report import write_report

        write_report(made)
    return made
