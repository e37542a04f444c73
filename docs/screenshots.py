"""Screenshots of every dashboard tab from the real app: ``python docs/screenshots.py [--size 1280x800 ...]``.

Serves ``app.py`` with ``panel serve`` and opens it in headless Debian Chromium (Playwright, ``LAB_CHROMIUM``),
then saves ``docs/img/<tab>-<W>x<H>.png`` for each tab and viewport size.  The README's pictures are the
1280×800 ones.  A tab is shown in its first state plus, where it has one, a short run (``--run``).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from browser import chromium_page, panel_server  # noqa: E402

from lab.dashboard import PANES  # noqa: E402

OUT = ROOT / "docs" / "img"


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


def shoot(sizes, out: Path = OUT, full_page: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with panel_server() as (url, _log):
        for w, h in sizes:
            with chromium_page(w, h) as page:
                page.goto(url)
                page.locator(".basis-info").wait_for()
                for title, _ in PANES:
                    page.get_by_text(title, exact=True).first.click()
                    page.wait_for_timeout(3000)
                    path = out / f"{slug(title)}-{w}x{h}.png"
                    page.screenshot(path=str(path), full_page=full_page)
                    saved.append(path)
    return saved


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", action="append", default=None, help="viewport WxH (repeatable; default 1280x800)")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--full-page", action="store_true")
    a = ap.parse_args(argv)
    sizes = [tuple(int(v) for v in s.split("x")) for s in (a.size or ["1280x800"])]
    for p in shoot(sizes, Path(a.out), a.full_page):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
