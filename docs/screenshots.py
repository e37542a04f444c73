"""Screenshots of every dashboard tab from the real app: ``python docs/screenshots.py [--size 1280x800 ...]``.

Serves ``app.py`` with ``panel serve`` and opens it in headless Debian Chromium (Playwright, ``LAB_CHROMIUM``),
then saves ``docs/img/<tab>-<W>x<H>.png`` for each tab and viewport size.  The README's pictures are the
1280×800 ones (``python docs/readme.py`` links them).  A tab with a Start button is shown after a run with its
default settings (its first state with ``--no-run``), as a new user sees it after pressing Start.

The app runs on a fresh temporary results directory (``LAB_RESULTS_DIR``; ``--results DIR`` keeps one), where
``lab sweep`` first runs the tiny sweep ``SWEEP`` (a few minutes at most) for the Sweeps tab to show; the other tabs'
runs are saved there too, so no picture depends on the runs a user saved before.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser import chromium_page, panel_server, run_to_end  # noqa: E402

from lab.dashboard import PANES  # noqa: E402

OUT = ROOT / "docs" / "img"
README_SIZE = (1280, 800)
from lab.experiments import FAMILIES  # noqa: E402

#: the css prefix of a tab's Start button and status line (the families' manifests: ``Family.run_css``)
RUNS = {f.title: f.run_css for f in FAMILIES.values() if f.run_css and f.tab is not None}
#: the tab that shows a sweep store, and the sweep it shows: the compression bounds of the CNN and the C4 GCNN on
#: rotated digits at three widths, two seeds each (12 short points, about 30 s on a local Dask cluster of 2-core
#: machine), into ``LAB_RESULTS_DIR/sweeps/<STORE>``
SWEEPS_TAB, STORE = "Sweeps", "bounds-widths"
SWEEP = """experiment: bounds
fixed: {data: rotated-digits, dims: "50,200", steps: 250, quant_steps: 60}
grid:
  model: [cnn, gcnn]
  width: [4, 8, 16]
seeds: 2
"""


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def image_name(title: str, width: int, height: int) -> str:
    return f"{slug(title)}-{width}x{height}.png"


def make_sweep(results: Path) -> Path:
    """Run ``SWEEP`` with ``lab sweep`` into ``results/sweeps/STORE`` (resumed, so nothing reruns if it is there);
    returns the store."""
    store = results / "sweeps" / STORE
    sweep = results / f"{STORE}.yaml"
    sweep.parent.mkdir(parents=True, exist_ok=True)
    sweep.write_text(SWEEP)
    subprocess.run([sys.executable, "-m", "lab", "sweep", str(sweep), "--out", str(store), "--json"], cwd=ROOT,
                   check=True, env={**os.environ, "LAB_RESULTS_DIR": str(results)})
    return store


@contextmanager
def results_dir(keep: str | None, sweep: bool):
    """``LAB_RESULTS_DIR`` for the served app: ``keep``, else a temporary directory removed afterwards; with
    ``sweep``, holding the store the Sweeps tab shows."""
    before = os.environ.get("LAB_RESULTS_DIR")
    with tempfile.TemporaryDirectory(prefix="lab-screenshots-") as tmp:
        results = Path(keep) if keep else Path(tmp)
        if sweep:
            make_sweep(results)
        os.environ["LAB_RESULTS_DIR"] = str(results)
        try:
            yield results
        finally:
            if before is None:
                os.environ.pop("LAB_RESULTS_DIR", None)
            else:
                os.environ["LAB_RESULTS_DIR"] = before


def shoot(sizes, out: Path = OUT, full_page: bool = False, run: bool = True, tabs=None,
          results: str | None = None) -> list[Path]:
    """Save each tab (``tabs``: those titles only; default every tab) at each size; returns the files.
    ``results``: the app's results directory (default: a temporary one)."""
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with results_dir(results, sweep=not tabs or SWEEPS_TAB in tabs), panel_server() as (url, _log):
        for w, h in sizes:
            with chromium_page(w, h) as page:
                page.goto(url)
                page.locator(".basis-info").wait_for()
                for title, _ in PANES:
                    if tabs and title not in tabs:
                        continue
                    page.get_by_text(title, exact=True).first.click()
                    if title == SWEEPS_TAB:  # the store is read on the pane's job: its plot once it is drawn
                        page.locator(".swp-figure canvas").first.wait_for()
                    page.wait_for_timeout(3000)
                    if run and title in RUNS:
                        status = run_to_end(page, RUNS[title], timeout=600)
                        print(f"{title}: {status.splitlines()[0]}", file=sys.stderr)
                        page.wait_for_timeout(1500)  # the last frame is drawn
                    path = out / image_name(title, w, h)
                    page.screenshot(path=str(path), full_page=full_page)
                    saved.append(path)
    return saved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", action="append", default=None, help="viewport WxH (repeatable; default 1280x800)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--full-page", action="store_true")
    ap.add_argument("--no-run", action="store_true", help="each tab in its first state (no run)")
    ap.add_argument("--tab", action="append", default=None, help="only this tab (its title; repeatable)")
    ap.add_argument("--results", default=None, metavar="DIR",
                    help="the app's results directory (kept; default: a temporary one, removed afterwards)")
    a = ap.parse_args(argv)
    sizes = [tuple(int(v) for v in s.split("x")) for s in (a.size or ["%dx%d" % README_SIZE])]
    unknown = [t for t in a.tab or () if t not in dict(PANES)]
    if unknown:
        ap.error(f"no tab {unknown[0]!r}: the tabs are {', '.join(t for t, _ in PANES)}")
    for p in shoot(sizes, Path(a.out), a.full_page, run=not a.no_run, tabs=a.tab, results=a.results):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
