"""How a representation's vector is laid out as a weight matrix (rows: output, columns: input)."""
from __future__ import annotations

from .rep import ProductRep, Rep


def matrix_layout(rep: Rep) -> tuple[Rep, Rep | None]:
    """(output rep, input rep) of the weight matrix that ``vec`` lays out row-major.

    ``A >> B`` is a map A -> B (rows = B).  Any other tensor product ``R1 * R2 * ...`` is drawn as a
    matrix with rows R1 and columns the rest (``T(3)`` as a d x d^2 matrix); anything else is a column.

    >>> from lab.reps import V, T
    >>> matrix_layout(V >> T(2)), matrix_layout(T(3)), matrix_layout(V)
    ((T(2), V), (V, T(2)), (V, None))
    """
    if isinstance(rep, ProductRep) and rep.maps is not None:
        return rep.maps[1], rep.maps[0]
    if isinstance(rep, ProductRep) and len(rep.children) > 1:
        rest = rep.children[1:]
        return rep.children[0], rest[0] if len(rest) == 1 else ProductRep(rest)
    return rep, None
