"""Tables of recorded training metrics: medians over runs, per-layer breakdowns, view limits.

Input is the long table of ``Trainer.records`` / ``metrics.csv`` (one row per strategy, run, step, layer).
"""
from __future__ import annotations

import pandas as pd

METRICS = ("dist_from_init", "dist_from_E", "loss", "accuracy")


def frame(records) -> pd.DataFrame:
    return records if isinstance(records, pd.DataFrame) else pd.DataFrame(records)


def medians(records, layer: str = "total") -> pd.DataFrame:
    """Median over live runs for every (strategy, step): the paper's bold curves."""
    df = frame(records)
    if df.empty:
        return pd.DataFrame(columns=["strategy", "step", *METRICS])
    df = df[(df.layer == layer) & ~df.diverged.astype(bool)]
    return df.groupby(["strategy", "step"], as_index=False)[list(METRICS)].median()


def per_layer(records, step: int | None = None) -> pd.DataFrame:
    """Medians over runs of each layer's distances at ``step`` (default: the latest)."""
    df = frame(records)
    if df.empty:
        return pd.DataFrame(columns=["strategy", "layer", "dist_from_init", "dist_from_E"])
    step = df.step.max() if step is None else step
    df = df[(df.step == step) & ~df.diverged.astype(bool)]
    order = {name: i for i, name in enumerate(dict.fromkeys(df.layer))}
    out = df.groupby(["strategy", "layer"], as_index=False)[["dist_from_init", "dist_from_E"]].median()
    return out.sort_values(["strategy", "layer"], key=lambda c: c.map(order) if c.name == "layer" else c)


def view_limits(records, view: str = "nom", margin: float = 1.2, med=None) -> tuple[float, float]:
    """(x max, y max) of the drift plot: ``nom`` scales both axes to Nom's median curve (the paper's left
    panel), ``aug`` zooms the y axis to Aug's (right panel); each a ``margin`` times the largest median.
    ``med``: the medians when the caller has them already."""
    med = medians(records) if med is None else med
    if med.empty:
        return 1.0, 1.0
    x = med.dist_from_init.max()
    ref = med[med.strategy == view] if (med.strategy == view).any() else med
    y = ref.dist_from_E.max()
    return float(margin * x) or 1.0, float(margin * y) or 1e-12
