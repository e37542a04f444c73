"""Colours shared by the interactive (HoloViews) and static (matplotlib) basis-coloring plots."""
from __future__ import annotations

import colorcet as cc
import numpy as np

#: categorical colours, one per basis element (category10 first, then glasbey: 256 distinct colours;
#: beyond 256 elements colours repeat, and the hover / element index still tells elements apart)
PALETTE: list[str] = list(cc.palette["glasbey_category10"])
ZERO_COLOR = "#eeeeee"  # entries forced to zero
LINE_COLOR = "#222222"  # block boundaries of direct sums
GUIDE_COLOR = "#ffffff"  # sub-blocks of V (channels): thin white gaps
DIVERGING = "RdBu_r"  # continuous view: negative blue, zero white, positive red
NEGATIVE_TINT = 0.55  # a -1 entry is its element's colour mixed this much with white


def _tint(hex_colour: str, amount: float = NEGATIVE_TINT) -> str:
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    mixed = np.round(rgb + (255 - rgb) * amount).astype(int)
    return "#" + "".join(f"{c:02x}" for c in mixed)


def categorical_colours(labels: np.ndarray, signs: np.ndarray, rank: int) -> tuple[np.ndarray, list[str]]:
    """(colour index per entry as float with NaN for zero entries, the list of colours it indexes).

    Element k gets ``PALETTE[k % 256]``; when some entries are -1 (signed patterns such as the
    Levi-Civita symbol) the palette is doubled and -1 entries get the lighter tint of their colour.
    """
    n = max(min(rank, len(PALETTE)), 1)
    base = labels % n
    signed = bool(np.any(signs < 0))
    if signed:
        colours = [c for p in PALETTE[:n] for c in (p, _tint(p))]
        idx = (2 * base + (signs < 0)).astype(float)
    else:
        colours = PALETTE[:n]
        idx = base.astype(float)
    idx[labels < 0] = np.nan
    return idx, colours
