"""The Panel dashboard: a template app whose tabs are panes, one module each.

Add a pane by appending ``(title, factory)`` to ``PANES``; a factory returns a Panel viewable.
"""
from __future__ import annotations

PANES: list[tuple[str, str]] = [
    ("Basis explorer", "lab.dashboard.basis_explorer:BasisExplorer"),
]


def _load(spec: str):
    import importlib

    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def build_app():
    import panel as pn

    pn.extension(notifications=True)
    tabs = pn.Tabs(*[(title, _load(spec)()) for title, spec in PANES], dynamic=True)
    template = pn.template.FastListTemplate(
        title="Symmetry Lab",
        sidebar=[pn.pane.Markdown(
            "### Symmetry in neural networks\n"
            "Pick a group and a representation; the lab solves the equivariance constraint "
            "ρ(g) v = v for the basis of equivariant linear maps.\n\n"
            "Groups: `S(5)`, `Z(8)*Z(8)`, `SO(3)`, `O13()`, `RubiksCube()` …  \n"
            "Reps: `V >> V`, `T(2)+3*V`, `T(1,1)`, `V**2 >> V`.")],
        main=[tabs],
    )
    return template
