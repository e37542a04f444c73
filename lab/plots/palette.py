"""Colours shared by the interactive (HoloViews) and static (matplotlib) basis-coloring plots.

Zero entries are blank white, so no element colour may read as "nothing": the element palette is colorcet's
glasbey for light backgrounds (``glasbey_dark`` = ``glasbey_bw_minc_20_maxl_70``: no black, white or pale
colours), less the few left whose CIELAB chroma is under ``MIN_CHROMA`` (greyish) or whose lightness is
outside ``LIGHTNESS`` (near-black, which reads as a block line, or near-white).
"""
from __future__ import annotations

import colorcet as cc
import numpy as np

MIN_CHROMA = 20.0  # CIELAB C* below this reads as grey
LIGHTNESS = (20.0, 85.0)  # CIELAB L* range of element colours (below: near-black; above: near-white)


def cielab(hex_colours) -> np.ndarray:
    """CIELAB (L*, a*, b*) of sRGB hex colours (D65 white), shape (n, 3)."""
    rgb = np.array([[int(h[i:i + 2], 16) for i in (1, 3, 5)] for h in hex_colours], dtype=float) / 255
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    to_xyz = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                       [0.0193339, 0.1191920, 0.9503041]])
    xyz = linear @ to_xyz.T / np.array([0.95047, 1.0, 1.08883])
    eps = (6 / 29) ** 3
    f = np.where(xyz > eps, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1)


def chroma(hex_colours) -> np.ndarray:
    lab = cielab(hex_colours)
    return np.hypot(lab[:, 1], lab[:, 2])


def _element_palette() -> list[str]:
    base = list(cc.palette["glasbey_dark"])
    lab = cielab(base)
    ok = (np.hypot(lab[:, 1], lab[:, 2]) >= MIN_CHROMA) & (lab[:, 0] >= LIGHTNESS[0]) & (lab[:, 0] <= LIGHTNESS[1])
    return [c for c, keep in zip(base, ok) if keep]


#: categorical colours, one per basis element (about 225 distinct ones; beyond that colours repeat, but a plot
#: with more than ``lab.plots.coloring.MANY_ELEMENTS`` elements uses the sequential ``INDEX_MAP`` instead)
PALETTE: list[str] = _element_palette()
#: colour by element number (many elements): colorcet's CET-R3 (rainbow_bgyr_35_85_c73: blue, green, yellow,
#: red; CIELAB lightness 45-83 and chroma above 28: never near-white, near-black or grey)
INDEX_MAP: list[str] = list(cc.palette["CET_R3"])
ZERO_COLOR = "#ffffff"  # entries forced to zero: blank
GRID_COLOR = "#e4e4e4"  # faint cell grid of small matrices, so blank entries still show the matrix's cells
OUTLINE_COLOR = "#8c8c8c"  # the matrix's (and every gallery tile's) outline
GRID_MAX = 40  # draw the cell grid when the shown matrix has at most this many rows and columns
LINE_COLOR = "#222222"  # block boundaries of direct sums
GUIDE_COLOR = "#8a8a8a"  # sub-blocks of V (channels, slices of T(2)): thin grey lines, darker than the grid
#: continuous view: negative blue, zero white, positive red: ColorBrewer's RdBu (reversed) with its pale grey
#: centre made pure white, interpolated to an odd number of steps so that the middle one (values within 1/255
#: of 0 on the -1..1 scale) is exactly white like the blank zeros of the categorical view
_RDBU_R = ["#053061", "#2166ac", "#4393c3", "#92c5de", "#d1e5f0", "#ffffff", "#fddbc7", "#f4a582", "#d6604d",
           "#b2182b", "#67001f"]


def _interpolate(anchors: list[str], steps: int) -> list[str]:
    rgb = np.array([[int(h[i:i + 2], 16) for i in (1, 3, 5)] for h in anchors], dtype=float)
    t = np.linspace(0, len(anchors) - 1, steps)
    out = np.stack([np.interp(t, np.arange(len(anchors)), rgb[:, c]) for c in range(3)], axis=1)
    return ["#" + "".join(f"{int(round(v)):02x}" for v in row) for row in out]


DIVERGING: list[str] = _interpolate(_RDBU_R, 255)
NEGATIVE_TINT = 0.5  # a -1 entry is its element's colour mixed this much with white


def _tint(hex_colour: str, amount: float = NEGATIVE_TINT) -> str:
    rgb = np.array([int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)], dtype=float)
    mixed = np.round(rgb + (255 - rgb) * amount).astype(int)
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _signed(labels: np.ndarray, signs: np.ndarray, base: np.ndarray, palette: list[str]):
    if np.any(signs < 0):
        colours = [c for p in palette for c in (p, _tint(p))]
        idx = (2 * base + (signs < 0)).astype(float)
    else:
        colours = list(palette)
        idx = base.astype(float)
    idx[labels < 0] = np.nan
    return idx, colours


def categorical_colours(labels: np.ndarray, signs: np.ndarray, rank: int) -> tuple[np.ndarray, list[str]]:
    """(colour index per entry as float with NaN for zero entries, the list of colours it indexes).

    Element k gets ``PALETTE[k % len(PALETTE)]``; when some entries are -1 (signed patterns such as the
    Levi-Civita symbol) the palette is doubled and -1 entries get the lighter tint of their colour.
    """
    n = max(min(rank, len(PALETTE)), 1)
    return _signed(labels, signs, labels % n, PALETTE[:n])


def index_colours(labels: np.ndarray, signs: np.ndarray, rank: int) -> tuple[np.ndarray, list[str]]:
    """Like ``categorical_colours`` for many elements: element k of r gets the colour of k / r on the
    sequential ``INDEX_MAP`` (at most 256 steps), -1 entries its lighter tint."""
    steps = max(min(rank, 256), 1)
    palette = [INDEX_MAP[int(round(i * (len(INDEX_MAP) - 1) / max(steps - 1, 1)))] for i in range(steps)]
    base = np.clip(labels, 0, None).astype(np.int64) * steps // max(rank, 1)
    return _signed(labels, signs, base, palette)
