"""Helpers for real-browser tests: a ``panel serve`` subprocess and headless Debian Chromium via Playwright."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("LAB_TEST_ARTIFACTS", ROOT / "test-artifacts"))
CHROMIUM = os.environ.get("LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def require_chromium() -> None:
    """Skip without Chromium on a developer machine; in CI (CI=true) a missing browser is a failure."""
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return
    message = f"Chromium not found at {CHROMIUM} (Debian: apt-get install chromium)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def panel_server(app: str = "app.py", timeout: float = 90.0, extra_args: tuple[str, ...] = ()):
    """``panel serve app`` on a free local port; yields (app URL, server log path); the server dies on exit,
    pass or fail."""
    port = free_port()
    log = ARTIFACTS / f"panel-serve-{port}.log"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", app, "--port", str(port), "--address", "127.0.0.1",
             f"--allow-websocket-origin=127.0.0.1:{port}", *extra_args],
            cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}/{Path(app).stem}"
        try:
            deadline = time.monotonic() + timeout
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"panel serve exited with {proc.returncode}; see {log}")
                try:
                    with urllib.request.urlopen(url, timeout=5) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"panel serve did not answer within {timeout} s; see {log}")
                time.sleep(0.5)
            yield url, log
        finally:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


@contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    """A Playwright page in headless Debian Chromium, closed on exit, pass or fail."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser.new_page(viewport={"width": width, "height": height})
        finally:
            browser.close()


@contextmanager
def screenshot_on_failure(page, name: str):
    """Save ``test-artifacts/<name>_failure.png`` if the block raises, then re-raise."""
    try:
        yield
    except Exception:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{name}_failure.png"), full_page=True)
        raise
