"""Sweeps pane: a sweep's results store (``lab sweep FILE``; issue 32) -- a summary number against the sweep's axes,
aggregated over the seeds, and any point's run in its family's own pane.

**Open** reads a store's index (``SweepStore.frame``: one row per point) on the pane's ``Job`` (a thread: a large
index never freezes the page; the status line says "reading" meanwhile).  The store directory is typed, or chosen
among the stores found under ``LAB_RESULTS_DIR/sweeps`` (``runs_root(env_sub="sweeps")``, newest first; the newest
is opened when the pane is built).  Then, from the index alone:

* **x**: a swept option, **y**: a summary number of the family's ``--json`` object (nested ones by dotted name,
  ``nom.dist_from_E``; ``lab.sweeps.aggregate.results``: the numbers that echo a setting of the point are not
  offered; the family's ``headline`` first, else its first result that varies, a timing never), **one line per**:
  another option (or none), and one **filter** per option (every value by default);
* the **figure** (``lab.sweeps.plots_bokeh.aggregate_figure``): per series the median over the other axes (the
  seeds) as a line with markers, the quartiles shaded, min .. max as whiskers -- computed by
  ``lab.sweeps.aggregate.aggregate``, never here; log axes on request (suggested when the values span decades);
* the **status line**: the experiment (the store's ``sweep.yaml``), the points done and failed of the sweep's size;
* the **points** the filters select (their options, status, the y value and run directory), and one point chosen
  among them: its run directory and summary's numbers, and **Open in <its family's pane>**, which builds that
  family's pane on the store's runs directory (``results=STORE/runs``) with the point's run loaded (``pane.load``)
  and shows its plots under the table -- the run in its own pane, the Sweeps tab kept as it was.  A family whose
  pane loads no run (the basis explorer) shows the path and the summary only.

A directory that is not a store (no ``sweep.yaml``), an unreadable index or a run directory outside the store's runs
is one inline message.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import panel as pn

from ..experiments import FAMILIES
from ..jobs import Job
from .plots_bokeh import aggregate_figure, categorical, spans_decades, value_text
from ..runstore import runs_root
from .aggregate import aggregate, axes, echoes, first_quantity, results, select
from .spec import SweepError
from .store import INDEX, RUNS, SPEC, SweepStore, flatten, summary_numbers, with_numbers
from ..dashboard.guard import guard, guard_settings, guarded
from ..dashboard.layout import SidebarPane, titled
from ..dashboard.runner import JobRunner

#: the group choice that draws one series
NONE = "(none)"
#: the scale toggles
LOG_X, LOG_Y = "log x", "log y"
#: how many selected points the table (and the point chooser) lists
TABLE_ROWS = 200
#: how many stores the Stores-found list offers (newest first)
STORES_LISTED = 50
#: how many of a summary's values (its numbers, nested ones too, then its top-level texts) the point's note shows
SUMMARY_SHOWN = 24



def sweeps_root(directory=None) -> Path:
    """Where ``lab sweep`` puts its stores by default: ``directory``, else ``$LAB_RESULTS_DIR/sweeps``, else the
    per-user data directory's ``sweeps``."""
    return runs_root(directory, env_sub="sweeps", user_sub="sweeps")


def list_stores(root) -> list[Path]:
    """The stores (directories with a ``sweep.yaml``) directly under ``root``, the most recently written first."""
    root = Path(root)
    if not root.is_dir():
        return []
    found = []
    for p in root.iterdir():
        try:
            if p.name.startswith(".") or not (p / SPEC).is_file():
                continue
            index = p / INDEX
            stamp = max((p / SPEC).stat().st_mtime_ns, index.stat().st_mtime_ns if index.is_dir() else 0)
        except OSError:  # removed meanwhile
            continue
        found.append((stamp, p.name, p))
    return [p for *_, p in sorted(found, reverse=True)]


def read_store(path, progress=None, control=None) -> dict:
    """Off the event loop (the pane's reading job): the store at ``path``: its root, its sweep (``SweepSpec``) and
    its index as one row per point (``SweepStore.frame``), every number of the points' summaries a column
    (``with_numbers``: an index written before nested numbers were kept plots too).  ``SweepError`` in one line
    when it is not a store."""
    store = SweepStore(path)
    if not store.exists():
        raise SweepError(f"{path} is not a sweep store (it has no {SPEC}): choose a directory that "
                         f"`lab sweep FILE --out DIR` wrote")
    spec = store.read_spec()
    if progress is not None:
        progress({"kind": "progress", "message": f"reading the index of {store.root.name}", "done": 0, "total": 1})
    try:
        frame = store.frame()
    except Exception as err:  # a damaged part: one line naming the store
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        raise SweepError(f"{store.root}: its index could not be read ({first})") from None
    if control is not None:
        control.checkpoint()
    frame = with_numbers(frame, _family_of(spec))
    return {"root": str(store.root), "spec": spec, "frame": frame}


def _family_of(spec):
    """``spec.family`` remembered per task (the one setting that picks a command's family)."""
    from ..commands import DISPATCH

    known: dict = {}

    def family_of(settings: dict):
        key = str(settings.get(DISPATCH))
        if key not in known:
            known[key] = spec.family(settings)
        return known[key]
    return family_of


def run_viewer(family) -> tuple[str, str] | None:
    """(title, ``module:Class``) of the pane that loads ``family``'s saved runs (a ``load(path)`` method), or
    None when no pane does."""
    from ..experiments.plugins import shown_in
    from ..dashboard import _load

    spec = family.pane  # its manifest's pane (msr runs are Sharing discovery's; rpp's a view inside Equivariant models)
    if not spec or not callable(getattr(_load(spec), "load", None)):
        return None
    return shown_in(family, FAMILIES), spec


def point_label(row: dict, names) -> str:
    """A point as the chooser names it: its options' values and its status."""
    values = " · ".join(f"{n} = {value_text(row.get(f'x.{n}'))}" for n in names)
    return f"{values or row.get('point')} ({row.get('status')})"


def _shown(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    text = json.dumps(v, default=str) if isinstance(v, (dict, list)) else str(v)
    return text if len(text) <= 60 else text[:59] + "…"


def summary_line(summary: dict, echoed=()) -> str:
    """A point's summary in one line: its numbers (``summary_numbers``: nested ones by dotted name, booleans as
    they are written), less those that echo a setting (``echoed``), then its top-level texts; the first
    ``SUMMARY_SHOWN``, and how many more."""
    values = dict(flatten(summary))
    items = [(k, values[k]) for k in summary_numbers(summary) if k in values and k not in echoed]
    items += [(k, v) for k, v in summary.items() if isinstance(v, str) and k not in echoed]
    more = len(items) - SUMMARY_SHOWN
    shown = " · ".join(f"{k} {_shown(v)}" for k, v in items[:SUMMARY_SHOWN])
    return shown + (f" · … {more} more" if more > 0 else "") if items else "(no number)"


class Sweeps(SidebarPane, pn.viewable.Viewer):
    """Open a sweep store, draw a summary number against its axes (aggregated over the seeds), open a point's run."""

    def __init__(self, results: str | None = None, store: str | None = None, **params):
        super().__init__(**params)
        self.root = sweeps_root(results)
        self.store: SweepStore | None = None  # the store shown
        self.spec = None  # its sweep (SweepSpec)
        self.frame = None  # its index: one row per point
        self.axes: dict = {}  # option -> its values (lab.sweeps.aggregate.axes)
        self._labels: dict = {}  # option -> {the filter's label: the value}
        self._points: dict = {}  # point id -> its index row (the table's rows)
        self.viewer = None  # the pane showing a point's run
        self._echoed: set = set()  # the summary numbers that echo a setting (not offered as y, not in a point's note)
        self._quiet = False  # the controls are being filled: no redraw per change
        self._widgets()
        self.runner = JobRunner(self._on_message, lock=[self._open_b, self._path_w, self._stores_w],
                                status=self._status, error=self._error, verb="reading", unit=None)
        guard_settings(self, self._sidebar_controls)
        self._refresh_stores()
        stores = list_stores(self.root)
        first = store or (str(stores[0]) if stores else None)
        self._path_w.value = first or str(self.root)
        if not (first and self.open(first)):  # nothing to open, or refused (said inline): an empty figure
            if not first:
                self._status.object = (f"No sweep store under `{self.root}` yet: run `lab sweep FILE` (a sweep file: "
                                       f"experiment, fixed, grid, seeds), then type its store's directory and "
                                       f"**Open**.")
            self._draw()

    # ------------------------------------------------------------------ layout
    def _widgets(self):
        self._path_w = pn.widgets.TextInput(label="Sweep store (a directory `lab sweep` wrote)",
                                            placeholder="/path/to/store", sizing_mode="stretch_width",
                                            css_classes=["swp-path"])
        self._open_b = pn.widgets.Button(label="Open", color="primary", width=80, align="end",
                                         css_classes=["swp-open"])
        self._open_b.on_click(guarded(self, "opening the store")(lambda e: self.open(self._path_w.value)))
        self._stores_w = pn.widgets.Select(label="Stores found", options={}, sizing_mode="stretch_width",
                                           css_classes=["swp-stores"])
        self._stores_w.param.watch(guarded(self, "choosing a store")(self._store_chosen), "value")
        self._x_w = pn.widgets.Select(label="x: a swept option", options=[], sizing_mode="stretch_width",
                                      css_classes=["swp-x"])
        self._y_w = pn.widgets.Select(label="y: a summary number", options=[], sizing_mode="stretch_width",
                                      css_classes=["swp-y"])
        self._group_w = pn.widgets.Select(label="One line per", options=[NONE], value=NONE,
                                          sizing_mode="stretch_width", css_classes=["swp-group"])
        self._scale_w = pn.widgets.CheckButtonGroup(options=[LOG_X, LOG_Y], value=[], css_classes=["swp-scale"])
        self._filters = pn.Column(sizing_mode="stretch_width", css_classes=["swp-filters"])
        self._x_w.param.watch(guarded(self, "choosing x")(self._x_chosen), "value")
        self._y_w.param.watch(guarded(self, "choosing y")(self._y_chosen), "value")
        self._group_w.param.watch(guarded(self, "grouping")(lambda e: self._redraw()), "value")
        self._scale_w.param.watch(guarded(self, "changing the scale")(lambda e: self._redraw()), "value")
        self._sidebar_controls = pn.Column(
            pn.Row(self._path_w, self._open_b, sizing_mode="stretch_width"), self._stores_w,
            self._x_w, self._y_w, self._group_w, titled(self._scale_w, "Scale"),
            sizing_mode="stretch_width", min_width=300)
        self._filters_title = pn.pane.Markdown("**Filters** (every value by default)", margin=(10, 10, 0, 10),
                                               visible=False)
        self._status = pn.pane.Markdown("", css_classes=["swp-status"], sizing_mode="stretch_width")
        self._error = pn.pane.Alert("", alert_type="danger", visible=False, css_classes=["swp-error"],
                                    sizing_mode="stretch_width")
        self._figure_pane = pn.pane.Bokeh(None, sizing_mode="stretch_width", min_height=420,
                                          css_classes=["swp-figure"])
        self._over_note = pn.pane.Markdown("", css_classes=["swp-over"], margin=(0, 10), styles={"font-size": "0.85em"})
        self._table_note = pn.pane.Markdown("", css_classes=["swp-table-note"], margin=(10, 10, 0, 10))
        self._table = pn.pane.DataFrame(pd.DataFrame(), index=False, sizing_mode="stretch_width", max_height=320,
                                        css_classes=["swp-table"], styles={"overflow": "auto"})
        self._point_w = pn.widgets.Select(label="A point's run", options={}, sizing_mode="stretch_width",
                                          visible=False, css_classes=["swp-point"])
        self._point_w.param.watch(guarded(self, "choosing a point")(lambda e: self._show_point()), "value")
        self._open_run_b = pn.widgets.Button(label="Open its run", width=260, align="end", visible=False,
                                             css_classes=["swp-open-run"])
        self._open_run_b.on_click(guarded(self, "opening the run")(lambda e: self.open_run(self._point_w.value)))
        self._point_note = pn.pane.Markdown("", css_classes=["swp-point-note"], sizing_mode="stretch_width",
                                            styles={"font-size": "0.9em"})
        self._run_box = pn.Column(sizing_mode="stretch_width", css_classes=["swp-run"])

    def _sidebar(self):
        return pn.Column(self._sidebar_controls, self._filters_title, self._filters, sizing_mode="stretch_width")

    def _main(self):
        return pn.Column(
            self._error, self._status, self._figure_pane, self._over_note, self._table_note, self._table,
            pn.Row(self._point_w, self._open_run_b, sizing_mode="stretch_width"), self._point_note, self._run_box,
            sizing_mode="stretch_width")

    # ------------------------------------------------------------------ opening a store
    @guard("listing the stores")
    def _refresh_stores(self) -> None:
        """The Stores-found list: the stores under the root, newest first; the open store selected when listed."""
        options = {p.name: str(p) for p in list_stores(self.root)[:STORES_LISTED]}
        current = str(self.store.root) if self.store is not None else self._stores_w.value
        chosen = current if current in options.values() else next(iter(options.values()), None)
        self._quiet_set(self._stores_w, options=options, value=chosen)
        self._stores_w.visible = bool(options)

    def _store_chosen(self, event) -> None:
        if self._quiet or not event.new:
            return
        self._path_w.value = event.new
        self.open(event.new)

    @guard("opening the store", default=False)
    def open(self, path, wait: bool | None = None) -> bool:
        """Read the store at ``path`` on the pane's job and show it; False (with an inline message) when it is not a
        store or a reading runs.  ``wait``: block until it is shown (default: outside a server)."""
        if self.runner.busy:
            return False
        text = str(path or "").strip()
        if not text:
            return self._refuse("type a sweep store's directory (`lab sweep FILE --out DIR` wrote it)")
        if not SweepStore(Path(text).expanduser()).exists():  # the store shown stays, its status line too
            return self._refuse(f"{text} is not a sweep store (it has no {SPEC}): choose a directory that "
                                f"`lab sweep FILE --out DIR` wrote")
        target = str(Path(text).expanduser())
        self._error.visible = False
        job = Job.function(lambda progress, control: read_store(target, progress, control), name="read")
        if not self.runner.start(job, verb="reading", unit=None, final_status=False):
            return False
        if wait if wait is not None else pn.state.curdoc is None or pn.state.curdoc.session_context is None:
            job.join(None)
            self.runner.poll()
            return self.store is not None and str(self.store.root) == target
        return True

    def _refuse(self, message: str) -> bool:
        """One inline message; nothing else changes."""
        self._error.object = message
        self._error.visible = True
        return False

    def _on_message(self, msg: dict) -> None:
        kind = msg.get("kind")
        if kind == "failed":
            self._status.object = "**idle** · reading the store failed"
        elif kind == "done":
            result = msg.get("result")
            if result is None:
                self._status.object = "**idle** · reading stopped"
            else:
                self._show_store(result)

    def _show_store(self, read: dict) -> None:
        """A store's index read: the controls filled from its axes and quantities, the figure and table drawn."""
        self.store, self.spec, self.frame = SweepStore(read["root"]), read["spec"], read["frame"]
        self.axes = axes(self.frame)
        options = self._options()
        numbers = results(self.frame, options)
        self._echoed = set(echoes(self.frame, options))
        self._close_run()
        x, group = default_axes(self.axes)
        y = first_quantity(self.frame, numbers, self._headline())
        self._quiet = True
        try:
            self._x_w.options = list(self.axes)
            self._x_w.value = x
            self._y_w.options = numbers
            self._y_w.value = y
            self._group_w.options = self._group_options(x)
            self._group_w.value = group or NONE
            self._scale_w.value = self._suggested_scale(x, y)
            self._build_filters()
        finally:
            self._quiet = False
        self._refresh_stores()
        self._show_status()
        self._redraw()

    def _options(self) -> set:
        """The option names of the sweep's families' configs (a summary number of that name echoes a setting)."""
        try:
            families = self.spec._families()
        except Exception:  # a family no longer installed: the points' own settings say what was set
            return set()
        return {o.name for f in families for o in f.config.declarations()}

    def _headline(self) -> str:
        """The summary number the sweep's family names its headline (``Family.headline``; "" for none)."""
        done = self.frame[self.frame["status"] == "done"] if len(self.frame) and "status" in self.frame else []
        try:
            family = self._family(done.iloc[0].to_dict()) if len(done) else self.spec.family()
        except Exception:
            return ""
        return getattr(family, "headline", "") or ""

    def _show_status(self) -> None:
        df, spec = self.frame, self.spec
        counts = df["status"].value_counts().to_dict() if len(df) and "status" in df else {}
        done, failed = int(counts.get("done", 0)), int(counts.get("failed", 0))
        size = spec.size()
        left = size - done - failed
        rest = f" · {left:,} not run yet (`lab sweep` again resumes)" if left > 0 else ""
        self._status.object = (f"**{spec.experiment}** sweep of {size:,} points: **{done:,} done**, {failed:,} failed"
                               f"{rest} · store `{self.store.root}`")

    def _group_options(self, x) -> list:
        return [NONE] + [a for a in self.axes if a != x]

    def _suggested_scale(self, x, y) -> list:
        """Log axes where the values span decades (``spans_decades``)."""
        out = []
        if x is not None and spans_decades(self.axes.get(x, [])):
            out.append(LOG_X)
        if y is not None and spans_decades(self.frame[f"s.{y}"].dropna().tolist()):
            out.append(LOG_Y)
        return out

    def _build_filters(self) -> None:
        """One multi-choice per option, every value chosen."""
        widgets, self._labels = [], {}
        for name, values in self.axes.items():
            labels = {value_text(v): v for v in values}
            self._labels[name] = labels
            w = pn.widgets.MultiChoice(label=name, options=list(labels), value=list(labels),
                                       sizing_mode="stretch_width", css_classes=["swp-filter", f"swp-filter-{name}"])
            w.param.watch(guarded(self, f"filtering {name}")(lambda e: self._redraw()), "value")
            widgets.append(w)
        self._filters.objects = widgets
        self._filters_title.visible = bool(widgets)
        guard_settings(self, self._filters)

    # ------------------------------------------------------------------ the controls
    def _x_chosen(self, event) -> None:
        if self._quiet:
            return
        self._quiet = True
        try:
            group = self._group_w.value
            self._group_w.options = self._group_options(event.new)
            self._group_w.value = group if group in self._group_w.options else NONE
            self._scale_w.value = self._suggested_scale(event.new, self._y_w.value)
        finally:
            self._quiet = False
        self._redraw()

    def _y_chosen(self, event) -> None:
        if self._quiet:
            return
        self._quiet = True
        try:
            self._scale_w.value = self._suggested_scale(self._x_w.value, event.new)
        finally:
            self._quiet = False
        self._redraw()

    def filters(self) -> dict:
        """{option: the values chosen} for the options whose filter leaves some value out."""
        out = {}
        for w in self._filters.objects:
            labels = self._labels.get(w.label, {})
            if set(w.value) != set(labels):
                out[w.label] = [labels[v] for v in w.value if v in labels]
        return out

    def set_filter(self, name: str, values) -> None:
        """Choose ``values`` of option ``name`` (scripts and tests; the browser uses the multi-choice)."""
        for w in self._filters.objects:
            if w.label == name:
                w.value = [value_text(v) for v in values]
                return
        raise SweepError(f"the sweep has no option {name!r}: its options are {', '.join(self.axes)}")

    def table(self):
        """What the figure draws: ``aggregate`` of the chosen y against x, per group, the filters applied."""
        x, y = self._x_w.value, self._y_w.value
        if self.frame is None or x is None or y is None:
            return None
        group = self._group_w.value if self._group_w.value not in (NONE, x) else None
        return aggregate(self.frame, x, y, group, self.filters())

    # ------------------------------------------------------------------ drawing
    def _redraw(self) -> None:
        if self._quiet:
            return
        with guarded(self, "drawing the sweep"):
            self._error.visible = False
            self._draw()
            self._show_points()

    def _draw(self) -> None:
        x, y = self._x_w.value, self._y_w.value
        group = self._group_w.value if self._group_w.value not in (NONE, x) else None
        if self.frame is None:
            empty = "open a sweep store"
        elif not len(self.frame):
            empty = "no point has finished yet"
        elif y is None:
            empty = "no summary number in the index (no point done)"
        else:
            empty = "no finished point matches the filters"
        table = self.table()
        self._figure_pane.object = aggregate_figure(table, x, y, group, logx=LOG_X in self._scale_w.value,
                                                    logy=LOG_Y in self._scale_w.value, empty=empty)
        over = [a for a in self.axes if a not in (x, group)]
        if table is not None and len(table):
            low, high = int(table["n"].min()), int(table["n"].max())
            count = f"{low}" if low == high else f"{low} to {high}"
            self._over_note.object = (f"Each marker: the median of {count} finished point{'s' if high > 1 else ''}"
                                      + (f", over {', '.join(over)}" if over else "") + ".")
        else:
            self._over_note.object = ""

    def _show_points(self) -> None:
        """The table of the points the filters select (every status), and the chooser of one of them."""
        if self.frame is None:
            return
        rows = select(self.frame, self.filters(), status=None)
        names = list(self.axes)
        y = self._y_w.value
        cols = [f"x.{n}" for n in names] + ["status"] + ([f"s.{y}"] if y else []) + ["run"]
        if "error" in rows and rows["error"].notna().any():
            cols.append("error")
        shown = rows.sort_values([f"x.{n}" for n in names], kind="stable") if names else rows
        shown = shown.head(TABLE_ROWS)
        table = shown[[c for c in cols if c in shown]].rename(columns=lambda c: c[2:] if c[:2] in ("x.", "s.") else c)
        self._table.object = table.astype(object).where(table.notna(), "")  # a missing value blank, not "None"
        more = f" (the first {TABLE_ROWS:,})" if len(rows) > TABLE_ROWS else ""
        self._table_note.object = f"**Points** the filters select: {len(rows):,}{more}"
        records = shown.to_dict("records")
        self._points = {r["point"]: r for r in records}
        options, seen = {}, set()
        for r in records:
            label = point_label(r, names)
            if label in seen:
                label = f"{label} {r['point']}"
            seen.add(label)
            options[label] = r["point"]
        keep = self._point_w.value
        self._point_w.options = options
        self._point_w.visible = bool(options)
        if keep in options.values():
            self._point_w.value = keep
        elif options:
            self._point_w.value = next(iter(options.values()))
        self._show_point()

    def _row(self, point) -> dict:
        row = self._points.get(point)
        if row is None:
            raise SweepError(f"no point {point!r} among the points listed")
        return row

    def run_path(self, point) -> Path | None:
        """A point's run directory: ``STORE/runs/<name>`` (anything else the index says is refused)."""
        row = self._row(point)
        run = row.get("run")
        if not isinstance(run, str) or not run:
            return None
        rel = Path(run)
        if rel.is_absolute() or len(rel.parts) != 2 or rel.parts[0] != RUNS or rel.name in ("..", "."):
            raise SweepError(f"refused the run {run!r} of point {point}: not a directory of the store's {RUNS}/")
        path = self.store.runs / rel.name
        if path.exists() and not path.resolve().is_relative_to(self.store.runs.resolve()):  # a link out of the store
            raise SweepError(f"refused the run {run!r} of point {point}: it leads out of the store's {RUNS}/")
        return path

    def _family(self, row: dict):
        try:
            settings = json.loads(row.get("settings") or "{}")
        except (TypeError, ValueError):
            settings = {}
        return self.spec.family(settings if isinstance(settings, dict) else {})

    def _show_point(self) -> None:
        """The chosen point: its run directory, its summary's top-level values, and the button opening its run."""
        point = self._point_w.value
        self._open_run_b.visible = False
        if not point or point not in self._points:
            self._point_note.object = ""
            return
        row = self._row(point)
        seconds = row.get("seconds")
        took = f" · {seconds:.1f} s" if isinstance(seconds, float) and seconds >= 0 else ""  # (NaN: not recorded)
        lines = [f"**{point_label(row, list(self.axes))}** · point `{point}`{took}"]
        if row.get("status") != "done":
            lines.append(f"error: {row.get('error') or 'unknown'}")
        try:
            path = self.run_path(point)
        except SweepError as err:  # an index naming a directory outside the store: said, never read
            path = None
            lines.append(str(err))
        if path is not None:
            lines.append(f"run: `{path}`" + ("" if path.is_dir() else " (missing)"))
        try:
            summary = json.loads(row.get("summary") or "null")
        except (TypeError, ValueError):
            summary = None
        if isinstance(summary, dict):
            lines.append("summary: " + summary_line(summary, self._echoed))
        viewer = run_viewer(self._family(row))
        if path is not None and path.is_dir():
            if viewer is not None:
                self._open_run_b.label = f"Open in {viewer[0]}"
                self._open_run_b.visible = True
            else:
                lines.append(f"(the {self._family(row).title} tab loads no saved run: its path and summary above)")
        self._point_note.object = "  \n".join(lines)

    # ------------------------------------------------------------------ a point's run in its own pane
    def _close_run(self) -> None:
        self.viewer = None
        self._run_box.objects = []

    @guard("opening the run", default=False)
    def open_run(self, point, wait: bool | None = None) -> bool:
        """Build the pane of ``point``'s family on the store's runs directory and load the point's run there (its
        own job; ``wait`` as ``load``'s); it shows under the table.  False when the family's pane loads no run."""
        row = self._row(point)
        try:
            path = self.run_path(point)
        except SweepError as err:  # the run shown and the store's status line stay
            return self._refuse(str(err))
        if path is None or not path.is_dir():
            return self._refuse(f"point {point} has no run directory in the store")
        family = self._family(row)
        viewer = run_viewer(family)
        if viewer is None:
            return self._refuse(f"the {family.title} tab loads no saved run: the point's path and summary are above")
        from ..dashboard import _load

        title, spec = viewer
        pane = _load(spec)(results=str(self.store.runs))
        listed = [str(p) for p in pane._saved.options.values()]
        if str(path) not in listed:  # beyond the runs its Saved-runs list offers (the newest): listed for this load
            pane._list_runs([path, *map(Path, listed)])
        self.viewer = pane
        close = pn.widgets.Button(label="Close", width=80, css_classes=["swp-close-run"])
        close.on_click(guarded(self, "closing the run")(lambda e: self._close_run()))
        head = pn.pane.Markdown(f"### {point_label(row, list(self.axes))} in its {title} pane  \n`{path}`",
                                sizing_mode="stretch_width", css_classes=["swp-run-title"])
        self._run_box.objects = [pn.Row(head, close, sizing_mode="stretch_width"), pane.main]
        return bool(pane.load(str(path), wait=wait))

    def _quiet_set(self, widget, **values) -> None:
        self._quiet, before = True, self._quiet
        try:
            widget.param.update(**values)
        finally:
            self._quiet = before


def default_axes(values: dict) -> tuple[str | None, str | None]:
    """The x axis and the grouping axis first shown: x the numeric option (not the seed) with the most values, else
    the first that varies; the lines one per value of the option left that varies with the fewest values."""
    varying = [a for a, v in values.items() if len(v) > 1 and a != "seed"]
    numeric = [a for a in varying if not categorical(values[a])]
    x = max(numeric, key=lambda a: len(values[a])) if numeric else (varying[0] if varying else next(iter(values),
                                                                                                       None))
    others = [a for a in varying if a != x]
    group = min(others, key=lambda a: len(values[a])) if others else None
    return x, group
