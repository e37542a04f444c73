"""Panes reach the science through the families' declarations (issue 26, item 4): a module of
``lab/dashboard/`` imports ``lab.experiments.<family>`` for what it runs, draws and lists, never a family's science
package (``lab.dynamics``, ``lab.sharing``, the solvers, and any package added later) directly.  So a change inside
a science package stays behind one seam, and the next pane has one place to look."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "lab"
#: the packages a pane may import: the UI layers, the families, and the representation protocol (what a
#: person types as a group or a rep is parsed by the engine's public parsers), and the sweeps layer (a layer over the
#: families, no family's science: the Sweeps tab reads its stores and aggregates through it)
ALLOWED_PACKAGES = {"dashboard", "experiments", "plots", "groups", "reps", "sweeps"}


def _imports(path: Path) -> set[str]:
    """The ``lab`` modules a file imports, as dotted names (relative imports resolved)."""
    package = ["lab", *path.relative_to(LAB).parent.parts]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                found.add(".".join(base + ([node.module] if node.module else [])))
            elif node.module:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m == "lab" or m.startswith("lab.")}


def _forbidden(module: str) -> bool:
    parts = module.split(".")
    if len(parts) < 2:
        return False
    sub = parts[1]
    is_package = (LAB / sub).is_dir()
    return is_package and sub not in ALLOWED_PACKAGES


def test_the_rule_sees_a_science_import():
    """The check has power: the imports the panes had before this rule are caught."""
    assert _forbidden("lab.sharing.partition") and _forbidden("lab.dynamics.store") and _forbidden("lab.solvers")
    assert not _forbidden("lab.experiments.sharing") and not _forbidden("lab.jobs") and not _forbidden("lab.reps")


def test_panes_import_no_science_package_directly():
    panes = sorted((LAB / "dashboard").glob("*.py"))
    assert len(panes) >= 8
    bad = {p.name: sorted(m for m in _imports(p) if _forbidden(m)) for p in panes}
    assert not {k: v for k, v in bad.items() if v}, bad
