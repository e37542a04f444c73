"""Every tab fits a laptop (1280×800) and a desktop (1920×1080) screen: no plot is cut by the viewport or by a
container without a usable scroll bar — in its first state and after a short run (the plots then have their
real shapes; the Sweeps tab on a store of synthetic rows).  Screenshots of each tab at both sizes go to
``test-artifacts/``."""
from __future__ import annotations

import pytest

from browser import (ARTIFACTS, chromium_page, cut_plots, panel_server, require_chromium, run_to_end,
                     screenshot_on_failure)

from lab.dashboard import PANES

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (1920, 1080)]
#: a short run per tab with a Start button: (css prefix, {setting box: value})
RUNS = {"Training dynamics": (".dyn", {".dyn-runs": "2", ".dyn-steps": "4"}),
        "Sharing discovery": (".shr", {".shr-steps": "200"}),
        "Symmetry discovery": (".disc", {".disc-samples": "200", ".disc-fit-steps": "50", ".disc-steps": "30",
                                         ".disc-restarts": "1", ".disc-loop-epochs": "5"}),
        "Equivariant models": (".eqm", {".eqm-sizes": "30,60", ".eqm-channels": "16", ".eqm-epochs": "5",
                                        ".eqm-test": "50"}),
        "Equivariance meter": (".meter", {".meter-epochs": "3", ".meter-samples": "32"}),
        "Ensembles": (".ens", {".ens-members": "4", ".ens-steps": "20", ".ens-channels": "4"}),
        "Generalization bounds": (".bnd", {".bnd-dims": "0,8", ".bnd-steps": "5", ".bnd-quant-steps": "5",
                                           ".bnd-train-points": "64"})}


def _check(page, title: str, when: str, problems: list) -> None:
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(1500)  # the layout settles
        count, cut = cut_plots(page)
        page.screenshot(path=str(ARTIFACTS / f"layout_{title.replace(' ', '_')}_{when}_{width}x{height}.png"))
        assert count > 0, f"{title} at {width}×{height}: no plot found on the page"
        problems += [f"{title} ({when}) at {width}×{height}: plot {c['box']} cut {', '.join(c['cuts'])}"
                     for c in cut]


def test_every_tab_fits_both_screens(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    from test_browser_sweeps import make_store

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))  # the runs are saved here; the Sweeps tab opens this store
    make_store(tmp_path / "sweeps" / "emlp-sizes")
    problems: list[str] = []
    with panel_server() as (url, _log), chromium_page(*SIZES[0]) as page, screenshot_on_failure(page, "layout"):
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        for title, _ in PANES:
            page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
            page.get_by_text(title, exact=True).first.click()
            page.wait_for_timeout(1500)  # the tab's plots render
            _check(page, title, "first", problems)
            if title in RUNS:
                run_to_end(page, *RUNS[title])
                _check(page, title, "run", problems)
    assert not problems, "\n".join(problems)
