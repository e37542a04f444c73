"""The command line's experiment commands and the families each runs: a leaf module (no imports), so that the
command line and the sweeps (``lab.sweeps.spec``: a sweep file may name a family by its command) read one table."""
from __future__ import annotations

#: sub-command -> the experiment families it runs (the first is the default of ``--task``)
COMMANDS = {"basis": ("basis",), "dynamics": ("dynamics",), "discover": ("sharing", "msr"), "emlp": ("emlp",),
            "rpp": ("rpp",), "lie-derivative": ("meter",), "ensembles": ("ensembles",),
            "bound": ("bounds",), "discover-lie": ("discovery",)}
DISPATCH = "task"
