"""The experiments layer: every experiment family declared once (config + run function + reporting + storage).

``FAMILIES`` maps a family's name to its ``Family`` (see ``family.py`` for the protocol), found through the
``symmetry_lab.families`` entry points (``lab.experiments.plugins``): the lab's own, registered in its ``pyproject.toml``, and
any installed package's.  The CLI, the dashboard's panes and the notebooks all go through these declarations.
"""
from __future__ import annotations

from .family import Command, Family, Output, progress_record


def __getattr__(name: str):
    """``FAMILIES`` is read on first use, not when this package is imported: a family's manifest imports
    ``lab.experiments.family``, and reading every manifest then would meet that manifest half-initialised (a
    script whose first import is ``lab.ensembles.family`` would lose the ensembles family)."""
    if name == "FAMILIES":
        from .plugins import load_families

        families = load_families()
        globals()["FAMILIES"] = families
        return families
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["FAMILIES", "Command", "Family", "Output", "progress_record"]
