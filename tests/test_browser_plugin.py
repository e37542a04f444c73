"""A family from a package of its own (the guide's ``tinyfam``, installed by ``tests/test_plugins.py``'s helper) is a
dashboard tab that runs it in Chromium, with nothing in ``lab/`` naming it."""
from __future__ import annotations

import pytest

from browser import ARTIFACTS, WAIT, chromium_page, panel_server, require_chromium, screenshot_on_failure, server_errors

pytestmark = pytest.mark.browser


def test_a_plugins_tab_runs_its_family_in_chromium(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    from test_plugins import install_guide_package

    monkeypatch.setenv("PYTHONPATH", str(install_guide_package(tmp_path)))  # the served app finds the plugin
    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path / "results"))
    with panel_server() as (url, log), chromium_page(1280, 800) as page:
        with screenshot_on_failure(page, "plugin_tab"):
            page.goto(url)
            expect(page.locator(".basis-info")).to_contain_text("r = ", timeout=WAIT * 1000)
            tabs = page.locator(".bk-tab")
            titles = [t.strip() for t in tabs.all_inner_texts()]
            assert titles[-2:] == ["Tiny squares", "Sweeps"], titles  # its place: after the lab's own, before Sweeps
            tabs.nth(len(titles) - 2).click()
            expect(page.get_by_text("0 1 4 9", exact=True)).to_be_visible(timeout=WAIT * 1000)  # run at n = 4
            handle = page.locator(".noUi-handle")  # its own control in the sidebar: n one step up runs it again
            handle.focus()
            handle.press("ArrowRight")
            expect(page.get_by_text("0 1 4 9 16", exact=True)).to_be_visible(timeout=WAIT * 1000)
            page.screenshot(path=str(ARTIFACTS / "plugin_tab.png"))
    assert not server_errors(log), f"the server logged an exception: see {log}"
