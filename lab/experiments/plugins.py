"""Experiment families found through entry points: the lab's own and a user's package alike.

A family is declared by one ``Family`` (``lab.experiments.family``) and registered under the entry-point group
``symmetry_lab.families``: the lab's own in its ``pyproject.toml``, a user's in theirs::

    [project.entry-points."symmetry_lab.families"]
    mytask = "mypackage.family:FAMILY"

``load_families()`` reads the group (``importlib.metadata``), loads each entry and keeps it when it is a ``Family``
whose name and command are free; a plugin that fails to import, whose object is not a ``Family``, or whose name or
command clashes is left out with one warning line on standard error that names it and why, and every other family
keeps working.  The lab's own families are read first, so a plugin never displaces one of them.  Where the lab's
own entry points are missing (a source tree run without ``pip install -e .``, or an install older than them) the
lab's families are found by their modules in ``lab.experiments`` instead, after one warning line.

The families come back in their declared ``order`` (then by name): the command list follows it.
"""
from __future__ import annotations

import sys
from importlib import metadata

#: the entry-point group every family is registered under
GROUP = "symmetry_lab.families"
#: the distribution that ships the lab's own families
OWN = "symmetry-lab"
#: the command line's own sub-commands (``lab.cli.build_parser``'s), which no family may take; a family's contributed
#: commands (``Family.commands``: the lab's ``audit`` and ``presets``) are checked like its run's command
RESERVED = ("groups", "reproduce", "runs", "sweep", "dashboard")

#: the warning lines of this process's last load (the dashboard and tests read them)
PROBLEMS: list[str] = []


def _warn(line: str) -> None:
    PROBLEMS.append(line)
    print(f"lab: warning: {line}", file=sys.stderr)


def _dist_name(ep) -> str:
    dist = getattr(ep, "dist", None)
    return (dist.metadata["Name"] or "") if dist is not None else ""


def _own_modules():
    """The lab's families by module (the fallback): every family folder's manifest (``lab/<folder>/family*.py``)
    that exports ``FAMILY``."""
    import importlib
    from pathlib import Path

    out = []
    for path in sorted(Path(__file__).parents[1].glob("*/family*.py")):
        if path.parent.name == "experiments":
            continue
        module = importlib.import_module(f"lab.{path.parent.name}.{path.stem}")
        if hasattr(module, "FAMILY"):
            out.append((module.FAMILY.name, f"{module.__name__}:FAMILY", module.FAMILY))
    return out


def load_families(entry_points=None) -> dict:
    """{name: Family} from the entry points of ``GROUP`` (``entry_points``: a list of ``EntryPoint``-like objects
    with ``name``, ``value``, ``load()`` and optionally ``dist``; default: the installed ones), in their order."""
    from .family import Family

    PROBLEMS.clear()
    eps = list(metadata.entry_points(group=GROUP) if entry_points is None else entry_points)
    own = [ep for ep in eps if _dist_name(ep).lower() == OWN]
    others = [ep for ep in eps if ep not in own]
    candidates = []  # (name, value, load, is_own)
    if own:
        candidates += [(ep.name, ep.value, ep.load, True) for ep in own]
    else:
        _warn(f"the {OWN} package's entry points ({GROUP}) are missing: its families are read from lab.experiments "
              "(reinstall it: pip install -e .)")
        candidates += [(name, value, (lambda fam=fam: fam), True) for name, value, fam in _own_modules()]
    candidates += [(ep.name, ep.value, ep.load, False) for ep in sorted(others, key=lambda e: e.name)]

    found: dict = {}
    commands: dict = {}  # command -> whether the lab's own families run it
    for name, value, load, is_own in candidates:
        label = f"family plugin {name!r} ({value})"
        try:
            family = load()
        except Exception as err:  # any error of someone else's code: leave it out, keep the rest
            _warn(f"{label} left out: it failed to import: {type(err).__name__}: {err}")
            continue
        if not isinstance(family, Family):
            _warn(f"{label} left out: it is a {type(family).__name__}, not a lab Family manifest")
            continue
        if family.name in found:
            _warn(f"{label} left out: the family name {family.name!r} is taken")
            continue
        command = family.command_name
        if command in RESERVED or (command in commands and commands[command] != is_own):
            _warn(f"{label} left out: the command {command!r} is taken")
            continue
        extra = [c.name for c in family.commands]
        taken = [c for c in extra if c in RESERVED or c in commands or c == command or extra.count(c) > 1]
        if taken:
            _warn(f"{label} left out: the command {taken[0]!r} is taken")
            continue
        found[family.name] = family
        commands[command] = is_own
        commands.update(dict.fromkeys(extra, None))  # a contributed command is one family's alone
    return dict(sorted(found.items(), key=lambda kv: (kv[1].order, kv[0])))


def commands(families: dict) -> dict:
    """{sub-command: (family names, in order)}: the first family of a command is its ``--task`` default."""
    out: dict = {}
    for name, family in families.items():
        out.setdefault(family.command_name, ())
        out[family.command_name] += (name,)
    return out


def tabs(families: dict) -> list[tuple[str, str]]:
    """(title, ``module:Class``) of the families' dashboard tabs, in their ``tab`` order (then by name)."""
    shown = sorted((f for f in families.values() if f.pane and f.tab is not None), key=lambda f: (f.tab, f.name))
    return [(f.title, f.pane) for f in shown]


def shown_in(family, families: dict) -> str:
    """The title under which ``family``'s runs are shown: the tab whose pane is its pane, else its own title."""
    return next((f.title for f in families.values() if f.tab is not None and f.pane == family.pane), family.title)


def claim_modules(families: dict) -> tuple[str, ...]:
    """The modules declaring the families' claims, in the families' order."""
    return tuple(dict.fromkeys(m for f in families.values() for m in f.claims))


def papers(families: dict) -> dict:
    """{short name: title} of the papers the families' claims check, in the families' order; a short name declared
    again with another title keeps the first (one warning line)."""
    out: dict = {}
    for f in families.values():
        for short, title in f.papers:
            if short in out and out[short] != title:
                _warn(f"family {f.name!r} declares the paper {short!r} again with another title: the first is kept")
                continue
            out.setdefault(short, title)
    return out
