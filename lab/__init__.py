"""Symmetry Lab: groups, representations and equivariant bases for exploring symmetry in neural networks.

>>> from lab import S, T, V, parse_rep
>>> T(2)(S(5)).solve().rank          # equivariant graph-layer features: Bell(2) = 2
2
>>> parse_rep("V >> V", "Z(8)").solve().rank   # convolutions: the 8 circulant matrices
8
"""
from .threads import choose_wait_policy as _choose_wait_policy

_choose_wait_policy()  # before anything imports torch: OpenMP reads OMP_WAIT_POLICY once (lab/threads.py)

from .errors import GroupError, LabError, MemoryLimitError, ParseError, RepError, SolverError
from .groups import (C, D, GCNN, GROUPS, O, O13, SO, SO11p, SO13, SO13p, SU, U, Alt, C4Grid, Cube, DihedralPerm, DkeR3,
                     GL, Group, O2eR3, P4Grid, RubiksCube, S, SL, SO2eR3, Sp, Trivial, Z, ZksZnxZn, group_catalog,
                     parse_group)
from .reps import Rep, Scalar, T, UserRep, V, Vstar, parse_rep, register_rep, regular_rep, so3_irrep
from .solvers import Solution, solve

__version__ = "0.1.0"

__all__ = [
    "LabError", "GroupError", "ParseError", "RepError", "SolverError", "MemoryLimitError",
    "Group", "GROUPS", "parse_group", "group_catalog",
    "Trivial", "Z", "S", "Alt", "DihedralPerm", "C4Grid", "P4Grid", "GCNN", "ZksZnxZn", "Cube", "RubiksCube",
    "C", "D", "SO", "O", "SO2eR3", "O2eR3", "DkeR3", "SO11p", "SO13p", "SO13", "O13", "Sp", "SL", "GL", "U", "SU",
    "Rep", "V", "Vstar", "T", "Scalar", "parse_rep", "solve", "Solution",
    "UserRep", "so3_irrep", "regular_rep", "register_rep",
]
