"""Comparing saved runs: several runs of one kind read back, each labelled by its own settings, and their curves
in one tidy table.  The dashboard's overlay, its CSV and PNG downloads and ``lab runs compare`` all draw this
table, so the picture, the file and the command line agree.

The table (``COLUMNS``) has one row per (run, metric, series, step):

* ``run``: the run's label (what the legend says), ``name``: its directory's name;
* ``metric``: ``drift`` (‖Π_E⊥ A‖, the part of the weights outside the equivariant subspace E) and ``loss`` of a
  training-dynamics run, medians over its live runs as the pane draws them; ``loss`` (method 1's upper level on
  validation data and lower level on training data) and ``partition_distance`` of a sharing run, means over
  its trials; ``outer_loss`` of a method-2 (msr) run, per model it meta-learns, means over its trials;
* ``series``: the strategy (Nom, Aug, Equi, Aug + penalty), which loss (validation / training) or which model
  (msr); empty where a metric has one curve per run;
* ``step``, ``value``.

A label is the run's experiment (dynamics) or task (sharing), then the settings that differ between the runs
compared (``custom · lr 0.3``), never the pane's current controls: it is read from the run's own
``config.json``.  Runs whose settings do not differ at all get their time of saving (and, if that ties too,
their name) so that every curve is told apart.

>>> labels([{"experiment": "custom", "lr": 0.1, "seed": 0}, {"experiment": "custom", "lr": 0.3, "seed": 0}],
...        ["20240101-120000-custom-aaaaaa", "20240101-120500-custom-bbbbbb"], kind="dynamics")
['custom · lr 0.1', 'custom · lr 0.3']
>>> labels([{"task": "conv", "seed": 0}, {"task": "conv", "seed": 0}],
...        ["20240101-120000-conv-aaaaaa", "20240101-120500-conv-bbbbbb"], kind="sharing")
['conv · 12:00:00', 'conv · 12:05:00']
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import runstore
from .errors import LabError, RunFileError

COLUMNS = ["run", "name", "metric", "series", "step", "value"]
#: the columns of one run's curves (what a family's ``curves`` returns)
CURVE_COLUMNS = ["metric", "series", "step", "value"]
#: settings never shown in a label (bookkeeping, or repeated in another setting)
HIDDEN = {"options", "run_ids"}
#: at most this many differing settings in a label (then "+N more")
MAX_SETTINGS = 4
# the metrics' names and titles are the plots' (``lab.plots.style``): the plots import nothing from here
from .plots.style import METRICS, OVER, SHOWN, metric_title  # noqa: E402,F401  (re-exported)


def _families() -> dict:
    from .experiments import FAMILIES

    return FAMILIES


def curve_kinds() -> tuple[str, ...]:
    """The kinds of saved runs that have curves to compare: the families whose manifest declares ``curves``
    (the lab's own: dynamics, and sharing, whose store keeps method 2's runs too)."""
    return tuple(name for name, family in _families().items() if family.curves is not None)


def head(kind: str) -> str:
    """The setting a label starts with: the first option of the kind's family (dynamics: experiment; sharing:
    task)."""
    family = _families().get(kind)
    return family.config.declarations()[0].name if family is not None else ""


def __getattr__(name: str):
    if name == "KINDS":  # the kinds with curves (derived from the manifests; was a constant)
        return curve_kinds()
    if name == "HEAD":  # the setting a label starts with, per kind
        return {kind: head(kind) for kind in curve_kinds()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class CompareError(LabError, ValueError):
    """Runs that cannot be compared: none given, of different kinds, or a name that is no saved run."""


@dataclass
class RunCurves:
    """One saved run read for comparing: its settings and its curves (``metric, series, step, value``)."""

    name: str
    path: Path
    kind: str  # "dynamics" or "sharing" (the store it lives in)
    method: str  # "dynamics", "sharing" (method 1) or "msr" (method 2)
    config: dict
    status: str
    curves: pd.DataFrame = field(repr=False)


@dataclass
class Comparison:
    """Runs read for comparing, their labels (in the same order) and the tidy table of their curves."""

    runs: list[RunCurves]
    labels: list[str]
    frame: pd.DataFrame

    @property
    def kind(self) -> str:
        return self.runs[0].kind if self.runs else ""

    def metrics(self) -> list[str]:
        """The metrics the table holds, in the order the kind shows them."""
        have = set(self.frame.metric)
        order = SHOWN.get(self.kind, ())
        return [m for m in order if m in have] + sorted(have - set(order))

    def without_curves(self) -> list[str]:
        """Labels of the runs that recorded no curve (stopped before their first step)."""
        return [lab for run, lab in zip(self.runs, self.labels) if run.curves.empty]


# ------------------------------------------------------------------ reading one run
def run_kind(path) -> str:
    """``dynamics`` or ``sharing``: the ``kind`` a run's ``config.json`` records (runs saved before it did:
    told by their data file).  ``RunFileError`` for anything else."""
    path = Path(path)
    meta_file = path / runstore.META
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        meta = None  # the store's own reader says what is wrong with it
    kind = meta.get("kind") if isinstance(meta, dict) else None
    if kind is None:
        kind = "dynamics" if (path / "metrics.csv").exists() else "sharing"
    kinds = curve_kinds()
    if kind not in kinds:
        raise RunFileError(meta_file, "kind", f"is {kind!r}: only saved {' and '.join(kinds)} runs have curves "
                                              "to compare")
    return kind


def empty_curves() -> pd.DataFrame:
    """Curves with no rows, typed: what a run stopped before its first step has."""
    return pd.DataFrame({"metric": pd.Series(dtype=str), "series": pd.Series(dtype=str),
                         "step": pd.Series(dtype="int64"), "value": pd.Series(dtype=float)})


def read_run(path, root=None) -> RunCurves:
    """A saved run's settings and curves.  With ``root`` (a dashboard's runs directory) ``path`` may be a run's
    name and only a run directly inside ``root`` is read (``runstore.resolve_run``).  A damaged run raises
    ``RunFileError`` naming the file and the field."""
    path = runstore.resolve_run(path, root) if root is not None else Path(path)
    kind = run_kind(path)
    method, curves, meta = _families()[kind].curves(path)
    config = meta.get("config") or {}
    return RunCurves(name=Path(path).name, path=Path(path), kind=kind, method=method, config=config,
                     status=str(meta.get("status", "?")), curves=curves.reset_index(drop=True))


def describe_run(path, families: dict) -> dict:
    """One row of ``lab runs list``: {name, path, kind, what, status}.  Dynamics and sharing runs are read by their
    stores (as ``read_run`` reads them); every other family's by the ``RunKind`` its manifest declares (``runs``),
    which checks its ``config.json`` and its files: a damaged run raises ``RunFileError``.  "what" is the value of
    the family's first option.  A run of a kind no family declares is described from its ``config.json`` alone
    (strict JSON, no code run)."""
    path = Path(path)
    meta_file = path / runstore.META
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        meta = None
    kind = meta.get("kind") if isinstance(meta, dict) else None
    if kind is None or kind in curve_kinds():
        run = read_run(path)
        return {"name": path.name, "path": str(path), "kind": run.kind,
                "what": str(run.config.get(head(run.kind), "?")), "status": run.status}
    family = families.get(kind)
    declared = [f for f in families.values() if f.runs and f.run_kind.kind == kind]
    if declared:
        family = family if family in declared else declared[0]
        meta = family.run_kind.read(path).meta
    config = meta.get("config")
    if not isinstance(config, dict):
        raise RunFileError(meta_file, "config", "is missing or not an object")
    first = family.config.declarations()[0].name if family is not None else None
    return {"name": path.name, "path": str(path), "kind": str(kind), "what": str(config.get(first, "?")),
            "status": str(meta.get("status", "?"))}


# ------------------------------------------------------------------ labels
def _value(v) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, (list, tuple)):
        return ",".join(map(_value, v))
    if v is None:
        return "default"
    return str(v)


def _settings(config: dict, kind: str) -> dict:
    """The settings a label may name: the config's fields (those of a sharing run's task only), with a dynamics
    run's further experiment ``options`` flattened in."""
    config = dict(config) if isinstance(config, dict) else {}
    family = _families().get(kind)
    if family is not None and family.applicable is not None:
        config = family.applicable(config)
    out = {k: v for k, v in config.items() if k not in HIDDEN}
    options = config.get("options")
    if isinstance(options, dict):
        out.update({k: v for k, v in options.items() if k not in out})
    return out


_STAMP = re.compile(r"^(\d{8})-(\d{2})(\d{2})(\d{2})-")


def _stamp(name: str) -> str:
    m = _STAMP.match(name)
    return f"{m[2]}:{m[3]}:{m[4]}" if m else name


def labels(configs: list[dict], names: list[str], kind: str) -> list[str]:
    """Short labels of runs compared with each other: the experiment or task, then the settings that differ
    between the runs (among those that apply to each; at most ``MAX_SETTINGS``), made unique by the time of
    saving or, failing that, the name (see the module docstring)."""
    first = head(kind)
    settings = [_settings(c, kind) for c in configs]
    keys: list[str] = []
    for s in settings:
        keys.extend(k for k in s if k not in keys and k != first)
    differ = [k for k in keys if len({_value(s[k]) for s in settings if k in s}) > 1]
    out = []
    for s in settings:
        parts = [_value(s.get(first, "?"))] if first else []
        shown = [k for k in differ if k in s]
        parts += [f"{k} {_value(s[k])}" for k in shown[:MAX_SETTINGS]]
        if len(shown) > MAX_SETTINGS:
            parts.append(f"+{len(shown) - MAX_SETTINGS} more")
        out.append(" · ".join(parts))
    for tie in (_stamp, lambda name: name):
        counts = pd.Series(out).value_counts()
        if (counts <= 1).all():
            break
        out = [f"{lab} · {tie(name)}" if counts[lab] > 1 else lab for lab, name in zip(out, names)]
    return out


# ------------------------------------------------------------------ comparing
def comparison(runs: list[RunCurves]) -> Comparison:
    """Label ``runs`` against each other and put their curves in one table (``COLUMNS``)."""
    if not runs:
        return Comparison([], [], pd.DataFrame(columns=COLUMNS))
    kinds = sorted({r.kind for r in runs})
    if len(kinds) > 1:
        raise CompareError(f"cannot compare runs of different kinds ({' and '.join(kinds)}): choose "
                           f"{' or '.join(kinds)} runs")
    labs = labels([r.config for r in runs], [r.name for r in runs], runs[0].kind)
    parts = [r.curves.assign(run=lab, name=r.name) for r, lab in zip(runs, labs) if not r.curves.empty]
    frame = pd.concat(parts, ignore_index=True)[COLUMNS] if parts else pd.DataFrame(columns=COLUMNS)
    return Comparison(list(runs), labs, frame)


def compare(paths, root=None) -> Comparison:
    """Read the runs at ``paths`` (names inside ``root`` when given) and compare them."""
    return comparison([read_run(p, root) for p in paths])


def frame_csv(frame: pd.DataFrame) -> str:
    """The comparison table as CSV text (what the dashboard's CSV download and ``--csv`` write)."""
    return frame[COLUMNS].to_csv(index=False)


def read_frame_csv(file) -> pd.DataFrame:
    """A comparison table written by ``frame_csv`` read back (the empty series as empty strings)."""
    frame = pd.read_csv(file, keep_default_na=False, na_values={"value": ["", "NaN", "nan"]},
                        dtype={"run": str, "name": str, "metric": str, "series": str})
    return frame[COLUMNS]


def final_values(frame: pd.DataFrame) -> pd.DataFrame:
    """Each curve's last point: one row per (run, metric, series) with its last ``step`` and ``value``."""
    if frame.empty:
        return pd.DataFrame(columns=COLUMNS)
    last = frame.sort_values("step", kind="stable").groupby(["run", "metric", "series"], sort=False).tail(1)
    order = {r: i for i, r in enumerate(dict.fromkeys(frame.run))}
    return last.sort_values("run", key=lambda c: c.map(order), kind="stable")[COLUMNS].reset_index(drop=True)


# ------------------------------------------------------------------ the command line
def find_run(text: str, directories) -> Path:
    """A run named on the command line: a path to a run directory, or the name of a run in one of
    ``directories`` (the results directories searched, in order).  ``CompareError`` when there is none."""
    given = Path(text)
    if (given / runstore.META).is_file():
        return given
    found = [Path(d) / text for d in directories if (Path(d) / text / runstore.META).is_file()
             and os.sep not in text.strip(os.sep)]
    if found:
        return found[0]
    where = ", ".join(str(d) for d in directories) or "no results directory"
    raise CompareError(f"no saved run {text!r} (a run directory, or a run's name in {where})")
