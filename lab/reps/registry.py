"""Names for representations in the rep language: ``register_rep("L2", so3_irrep(2))``.

The parser looks a bare name up in the ``names`` it is given, then in this registry.  Names are
identifiers other than ``V``, ``Scalar`` and ``T``, so they never collide with the built-in words.
"""
from __future__ import annotations

import threading

from ..errors import RepError
from .rep import Rep
from .user import UserRep, check_name

_registry: dict[str, Rep] = {}
_lock = threading.Lock()


def register_rep(name: str, rep: Rep, replace: bool = False) -> Rep:
    """Make ``name`` stand for ``rep`` in the rep language (``parse_rep``); returns the registered rep.

    A user rep is renamed to ``name`` so that it prints as it is written.  Registering another rep
    under a taken name needs ``replace=True``.

    >>> from lab.reps import parse_rep, so3_irrep
    >>> register_rep("L2", so3_irrep(2))
    L2 over SO(3)
    >>> parse_rep("L2 >> L2*L2", "SO(3)").size
    125
    >>> unregister_rep("L2")
    """
    check_name(name)
    if not isinstance(rep, Rep):
        raise RepError(f"register_rep needs a representation, got {type(rep).__name__}")
    if isinstance(rep, UserRep) and rep.name != name:
        rep = rep.renamed(name)
    with _lock:
        old = _registry.get(name)
        if old is not None and not replace and not (old == rep and str(old) == str(rep)):
            raise RepError(f"the name {name!r} already stands for {old!r} (pass replace=True to change it)")
        _registry[name] = rep
    return rep


def unregister_rep(name: str) -> None:
    """Forget a registered name (no error when it is not registered)."""
    with _lock:
        _registry.pop(name, None)


def registered_reps() -> dict[str, Rep]:
    """A copy of the registry: name -> representation."""
    with _lock:
        return dict(_registry)
