"""A shared server under load (``panel serve app.py`` + headless Chromium): session A asks for the largest basis
the limits accept, then for one over them; session B meanwhile gets its basis drawn; A's Stop ends A's worker.

The server runs with ``LAB_MAX_REP_SIZE=6561``, so A's layer T(4) -> T(4) of SO(3) (6 561 entries, forced onto
the dense solver: minutes of SVDs) is exactly the largest request accepted and T(4) -> T(5) is over the limit.
Every wait polls for a state with a generous limit (the machine may be busy); nothing asserts a speed.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from browser import WAIT, chromium_page, panel_server, require_chromium, screenshot_on_failure, server_errors, wait_until

pytestmark = pytest.mark.browser

LIMIT_MS = int(WAIT * 1000)


def _cmdline(pid: str) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _parent(pid: str) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[1]


def _solve_workers(port: int) -> list[str]:
    """Pids of the worker processes (multiprocessing spawn children) of the ``panel serve`` on ``port``."""
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    servers = {p for p in pids if "panel serve" in _cmdline(p).replace("-m panel", "panel") and f"--port {port} "
               in _cmdline(p) + " "}
    return [p for p in pids if _parent(p) in servers and "spawn_main" in _cmdline(p)]


def _commit(page, css: str, value: str) -> None:
    box = page.locator(f"{css} input")
    box.fill(value)
    box.press("Enter")


def test_a_large_request_does_not_block_another_session_and_stop_ends_it(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_MAX_REP_SIZE", "6561")
    monkeypatch.setenv("LAB_CACHE_DIR", str(tmp_path / "cache"))  # nothing solved before may answer from cache
    with panel_server() as (url, log), chromium_page(1280, 800) as a:
        port = int(url.split(":")[2].split("/")[0])
        b = a.context.browser.new_page(viewport={"width": 1280, "height": 800})
        with screenshot_on_failure(a, "limits_session_a"), screenshot_on_failure(b, "limits_session_b"):
            a.goto(url)
            info_a = a.locator(".basis-info")
            expect(info_a).to_contain_text("r = ", timeout=LIMIT_MS)
            a.locator(".group-select select").select_option("SO(n)")
            _commit(a, ".size-input", "3")
            expect(info_a).to_contain_text("r = 3 of 81", timeout=LIMIT_MS)  # SO(3): T(2) -> T(2)
            # the size box is bounded by the limits: SO(n) builds n(n-1)/2 Lie-algebra matrices
            assert int(a.locator(".size-input input").get_attribute("max") or 0) < 1000

            # the largest request the limits accept, on a worker process
            a.locator(".solver-select select").select_option("dense")
            _commit(a, ".rep-in-input", "T(4)")
            _commit(a, ".rep-out-input", "T(4)")
            status_a = a.locator(".solve-status")
            # the title ("… (6,561 entries) in a worker process") gives way to the solver's progress messages
            # ("solving block T(4,4) (6561 entries) with dense") within moments: either form counts
            expect(status_a).to_contain_text(re.compile(r"6,?561 entries"), timeout=LIMIT_MS)
            wait_until(lambda: len(_solve_workers(port)) >= 1, "A's worker process", a)

            # a request over the limits: refused inline at once, the accepted one keeps running
            _commit(a, ".rep-out-input", "T(5)")
            error_a = a.locator(".solve-error")
            expect(error_a).to_contain_text("over the limit", timeout=LIMIT_MS)
            expect(error_a).to_contain_text("rep_size")
            expect(status_a).to_be_visible()

            # session B is served while A's job runs: its basis is drawn
            b.goto(url)
            expect(b.locator(".basis-info")).to_contain_text("r = 15 of 256", timeout=LIMIT_MS)
            expect(b.locator(".basis-plot canvas").first).to_be_visible()
            expect(status_a).to_contain_text(re.compile(r"6,?561 entries"))  # A's solve is still going on
            expect(a.locator(".solve-stop button")).to_be_visible()
            assert _solve_workers(port), "A's worker ended before B was drawn: the request was not large enough"
            a.screenshot(path=str(Path(log).parent / "limits_session_a.png"))

            # A's Stop ends A's work: the worker process is gone, the indicators are reset
            a.locator(".solve-stop button").click()
            expect(status_a).to_be_hidden(timeout=LIMIT_MS)
            expect(error_a).to_contain_text("stopped")
            wait_until(lambda: not _solve_workers(port), "A's worker process to end", a, timeout=60)
            expect(info_a).to_contain_text("r = 3 of 81")  # the last basis that solved is kept
        assert not server_errors(log), f"the server logged an exception: see {log}"
