import os

import numpy as np
import pytest


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory, request):
    """Every test session gets its own on-disk basis cache (never the user's), and one fit cache shared by its
    workers and the processes they start (``LAB_FIT_CACHE``, the repository's conftest.py)."""
    os.environ["LAB_CACHE_DIR"] = str(tmp_path_factory.mktemp("lab-cache"))
    os.environ["LAB_FIT_CACHE"] = str(request.config.lab_fit_cache_dir(request.config))
    yield


@pytest.fixture(autouse=True, scope="session")
def _isolated_results(tmp_path_factory):
    """Runs the command line saves by default (lab dynamics, lab discover) go to a temporary directory."""
    os.environ.setdefault("LAB_RESULTS_DIR", str(tmp_path_factory.mktemp("lab-results")))
    yield


@pytest.fixture(autouse=True)
def _close_figures():
    """Matplotlib figures a test drew are closed after it (pyplot keeps every figure open until closed)."""
    yield
    import sys
    if "matplotlib.pyplot" in sys.modules:  # never import pyplot for a test that did not draw
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(scope="session")
def quick_report(request):
    """``lab reproduce --quick --json`` run once per test session, as a user runs it (a subprocess started in the
    background at the end of collection, see the repository's conftest.py): (the printed JSON object, the
    report.json written beside report.html)."""
    import json
    import time
    from pathlib import Path

    kept = os.environ.get("LAB_QUICK_REPORT_DIR")
    if kept:  # developing one family: reuse a report written by `lab reproduce --quick --only ... --out DIR`
        report = json.loads((Path(kept) / "report.json").read_text())
        stdout = Path(kept).parent / "stdout.json"  # a session's kept run directory has what it printed beside
        printed = json.loads(stdout.read_text()) if stdout.is_file() else \
            {"claims": [{k: v for k, v in c.items() if k not in ("evidence", "profile")}
                        for c in report["claims"]], "report": report["report"]}
        return printed, report
    directory = request.config.lab_start_quick_report(request.config)  # the repository's conftest.py
    rc, deadline = directory / "rc", time.monotonic() + 1800  # a hang guard, not a speed requirement
    while not rc.exists():
        assert time.monotonic() < deadline, "lab reproduce --quick did not finish in 30 minutes"
        time.sleep(1)
    stderr = (directory / "stderr.txt").read_text()
    assert rc.read_text().strip() == "0", stderr[-3000:]
    printed = json.loads((directory / "stdout.json").read_text())
    report = json.loads((directory / "report" / "report.json").read_text())
    return printed, report


NOTEBOOK_WAIT = 2400  # seconds the docs build waits for the notebook tests: a hang guard, never a speed requirement


@pytest.fixture(scope="session")
def executed_notebooks(request):
    """The session's jupyter-cache of executed notebooks (``notebook_cache_dir``), once every notebook test this
    session runs has ended (each leaves ``done/<notebook>`` when it ends, passed or not).  A notebook the session
    does not run, or one whose test failed, is executed by the docs build itself."""
    import time

    directory = request.config.lab_notebook_cache_dir(request.config)
    expected = {item.callspec.params["path"].name for item in request.session.items
                if getattr(item, "originalname", None) == "test_notebook_executes"}  # (doctests have none)
    deadline = time.monotonic() + NOTEBOOK_WAIT
    while expected - {p.name for p in (directory / "done").glob("*")} and time.monotonic() < deadline:
        time.sleep(1)
    return directory


@pytest.fixture(scope="session")
def quick_outcomes(quick_report):
    """The quick report's claims as ``lab.reproduce.Outcome`` objects, by id."""
    from lab.reproduce import Null, Outcome
    from lab.reproduce.claim import Part

    _, report = quick_report
    outcomes = {}
    for c in report["claims"]:
        o = Outcome(measured=c["measured"], settings=c["settings"], evidence=c["evidence"], note=c["note"],
                    criterion=c["criterion"], null=None if c["null"] is None else Null(**c["null"]),
                    accuracy=c["accuracy"], variants=c["variants"],
                    parts=[Part.from_dict(p) for p in c.get("parts") or []], replicates=c.get("replicates"),
                    paper_settings=c.get("paper_settings", ""),
                    history={h["version"]: h for h in c.get("criterion_history") or []})
        o.holds = c["criterion_met"]  # as judged by the run (a claim without parts keeps its own answer)
        outcomes[c["id"]] = o
    return outcomes
