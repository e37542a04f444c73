"""The experiments layer: every experiment family declared once (config + run function + reporting + storage).

``FAMILIES`` maps a family's name to its ``Family`` (see ``family.py`` for the protocol), found through the
``symmetry_lab.families`` entry points (``lab.experiments.plugins``): the lab's own, registered in its ``pyproject.toml``, and
any installed package's.  The CLI, the dashboard's panes and the notebooks all go through these declarations.
"""
from __future__ import annotations

from .family import Family, Output, progress_record
from .plugins import load_families

FAMILIES: dict[str, Family] = load_families()

__all__ = ["FAMILIES", "Family", "Output", "progress_record"]
