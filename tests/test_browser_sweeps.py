"""The Sweeps tab in a real browser (issue 32): ``panel serve app.py`` + headless Chromium on a store the test made
(``SweepStore.append`` of synthetic rows under ``LAB_RESULTS_DIR/sweeps``): the tab opens the store by itself, its
status line names the experiment and counts the points, and the aggregated plot is drawn -- one median line per
model whose points are ``lab.sweeps.aggregate.aggregate``'s medians -- and follows a change of the grouping."""
from __future__ import annotations

import json

import numpy as np
import pytest

from browser import (ARTIFACTS, chromium_page, panel_server, require_chromium, screenshot_on_failure, server_errors,
                     wait_until)

pytestmark = pytest.mark.browser

SPEC = "experiment: emlp\ngrid:\n  model: [mlp, emlp]\n  size: [100, 1000, 10000]\nseeds: 3\n"

#: {series label: {x, median}} of the median lines the page draws (the glyphs named ``swp-median-<i>``), counting
#: only the models the document's roots reach (a replaced figure may linger among the browser's models)
_MEDIANS_JS = """() => {
  const out = {};
  for (const doc of window.Bokeh.documents) {
    const shown = new Set();
    for (const root of doc.roots()) for (const m of root.references()) shown.add(m);
    for (const m of shown) {
      if (m.name && /^swp-median-[0-9]+$/.test(m.name) && m.data_source) {
        const d = m.data_source.data;
        out[d.series[0]] = {x: Array.from(d.x), median: Array.from(d.median)};
      }
    }
  }
  return out;
}"""


def make_store(root):
    """A store of test error against dataset size per model, three seeds each (synthetic rows, no run)."""
    from lab.sweeps import SweepStore

    store = SweepStore(root)
    store.write_spec(SPEC)
    rows, t = [], 1.7e9
    for model in ("mlp", "emlp"):
        for size in (100, 1000, 10000):
            for seed in range(3):
                t += 1
                err = (0.8 if model == "mlp" else 0.3) * size ** -0.25 * (1 + 0.1 * seed)
                rows.append({"point": f"{model}-{size}-{seed}", "status": "done", "finished": t,
                             "settings": json.dumps({"model": model, "size": size, "seed": seed}),
                             "summary": json.dumps({"test_error": err}), "x.model": model, "x.size": size,
                             "x.seed": seed, "s.test_error": err})
    store.append(rows)
    return store


def test_the_sweeps_tab_draws_the_aggregated_plot_in_chromium(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    from lab.sweeps.aggregate import aggregate

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))  # the served app finds its stores under sweeps/
    store = make_store(tmp_path / "sweeps" / "emlp-sizes")
    want = aggregate(store.frame(), "size", "test_error", "model")
    with panel_server() as (url, log), chromium_page(1400, 1000) as page, screenshot_on_failure(page, "sweeps"):
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        page.get_by_text("Sweeps", exact=True).first.click()
        status = page.locator(".swp-status")
        expect(status).to_contain_text("emlp")
        expect(status).to_contain_text("18 done")
        expect(page.locator(".swp-figure canvas").first).to_be_visible()
        drawn: dict = {}

        def two_lines():
            drawn.clear()
            drawn.update(page.evaluate(_MEDIANS_JS))
            return set(drawn) == {"model = mlp", "model = emlp"}

        wait_until(two_lines, "the median line of each model", page)
        for model in ("mlp", "emlp"):
            rows = want[want["group"] == model]
            assert drawn[f"model = {model}"]["x"] == [float(s) for s in rows["x"]]
            assert np.allclose(drawn[f"model = {model}"]["median"], rows["median"])
        expect(page.locator(".swp-table")).to_contain_text("emlp")
        page.screenshot(path=str(ARTIFACTS / "sweeps.png"), full_page=True)

        # one line over both models once the grouping is none
        page.locator(".swp-group select").select_option("(none)")
        wait_until(lambda: list(page.evaluate(_MEDIANS_JS)) == ["test_error"], "one median line", page)
        pooled = aggregate(store.frame(), "size", "test_error")
        assert np.allclose(page.evaluate(_MEDIANS_JS)["test_error"]["median"], pooled["median"])
        assert not server_errors(log), f"the server logged an exception: see {log}"
