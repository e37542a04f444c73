"""The experiments layer: every experiment family declared once (config + run function + reporting + storage).

``FAMILIES`` maps a family's name to its ``Family`` (see ``family.py`` for the protocol).  The CLI, the
dashboard's panes and the notebooks all go through these declarations.  Adding a family: one module here,
one line in ``FAMILIES``, one line in the CLI's ``COMMANDS``, one pane.
"""
from __future__ import annotations

from .family import Family, Output, progress_record
from . import basis, dynamics, emlp, msr, rpp, sharing
from . import bounds, discovery, ensembles, meter

FAMILIES: dict[str, Family] = {f.name: f for f in (basis.FAMILY, dynamics.FAMILY, sharing.FAMILY, msr.FAMILY,
                                                   emlp.FAMILY, rpp.FAMILY, meter.FAMILY,
                                                   ensembles.FAMILY, bounds.FAMILY,
                                                   discovery.FAMILY)}

__all__ = ["FAMILIES", "Family", "Output", "progress_record"]
