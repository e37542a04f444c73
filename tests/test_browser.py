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


#: the browser's copy of a Bokeh model drawn on the page, found by the name the live-pane base gives it
#: (lab/dashboard/live.py).  Bokeh's browser document may keep a figure the page no longer shows (the previous
#: run's, detached from the layout) among its models, under its name: only models the roots reach count
_MODEL_JS = """name => { for (const doc of window.Bokeh.documents) {
                         const shown = new Set();
                         for (const root of doc.roots()) for (const m of root.references()) shown.add(m);
                         const ms = Array.from(shown).filter(m => m.name === name);
                         if (ms.length > 1) throw new Error(`${ms.length} models drawn are named ${name}`);
                         if (ms.length) return ms[0]; } return null; }"""


def _shown_text(page, css: str) -> str:
    """The rendered text of the first element matching ``css``, its shadow root included (a Panel pane's text
    lives there: ``Locator.inner_text`` of the host reads only its light DOM)."""
    return page.locator(css).first.evaluate("""e => {
        const root = e.shadowRoot || e;
        return Array.from(root.children).filter(n => !['STYLE', 'LINK', 'SCRIPT'].includes(n.tagName))
            .map(n => n.innerText).join(' ');
    }""")


def _live(page, plot: str, group: str) -> dict:
    """The browser's figure id of a live plot and the points of one median curve (body, then tail)."""
    return page.evaluate(f"""() => {{
        const find = {_MODEL_JS};
        const fig = find('live-{plot}');
        const body = find('live-{plot}-{group}-med'), tail = find('live-{plot}-{group}-med_tail');
        if (!fig || !body) return null;
        const xs = Array.from(body.data.x), ys = Array.from(body.data.y);
        const tx = tail ? Array.from(tail.data.x) : [], ty = tail ? Array.from(tail.data.y) : [];
        return {{id: fig.id, x: xs.concat(tx.slice(1)), y: ys.concat(ty.slice(1))}};
    }}""")


def _stream_polls(page, plot: str, group: str, status_css: str, until, what: str, polls: int = 2, check=None,
                  also=()):
    """Poll a live plot while its run trains until ``until(status text)``; then the streaming contract: the curve
    got new points over at least ``polls`` polls, points only ever arrived, and one Bokeh figure held them all
    (streamed, never rebuilt).  ``also``: more (plot, group) pairs of the same run held to the same contract.
    ``check(status text)`` runs at every poll.  Returns the first plot's finished curve."""
    watched = [(plot, group), *also]
    seen = {p: [] for p in watched}  # (figure id, points of the curve) while the run trains

    def polled():
        text = _shown_text(page, status_css)
        if check is not None:
            check(text)
        for p, g in watched:
            live = _live(page, p, g)
            if live is not None and "training" in text and live["x"]:
                seen[p, g].append((live["id"], len(live["x"])))
        return until(text, seen[plot, group])

    wait_until(polled, what, page)
    finals = {}
    for (p, g), got in seen.items():
        assert len({n for _, n in got}) >= polls, f"the {p} plot got new points over too few polls: {got}"
        assert sorted(n for _, n in got) == [n for _, n in got]  # points only ever arrive
        finals[p, g] = _live(page, p, g)
        assert {i for i, _ in got} == {finals[p, g]["id"]}  # one Bokeh figure all along: streamed, not rebuilt
    return finals[plot, group]


def _large_saved_run(root, runs=20, steps=2500, seed=7):
    """A saved dynamics run as ``lab.dynamics.store`` writes one, with ``runs`` × 4 strategies × ``steps``
    "total" rows (no training needed): the largest run these tests load."""
    import json

    import numpy as np
    import pandas as pd

    from lab.dynamics.config import DynamicsConfig
    from lab.dynamics.store import COLUMNS

    rng = np.random.default_rng(seed)
    strategies = ["nom", "aug", "equi", "aug_penalty"]
    n = len(strategies) * runs * (steps + 1)
    step = np.tile(np.arange(steps + 1), len(strategies) * runs)
    df = pd.DataFrame({"strategy": np.repeat(strategies, runs * (steps + 1)),
                       "run": np.tile(np.repeat(np.arange(runs), steps + 1), len(strategies)), "step": step,
                       "layer": "total", "dist_from_init": np.sqrt(step) * rng.uniform(0.9, 1.1, n),
                       "dist_from_E": np.sqrt(step) * rng.uniform(0.0, 0.2, n),
                       "loss": 1 / (1 + step) + rng.uniform(0, 0.1, n), "accuracy": rng.uniform(0, 1, n),
                       "diverged": False}, columns=COLUMNS)
    run = root / "20250101-000000-perm-large"
    run.mkdir(parents=True)
    cfg = DynamicsConfig(experiment="perm", runs=runs, steps=steps, strategies=tuple(strategies)).to_dict()
    (run / "config.json").write_text(json.dumps({"config": cfg, "status": "finished", "steps_done": steps}))
    df.to_csv(run / "metrics.csv", index=False)
    return run, df


def test_training_dynamics_in_chromium(tmp_path, monkeypatch):
    """A run streams into the drift and loss plots (new points over successive polls, the same Bokeh models:
    streamed, never rebuilt) and ends holding every step; the largest saved run loads on the pane's job while the
    page answers another control, and its curves are the medians of its metrics.csv."""
    require_chromium()
    import numpy as np
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))  # the served app saves its runs here
    large, large_df = _large_saved_run(tmp_path)
    with panel_server() as (url, log), chromium_page(1500, 1300) as page:
        with screenshot_on_failure(page, "training_dynamics"):
            page.goto(url)
            expect(page.locator(".basis-info")).to_contain_text("r = ")
            page.get_by_text("Training dynamics").click()
            page.locator(".dyn-experiment select").select_option("custom")
            expect(page.locator(".dyn-steps input")).to_have_value("30")  # the experiment's defaults arrived
            for cls, value in ((".dyn-runs", "3"), (".dyn-steps", "400")):
                box = page.locator(f"{cls} input")
                box.fill(value)
                box.press("Tab")
            page.locator(".dyn-start button").click()
            status = page.locator(".dyn-status")
            expect(status).to_contain_text("step")

            _stream_polls(page, "drift-nom", "nom", ".dyn-status", polls=3,
                          until=lambda text, seen: len({n for _, n in seen}) >= 3 or "finished" in text,
                          what="the drift plot to receive points while the run trains")
            expect(status).to_contain_text("finished")
            expect(status).to_contain_text("step 400/400")
            loss = _live(page, "loss", "aug")
            assert loss["x"] == [float(s) for s in range(401)]  # the finished plot holds every step
            expect(page.locator(".dyn-drift canvas").first).to_be_visible()
            expect(page.locator(".dyn-layers")).to_contain_text("total")
            page.screenshot(path=str(ARTIFACTS / "training_dynamics.png"), full_page=True)
            assert len([p for p in tmp_path.iterdir() if p != large]) == 1  # the finished run was saved

            # the largest saved run loads on the pane's job: the page answers another control meanwhile
            page.locator(".dyn-saved select").select_option(label=large.name)
            page.locator(".dyn-load button").click()
            page.get_by_text("Basis explorer").click()
            before = _shown_text(page, ".basis-info")
            box = page.locator(".rep-in-input input")
            box.fill("T(1)")
            box.press("Enter")
            wait_until(lambda: (now := _shown_text(page, ".basis-info")) != before and "r = " in now,
                       "the Basis explorer to answer while the run loads", page)
            page.get_by_text("Training dynamics").click()
            expect(status).to_contain_text("Loaded")
            med = large_df.groupby(["strategy", "step"]).median(numeric_only=True)
            for strategy in ("nom", "aug_penalty"):
                drawn = _live(page, "loss", strategy)
                want = med.loc[strategy].loss.to_numpy()
                assert drawn["x"] == [float(s) for s in range(2501)]
                assert np.allclose(drawn["y"], want, rtol=1e-9)
            page.screenshot(path=str(ARTIFACTS / "training_dynamics_loaded.png"), full_page=True)
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
    """The default conv run ends with partition distance 0, its penalties curve holding the first and last step.
    (It learns for about a second: too brief to watch stream on a loaded machine, so the streaming contract of both
    curve plots is checked on the 4 000-step Gaussian run below; conv drifts off distance 0 when run longer.)"""
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
            wait_until(lambda: "final partition distance" in _shown_text(page, ".shr-status"),
                       "the sharing run to end", page)
            expect(status).to_contain_text("final partition distance 0")
            final = _live(page, "shr-penalties", "partition_distance")
            assert final["x"][0] == 0.0 and final["x"][-1] == 1000.0 and final["y"][-1] == 0.0
            expect(page.locator(".shr-reading")).to_contain_text("partition distance 0")  # beside the pictures
            expect(page.locator(".shr-weights canvas").first).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "sharing_discovery.png"), full_page=True)
            assert len(list((tmp_path / "sharing").iterdir())) == 1
            assert not server_errors(log), f"the server logged an exception: see {log}"


def test_sharing_discovery_loss_curve_streams_and_its_run_loads_in_chromium(tmp_path, monkeypatch):
    """A Gaussian run streams into the loss and penalties plots (new points over successive polls, one Bokeh figure
    each all along,
    the status line saying the step once) and ends holding every recorded step, the newest kept; the saved run
    then loads on the pane's job and its loss curve is the saved history's."""
    require_chromium()
    import numpy as np
    import pandas as pd
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    with panel_server() as (url, log), chromium_page(1500, 1300) as page:
        with screenshot_on_failure(page, "sharing_discovery_losses"):
            page.goto(url)
            expect(page.locator(".basis-info")).to_contain_text("r = ")
            page.get_by_text("Sharing discovery").click()
            page.locator(".shr-task select").select_option("gaussian")
            expect(page.locator(".shr-steps input")).to_have_value("1000")  # the task's defaults arrived
            box = page.locator(".shr-steps input")
            box.fill("4000")  # long enough to be seen streaming over several polls on a loaded machine
            box.press("Tab")
            page.locator(".shr-start button").click()

            def said_once(text):
                assert text.count("step ") <= 1, text  # the step is never said twice

            final = _stream_polls(page, "shr-losses", "upper", ".shr-status", check=said_once,
                                  also=[("shr-penalties", "partition_distance")],
                                  until=lambda text, seen: "final partition distance" in text,
                                  what="the Gaussian run to stream its loss curve and end")
            assert _shown_text(page, ".shr-status").count("step 4000") == 1
            (run,) = list((tmp_path / "sharing").iterdir())
            history = pd.read_csv(run / "history.csv")
            steps = [float(s) for s in history.step]
            assert steps[-1] == 4000.0 and final["x"] == steps  # every recorded step, the newest kept
            assert np.allclose(final["y"], history.upper, rtol=1e-12)
            expect(page.locator(".shr-reading")).to_contain_text("best: distance")
            page.screenshot(path=str(ARTIFACTS / "sharing_discovery_losses.png"), full_page=True)

            # the saved run loads on the pane's job: its loss curve is the saved history's
            page.locator(".shr-task select").select_option("conv")  # the run on display goes
            page.locator(".shr-saved select").select_option(label=run.name)
            page.locator(".shr-load button").click()
            wait_until(lambda: f"Loaded {run.name}" in _shown_text(page, ".shr-status"), "the saved run to load",
                       page)
            expect(page.locator(".shr-task select")).to_have_value("gaussian")
            loaded = _live(page, "shr-losses", "upper")
            assert loaded["x"] == steps and np.allclose(loaded["y"], history.upper, rtol=1e-12)
            assert not server_errors(log), f"the server logged an exception: see {log}"
