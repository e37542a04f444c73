"""What an experiment family declares: its config, its run function, and how its result is reported and kept.

Every family module (``basis``, ``dynamics``, ``sharing``, ``msr``, …) exports one ``Family``.  The command line
builds a sub-command from it, a dashboard pane builds its widgets from ``family.config`` and runs
``family.run`` through the job runner, and notebooks call ``family.run`` directly.

The run protocol: ``family.run(config, progress=None, control=None) -> result``.

* ``progress(record)`` receives plain dicts (picklable: they may cross a process boundary).  Every family sends
  ``{"kind": "progress", "done": k, "total": n, "message": text}`` (what progress bars and ETAs read; with
  ``"partial": 0..1`` while a long unit is under way) and
  records of its own kinds (training metrics, snapshots of A, …) that its pane draws.
* ``control`` (``lab.control.Control``) is checked at a fine grain: pause waits, stop ends the run early.  A
  stopped run still returns its result, with ``result.status == "stopped"``, so that it can be saved.
* ``family.summary(result)`` is the ``--json`` object (a contract: keys are added, never renamed),
  ``family.text(result)`` the human-readable lines, ``family.save(result, directory)`` writes it (atomically)
  and returns the path, ``family.load(path)`` reads it back.  Saved runs go through ``lab.runstore``: written
  atomically under unique names, checked when read (a bad file raises ``RunFileError`` naming file and field),
  and ``family.load(name, root=family.results_dir(d))`` reads only from inside that runs directory (the
  families that keep run directories: dynamics, sharing, msr).

A ``Family`` is also the family's manifest: its command and place (``command``, ``order``), its dashboard pane and
tab (``pane``, ``tab``), its claims and the papers they check (``claims``, ``papers``), found through the
``symmetry_lab.families`` entry points (``plugins``), and how a sweep reads its summary as numbers (``numbers``,
``headline``).  The command table, the dashboard's tabs, the claim modules, the papers and the Sweeps tab's run
viewer and first plot are derived from these; none is kept by hand.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..config import Option
from ..control import progress_record  # noqa: F401  (re-exported: families import it from here)


@dataclass(frozen=True)
class Output:
    """A command-line-only output option (``--png FILE``): written from the result after the run."""

    option: Option
    write: Callable  # (result, value) -> None


@dataclass(frozen=True)
class Command:
    """A sub-command a family contributes besides the one that runs it (``lab audit``: the meter's; ``lab presets``:
    the basis family's): ``add(subparsers)`` adds its parser, named ``name``, to the command line's sub-parsers, and
    ``run(args)`` runs it on the parsed arguments and returns the exit code (a ``LabError`` is one line and exit code
    2, as for every command).  Both live in a torch-free module of the family: ``lab --help`` builds every parser."""

    name: str
    add: Callable  # (argparse sub-parsers) -> None
    run: Callable  # (argparse.Namespace) -> int


@dataclass(frozen=True)
class Family:
    """One experiment family's manifest: its config, its run function, and how its result is reported and kept.

    ``name`` and ``title`` name it; ``config`` is its config class (a ``lab.config.Config`` dataclass) and ``run``
    its ``run(config, progress=None, control=None) -> result`` (the protocol of the module docstring);
    ``summary(result)`` gives the ``--json`` object and ``text(result)`` the human-readable lines.  The other fields
    are optional: how its runs are saved and read back (``save``, ``load``, ``results_dir``, ``runs``), what the
    command line adds (``command``, ``help``, ``description``, ``outputs``, ``cli_saves``), where it appears
    (``order``, ``pane``, ``tab``, ``run_css``), which claims and papers are its own (``claims``, ``papers``), and
    how ``lab compare`` and a sweep read its runs (``curves``, ``applicable``, ``numbers``, ``headline``).  A family
    module exports one as ``FAMILY``, registered under the ``symmetry_lab.families`` entry point
    (``lab.experiments.FAMILIES``).
    """

    name: str
    title: str
    config: type
    run: Callable
    summary: Callable
    text: Callable
    help: str = ""
    description: str = ""
    save: Callable | None = None  # (result, directory or None) -> Path
    load: Callable | None = None  # (path, root=None) -> saved result
    results_dir: Callable | None = None  # (directory or None) -> Path
    cli_saves: bool = False  # the command line saves every run unless --no-save
    outputs: tuple[Output, ...] = ()
    command: str = ""  # the sub-command that runs it (default: its name; families may share one, by --task)
    order: int = 1000  # its place among the families (the command list; the lab's own use 10-100)
    pane: str = ""  # "module:Class" of the dashboard pane that runs and loads it (imported when a tab needs it)
    tab: int | None = None  # its pane's place in the tab bar (None: no tab of its own, shown inside another's)
    claims: tuple[str, ...] = ()  # modules declaring its claims (``lab reproduce`` imports them, in this order)
    papers: tuple[tuple[str, str], ...] = ()  # (short name, title) of the papers its claims check
    run_css: str = ""  # the css prefix of its pane's Start button and status line (screenshots, browser tests)
    runs: str = ""  # "module:NAME" of the ``lab.runstore.RunKind`` of its saved runs (imported when runs are read)
    #: (saved run's path) -> (method, curves, meta): the curves ``lab compare`` and the Compare tab draw of one of its
    #: runs (a DataFrame of ``lab.compare.CURVE_COLUMNS``) and the run's ``config.json``; None: nothing to compare
    curves: Callable | None = None
    #: (saved config dict) -> the settings that apply to that run (a comparison's labels name only these)
    applicable: Callable | None = None
    #: (summary) -> {name: number}: numbers of one run's ``summary`` under names of the family's choosing, which a
    #: sweep's index keeps beside every number the summary holds (nested ones under dotted names, ``nom.loss``);
    #: e.g. a one-strategy run's metrics under their plain names.  None: the summary's own numbers only
    numbers: Callable | None = None
    #: sub-commands it contributes besides its run's (``Command``), in the order the command list shows them
    commands: tuple[Command, ...] = ()
    #: the summary number a sweep's plot shows first (a name the summary or ``numbers`` gives); "": the first result
    headline: str = ""

    def __post_init__(self):
        if self.runs and self.results_dir is None:  # where its runs live, from its RunKind
            object.__setattr__(self, "results_dir", lambda directory=None: self.run_kind.directory(directory))

    @property
    def run_kind(self):
        """Its saved runs' ``lab.runstore.RunKind`` (``runs`` imported), or None when it keeps no runs."""
        if not self.runs:
            return None
        import importlib

        module, _, name = self.runs.partition(":")
        return getattr(importlib.import_module(module), name)

    def pane_class(self):
        """Its dashboard pane's class (``pane`` imported): how a tab, or another family's pane that shows this
        family inside its own, finds it without naming its module."""
        if not self.pane:
            raise LookupError(f"the {self.name} family declares no pane")
        import importlib

        module, _, name = self.pane.partition(":")
        return getattr(importlib.import_module(module), name)

    @property
    def command_name(self) -> str:
        """The sub-command that runs this family."""
        return self.command or self.name
