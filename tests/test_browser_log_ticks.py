"""The log axes' ticks (``lab.plots.log_ticks``): the JavaScript rule run by Chromium itself on ranges whose ticks
are known -- 1-2-5 under about a decade (never Bokeh's linear 0.01, 0.02, …, 0.09), 1-3 up to three decades, the
powers beyond, every integer mantissa on a very short range -- and installed on the live panes' log axes."""
from __future__ import annotations

import pytest

from browser import chromium_page, require_chromium

from lab.plots.log_ticks import LOG_LABEL_JS, LOG_TICKS_JS

pytestmark = pytest.mark.browser

CASES = [
    ((0.005, 0.09), [0.005, 0.01, 0.02, 0.05]),  # the pendulum's loss: Bokeh would draw 0.01 … 0.09
    ((0.09, 0.005), [0.005, 0.01, 0.02, 0.05]),  # a flipped range
    ((30, 3000), [30, 100, 300, 1000, 3000]),  # two decades: 1 and 3
    ((1e-3, 1e5), [1e-3, 1e-2, 1e-1, 1, 10, 100, 1e3, 1e4, 1e5]),  # eight decades: the powers
    ((1e-12, 1e6), [1e-12, 1e-9, 1e-6, 1e-3, 1, 1e3, 1e6]),  # eighteen: every third power
    ((0.05, 0.09), [0.05, 0.06, 0.07, 0.08, 0.09]),  # under one 1-2-5 step: integer mantissas
    ((0, 1), []), ((-1, 5), []),  # not a log range
]


def test_the_rule_gives_the_known_ticks_in_the_browser():
    require_chromium()
    with chromium_page(400, 300) as page:
        page.set_content("<html><body></body></html>")
        for (start, end), want in CASES:
            got = page.evaluate("([code, start, end]) => new Function('cb_data', code)({start, end})",
                                [LOG_TICKS_JS, start, end])
            assert got == pytest.approx(want, rel=1e-12), (start, end, got)


LABELS = [
    ([0.09], ["0.09"]),  # Bokeh's LogTickFormatter: "10⁻¹"
    ([3, 30], ["3", "30"]),  # Bokeh's: "10⁰", "10¹"
    ([0.003, 0.01, 0.03], ["0.003", "0.01", "0.03"]),
    ([1e-3, 1e-2, 0.1, 1, 10], ["0.001", "0.01", "0.1", "1", "10"]),  # powers inside -3 … 4: plain numbers
    ([1e-6, 1e-3, 1, 1e3, 1e6], ["10⁻⁶", "0.001", "1", "1000", "10⁶"]),
    ([2e-7, 5e-7], ["2e-7", "5e-7"]),
    ([0.1234567], ["0.1235"]),
]


def test_the_labels_are_the_ticks_own_numbers():
    require_chromium()
    with chromium_page(400, 300) as page:
        page.set_content("<html><body></body></html>")
        for ticks, want in LABELS:
            got = page.evaluate("([code, ticks]) => ticks.map((tick, index) => new Function('tick', 'index', 'ticks', "
                                "code)(tick, index, ticks))", [LOG_LABEL_JS, ticks])
            assert got == want, (ticks, got)


def test_the_live_log_axes_use_it():
    from lab.dashboard.live import LivePlot, LiveView

    view = LiveView([LivePlot("a", y="loss", logy=True), LivePlot("b", y="loss")])
    view.reset(["g"])
    assert view.figure("a").yaxis[0].ticker.major_code == LOG_TICKS_JS
    assert view.figure("a").yaxis[0].formatter.code == LOG_LABEL_JS
    assert view.figure("b").yaxis[0].ticker.__class__.__name__ != "CustomJSTicker"  # linear axes keep Bokeh's
