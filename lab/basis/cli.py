"""The ``lab presets`` command the basis family contributes (``lab.experiments.Command``): its teaching presets as
``lab basis`` command lines."""
from __future__ import annotations

from ..experiments.family import Command
from .presets import PRESETS


def add_parser(sub) -> None:
    sp = sub.add_parser("presets", help="list the teaching presets as lab basis command lines")
    sp.set_defaults(contributed=run)


def run(args=None) -> int:
    """Print every preset: its name, its ``lab basis`` command line and its blurb."""
    for p in PRESETS.values():
        print(f"{p.name}:\n  lab basis '{p.group_text()}' '{p.rep_in} >> {p.rep_out}'\n  {p.blurb}")
    return 0


PRESETS_COMMAND = Command("presets", add_parser, run)
