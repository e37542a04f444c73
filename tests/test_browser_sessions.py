"""Two browser sessions training at once (``panel serve app.py`` + headless Chromium): each sees only its own
run, closing one page stops only its worker, and Load and the settings are disabled while a run goes on.

Every wait polls for a state with a generous limit (the machine may be busy); nothing asserts a speed."""
from __future__ import annotations

import json
import re

import pytest

from browser import (WAIT, chromium_page, panel_server, require_chromium, screenshot_on_failure, server_errors,
                     wait_until)

pytestmark = pytest.mark.browser

LIMIT_MS = int(WAIT * 1000)


def _saved(root):
    """Saved runs' config files, never a run still being written (a ``.``-named temporary directory: its
    ``config.json`` may be empty for a moment before the directory is renamed into place)."""
    return [p for p in root.glob("*/config.json") if not p.parent.name.startswith(".")]


def _open_training(page, url, runs: int):
    """Open the Training dynamics tab of a fresh session and start a long custom run with ``runs`` runs."""
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.locator(".basis-info")).to_contain_text("r = ", timeout=LIMIT_MS)
    page.get_by_text("Training dynamics").click()
    page.locator(".dyn-experiment select").select_option("custom")
    expect(page.locator(".dyn-steps input")).to_have_value("30", timeout=LIMIT_MS)  # the experiment's defaults
    for cls, value in ((".dyn-runs", str(runs)), (".dyn-steps", "100000")):
        box = page.locator(f"{cls} input")
        box.fill(value)
        box.press("Tab")
    expect(page.locator(".dyn-steps input")).to_have_value("100000")
    page.locator(".dyn-start button").click()


def _step(page) -> int:
    text = page.locator(".dyn-status p").first.inner_text()  # the text lives in the shadow DOM
    m = re.search(r"step (\d+)/", text)
    return int(m.group(1)) if m else -1


def test_two_sessions_train_at_once_and_closing_one_stops_only_its_worker(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))  # the served app saves its runs here
    fast_cleanup = ("--check-unused-sessions", "500", "--unused-session-lifetime", "500")
    with panel_server(extra_args=fast_cleanup) as (url, log), chromium_page(1500, 1300) as one:
        two = one.context.browser.new_page(viewport={"width": 1500, "height": 1300})
        with screenshot_on_failure(one, "sessions_one"), screenshot_on_failure(two, "sessions_two"):
            _open_training(one, url, runs=1)
            _open_training(two, url, runs=3)
            for page, runs in ((one, 1), (two, 3)):
                status = page.locator(".dyn-status")
                # each session shows its own run: its own number of runs, its own steps
                expect(status).to_contain_text(f"training {runs} run{'s' * (runs != 1)} ×", timeout=LIMIT_MS)
                expect(page.locator(".dyn-load button")).to_be_disabled()  # no Load while a run goes on
                expect(page.locator(".dyn-runs input")).to_be_disabled()
                expect(page.locator(".dyn-experiment select")).to_be_disabled()
                expect(page.locator(".dyn-start button")).to_be_disabled()
            expect(one.locator(".dyn-status")).not_to_contain_text("training 3 runs ×")
            expect(two.locator(".dyn-status")).not_to_contain_text("training 1 run ×")
            wait_until(lambda: _step(one) >= 1 and _step(two) >= 1, "both sessions to train", one)

            two.close()  # its session ends: its worker stops and saves its run as stopped
            wait_until(lambda: len(list(_saved(tmp_path))) >= 1, "the closed session's run", one)
            saved = [json.loads(p.read_text()) for p in _saved(tmp_path)]
            assert len(saved) == 1, "closing one page must stop only its own worker"
            assert saved[0]["status"] == "stopped" and saved[0]["config"]["runs"] == 3

            before = _step(one)  # the other session keeps training
            wait_until(lambda: _step(one) > before, "the open session to keep training", one)
            expect(one.locator(".dyn-status")).to_contain_text("training")
            assert len(list(_saved(tmp_path))) == 1

            one.locator(".dyn-stop button").click()
            expect(one.locator(".dyn-status")).to_contain_text("stopped", timeout=LIMIT_MS)
            expect(one.locator(".dyn-load button")).to_be_enabled(timeout=LIMIT_MS)
            expect(one.locator(".dyn-runs input")).to_be_enabled()
            wait_until(lambda: len(list(_saved(tmp_path))) == 2, "the second run saved", one)
            runs = sorted(json.loads(p.read_text())["config"]["runs"] for p in _saved(tmp_path))
            assert runs == [1, 3]
        assert not server_errors(log), f"the server logged an exception: see {log}"
