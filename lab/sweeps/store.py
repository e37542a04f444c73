"""One results store for a sweep, in open formats: the families' own run directories plus a columnar index.

    STORE/sweep.yaml          the sweep as run (re-running the same file into the store resumes it)
    STORE/runs/<run>/         one run directory per finished point, written by the family's own ``save``
    STORE/index/part-*.parquet    the index: one row per finished or failed point, appended atomically

An index part is written to a temporary name and renamed into place (``os.replace``), so a killed client or worker
loses only what was not yet written; re-running reads the index and skips the points already done.  Each row:
``point`` (the point's id), ``status`` (done / failed), ``error`` (the failure's one line), ``run`` (the run
directory, relative to the store), ``seconds``, ``finished`` (Unix time), ``worker``, ``settings`` and ``summary``
(JSON text: the point's settings and the family's ``--json`` object), one column ``x.<axis>`` per swept option and
one column ``s.<name>`` per number of the summary (``summary_numbers``: ``s.<key>`` at its top level, ``s.<key>.<key>``
nested, and the names the family's manifest gives, ``Family.numbers``) and ``numbered`` (true: those are every number
of the summary): what the Sweeps tab filters, groups and draws.  A point's latest row is its state (a retried point
gets a new row).  ``compact()`` merges the parts into one.  An index written before nested numbers were kept (no
``numbered``) reads the same: ``with_numbers`` adds their columns from each row's ``summary`` (the Sweeps tab does
when it opens a store).
"""
from __future__ import annotations

import json
import math
import numbers
import os
import time
import uuid
from pathlib import Path

import numpy as np

from .spec import SweepError

INDEX, RUNS, SPEC = "index", "runs", "sweep.yaml"
#: the most ``s.<name>`` columns one point's summary gives the index
MAX_NUMBERS = 256
#: the column saying a row's ``s.<name>`` columns are ``summary_numbers``' (an index written before has none)
NUMBERED = "numbered"
#: the index's fixed columns, in order (then x.<axis>, then s.<key>)
COLUMNS = ("point", "status", "error", "run", "seconds", "finished", "worker", "settings", "summary")
#: a merged part's metadata key: the JSON list of the part names it replaces (read once while both are on disk)
REPLACES = "lab.replaces"


def _scalar(v):
    """A value as an index column holds it: numbers, texts and booleans as they are; anything else as JSON."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    return json.dumps(v, default=str)


def _number(v) -> float | None:
    """A finite number (a boolean as 0 / 1) as a float; None for anything else."""
    kind = type(v)
    if kind is float:  # (the summary's JSON types first: a large index is read row by row)
        return v if math.isfinite(v) else None
    if kind is int or kind is bool:
        return float(v)
    if v is None or kind is str or kind is list:
        return None
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    if isinstance(v, numbers.Real) and math.isfinite(float(v)):
        return float(v)
    return None


def flatten(summary: dict, prefix: str = ""):
    """(dotted name, value) of every value of ``summary`` that is not a mapping, nested mappings walked in order."""
    for k, v in summary.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            yield from flatten(v, name + ".")
        else:
            yield name, v


def summary_numbers(summary: dict, family=None) -> dict:
    """{name: number} of a point's summary, at most ``MAX_NUMBERS``: every finite number (or boolean, as 0 / 1), a
    top-level one under its key, a nested one under its keys joined by dots (``nom.dist_from_E``; lists are not
    walked), then the numbers the family's ``numbers`` hook gives (``family``: its ``Family``) under names the
    summary does not take (the summary's own names are never replaced)."""
    out = {}
    if not isinstance(summary, dict):
        return out
    for name, v in flatten(summary):
        x = _number(v)
        if x is not None and len(out) < MAX_NUMBERS:
            out[name] = x
    hook = getattr(family, "numbers", None)
    if hook is not None:
        for name, v in (hook(summary) or {}).items():
            x = _number(v)
            if x is not None and str(name) not in out and len(out) < MAX_NUMBERS:
                out[str(name)] = x
    return out


def summary_columns(summary: dict, family=None) -> dict:
    """``s.<name>`` for every number of ``summary_numbers``: what an index row holds of a point's summary."""
    return {f"s.{k}": v for k, v in summary_numbers(summary, family).items()}


def with_numbers(df, family_of=None):
    """The index ``df`` (``SweepStore.frame``) with the ``summary_columns`` of every done row not ``numbered``
    (written before nested numbers were kept) recomputed from its ``summary`` JSON (``family_of(settings)``: the
    point's ``Family``, for its ``numbers`` hook): columns the index lacks are added, missing values filled; a value
    the index holds is kept as it is."""
    import pandas as pd

    if not len(df) or "summary" not in df or "status" not in df:
        return df
    todo = (df["status"] == "done") & df["summary"].map(lambda v: isinstance(v, str))
    if NUMBERED in df:
        todo &= df[NUMBERED].map(lambda v: v is not True and v != 1)
    found = {}
    settings_texts = df["settings"] if "settings" in df else pd.Series(None, index=df.index)
    for i, text, settings in zip(df.index[todo], df["summary"][todo], settings_texts[todo]):
        try:
            summary = json.loads(text)
            settings = json.loads(settings) if isinstance(settings, str) else {}
        except ValueError:
            continue
        try:
            family = family_of(settings if isinstance(settings, dict) else {}) if family_of else None
        except Exception:  # a family no longer installed: the summary's own numbers
            family = None
        found[i] = summary_columns(summary, family)
    if not any(found.values()):
        return df
    extra = pd.DataFrame.from_dict(found, orient="index").reindex(df.index)
    df = df.copy()
    for c in extra.columns:
        df[c] = df[c].where(df[c].notna(), extra[c]) if c in df else extra[c]
    return df


class SweepStore:
    """The store at ``root`` (created on first write)."""

    def __init__(self, root):
        self.root = Path(root)

    @property
    def runs(self) -> Path:
        return self.root / RUNS

    @property
    def index_dir(self) -> Path:
        return self.root / INDEX

    def exists(self) -> bool:
        return (self.root / SPEC).is_file()

    # ------------------------------------------------------------------ the sweep itself
    def write_spec(self, text: str) -> None:
        """Keep the sweep file as run; a store holds one sweep (a different file into it is refused)."""
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / SPEC
        if path.exists():
            import yaml

            if yaml.safe_load(path.read_text()) != yaml.safe_load(text):
                raise SweepError(f"{self.root} holds another sweep ({path}): choose another --out")
            return
        tmp = path.with_name(f".{SPEC}.{uuid.uuid4().hex}")
        tmp.write_text(text)
        os.replace(tmp, path)

    def read_spec(self):
        from .spec import load_sweep

        return load_sweep(self.root / SPEC)

    # ------------------------------------------------------------------ the index
    def append(self, rows: list[dict]) -> Path | None:
        """Write ``rows`` as one new index part, atomically; returns its path (None for no rows)."""
        if not rows:
            return None
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.index_dir.mkdir(parents=True, exist_ok=True)
        names = list(COLUMNS) + sorted({k for r in rows for k in r if k not in COLUMNS})
        columns = {}
        for n in names:
            values = [_scalar(r.get(n)) for r in rows]
            kinds = {type(v) for v in values if v is not None}
            if len(kinds) > 1 and kinds != {int, float}:
                values = [None if v is None else str(v) for v in values]  # a mixed column: as texts
            columns[n] = values
        table = pa.table(columns)
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.index_dir / f".{name}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.index_dir / name)
        return self.index_dir / name

    def parts(self) -> list[Path]:
        return sorted(self.index_dir.glob("part-*.parquet")) if self.index_dir.is_dir() else []

    def table(self, columns=None):
        """Every index row as one ``pyarrow.Table`` (parts' schemas unified; missing columns null).

        Safe beside a running ``compact()``: a part that vanishes between listing and reading means a merged part
        replaced it, so the parts are listed again; a part that a merged part replaces (``REPLACES`` in its
        metadata) is not read twice while both are on disk.
        """
        import pyarrow as pa

        for _ in range(20):
            try:
                tables = self._read_parts(self.parts())
                break
            except FileNotFoundError:
                continue  # compacted under us: list again
        else:  # pragma: no cover - twenty compactions during one read
            raise SweepError(f"{self.index_dir}: the index kept changing while it was read")
        if not tables:
            return pa.table({c: pa.array([], type=pa.string()) for c in COLUMNS})
        table = pa.concat_tables(tables, promote_options="permissive")
        if columns is not None:
            table = table.select([c for c in columns if c in table.column_names])
        return table

    @staticmethod
    def _read_parts(parts) -> list:
        """The tables of ``parts``, less any part that another of them (a merged part) replaces."""
        import pyarrow.parquet as pq

        read = {p.name: pq.read_table(p) for p in parts}
        replaced = set()
        for t in read.values():
            meta = t.schema.metadata or {}
            if REPLACES.encode() in meta:
                replaced.update(json.loads(meta[REPLACES.encode()]))
        return [t.replace_schema_metadata(None) for n, t in read.items() if n not in replaced]

    def frame(self, latest: bool = True):
        """The index as a pandas DataFrame; ``latest``: one row per point, its last state."""
        df = self.table().to_pandas()
        if latest and len(df):
            df = df.sort_values("finished", kind="stable").drop_duplicates("point", keep="last")
        return df.reset_index(drop=True)

    def states(self) -> dict[str, str]:
        """point id -> its latest status."""
        df = self.frame()
        return dict(zip(df["point"], df["status"])) if len(df) else {}

    def compact(self) -> Path | None:
        """Merge the index parts into one (atomically: the merged part is in place before the others go).

        The merged part names the parts it replaces (``REPLACES`` in its metadata), so a reader that lists the
        directory while both are on disk counts each row once; a part appended meanwhile is left as it is.
        """
        import pyarrow as pa
        import pyarrow.parquet as pq

        parts = self.parts()
        if len(parts) < 2:
            return parts[0] if parts else None
        tables = self._read_parts(parts)
        table = pa.concat_tables(tables, promote_options="permissive")
        table = table.replace_schema_metadata({REPLACES: json.dumps([p.name for p in parts])})
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.index_dir / f".{name}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.index_dir / name)
        for p in parts:
            p.unlink(missing_ok=True)
        return self.index_dir / name

    def run_path(self, row: dict) -> Path | None:
        return (self.root / row["run"]) if row.get("run") else None
