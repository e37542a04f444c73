"""The command line's experiment commands and the families each runs, derived from the families' manifests
(``Family.command``, ``Family.order``; ``lab.experiments.plugins.commands``), so that the command line and the sweeps
(``lab.sweeps.spec``: a sweep file may name a family by its command) read one table and none is kept by hand."""
from __future__ import annotations

DISPATCH = "task"


def __getattr__(name):
    if name == "COMMANDS":  # sub-command -> the experiment families it runs (the first is the default of --task)
        from .experiments import FAMILIES
        from .experiments.plugins import commands

        return commands(FAMILIES)
    raise AttributeError(name)
