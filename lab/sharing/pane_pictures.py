"""The drawing half of the Sharing discovery pane (``lab.sharing.pane``): the matrices (the relaxed A, the snapped
A, A_gt and W for method 1; U and its histogram for method 2) as HoloViews DynamicMaps fed by one Pipe, the
learning curves on the live-pane base with the step shown and the best step marked, the slider that scrubs back
through A's snapshots, and the words beside the pictures.  It draws what the pane holds: ``history`` (the records),
``snapshots`` (A at each recorded step) and ``_view`` (what the frames draw: method, task, ground truth and shapes,
or the layer, U and its label); the pane feeds them from its job's records or a loaded run.

``SharingPictures`` is mixed into ``SharingDiscovery`` only: it reads the pane's ``task`` and ``worker``
parameters and its ``runner`` (whether a run is going on).  No mathematics here: a snapshot's reading is the
family's ``read_snapshot``.
"""
from __future__ import annotations

import time

import holoviews as hv
import numpy as np
import pandas as pd
import panel as pn

from ..dashboard.guard import guarded
from ..dashboard.layout import scroll_box
from ..dashboard.live import DRAW_SHARE, LiveData, LivePlot, LiveView
from .family import best_step, read_snapshot
from .plots_hv import CURVE_HEIGHT, CURVES, a_heatmap, gt_heatmap, u_histogram, u_picture, weights_coloring

#: least seconds between redraws of the matrices (HoloViews pictures, ~0.1 s a frame), per worker mode: a worker
#: thread shares the GIL with them (drawn every frame they slowed its learning by 30-45 %).  Method 1's matrices
#: are redrawn only in a frame the learning curves' throttle allows (``LiveView.draw_due``), and both methods'
#: only under ``DRAW_SHARE`` of the event loop; the curves stream whenever their throttle allows
#: (``bench/dashboard.py --part sharing``)
MATRIX_SECONDS = {"process": 0.0, "thread": 1.0}
#: the learning curves (live-pane base): one plot per ``CURVES`` entry, one line per history column
CURVE_PLOTS = {name: LivePlot(f"shr-{name}", y="value", title=title, xlabel="outer step", ylabel=ylabel,
                              legend=True, legend_above=True, height=CURVE_HEIGHT)
               for name, title, ylabel in (("losses", "losses", "loss"),
                                           ("penalties", "penalties and partition distance", "value"))}
PLACEHOLDER_K = 5  # the size of the empty A pictures before a task is known


class ShownTrial:
    """Method 1's records of the latest trial in a history that only grows (or is replaced), and their best step,
    kept up to date by reading only the records appended since the last call: a frame costs the same at step 10
    and step 10 000.  Same answer as filtering the whole history (records with ``upper``; those of the last
    trial seen, or with no trial key) and ``best_step`` on it (tested against both, trials in order)."""

    def __init__(self, history: list):
        self.history, self.read = history, 0
        self.records: list[dict] = []
        self.trial = None  # the last trial number seen
        self.best = None  # (step, distance) of the first record with the least distance

    def follows(self, history: list) -> bool:
        return history is self.history and len(history) >= self.read

    def update(self) -> list[dict]:
        for h in self.history[self.read:]:
            if "upper" not in h:
                continue
            t = h.get("trial")
            if t is not None and t == t and t != self.trial:  # a new trial: its records replace the last one's
                self.trial = t
                self.records = [r for r in self.records if "trial" not in r]
                self.best = best_step(self.records)
            if "trial" in h and self.trial is not None and h["trial"] != self.trial:
                continue  # a record of no trial (NaN) once trials are numbered: left out, as the filter does
            self.records.append(h)
            d = h.get("partition_distance")
            if d is not None and d == d and (self.best is None or d < self.best[1]):
                self.best = (int(h["step"]), int(d))
        self.read = len(self.history)
        return self.records


class SharingPictures:
    """The pictures, curves and readings of the Sharing discovery pane (see the module docstring)."""

    history: list
    snapshots: list

    def _picture_widgets(self) -> None:
        """The pictures' panes, the curves, the slider and the readings (made once; ``_rebuild`` fills them)."""
        # the pictures: the fast ones get fresh DynamicMaps whenever the matrices change shape (``_rebuild``)
        # (rows, not FlexBoxes: in a tab not shown yet Bokeh lays a fixed-size plot in a FlexBox out collapsed)
        self._matrices = pn.Row()  # relaxed A, snapped A, A_gt
        self._w_box = pn.Column()
        self._u_row = pn.Row(sizing_mode="stretch_width")  # max |U| and its histogram
        self.curves = {name: LiveView([plot], group="series", run="run",
                                      colours={k: c for k, (_, c) in CURVES[name].items()},
                                      labels={k: label for k, (label, _) in CURVES[name].items()},
                                      on_build=[self._add_marks])
                       for name, plot in CURVE_PLOTS.items()}
        self._loss_pane = pn.Column(self._curve_pane("losses"), sizing_mode="stretch_width",
                                    css_classes=["shr-curves"])
        self._penalty_pane = pn.Column(self._curve_pane("penalties"), sizing_mode="stretch_width",
                                       css_classes=["shr-penalties"])
        self._slider = pn.widgets.IntSlider(label="snapshot of A (drag to scrub back)", start=0, end=1, value=0,
                                            width=420, css_classes=["shr-snapshot"])
        self._slider.param.watch(guarded(self, "scrubbing the history")(self._on_scrub), "value")
        self._reading = pn.pane.Markdown("", width=420, css_classes=["shr-reading"])  # what the pictures say
        self._u_reading = pn.pane.Markdown("", css_classes=["shr-u-reading"])
        self._m1 = pn.Column(
            scroll_box(self._matrices, css_classes=["shr-matrices"]),
            scroll_box(pn.Row(self._w_box, pn.Column(self._slider, self._reading, pn.pane.Markdown(
                           "Rows of A are weight entries, columns shared parameters, both ordered by the true blocks "
                           "they are matched to. Left: the relaxed A (softmax of the logits). Middle: the snapped 0/1 "
                           "matrix the partition distance is computed from (argmax per row; the final one after the "
                           "lab's merge pass when it is on). W is coloured by that partition.",
                           width=420, styles={"font-size": "90%"}))), css_classes=["shr-weights-box"]),
            pn.Row(self._loss_pane, self._penalty_pane, sizing_mode="stretch_width"), sizing_mode="stretch_width")
        self._compare = pn.pane.DataFrame(pd.DataFrame(), index=False, css_classes=["shr-compare"])
        self._m2 = pn.Column(
            self._u_reading, self._u_row,
            pn.pane.Markdown("#### Test loss after adaptation (new tasks)"), self._compare, visible=False,
            sizing_mode="stretch_width")
        self._rebuild()

    def _curve_pane(self, name: str):
        return self.curves[name].panes[CURVE_PLOTS[name].name]

    # ------------------------------------------------------------------ drawing (DynamicMap callbacks)
    # One frame = one dict (``_frame_data``): the view, the shown trial's records and, for method 1, ``shown``:
    # the snapshot the slider picks, its snapped 0/1 matrix and what that matrix scores (``read_snapshot``).
    # The callbacks draw ``shown``'s matrices and ``_send`` writes the reading of the same dict, so a number
    # in the text is the number of the matrix in the picture, for every slider position.
    def _rebuild(self):
        """Fresh plots for what ``_view`` holds: a Bokeh plot keeps the size of its first frame, so when a task
        (or its size) changes the matrices' shapes every picture gets a new DynamicMap, sized from its own
        matrix, on a new Pipe (the plots of the old shape, still subscribed to the old Pipe, get no frame of
        the new one)."""
        self._pipe = hv.streams.Pipe(data=self._frame_data())
        method2 = self._view.get("method") == 2

        def picture(draw, follows: bool, **kw):
            """The shown method's pictures follow the Pipe (every frame); the hidden method's are drawn once
            (a frame re-rendering hidden plots cost as much as the shown ones)."""
            shown = hv.DynamicMap(draw, streams=[self._pipe]) if follows else draw(self._pipe.data)
            return pn.pane.HoloViews(shown, **kw)

        self._a_pane = picture(self._draw_a, not method2, css_classes=["shr-relaxed"])
        self._snapped_pane = picture(self._draw_snapped, not method2, css_classes=["shr-snapped"])
        self._gt_pane = pn.pane.HoloViews(self._draw_gt(self._view.get("gt")), css_classes=["shr-gt"])
        self._w_pane = picture(self._draw_w, not method2, css_classes=["shr-weights"])
        self._u_pane = picture(self._draw_u, method2, css_classes=["shr-u"])
        self._hist_pane = picture(self._draw_hist, method2, sizing_mode="stretch_width", css_classes=["shr-u-hist"])
        self._matrices.objects = [self._a_pane, self._snapped_pane, self._gt_pane]
        self._w_box.objects = [self._w_pane]
        self._u_row.objects = [self._u_pane, self._hist_pane]
        self._show_reading(self._pipe.data)

    def _clear(self):
        """Forget the run on display (another task is chosen): placeholders, no reading, no curves."""
        self.history, self.snapshots, self._summary = [], [], {}
        self._view = {"method": 2 if self.task == "msr" else 1, "task": self.task}
        self._compare.object = pd.DataFrame()
        self._rebuild()  # first: the slider's reset below draws on the new plots
        self._slider.end, self._slider.value = 1, 0
        self._reset_curves()
        self._draw_curves(final=True)

    def _shown_history(self) -> list[dict]:
        """Method 1's records of the trial whose snapshots are drawn (a saved run has every trial's records and
        the last trial's snapshots; a live run keeps only the trial under way).  Kept as the history grows (a
        frame reads only the records new since the last): ``ShownTrial``."""
        if self._trial is None or not self._trial.follows(self.history):
            self._trial = ShownTrial(self.history)
        return self._trial.update()

    def _frame_data(self) -> dict:
        history = self._shown_history() if self._view.get("method") == 1 else list(self.history)
        data = dict(self._view, history=history, snapshots=self.snapshots)
        data["best"] = self._trial.best if self._view.get("method") == 1 else best_step(history)
        if data.get("trial") is None and history and history[-1].get("trial") is not None:
            data["trial"] = int(history[-1]["trial"])
        data["shown"] = self._shown(data)
        return data

    def _shown(self, data):
        """The snapshot the slider picks and its reading; None before there is one (or for method 2)."""
        snaps = data.get("snapshots")
        if data.get("method") != 1 or not snaps or data.get("gt") is None:
            return None
        i = min(self._slider.value, len(snaps) - 1)
        A = np.asarray(snaps[i])
        final = data.get("final") if i == len(snaps) - 1 else None
        reading = read_snapshot(A, data["gt"], None if final is None else final["selection"])
        history = data["history"]
        step = history[i]["step"] if len(history) == len(snaps) else None
        return {"index": i, "count": len(snaps), "A": A, "reading": reading, "step": step,
                "final": final is not None, "merged": bool(final is not None and final["merged"])}

    def _K(self, data) -> int | None:
        gt = (data or {}).get("gt")
        return None if gt is None else len(gt)

    def _draw_a(self, data):
        shown, K = (data or {}).get("shown"), self._K(data)
        if shown is None:  # a placeholder of the same shape and options as the frames to come
            n = K or PLACEHOLDER_K
            return a_heatmap(np.zeros((n, n)), np.zeros(n, dtype=int), "A relaxed (softmax)")
        return a_heatmap(shown["A"], data["gt"], "A relaxed (softmax)")

    def _draw_snapped(self, data):
        """The 0/1 matrix the partition distance is computed from, in the relaxed A's rows and columns."""
        shown, K = (data or {}).get("shown"), self._K(data)
        if shown is None:
            n = K or PLACEHOLDER_K
            return a_heatmap(np.zeros((n, n)), np.zeros(n, dtype=int), "A snapped", colorbar=False)
        r = shown["reading"]
        what = "A merged" if shown["merged"] else "A snapped"  # merged: snapped, then the lab's merge pass
        return a_heatmap(r.snapped, data["gt"], f"{what}: distance {r.distance}", order_by=shown["A"],
                         colorbar=False)

    def _draw_gt(self, gt):
        if gt is None:
            return a_heatmap(np.zeros((PLACEHOLDER_K, 1)), np.zeros(PLACEHOLDER_K, dtype=int), "A_gt (truth)",
                             colorbar=False)
        return gt_heatmap(np.asarray(gt))

    def _draw_w(self, data):
        """W coloured by the partition the snapped A scores (the merged one at the end when merging is on)."""
        data = data or {}
        shape, shown = data.get("shape"), data.get("shown")
        if shape is None:
            return weights_coloring(None, (2, 3), caption="W")
        if shown is None:
            return weights_coloring(None, shape, caption="W")
        return weights_coloring(shown["reading"].labels, shape)

    # ------------------------------------------------------------------ the learning curves (live-pane base)
    def _curve_rows(self, records) -> dict:
        """Method 1's records as the curve plots' rows: one per history column drawn, its value at the step."""
        rows = {name: [] for name in CURVES}
        for rec in records:
            for name, columns in CURVES.items():
                for c in columns:
                    v = rec.get(c)
                    if v is not None and v == v:
                        rows[name].append({"series": c, "run": 0, "step": int(rec["step"]), "value": float(v)})
        return rows

    def _reset_curves(self, records=()) -> None:
        """New figures for a new run or trial (the only time the curves' Bokeh models are built)."""
        for name, view in self.curves.items():
            view.reset([c for c in CURVES[name] if any(c in r for r in records[:1])])
        self._add_curve_records(records)

    def _add_curve_records(self, records) -> None:
        for name, rows in self._curve_rows(records).items():
            if rows:
                self.curves[name].add(rows)

    def _draw_curves(self, final: bool = False) -> None:
        for view in self.curves.values():
            if final or view.draw_due():
                view.draw(final=final)

    def _add_marks(self, name: str, fig) -> None:
        """``LiveView.on_build``: on each new curve figure, a dashed line at the step the pictures show; on the
        penalties, the drawn snapshot's distance as a point (a diamond: after the merge pass) and a dotted line
        at the best step (the least partition distance)."""
        from bokeh.models import ColumnDataSource, Span

        marks = {"step": Span(dimension="height", line_color="#555555", line_dash="dashed", line_width=1,
                              location=None, name=f"{name}-step")}
        fig.add_layout(marks["step"])
        if name == CURVE_PLOTS["penalties"].name:
            marks["best"] = Span(dimension="height", line_color="#2ca02c", line_dash="dotted", line_width=2,
                                 location=None, name=f"{name}-best")
            fig.add_layout(marks["best"])
            marks["shown"] = ColumnDataSource({"x": [], "y": [], "marker": []}, name=f"{name}-shown")
            fig.scatter("x", "y", marker="marker", source=marks["shown"], size=11, color="#ff7f0e",
                        line_color="black")
        self._marks[name] = marks
        if self._pipe.data is not None:  # this figure's marks only: it is not shown yet, the other one is
            self._place_marks(self._pipe.data, only=name)

    def _place_marks(self, data: dict, only: str | None = None) -> None:
        """Move the marks to the snapshot ``data`` shows (``only``: one figure's).  Marks of a figure on the page
        are moved inside ``pn.io.hold()`` (``_send``): a bare change from Panel's event handling raises Bokeh's
        "_pending_writes should be non-None"."""
        shown = (data or {}).get("shown")
        step = shown["step"] if shown is not None else None
        for name, marks in self._marks.items():
            if only is not None and name != only:
                continue
            marks["step"].location = step
            if "shown" in marks:
                marks["shown"].data = ({"x": [step], "y": [shown["reading"].distance],
                                        "marker": ["diamond" if shown["merged"] else "circle"]}
                                       if step is not None else {"x": [], "y": [], "marker": []})
                best = (data or {}).get("best") if data.get("method") == 1 else None
                marks["best"].location = best[0] if best is not None else None

    def _u_shape(self, data):
        return (data["n_out"], data["n_in"]) if data.get("n_in") else (PLACEHOLDER_K, PLACEHOLDER_K)

    def _draw_u(self, data):
        data = data or {}
        U, shape = data.get("U"), self._u_shape(data)
        if U is None or data.get("method") != 2:
            if not self.history:
                title = "max_k |U|"
            elif self.runner.running and data.get("method") == 2:
                title = "max_k |U|: none (fully connected)"
            else:
                title = "max_k |U|: not saved with this run (saved before U was)"
            return u_picture(np.zeros((int(np.prod(shape)), 1)), *shape, title)
        return u_picture(U, data["n_out"], data["n_in"], f"max_k |U|: {self._u_label(data)}")

    @staticmethod
    def _u_label(data) -> str:
        """The sparsity of the U shown, and whether it is the chosen one (short: a plot title)."""
        label = data.get("label", "")
        short = label.removeprefix("msr, ").removesuffix(" sparsity")
        return f"{short} (chosen)" if label and label == data.get("chosen") else f"{short} (baseline)"

    def _draw_hist(self, data):
        data = data or {}
        U = data.get("U")
        if U is None or data.get("method") != 2:
            return u_histogram(np.zeros(1))
        return u_histogram(U, f"|U|: {self._u_label(data)}")

    def _show_reading(self, data: dict):
        """The text beside the pictures, from the frame they draw."""
        self._reading.object = self._reading_text(data)
        self._u_reading.object = self._u_reading_text(data)

    def _reading_text(self, data: dict) -> str:
        shown = data.get("shown")
        if shown is None:
            return ""
        r, i = shown["reading"], shown["index"]
        where = f"step {shown['step']}" if shown["step"] is not None else f"snapshot {i}"
        place = " (the last)" if i == shown["count"] - 1 else " (the first)" if i == 0 else ""
        head = f"**{'final, ' if shown['final'] else ''}{where}** · snapshot {i}{place}"
        if data.get("trial") is not None:
            head += f" · trial {int(data['trial']) + 1}"
        scored = ("the scored partition after the lab's merge pass" if shown["merged"] else
                  "the scored partition" if shown["final"] else "argmax per row")
        lo, hi = r.row_max
        rows = f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f} to {hi:.2f}"
        soft = "; still soft, so the snapped A is what is scored" if lo < 0.5 else ""
        text = (f"{head}  \nsnapped A ({scored}): partition distance **{r.distance}** to A_gt · "
                f"{r.blocks} shared parameter{'s' if r.blocks != 1 else ''} (A_gt: {r.true_blocks})  \n"
                f"relaxed A: the largest entry of a row is {rows} (1 = a hard choice){soft}")
        return text + self._best_text(data)

    @staticmethod
    def _best_text(data: dict) -> str:
        """Where the recorded distance was least, and why the end may differ (the method never sees it)."""
        history = data.get("history") or []
        best = data["best"] if "best" in data else best_step(history)
        if best is None or not history:
            return ""
        last = history[-1].get("partition_distance")
        step, distance = best
        text = f"  \nbest: distance **{distance}** at step {step} (dotted green line)"
        if last is not None and last == last and last > distance:
            text += (f"; the last recorded step has {last:g}. The method minimises the validation loss and its "
                     f"penalties, never the distance (it does not know the truth), and keeps every step to the "
                     f"end, so A can pass through a better partition and leave it")
        return text

    def _u_reading_text(self, data: dict) -> str:
        if data.get("method") != 2 or data.get("U") is None:
            return ""
        history = data.get("history") or []
        step = history[-1].get("step") if history else None
        label, chosen = data.get("label", ""), data.get("chosen")
        which = (" (the chosen sparsity)" if label == chosen else
                 f" (a baseline; the chosen {chosen} runs last)" if chosen else "")
        done = "final U" if not self.runner.running else f"U at step {step}"
        return f"{done} of **{label}**{which}"

    def _on_scrub(self, event=None):
        """The slider moved: draw that snapshot (and move the curves' marker), unless it is following the run."""
        if not self._following:
            self._send(frame=False)

    def _send(self, frame: bool = True, final: bool = False, matrices: bool = True):
        """One frame (``frame``): the learning curves' new points (``final``: their finished view) and, when
        ``matrices``, the slider moved to the newest snapshot and the matrices of the snapshot shown drawn with
        its reading and marks.  ``frame`` False (the slider was dragged): the matrices, reading and marks only."""
        if matrices or not frame:
            t0 = time.monotonic()
            if frame:
                self._follow()
            data = self._frame_data()
            self._show_reading(data)
            self._pipe.send(data)
            with pn.io.hold():
                self._place_marks(data)
            self._last_matrices = time.monotonic()
            self._matrix_cost = self._last_matrices - t0
            self.matrix_frames.append(self._last_matrices)
        if frame:
            self._draw_curves(final=final)
            self.frames.append(time.perf_counter())

    def _after_poll(self, count: int):
        """A frame when one is due: while it learns, method 1's frames follow the learning curves' throttle
        (``LiveView.draw_due``: new steps waiting and drawing kept under its share of the event loop), method 2's
        (no curves) the matrices' own; the last frame is always drawn.  Steps that arrive between frames wait
        for the next (``_dirty`` stays set)."""
        if not self._dirty:
            return
        final = self.runner.settled
        now = time.monotonic()
        curves = self._view.get("method") == 1 and any(view.draw_due(now) for view in self.curves.values())
        matrices = self._matrices_due(now) and (curves or self._view.get("method") != 1)
        if not (final or curves or matrices):
            return
        self._send(final=final, matrices=final or matrices)
        self._dirty = False

    def _matrices_due(self, now: float) -> bool:
        """The matrices may be redrawn: at most every ``MATRIX_SECONDS`` and under ``DRAW_SHARE`` of the event
        loop (a frame of pictures that took 0.1 s waits 0.2 s), like the curves' own throttle."""
        return now - self._last_matrices >= max(MATRIX_SECONDS[self.worker], self._matrix_cost / DRAW_SHARE)

    def _follow(self) -> None:
        """The slider follows the newest snapshot (unless it was dragged back); the frame drawing it follows."""
        if not self.snapshots:
            return
        follow = self._slider.value >= self._slider.end - 1
        self._slider.end = max(len(self.snapshots) - 1, 1)
        if follow:
            self._following = True
            try:
                self._slider.value = len(self.snapshots) - 1
            finally:
                self._following = False

    def _outcome(self, live: bool = False) -> str:
        """The task, the latest losses and the final partition distance (``live``: under the runner's status
        line, which names the trial and the msr run; a loaded run's status names them here)."""
        last = self.history[-1] if self.history else {}
        task = self._view.get("task", self.task)
        text = task
        if self._view.get("trial") and not live:
            text += f" · trial {self._view['trial'] + 1}"
        if "upper" in last:
            text += f" · upper {last['upper']:.4g}"
        elif "outer_loss" in last:
            label = last.get("label") if not live else None
            if isinstance(label, str) and label:
                text += f" · {label}"
            text += f" · outer loss {last['outer_loss']:.4g}"
        pd_final = self._summary.get("partition_distance")
        if pd_final is not None:
            merged = self._summary.get("merged", "snapped_partition_distance" in self._summary)
            how = "after snapping and the lab's merge pass" if merged else "after snapping"
            trials = self._summary.get("trials") or 1
            if trials > 1:
                how = f"mean of {trials} trials, {how}; the pictures show the last trial"
            text += f"  \nfinal partition distance **{pd_final:g}** ({how})" + self._stability_text()
        return text

    def _stability_text(self) -> str:
        """Whether the snapped partition settled over the last snapshots (the family's ``partition_stable``; runs
        saved before it was: nothing)."""
        s = self._summary
        if s.get("partition_stable") is None:
            return ""
        window = s.get("stability_window")
        if s["partition_stable"]:
            return (f" · {s.get('partition_stability') or f'stable over the last {window} snapshots of all the trials'}")
        words = s.get("partition_stability") or (
            f"not stable over the last {window} snapshots in some of the trials (the most frequent partition's "
            f"share {s.get('stable_share', float('nan')):.0%}, mean over the trials)")
        modal = s.get("modal_partition_distance")
        return (f"  \n**{words[:10]}**{words[10:]}" if words.startswith("not stable") else f"  \n{words}") + (
            f"  \nthe most frequent partition over that window: distance **{modal:g}** to A_gt"
            if modal is not None else "")


def _curve_data(history: pd.DataFrame) -> dict:
    """The curve plots' data of a saved method-1 history (the last trial's, as the pictures), vectorised."""
    if "trial" in history.columns and history["trial"].notna().any():
        history = history[history["trial"] == history["trial"].max()]
    out = {}
    for name, columns in CURVES.items():
        present = [c for c in columns if c in history.columns]
        long = history.melt(id_vars=["step"], value_vars=present, var_name="series", value_name="value") \
            if present and "step" in history.columns else pd.DataFrame(columns=["step", "series", "value"])
        long = long.dropna(subset=["value"]).assign(run=0)
        out[name] = LiveData.from_frame(long, ["value"], group="series", run="run", groups=present)
    return out
