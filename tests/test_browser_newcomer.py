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


def test_each_job_tabs_saved_list_shows_its_familys_runs(tmp_path, monkeypatch):
    """On a copy of the saved-run fixture (one run of every family, written by an earlier commit), each job tab's
    Saved runs list offers exactly the runs its family's store holds -- the fixture's own directory listing -- and
    Load is enabled."""
    import shutil

    from test_saved_runs import FIXTURES

    require_chromium()
    from playwright.sync_api import expect

    root = tmp_path / "runs"
    shutil.copytree(FIXTURES[-1], root)
    monkeypatch.setenv("LAB_RESULTS_DIR", str(root))
    tabs = _job_tabs()
    problems: list[str] = []
    with panel_server() as (url, log), chromium_page(WIDTH, HEIGHT) as page, \
            screenshot_on_failure(page, "newcomer_saved_lists"):
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        for title, cls in tabs:
            kind = FAMILIES[cls.family].run_kind
            folder = kind.directory()  # under $LAB_RESULTS_DIR, as the server finds it
            want = sorted(p.name for p in folder.iterdir() if (p / "config.json").is_file())
            assert want, f"{title}: the fixture has no run of its family in {folder}"
            page.get_by_text(title, exact=True).first.click()
            select = page.locator(f".{cls.css}-saved select")
            expect(select).to_be_visible()
            shown = sorted(o.strip() for o in select.locator("option").all_inner_texts())
            if shown != want:
                problems.append(f"{title}: the Saved runs list shows {shown}, its family's store holds {want}")
            expect(page.locator(f".{cls.css}-load button")).to_be_enabled()
        assert not server_errors(log), f"the server logged an exception: see {log}"
    assert not problems, "\n".join(problems)


def test_the_readmes_sweep_plots_in_the_sweeps_tab_and_a_bad_store_is_said_inline(tmp_path, monkeypatch):
    """The README's example sweep, run in-process into a store: the Sweeps tab opens it at 1280×800, offers the
    summary's numbers (the family's headline first, never ``seconds``), draws one median line per strategy inside
    the viewport, and a directory that is not a store gets an inline message while the plot stays."""
    from test_browser_sweeps import _MEDIANS_JS
    from test_sweeps_numbers import run_readme_sweep

    from browser import cut_plots, wait_until

    require_chromium()
    from playwright.sync_api import expect

    monkeypatch.setenv("LAB_RESULTS_DIR", str(tmp_path))
    store, spec = run_readme_sweep(tmp_path / "sweeps" / "readme")
    with panel_server() as (url, log), chromium_page(WIDTH, HEIGHT) as page, \
            screenshot_on_failure(page, "newcomer_readme_sweep"):
        page.goto(url)
        expect(page.locator(".basis-info")).to_contain_text("r = ")
        page.get_by_text("Sweeps", exact=True).first.click()
        status = page.locator(".swp-status")
        expect(status).to_contain_text("12 done")
        expect(page.locator(".swp-y select")).to_have_value("dist_from_E")
        offered = page.locator(".swp-y select option").all_inner_texts()
        assert "seconds" != offered[0] and {"loss", "nom.dist_from_E"} <= set(offered), offered
        wait_until(lambda: set(page.evaluate(_MEDIANS_JS)) == {"strategies = nom", "strategies = equi"},
                   "a median line per strategy", page)
        drawn = page.evaluate(_MEDIANS_JS)
        assert max(drawn["strategies = equi"]["median"]) < 1e-6 < min(drawn["strategies = nom"]["median"])
        page.wait_for_timeout(1000)  # the layout settles
        count, cut = cut_plots(page)
        assert count > 0 and not cut, cut
        page.screenshot(path=str(tmp_path.parent / "newcomer_readme_sweep.png"))

        path = page.locator(".swp-path input")
        path.fill(str(tmp_path / "not-a-store"))
        page.locator(".swp-open button").click()
        error = page.locator(".swp-error")
        expect(error).to_be_visible()
        expect(error).to_contain_text("is not a sweep store")
        expect(status).to_contain_text("12 done")  # the store shown stays
        assert set(page.evaluate(_MEDIANS_JS)) == {"strategies = nom", "strategies = equi"}
        assert not server_errors(log), f"the server logged an exception: see {log}"
