"""Teaching presets for the basis explorer: classic layers as (group, input rep, output rep).

Group texts may contain ``n`` as a free size (``"Z(n)*Z(n)"``); ``Preset.group_text(n)`` fills it in.
The dashboard, the teaching notebook and ``lab basis --preset`` all read this table.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import GroupError

_N = re.compile(r"(?<![A-Za-z0-9_])n(?![A-Za-z0-9_])")


def fill_size(template: str, n: int | None) -> str:
    """``"Z(n)*Z(n)"`` with n = 4 -> ``"Z(4)*Z(4)"``; templates without ``n`` are returned as they are."""
    if not has_size(template):
        return template
    if n is None:
        raise GroupError(f"{template} needs a size n")
    return _N.sub(str(int(n)), template)


def has_size(template: str) -> bool:
    return bool(_N.search(template))


@dataclass(frozen=True)
class Preset:
    name: str
    group: str  # a group text, possibly with n
    n: int | None  # default size
    rep_in: str
    rep_out: str
    blurb: str  # what the picture teaches, one or two sentences

    def group_text(self, n: int | None = None) -> str:
        return fill_size(self.group, self.n if n is None else n)


PRESETS: dict[str, Preset] = {p.name: p for p in [
    Preset("Convolution", "Z(n)", 8, "V", "V",
           "Cyclic shifts of a 1-D signal: the equivariant maps are the n circulant matrices, "
           "i.e. convolutions with a length-n kernel (r = n)."),
    Preset("DeepSets", "S(n)", 6, "V", "V",
           "All permutations of a set: only two parameters survive, one on the diagonal and one off it "
           "(W = λI + γ11ᵀ, Zaheer et al. 2017)."),
    Preset("Graph layer", "S(n)", 4, "T(2)", "T(2)",
           "Permutations acting on adjacency matrices: 15 basis elements for n ≥ 4, the Bell number B(4) "
           "(Maron et al. 2019)."),
    Preset("2-D convolution", "Z(n)*Z(n)", 4, "V", "V",
           "Cyclic shifts in x and y on an n×n image: doubly-circulant blocks, one parameter per kernel "
           "offset (r = n²)."),
    Preset("GCNN layer", "GCNN(n)", 3, "V", "V",
           "The p4 group (90° rotations and shifts) on 4 orientation channels of an n×n grid: rotated "
           "copies of one filter, a group convolution (Cohen & Welling 2016)."),
    Preset("Levi-Civita", "SO(n)", 3, "T(2)", "V",
           "Rotation-equivariant bilinear maps R³×R³→R³: the only one is the cross product, the Levi-Civita "
           "symbol ε_ijk (light shade = −1). O(3) has none."),
    Preset("Lorentz metric", "O13()", None, "V.T", "V",
           "Lorentz-invariant tensors in T(2): the Minkowski metric η = diag(−1, 1, 1, 1) (light shade = −1)."),
    Preset("Rubik's cube", "RubiksCube()", None, "V", "V",
           "The Rubik's cube group on its 48 movable facets: r = 9 = 4 corner→corner classes (same facet, "
           "same cubie clockwise / anticlockwise, different cubies) + 3 edge→edge + corner→edge + edge→corner."),
]}
