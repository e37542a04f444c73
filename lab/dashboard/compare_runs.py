"""Saved runs compared in a pane: choose several of the runs the pane lists and see their curves overlaid, each
labelled by the run's own settings, with the overlay downloadable as CSV (the tidy table) and PNG.

``RunComparison`` is a component of the Training dynamics and Sharing discovery panes.  Its parts are separate
attributes so a layout can place them apart: ``controls`` (the runs' multi-choice, the log-scale switch and the
downloads) and ``plots`` (a note and one plot per metric).  Everything shown comes from ``lab.compare`` (reading
the runs, labels, medians / means) and ``lab.plots.compare_hv`` / ``compare_mpl`` (drawing); nothing here
computes.  Only runs the pane listed from its own runs directory are read (``lab.runstore.resolve_run``
checks every one again).  Every callback fails through the pane's guard: one inline message, never a traceback.
"""
from __future__ import annotations

import io
import os
from pathlib import Path

import pandas as pd
import panel as pn
import param

from ..compare import COLUMNS, Comparison, comparison, frame_csv, read_run
from .guard import guarded


class RunComparison(pn.viewable.Viewer):
    """The comparison of ``pane``'s saved runs (``pane.results`` is its runs directory; ``prefix`` starts the CSS
    classes: ``{prefix}-compare-runs``, ``{prefix}-compare-plots``, ``{prefix}-compare-csv``, ...; ``stem``
    names the downloaded files: ``{stem}.csv``, ``{stem}.png``)."""

    logy = param.Boolean(default=False, doc="logarithmic y axes in the comparison")

    def __init__(self, pane, prefix: str, stem: str = "runs", **params):
        super().__init__(**params)
        self.pane = pane
        self.comparison: Comparison = comparison([])
        self._cache: dict = {}  # run path -> (config.json's mtime, RunCurves): saved runs never change
        self.select = pn.widgets.MultiChoice(
            label="Compare saved runs", options={}, value=[], placeholder="choose two or more saved runs",
            css_classes=[f"{prefix}-compare-runs"], sizing_mode="stretch_width", min_width=240)
        self._logy_w = pn.widgets.Checkbox.from_param(self.param.logy, label="log-scale y")
        self._csv = pn.widgets.FileDownload(callback=self._csv_file, filename=f"{stem}.csv", label="Curves (CSV)",
                                            disabled=True, width=140, css_classes=[f"{prefix}-compare-csv"])
        self._png = pn.widgets.FileDownload(callback=self._png_file, filename=f"{stem}.png", label="Figure (PNG)",
                                            disabled=True, width=140, css_classes=[f"{prefix}-compare-png"])
        self._note = pn.pane.Markdown("", css_classes=[f"{prefix}-compare-note"], sizing_mode="stretch_width")
        self._plots = pn.Column(sizing_mode="stretch_width", css_classes=[f"{prefix}-compare-plots"])
        self.controls = pn.Column(self.select, pn.Row(self._logy_w, self._csv, self._png),
                                  sizing_mode="stretch_width")
        self.plots = pn.Column(self._note, self._plots, sizing_mode="stretch_width")
        self.select.param.watch(guarded(pane, "comparing saved runs")(lambda e: self.update()), "value")
        self.param.watch(guarded(pane, "redrawing the comparison")(lambda e: self.draw()), "logy")
        self.draw()

    def __panel__(self):
        return pn.Column(self.controls, self.plots, sizing_mode="stretch_width")

    # ------------------------------------------------------------------ runs
    def set_runs(self, paths) -> None:
        """List ``paths`` (runs of the pane's own directory) as the choices; chosen runs still listed stay
        chosen (a vanished one is dropped and the overlay redrawn)."""
        options = {Path(p).name: str(p) for p in paths}
        before = list(self.select.value)
        self.select.options = options
        kept = [v for v in before if v in options.values()]
        if kept != before:
            self.select.value = kept

    def chosen(self) -> list[str]:
        """The chosen runs that the pane lists (a value no option holds is never read)."""
        listed = set(self.select.options.values())
        return [v for v in self.select.value if v in listed]

    def _read(self, path: str):
        try:
            stamp = os.stat(os.path.join(path, "config.json")).st_mtime_ns
        except OSError:  # removed meanwhile: read_run says so in one line
            stamp = None
        hit = self._cache.get(path)
        if stamp is not None and hit is not None and hit[0] == stamp:
            return hit[1]
        run = read_run(path, root=self.pane.results)
        if stamp is not None:
            self._cache[path] = (stamp, run)
        return run

    def update(self) -> None:
        """Read the chosen runs and redraw the overlay."""
        self.comparison = comparison([self._read(p) for p in self.chosen()])
        self.draw()

    # ------------------------------------------------------------------ drawing
    def metrics(self) -> list[str]:
        from ..compare import SHOWN

        kind = self.comparison.kind or getattr(self.pane, "COMPARE_KIND", "")
        return self.comparison.metrics() or list(SHOWN.get(kind, ("loss",))[:2])

    def plot_objects(self) -> list:
        """The HoloViews overlays shown, one per metric."""
        from ..plots.compare_hv import compare_plots

        return compare_plots(self.comparison.frame, self.metrics(), logy=self.logy, kind=self.comparison.kind)

    def draw(self) -> None:
        c = self.comparison
        # nothing chosen: no empty plots, only the note saying what to do
        self._plots.objects = [pn.pane.HoloViews(p, sizing_mode="stretch_width", linked_axes=False)
                               for p in self.plot_objects()] if c.runs else []
        empty = c.frame.empty
        self._csv.disabled = self._png.disabled = empty
        if not c.runs:
            lines = ["Choose saved runs above to overlay their curves: colour is the run, line style the strategy, "
                     "loss or model (grey keys in the legend)."]
        else:
            lines = [f"- **{lab}**: `{r.name}` ({r.status})" for r, lab in zip(c.runs, c.labels)]
            missing = c.without_curves()
            if missing:
                lines.append(f"\nNo curves recorded (stopped before the first step): {', '.join(missing)}")
        self._note.object = "\n".join(lines)

    # ------------------------------------------------------------------ downloads
    def frame(self) -> pd.DataFrame:
        """The table the overlay draws (``lab.compare.COLUMNS``)."""
        return self.comparison.frame[COLUMNS]

    def _csv_file(self):
        with guarded(self.pane, "writing the comparison's CSV"):
            return io.StringIO(frame_csv(self.frame()))
        return io.BytesIO(b"")  # the failure is the pane's inline message; Panel needs a file to send

    def _png_file(self):
        with guarded(self.pane, "drawing the comparison's PNG"):
            from ..plots.compare_mpl import compare_png

            return io.BytesIO(compare_png(self.frame(), self.metrics(), logy=self.logy, kind=self.comparison.kind))
        return io.BytesIO(b"")
