"""One results store for a sweep, in open formats: the families' own run directories plus a columnar index.

    STORE/sweep.yaml          the sweep as run (re-running the same file into the store resumes it)
    STORE/runs/<run>/         one run directory per finished point, written by the family's own ``save``
    STORE/index/part-*.parquet    the index: one row per finished or failed point, appended atomically

An index part is written to a temporary name and renamed into place (``os.replace``), so a killed client or worker
loses only what was not yet written; re-running reads the index and skips the points already done.  Each row:
``point`` (the point's id), ``status`` (done / failed), ``error`` (the failure's one line), ``run`` (the run
directory, relative to the store), ``seconds``, ``finished`` (Unix time), ``worker``, ``settings`` and ``summary``
(JSON text: the point's settings and the family's ``--json`` object), one column ``x.<axis>`` per swept option and
one column ``s.<key>`` per number of the summary's top level (what the Sweeps tab filters, groups and draws).  A
point's latest row is its state (a retried point gets a new row).  ``compact()`` merges the parts into one.
"""
from __future__ import annotations

import json
import math
import os
import time
import uuid
from pathlib import Path

from .spec import SweepError

INDEX, RUNS, SPEC = "index", "runs", "sweep.yaml"
#: the index's fixed columns, in order (then x.<axis>, then s.<key>)
COLUMNS = ("point", "status", "error", "run", "seconds", "finished", "worker", "settings", "summary")


def _scalar(v):
    """A value as an index column holds it: numbers, texts and booleans as they are; anything else as JSON."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    return json.dumps(v, default=str)


def summary_columns(summary: dict) -> dict:
    """``s.<key>`` for every finite number (or boolean) at the summary's top level."""
    out = {}
    for k, v in (summary or {}).items():
        if isinstance(v, bool):
            out[f"s.{k}"] = float(v)
        elif isinstance(v, (int, float)) and math.isfinite(float(v)):
            out[f"s.{k}"] = float(v)
    return out


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
        """Every index row as one ``pyarrow.Table`` (parts' schemas unified; missing columns null)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        parts = self.parts()
        if not parts:
            return pa.table({c: pa.array([], type=pa.string()) for c in COLUMNS})
        tables = [pq.read_table(p) for p in parts]
        table = pa.concat_tables(tables, promote_options="permissive")
        if columns is not None:
            table = table.select([c for c in columns if c in table.column_names])
        return table

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
        """Merge the index parts into one (atomically: the merged part is in place before the others go)."""
        import pyarrow.parquet as pq

        parts = self.parts()
        if len(parts) < 2:
            return parts[0] if parts else None
        table = self.table()
        name = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet"
        tmp = self.index_dir / f".{name}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.index_dir / name)
        for p in parts:
            p.unlink(missing_ok=True)
        return self.index_dir / name

    def run_path(self, row: dict) -> Path | None:
        return (self.root / row["run"]) if row.get("run") else None
