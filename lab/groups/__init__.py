"""Groups of the lab and the text form used to name them (``"S(5)"``, ``"Z(8)*Z(8)"``, ``"SO13()"``, ``"O2eR3()"``).

``base`` (``Group``, direct products), ``permutation``, ``matrix`` and ``z_axis`` define the groups; ``language``
names them (``GROUPS``, ``parse_group``); ``generators`` is the one stored form of a generator."""
from .base import DirectProduct, Footprint, Group
from .language import GROUPS, group_catalog, group_footprint, max_size, parse_group
from .matrix import GL, SL, SU, SO11p, SO13, SO13p, C, D, O, O13, SO, Sp, U
from .permutation import C4Grid, Cube, DihedralPerm, GCNN, P4Grid, RubiksCube, S, Trivial, Z, ZksZnxZn, Alt
from .z_axis import DkeR3, O2eR3, SO2eR3, ZAxisGroup

__all__ = ["Group", "DirectProduct", "Footprint", "GROUPS", "parse_group", "group_footprint", "max_size",
           "group_catalog", "ZAxisGroup", *GROUPS]
