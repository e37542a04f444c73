"""Representations, the tensor algebra on them, user-declared representations and the rep language."""
from .block import Block, factors_to_text
from .layout import matrix_layout
from .parse import parse_rep
from .registry import register_rep, registered_reps, unregister_rep
from .rep import (BaseRep, DualRep, Leaf, ProductRep, Rep, Scalar, ScalarRep, SumRep, T, TrivialRep, V, Vstar,
                  set_solver)
from .user import UserRep, regular_rep, so3_irrep

__all__ = ["Rep", "Block", "Leaf", "BaseRep", "DualRep", "TrivialRep", "UserRep", "ProductRep", "SumRep",
           "Scalar", "ScalarRep", "T", "V", "Vstar", "parse_rep", "register_rep", "unregister_rep",
           "registered_reps", "so3_irrep", "regular_rep", "matrix_layout", "factors_to_text", "set_solver"]
