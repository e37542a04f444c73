"""The live-pane base: curves that stream while a job runs, drawn at a bounded cost however long the run.

A pane declares its live plots (``LivePlot``: which columns are x and y, whether every run is drawn beside the
median, axis limits, log axes) and hands the base the rows it records (one row per group, run and step, e.g.
the "total" layer of every strategy and run of a dynamics step).  The base owns everything else:

* **Data** (``LiveData``, plain numpy, no Bokeh): every recorded step, the median over runs of each column per
  group, updated incrementally (a new step computes only that step's medians), and every run's points.  A
  saved run is turned into the same structure in one vectorised pass (``LiveData.from_frame``) off the event
  loop, by the pane's loading job.
* **Streaming** (``LiveView``): one Bokeh figure per plot, built once per run (``reset``).  A frame only
  *appends* the new points to the figures' ``ColumnDataSource``s (``stream``); the newest point of every curve
  sits in a small "tail" source replaced each frame, so it is always drawn.  Measured (``bench/dashboard.py
  --part training``) against the HoloViews ``Pipe`` + ``DynamicMap`` frames this replaces, which re-rendered
  every overlay from the whole history and rebuilt its Bokeh models on each frame.  HoloViews' ``Buffer``
  stream also streams, but a DynamicMap still re-runs its callback and re-plots its overlay per frame; the
  Bokeh pane streams with no per-frame Python beyond the new rows.
* **Decimation** (``lab.plots.decimate``): while live the browser gets every ``stride``-th step (and the newest);
  the stride doubles when a curve passes ``LIVE_POINTS`` points, so a long run is re-thinned a few times, never
  per frame.  When the run ends (or a saved run is drawn) the view is rebuilt once: every step up to
  ``FULL_POINTS``, beyond that MinMaxLTTB with the first, last and extreme points kept.  Each run's own faint
  line gets at most ``RUN_SEGMENTS`` segments in all (a coarser stride when there are many runs).
* **Throttle**: ``draw_due()`` is true at most every ``min_interval`` seconds and never more often than keeps
  drawing under ``DRAW_SHARE`` of the event loop (a frame that took 40 ms waits 80 ms before the next).

No mathematics of the science here: medians over runs of recorded numbers, and which points to send.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import panel as pn

from ..plots.decimate import decimate_many, stride_keep

#: live: at most about this many points per median curve in the browser (the stride doubles beyond)
LIVE_POINTS = 1000
#: a finished or loaded run: every step up to this many, beyond it MinMaxLTTB (first, last, extremes kept)
FULL_POINTS = 4000
#: every run's faint line: at most this many segments in all (every plot and group of a view together)
RUN_SEGMENTS = 60_000
#: drawing takes at most this share of the session's event loop
DRAW_SHARE = 0.5
#: a drift plot's axes reach this many times the largest median
MARGIN = 1.2
#: a legend above its plot takes at most this many entries in one row (more: rows of three)
LEGEND_ROW = 4


@dataclass(frozen=True)
class LivePlot:
    """One live plot a pane declares.

    ``name``: its key (and the Bokeh figure's ``name``, ``live-<name>``, which tests find it by).  ``x``/``y``:
    record columns.  ``runs``: every run drawn faint beside the bold median.  ``legend``: name the groups.
    ``x_limit``: x from 0 to MARGIN × the largest median x (else Bokeh's automatic range).  ``y_limit``: y from 0
    to MARGIN × the largest median y of that group ("*": of every group; None: automatic).  ``logy``: may be
    switched by the pane (``LiveView.set_logy``): linear plots only keep their limits.  ``legend_above``: the
    legend in a row above the plot, where it covers no curve (else inside, top left)."""

    name: str
    y: str
    x: str = "step"
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    runs: bool = False
    legend: bool = False
    height: int = 260
    x_limit: bool = False
    y_limit: str | None = None
    logy: bool = False
    legend_above: bool = False


class LiveData:
    """Every recorded step of one run (all groups): medians over runs, incrementally, and each run's points.

    ``columns``: the record columns kept.  Rows are dicts (or a DataFrame for ``from_frame``) with ``group`` and
    ``run`` keys and a ``step``."""

    def __init__(self, columns, group: str = "strategy", run: str = "run", groups=()):
        self.columns = list(dict.fromkeys(columns))
        self.group, self.run = group, run
        self.groups: list = list(groups)
        self.steps: list[int] = []
        self._index: dict[int, int] = {}
        self.med: dict = {}  # group -> column -> list of floats, one per step (NaN: no live run that step)
        self.points: dict = {}  # group -> list per step of (run ids, values (runs x columns)) or None
        self.max_med: dict = {}  # group -> column -> the largest median so far
        for g in self.groups:
            self._group(g)

    def _group(self, g):
        if g not in self.med:
            if g not in self.groups:
                self.groups.append(g)
            self.med[g] = {c: [math.nan] * len(self.steps) for c in self.columns}
            self.points[g] = [None] * len(self.steps)
            self.max_med[g] = {c: -math.inf for c in self.columns}

    def __len__(self) -> int:
        return len(self.steps)

    def add(self, rows) -> None:
        """Append rows of one or more new steps (any order within a step; steps after every recorded one)."""
        by_step: dict = {}
        for r in rows:
            by_step.setdefault(int(r["step"]), []).append(r)
        for step in sorted(by_step):
            self._add_step(step, by_step[step])

    def _add_step(self, step: int, rows) -> None:
        if step in self._index:  # a step sent again (e.g. a resumed record): replace nothing, keep the first
            return
        self._index[step] = len(self.steps)
        self.steps.append(step)
        for g in self.groups:
            for c in self.columns:
                self.med[g][c].append(math.nan)
            self.points[g].append(None)
        by_group: dict = {}
        for r in rows:
            by_group.setdefault(r[self.group], []).append(r)
        for g, rs in by_group.items():
            self._group(g)
            runs = np.array([r[self.run] for r in rs])
            values = np.array([[float(r[c]) for c in self.columns] for r in rs], dtype=float)
            self._set(g, len(self.steps) - 1, runs, values)

    def _set(self, g, i: int, runs, values) -> None:
        self.points[g][i] = (runs, values)
        meds = np.median(values, axis=0)
        for c, m in zip(self.columns, meds):
            m = float(m)
            self.med[g][c][i] = m
            if m > self.max_med[g][c]:
                self.max_med[g][c] = m

    @classmethod
    def from_frame(cls, df, columns, group: str = "strategy", run: str = "run", groups=None) -> "LiveData":
        """The same structure from a whole table at once (a saved run), vectorised: what ``add`` would give."""
        data = cls(columns, group, run, groups if groups is not None else list(dict.fromkeys(df[group])))
        if df.empty:
            return data
        df = df.sort_values(["step", group, run], kind="stable")
        steps = np.unique(df["step"].to_numpy())
        data.steps = [int(s) for s in steps]
        data._index = {s: i for i, s in enumerate(data.steps)}
        n = len(steps)
        med = df.groupby([group, "step"], sort=False)[data.columns].median()
        for g in data.groups:
            data._group(g)
            data.points[g] = [None] * n
            data.med[g] = {c: [math.nan] * n for c in data.columns}
        for g, sub in df.groupby(group, sort=False):
            data._group(g)
            idx = np.searchsorted(steps, sub["step"].to_numpy())
            bounds = np.flatnonzero(np.diff(idx)) + 1
            runs = np.split(sub[run].to_numpy(), bounds)
            values = np.split(sub[data.columns].to_numpy(dtype=float), bounds)
            for i, r, v in zip(idx[np.r_[0, bounds]], runs, values):
                data.points[g][i] = (r, v)
            m = med.loc[g]
            at = np.searchsorted(steps, m.index.to_numpy())
            for c in data.columns:
                col = np.full(n, np.nan)
                col[at] = m[c].to_numpy(dtype=float)
                data.med[g][c] = col.tolist()
                data.max_med[g][c] = float(np.nanmax(col)) if np.isfinite(col).any() else -math.inf
        return data

    def median(self, g, c) -> np.ndarray:
        return np.asarray(self.med[g][c], dtype=float)

    def largest(self, c, g="*") -> float:
        """The largest median of column ``c`` so far, of group ``g`` ("*" or absent: every group)."""
        groups = [g] if g in self.max_med else self.groups
        vals = [self.max_med[h][c] for h in groups if h in self.max_med]
        best = max(vals, default=-math.inf)
        return best if math.isfinite(best) else math.nan


def _segments(data: LiveData, g, keep, x: str, y: str) -> dict:
    """Each run's line through the kept step indices ``keep``, as segments (x0, y0) → (x1, y1)."""
    ix, iy = data.columns.index(x) if x != "step" else None, data.columns.index(y)
    last: dict = {}
    out: dict = {"x0": [], "y0": [], "x1": [], "y1": []}
    pts = data.points[g]
    for i in keep:
        p = pts[i]
        if p is None:
            continue
        runs, values = p
        xs = values[:, ix] if ix is not None else np.full(len(runs), float(data.steps[i]))
        ys = values[:, iy]
        for r, xv, yv in zip(runs.tolist(), xs.tolist(), ys.tolist()):
            prev = last.get(r)
            if prev is not None:
                out["x0"].append(prev[0])
                out["y0"].append(prev[1])
                out["x1"].append(xv)
                out["y1"].append(yv)
            last[r] = (xv, yv)
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}  # numpy: Bokeh sends it as binary


class LiveView:
    """The Bokeh side of a pane's live plots (see the module docstring).

    ``plots``: the ``LivePlot``s; ``colours``/``labels``: per group.  ``min_interval``: least seconds between
    frames.  ``panes``: one ``pn.pane.Bokeh`` per plot (by name), laid out by the pane; each gets a new figure on
    ``reset`` and only new rows after that.  ``on_build``: ``f(name, figure)`` for each figure built (a pane's
    own marks: a step marker, a best-step line)."""

    def __init__(self, plots, *, group: str = "strategy", run: str = "run", colours=None, labels=None,
                 min_interval: float = 0.0, live_points: int = LIVE_POINTS, full_points: int = FULL_POINTS,
                 run_segments: int = RUN_SEGMENTS, on_build=()):
        self.plots = {p.name: p for p in plots}
        self.group, self.run = group, run
        self.colours, self.labels = dict(colours or {}), dict(labels or {})
        self.min_interval = min_interval
        self.live_points, self.full_points, self.run_segments = live_points, full_points, run_segments
        cols = []
        for p in plots:
            cols += [c for c in (p.x, p.y) if c != "step"]
        self.columns = list(dict.fromkeys(cols))
        self.logy = {p.name: p.logy for p in plots}
        self.panes = {p.name: pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=p.height,
                                            css_classes=[f"live-{p.name}"]) for p in plots}
        self.frames: list[float] = []  # when each frame was drawn (monotonic seconds)
        #: ``f(name, figure)`` called on every figure built, before it is shown: a pane's own marks
        self.on_build: list = list(on_build)
        self.frame_costs: list[float] = []
        self.note = ""  # what a finished view left out ("" when it holds every step)
        self._last_draw = 0.0
        self._cost = 0.0
        self.data = LiveData(self.columns, group, run)
        self._figs: dict = {}
        self._src: dict = {}  # (plot, group) -> {"med", "runs", "med_tail", "runs_tail"}: ColumnDataSources
        self._sent = 0  # data steps already handed to the sources
        self._stride = 1
        self._run_stride = 1
        self._body_end = 0  # the body sources hold the kept steps below this index
        self._run_body_end = 0
        self.reset([])

    # ------------------------------------------------------------------ a run
    def reset(self, groups, data: LiveData | None = None) -> None:
        """A new run: fresh data and fresh figures (the only time the Bokeh models are built)."""
        self.data = data if data is not None else LiveData(self.columns, self.group, self.run, groups)
        for g in groups:
            self.data._group(g)
        self._sent = self._body_end = self._run_body_end = 0
        self._stride = self._run_stride = 1
        self.note = ""
        self.frames, self.frame_costs = [], []
        self._build()

    def relabel(self, name: str, **changes) -> None:
        """Change a plot's words (``title``, ``xlabel``, ``ylabel``) for the figures the next ``reset`` builds (a pane
        whose plot means another quantity for another task)."""
        from dataclasses import replace

        self.plots[name] = replace(self.plots[name], **changes)

    def add(self, rows) -> None:
        """Rows of new steps (kept; drawn by the next ``draw``)."""
        self.data.add(rows)

    def load(self, data: LiveData) -> None:
        """Show a whole (saved or finished) run at once: new figures, the finished view."""
        self.reset(list(data.groups), data)
        self.draw(final=True)

    def set_logy(self, name: str | None = None, on: bool = False) -> None:
        """Log y axis on plot ``name`` (None: every plot declared with ``runs``); rebuilds those figures."""
        for p in self.plots.values():
            if name == p.name or (name is None and p.runs):
                self.logy[p.name] = bool(on)
        final = self._finished
        self._build()
        self.draw(final=final)

    @property
    def groups(self):
        return list(self.data.groups)

    # ------------------------------------------------------------------ drawing
    def draw_due(self, now: float | None = None) -> bool:
        """New steps wait and the throttle allows a frame now."""
        now = time.monotonic() if now is None else now
        wait = max(self.min_interval, self._cost / DRAW_SHARE)
        return self._sent < len(self.data) and now - self._last_draw >= wait

    def draw(self, final: bool = False) -> None:
        """Send the browser what is new (``final``: rebuild the finished view, decimated once)."""
        t0 = time.monotonic()
        if not self._figs or any(g not in self._figs_groups for g in self.data.groups):
            self._build()
        # Panel's hold (not the Document's own): one message per frame, and safe inside Panel's ``unlocked``
        # event handling, where a bare ``doc.unhold()`` raises Bokeh's "_pending_writes should be non-None"
        with pn.io.hold():
            if final:
                self._draw_final()
            else:
                self._draw_live()
            self._limits()
        self._last_draw = time.monotonic()
        self._cost = self._last_draw - t0
        self.frames.append(self._last_draw)
        self.frame_costs.append(self._cost)

    _finished = False

    def _draw_live(self) -> None:
        self._finished = False
        n = len(self.data)
        if n == 0:
            return
        if len(range(0, n, self._stride)) > self.live_points:  # re-thin: a few times per run, never per frame
            while len(range(0, n, self._stride)) > self.live_points:
                self._stride *= 2
            self._rebody()
        runs = self._runs_count()
        while runs and len(range(0, n, self._run_stride)) * runs > self.run_segments:
            self._run_stride *= 2
            self._run_body_end = -1  # rebuilt below
        if self._run_body_end < 0:
            self._rebody(runs_only=True)
        # the body: the kept steps (multiples of the stride) that arrived since the last frame
        new = [i for i in range(self._body_end, n) if i % self._stride == 0]
        new_runs_from = self._run_body_end
        run_new = [i for i in range(new_runs_from, n) if i % self._run_stride == 0]
        for (name, g), src in self._src.items():
            p = self.plots[name]
            if new:
                src["med"].stream(self._med_rows(g, p, new))
            if p.runs and run_new:
                last = self._last_kept(new_runs_from, self._run_stride)
                src["runs"].stream(_segments(self.data, g, ([last] if last is not None else []) + run_new, p.x, p.y))
            # the tail: from the last kept step to the newest
            last_med = self._last_kept(n, self._stride)
            tail = [last_med, n - 1] if last_med is not None and last_med != n - 1 else []
            src["med_tail"].data = self._med_rows(g, p, tail)
            if p.runs:
                last_run = self._last_kept(n, self._run_stride)
                rtail = [last_run, n - 1] if last_run is not None and last_run != n - 1 else []
                src["runs_tail"].data = _segments(self.data, g, rtail, p.x, p.y)
        if new:
            self._body_end = new[-1] + 1
        if run_new:
            self._run_body_end = run_new[-1] + 1
        self._sent = n

    def _last_kept(self, end: int, stride: int) -> int | None:
        """The largest multiple of ``stride`` below ``end`` (None below 1)."""
        if end <= 0:
            return None
        return ((end - 1) // stride) * stride

    def _runs_count(self) -> int:
        """How many runs a step holds (all groups together): what the runs' segment budget is divided by."""
        total = 0
        for g in self.data.groups:
            pts = self.data.points[g]
            p = pts[-1] if pts else None
            total += len(p[0]) if p is not None else 0
        return total * sum(p.runs for p in self.plots.values())

    def _rebody(self, runs_only: bool = False) -> None:
        """Rebuild the body sources at the current strides (the kept steps so far)."""
        n = len(self.data)
        end = n - 1 if n else 0
        keep = list(range(0, end + 1, self._stride)) if n else []
        rkeep = list(range(0, end + 1, self._run_stride)) if n else []
        for (name, g), src in self._src.items():
            p = self.plots[name]
            if not runs_only:
                src["med"].data = self._med_rows(g, p, [i for i in keep if i < n])
            if p.runs:
                src["runs"].data = _segments(self.data, g, rkeep, p.x, p.y)
        if not runs_only:
            self._body_end = (keep[-1] + 1) if keep else 0
        self._run_body_end = (rkeep[-1] + 1) if rkeep else 0

    def _draw_final(self) -> None:
        """Every step up to ``full_points``, else MinMaxLTTB over every median curve (first, last, extremes
        kept); every run's line at the steps the segment budget allows (the newest always)."""
        n = len(self.data)
        curves = []
        for p in self.plots.values():
            for g in self.data.groups:
                curves += [self.data.median(g, c) for c in (p.x, p.y) if c != "step"]
        keep = decimate_many(curves, self.full_points).tolist() if n else []
        runs = self._runs_count()
        rkeep = keep
        if runs and len(keep) * runs > self.run_segments:
            stride = -(-len(keep) * runs // self.run_segments)
            rkeep = [keep[i] for i in stride_keep(len(keep), stride)]
        for (name, g), src in self._src.items():
            p = self.plots[name]
            src["med"].data = self._med_rows(g, p, keep)
            src["med_tail"].data = self._med_rows(g, p, [])
            if p.runs:
                src["runs"].data = _segments(self.data, g, rkeep, p.x, p.y)
                src["runs_tail"].data = _segments(self.data, g, [], p.x, p.y)
        self._sent = self._body_end = self._run_body_end = n
        self._finished = True
        parts = []
        if n and len(keep) < n:
            parts.append(f"curves drawn at {len(keep):,} of {n:,} steps (MinMaxLTTB: first, last and extreme "
                         f"points kept)")
        if n and len(rkeep) < len(keep):
            parts.append(f"each run's faint line at {len(rkeep):,} steps")
        self.note = "; ".join(parts)

    def _med_rows(self, g, p: LivePlot, idx) -> dict:
        steps = [self.data.steps[i] for i in idx]
        ys = self.data.med[g][p.y]
        xs = self.data.med[g][p.x] if p.x != "step" else None
        return {"x": np.asarray(steps if xs is None else [xs[i] for i in idx], dtype=float),
                "y": np.asarray([ys[i] for i in idx], dtype=float), "step": np.asarray(steps, dtype=np.int64)}

    def _limits(self) -> None:
        from bokeh.models import Range1d

        for name, fig in self._figs.items():
            p = self.plots[name]
            if p.x_limit and isinstance(fig.x_range, Range1d):
                x = self.data.largest(p.x)
                if math.isfinite(x) and x > 0:
                    fig.x_range.end = MARGIN * x
            if p.y_limit and not self.logy[name] and isinstance(fig.y_range, Range1d):
                y = self.data.largest(p.y, p.y_limit)
                if math.isfinite(y):
                    fig.y_range.end = MARGIN * y if y > 0 else 1e-12

    # ------------------------------------------------------------------ figures
    def _build(self) -> None:
        """New figures and sources for every plot: once per run (or when the log switch changes)."""
        from bokeh.models import ColumnDataSource, HoverTool, Range1d
        from bokeh.plotting import figure

        from ..plots.log_ticks import readable_log_axis

        self._figs, self._src = {}, {}
        self._figs_groups = list(self.data.groups)
        for p in self.plots.values():
            logy = self.logy[p.name]
            kw = {}
            if p.x_limit:
                kw["x_range"] = Range1d(0, 1)
            if p.y_limit and not logy:
                kw["y_range"] = Range1d(0, 1)
            fig = figure(name=f"live-{p.name}", title=p.title, height=p.height, sizing_mode="stretch_width",
                         min_width=320, x_axis_label=p.xlabel or p.x, y_axis_label=p.ylabel or p.y,
                         y_axis_type="log" if logy else "linear", tools="pan,wheel_zoom,box_zoom,reset,save",
                         output_backend="canvas", **kw)
            fig.toolbar.logo = None
            if logy:  # 1-2-5 ticks: Bokeh's own go linear (and crowd) under two decades
                readable_log_axis(fig.yaxis)
            meds = []
            for g in self.data.groups:
                colour = self.colours.get(g, "gray")
                src = {k: ColumnDataSource(data=_empty(k), name=f"live-{p.name}-{g}-{k}")
                       for k in ("med", "med_tail", "runs", "runs_tail")}
                if p.runs:
                    for k in ("runs", "runs_tail"):
                        fig.segment("x0", "y0", "x1", "y1", source=src[k], color=colour, alpha=0.25, line_width=1)
                label = self.labels.get(g, str(g))
                line_kw = dict(color=colour, line_width=3 if p.runs else 2)
                if p.legend:
                    line_kw["legend_label"] = label
                meds.append(fig.line("x", "y", source=src["med"], name=f"{g}", **line_kw))
                fig.line("x", "y", source=src["med_tail"], **{k: v for k, v in line_kw.items()
                                                                if k != "legend_label"})
                self._src[(p.name, g)] = src
            if meds:
                fig.add_tools(HoverTool(renderers=meds, tooltips=[("", "$name"), (p.xlabel or p.x, "@x{%.4g}"),
                                                                  (p.ylabel or p.y, "@y{%.4g}"), ("step", "@step")],
                                        formatters={"@x": "printf", "@y": "printf"}))
            if p.legend and meds:
                fig.legend.click_policy = "hide"
                if p.legend_above:
                    fig.legend.orientation = "horizontal"
                    fig.legend.spacing, fig.legend.padding, fig.legend.margin = 12, 2, 2
                    if len(meds) > LEGEND_ROW:  # one row would run past a half-width plot: rows of three
                        fig.legend.ncols = 3
                    fig.add_layout(fig.legend[0], "above")
                else:
                    fig.legend.location = "top_left"
                    fig.legend.background_fill_alpha = 0.6
            self._figs[p.name] = fig
            for added in self.on_build:  # the pane's own marks (e.g. a step marker), on every new figure
                added(p.name, fig)
            self.panes[p.name].object = fig
        self._sent = self._body_end = self._run_body_end = 0

    def figure(self, name: str):
        return self._figs.get(name)

    def points(self, name: str, g) -> tuple[list, list]:
        """The (x, y) of a median curve as the browser has it: body then tail (tests and the benchmark)."""
        src = self._src[(name, g)]
        xs = list(src["med"].data["x"]) + list(src["med_tail"].data["x"][1:])
        ys = list(src["med"].data["y"]) + list(src["med_tail"].data["y"][1:])
        return xs, ys


def _empty(kind: str) -> dict:
    return {"x": [], "y": [], "step": []} if kind.startswith("med") else {"x0": [], "y0": [], "x1": [], "y1": []}
