"""What the Sweeps tab draws, computed from a store's index (no UI here): the axes and their values, the numbers the
family's summaries hold (``quantities``), those of them that are results rather than a setting echoed (``results``)
and the one shown first (``first_quantity``), and a summary number against one axis, one line per value of another,
aggregated over every other axis (the seeds): median, quartiles, extremes and the count.

>>> import pandas as pd
>>> df = pd.DataFrame({"status": ["done"] * 4, "x.size": [10, 10, 20, 20], "x.seed": [0, 1, 0, 1],
...                    "s.error": [0.4, 0.2, 0.1, 0.3]})
>>> a = aggregate(df, "size", "error")
>>> a["x"].tolist(), a["median"].round(3).tolist(), a["n"].tolist()
([10, 20], [0.3, 0.2], [2, 2])
"""
from __future__ import annotations

import json

import pandas as pd

from .spec import SweepError

#: summary numbers that time a point rather than measure it: offered, never the first shown
TIMINGS = ("seconds", "elapsed")


def axes(df: pd.DataFrame) -> dict[str, list]:
    """The swept options (``x.<axis>`` columns) and their distinct values, sorted."""
    out = {}
    for c in df.columns:
        if c.startswith("x."):
            values = df[c].dropna().unique().tolist()
            try:
                values = sorted(values)
            except TypeError:
                values = sorted(values, key=str)
            out[c[2:]] = values
    return out


def quantities(df: pd.DataFrame) -> list[str]:
    """The summary numbers (``s.<key>`` columns) with at least one value."""
    return [c[2:] for c in df.columns if c.startswith("s.") and df[c].notna().any()]


def _leaf(name: str) -> str:
    """A summary number's own key: the last part of a dotted name (``nom.steps``: ``steps``)."""
    return name.rsplit(".", 1)[-1]


def _settings(df: pd.DataFrame) -> list[dict]:
    """Each row's settings (its ``settings`` JSON; {} where it has none)."""
    out = []
    for text in (df["settings"] if "settings" in df else [None] * len(df)):
        try:
            value = json.loads(text) if isinstance(text, str) else {}
        except ValueError:
            value = {}
        out.append(value if isinstance(value, dict) else {})
    return out


def _same(setting, value) -> bool:
    try:
        return float(setting) == float(value)
    except (TypeError, ValueError):
        return False


def echoes(df: pd.DataFrame, options=()) -> list[str]:
    """The summary numbers that merely echo a setting of the point (ensembles' ``members``, dynamics'
    ``nom.steps``): their own key (``_leaf``) is an option -- one of ``options`` (the family config's option names)
    or a key of some row's ``settings`` -- and every row whose settings give that option holds its value."""
    settings = _settings(df)
    names = set(options) | {k for s in settings for k in s}
    out = []
    for q in quantities(df):
        key = _leaf(q)
        if key not in names:
            continue
        if all(_same(s[key], v) for s, v in zip(settings, df[f"s.{q}"]) if key in s and pd.notna(v)):
            out.append(q)
    return out


def results(df: pd.DataFrame, options=()) -> list[str]:
    """The summary numbers a point measured: ``quantities`` less ``echoes``, the top-level names (and the family's
    own, ``Family.numbers``) before the nested ones (``nom.dist_from_E``)."""
    echoed = set(echoes(df, options))
    kept = [q for q in quantities(df) if q not in echoed]
    return [q for q in kept if "." not in q] + [q for q in kept if "." in q]


def first_quantity(df: pd.DataFrame, names: list[str], headline: str = "") -> str | None:
    """The summary number shown first among ``names``: the family's ``headline`` when the index has it (else the
    first nested one of that key: ``nom.dist_from_E`` for a sweep of points of several strategies each), else the
    first that varies and is not a timing (``TIMINGS``), else the first that is not a timing, else the first."""
    if headline and headline in names:
        return headline
    nested = [q for q in names if headline and _leaf(q) == headline]
    if nested:
        return nested[0]
    measured = [q for q in names if _leaf(q) not in TIMINGS]
    varying = [q for q in measured if f"s.{q}" in df and df[f"s.{q}"].nunique() > 1]
    return next(iter(varying or measured or names), None)


def select(df: pd.DataFrame, filters: dict | None = None, status: str | None = "done") -> pd.DataFrame:
    """The rows whose axes take one of the allowed values (``filters``: axis -> values; absent: any)."""
    mask = pd.Series(True, index=df.index)
    if status is not None and "status" in df:
        mask &= df["status"] == status
    for axis, allowed in (filters or {}).items():
        col = f"x.{axis}"
        if col not in df:
            raise SweepError(f"the sweep has no axis {axis!r}")
        if allowed is not None:
            mask &= df[col].isin(list(allowed))
    return df[mask]


def aggregate(df: pd.DataFrame, x: str, y: str, group: str | None = None, filters: dict | None = None) -> pd.DataFrame:
    """``y`` (a summary number) against axis ``x``, one series per value of axis ``group``, over the other axes:
    columns ``x``, ``group`` (None without one), ``median``, ``q25``, ``q75``, ``min``, ``max``, ``n``."""
    for name, col in (("x", f"x.{x}"), ("group", f"x.{group}" if group else None), ("y", f"s.{y}")):
        if col is not None and col not in df:
            raise SweepError(f"the sweep has no {'quantity' if name == 'y' else 'axis'} "
                             f"{(y if name == 'y' else x if name == 'x' else group)!r}")
    rows = select(df, filters)
    keys = [f"x.{x}"] + ([f"x.{group}"] if group else [])
    cols = ["x", "group", "median", "q25", "q75", "min", "max", "n"]
    if rows.empty:
        return pd.DataFrame(columns=cols)
    g = rows.dropna(subset=[f"s.{y}"]).groupby(keys, sort=True)[f"s.{y}"]
    out = pd.DataFrame({"median": g.median(), "q25": g.quantile(0.25), "q75": g.quantile(0.75), "min": g.min(),
                        "max": g.max(), "n": g.count()}).reset_index()
    out = out.rename(columns={f"x.{x}": "x", **({f"x.{group}": "group"} if group else {})})
    if not group:
        out["group"] = None
    return out[cols]
