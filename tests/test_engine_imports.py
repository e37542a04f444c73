"""The engine's import structure, read from the source with ``ast``: no import circles (imports at any
nesting level count, lazy ones inside functions included) and every layer imports only what stands below
it (groups < reps < solvers; nothing in the engine imports the science, plots or faces)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "lab"
ENGINE = ("lab.groups", "lab.reps", "lab.solvers", "lab.kron", "lab.text", "lab.errors", "lab.limits")
LAYERS = {  # what each engine package may import from the lab
    "lab.errors": set(),
    "lab.limits": {"lab.errors"},
    "lab.text": {"lab.errors", "lab.limits"},
    "lab.kron": set(),
    "lab.groups": {"lab.errors", "lab.limits", "lab.text", "lab.groups"},
    "lab.reps": {"lab.errors", "lab.limits", "lab.text", "lab.kron", "lab.groups", "lab.reps"},
    "lab.solvers": {"lab.errors", "lab.limits", "lab.text", "lab.kron", "lab.groups", "lab.reps", "lab.solvers",
                    "lab.device", "lab.lazy"},
}


def modules() -> dict[str, Path]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The lab modules ``name`` imports anywhere in its source (``from pkg import sub`` counts as sub)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:  # import a.b.c where only a.b is a module of ours
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {name: imports_of(name, path, known) for name, path in mods.items()}


def strongly_connected(g: dict[str, set[str]]) -> list[set[str]]:
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def in_engine(name: str) -> bool:
    return any(name == e or name.startswith(e + ".") for e in ENGINE)


def test_the_graph_reader_sees_relative_lazy_and_absolute_imports():
    g = graph()
    assert "lab.groups.base" in g["lab.groups.matrix"]  # from .base import Group
    assert "lab.errors" in g["lab.groups.base"]  # from ..errors import GroupError
    assert "lab.solvers.cache" in g["lab.solvers.solution"]  # from . import cache as _cache
    assert "lab.groups" in g["lab.cli"]  # a lazy ``from .groups import parse_group`` inside a function
    assert len(g) > 30


def test_no_import_circles_in_the_engine():
    cycles = [sorted(c) for c in strongly_connected(graph()) if len(c) > 1 and any(in_engine(m) for m in c)]
    assert cycles == []


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_engine_layers_import_only_what_stands_below(package):
    g = graph()
    allowed = LAYERS[package]
    for name, deps in g.items():
        if name == package or name.startswith(package + "."):
            bad = {d for d in deps if not any(d == a or d.startswith(a + ".") for a in allowed | {package})}
            assert not bad, f"{name} imports {sorted(bad)}"
