"""The parts of the documentation site generated from the code at build time (a Sphinx extension).

* ``.. lab-families::`` — one section per experiment family found through the ``symmetry_lab.families`` entry
  point (``lab.experiments.FAMILIES``, in their manifest's order): what it does, its command, the papers its claims
  check, its config's options as a table (``Config.declarations()``: the same declarations the command line and the
  dashboard read) and its config class and run function from their docstrings (autodoc).  No table of families is
  kept by hand: a family a package adds appears here when that package is installed.
* ``.. lab-tabs::`` — the dashboard tab by tab (``lab.dashboard.PANES``) with the screenshots ``docs/screenshots.py``
  saves.
* ``docs/tutorials/*.ipynb`` — the notebooks of ``notebooks/``, copied in when the build starts (only those whose
  bytes changed, so that myst-nb's cache and Sphinx's own see an unchanged notebook as unchanged).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

DOCS = Path(__file__).resolve().parent.parent
NOTEBOOKS = DOCS.parent / "notebooks"
TUTORIALS = DOCS / "tutorials"


def _rst(directive: SphinxDirective, lines: list[str]) -> list[nodes.Node]:
    """Parse generated reStructuredText in the directive's place (sections allowed)."""
    from sphinx.util.nodes import nested_parse_with_titles

    node = nodes.section()
    node.document = directive.state.document
    nested_parse_with_titles(directive.state, StringList(lines, source="labdocs"), node)
    return node.children


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _default(o) -> str:
    d = o.default
    if isinstance(d, tuple):
        d = ", ".join(map(str, d))
    return "(the task's)" if d is None else f"``{d}``" if str(d) else '``""``'


def _takes(o) -> str:
    if o.choices:
        return "one of " + ", ".join(f"``{c}``" for c in o.choices)
    if o.type in (int, float):
        return o.range_text
    return {str: "a text", bool: "yes / no", tuple: "a list"}.get(o.type, getattr(o.type, "__name__", str(o.type)))


def options_table(config) -> list[str]:
    """A config's options as a list-table: the command-line flag, the default, what it takes, its help."""
    out = [".. list-table::", "   :header-rows: 1", "   :widths: 18 12 25 45", "",
           "   * - option", "     - default", "     - takes", "     - what it sets"]
    for o in config.declarations():
        if o.positional:
            name = f"``{o.metavar or o.name.upper()}`` (positional)"
        else:
            name = f"``{o.flag}``" if o.flag else f"``{o.name}`` (dashboard only)"
        out += [f"   * - {name}", f"     - {_default(o)}",
                f"     - {_cell(_takes(o))}", f"     - {_cell(o.help)}"]
    return out + [""]


class FamiliesDirective(SphinxDirective):
    """Every installed experiment family, from its manifest."""

    def run(self):
        from lab.experiments import FAMILIES
        from lab.reproduce import load_claims

        claims = load_claims()
        lines: list[str] = []
        for fam in sorted(FAMILIES.values(), key=lambda f: (f.order, f.name)):
            title = f"{fam.title} (``{fam.name}``)"
            cfg, run = fam.config, fam.run
            lines += [f".. _family-{fam.name}:", "", title, "-" * len(title), ""]
            lines += [_cell(fam.description or fam.help), ""]
            command = fam.command or fam.name
            lines += [f"* command: ``lab {command}``" + (f" (its ``--task`` is {fam.name})"
                                                          if command != fam.name else "")]
            if fam.tab is not None:
                lines += [f"* dashboard tab: *{fam.title}*"]
            for short, paper in fam.papers:
                ids = [cid for cid, c in claims.items() if c.paper == short]
                lines += [f"* checks claims of: {_cell(paper)}" + (": " + ", ".join(f"``{i}``" for i in ids)
                                                                    + " (``lab reproduce --only ID,...``)"
                                                                    if ids else "")]
            lines += ["", f"**Options** (``{cfg.__module__}.{cfg.__qualname__}``):", ""]
            lines += options_table(cfg)
            lines += [f".. autoclass:: {cfg.__module__}.{cfg.__qualname__}", "   :no-members:", "",
                      f".. autofunction:: {run.__module__}.{run.__qualname__}", ""]
        return _rst(self, lines)


class TabsDirective(SphinxDirective):
    """The dashboard tab by tab, with the screenshots of ``docs/img``."""

    def run(self):
        from docs.screenshots import README_SIZE, image_name
        from lab.dashboard import PANES
        from lab.experiments import FAMILIES

        by_title = {f.title: f for f in FAMILIES.values()}
        w, h = README_SIZE
        lines: list[str] = []
        for title, _ in PANES:
            fam = by_title.get(title)
            lines += [title, "-" * len(title), ""]
            if fam is not None:
                lines += [_cell(fam.description or fam.help), "",
                          f"Its settings are the options of ``lab {fam.command or fam.name}``, declared by "
                          f":class:`~{fam.config.__module__}.{fam.config.__qualname__}`.",
                          ""]
            image = DOCS / "img" / image_name(title, w, h)
            if image.is_file():
                lines += [f".. image:: /img/{image.name}", f"   :alt: the {title} tab at {w}x{h}", ""]
        return _rst(self, lines)


def _literal(text):
    """Plain help text as reStructuredText that shows it as written (``|A|``, ``A^T A``, `` `panel serve` ``)."""
    if not isinstance(text, str):
        return text
    for ch in "\\|*`_[":
        text = text.replace(ch, "\\" + ch)
    return text


def cli_parser():
    """``lab.cli.build_parser()`` for sphinx-argparse, which reads help texts as reStructuredText: the command
    line's texts are plain, so their markup characters are escaped (the parser itself is the command's)."""
    import argparse

    from lab.cli import build_parser

    def escape(parser):
        parser.description, parser.epilog = _literal(parser.description), _literal(parser.epilog)
        for action in parser._actions:
            if action.help not in (None, argparse.SUPPRESS):
                action.help = _literal(action.help)
            if isinstance(getattr(action, "choices", None), dict):
                for sub in action.choices.values():
                    escape(sub)
        for action in getattr(parser, "_choices_actions", ()):
            action.help = _literal(action.help)
        return parser

    return escape(build_parser())


def copy_notebooks(app) -> None:
    TUTORIALS.mkdir(exist_ok=True)
    notebooks = sorted(NOTEBOOKS.glob("*.ipynb"))
    for p in notebooks:
        target = TUTORIALS / p.name
        if not target.exists() or target.read_bytes() != p.read_bytes():
            shutil.copyfile(p, target)
    for stale in TUTORIALS.glob("*.ipynb"):
        if stale.name not in {p.name for p in notebooks}:
            stale.unlink()


def setup(app):
    app.add_directive("lab-families", FamiliesDirective)
    app.add_directive("lab-tabs", TabsDirective)
    app.connect("builder-inited", copy_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
