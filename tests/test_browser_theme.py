"""The page's look on a machine without internet, and toggles whose state shows (issue 26, item 6).

One server, two pages (light and dark, loading side by side):

* every request the page makes — loading, then opening each tab — goes to the lab's own server (``data:`` and
  ``blob:`` URLs aside): no font service, no CDN;
* in every button group of the Training dynamics controls (Scale, Strategies, Run in) an on button's background
  and an off one's differ by a WCAG contrast ratio of at least 3:1 (WCAG 2.1's 1.4.11 "non-text contrast": what
  shows a control's state needs 3:1 against what it sits beside; before the fix they differed by 5/255 of grey,
  a ratio of about 1.05), in the light and the dark theme;
* the page's text is in the system font stack (``SYSTEM_FONTS``), not a web font.

Screenshots at 1280×800 go to ``test-artifacts/theme_<light|dark>.png``.
"""
from __future__ import annotations

import re
from urllib.parse import urlparse

import pytest

from browser import (ARTIFACTS, WAIT, chromium_page, panel_server, require_chromium, screenshot_on_failure,
                     server_errors, wait_until)

from lab.dashboard import PANES
from lab.dashboard.theme import SYSTEM_FONTS

pytestmark = pytest.mark.browser

MIN_CONTRAST = 3.0
DYNAMICS = "Training dynamics"
#: what shows that a tab has opened (the job panes' Start button: the names ``run_to_end`` uses)
READY = {"Basis explorer": ".basis-info", "Training dynamics": ".dyn-start button",
         "Sharing discovery": ".shr-start button", "Symmetry discovery": ".disc-start button",
         "Equivariant models": ".eqm-start button",
         "Equivariance meter": ".meter-start button", "Ensembles": ".ens-start button",
         "Generalization bounds": ".bnd-start button", "Sweeps": ".swp-open button"}

#: every button group on the page (shadow roots crossed) with both on and off buttons: its buttons' labels,
#: states and computed background colours, and a button's font family
_GROUPS_JS = """
() => {
  const out = [];
  const walk = (root) => {
    for (const group of root.querySelectorAll('.bk-btn-group')) {
      const buttons = [...group.querySelectorAll('.bk-btn')];
      const on = buttons.filter(b => b.classList.contains('bk-active'));
      if (buttons.length < 2 || !on.length || on.length === buttons.length) continue;
      if (!group.getBoundingClientRect().width) continue;  // a hidden tab's controls
      out.push(buttons.map(b => ({label: b.innerText.trim(), on: b.classList.contains('bk-active'),
                                  background: getComputedStyle(b).backgroundColor,
                                  font: getComputedStyle(b).fontFamily})));
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return out;
}
"""


def _rgb(css: str) -> tuple[float, float, float]:
    """``rgb(r, g, b)`` / ``rgba(r, g, b, 1)`` as three 0..255 numbers; a see-through colour is an error (its
    contrast depends on what lies beneath)."""
    parts = [float(x) for x in re.findall(r"[\d.]+", css)]
    assert len(parts) in (3, 4) and (len(parts) == 3 or parts[3] == 1), f"not an opaque colour: {css}"
    return parts[0], parts[1], parts[2]


def luminance(css: str) -> float:
    """WCAG 2.1 relative luminance of a CSS ``rgb()`` colour."""
    lin = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in _rgb(css)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2.1 contrast ratio of two colours, 1 (equal) to 21 (black on white)."""
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_formula():
    assert contrast("rgb(0, 0, 0)", "rgb(255, 255, 255)") == pytest.approx(21)
    assert contrast("rgb(242, 242, 242)", "rgb(237, 237, 237)") < 1.1  # Fast's on / off greys: the bug


def _toggle_problems(page, theme: str) -> tuple[list[str], list[str]]:
    """(problems, a line per group) for the mixed on / off button groups now on screen."""
    groups: list = []

    def found():
        groups[:] = page.evaluate(_GROUPS_JS)
        return len(groups) >= 2  # Scale and Run in at least (Strategies too, unless all or none are chosen)

    wait_until(found, f"two button groups with on and off buttons ({theme})", page)
    problems, report = [], []
    for buttons in groups:
        on = [b for b in buttons if b["on"]]
        off = [b for b in buttons if not b["on"]]
        worst = min(contrast(a["background"], b["background"]) for a in on for b in off)
        labels = "/".join(b["label"] for b in buttons)
        report.append(f"{theme} {labels}: on {on[0]['background']}, off {off[0]['background']}, {worst:.2f}:1")
        if worst < MIN_CONTRAST:
            problems.append(f"{theme}: group {labels}: on and off backgrounds differ by {worst:.2f}:1 "
                            f"(< {MIN_CONTRAST}:1)")
        fonts = {b["font"] for b in buttons}
        if fonts != {SYSTEM_FONTS}:
            problems.append(f"{theme}: group {labels} is not in the system fonts: {fonts}")
    return problems, report


def test_no_external_requests_and_visible_toggles():
    require_chromium()
    from playwright.sync_api import expect

    requests: list[str] = []
    problems: list[str] = []
    report: list[str] = []
    with panel_server() as (url, log), chromium_page(1280, 800) as light, screenshot_on_failure(light, "theme"):
        # the dark page loads beside the light one (the server builds both sessions at once)
        dark = light.context.browser.new_page(viewport=light.viewport_size)
        dark.set_default_timeout(WAIT * 1000)
        for page in (light, dark):
            page.on("request", lambda r: requests.append(r.url))
            page.on("websocket", lambda ws: requests.append(ws.url))
        light.goto(url)
        dark.goto(f"{url}?theme=dark")
        for page in (light, dark):
            expect(page.locator(READY[PANES[0][0]])).to_be_visible()
        for title, _ in PANES[1:]:  # every tab on the light page: a tab's plots and controls render on opening
            light.get_by_text(title, exact=True).first.click()
            expect(light.locator(READY[title])).to_be_visible()
        dark.get_by_text(DYNAMICS, exact=True).first.click()
        light.get_by_text(DYNAMICS, exact=True).first.click()
        for page, theme in ((light, "light"), (dark, "dark")):
            found, lines = _toggle_problems(page, theme)
            problems += found
            report += lines
            page.screenshot(path=str(ARTIFACTS / f"theme_{theme}.png"))

    own = urlparse(url).netloc
    foreign = sorted({u for u in requests if urlparse(u).scheme not in ("data", "blob", "about")
                      and urlparse(u).netloc != own})
    assert requests, "no request recorded"
    problems += [f"request to another host: {u}" for u in foreign]
    problems += [f"server error: {e}" for e in server_errors(log)]
    print("\n".join(report))
    assert not problems, "\n".join(problems + report)
