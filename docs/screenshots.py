"""Screenshots of every dashboard tab from the real app: ``python docs/screenshots.py [--size 1280x800 ...]``.

Serves ``app.py`` with ``panel serve`` and opens it in headless Debian Chromium (Playwright, ``LAB_CHROMIUM``),
then saves ``docs/img/<tab>-<W>x<H>.png`` for each tab and viewport size.  The README's pictures are the
1280×800 ones (``python docs/readme.py`` links them).  A tab with a Start button is shown after a run with its
default settings (its first state with ``--no-run``), as a new user sees it after pressing Start.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from browser import chromium_page, panel_server, run_to_end  # noqa: E402

from lab.dashboard import PANES  # noqa: E402

OUT = ROOT / "docs" / "img"
README_SIZE = (1280, 800)
#: the css prefix of a tab's Start button and status line
RUNS = {"Training dynamics": ".dyn", "Sharing discovery": ".shr", "Equivariant models": ".eqm",
        "Equivariance meter": ".meter", "Ensembles": ".ens", "Generalization bounds": ".bnd"}


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def image_name(title: str, width: int, height: int) -> str:
    return f"{slug(title)}-{width}x{height}.png"


def shoot(sizes, out: Path = OUT, full_page: bool = False, run: bool = True, tabs=None) -> list[Path]:
    """Save each tab (``tabs``: those titles only; default every tab) at each size; returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with panel_server() as (url, _log):
        for w, h in sizes:
            with chromium_page(w, h) as page:
                page.goto(url)
                page.locator(".basis-info").wait_for()
                for title, _ in PANES:
                    if tabs and title not in tabs:
                        continue
                    page.get_by_text(title, exact=True).first.click()
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
    a = ap.parse_args(argv)
    sizes = [tuple(int(v) for v in s.split("x")) for s in (a.size or ["%dx%d" % README_SIZE])]
    unknown = [t for t in a.tab or () if t not in dict(PANES)]
    if unknown:
        ap.error(f"no tab {unknown[0]!r}: the tabs are {', '.join(t for t, _ in PANES)}")
    for p in shoot(sizes, Path(a.out), a.full_page, run=not a.no_run, tabs=a.tab):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
