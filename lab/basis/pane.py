"""Dashboard pane "Basis explorer": pick a group and reps, see the equivariant basis as a basis-coloring plot.

The solve is the ``basis`` experiment family (``lab.basis.family``); drawing is ``lab.plots.coloring``
(data) and ``lab.plots.coloring_hv`` (HoloViews); this module only wires widgets to them.  Each session solves
on its own job (``lab.jobs.Job``: one worker thread, nothing shared between sessions) while an async callback
keeps the page responsive and shows progress; a newer request stops the older job at its next progress
report and its result is dropped.
"""
from __future__ import annotations

import asyncio
import io
import logging
import os
import threading

import panel as pn
import param

from ..errors import LabError
from . import family as basis_family
from .family import BasisConfig
from ..export import basis_npz_bytes
from ..jobs import Job, error_text
from ..plots.coloring import MAX_CELLS, basis_coloring
from ..plots.coloring_hv import coloring_plot, gallery_plot
from ..plots.coloring_mpl import coloring_png
from ..groups import max_size
from .family import PRESETS, fill_size, has_size
from ..dashboard.config_params import add_config_params
from ..dashboard.guard import guard
from ..dashboard.layout import SidebarPane, scroll_box
from ..dashboard.runner import status_line

log = logging.getLogger(__name__)

#: worker processes the whole server runs for basis solves at once (each session has at most one job)
MAX_PROCESS_JOBS = max(1, (os.cpu_count() or 2) - 1)
_workers = 0
_workers_lock = threading.Lock()


def _acquire_worker() -> bool:
    global _workers
    with _workers_lock:
        if _workers >= MAX_PROCESS_JOBS:
            return False
        _workers += 1
        return True


def _release_worker() -> None:
    global _workers
    with _workers_lock:
        _workers = max(0, _workers - 1)


CUSTOM = "custom…"


def _group_choices() -> list[str]:
    """The menu: every group of the catalog (``lab.groups.group_catalog``, so a new group is listed without an edit
    here) with its size argument as ``n`` (the size box fills it in), ``Z(n)*Z(n)`` after ``Z(n)``; a group of two
    size arguments (``ZksZnxZn(k, n)``) is typed as a custom group."""
    from ..groups import group_catalog

    out = []
    for signature, _ in group_catalog():
        name, _, rest = signature.partition("(")
        args = [a for a in rest.rstrip(")").replace(" ", "").split(",") if a]
        if len(args) > 1:
            continue
        out.append(f"{name}(n)" if args else signature)
        if out[-1] == "Z(n)":
            out.append("Z(n)*Z(n)")
    return out + [CUSTOM]


GROUP_CHOICES = _group_choices()


class BasisExplorer(SidebarPane, pn.viewable.Viewer):
    """Widgets -> ``basis_coloring`` -> HoloViews plot, information card and exports."""

    preset = param.Selector(default="Graph layer", objects=[*PRESETS, "Custom"], doc="a classic layer")
    group = param.Selector(default="S(n)", objects=GROUP_CHOICES, doc="the symmetry group")
    n = param.Integer(default=4, bounds=(1, None), doc="the group's size parameter (its box's bound follows the "
                      "limits: lab.groups.max_size)")
    custom_group = param.String(default="S(3)*Z(2)", doc="any group text, e.g. S(3)*Z(4)")
    rep_in = param.String(default="T(2)", doc="input representation")
    rep_out = param.String(default="T(2)", doc="output representation")
    # solver, memory_limit, basis: from BasisConfig's declarations (below the class)

    def __init__(self, **params):
        super().__init__(**params)
        self._gen = 0
        self._job: Job | None = None  # this session's solve in flight
        self._applying = False
        self._result = None  # (ColoringData, Solution) of the plot on screen
        self._widgets()
        self._apply_preset()
        self.param.watch(self._on_preset, ["preset"])
        self.param.watch(self._on_control, ["group", "n", "custom_group", "rep_in", "rep_out", "solver",
                                            "memory_limit", "basis"])
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(lambda ctx: self._supersede())
        self.refresh()

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        self._preset_w = pn.widgets.Select.from_param(self.param.preset, name="Preset", css_classes=["preset-select"])
        self._group_w = pn.widgets.Select.from_param(self.param.group, name="Group", css_classes=["group-select"])
        self._n_w = pn.widgets.IntInput.from_param(self.param.n, name="Size n", start=1,
                                                css_classes=["size-input"])
        self._custom_w = pn.widgets.TextInput.from_param(self.param.custom_group, name="Group (text)",
                                                         visible=False)
        self._in_w = pn.widgets.TextInput.from_param(self.param.rep_in, name="Input rep", css_classes=["rep-in-input"],
                                                     placeholder="e.g. V, T(2), V+Scalar")
        self._out_w = pn.widgets.TextInput.from_param(self.param.rep_out, name="Output rep", css_classes=["rep-out-input"],
                                                      placeholder="e.g. V, 2*V, T(1,1)")
        self._solver_w = pn.widgets.Select.from_param(self.param.solver, name="Solver", css_classes=["solver-select"])
        self._basis_w = pn.widgets.Select.from_param(self.param.basis, name="Basis drawn", css_classes=["basis-select"],
                                                     description="canonical: the basis a person would write down "
                                                     "(sparsest, exact small fractions; δ_ij δ_kl for SO(3)); "
                                                     "solver: the solver's orthonormal basis")
        self._memory_w = pn.widgets.TextInput.from_param(self.param.memory_limit, name="Memory limit",
                                                         placeholder="default: 80% of free RAM",
                                                         css_classes=["memory-limit-input"])
        self._typed: dict[str, str] = {}  # what is in each text box, committed or not
        for key, w in (("in", self._in_w), ("out", self._out_w), ("group", self._custom_w)):
            w.param.watch(lambda e, key=key: self._typed_changed(key, e.new), ["value_input", "value"])
        self._validation = pn.pane.Alert("", alert_type="warning", visible=False, css_classes=["rep-error"],
                                         sizing_mode="stretch_width", margin=(0, 5))
        self._blurb = pn.pane.Markdown("", css_classes=["preset-blurb"], sizing_mode="stretch_width")
        self._progress = pn.indicators.Progress(active=True, value=-1, visible=False,
                                                sizing_mode="stretch_width", bar_color="primary")
        self._status = pn.pane.Markdown("", visible=False, css_classes=["solve-status"])
        self._stop_w = pn.widgets.Button(label="Stop", color="warning", visible=False, width=80,
                                         css_classes=["solve-stop"])
        self._stop_w.on_click(lambda _e: self.stop())
        self._error = pn.pane.Alert("", alert_type="danger", visible=False, css_classes=["solve-error"],
                                    sizing_mode="stretch_width")
        self._info = pn.pane.Markdown("", css_classes=["basis-info"], sizing_mode="stretch_width")
        self._note = pn.pane.Alert("", alert_type="info", css_classes=["view-note"], sizing_mode="stretch_width")
        self._plot = pn.pane.HoloViews(None, linked_axes=False, css_classes=["basis-plot"])
        self._gallery = pn.pane.HoloViews(None, linked_axes=False)
        # visibility is toggled on this wrapper: toggling it on a HoloViews pane trips a Panel 1.9 bug
        # (Bokeh stylesheets copied into a str-only list parameter)
        self._page = 0  # the gallery page on screen
        self._prev_w = pn.widgets.Button(label="‹ previous", width=100, css_classes=["gallery-prev"])
        self._next_w = pn.widgets.Button(label="next ›", width=100, css_classes=["gallery-next"])
        self._page_text = pn.pane.Markdown("", css_classes=["gallery-page"], margin=(5, 10))
        self._prev_w.on_click(lambda _e: self.turn_page(-1))
        self._next_w.on_click(lambda _e: self.turn_page(+1))
        self._pager = pn.Row(self._prev_w, self._page_text, self._next_w, visible=False)
        self._gallery_box = pn.Column(pn.pane.Markdown("#### Individual basis elements"), self._pager, self._gallery,
                                      visible=False, css_classes=["basis-gallery"])
        self._png = pn.widgets.FileDownload(callback=self._png_file, filename="basis.png",
                                            label="Figure (PNG)", width=150)
        self._npz = pn.widgets.FileDownload(callback=self._npz_file, filename="basis.npz",
                                            label="Basis (.npz)", width=150)

    def _sidebar(self):
        return pn.Column(
            self._preset_w, self._blurb, self._group_w, self._n_w, self._custom_w, self._in_w, self._out_w,
            self._validation, self._solver_w, self._basis_w, self._memory_w,
            pn.pane.Markdown("Reps: `V`, `V.T` (dual), `Scalar`, `T(p,q)`, sums `+`, multiples `3*V`, "
                             "products `*`, powers `**`.", styles={"font-size": "0.85em"}),
            sizing_mode="stretch_width", min_width=300)

    def _main(self):
        return pn.Column(self._progress, pn.Row(self._status, self._stop_w), self._error, self._info, self._note,
                         scroll_box(self._plot, css_classes=["basis-plot-box"]), self._gallery_box,
                         pn.Row(self._png, self._npz), sizing_mode="stretch_width")

    # ------------------------------------------------------------------ controls
    def group_text(self) -> str:
        """The group as text, size filled in (``"Z(n)*Z(n)"`` with n = 4 -> ``"Z(4)*Z(4)"``)."""
        return self.custom_group if self.group == CUSTOM else fill_size(self.group, self.n)

    def _apply_preset(self):
        p = PRESETS.get(self.preset)
        self._blurb.object = p.blurb if p else "Your own group and representations."
        if p is None:
            return
        self._applying = True
        try:
            values = {"rep_in": p.rep_in, "rep_out": p.rep_out}
            if p.group in GROUP_CHOICES:
                values["group"] = p.group
            else:
                values.update(group=CUSTOM, custom_group=p.group_text())
            if p.n is not None:
                values["n"] = p.n
            self.param.update(**values)
            # the boxes show the preset's texts now: what was typed before (committed or not) is gone, and so is
            # its warning
            for w in (self._in_w, self._out_w, self._custom_w):
                w.value_input = w.value
            self._typed.clear()
        finally:
            self._applying = False
        self._sync_widgets()

    def _sync_widgets(self):
        self._custom_w.visible = self.group == CUSTOM
        self._n_w.disabled = self.group == CUSTOM or not has_size(self.group)
        if has_size(self.group):  # the size box's bound is the largest group the limits accept
            self._n_w.end = max_size(self.group)
        self._validate()

    @guard("applying the preset")
    def _on_preset(self, *_events):
        if self._applying:  # _on_control switching to "Custom": it solves the request itself, once
            return
        self._apply_preset()
        self._schedule()

    @guard("applying the change")
    def _on_control(self, *events):
        if self._applying:
            return
        if any(e.name in ("group", "custom_group", "rep_in", "rep_out") for e in events) and self.preset != "Custom":
            self._applying = True
            try:
                self.preset = "Custom"
            finally:
                self._applying = False
            self._blurb.object = "Your own group and representations."
        self._sync_widgets()
        self._schedule()

    @guard("checking the text")
    def _typed_changed(self, key: str, text: str | None):
        self._typed[key] = text or ""
        self._validate()

    def _pending(self) -> bool:
        """Some text box holds typing not yet committed (its text differs from the request's)."""
        committed = {"in": self.rep_in, "out": self.rep_out}
        if self.group == CUSTOM:
            committed["group"] = self.custom_group
        return any(self._typed.get(key, text) != text for key, text in committed.items())

    def _validate(self) -> str | None:
        """Live validation of what is typed (not yet committed); returns the message or None.  Once the text
        is committed the request's own error (``_error``) reports it: a bad rep is reported once, not beside
        its box and above the plot both."""
        if not self._pending():
            self._validation.object, self._validation.visible = "", False
            return None
        message = None
        custom = self._typed.get("group", self.custom_group) if self.group == CUSTOM else None
        group = custom if custom is not None else self.group_text()
        # text only (basis_family.estimate builds nothing): this runs on the event loop at every keystroke
        try:
            basis_family.estimate(BasisConfig(group=group, rep="Scalar"))
        except LabError as err:
            message = f"group: {err}"
        else:
            for label, key, committed in (("input rep", "in", self.rep_in), ("output rep", "out", self.rep_out)):
                try:
                    basis_family.estimate(BasisConfig(group=group, rep=self._typed.get(key, committed)))
                except LabError as err:
                    message = f"{label}: {err}"
                    break
        self._validation.object = message or ""
        self._validation.visible = message is not None
        return message

    # ------------------------------------------------------------------ solving
    def config(self) -> BasisConfig:
        """The request on screen as the basis experiment's config."""
        return BasisConfig(group=self.group_text(), rep=self.rep_in, rep_out=self.rep_out, solver=self.solver,
                           basis=self.basis, memory_limit=(self.memory_limit or "").strip() or None)

    @staticmethod
    def _compute(config: BasisConfig, progress=None, control=None):
        """Solve (the basis experiment) and build the plots, all off the event loop."""
        result = basis_family.run(config, progress=progress, control=control)
        if control is not None:
            control.checkpoint()
        return BasisExplorer._draw(result)

    @staticmethod
    def _draw(result, progress=None):
        if progress is not None:  # the job's state: drawing (not building) from here on
            progress({"kind": "started"})
        data = basis_coloring(result, max_cells=MAX_CELLS)  # of the basis result.config.basis asks for
        return data, result, coloring_plot(data), gallery_plot(data, page=0)

    def _supersede(self) -> int:
        """A newer request (or the closed tab) cancels this session's job: a worker process is ended at once."""
        self._gen += 1
        if self._job is not None:
            self._job.cancel()
            self._job = None
        return self._gen

    def _schedule(self):
        """A new request: sized on the event loop from its text (microseconds); a bad or over-limit one is
        reported inline and leaves the job in flight alone; an accepted one supersedes it."""
        config = self.config()
        try:
            config.validate()
            cost = basis_family.estimate(config)
        except LabError as err:
            self._show_error(str(err))
            return
        gen = self._supersede()
        self._error.visible = False  # it was about the request this one replaces
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            async def run():
                try:
                    await self._refresh_async(gen, config, cost)
                except Exception as err:  # never a traceback in the server log: an inline message
                    log.debug("basis explorer: refresh failed", exc_info=True)
                    self._busy(False)
                    self._show_error(error_text(err))
            pn.state.execute(run)
        else:
            self.refresh()

    @guard("stopping the solve")
    def stop(self):
        """Stop this session's solve (the Stop button)."""
        if self._job is not None:
            self._supersede()
            self._busy(False)
            self._show_error("stopped")

    def refresh(self):
        """Solve and draw synchronously (scripts, tests, benchmarks)."""
        self._supersede()
        self._deliver(lambda: self._compute(self.config()))

    def _deliver(self, get_result):
        """Show ``get_result()``, or its error inline: never a traceback page."""
        try:
            result = get_result()
        except LabError as err:
            self._show_error(str(err))
            return
        except Exception as err:
            self._show_error(f"unexpected {type(err).__name__}: {err}")
            return
        try:
            self._show(result)
        except Exception as err:  # a drawing failure is an inline message too
            self._show_error(f"could not draw the result: {type(err).__name__}: {err}")

    async def _refresh_async(self, gen: int, config: BasisConfig, cost):
        """Solve in this session's job: a thread for small requests, a worker process (ended at once by a newer
        request, Stop or a closed tab) for anything larger; the server runs at most ``MAX_PROCESS_JOBS``
        worker processes at once."""
        title = f"`{config.group}`: {config.rep} → {config.rep_out}"
        if cost.small:
            self._busy(True, f"{title}  \n**solving** …")
            job = self._job = Job.function(lambda progress, control: self._compute(config, progress, control),
                                           name="basis-explorer").start()
            final = await self._follow(job, gen, title)
            if final is None:
                return
        else:
            while not _acquire_worker():
                self._busy(True, f"waiting for a free worker ({MAX_PROCESS_JOBS} solves are running) …")
                await asyncio.sleep(0.25)
                if gen != self._gen:
                    return
            try:
                title += f" ({cost.entries:,} entries, in a worker process)"
                self._busy(True, f"{title}  \n**solving** …")
                job = self._job = Job("basis", config, process=True, keep_result=True, name="basis-explorer").start()
                final = await self._follow(job, gen, title)
            finally:
                _release_worker()
            if final is None:
                return
            if final["kind"] == "done" and final.get("result") is not None:
                solved = final["result"]
                job = self._job = Job.function(lambda progress, control: self._draw(solved, progress),
                                               name="basis-draw").start()
                final = await self._follow(job, gen, f"{title}  \nsolved; drawing the basis …", verb="drawing")
                if final is None:
                    return
        self._job = None
        try:
            if final["kind"] == "failed":
                self._show_error(final["error"])
            elif final.get("result") is None:
                self._show_error(final.get("note") or "stopped")
            else:
                self._deliver(lambda: final["result"])
        finally:
            self._busy(False)

    async def _follow(self, job: Job, gen: int, title: str = "", verb: str = "solving", period: float = 0.15):
        """Relay ``job``'s progress to the indicators until its final message (None: superseded): the status
        reads ``title`` over the job's state, progress message, percentage, elapsed time and ETA."""
        while True:
            await asyncio.sleep(period)
            if gen != self._gen:  # superseded: the newer request's callback owns the indicators
                return None
            for msg in job.drain():
                if msg["kind"] == "progress":
                    self._progress.value = int(100 * msg["done"] / max(msg["total"], 1))
                elif msg["kind"] in ("done", "failed"):
                    return msg
            self._status.object = self.solve_status(job, title, verb)

    @staticmethod
    def solve_status(job: Job, title: str = "", verb: str = "solving") -> str:
        """``title`` over ``**solving** · orbit 3/9 · 41% · 2.1 s elapsed · ETA 3.0 s``."""
        line = status_line(job, verb, unit=None, build=verb)
        return f"{title}  \n{line}" if title else line

    def _busy(self, on: bool, message: str = ""):
        self._progress.value = -1
        self._progress.visible = on
        self._stop_w.visible = on
        self._status.object = message
        self._status.visible = on

    # ------------------------------------------------------------------ output
    def _show_error(self, message: str):
        self._error.object = message + (" (the plot below is the last layer that solved)"
                                        if self._result is not None else "")
        self._error.visible = True

    def _show(self, result):
        data, solved, plot, gallery = result
        self._result = (data, solved)
        self._error.visible = False
        info = data.info()
        cached = " (cached)" if info["cached"] else ""
        self._info.object = (
            f"### r = {info['rank']} of {info['dim']}\n\n"
            f"| group | input | output | rank r | dimension | r / dim | solver | time to solve |\n"
            f"|---|---|---|---|---|---|---|---|\n"
            f"| `{info['group']}` | `{info['input']}` | `{info['output']}` | {info['rank']} | {info['dim']} | "
            f"{info['ratio']:.3g} | {info['solver']} | {1000 * info['seconds']:.1f} ms{cached} |")
        self._note.object = f"**{'Categorical' if data.kind == 'categorical' else 'Continuous'} view.** {data.note}"
        self._plot.object = plot
        self._gallery.object = gallery
        self._gallery_box.visible = gallery is not None
        self._page = 0
        self._show_pager(data)
        name = basis_family.slug(solved)
        self._png.filename, self._npz.filename = f"{name}.png", f"{name}.npz"

    def _show_pager(self, data):
        self._pager.visible = data.pages > 1
        self._page_text.object = f"page {self._page + 1} of {data.pages}"
        self._prev_w.disabled = self._page == 0
        self._next_w.disabled = self._page >= data.pages - 1

    @guard("turning the gallery page")
    def turn_page(self, step: int):
        """Show the gallery page ``step`` pages on (the ‹ previous / next › buttons)."""
        if self._result is None:
            return
        data = self._result[0]
        page = min(max(self._page + step, 0), max(data.pages - 1, 0))
        if page == self._page:
            return
        self._page = page
        self._gallery.object = gallery_plot(data, page=page)  # one page: at most GALLERY small tiles
        self._show_pager(data)

    @guard("writing the figure")
    def _png_file(self):
        return io.BytesIO(coloring_png(self._result[0])) if self._result else None

    @guard("writing the basis")
    def _npz_file(self):
        if not self._result:
            return None
        data, solved = self._result
        return io.BytesIO(basis_npz_bytes(solved.solution, data.rep_in, data.rep_out))


add_config_params(BasisExplorer, BasisConfig, ["solver", "memory_limit", "basis"])
