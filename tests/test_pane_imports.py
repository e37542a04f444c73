"""Panes reach the science through the families' declarations (issue 26, item 4): a pane (a family's ``pane.py``,
or a module of the dashboard's shell ``lab/dashboard/``) imports a family's manifest (``lab.<family>.family``) and
plots for what it runs, draws and lists, never a family's science (``lab.dynamics.train``, ``lab.sharing.partition``,
the solvers, and any module added later) directly.  So a change inside a family's science stays behind one seam,
and the next pane has one place to look."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "lab"
#: the packages a pane may import: the UI layers, the families, and the representation protocol (what a
#: person types as a group or a rep is parsed by the engine's public parsers), and the sweeps layer (a layer over the
#: families, no family's science: the Sweeps tab reads its stores and aggregates through it)
ALLOWED_PACKAGES = {"dashboard", "experiments", "plots", "groups", "reps", "sweeps"}
#: the modules of a family's folder a pane may import: its faces (manifest, plots, other panes)
FACES = ("family", "pane", "plots")


def _imports(path: Path) -> set[str]:
    """The ``lab`` modules a file imports, as dotted names (relative imports resolved)."""
    package = ["lab", *path.relative_to(LAB).parent.parts]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for a in node.names:  # ``from . import family``: the submodule, when it is one
                sub = f"{base}.{a.name}"
                found.add(sub if (ROOT / (sub.replace(".", "/") + ".py")).exists() else base)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m == "lab" or m.startswith("lab.")}


def _forbidden(module: str) -> bool:
    parts = module.split(".")
    if len(parts) < 2:
        return False
    sub = parts[1]
    if (LAB / sub / "family.py").exists() and sub != "experiments":  # a family's folder: its faces only
        return len(parts) < 3 or parts[2].split("_")[0] not in FACES
    is_package = (LAB / sub).is_dir()
    return is_package and sub not in ALLOWED_PACKAGES


def test_the_rule_sees_a_science_import():
    """The check has power: the imports the panes had before this rule are caught."""
    assert _forbidden("lab.sharing.partition") and _forbidden("lab.dynamics.store") and _forbidden("lab.solvers")
    assert not _forbidden("lab.sharing.family") and not _forbidden("lab.jobs") and not _forbidden("lab.reps")
    assert not _forbidden("lab.rpp.plots_bokeh") and _forbidden("lab.rpp") and _forbidden("lab.rpp.train")


def test_panes_import_no_science_package_directly():
    panes = sorted((LAB / "dashboard").glob("*.py")) + sorted(LAB.glob("*/pane.py"))
    assert len(panes) >= 18
    bad = {str(p.relative_to(LAB)): sorted(m for m in _imports(p) if _forbidden(m)) for p in panes}
    assert not {k: v for k, v in bad.items() if v}, bad
