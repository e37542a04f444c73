"""The dashboard's shell: its tabs (``PANES``: every family's, from its manifest, then the shell's own), the page
(``build_app``: a FastListTemplate whose sidebar holds the open tab's controls) and the About card."""
from __future__ import annotations

from ..threads import choose_wait_policy

#: the dashboard's own tabs (not a family's), after the families'
SHELL_PANES = [("Sweeps", "lab.sweeps.pane:Sweeps")]


def _panes() -> list[tuple[str, str]]:
    from ..experiments import FAMILIES
    from ..experiments.plugins import tabs

    return tabs(FAMILIES) + SHELL_PANES


#: (tab title, ``module:Class``): every family's tab (its manifest's ``pane`` and ``tab``), then the shell's
PANES: list[tuple[str, str]] = _panes()


#: the tab titles wrap onto a second row when they do not fit the page's width (Bokeh's own header scrolls
#: sideways with no visible scroll bar, hiding the last tabs at 1280 px)
TABS_CSS = ":host .bk-headers-wrapper { flex-wrap: wrap; }"


def _load(spec: str):
    import importlib

    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


ABOUT = (
    "A layer W: V_in → V_out is *equivariant* when ρ_out(g) W = W ρ_in(g) for every group element g. The lab "
    "solves this linear constraint for a basis of all such layers, trains models with and without the "
    "symmetry, and learns the sharing pattern from data.\n\n"
    "In the basis pictures, entries of one colour share one parameter; blank entries are forced to zero.\n\n"
    "Groups: `S(5)`, `Z(8)*Z(8)`, `SO(3)`, `O13()`, `RubiksCube()` …  \n"
    "Reps: `V`, `T(2)+3*V`, `T(1,1)`, `V**2`.")


def build_app():
    """The dashboard: a FastListTemplate whose sidebar holds the active tab's controls (see ``layout``)."""
    choose_wait_policy()  # before a pane imports torch: OpenMP reads OMP_WAIT_POLICY once (lab/threads.py)
    import panel as pn

    from .layout import SIDEBAR_WIDTH
    from .theme import template_style, template_theme

    from .closed_pages import quiet_closed_pages

    pn.extension(notifications=True)
    quiet_closed_pages()  # a closed or reloaded page: one INFO line, not a traceback
    theme = template_theme()  # ?theme=dark or LAB_THEME; no toggle (it reloads the page and ends a running job)
    panes = [(title, _load(spec)()) for title, spec in PANES]
    # The tab bar holds no content: the open tab's results are ``body``'s one object and its controls
    # ``controls``', swapped when another tab opens.  A tab that is not open has no Bokeh model in the page, so a job
    # that goes on drawing there (its status line, its plots) updates nothing the browser holds: with Panel's
    # dynamic Tabs a hidden tab keeps its detached models, which a job's update re-styles from Panel's CDN (no
    # document to read the server's own address from), and the page then fetched loading.css and markdown.css
    # from cdn.holoviz.org when the tab was shown again.
    tabs = pn.Tabs(*[(title, pn.Spacer(height=0, margin=0)) for title, _ in panes], sizing_mode="stretch_width",
                   css_classes=["lab-tabs"], stylesheets=[TABS_CSS])
    body = pn.Column(panes[0][1].main, sizing_mode="stretch_width", css_classes=["lab-tab-body"], margin=0)
    controls = pn.Column(panes[0][1].sidebar, sizing_mode="stretch_width", css_classes=["lab-controls"])

    def show_tab(event):
        body.objects = [panes[event.new][1].main]
        controls.objects = [panes[event.new][1].sidebar]

    tabs.param.watch(show_tab, "active")
    about = pn.Card(pn.pane.Markdown(ABOUT, sizing_mode="stretch_width"), title="About the lab",
                    collapsed=True, sizing_mode="stretch_width", margin=(20, 5, 5, 5))
    # template_style: system fonts (the page asks no other host for anything), toggles whose on state shows
    return pn.template.FastListTemplate(title="Symmetry Lab", **theme, **template_style(), sidebar=[controls, about],
                                        main=[tabs, body], sidebar_width=SIDEBAR_WIDTH)
