"""Dashboard pane: solve for an equivariant basis and show rank, dimension, solver and time."""
from __future__ import annotations

import panel as pn
import param

from ..errors import LabError


class BasisSolver(pn.viewable.Viewer):
    """Group and representation as text, a solver choice, and an information card or inline error."""

    group = param.String(default="S(5)", doc="group, e.g. S(5), Z(8)*Z(8), SO(3)")
    rep = param.String(default="T(2) >> T(2)", doc="representation, e.g. V >> V, T(2)+3*V")
    solver = param.Selector(default="auto", objects=["auto", "orbit", "dense", "krylov"])

    def __init__(self, **params):
        super().__init__(**params)
        self._out = pn.Column(sizing_mode="stretch_width")
        self._button = pn.widgets.Button(name="Solve", button_type="primary")
        self._button.on_click(lambda _: self.run())
        self.run()

    def run(self) -> None:
        from .. import parse_group, parse_rep

        try:
            sol = parse_rep(self.rep, parse_group(self.group)).solve(solver=self.solver)
        except LabError as err:
            self._out[:] = [pn.pane.Alert(str(err), alert_type="danger")]
            return
        s = sol.summary()
        self._out[:] = [pn.pane.Markdown(
            f"**{s['group']}** acting on **{s['rep']}**\n\n"
            f"| rank r | dimension | r / dim | solver | seconds |\n|---|---|---|---|---|\n"
            f"| {s['rank']} | {s['dim']} | {s['rank'] / max(s['dim'], 1):.3g} | {s['solver']} | {s['seconds']:.3f} |",
            css_classes=["basis-info"])]

    def __panel__(self):
        return pn.Column(
            pn.Row(pn.widgets.TextInput.from_param(self.param.group, name="Group"),
                   pn.widgets.TextInput.from_param(self.param.rep, name="Representation"),
                   pn.widgets.Select.from_param(self.param.solver, name="Solver"),
                   self._button),
            self._out,
        )
