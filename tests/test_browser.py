"""Real-browser test of the dashboard: ``panel serve app.py`` + headless Chromium (Playwright).

Every wait polls for a state for up to ``browser.WAIT`` seconds (set as Playwright's default by ``chromium_page``):
a hang guard for a busy machine; no test asserts how fast anything runs."""
from __future__ import annotations

import re

import pytest

from browser import (ARTIFACTS, chromium_page, panel_server, require_chromium, screenshot_on_failure, server_errors,
                     wait_until)

pytestmark = pytest.mark.browser


def test_basis_explorer_in_chromium():
    require_chromium()
    from playwright.sync_api import expect

    with panel_server() as (url, log), chromium_page() as page:
        with screenshot_on_failure(page, "basis_explorer"):
            page.goto(url)
            info = page.locator(".basis-info")
            expect(info).to_contain_text("r = ")

            # a preset and a group size: graph layer for S(5) has r = 15 (Bell number B(4))
            page.locator(".preset-select select").select_option("DeepSets")
            expect(info).to_contain_text("r = 2 of 36")
            page.locator(".preset-select select").select_option("Graph layer")
            expect(info).to_contain_text("r = 15 of 256")  # preset default n = 4
            size = page.locator(".size-input input")
            size.fill("5")
            size.press("Tab")
            expect(info).to_contain_text("r = 15 of 625")
            expect(info).to_contain_text("S(5)")
            expect(page.locator(".basis-plot canvas").first).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "basis_explorer_graph_layer.png"), full_page=True)

            # a continuous group: the random-element view and the gallery of basis elements
            page.locator(".group-select select").select_option("SO(n)")
            size.fill("3")
            size.press("Tab")
            expect(info).to_contain_text("r = 3 of 81")
            expect(page.locator(".view-note")).to_contain_text("Continuous view")
            expect(page.locator(".basis-gallery canvas").first).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "basis_explorer_continuous.png"), full_page=True)

            # a slow solve (SO(3) T(4) -> T(5): 19 683 entries, about 2 s) runs on a worker: progress is
            # shown, the page stays usable, and a newer choice supersedes it
            page.locator(".rep-out-input input").fill("T(5)")
            page.locator(".rep-out-input input").press("Enter")
            page.locator(".rep-in-input input").fill("T(4)")
            page.locator(".rep-in-input input").press("Enter")
            expect(page.locator(".solve-status")).to_contain_text("solving")
            page.locator(".preset-select select").select_option("DeepSets")
            expect(info).to_contain_text("r = 2 of 36")
            # a negative check: give a wrongly delivered result of the superseded solve the time to show up (the
            # solve ends at its next progress report); it must not replace the newer one
            page.wait_for_timeout(4_000)
            expect(info).to_contain_text("r = 2 of 36")
            expect(page.locator(".solve-status")).to_be_hidden()
            page.locator(".preset-select select").select_option("Graph layer")
            expect(info).to_contain_text("r = 15 of 256")
            size.fill("5")
            size.press("Tab")
            expect(info).to_contain_text("r = 15 of 625")

            # a malformed rep: an inline error, the last plot kept
            rep_in = page.locator(".rep-in-input input")
            rep_in.fill("T(2")
            error = page.locator(".rep-error")
            expect(error).to_be_visible()
            expect(error).to_contain_text(re.compile(r"input rep: .*expected"))
            rep_in.press("Enter")
            expect(page.locator(".solve-error")).to_contain_text("expected")
            expect(info).to_contain_text("r = 15 of 625")
            page.screenshot(path=str(ARTIFACTS / "basis_explorer_error.png"), full_page=True)
            assert not server_errors(log), f"the server logged an exception: see {log}"


def test_training_dynamics_in_chromium(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))  # the served app saves its runs here
    with panel_server() as (url, log), chromium_page(1500, 1300) as page:
        with screenshot_on_failure(page, "training_dynamics"):
            page.goto(url)
            expect(page.locator(".basis-info")).to_contain_text("r = ")
            page.get_by_text("Training dynamics").click()
            page.locator(".dyn-experiment select").select_option("custom")
            expect(page.locator(".dyn-steps input")).to_have_value("30")  # the experiment's defaults arrived
            for cls, value in ((".dyn-runs", "3"), (".dyn-steps", "60")):
                box = page.locator(f"{cls} input")
                box.fill(value)
                box.press("Tab")
            page.locator(".dyn-start button").click()
            status = page.locator(".dyn-status")
            expect(status).to_contain_text("step")

            def step():
                text = page.locator(".dyn-status p").first.inner_text()
                return int(text.split("step ")[1].split("/")[0]) if "step " in text else -1

            first = step()
            wait_until(lambda: step() > first, f"the shown step to pass {first}", page)  # the run advances on the page
            expect(status).to_contain_text("finished")
            expect(status).to_contain_text("step 60/60")
            expect(page.locator(".dyn-drift canvas").first).to_be_visible()
            expect(page.locator(".dyn-layers")).to_contain_text("total")
            page.screenshot(path=str(ARTIFACTS / "training_dynamics.png"), full_page=True)
            assert len(list(tmp_path.iterdir())) == 1  # the finished run was saved
            assert not server_errors(log), f"the server logged an exception: see {log}"


def test_closing_the_page_stops_its_training_thread(tmp_path, monkeypatch):
    require_chromium()
    import json

    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    fast_cleanup = ("--check-unused-sessions", "500", "--unused-session-lifetime", "500")
    with panel_server(extra_args=fast_cleanup) as (url, log), chromium_page() as page:
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        page.get_by_text("Training dynamics").click()
        page.locator(".dyn-experiment select").select_option("custom")
        expect(page.locator(".dyn-steps input")).to_have_value("30")
        page.locator(".dyn-steps input").fill("100000")
        page.locator(".dyn-steps input").press("Tab")
        page.locator(".dyn-start button").click()
        expect(page.locator(".dyn-status")).to_contain_text("training")
        page.close()  # the session ends: its worker must stop and save the run as stopped
        wait_until(lambda: list(tmp_path.glob("*/config.json")), "the closed page's run to be saved")
        saved = list(tmp_path.glob("*/config.json"))
        assert len(saved) == 1, "the training thread did not stop when the page closed"
        meta = json.loads(saved[0].read_text())
        assert meta["status"] == "stopped" and meta["steps_done"] < 100000


def test_sharing_discovery_in_chromium(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    with panel_server() as (url, log), chromium_page(1500, 1300) as page:
        with screenshot_on_failure(page, "sharing_discovery"):
            page.goto(url)
            expect(page.locator(".basis-info")).to_contain_text("r = ")
            page.get_by_text("Sharing discovery").click()
            page.locator(".shr-start button").click()
            status = page.locator(".shr-status")
            expect(status).to_contain_text("partition distance")
            expect(status).to_contain_text("final partition distance 0")
            expect(page.locator(".shr-reading")).to_contain_text("partition distance 0")  # beside the pictures
            expect(page.locator(".shr-weights canvas").first).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "sharing_discovery.png"), full_page=True)
            assert len(list((tmp_path / "sharing").iterdir())) == 1
            assert not server_errors(log), f"the server logged an exception: see {log}"
