"""Representations and their text language."""
from .parse import parse_rep
from .rep import Block, Leaf, ProductRep, Rep, Scalar, ScalarRep, SumRep, T, V, Vstar

__all__ = ["Rep", "Block", "Leaf", "ProductRep", "SumRep", "Scalar", "ScalarRep", "T", "V", "Vstar", "parse_rep"]
