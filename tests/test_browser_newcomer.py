"""What a new user trips on (issue 48), in Chromium at 1280×800 against ``panel serve app.py``:

* every tab with a Start button has it in view without scrolling, and a bad number typed into any of its numeric
  boxes is kept as typed, named inline with the box's range, and holds Start until it is fixed;
* two tabs' jobs run side by side in one page, both progress, and the page asks no host but the server;
* a reload while a run goes says that run was stopped and saved, and selects it in the Saved runs.

Every wait polls for a state for up to ``browser.WAIT`` seconds (a hang guard for a busy machine); nothing here
asserts how fast anything runs."""
from __future__ import annotations

import json
import re

import pytest

from browser import chromium_page, panel_server, require_chromium, screenshot_on_failure, server_errors

from lab.dashboard import PANES
from lab.experiments import FAMILIES

pytestmark = pytest.mark.browser

WIDTH, HEIGHT = 1280, 800


def _job_tabs() -> list[tuple[str, object]]:
    """(tab title, a pane of it built here) for every tab whose pane is a job pane, in the page's order."""
    from lab.dashboard.job_pane import JobPane

    panes = {}
    for family in FAMILIES.values():
        if family.pane and family.tab is not None and family.title not in panes:
            cls = family.pane_class()
            if issubclass(cls, JobPane):
                panes[family.title] = cls
    return [(title, panes[title]) for title, _ in PANES if title in panes]


def _bad_value(o) -> str | None:
    """A number outside the option's declared range, as typed into its box (None: every number is allowed)."""
    if o.low is not None:
        v = o.low if o.positive else o.low - 1
    elif o.high is not None:
        v = o.high + 1
    else:
        return None
    return str(int(v)) if o.type is int or float(v).is_integer() else str(v)


def _in_view(page, selector: str) -> bool:
    box = page.locator(selector).first.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT and box["x"] >= 0 \
        and box["x"] + box["width"] <= WIDTH


def test_start_is_in_view_and_a_bad_number_is_said_beside_it_on_every_job_tab(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    tabs = _job_tabs()
    assert len(tabs) == 7, [t for t, _ in tabs]
    problems: list[str] = []
    with panel_server() as (url, log), chromium_page(WIDTH, HEIGHT) as page, \
            screenshot_on_failure(page, "newcomer_fields"):
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        for title, cls in tabs:
            pane = cls(results=str(tmp_path))  # its boxes, their fields and ranges, as the page builds them
            css = cls.css
            page.get_by_text(title, exact=True).first.click()
            start = page.locator(f".{css}-start button")
            expect(start).to_be_enabled()
            page.wait_for_timeout(500)  # the layout settles
            if not _in_view(page, f".{css}-start button"):
                problems.append(f"{title}: Start is not in view at {WIDTH}×{HEIGHT} without scrolling")
            judged = 0
            for name, label in pane._field_labels.items():
                box = page.locator(f".lab-controls .lab-field-{name} input")
                if not pane._field_applies(name) or box.count() == 0 or not box.first.is_visible():
                    continue
                bad = _bad_value(pane._option(name))
                if bad is None:
                    continue
                before = box.first.input_value()
                box.first.fill(bad)
                box.first.press("Tab")
                invalid = page.locator(f".{css}-invalid")
                expect(invalid).to_be_visible()
                expect(invalid).to_contain_text(label)
                expect(invalid).to_contain_text(re.compile(r"got -?[\d,.]+"))
                expect(start).to_be_disabled()
                assert box.first.input_value().replace(",", "") == bad, f"{title}: {label} snapped back"
                box.first.fill(before)
                box.first.press("Tab")
                expect(invalid).to_be_hidden()
                expect(start).to_be_enabled()
                judged += 1
            if judged < 2:
                problems.append(f"{title}: only {judged} numeric boxes judged")
        page.screenshot(path=str(tmp_path.parent / "newcomer_last_tab.png"))
        assert not server_errors(log), f"the server logged an exception: see {log}"
    assert not problems, "\n".join(problems)


def test_two_tabs_jobs_progress_side_by_side_and_nothing_comes_from_outside(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    outside: list[str] = []

    def watch(request):
        if not re.match(r"^(https?|wss?)://127\.0\.0\.1[:/]|^(data|blob):", request.url):
            outside.append(request.url)

    def step(css: str) -> int:
        text = page.locator(f".{css}-status p").first.inner_text()
        m = re.search(r"step (\d+)", text)
        return int(m.group(1)) if m else -1

    def show(title: str, css: str):
        page.get_by_text(title, exact=True).first.click()
        expect(page.locator(f".{css}-status")).to_be_visible()

    with panel_server() as (url, log), chromium_page(WIDTH, HEIGHT) as page, \
            screenshot_on_failure(page, "newcomer_two_jobs"):
        page.on("request", watch)
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        show("Ensembles", "ens")
        page.locator(".ens-steps input").fill("100000")
        page.locator(".ens-steps input").press("Tab")
        page.locator(".ens-start button").click()
        expect(page.locator(".ens-status")).to_contain_text(re.compile(r"training · step \d+"))
        show("Generalization bounds", "bnd")
        for box, value in {".bnd-dims": "8", ".bnd-steps": "100000"}.items():
            page.locator(f"{box} input").fill(value)
            page.locator(f"{box} input").press("Tab")
        page.locator(".bnd-start button").click()
        expect(page.locator(".bnd-status")).to_contain_text(re.compile(r"training · d = 8: train step \d+"))
        seen = {"ens": [], "bnd": []}
        for _ in range(3):  # each tab, shown in turn, has moved on since it was last shown
            for title, css in (("Ensembles", "ens"), ("Generalization bounds", "bnd")):
                show(title, css)
                page.wait_for_timeout(1500)
                seen[css].append(step(css) if css == "ens" else int(re.search(
                    r"train step (\d+)", page.locator(".bnd-status p").first.inner_text()).group(1)))
        for css, steps in seen.items():
            assert steps == sorted(steps) and steps[-1] > steps[0] > 0, (css, steps)
        for title, css in (("Ensembles", "ens"), ("Generalization bounds", "bnd")):
            show(title, css)
            page.locator(f".{css}-stop button").click()
            expect(page.locator(f".{css}-start button")).to_be_enabled()
        assert not outside, f"the page asked hosts other than the server: {sorted(set(outside))[:5]}"
        assert not server_errors(log), f"the server logged an exception: see {log}"


def test_a_reload_during_a_run_says_it_was_stopped_and_saved(tmp_path, monkeypatch):
    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    with panel_server() as (url, log), chromium_page(WIDTH, HEIGHT) as page, \
            screenshot_on_failure(page, "newcomer_reload"):
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        page.get_by_text("Ensembles", exact=True).first.click()
        page.locator(".ens-steps input").fill("100000")
        page.locator(".ens-steps input").press("Tab")
        page.locator(".ens-start button").click()
        expect(page.locator(".ens-status")).to_contain_text(re.compile(r"training · step \d+"))
        page.reload()
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        page.get_by_text("Ensembles", exact=True).first.click()
        status = page.locator(".ens-status")
        expect(status).to_contain_text("was stopped and saved as")
        name = re.search(r"saved as (\S+?):", status.locator("p").first.inner_text()).group(1)
        saved = list((tmp_path / "ensembles").iterdir())
        assert [p.name for p in saved] == [name]
        assert json.loads((saved[0] / "config.json").read_text())["status"] == "stopped"
        expect(page.locator(".ens-saved select")).to_have_value(name)
        expect(page.locator(".ens-load button")).to_be_enabled()
        assert not server_errors(log), f"the server logged an exception: see {log}"
