"""Symmetry Lab: groups, representations and equivariant bases for exploring symmetry in neural networks.

>>> from lab import S, T, V, parse_rep
>>> T(2)(S(5)).solve().rank          # equivariant graph-layer features: Bell(2) = 2
2
>>> parse_rep("V >> V", "Z(8)").solve().rank   # convolutions: the 8 circulant matrices
8
"""
from .lazy import lazy_exports

# The public names load on first use: ``import lab`` (what ``lab --help`` and every submodule import pays) stays
# light, and ``from lab import S, T`` loads the groups and representations then (scipy with them).
__getattr__, __dir__ = lazy_exports(__name__, {
    **dict.fromkeys(("GroupError", "LabError", "MemoryLimitError", "ParseError", "RepError", "SolverError"), "errors"),
    **dict.fromkeys(("C", "D", "GCNN", "GROUPS", "O", "O13", "SO", "SO11p", "SO13", "SO13p", "SU", "U", "Alt", "C4Grid",
                     "Cube", "DihedralPerm", "DkeR3", "GL", "Group", "O2eR3", "P4Grid", "RubiksCube", "S", "SL",
                     "SO2eR3", "Sp", "Trivial", "Z", "ZksZnxZn", "group_catalog", "parse_group"), "groups"),
    **dict.fromkeys(("Rep", "Scalar", "T", "UserRep", "V", "Vstar", "parse_rep", "register_rep", "regular_rep",
                     "so3_irrep"), "reps"),
    **dict.fromkeys(("Solution", "solve"), "solvers"),
})

__version__ = "0.1.0"

__all__ = [
    "LabError", "GroupError", "ParseError", "RepError", "SolverError", "MemoryLimitError",
    "Group", "GROUPS", "parse_group", "group_catalog",
    "Trivial", "Z", "S", "Alt", "DihedralPerm", "C4Grid", "P4Grid", "GCNN", "ZksZnxZn", "Cube", "RubiksCube",
    "C", "D", "SO", "O", "SO2eR3", "O2eR3", "DkeR3", "SO11p", "SO13p", "SO13", "O13", "Sp", "SL", "GL", "U", "SU",
    "Rep", "V", "Vstar", "T", "Scalar", "parse_rep", "solve", "Solution",
    "UserRep", "so3_irrep", "regular_rep", "register_rep",
]
