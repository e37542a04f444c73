"""Every tab fits a laptop (1280×800) and a desktop (1920×1080) screen: no plot is cut by the viewport or by a
container without a scroll bar.  Screenshots of each tab at both sizes go to ``test-artifacts/``."""
from __future__ import annotations

import pytest

from browser import ARTIFACTS, chromium_page, cut_plots, panel_server, require_chromium, screenshot_on_failure

from lab.dashboard import PANES

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (1920, 1080)]


def test_every_tab_fits_both_screens():
    require_chromium()
    from playwright.sync_api import expect

    problems = []
    with panel_server() as (url, _log):
        for width, height in SIZES:
            with chromium_page(width, height) as page, screenshot_on_failure(page, f"layout_{width}"):
                page.goto(url)
                expect(page.locator(".basis-info")).to_contain_text("r = ")
                for title, _ in PANES:
                    page.get_by_text(title, exact=True).first.click()
                    page.wait_for_timeout(1500)  # the tab's plots render
                    count, cut = cut_plots(page)
                    page.screenshot(path=str(ARTIFACTS / f"layout_{title.replace(' ', '_')}_{width}x{height}.png"))
                    assert count > 0, f"{title} at {width}×{height}: no plot found on the page"
                    problems += [f"{title} at {width}×{height}: plot {c['box']} cut {', '.join(c['cuts'])}"
                                 for c in cut]
    assert not problems, "\n".join(problems)
