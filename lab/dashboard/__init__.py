"""The Panel dashboard: a template app whose tabs are panes, one module each.

Add a pane by appending ``(title, factory)`` to ``PANES``; a factory returns a Panel viewable.
"""
from __future__ import annotations

PANES: list[tuple[str, str]] = [
    ("Basis explorer", "lab.dashboard.basis_explorer:BasisExplorer"),
    ("Training dynamics", "lab.dashboard.training_dynamics:TrainingDynamics"),
    ("Sharing discovery", "lab.dashboard.sharing_discovery:SharingDiscovery"),
]


def _load(spec: str):
    import importlib

    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def build_app():
    import panel as pn

    from .theme import template_theme

    pn.extension(notifications=True)
    theme = template_theme()  # ?theme=dark or LAB_THEME; no toggle (it reloads the page and ends a running job)
    tabs = pn.Tabs(*[(title, _load(spec)()) for title, spec in PANES], dynamic=True)
    template = pn.template.FastListTemplate(
        title="Symmetry Lab", **theme,
        sidebar=[pn.pane.Markdown(
            "### Symmetry in neural networks\n"
            "A layer W: V_in → V_out is *equivariant* when ρ_out(g) W = W ρ_in(g) for every group "
            "element g. The lab solves this linear constraint for a basis of all such layers.\n\n"
            "**Basis explorer** draws W with every entry coloured by the basis element it belongs to: "
            "entries of one colour share one parameter, grey entries are forced to zero.\n\n"
            "Groups: `S(5)`, `Z(8)*Z(8)`, `SO(3)`, `O13()`, `RubiksCube()` …  \n"
            "Reps: `V`, `T(2)+3*V`, `T(1,1)`, `V**2`.")],
        main=[tabs],
    )
    return template
