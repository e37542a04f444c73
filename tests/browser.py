"""Helpers for real-browser tests: a ``panel serve`` subprocess and headless Debian Chromium via Playwright.

Every wait polls for a state for up to ``WAIT`` seconds (Playwright's ``expect`` and actions included, see
``chromium_page``): a hang guard for a busy machine, never a speed requirement.
"""
from __future__ import annotations

import os
import re
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
WAIT = 300.0  # seconds: how long any wait for a state may take before the test fails (a hang guard)
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
def panel_server(app: str = "app.py", timeout: float = WAIT, extra_args: tuple[str, ...] = ()):
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
                    with urllib.request.urlopen(url, timeout=30) as r:
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
def served(command: list, url: str, cwd=None, env=None, timeout: float = WAIT):
    """Start ``command`` (a server: ``lab dashboard ...``), wait until ``url`` answers; yields (the process, the
    page's text).  On exit the server gets Ctrl-C (SIGINT) and is waited for: its ``returncode`` is then set and its
    stderr is ``proc.err``."""
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.err = ""
    try:
        page, deadline = None, time.monotonic() + timeout
        while page is None:
            assert proc.poll() is None, proc.stderr.read()[-2000:]
            try:
                with urllib.request.urlopen(url, timeout=30) as r:
                    page = r.read().decode()
            except OSError:
                assert time.monotonic() < deadline, f"{url} did not answer in {timeout:.0f} s"  # a hang guard
                time.sleep(0.5)
        yield proc, page
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            _, proc.err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, proc.err = proc.communicate()


@contextmanager
def chromium_page(width: int = 1400, height: int = 1000):
    """A Playwright page in headless Debian Chromium, closed on exit, pass or fail.  Its actions and every
    ``expect(...)`` assertion wait up to ``WAIT`` seconds for their state unless given a ``timeout``."""
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT * 1000)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=WAIT * 1000)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            page.set_default_timeout(WAIT * 1000)
            page.set_default_navigation_timeout(WAIT * 1000)
            yield page
        finally:
            browser.close()


def wait_until(condition, what: str, page=None, timeout: float = WAIT) -> None:
    """Poll ``condition()`` until it is true; fail after ``timeout`` seconds (a hang guard) saying ``what``
    was awaited.  With a ``page`` the pause between polls lets Playwright process events."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}")
        if page is not None:
            page.wait_for_timeout(250)
        else:
            time.sleep(0.25)


_ENTRY = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", re.M)  # a log line of panel serve starts with its time
#: the last line of a traceback that only says tornado could not write to a websocket the browser had closed:
#: a closed page can leave one behind when the server is slow to notice (a busy machine); not an app error
_CLOSED_SOCKET = ("tornado.websocket.WebSocketClosedError", "tornado.iostream.StreamClosedError")


_SHUTDOWN = re.compile(r"Received signal \w+, shutting down$")

#: Bokeh's race when a page closes: a message the page sent just before closing is handled after its
#: websocket's close has detached the session (``ServerConnection.session`` asserts it is attached).  It
#: names Bokeh's connection code, not the app's; a closed page can leave one behind on a busy machine.
_DETACHED = "assert self._session is not None"


def server_errors(log: Path) -> list[str]:
    """The log entries of ``panel serve`` that hold a traceback, less a closed page's races in tornado and Bokeh
    (a write to a closed websocket, a message handled after its session was detached)."""
    text = log.read_text()
    starts = [m.start() for m in _ENTRY.finditer(text)]
    entries = [text[a:b] for a, b in zip([0, *starts], [*starts, len(text)])]
    def last_line(entry: str) -> str:
        # the server's own shutdown line has no timestamp, so it ends whatever entry came before it
        lines = [ln for ln in entry.rstrip().splitlines() if not _SHUTDOWN.match(ln.strip())]
        return lines[-1].strip() if lines else ""

    def benign(entry: str) -> bool:
        last = last_line(entry)
        return last.startswith(_CLOSED_SOCKET) or (last == "AssertionError" and _DETACHED in entry
                                                   and "bokeh/server/connection.py" in entry)

    return [e for e in entries if "Traceback" in e and not benign(e)]


def run_to_end(page, prefix: str, settings: dict | None = None, timeout: float = WAIT) -> str:
    """Fill a job pane's setting boxes (``{css class: value}``), press its Start (``{prefix}-start``) and wait
    until the run has ended: its status line (``{prefix}-status``) says done / stopped / failed and Start is
    enabled again.  Returns the status line's first paragraph."""
    from playwright.sync_api import expect

    for box, value in (settings or {}).items():
        page.locator(f"{box} input").fill(value)
        page.locator(f"{box} input").press("Tab")
    page.locator(f"{prefix}-start button").click()
    status = page.locator(f"{prefix}-status")
    expect(status).to_contain_text(re.compile(r"^\s*(done|stopped|failed)\b"), timeout=timeout * 1000)
    expect(page.locator(f"{prefix}-start button")).to_be_enabled(timeout=timeout * 1000)
    return page.locator(f"{prefix}-status p").first.inner_text()  # the text lives in the shadow DOM


@contextmanager
def screenshot_on_failure(page, name: str):
    """Save ``test-artifacts/<name>_failure.png`` if the block raises, then re-raise the block's own error (a page
    the test closed, or a browser gone, gets no screenshot rather than an error that hides the real one)."""
    try:
        yield
    except Exception:
        if not page.is_closed():
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            try:
                page.screenshot(path=str(ARTIFACTS / f"{name}_failure.png"), full_page=True)
            except Exception:  # noqa: BLE001 -- the screenshot is a courtesy: the block's error is what matters
                pass
        raise


#: for every visible plot canvas on the page: its box, and which edge is cut (by the viewport's width, by an
#: ancestor that hides overflow, or beyond a scroll container's scrollable area) without a usable scroll container
#: between them; shadow roots are crossed
_CUT_PLOTS_JS = """
() => {
  const all = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName === 'CANVAS') all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  const scrolls = (v) => v === 'auto' || v === 'scroll';
  const hides = (v) => v === 'hidden' || v === 'clip';
  const out = [];
  for (const el of all) {
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    let scrollX = false, scrollY = false, node = el;
    const cuts = [];
    while (true) {
      node = node.parentNode;
      if (node instanceof ShadowRoot) node = node.host;
      if (!(node instanceof Element)) break;
      const cs = getComputedStyle(node);
      if (cs.display === 'none') break;
      const a = node.getBoundingClientRect();
      if (!scrollX && hides(cs.overflowX) && (r.left < a.left - 1 || r.right > a.right + 1))
        cuts.push('x by ' + (node.className || node.tagName));
      if (!scrollY && hides(cs.overflowY) && (r.top < a.top - 1 || r.bottom > a.bottom + 1))
        cuts.push('y by ' + (node.className || node.tagName));
      // a scroll container shows the plot only if its scrollable area reaches the plot's far edge
      // a horizontal scroll bar counts only where the user can see it: on a box no taller than the window
      // (a page-high card's bar sits below the fold, which is how "no way to scroll" happens)
      if (!scrollX && scrolls(cs.overflowX) && node.scrollWidth > node.clientWidth + 1
          && a.height > window.innerHeight) continue;
      if (!scrollX && scrolls(cs.overflowX)) {
        if (r.right - a.left + node.scrollLeft > node.scrollWidth + 1)
          cuts.push('x beyond the scroll area of ' + (node.className || node.tagName));
        scrollX = true;
      }
      if (!scrollY && scrolls(cs.overflowY)) {
        if (r.bottom - a.top + node.scrollTop > node.scrollHeight + 1)
          cuts.push('y beyond the scroll area of ' + (node.className || node.tagName));
        scrollY = true;
      }
    }
    if (!scrollX && (r.left < -1 || r.right > window.innerWidth + 1)) cuts.push('x by the viewport');
    if (cuts.length) out.push({box: [r.left, r.top, r.width, r.height].map(Math.round), cuts});
  }
  return {count: all.length, cut: out};
}
"""


def cut_plots(page) -> tuple[int, list[dict]]:
    """(how many plot canvases the page has, those cut without a scroll container: box and what cuts it)."""
    found = page.evaluate(_CUT_PLOTS_JS)
    return found["count"], found["cut"]
